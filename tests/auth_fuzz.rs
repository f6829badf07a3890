//! Property tests: arbitrary bytes at the sign-in endpoint and arbitrary tokens at the token
//! parser never panic and never give a 5xx. They run the real router in-process.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use base64::Engine as _;
use proptest::prelude::*;
use staffroom::config::Config;
use staffroom::secrets::SecretBackend;
use tower::ServiceExt as _;

struct App {
    runtime: tokio::runtime::Runtime,
    router: axum::Router,
    _dir: tempfile::TempDir,
}

fn app() -> App {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut config = Config::new(dir.path());
    config.sandbox = true;
    config.secret_backend = SecretBackend::Memory;
    let router = runtime.block_on(async {
        let core = staffroom::open(config).await.unwrap();
        staffroom::sandbox::ensure_demo_account(&core).await.unwrap();
        staffroom::http::router(core, std::net::Ipv4Addr::LOCALHOST.into())
    });
    App { runtime, router, _dir: dir }
}

impl App {
    fn status(&self, request: Request<Body>) -> StatusCode {
        self.runtime.block_on(async { self.router.clone().oneshot(request).await.unwrap().status() })
    }

    fn login(&self, body: Vec<u8>, content_type: &str) -> StatusCode {
        self.status(
            Request::post("/api/auth")
                .header("host", "localhost")
                .header("content-type", content_type)
                .body(Body::from(body))
                .unwrap(),
        )
    }
}

fn assert_client_error(status: StatusCode, allowed: &[u16]) -> Result<(), TestCaseError> {
    prop_assert!(!status.is_server_error(), "server error {status}");
    prop_assert!(allowed.contains(&status.as_u16()), "unexpected status {status}");
    Ok(())
}

fn json_value() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(serde_json::Value::from),
        "\\PC{0,40}".prop_map(serde_json::Value::from),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::from),
            prop::collection::hash_map("\\PC{0,8}", inner, 0..4)
                .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_at_sign_in_never_give_a_5xx(body in prop::collection::vec(any::<u8>(), 0..2048)) {
        thread_local!(static APP: App = app());
        APP.with(|app| assert_client_error(app.login(body, "application/json"), &[401, 422, 429]))?;
    }

    #[test]
    fn arbitrary_json_at_sign_in_never_gives_a_5xx(value in json_value()) {
        thread_local!(static APP: App = app());
        APP.with(|app| assert_client_error(app.login(value.to_string().into_bytes(), "application/json"), &[401, 422, 429]))?;
    }

    #[test]
    fn arbitrary_tokens_are_refused_with_401(token in "[ -~]{0,600}") {
        thread_local!(static APP: App = app());
        let request = Request::get("/api/auth/me").header("host", "localhost").header("authorization", format!("Bearer {token}")).body(Body::empty()).unwrap();
        APP.with(|app| assert_client_error(app.status(request), &[401]))?;
    }

    #[test]
    fn tokens_made_of_arbitrary_json_parts_are_refused(header in json_value(), claims in json_value(), sig in prop::collection::vec(any::<u8>(), 0..64)) {
        thread_local!(static APP: App = app());
        let b64 = |b: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(b);
        let token = format!("{}.{}.{}", b64(header.to_string().as_bytes()), b64(claims.to_string().as_bytes()), b64(&sig));
        let request = Request::get("/api/auth/me").header("host", "localhost").header("authorization", format!("Bearer {token}")).body(Body::empty()).unwrap();
        APP.with(|app| assert_client_error(app.status(request), &[401]))?;
    }
}

#[test]
fn plausible_credentials_with_random_passwords_get_401_not_5xx() {
    let app = app();
    // Fewer cases: each one runs a real argon2 verification.
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig { cases: 12, ..ProptestConfig::default() });
    runner
        .run(&("[a-z]{1,10}@[a-z]{1,10}\\.com", "\\PC{1,100}"), |(email, password)| {
            let body = serde_json::json!({ "email": email, "password": password }).to_string().into_bytes();
            assert_client_error(app.login(body, "application/json"), &[401, 429])
        })
        .unwrap();
}
