//! Staff sign-in over real HTTP against the real `staffroom serve` process (SPEC section 3).

mod common;

use base64::Engine as _;
use common::*;
use serde_json::{json, Value};

/// A fixed signing key for the tests that forge tokens (set through `STAFFROOM_JWT_KEY`).
const TEST_KEY: [u8; 32] = [42u8; 32];

fn test_key_env() -> (String, String) {
    ("STAFFROOM_JWT_KEY".into(), base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(TEST_KEY))
}

fn decode_part(part: &str) -> Value {
    serde_json::from_slice(&base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(part).unwrap()).unwrap()
}

async fn post_auth(server: &Server, body: &str) -> (u16, Option<String>, Value) {
    let response = client()
        .post(server.url("/api/auth"))
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let retry = response.headers().get("retry-after").map(|v| v.to_str().unwrap().to_string());
    (status, retry, response.json().await.unwrap())
}

async fn me(server: &Server, token: &str) -> (u16, Value) {
    let response = client().get(server.url("/api/auth/me")).bearer_auth(token).send().await.unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

fn credentials(email: &str, password: &str) -> String {
    json!({ "email": email, "password": password }).to_string()
}

#[tokio::test]
async fn sign_in_returns_a_token_with_the_specified_header_and_claims() {
    let server = Server::sandbox();
    let body = login(&server, DEMO_EMAIL, DEMO_PASSWORD).await;
    let token = body["token"].as_str().unwrap();
    assert_eq!(body["user"]["email"], DEMO_EMAIL);
    assert_eq!(body["user"]["name"], "Demo Admin");
    assert!(body["user"]["id"].is_string());

    let parts: Vec<&str> = token.split('.').collect();
    assert_eq!(parts.len(), 3);
    let header = decode_part(parts[0]);
    assert_eq!(header, json!({"typ": "at+jwt", "alg": "HS256"}));
    let claims = decode_part(parts[1]);
    assert_eq!(claims["iss"], "staffroom");
    assert_eq!(claims["aud"], "staffroom");
    assert_eq!(claims["sub"], body["user"]["id"]);
    assert_eq!(claims["email"], DEMO_EMAIL);
    assert_eq!(claims["name"], "Demo Admin");
    assert_eq!(claims["role"], "admin");
    assert!(claims["sid"].as_str().unwrap().len() >= 32);
    let (iat, nbf, exp) =
        (claims["iat"].as_i64().unwrap(), claims["nbf"].as_i64().unwrap(), claims["exp"].as_i64().unwrap());
    assert_eq!(iat, nbf);
    assert_eq!(exp - iat, 15 * 60, "access tokens live 15 minutes");
    let now = chrono::Utc::now().timestamp();
    assert!((now - iat).abs() < 60);

    let (status, me_body) = me(&server, token).await;
    assert_eq!(status, 200);
    assert_eq!(me_body["user"]["email"], DEMO_EMAIL);
}

#[tokio::test]
async fn unknown_email_wrong_password_and_disabled_account_look_the_same() {
    let server = Server::sandbox();
    add_user(&server.data_dir, "sam@example.com", "Sam Staff", "staff", "river-otter-lantern-9");
    let (status, _, _) = post_auth(&server, &credentials("sam@example.com", "river-otter-lantern-9")).await;
    assert_eq!(status, 200);
    let (status, out, err) = run_cli(&server.data_dir, &["users", "disable", "sam@example.com"], "");
    assert!(status.success(), "{out}{err}");

    let unknown = post_auth(&server, &credentials("nobody@example.com", "river-otter-lantern-9")).await;
    let wrong = post_auth(&server, &credentials(DEMO_EMAIL, "not-the-demo-passphrase")).await;
    let disabled = post_auth(&server, &credentials("sam@example.com", "river-otter-lantern-9")).await;
    let expected = json!({"error": "INVALID_CREDENTIALS", "message": "The email or password is wrong"});
    for (name, (status, _, body)) in [("unknown", unknown), ("wrong", wrong), ("disabled", disabled)] {
        assert_eq!(status, 401, "{name}");
        assert_eq!(body, expected, "{name}");
    }
}

#[tokio::test]
async fn validation_names_each_bad_field() {
    let server = Server::sandbox();
    let fields = |body: &Value| -> Vec<(String, String)> {
        body["errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| (e["field"].as_str().unwrap().to_string(), e["message"].as_str().unwrap().to_string()))
            .collect()
    };
    let long_email = format!("{}@example.com", "a".repeat(250));
    let cases: Vec<(String, Vec<&str>)> = vec![
        ("{}".into(), vec!["email", "password"]),
        (json!({"email": "not-an-address", "password": "x"}).to_string(), vec!["email"]),
        (json!({"email": long_email, "password": "x"}).to_string(), vec!["email"]),
        (json!({"email": DEMO_EMAIL, "password": "p".repeat(1025)}).to_string(), vec!["password"]),
        (json!({"email": 12, "password": ["x"]}).to_string(), vec!["email", "password"]),
        (json!({"password": "x"}).to_string(), vec!["email"]),
        ("not json at all".into(), vec!["body"]),
        ("[1,2,3]".into(), vec!["body"]),
    ];
    for (body, expected) in cases {
        let (status, _, answer) = post_auth(&server, &body).await;
        assert_eq!(status, 422, "{body}: {answer}");
        let named: Vec<String> = fields(&answer).into_iter().map(|(f, _)| f).collect();
        assert_eq!(named, expected, "{body}");
        assert!(fields(&answer).iter().all(|(_, m)| !m.is_empty()));
    }
}

#[tokio::test]
async fn the_sixth_failure_is_throttled_even_with_the_right_password() {
    let server = Server::sandbox();
    for attempt in 1..=5 {
        let (status, _, _) = post_auth(&server, &credentials(DEMO_EMAIL, "wrong-passphrase-attempt")).await;
        assert_eq!(status, 401, "attempt {attempt}");
    }
    let (status, retry_after, body) = post_auth(&server, &credentials(DEMO_EMAIL, "wrong-passphrase-attempt")).await;
    assert_eq!(status, 429);
    assert_eq!(body["error"], "RATE_LIMITED");
    let wait: u64 = retry_after.expect("Retry-After is set").parse().unwrap();
    assert!((25..=30).contains(&wait), "first lock is 30 s, got {wait}");

    let (status, retry_after, _) = post_auth(&server, &credentials(DEMO_EMAIL, DEMO_PASSWORD)).await;
    assert_eq!(status, 429, "the right password does not get through a lock");
    assert!(retry_after.is_some());

    // Unknown emails are throttled the same way, so a 429 tells nothing about who exists.
    for _ in 1..=5 {
        post_auth(&server, &credentials("ghost@example.com", "wrong-passphrase-attempt")).await;
    }
    let (status, _, _) = post_auth(&server, &credentials("ghost@example.com", "wrong-passphrase-attempt")).await;
    assert_eq!(status, 429);
}

#[tokio::test]
async fn refresh_gives_a_new_token_and_logout_ends_the_session_at_once() {
    let server = Server::sandbox();
    let first = demo_token(&server).await;
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let response = client().post(server.url("/api/auth/refresh")).bearer_auth(&first).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let refreshed: Value = response.json().await.unwrap();
    let second = refreshed["token"].as_str().unwrap().to_string();
    assert_ne!(first, second);
    assert_eq!(refreshed["user"]["email"], DEMO_EMAIL);
    let claims_first = decode_part(first.split('.').nth(1).unwrap());
    let claims_second = decode_part(second.split('.').nth(1).unwrap());
    assert_eq!(claims_first["sid"], claims_second["sid"], "refresh keeps the session");
    assert!(claims_second["exp"].as_i64() > claims_first["exp"].as_i64());
    assert_eq!(me(&server, &second).await.0, 200);

    let response = client().post(server.url("/api/auth/logout")).bearer_auth(&second).send().await.unwrap();
    assert_eq!(response.status(), 204);
    for token in [&first, &second] {
        let (status, body) = me(&server, token).await;
        assert_eq!(status, 401);
        assert_eq!(body["error"]["code"], "unauthorized");
        let response = client().post(server.url("/api/auth/refresh")).bearer_auth(token).send().await.unwrap();
        assert_eq!(response.status(), 401);
        assert_eq!(response.headers()["www-authenticate"], "Bearer");
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["error"], "INVALID_TOKEN");
    }
}

/// A stolen token renewed first must not keep the session: once a retired token is used to
/// renew again, every token of the session answers 401, and the audit log says why.
#[tokio::test]
async fn renewing_with_a_retired_token_ends_the_whole_session() {
    let server = Server::sandbox();
    let signed_in = login(&server, DEMO_EMAIL, DEMO_PASSWORD).await;
    let t0 = signed_in["token"].as_str().unwrap().to_string();
    let renew = |path: &'static str, token: String| {
        let url = server.url(path);
        async move { client().post(url).bearer_auth(token).send().await.unwrap() }
    };
    // The thief renews first...
    let stolen: Value = renew("/api/auth/refresh", t0.clone()).await.json().await.unwrap();
    let t1 = stolen["token"].as_str().unwrap().to_string();
    assert_eq!(me(&server, &t1).await.0, 200);
    // ...then the real user's app renews with the token it has: refused, and the session ends.
    assert_eq!(renew("/api/auth/refresh", t0.clone()).await.status(), 401);
    for token in [&t0, &t1] {
        assert_eq!(me(&server, token).await.0, 401, "a token of the ended session still works");
    }
    let resume = stolen["resumeToken"].as_str().unwrap().to_string();
    assert_eq!(renew("/api/auth/resume", resume).await.status(), 401, "the thief's resume token still works");

    let admin = demo_token(&server).await;
    let audit: Value =
        client().get(server.url("/api/audit?limit=20")).bearer_auth(&admin).send().await.unwrap().json().await.unwrap();
    let ended = audit
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {audit}"))
        .iter()
        .find(|e| e["action"] == "auth.session_ended")
        .unwrap_or_else(|| panic!("no audit entry: {audit}"));
    assert_eq!(ended["target"], DEMO_EMAIL);
    assert!(ended["detail"].as_str().unwrap().contains("already replaced"), "{ended}");
}

