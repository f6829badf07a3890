//! `staffroom serve` as a team server on PostgreSQL (SPEC section 10), the real binary on a
//! throwaway cluster: the sandbox end to end; two replicas on one database, an order paid through
//! one reaching the event stream of the other; and the keys a real team's replicas must share.

mod common;

use std::time::{Duration, Instant};

use common::{checkout_action, client, Server, ServerOptions, DEMO_EMAIL, DEMO_PASSWORD};
use serde_json::{json, Value};

fn on_database(url: &str, sandbox: bool, env: &[(&str, &str)]) -> ServerOptions {
    ServerOptions {
        sandbox,
        args: vec!["--database-url".into(), url.into()],
        env: env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        ..Default::default()
    }
}

async fn sign_in(server: &Server) -> String {
    common::login(server, DEMO_EMAIL, DEMO_PASSWORD).await["token"].as_str().unwrap().to_string()
}

async fn create_order(server: &Server, token: &str) -> Value {
    let answer = client()
        .post(server.url("/api/payments/orders"))
        .bearer_auth(token)
        .json(&json!({ "productId": "3", "email": "buyer@example.com" }))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 201);
    answer.json::<Value>().await.unwrap()["order"].clone()
}

/// `GET path` on `server` as the holder of `token`, as JSON.
async fn get_json(server: &Server, token: &str, path: &str) -> Value {
    client().get(server.url(path)).bearer_auth(token).send().await.unwrap().json().await.unwrap()
}

