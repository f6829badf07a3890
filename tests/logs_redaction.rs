//! No password, hash, token, key or delivery body reaches the log files or stderr of a session
//! that used them, at the most detailed level (`trace`), on either store (this suite runs again
//! on PostgreSQL, whose client library logs every statement's parameters at debug).

mod common;

use common::*;
use serde_json::{json, Value};
use staffroom::secrets::Secret;
use staffroom::webhooks::signature::sign;

#[tokio::test]
async fn secrets_never_reach_logs_or_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let data_dir = dir.path().join("data");
    let password = "plum-orchard-telescope-31";
    let jwt_key = "c2VjcmV0LWtleS1mb3ItdGhlLWxvZy10ZXN0LTAxMjM0NTY3ODk";
    let api_key = "ls_live_do_not_log_me_9f8e7d";
    let webhook_secret = "whsec_do_not_log_me_5c4b3a";
    let new_password = "quince-lantern-harbour-58";
    let customer = "delivery-customer-7@example.com";

    add_user(&data_dir, "lee@example.com", "Lee", "admin", password);
    let mut server = Server::start(ServerOptions {
        data_dir: Some(data_dir.clone()),
        env: vec![
            ("STAFFROOM_LOG".into(), "trace".into()),
            ("STAFFROOM_JWT_KEY".into(), jwt_key.into()),
            ("STAFFROOM_WEBHOOK_SECRET".into(), webhook_secret.into()),
        ],
        ..Default::default()
    });
    let body = login(&server, "lee@example.com", password).await;
    let token = body["token"].as_str().unwrap().to_string();
    let http = client();
    // Use the token everywhere it goes: a protected route, refresh, a failed sign-in, logout.
    assert_eq!(http.get(server.url("/api/auth/me")).bearer_auth(&token).send().await.unwrap().status(), 200);
    let refreshed: Value =
        http.post(server.url("/api/auth/refresh")).bearer_auth(&token).send().await.unwrap().json().await.unwrap();
    let token2 = refreshed["token"].as_str().unwrap().to_string();
    let resume_token = refreshed["resumeToken"].as_str().unwrap().to_string();
    // A user added (its password hashed and stored) and a delivery with a customer in it.
    let new_user = json!({"email": "noor@example.com", "name": "Noor", "role": "staff", "password": new_password});
    let added = http.post(server.url("/api/users")).bearer_auth(&token2).json(&new_user).send().await.unwrap();
    assert_eq!(added.status(), 201);
    let delivery = serde_json::to_vec(&json!({
        "meta": {"event_name": "order_created", "webhook_id": "w-log-1"},
        "data": {"type": "orders", "id": "9001", "attributes": {
            "status": "paid", "user_email": customer, "user_name": "Delivery Customer",
            "updated_at": "2026-11-22T10:00:00.000000Z"}}
    }))
    .unwrap();
    let delivered = http
        .post(server.url("/api/payments/webhooks"))
        .header("content-type", "application/json")
        .header("x-signature", sign(&Secret::new(webhook_secret), &delivery))
        .body(delivery)
        .send()
        .await
        .unwrap();
    assert_eq!(delivered.status(), 200);
    let wrong = serde_json::json!({"email": "lee@example.com", "password": format!("{password}-typo")});
    assert_eq!(http.post(server.url("/api/auth")).json(&wrong).send().await.unwrap().status(), 401);
    assert_eq!(http.post(server.url("/api/auth/logout")).bearer_auth(&token2).send().await.unwrap().status(), 204);
    // (In the sandbox its providers' credentials are its own: a pasted Google token is not.)
    let (status, _, err) = run_cli(&data_dir, &["secrets", "set", "google_token"], api_key);
    assert!(status.success(), "{err}");
    let stderr_cli = err;
    let (status, out, _) = run_cli(&data_dir, &["secrets", "status"], "");
    assert!(status.success());
    assert!(!out.contains(api_key));
    assert_eq!(server.signal_and_wait("TERM").code(), Some(0));

    let mut logs = server.stderr() + &stderr_cli;
    let log_dir = data_dir.join("logs");
    let mut files = 0;
    for entry in std::fs::read_dir(&log_dir).expect("the log dir exists") {
        logs.push_str(&std::fs::read_to_string(entry.unwrap().path()).unwrap());
        files += 1;
    }
    assert!(files >= 1, "JSON log files are written in {}", log_dir.display());
    assert!(logs.contains("\"latency_ms\""), "the JSON log has request spans with latency");
    assert!(logs.contains("/api/auth/refresh"), "requests were logged at all");
    let signature = token.rsplit('.').next().unwrap();
    for (what, secret) in [
        ("password", password),
        ("token", token.as_str()),
        ("token signature", signature),
        ("refreshed token", token2.as_str()),
        ("resume token", resume_token.as_str()),
        ("jwt key", jwt_key),
        ("api key", api_key),
        ("webhook secret", webhook_secret),
        ("new user's password", new_password),
        ("a password hash", "$argon2"),
        ("a delivery's customer", customer),
        ("a delivery's body", "w-log-1"),
    ] {
        assert!(!logs.contains(secret), "the {what} leaked into the logs");
    }
    // The store holds no secret either.
    let db = stored_text(&data_dir).await;
    for secret in [password, jwt_key, api_key, signature, webhook_secret, new_password] {
        assert!(!db.contains(secret));
    }
}