/// `POST /api/auth/resume` takes only a live resume token: not an access token, not a retired
/// resume token.
#[tokio::test]
async fn resume_takes_only_the_current_resume_token() {
    let server = Server::sandbox();
    let signed_in = login(&server, DEMO_EMAIL, DEMO_PASSWORD).await;
    let resume = |token: String| {
        let url = server.url("/api/auth/resume");
        async move { client().post(url).bearer_auth(token).send().await.unwrap() }
    };
    let access = signed_in["token"].as_str().unwrap().to_string();
    assert_eq!(resume(access.clone()).await.status(), 401, "an access token resumed a session");
    assert_eq!(me(&server, &access).await.0, 200, "refusing a wrong kind of token ends nothing");
    let first = signed_in["resumeToken"].as_str().unwrap().to_string();
    let resumed = resume(first.clone()).await;
    assert_eq!(resumed.status(), 200);
    let resumed: Value = resumed.json().await.unwrap();
    assert_eq!(me(&server, resumed["token"].as_str().unwrap()).await.0, 200);
    assert_eq!(resume(first).await.status(), 401, "a retired resume token resumed a session");
    assert_eq!(me(&server, resumed["token"].as_str().unwrap()).await.0, 401, "the session outlived a reuse");
}

#[tokio::test]
async fn disabling_a_user_or_changing_their_password_ends_their_sessions_at_once() {
    let server = Server::sandbox();
    add_user(&server.data_dir, "kim@example.com", "Kim", "staff", "copper-kettle-morning-7");
    let token =
        login(&server, "kim@example.com", "copper-kettle-morning-7").await["token"].as_str().unwrap().to_string();
    assert_eq!(me(&server, &token).await.0, 200);
    let (status, _, err) = run_cli(
        &server.data_dir,
        &["users", "set-password", "kim@example.com", "--password-stdin"],
        "new-copper-kettle-evening-8\n",
    );
    assert!(status.success(), "{err}");
    assert_eq!(me(&server, &token).await.0, 401, "a password change ends the sessions");
    let token =
        login(&server, "kim@example.com", "new-copper-kettle-evening-8").await["token"].as_str().unwrap().to_string();
    assert_eq!(me(&server, &token).await.0, 200);
    let (status, _, err) = run_cli(&server.data_dir, &["users", "disable", "kim@example.com"], "");
    assert!(status.success(), "{err}");
    assert_eq!(me(&server, &token).await.0, 401, "disabling ends the sessions");
    let (status, _, err) = run_cli(&server.data_dir, &["users", "enable", "kim@example.com"], "");
    assert!(status.success(), "{err}");
    assert_eq!(me(&server, &token).await.0, 401, "enabling does not revive old sessions");
    login(&server, "kim@example.com", "new-copper-kettle-evening-8").await;
}

