//! The webhook receiver over real HTTP against the real `staffroom serve` process.

mod common;

use common::*;
use serde_json::{json, Value};
use staffroom::secrets::Secret;
use staffroom::webhooks::signature::sign;

const SECRET: &str = "whsec_test_receiver_secret";

fn server() -> Server {
    Server::start(ServerOptions { env: vec![("STAFFROOM_WEBHOOK_SECRET".into(), SECRET.into())], ..Default::default() })
}

async fn deliver(server: &Server, body: &[u8], signature: Option<String>, content_type: &str) -> (u16, Value) {
    let mut request =
        client().post(server.url("/api/payments/webhooks")).header("content-type", content_type).body(body.to_vec());
    if let Some(signature) = signature {
        request = request.header("x-signature", signature);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

async fn signed(server: &Server, body: &Value) -> (u16, Value) {
    let bytes = serde_json::to_vec(body).unwrap();
    deliver(server, &bytes, Some(sign(&Secret::new(SECRET), &bytes)), "application/json").await
}

async fn stored(server: &Server, token: &str) -> Vec<Value> {
    let log = webhook_log(server, token, 500).await;
    assert_eq!(log["receiving"], true);
    log["events"].as_array().unwrap().clone()
}

fn native(event: &str, id: &str, webhook_id: &str) -> Value {
    json!({
        "meta": {"event_name": event, "webhook_id": webhook_id, "test_mode": true, "custom_data": {"order_id": "o-1"}},
        "data": {"type": "orders", "id": id, "attributes": {"status": "paid", "updated_at": "2026-11-22T10:00:00.000000Z"}}
    })
}

#[tokio::test]
async fn unsigned_and_wrongly_signed_deliveries_get_401_and_leave_no_trace() {
    let server = server();
    let token = demo_token(&server).await;
    let body = serde_json::to_vec(&native("order_created", "1", "w-1")).unwrap();
    let wrong_secret = sign(&Secret::new("another-secret"), &body);
    let tampered = sign(&Secret::new(SECRET), b"{\"different\":true}");
    for (name, signature) in [
        ("missing", None),
        ("empty", Some(String::new())),
        ("not hex", Some("not-a-signature".to_string())),
        ("wrong secret", Some(wrong_secret)),
        ("other body", Some(tampered)),
    ] {
        let (status, answer) = deliver(&server, &body, signature, "application/json").await;
        assert_eq!(status, 401, "{name}");
        assert_eq!(answer["error"]["code"], "unauthorized", "{name}");
    }
    assert!(stored(&server, &token).await.is_empty(), "nothing is stored");
}

#[tokio::test]
async fn a_signed_delivery_is_stored_and_a_repeat_is_a_duplicate() {
    let server = server();
    let token = demo_token(&server).await;
    let event = native("order_created", "42", "w-42");
    assert_eq!(signed(&server, &event).await, (200, json!({"received": true, "duplicate": false})));
    assert_eq!(signed(&server, &event).await, (200, json!({"received": true, "duplicate": true})));
    // Same webhook id, other bytes: still the same delivery.
    let mut reordered = event.clone();
    reordered["meta"]["test_mode"] = false.into();
    assert_eq!(signed(&server, &reordered).await.1["duplicate"], true);
    let events = stored(&server, &token).await;
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["eventName"], "order_created");
    assert_eq!(events[0]["resourceId"], "42");
    assert_eq!(events[0]["verified"], true);

    // Without a webhook id the body hash is the identity.
    let seed_shaped = json!({
        "event": "order_paid",
        "data": {"id": "43", "type": "orders", "attributes": {"status": "paid"}},
        "meta": {"eventName": "order_paid", "timestamp": "2026-11-22T10:04:05Z"}
    });
    assert_eq!(signed(&server, &seed_shaped).await, (200, json!({"received": true, "duplicate": false})));
    assert_eq!(signed(&server, &seed_shaped).await.1["duplicate"], true);
    let events = stored(&server, &token).await;
    assert_eq!(events.len(), 2);
    assert_eq!(events[0]["eventName"], "order_paid");
}

#[tokio::test]
async fn unknown_events_are_stored_and_acknowledged() {
    let server = server();
    let token = demo_token(&server).await;
    let event =
        json!({"meta": {"event_name": "something_new", "webhook_id": "w-new"}, "data": {"type": "things", "id": "7"}});
    assert_eq!(signed(&server, &event).await.0, 200);
    let events = stored(&server, &token).await;
    assert_eq!(events[0]["eventName"], "something_new");
}

#[tokio::test]
async fn bad_bodies_get_clear_errors() {
    let server = server();
    let token = demo_token(&server).await;
    let sig = |body: &[u8]| Some(sign(&Secret::new(SECRET), body));

    let big = format!("{{\"pad\":\"{}\"}}", "x".repeat(300 * 1024));
    let (status, answer) = deliver(&server, big.as_bytes(), sig(big.as_bytes()), "application/json").await;
    assert_eq!(status, 413);
    assert_eq!(answer["error"]["code"], "payload_too_large");

    let (status, answer) = deliver(&server, b"{not json", sig(b"{not json"), "application/json").await;
    assert_eq!(status, 400);
    assert_eq!(answer["error"]["details"]["fields"][0]["field"], "body");

    let form = b"a=1&b=2";
    let (status, answer) = deliver(&server, form, sig(form), "application/x-www-form-urlencoded").await;
    assert_eq!(status, 415);
    assert_eq!(answer["error"]["code"], "unsupported_media_type");

    let disagree = serde_json::to_vec(&json!({"event": "order_created", "meta": {"eventName": "order_refunded"}, "data": {"id": "1", "type": "orders"}})).unwrap();
    let (status, answer) = deliver(&server, &disagree, sig(&disagree), "application/json").await;
    assert_eq!(status, 400);
    assert_eq!(answer["error"]["details"]["fields"][0]["field"], "meta.eventName");

    let no_data = serde_json::to_vec(&json!({"meta": {"event_name": "order_created"}})).unwrap();
    let (status, answer) = deliver(&server, &no_data, sig(&no_data), "application/json").await;
    assert_eq!(status, 400);
    assert_eq!(answer["error"]["details"]["fields"][0]["field"], "data");

    assert!(stored(&server, &token).await.is_empty());
}

#[tokio::test]
async fn the_webhook_log_needs_a_staff_token_and_a_valid_limit() {
    let server = server();
    let response = client().get(server.url("/api/payments/webhooks")).send().await.unwrap();
    assert_eq!(response.status(), 401);
    let token = demo_token(&server).await;
    for bad in ["0", "501", "abc", "-1"] {
        let response = client()
            .get(server.url(&format!("/api/payments/webhooks?limit={bad}")))
            .bearer_auth(&token)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 400, "limit={bad}");
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["error"]["details"]["fields"][0]["field"], "limit");
    }
}

#[tokio::test]
async fn the_desktop_receiver_serves_only_webhooks_and_only_on_loopback() {
    let app = SandboxApp::start().await;
    let refused = staffroom::http::start_webhook_receiver(app.core.clone(), "0.0.0.0:0".parse().unwrap()).await;
    assert!(refused.unwrap_err().message.contains("without TLS"));
    let receiver =
        staffroom::http::start_webhook_receiver(app.core.clone(), "127.0.0.1:0".parse().unwrap()).await.unwrap();
    let addr = receiver.addr;
    let secret = app.core.secrets.get("webhook_secret").unwrap().unwrap();
    let body = serde_json::to_vec(&native("order_created", "77", "w-desktop")).unwrap();
    let response = client()
        .post(format!("http://{addr}/api/payments/webhooks"))
        .header("content-type", "application/json")
        .header("x-signature", sign(&secret, &body))
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let other = client().post(format!("http://{addr}/api/auth")).body("{}").send().await.unwrap();
    assert_eq!(other.status(), 404, "the receiver exposes nothing else");
    receiver.stop();
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    let after = client().post(format!("http://{addr}/api/payments/webhooks")).body("{}").send().await;
    assert!(after.is_err(), "a stopped receiver no longer listens");
}