/// Pays `order` on the sandbox checkout page and waits (at most 10 s) until `server` shows it paid.
async fn pay_and_wait_until_paid(server: &Server, token: &str, order: &Value) {
    let paid = client().post(checkout_action(order["checkoutUrl"].as_str().unwrap(), "pay")).send().await.unwrap();
    assert!(paid.status().is_success());
    let path = format!("/api/payments/orders/{}", order["id"].as_str().unwrap());
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let now = get_json(server, token, &path).await;
        if now["order"]["status"] == "paid" {
            return;
        }
        assert!(Instant::now() < deadline, "the order did not turn paid: {now}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Reads `GET /api/events` until an event satisfies `wanted`; how long it took.
async fn wait_for_event(
    base: &str,
    token: &str,
    wanted: impl Fn(&str) -> bool,
    ready: tokio::sync::oneshot::Sender<()>,
) -> Duration {
    let response = client().get(format!("{base}/api/events")).bearer_auth(token).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let _ = ready.send(());
    let started = Instant::now();
    let mut response = response;
    let mut seen = String::new();
    loop {
        let chunk = tokio::time::timeout(Duration::from_secs(10), response.chunk()).await.expect("an event in time");
        let Some(chunk) = chunk.unwrap() else { break };
        seen.push_str(&String::from_utf8_lossy(&chunk));
        if seen.split("\n\n").any(&wanted) {
            return started.elapsed();
        }
    }
    panic!("the stream ended before the event came: {seen}");
}

#[tokio::test]
async fn the_sandbox_serves_on_postgres() {
    let url = common::pg::cluster().database();
    let server = Server::start(on_database(&url, true, &[]));
    let token = sign_in(&server).await;
    let products = get_json(&server, &token, "/api/payments/products").await;
    assert!(!products["products"].as_array().unwrap().is_empty(), "{products}");

    let order = create_order(&server, &token).await;
    assert!(order["orderId"].as_str().unwrap().starts_with("SR-"));
    pay_and_wait_until_paid(&server, &token, &order).await;
    let audit = get_json(&server, &token, "/api/audit").await;
    assert!(audit.as_array().unwrap().iter().any(|e| e["action"] == "payments.order_create"), "{audit}");

    // The mode is the database's: a real start on it is refused.
    let refused = common::command(&server.data_dir.with_extension("other"))
        .args(["serve", "--addr", "127.0.0.1:0", "--database-url", &url])
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("holds sandbox data"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
}

#[tokio::test]
async fn an_order_paid_through_one_replica_reaches_the_stream_of_another() {
    let url = common::pg::cluster().database();
    let (a, b) = (Server::start(on_database(&url, true, &[])), Server::start(on_database(&url, true, &[])));
    let (token_a, token_b) = (sign_in(&a).await, sign_in(&b).await);
    let order = create_order(&a, &token_a).await;
    let id = order["id"].as_str().unwrap().to_string();

    let (ready, listening) = tokio::sync::oneshot::channel();
    let watcher = {
        let id = id.clone();
        let b_base = b.base.clone();
        tokio::spawn(async move {
            wait_for_event(&b_base, &token_b, |event| event.contains("\"applied\"") && event.contains(&id), ready).await
        })
    };
    listening.await.unwrap();
    let paid_at = Instant::now();
    let paid = client().post(checkout_action(order["checkoutUrl"].as_str().unwrap(), "pay")).send().await.unwrap();
    assert!(paid.status().is_success());
    watcher.await.unwrap();
    let took = paid_at.elapsed();
    println!("paid through replica A, on replica B's event stream {took:?} later");
    assert!(took < Duration::from_secs(1), "{took:?}");
    // And B serves the order as paid, from the shared database.
    let seen: Value = client()
        .get(b.url(&format!("/api/payments/orders/{id}")))
        .bearer_auth(&sign_in(&b).await)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(seen["order"]["status"], "paid");
}

#[tokio::test]
async fn a_real_team_needs_the_same_keys_on_every_replica() {
    let url = common::pg::cluster().database();
    let start = |env: &[(&str, &str)]| {
        common::command(tempfile::tempdir().unwrap().path())
            .args(["serve", "--addr", "127.0.0.1:0", "--database-url", &url])
            // Only the keys given here (a PostgreSQL run of the suite gives every command some).
            .env_remove("STAFFROOM_JWT_KEY")
            .env_remove("STAFFROOM_DATA_KEY")
            .envs(env.iter().copied())
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap()
    };
    // No keys: refused, naming the command that makes a pair.
    let refused = start(&[]);
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success() && said.contains("staffroom secrets generate"), "{said}");

    let (jwt, data) = generated_pair();
    assert_ne!(jwt, data);

    let first = Server::start(on_database(&url, false, &[("STAFFROOM_JWT_KEY", &jwt), ("STAFFROOM_DATA_KEY", &data)]));
    let second = Server::start(on_database(&url, false, &[("STAFFROOM_JWT_KEY", &jwt), ("STAFFROOM_DATA_KEY", &data)]));
    let health = client().get(second.url("/api/health")).send().await.unwrap();
    assert!(health.status().is_success());
    drop((first, second));

    // A replica given another jwt_key would sign tokens the others refuse: it does not start.
    let (other_jwt, _) = generated_pair();
    let refused = start(&[("STAFFROOM_JWT_KEY", &other_jwt), ("STAFFROOM_DATA_KEY", &data)]);
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success() && said.contains("not the team's"), "{said}");

    // A CLI command signs no token: it needs no key.
    let listed = common::command(tempfile::tempdir().unwrap().path())
        .args(["--database-url", &url, "users", "list"])
        .output()
        .unwrap();
    assert!(listed.status.success(), "{}", String::from_utf8_lossy(&listed.stderr));
}

/// A new `STAFFROOM_JWT_KEY` / `STAFFROOM_DATA_KEY` pair from `staffroom secrets generate`.
fn generated_pair() -> (String, String) {
    let out = common::command(std::path::Path::new("/nonexistent")).args(["secrets", "generate"]).output().unwrap();
    let out = String::from_utf8(out.stdout).unwrap();
    let key = |name: &str| out.lines().find_map(|l| l.strip_prefix(&format!("{name}="))).unwrap().to_string();
    (key("STAFFROOM_JWT_KEY"), key("STAFFROOM_DATA_KEY"))
}

/// Adds an admin to the team's database with `staffroom users add`, the password on stdin.
fn add_admin(url: &str, email: &str, name: &str, password: &str, env: &[(&str, &str)]) {
    let added = common::command(tempfile::tempdir().unwrap().path())
        .args(["--database-url", url, "users", "add", "--email", email, "--name", name])
        .args(["--role", "admin", "--password-stdin"])
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write as _;
            child.stdin.take().unwrap().write_all(password.as_bytes())?;
            child.wait_with_output()
        })
        .unwrap();
    assert!(added.status.success(), "{}", String::from_utf8_lossy(&added.stderr));
}

/// The settings that point a replica (or the CLI) at the Google simulator, with its client.
fn google_settings(google: &staffroom::sandbox::google::GoogleSimulator) -> Vec<(&'static str, String)> {
    let (client_id, client_secret) = google.client();
    let endpoints = google.endpoints();
    vec![
        ("STAFFROOM_GOOGLE_CLIENT_ID", client_id),
        ("STAFFROOM_GOOGLE_CLIENT_SECRET", client_secret),
        ("STAFFROOM_GOOGLE_DOCS_API_URL", endpoints.docs_url),
        ("STAFFROOM_GOOGLE_DRIVE_API_URL", endpoints.drive_url),
        ("STAFFROOM_GOOGLE_OAUTH_URL", google.base_url().to_string()),
    ]
}

