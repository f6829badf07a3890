//! Attacks on the real `staffroom` binary, as someone trying to break in would make them: over
//! HTTP against `serve` (sandbox and real mode) and through the CLI. Each one worked before the
//! hardening; each test shows it no longer does. The threat model they back is docs/SECURITY.md.

mod common;

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::*;
use hmac::Mac as _;
use serde_json::{json, Value};

const PASSWORD: &str = "correct horse battery staple 42";

fn wait_for_exit(mut child: std::process::Child, within: Duration) -> Option<(std::process::ExitStatus, String)> {
    let deadline = Instant::now() + within;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut stderr = String::new();
            use std::io::Read as _;
            child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
            return Some((status, stderr));
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Starts `serve` on `dir` expecting a refusal: its exit status and what it said.
fn serve_refused(dir: &Path, sandbox: bool) -> (std::process::ExitStatus, String) {
    let mut cmd = command(dir);
    cmd.args(["serve", "--addr", "127.0.0.1:0"]);
    if sandbox {
        cmd.arg("--sandbox");
    }
    let child = cmd.stdout(Stdio::null()).stderr(Stdio::piped()).stdin(Stdio::null()).spawn().unwrap();
    wait_for_exit(child, Duration::from_secs(30)).expect("serve must refuse to start, not run")
}

fn sign(secret: &[u8], body: &[u8]) -> String {
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(secret).unwrap();
    mac.update(body);
    hex::encode(mac.finalize().into_bytes())
}

async fn sign_in_as(server: &Server, email: &str, password: &str, forwarded: Option<&str>) -> reqwest::Response {
    let mut request = client().post(server.url("/api/auth")).json(&json!({ "email": email, "password": password }));
    if let Some(address) = forwarded {
        request = request.header("x-forwarded-for", address);
    }
    request.send().await.unwrap()
}

// 1. The sandbox leaves a known admin in a real data dir.

#[tokio::test]
async fn a_data_dir_keeps_the_mode_it_was_first_served_in() {
    let dir = tempfile::tempdir().unwrap();
    drop(Server::start(ServerOptions { sandbox: true, data_dir: Some(dir.path().into()), ..Default::default() }));
    let (status, said) = serve_refused(dir.path(), false);
    assert!(!status.success());
    // On a PostgreSQL run the mode is the team database's, which the refusal names instead.
    let place = if on_postgres() { "the team's database".to_string() } else { dir.path().display().to_string() };
    assert!(said.contains(&place) && said.contains("--sandbox"), "{said}");

    // And the other way round: a real dir is never opened as a sandbox.
    let real = tempfile::tempdir().unwrap();
    drop(Server::start(ServerOptions { sandbox: false, data_dir: Some(real.path().into()), ..Default::default() }));
    let (status, said) = serve_refused(real.path(), true);
    assert!(!status.success());
    let place = if on_postgres() { "the team's database".to_string() } else { real.path().display().to_string() };
    assert!(said.contains(&place) && said.contains("--sandbox"), "{said}");
    // The demo account was never made in the real dir.
    let (_, list, _) = run_cli(real.path(), &["users", "list"], "");
    assert!(!list.contains(DEMO_EMAIL), "{list}");

    // CLI account commands do not decide a fresh dir's mode (SPEC section 6).
    let fresh = tempfile::tempdir().unwrap();
    add_user(fresh.path(), "ada@example.com", "Ada", "admin", PASSWORD);
    let server =
        Server::start(ServerOptions { sandbox: true, data_dir: Some(fresh.path().into()), ..Default::default() });
    assert_eq!(sign_in_as(&server, "ada@example.com", PASSWORD, None).await.status(), 200);
}

// 2. An empty secret file switches webhook authentication off.

#[tokio::test]
async fn an_empty_signing_secret_makes_the_receiver_refuse_everything() {
    for empty in ["", "  \n"] {
        let dir = tempfile::tempdir().unwrap();
        let secret_file = dir.path().join("webhook-secret");
        std::fs::write(&secret_file, empty).unwrap();
        let data = dir.path().join("data");
        let server = Server::start(ServerOptions {
            sandbox: false,
            data_dir: Some(data.clone()),
            env: vec![("STAFFROOM_WEBHOOK_SECRET_FILE".into(), secret_file.display().to_string())],
            ..Default::default()
        });
        let body = json!({"meta": {"event_name": "order_created"}, "data": {"type": "orders", "id": "1",
            "attributes": {"status": "paid", "total": 100, "currency": "USD", "user_email": "x@example.com"}}})
        .to_string();
        let response = client()
            .post(server.url("/api/payments/webhooks"))
            .header("content-type", "application/json")
            .header("x-signature", sign(b"", body.as_bytes()))
            .body(body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 503, "an unusable secret refuses deliveries");
        let answer: Value = response.json().await.unwrap();
        assert_eq!(answer["error"]["code"], "unavailable");
        assert!(answer["error"]["message"].as_str().unwrap().contains("STAFFROOM_WEBHOOK_SECRET_FILE"), "{answer}");
        assert!(server.stderr().contains("STAFFROOM_WEBHOOK_SECRET_FILE"), "the log says why");
        drop(server);
        let stored = count_rows(&data, "SELECT COUNT(*) FROM webhook_events").await;
        let orders = count_rows(&data, "SELECT COUNT(*) FROM orders").await;
        assert_eq!((stored, orders), (0, 0));
    }
    // Nor can an empty value be stored.
    let dir = tempfile::tempdir().unwrap();
    let (status, _, said) = run_cli(dir.path(), &["secrets", "set", "webhook_secret"], "   \n");
    assert!(!status.success());
    assert!(said.contains("empty"), "{said}");
}

// 2, continued. A signed delivery is the provider's word on what was paid, not on what was sold:
// an order event that does not match its checkout (a $1.00 event for a $33.00 order, another
// mode) leaves the order unpaid and held for review.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_payment_event_that_does_not_match_its_checkout_does_not_mark_the_order_paid() {
    use staffroom::sandbox::lemonsqueezy::{PaymentSimulator, SimulatorOptions};
    let provider = PaymentSimulator::start(SimulatorOptions::default()).await.unwrap();
    let secret = "a real signing secret, not empty";
    let dir = tempfile::tempdir().unwrap();
    add_user(dir.path(), "ada@example.com", "Ada", "admin", PASSWORD);
    let server = Server::start(ServerOptions {
        sandbox: false,
        data_dir: Some(dir.path().into()),
        env: vec![
            ("STAFFROOM_LEMONSQUEEZY_API_URL".into(), provider.api_url()),
            ("STAFFROOM_LEMONSQUEEZY_API_KEY".into(), provider.api_key().expose().to_string()),
            ("STAFFROOM_LEMONSQUEEZY_STORE_ID".into(), provider.store_id()),
            ("STAFFROOM_WEBHOOK_SECRET".into(), secret.into()),
        ],
        ..Default::default()
    });
    let session: Value = sign_in_as(&server, "ada@example.com", PASSWORD, None).await.json().await.unwrap();
    let bearer = format!("Bearer {}", session["token"].as_str().unwrap());
    let products: Value = client()
        .get(server.url("/api/payments/products?status=published"))
        .header("authorization", &bearer)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let product = &products["products"][0]["id"];
    let created = client()
        .post(server.url("/api/payments/orders"))
        .header("authorization", &bearer)
        .json(&json!({"productId": product, "email": "buyer@example.com"}))
        .send()
        .await
        .unwrap();
    let status = created.status();
    let order: Value = created.json().await.unwrap();
    assert_eq!(status, 201, "{order} {products}");
    let order = &order["order"];
    let (id, price) = (order["id"].as_str().unwrap(), order["total"].as_i64().unwrap());
    assert!(price > 100, "the seeded price is more than the event's $1.00");

    let deliver = |provider_order: u64, subtotal: i64, test_mode: bool| {
        let body = json!({
            "meta": {"event_name": "order_created", "webhook_id": format!("wh-{provider_order}"),
                     "test_mode": test_mode, "custom_data": {"order_id": id}},
            "data": {"type": "orders", "id": provider_order.to_string(), "attributes": {
                "store_id": provider.store_id().parse::<u64>().unwrap(), "status": "paid", "currency": order["currency"],
                "subtotal": subtotal, "total": subtotal + subtotal / 5, "user_email": "buyer@example.com",
                "first_order_item": {"variant_id": order["variantId"].as_str().unwrap().parse::<u64>().unwrap()},
                "created_at": "2026-11-23T10:00:00.000000Z", "updated_at": "2026-11-23T10:00:00.000000Z"}}
        })
        .to_string();
        client()
            .post(server.url("/api/payments/webhooks"))
            .header("content-type", "application/json")
            .header("x-signature", sign(secret.as_bytes(), body.as_bytes()))
            .body(body)
            .send()
    };
    // Deliveries are applied after they are acknowledged: wait until the order shows the outcome.
    let order_url = server.url(&format!("/api/payments/orders/{id}"));
    let (order_url, bearer_ref) = (&order_url, &bearer);
    let shown_when = |done: fn(&Value) -> bool| async move {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let answer: Value =
                client().get(order_url).header("authorization", bearer_ref).send().await.unwrap().json().await.unwrap();
            if done(&answer["order"]) || Instant::now() > deadline {
                return answer["order"].clone();
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    let review = |order: &Value| order["review"].as_str().unwrap_or_default().to_string();

    // $1.00 for what the checkout sold at its price: acknowledged, not paid, held for review.
    assert_eq!(deliver(9001, 100, true).await.unwrap().status(), 200);
    let held = shown_when(|order| !order["review"].is_null()).await;
    assert_eq!(held["status"], "pending", "{held}");
    assert!(review(&held).contains("subtotal"), "{held}");
    assert_eq!(held["total"], price);
    // A live-mode event for a test-mode checkout (the simulator's key is a test key).
    assert_eq!(deliver(9002, price, false).await.unwrap().status(), 200);
    let held = shown_when(|order| order["review"].as_str().is_some_and(|r| r.contains("mode"))).await;
    assert_eq!(held["status"], "pending", "{held}");
    assert_eq!(review(&held), "mode is live, the checkout's is test", "{held}");
    // Both were audited for a person to look at.
    let reviews = count_rows(
        dir.path(),
        &format!("SELECT COUNT(*) FROM audit_log WHERE action = 'payments.order_review' AND target = '{id}'"),
    )
    .await;
    assert_eq!(reviews, 2);

    // The matching event pays it, and the order then shows what the customer was charged.
    assert_eq!(deliver(9003, price, true).await.unwrap().status(), 200);
    let paid = shown_when(|order| order["status"] != "pending").await;
    assert_eq!(paid["status"], "paid", "{paid}");
    assert_eq!(paid["total"], price + price / 5);
    assert!(paid["review"].is_null(), "{paid}");
}

// 3. Parallel guesses bypass the lockout.

#[tokio::test]
async fn parallel_guesses_reach_the_hasher_at_most_five_times() {
    let dir = tempfile::tempdir().unwrap();
    add_user(dir.path(), "ada@example.com", "Ada", "admin", PASSWORD);
    let server =
        Server::start(ServerOptions { sandbox: false, data_dir: Some(dir.path().into()), ..Default::default() });
    let guesses = (0..30).map(|n| {
        sign_in_as(&server, "ada@example.com", if n == 15 { PASSWORD } else { "wrong guess number one" }, None)
    });
    let answers = futures::future::join_all(guesses).await;
    let statuses: Vec<u16> = answers.iter().map(|r| r.status().as_u16()).collect();
    let refused = statuses.iter().filter(|s| **s == 401).count();
    let throttled = statuses.iter().filter(|s| **s == 429).count();
    assert!(refused <= 5, "at most five wrong guesses were checked: {statuses:?}");
    assert_eq!(refused + throttled + statuses.iter().filter(|s| **s == 200).count(), 30, "{statuses:?}");
    // Unknown accounts are throttled exactly like known ones: a 429 tells nothing.
    let mut unknown = Vec::new();
    for _ in 0..7 {
        unknown.push(sign_in_as(&server, "nobody@example.com", "wrong guess number one", None).await.status().as_u16());
    }
    assert_eq!(unknown, [401, 401, 401, 401, 401, 429, 429]);
}

#[tokio::test]
async fn a_stranger_cannot_lock_a_colleague_out_and_the_account_ceiling_needs_an_admin() {
    let dir = tempfile::tempdir().unwrap();
    add_user(dir.path(), "ada@example.com", "Ada", "admin", PASSWORD);
    let server = Server::start(ServerOptions {
        sandbox: false,
        data_dir: Some(dir.path().into()),
        args: vec!["--trusted-proxy".into(), "127.0.0.1/32".into()],
        ..Default::default()
    });
    // Five wrong guesses from one address lock that address only.
    for _ in 0..5 {
        assert_eq!(sign_in_as(&server, "ada@example.com", "wrong guess", Some("203.0.113.7")).await.status(), 401);
    }
    assert_eq!(sign_in_as(&server, "ada@example.com", PASSWORD, Some("203.0.113.7")).await.status(), 429);
    assert_eq!(sign_in_as(&server, "ada@example.com", PASSWORD, Some("198.51.100.20")).await.status(), 200);
    // Only the last address the trusted proxy saw counts: what a client writes before it does not.
    assert_eq!(
        sign_in_as(&server, "ada@example.com", PASSWORD, Some("203.0.113.7, 198.51.100.20")).await.status(),
        200
    );

    // Twenty failures in an hour across addresses lock the account until an admin unlocks it.
    for n in 1..=3 {
        for _ in 0..5 {
            let from = format!("203.0.113.{}", 10 + n);
            assert_eq!(sign_in_as(&server, "ada@example.com", "wrong guess", Some(&from)).await.status(), 401);
        }
    }
    assert_eq!(sign_in_as(&server, "ada@example.com", PASSWORD, Some("198.51.100.99")).await.status(), 429);
    let (status, out, err) = run_cli(dir.path(), &["users", "unlock", "ada@example.com"], "");
    assert!(status.success(), "{out}{err}");
    assert_eq!(sign_in_as(&server, "ada@example.com", PASSWORD, Some("198.51.100.99")).await.status(), 200);

    // A new password also clears a lock.
    for _ in 0..5 {
        sign_in_as(&server, "ada@example.com", "wrong guess", Some("203.0.113.50")).await;
    }
    let (status, _, err) = run_cli(
        dir.path(),
        &["users", "set-password", "ada@example.com", "--password-stdin"],
        "a brand new passphrase 77",
    );
    assert!(status.success(), "{err}");
    assert_eq!(
        sign_in_as(&server, "ada@example.com", "a brand new passphrase 77", Some("203.0.113.50")).await.status(),
        200
    );
    // The throttled attempts were audited once per lock, with a count.
    let throttled = count_rows(
        dir.path(),
        "SELECT COUNT(*) FROM audit_log WHERE action = 'auth.sign_in' AND outcome = 'throttled'",
    )
    .await;
    assert!((1..=3).contains(&throttled), "{throttled} rows");
}

// 4. Any web page can use the API.

#[tokio::test]
async fn a_web_page_cannot_use_the_api() {
    let server = Server::sandbox();
    // DNS rebinding: a name that resolves to loopback, but is not ours.
    let response =
        client().get(server.url("/api/health")).header("host", "rebind.attacker.example").send().await.unwrap();
    assert_eq!(response.status(), 421);
    assert_eq!(response.json::<Value>().await.unwrap()["error"]["code"], "misdirected_request");
    // A cross-site form post (no preflight): refused before any password is checked.
    let body = json!({"email": DEMO_EMAIL, "password": DEMO_PASSWORD}).to_string();
    let response = client()
        .post(server.url("/api/auth"))
        .header("origin", "https://evil.example")
        .header("content-type", "text/plain")
        .body(body.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 403);
    let response =
        client().post(server.url("/api/auth")).header("content-type", "text/plain").body(body).send().await.unwrap();
    assert_eq!(response.status(), 415, "a body must say it is JSON");
    // The service's own name, and localhost, are fine.
    let port = server.base.rsplit(':').next().unwrap();
    for host in [format!("localhost:{port}"), format!("127.0.0.1:{port}")] {
        let response = client().get(server.url("/api/health")).header("host", host).send().await.unwrap();
        assert_eq!(response.status(), 200);
    }
}

// 5. The documented tunnel exposes everything.

#[tokio::test]
async fn the_webhook_listener_serves_only_the_receiver() {
    let dir = tempfile::tempdir().unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let hook_addr = listener.local_addr().unwrap();
    drop(listener);
    let server = Server::start(ServerOptions {
        sandbox: false,
        data_dir: Some(dir.path().into()),
        env: vec![("STAFFROOM_WEBHOOK_SECRET".into(), "a-long-signing-secret".into())],
        args: vec!["--webhooks-addr".into(), hook_addr.to_string()],
    });
    let hook = format!("http://{hook_addr}");
    for path in ["/api/health", "/api/openapi.json", "/api/payments/orders", "/api/docs/documents"] {
        let response = client().get(format!("{hook}{path}")).send().await.unwrap();
        assert_eq!(response.status(), 404, "{path} is not served to the tunnel");
    }
    let response = client()
        .post(format!("{hook}/api/auth"))
        .json(&json!({"email": "a@b.c", "password": "x"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 404);
    let body = json!({"meta": {"event_name": "subscription_updated"}, "data": {"type": "subscriptions", "id": "9", "attributes": {"status": "active"}}}).to_string();
    let delivered = client()
        .post(format!("{hook}/api/payments/webhooks"))
        .header("host", "some-tunnel.example")
        .header("content-type", "application/json")
        .header("x-signature", sign(b"a-long-signing-secret", body.as_bytes()))
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(delivered.status(), 200, "deliveries through a tunnel (any Host, no Origin) still work");
    drop(server);
}

// 6. Other local users can read everything.

#[cfg(unix)]
#[tokio::test]
async fn the_data_dir_and_every_file_in_it_are_private() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o755)).unwrap();
    let server = Server::start(ServerOptions { sandbox: true, data_dir: Some(data.clone()), ..Default::default() });
    demo_token(&server).await;
    let mut loose = Vec::new();
    let mut stack = vec![data.clone()];
    let mut seen = 0;
    while let Some(path) = stack.pop() {
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        seen += 1;
        if path.is_dir() {
            if mode != 0o700 {
                loose.push(format!("{} {mode:o}", path.display()));
            }
            stack.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
        } else if mode != 0o600 {
            loose.push(format!("{} {mode:o}", path.display()));
        }
    }
    // On a PostgreSQL run the dir holds only the logs.
    let expected = if on_postgres() { 2 } else { 4 };
    assert!(seen >= expected, "the database, its WAL and the logs are there");
    assert!(loose.is_empty(), "{loose:?}");
    assert!(server.stderr().contains("tightened"), "the looser dir was tightened, and the log says so");
}

// 7. A refreshed token stays valid.

#[tokio::test]
async fn a_refreshed_token_is_dead_at_once_and_staff_are_forbidden_not_signed_out() {
    let server = Server::sandbox();
    let first = login(&server, DEMO_EMAIL, DEMO_PASSWORD).await["token"].as_str().unwrap().to_string();
    let refreshed = client().post(server.url("/api/auth/refresh")).bearer_auth(&first).send().await.unwrap();
    assert_eq!(refreshed.status(), 200);
    assert_eq!(refreshed.headers()["cache-control"], "no-store");
    let second = refreshed.json::<Value>().await.unwrap()["token"].as_str().unwrap().to_string();
    let me_url = server.url("/api/auth/me");
    let me = |token: String| {
        let url = me_url.clone();
        async move { client().get(url).bearer_auth(token).send().await.unwrap().status().as_u16() }
    };
    assert_eq!(me(first.clone()).await, 401, "the previous token stopped working");
    assert_eq!(me(second.clone()).await, 200);
    let again = client().post(server.url("/api/auth/refresh")).bearer_auth(&first).send().await.unwrap();
    assert_eq!(again.status(), 401, "an old token cannot be renewed either");

    // A staff member calling an admin-only operation is not allowed, not signed out.
    let (status, _, err) = run_cli(
        &server.data_dir,
        &["users", "add", "--email", "sam@example.com", "--name", "Sam", "--role", "staff", "--password-stdin"],
        PASSWORD,
    );
    assert!(status.success(), "{err}");
    let sam = login(&server, "sam@example.com", PASSWORD).await["token"].as_str().unwrap().to_string();
    let response = client()
        .put(server.url("/api/payments/sync"))
        .bearer_auth(&sam)
        .json(&json!({"intervalSecs": 600}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 403);
    let answer: Value = response.json().await.unwrap();
    assert_eq!(
        (answer["error"]["code"].as_str(), answer["error"]["details"]["requiredRole"].as_str()),
        (Some("forbidden"), Some("admin"))
    );
}

// 8. The smaller ones.

#[tokio::test]
async fn a_body_that_never_finishes_arriving_is_cut_off() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let server = Server::sandbox();
    let addr = server.base.trim_start_matches("http://").to_string();
    let mut stream = tokio::net::TcpStream::connect(&addr).await.unwrap();
    let started = Instant::now();
    let head = format!(
        "POST /api/auth HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"email\""
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    // The rest of the body never comes: the service answers once the body has fallen below the
    // minimum rate (512 bytes a second after 5 s of grace), rather than holding the connection,
    // and a task, for as long as the client likes.
    let mut answer = String::new();
    let read = tokio::time::timeout(Duration::from_secs(60), stream.read_to_string(&mut answer)).await;
    assert!(read.is_ok(), "the connection was still held after 60 s");
    let waited = started.elapsed();
    assert!(waited >= Duration::from_secs(4), "answered before the body's grace ended: {answer}");
    assert!(waited < Duration::from_secs(10), "held long after the body fell below the rate ({waited:?})");
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    assert!(answer.contains("application/json") && answer.contains("\"code\":\"invalid_request\""), "{answer}");
}

/// A body that keeps arriving at the minimum rate must still arrive whole within 30 s of its
/// head: otherwise it holds its connection's place for as long as the client likes.
#[tokio::test]
async fn a_body_trickled_at_the_minimum_rate_is_cut_off_at_the_deadline() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let server = Server::sandbox();
    let addr = server.base.trim_start_matches("http://").to_string();
    let stream = tokio::net::TcpStream::connect(&addr).await.unwrap();
    let (mut reader, mut writer) = stream.into_split();
    let started = Instant::now();
    let head = format!(
        "POST /api/auth HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n"
    );
    writer.write_all(head.as_bytes()).await.unwrap();
    // Twice the minimum rate, a second at a time: never too slow, never done.
    let trickle = tokio::spawn(async move {
        for _ in 0..60 {
            if writer.write_all(&[b' '; 1024]).await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    });
    let mut answer = String::new();
    let read = tokio::time::timeout(Duration::from_secs(50), reader.read_to_string(&mut answer)).await;
    trickle.abort();
    assert!(read.is_ok(), "the trickled body held the connection past 50 s");
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_secs(25) && waited < Duration::from_secs(45),
        "answered after {waited:?}: {answer}"
    );
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
}

#[tokio::test]
async fn every_refusal_is_the_error_object_and_answers_carry_safe_headers() {
    let server = Server::sandbox();
    let token = demo_token(&server).await;
    for path in [
        "/api/payments/webhooks?limit=1&limit=2",
        "/api/payments/orders?page=1&page=2",
        "/api/payments/orders/%FF%FE",
        "/api/docs/documents/%FF",
    ] {
        let response = client().get(server.url(path)).bearer_auth(&token).send().await.unwrap();
        let status = response.status().as_u16();
        assert!((400..500).contains(&status), "{path}: {status}");
        assert_eq!(response.headers()["x-content-type-options"], "nosniff", "{path}");
        let body: Value = response.json().await.unwrap_or_else(|e| panic!("{path}: not JSON ({e})"));
        assert!(body["error"]["code"].is_string(), "{path}: {body}");
    }
    let login = client()
        .post(server.url("/api/auth"))
        .json(&json!({"email": "x@example.com", "password": "nope"}))
        .send()
        .await
        .unwrap();
    assert_eq!(login.headers()["cache-control"], "no-store");
    // A body over the limit, on a route that reads one.
    let huge = format!("{{\"name\":\"{}\"}}", "x".repeat(2 * 1024 * 1024));
    let response = client()
        .post(server.url("/api/docs/documents"))
        .bearer_auth(&token)
        .header("content-type", "application/json")
        .body(huge)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 413);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], "payload_too_large", "{body}");
}