fn forge(header: &Value, claims: &Value, key: &[u8]) -> String {
    use hmac::Mac as _;
    let b64 = |b: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(b);
    let input = format!("{}.{}", b64(header.to_string().as_bytes()), b64(claims.to_string().as_bytes()));
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(key).unwrap();
    mac.update(input.as_bytes());
    format!("{input}.{}", b64(&mac.finalize().into_bytes()))
}

#[tokio::test]
async fn forged_and_expired_tokens_are_refused() {
    let server = Server::start(ServerOptions { env: vec![test_key_env()], ..Default::default() });
    let real = demo_token(&server).await;
    let claims = decode_part(real.split('.').nth(1).unwrap());
    let header = json!({"alg": "HS256", "typ": "at+jwt"});
    // The helper forges exactly like the server signs: a faithful copy is accepted.
    assert_eq!(me(&server, &forge(&header, &claims, &TEST_KEY)).await.0, 200);

    let b64 = |b: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(b);
    let alg_none = format!("{}.{}.", b64(br#"{"alg":"none","typ":"at+jwt"}"#), b64(claims.to_string().as_bytes()));
    let mut wrong_aud = claims.clone();
    wrong_aud["aud"] = "another-service".into();
    let mut expired = claims.clone();
    expired["exp"] = (chrono::Utc::now().timestamp() - 120).into();
    let mut other_session = claims.clone();
    other_session["sid"] = "00000000-0000-0000-0000-000000000000".into();
    let cases = [
        ("alg none", alg_none),
        ("wrong key", forge(&header, &claims, &[7u8; 32])),
        ("wrong audience", forge(&header, &wrong_aud, &TEST_KEY)),
        ("expired", forge(&header, &expired, &TEST_KEY)),
        ("unknown session", forge(&header, &other_session, &TEST_KEY)),
        ("wrong typ", forge(&json!({"alg": "HS256", "typ": "JWT"}), &claims, &TEST_KEY)),
        ("truncated", real[..real.len() - 3].to_string()),
    ];
    for (name, token) in cases {
        let (status, body) = me(&server, &token).await;
        assert_eq!(status, 401, "{name}");
        assert_eq!(body["error"]["code"], "unauthorized", "{name}");
    }
    let response = client().get(server.url("/api/auth/me")).send().await.unwrap();
    assert_eq!(response.status(), 401, "no token at all");
}

#[tokio::test]
async fn idle_sessions_end() {
    let server =
        Server::start(ServerOptions { args: vec!["--session-idle-secs".into(), "1".into()], ..Default::default() });
    let token = demo_token(&server).await;
    assert_eq!(me(&server, &token).await.0, 200);
    tokio::time::sleep(std::time::Duration::from_millis(2500)).await;
    assert_eq!(me(&server, &token).await.0, 401);
    assert_eq!(me(&server, &token).await.0, 401, "a dead session stays dead");
    let response = client().post(server.url("/api/auth/refresh")).bearer_auth(&token).send().await.unwrap();
    assert_eq!(response.status(), 401, "and cannot be refreshed");
}

#[tokio::test]
async fn concurrent_failures_all_count() {
    let server = Server::sandbox();
    let body = credentials(DEMO_EMAIL, "concurrent-wrong-guess");
    let attempts = (0..5).map(|_| post_auth(&server, &body));
    for (status, _, _) in futures::future::join_all(attempts).await {
        assert_eq!(status, 401);
    }
    let (status, _, _) = post_auth(&server, &credentials(DEMO_EMAIL, DEMO_PASSWORD)).await;
    assert_eq!(status, 429, "five concurrent failures lock the account like five in a row");
}

#[tokio::test]
async fn sigterm_stops_the_service_cleanly() {
    let mut server = Server::sandbox();
    let health: Value = client().get(server.url("/api/health")).send().await.unwrap().json().await.unwrap();
    assert_eq!(health["status"], "ok");
    assert_eq!(health["sandbox"], true);
    let status = server.signal_and_wait("TERM");
    assert_eq!(status.code(), Some(0), "{}", server.stderr());
}

#[tokio::test]
async fn unknown_routes_and_wrong_methods_answer_with_the_error_object() {
    let server = Server::sandbox();
    let response = client().get(server.url("/api/nope")).send().await.unwrap();
    assert_eq!(response.status(), 404);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], "not_found");
    let response = client().delete(server.url("/api/auth")).send().await.unwrap();
    assert_eq!(response.status(), 405);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], "method_not_allowed");
}

#[tokio::test]
async fn openapi_document_is_served_and_lists_the_routes() {
    let server = Server::sandbox();
    let doc: Value = client().get(server.url("/api/openapi.json")).send().await.unwrap().json().await.unwrap();
    assert!(doc["openapi"].as_str().unwrap().starts_with("3.1"));
    for path in ["/api/auth", "/api/auth/refresh", "/api/auth/logout", "/api/health"] {
        assert!(doc["paths"].get(path).is_some(), "{path} missing from the OpenAPI document");
    }
}