/// Google sign-in is the team's: finished through replica A (from a desktop's browser step), it
/// is kept sealed with data_key in the database, where replica B finds it; sign-out on B ends it
/// for A too.
#[tokio::test]
async fn googles_tokens_are_the_teams_sealed_in_its_database() {
    use staffroom::sandbox::google::{GoogleSimOptions, GoogleSimulator};
    let url = common::pg::cluster().database();
    let google = GoogleSimulator::start(GoogleSimOptions::default()).await.unwrap();
    let (jwt, data) = generated_pair();
    let settings = google_settings(&google);
    let mut env: Vec<(&str, &str)> = settings.iter().map(|(k, v)| (*k, v.as_str())).collect();
    env.extend([("STAFFROOM_JWT_KEY", jwt.as_str()), ("STAFFROOM_DATA_KEY", data.as_str())]);
    let password = "a long and unusual team passphrase";
    add_admin(&url, "admin@example.com", "Admin", password, &[]);
    let (a, b) = (Server::start(on_database(&url, false, &env)), Server::start(on_database(&url, false, &env)));
    let token_a = common::login(&a, "admin@example.com", password).await["token"].as_str().unwrap().to_string();
    let token_b = common::login(&b, "admin@example.com", password).await["token"].as_str().unwrap().to_string();
    let status = |server: &Server, token: &str| {
        let request = client().get(server.url("/api/docs/google")).bearer_auth(token.to_string());
        async move { request.send().await.unwrap().json::<Value>().await.unwrap() }
    };
    assert_eq!(status(&b, &token_b).await["signedIn"], false);

    // The desktop's browser step, against replica A; the consent page is the simulator's.
    let step = staffroom::docs::oauth::BrowserStep::start().await.unwrap();
    let page: Value = client()
        .post(a.url("/api/docs/google/authorization"))
        .bearer_auth(&token_a)
        .json(&json!({ "redirectUri": step.redirect_uri, "codeChallenge": step.code_challenge, "state": step.state }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let consent = url::Url::parse(page["url"].as_str().unwrap()).unwrap();
    let at_simulator = format!("{}?{}", google.endpoints().auth_url, consent.query().unwrap());
    let browser = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    let html = browser.get(&at_simulator).send().await.unwrap().text().await.unwrap();
    let href = html.split("id=\"allow\" href=\"").nth(1).unwrap().split('"').next().unwrap().replace("&amp;", "&");
    let approved = browser.get(format!("{}{href}", google.base_url())).send().await.unwrap();
    let back = approved.headers()["location"].to_str().unwrap().to_string();
    tokio::spawn(reqwest::get(back));
    let code = step.finish(Duration::from_secs(10)).await.unwrap();
    let signed_in = client()
        .post(a.url("/api/docs/google/code"))
        .bearer_auth(&token_a)
        .json(&json!({ "code": code.code.expose(), "codeVerifier": code.verifier.expose(), "redirectUri": code.redirect_uri }))
        .send()
        .await
        .unwrap();
    assert_eq!(signed_in.status(), 200);

    // Replica B finds it, and documents work there.
    assert_eq!(status(&b, &token_b).await["signedIn"], true);
    let documents = client().get(b.url("/api/docs/documents")).bearer_auth(&token_b).send().await.unwrap();
    assert_eq!(documents.status(), 200);
    let settings: Value =
        client().get(b.url("/api/settings")).bearer_auth(&token_b).send().await.unwrap().json().await.unwrap();
    let google_token = settings["secrets"].as_array().unwrap().iter().find(|s| s["name"] == "google_token").unwrap();
    assert_eq!(google_token["source"], "team database (sealed with data_key)", "{settings}");

    // In the database, sealed: nothing of the token set in the clear.
    let (db, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(connection);
    let sealed: Vec<u8> =
        db.query_one("SELECT sealed FROM sealed_secrets WHERE name = 'google_token'", &[]).await.unwrap().get(0);
    for clear in [&b"access_token"[..], b"refresh_token", b"expires_at"] {
        assert!(!sealed.windows(clear.len()).any(|w| w == clear), "sealed: {:?}", String::from_utf8_lossy(&sealed));
    }

    // Signed out on B: signed out for A as well.
    let out = client().post(b.url("/api/docs/google/sign-out")).bearer_auth(&token_b).send().await.unwrap();
    assert_eq!(out.status(), 200);
    assert_eq!(status(&a, &token_a).await["signedIn"], false);
}

/// A data dir that does not record whether it is a sandbox's (one made before data dirs did)
/// enters a real team only when the operator names it real.
#[tokio::test]
async fn an_unmarked_data_dir_enters_a_real_team_only_when_named_real() {
    let dir = tempfile::tempdir().unwrap();
    let data_dir = dir.path().join("old-desktop");
    // Account commands never decide a data dir's mode: this one records none.
    common::add_user(&data_dir, "ada@example.com", "Ada", "admin", "copper-kettle-morning-7");
    let marks: i64 = rusqlite::Connection::open(data_dir.join(staffroom::store::DB_FILE))
        .unwrap()
        .query_row("SELECT COUNT(*) FROM meta WHERE key = 'data_mode'", [], |row| row.get(0))
        .unwrap();
    assert_eq!(marks, 0, "the data dir records no mode");

    let real = common::pg::cluster().database();
    let (jwt, data) = generated_pair();
    drop(Server::start(on_database(&real, false, &[("STAFFROOM_JWT_KEY", &jwt), ("STAFFROOM_DATA_KEY", &data)])));
    let migrate = |mode: Option<&str>| {
        let mut command = common::command(&data_dir);
        command.args(["--database-url", &real, "migrate", "--from-data-dir"]).arg(&data_dir);
        if let Some(mode) = mode {
            command.args(["--source-mode", mode]);
        }
        let out = command.output().unwrap();
        (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (moved, said) = migrate(None);
    assert!(!moved && said.contains("--source-mode real"), "{said}");
    let (moved, said) = migrate(Some("sandbox"));
    assert!(!moved && said.contains("never enters a real team"), "{said}");
    let (moved, said) = migrate(Some("real"));
    assert!(moved, "{said}");
    let users: i64 = common::pg_client(&real).await.query_one("SELECT COUNT(*) FROM users", &[]).await.unwrap().get(0);
    assert_eq!(users, 1);
}

/// A single desktop grows up: its sandbox data dir moves into a team's database, whose server
/// then serves its demo account, orders and audit, and numbers the next order after them.
#[tokio::test]
async fn a_data_dir_moves_into_a_team_database_once() {
    let dir = tempfile::tempdir().unwrap();
    let data_dir = dir.path().join("desktop");
    let (paid_id, paid_number) = {
        let single = Server::start(ServerOptions { data_dir: Some(data_dir.clone()), ..Default::default() });
        let token = sign_in(&single).await;
        let order = create_order(&single, &token).await;
        pay_and_wait_until_paid(&single, &token, &order).await;
        let id = order["id"].as_str().unwrap().to_string();
        (id, order["orderId"].as_str().unwrap().to_string())
    };

    let url = common::pg::cluster().database();
    let migrate = |target: &str| {
        common::command(&data_dir)
            .args(["--database-url", target, "migrate", "--from-data-dir"])
            .arg(&data_dir)
            .output()
            .unwrap()
    };
    let moved = migrate(&url);
    assert!(moved.status.success(), "{}", String::from_utf8_lossy(&moved.stderr));
    let said = String::from_utf8_lossy(&moved.stdout);
    assert!(said.contains("orders") && said.contains("webhook_events"), "{said}");

    // Once only: the target is no longer empty.
    let again = migrate(&url);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("not empty"), "{}", String::from_utf8_lossy(&again.stderr));
    // A sandbox's data never enters a real team.
    let real = common::pg::cluster().database();
    let (jwt, data) = generated_pair();
    drop(Server::start(on_database(&real, false, &[("STAFFROOM_JWT_KEY", &jwt), ("STAFFROOM_DATA_KEY", &data)])));
    let refused = migrate(&real);
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success() && said.contains("never enters a real team"), "{said}");

    // The team server serves what the desktop had, and numbers on from it.
    let team = Server::start(on_database(&url, true, &[]));
    let token = sign_in(&team).await;
    let order = get_json(&team, &token, &format!("/api/payments/orders/{paid_id}")).await;
    assert_eq!(
        (order["order"]["status"].as_str(), order["order"]["orderId"].as_str()),
        (Some("paid"), Some(paid_number.as_str()))
    );
    assert!(!order["order"]["events"].as_array().unwrap().is_empty(), "its webhook history came along: {order}");
    let audit = get_json(&team, &token, "/api/audit").await;
    assert!(audit.as_array().unwrap().iter().any(|e| e["action"] == "payments.order_create"), "{audit}");
    let next = create_order(&team, &token).await;
    let number = |reference: &str| reference.trim_start_matches("SR-").parse::<i64>().unwrap();
    assert_eq!(number(next["orderId"].as_str().unwrap()), number(&paid_number) + 1);
}

const WEBHOOK_SECRET: &str = "whsec_team_replicas";

/// Two sandbox replicas on a fresh team database, receiving deliveries signed with
/// [`WEBHOOK_SECRET`]; and the database's URL.
fn two_receiving_replicas() -> (Server, Server, String) {
    let url = common::pg::cluster().database();
    let env = [("STAFFROOM_WEBHOOK_SECRET", WEBHOOK_SECRET)];
    (Server::start(on_database(&url, true, &env)), Server::start(on_database(&url, true, &env)), url)
}

/// Sends one signed delivery to `server`: whether it was acknowledged as a duplicate, or why it
/// was not acknowledged (refused, or the connection failed).
async fn deliver(http: &reqwest::Client, server_base: &str, body: &[u8]) -> Result<bool, String> {
    use staffroom::{secrets::Secret, webhooks::signature::sign};
    let answer = http
        .post(format!("{server_base}/api/payments/webhooks"))
        .header("content-type", "application/json")
        .header("x-signature", sign(&Secret::new(WEBHOOK_SECRET), body))
        .body(body.to_vec())
        .send()
        .await
        .map_err(|e| e.to_string())?;
    let status = answer.status();
    let answer: Value = answer.json().await.map_err(|e| e.to_string())?;
    match answer["duplicate"].as_bool() {
        Some(duplicate) if status == 200 => Ok(duplicate),
        _ => Err(format!("{status}: {answer}")),
    }
}

/// A `subscription_updated` delivery for subscription `id` in `status`, updated at `minute`.
fn subscription_delivery(id: u32, status: &str, minute: u32) -> Vec<u8> {
    let at = |minute: u32| format!("2026-11-22T10:{minute:02}:00.000000Z");
    serde_json::to_vec(&json!({
        "meta": {"event_name": "subscription_updated", "webhook_id": format!("team-{id}-{minute}")},
        "data": {"type": "subscriptions", "id": id.to_string(), "attributes": {
            "status": status, "customer_id": 77, "product_id": 3, "variant_id": 31,
            "user_email": "kim@example.com", "user_name": "Kim", "renews_at": "2027-01-01T00:00:00.000000Z",
            "ends_at": if status == "expired" { json!(at(minute)) } else { Value::Null },
            "pause": null, "created_at": at(0), "updated_at": at(minute)
        }}
    }))
    .unwrap()
}

/// Waits (at most `limit`) until nothing in the team's inbox waits to be applied.
async fn until_all_applied(db: &tokio_postgres::Client, limit: Duration) {
    let deadline = Instant::now() + limit;
    loop {
        let waiting: i64 =
            db.query_one("SELECT COUNT(*) FROM webhook_events WHERE applied_at IS NULL", &[]).await.unwrap().get(0);
        if waiting == 0 {
            return;
        }
        assert!(Instant::now() < deadline, "{waiting} deliveries still wait to be applied");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The inbox ids the live feed announced as applied, each once per announcement (both
/// replicas' feeds, as stored for `GET /api/events`).
async fn announced_applied(db: &tokio_postgres::Client) -> Vec<i64> {
    db.query(
        "SELECT (data::jsonb ->> 'inboxId')::BIGINT FROM events
         WHERE kind = 'webhook' AND data::jsonb ->> 'kind' = 'applied'",
        &[],
    )
    .await
    .unwrap()
    .iter()
    .map(|row| row.get(0))
    .collect()
}

/// SPEC section 10: the same delivery sent to two replicas at once is stored once and applied
/// once; out-of-order arrivals end in the state of each subscription's newest event (section 4).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn deliveries_sent_to_both_replicas_are_stored_once_and_applied_once_in_order() {
    use futures::StreamExt as _;
    use rand::{seq::SliceRandom as _, SeedableRng as _};
    const SUBSCRIPTIONS: u32 = 200;
    const STATUSES: [&str; 9] =
        ["on_trial", "active", "past_due", "paused", "unpaid", "cancelled", "active", "paused", "cancelled"];
    let (a, b, url) = two_receiving_replicas();
    // Ten events per subscription; the newest makes it expired (even ids) or active (odd ones).
    let newest = |id: u32| if id % 2 == 0 { "expired" } else { "active" };
    let mut deliveries: Vec<Vec<u8>> = (0..SUBSCRIPTIONS)
        .flat_map(|n| {
            let id = 90_000 + n;
            (0..10u32).map(move |minute| {
                let status = STATUSES.get(minute as usize).copied().unwrap_or(newest(id));
                subscription_delivery(id, status, minute + 1)
            })
        })
        .collect();
    deliveries.shuffle(&mut rand::rngs::StdRng::seed_from_u64(16));
    assert_eq!(deliveries.len(), 2000);

    let http = client();
    let started = Instant::now();
    let answers: Vec<(Result<bool, String>, Result<bool, String>)> = futures::stream::iter(deliveries)
        .map(|body| {
            let http = http.clone();
            let (a, b) = (a.base.clone(), b.base.clone());
            async move { tokio::join!(deliver(&http, &a, &body), deliver(&http, &b, &body)) }
        })
        .buffer_unordered(32)
        .collect()
        .await;
    println!("2,000 deliveries sent to both replicas in {:?}", started.elapsed());
    for (n, answer) in answers.iter().enumerate() {
        // Both acknowledged; exactly one of them stored it, the other found it stored.
        assert!(matches!(answer, (Ok(false), Ok(true)) | (Ok(true), Ok(false))), "delivery {n}: {answer:?}");
    }

    let db = common::pg_client(&url).await;
    until_all_applied(&db, Duration::from_secs(30)).await;
    let stored: i64 = db.query_one("SELECT COUNT(*) FROM webhook_events", &[]).await.unwrap().get(0);
    assert_eq!(stored, 2000, "each delivery stored once");
    let outcomes = db.query("SELECT outcome FROM webhook_events", &[]).await.unwrap();
    for row in &outcomes {
        let outcome: &str = row.get(0);
        assert!(outcome == "applied" || outcome.starts_with("stale:"), "{outcome}");
    }
    let states = db.query("SELECT id, status FROM subscriptions WHERE id::TEXT LIKE '9____'", &[]).await.unwrap();
    assert_eq!(states.len(), SUBSCRIPTIONS as usize);
    for row in states {
        let (id, status): (String, String) = (row.get(0), row.get(1));
        assert_eq!(status, newest(id.parse().unwrap()), "subscription {id} ends in its newest event's state");
    }
    // Applied once: no delivery was announced as applied twice, by either replica.
    tokio::time::sleep(Duration::from_millis(500)).await; // the feeds' writers store in batches
    let announced = announced_applied(&db).await;
    let distinct: std::collections::HashSet<i64> = announced.iter().copied().collect();
    assert_eq!(distinct.len(), announced.len(), "a delivery was applied twice");
    assert!(announced.len() > 1000, "the feeds announced what they applied ({})", announced.len());
}

/// SIGKILL of one replica mid-stream: every delivery it acknowledged is in the team's database,
/// and the other replica, still receiving, applies them too (it sweeps the inbox every second).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_replica_killed_mid_stream_loses_nothing_and_the_other_applies_it() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, Mutex};
    let (mut a, b, url) = two_receiving_replicas();
    let acknowledged = Arc::new(Mutex::new(Vec::<String>::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let mut senders = Vec::new();
    for sender in 0..6u32 {
        // Half the senders deliver to the replica that dies, half to the one that lives.
        let base = if sender % 2 == 0 { a.base.clone() } else { b.base.clone() };
        let (acknowledged, stop) = (acknowledged.clone(), stop.clone());
        senders.push(tokio::spawn(async move {
            let http = reqwest::Client::builder().timeout(Duration::from_secs(5)).build().unwrap();
            let mut failures = 0;
            for n in 0u32.. {
                if stop.load(Ordering::Relaxed) || failures > 3 {
                    break;
                }
                let id = sender * 1_000_000 + n;
                match deliver(&http, &base, &subscription_delivery(id, "active", 1)).await {
                    Ok(_) => acknowledged.lock().unwrap().push(format!("team-{id}-1")),
                    // Refused or reset after the kill: a provider would send it again later.
                    Err(_) => {
                        failures += 1;
                        tokio::time::sleep(Duration::from_millis(20)).await;
                    }
                }
            }
        }));
    }
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(a.signal_and_wait("KILL").code(), None, "replica A died from the signal");
    tokio::time::sleep(Duration::from_millis(500)).await; // B goes on receiving alone
    stop.store(true, Ordering::Relaxed);
    for sender in senders {
        sender.await.unwrap();
    }
    let acknowledged = acknowledged.lock().unwrap().clone();
    assert!(acknowledged.len() > 100, "the senders got going ({} acknowledged)", acknowledged.len());

    let db = common::pg_client(&url).await;
    until_all_applied(&db, Duration::from_secs(15)).await;
    let applied: std::collections::HashSet<String> = db
        .query("SELECT webhook_id FROM webhook_events WHERE applied_at IS NOT NULL", &[])
        .await
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect();
    let lost: Vec<&String> = acknowledged.iter().filter(|id| !applied.contains(*id)).collect();
    println!(
        "killed replica: {} acknowledged, {} applied by the survivor's sweep or before",
        acknowledged.len(),
        applied.len()
    );
    assert!(lost.is_empty(), "acknowledged but never applied: {lost:?}");
    // The survivor still serves.
    let health = client().get(b.url("/api/health")).send().await.unwrap();
    assert!(health.status().is_success());
}

/// Sign-in throttling is the team's: five wrong passwords through replica A lock the account
/// for replica B too, and guesses spread over both replicas at once reach the hasher at most
/// five times between them.
#[tokio::test]
async fn a_lockout_started_on_one_replica_holds_on_the_other() {
    let url = common::pg::cluster().database();
    let (a, b) = (Server::start(on_database(&url, true, &[])), Server::start(on_database(&url, true, &[])));
    let sign_in_as = |server: &Server, email: &str, password: &str| {
        client().post(server.url("/api/auth")).json(&json!({ "email": email, "password": password })).send()
    };
    for attempt in 1..=5 {
        let answer = sign_in_as(&a, DEMO_EMAIL, "wrong-passphrase-attempt").await.unwrap();
        assert_eq!(answer.status(), 401, "attempt {attempt}");
    }
    let answer = sign_in_as(&b, DEMO_EMAIL, DEMO_PASSWORD).await.unwrap();
    assert_eq!(answer.status(), 429, "the right password does not get through A's lock on B");
    assert!(answer.headers().contains_key("retry-after"));

    let guesses = (0..30).map(|n| {
        let server = if n % 2 == 0 { &a } else { &b };
        sign_in_as(server, "nobody@example.com", "wrong guess number one")
    });
    let statuses: Vec<u16> =
        futures::future::join_all(guesses).await.into_iter().map(|r| r.unwrap().status().as_u16()).collect();
    let checked = statuses.iter().filter(|s| **s == 401).count();
    assert!(checked <= 5, "at most five guesses were checked across both replicas: {statuses:?}");
    assert_eq!(checked + statuses.iter().filter(|s| **s == 429).count(), 30, "{statuses:?}");
}

/// `staffroom sandbox-providers` as a child process: its base URL and the environment it printed
/// for replicas.
struct SharedProviders {
    child: std::process::Child,
    base: String,
    env: Vec<(String, String)>,
}

impl SharedProviders {
    fn start(webhook_url: Option<&str>) -> SharedProviders {
        use std::io::BufRead as _;
        let mut command = common::command(std::path::Path::new("/nonexistent"));
        command.args(["sandbox-providers", "--addr", "127.0.0.1:0"]);
        if let Some(url) = webhook_url {
            command.args(["--webhook-url", url]).env("STAFFROOM_WEBHOOK_SECRET", WEBHOOK_SECRET);
        }
        let mut child = command
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .stdin(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines().map_while(Result::ok);
        let base = lines.next().and_then(|l| l.strip_prefix("listening on ").map(str::to_string)).expect("its address");
        let mut env = Vec::new();
        for line in lines {
            if line.starts_with('#') {
                continue;
            }
            let (name, value) = line.split_once('=').expect("NAME=value");
            env.push((name.to_string(), value.to_string()));
            if name == "STAFFROOM_GOOGLE_TOKEN" {
                break;
            }
        }
        SharedProviders { child, base, env }
    }

    async fn stats(&self) -> Value {
        client().get(format!("{}/lemonsqueezy/__sandbox/stats", self.base)).send().await.unwrap().json().await.unwrap()
    }
}

impl Drop for SharedProviders {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// SPEC section 10: replicas sharing one provider (here `sandbox-providers`, as in a shared
/// demo) take turns to sync, so the provider never sees two syncs at once, however often staff
/// on different replicas press "sync"; and everything else works through the shared simulators.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn replicas_sharing_one_provider_never_sync_at_once() {
    let url = common::pg::cluster().database();
    let providers = SharedProviders::start(None);
    let (jwt, data) = generated_pair();
    let mut env: Vec<(&str, &str)> = providers.env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    env.extend([("STAFFROOM_JWT_KEY", jwt.as_str()), ("STAFFROOM_DATA_KEY", data.as_str())]);
    add_admin(&url, "ada@example.com", "Ada", "correct horse battery staple\n", &env);
    let (a, b) = (Server::start(on_database(&url, false, &env)), Server::start(on_database(&url, false, &env)));
    let sign_in = |server: &Server| {
        let server_url = server.url("/api/auth");
        async move {
            let answer: Value = client()
                .post(server_url)
                .json(&json!({"email": "ada@example.com", "password": "correct horse battery staple"}))
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            answer["token"].as_str().expect("signed in").to_string()
        }
    };
    let (token_a, token_b) = (sign_in(&a).await, sign_in(&b).await);

    // Every list answer takes 50 ms, so that two syncs at once could not miss each other.
    let faults = client()
        .post(format!("{}/lemonsqueezy/__sandbox/faults", providers.base))
        .json(&json!({"latencyMs": 50}))
        .send()
        .await
        .unwrap();
    assert!(faults.status().is_success());
    let before = providers.stats().await["requests"].as_u64().unwrap();
    let sync = |server: &Server, token: &str| client().post(server.url("/api/payments/sync")).bearer_auth(token).send();
    for round in 0..3 {
        let (on_a, on_b) = tokio::join!(sync(&a, &token_a), sync(&b, &token_b));
        let (on_a, on_b) = (on_a.unwrap(), on_b.unwrap());
        assert_eq!((on_a.status().as_u16(), on_b.status().as_u16()), (200, 200), "round {round}");
    }
    let stats = providers.stats().await;
    println!("six syncs through two replicas: {stats}");
    assert!(stats["requests"].as_u64().unwrap() >= before + 6 * 3, "the syncs read the provider: {stats}");
    assert_eq!(stats["maxListsAtOnce"], 1, "two syncs overlapped at the provider: {stats}");

    // The shared simulators serve the rest too: the catalogue and the documents.
    let products = get_json(&b, &token_b, "/api/payments/products").await;
    assert!(!products["products"].as_array().unwrap().is_empty(), "{products}");
    let documents = get_json(&a, &token_a, "/api/docs/documents?pageSize=5").await;
    assert!(!documents["documents"].as_array().map_or(true, Vec::is_empty), "{documents}");
}

/// SPEC section 10: Google sign-in for a team from `staffroom google sign-in --database-url` on
/// a machine with a browser: the token set goes sealed into the team's database, where a
/// replica finds it.
// Several threads: the test blocks on the CLI's output while the simulator answers the CLI.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn google_sign_in_from_the_cli_is_the_teams() {
    use staffroom::sandbox::google::{GoogleSimOptions, GoogleSimulator};
    use std::io::BufRead as _;
    let url = common::pg::cluster().database();
    let google = GoogleSimulator::start(GoogleSimOptions::default()).await.unwrap();
    let (jwt, data) = generated_pair();
    let settings = google_settings(&google);
    let mut env: Vec<(&str, &str)> = settings.iter().map(|(k, v)| (*k, v.as_str())).collect();
    env.extend([("STAFFROOM_JWT_KEY", jwt.as_str()), ("STAFFROOM_DATA_KEY", data.as_str())]);
    let mut cli = common::command(tempfile::tempdir().unwrap().path())
        .args(["--database-url", &url, "google", "sign-in", "--timeout-secs", "30"])
        .envs(env.iter().copied())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .stdin(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(cli.stdout.take().unwrap()).lines().map_while(Result::ok);
    let consent =
        lines.find_map(|line| url::Url::parse(line.trim()).ok()).expect("the CLI prints the consent page's address");
    assert!(consent.as_str().starts_with("https://accounts.google.com/"), "{consent}");

    // The browser: the same consent request, answered by the simulator.
    let at_simulator = format!("{}?{}", google.endpoints().auth_url, consent.query().unwrap());
    let browser = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    let html = browser.get(&at_simulator).send().await.unwrap().text().await.unwrap();
    let href = html.split("id=\"allow\" href=\"").nth(1).unwrap().split('"').next().unwrap().replace("&amp;", "&");
    let approved = browser.get(format!("{}{href}", google.base_url())).send().await.unwrap();
    let back = approved.headers()["location"].to_str().unwrap().to_string();
    assert!(reqwest::get(back).await.unwrap().status().is_success());
    let said: Vec<String> = lines.collect();
    let output = cli.wait_with_output().unwrap();
    assert!(output.status.success(), "{said:?} {}", String::from_utf8_lossy(&output.stderr));
    assert!(said.iter().any(|l| l.contains("sealed with data_key in its database")), "{said:?}");

    // Sealed in the team's database, and a replica of the team is signed in with it.
    let db = common::pg_client(&url).await;
    let sealed: i64 =
        db.query_one("SELECT COUNT(*) FROM sealed_secrets WHERE name = 'google_token'", &[]).await.unwrap().get(0);
    assert_eq!(sealed, 1);
    let password = "a long and unusual team passphrase";
    add_admin(&url, "admin@example.com", "Admin", password, &[]);
    let replica = Server::start(on_database(&url, false, &env));
    let token = common::login(&replica, "admin@example.com", password).await["token"].as_str().unwrap().to_string();
    let status = get_json(&replica, &token, "/api/docs/google").await;
    assert_eq!(status["signedIn"], true, "{status}");
    let documents = client().get(replica.url("/api/docs/documents")).bearer_auth(&token).send().await.unwrap();
    assert_eq!(documents.status(), 200);
}
