//! What the benchmarks share: the store they run on (SQLite, or with
//! `STAFFROOM_BENCH_STORE=postgres` a throwaway PostgreSQL cluster, and
//! `STAFFROOM_BENCH_REPLICAS=2` for two replicas on it), signed deliveries, and how figures are
//! printed.
#![allow(dead_code)]

use std::time::Duration;

use serde_json::json;
use staffroom::secrets::Secret;
use staffroom::webhooks::signature::sign;

/// The signing secret the benchmarks' services are started with.
pub const SECRET: &str = "whsec_bench";

#[path = "../../tests/common/pg.rs"]
mod pg;

/// Whether this run is on PostgreSQL (`STAFFROOM_BENCH_STORE=postgres`: a throwaway cluster of
/// Debian's packages, `synchronous_commit` on) rather than SQLite.
pub fn on_postgres() -> bool {
    std::env::var("STAFFROOM_BENCH_STORE").is_ok_and(|v| v == "postgres")
}

/// How many replicas share the store (`STAFFROOM_BENCH_REPLICAS`, PostgreSQL only; default 1).
pub fn replicas() -> usize {
    let asked = std::env::var("STAFFROOM_BENCH_REPLICAS").ok().and_then(|v| v.parse().ok()).unwrap_or(1);
    if on_postgres() {
        asked.max(1)
    } else {
        1
    }
}

/// Which store, in the figures' words.
pub fn store_name() -> String {
    match (on_postgres(), replicas()) {
        (false, _) => "SQLite".into(),
        (true, 1) => "PostgreSQL, one replica".into(),
        (true, n) => format!("PostgreSQL, {n} replicas"),
    }
}

/// Puts `config` on a fresh team database with generated team keys when this run is on
/// PostgreSQL; leaves it on its SQLite data dir otherwise.
pub fn on_bench_store(config: &mut staffroom::config::Config) {
    if on_postgres() {
        for name in ["STAFFROOM_JWT_KEY", "STAFFROOM_DATA_KEY"] {
            std::env::set_var(name, staffroom::auth::token::generate_key().expose());
        }
        config.database_url = Some(staffroom::secrets::Secret::new(pg::cluster().database()));
    }
}

/// [`replicas`] long-running cores (receiver, applier, events) with secrets in memory, verifying
/// deliveries signed with [`SECRET`], on one fresh store: a SQLite data dir, or a team database
/// that every core shares as a team's replicas do (each with a data dir of its own for logs,
/// all with the same team keys). The dirs live as long as the returned guard.
pub async fn receiving_cores() -> (tempfile::TempDir, Vec<staffroom::Core>) {
    std::env::set_var("STAFFROOM_WEBHOOK_SECRET", SECRET);
    let dir = tempfile::tempdir().unwrap();
    let database = on_postgres().then(|| pg::cluster().database());
    if database.is_some() {
        for name in ["STAFFROOM_JWT_KEY", "STAFFROOM_DATA_KEY"] {
            std::env::set_var(name, staffroom::auth::token::generate_key().expose());
        }
    }
    let mut cores = Vec::new();
    for n in 0..replicas() {
        let mut config = staffroom::config::Config::new(&dir.path().join(format!("replica-{n}")));
        config.secret_backend = staffroom::secrets::SecretBackend::Memory;
        config.long_running = true;
        config.database_url = database.clone().map(staffroom::secrets::Secret::new);
        cores.push(staffroom::open(config).await.unwrap());
    }
    (dir, cores)
}

/// A core on the bench store (see [`on_bench_store`]) whose Lemon Squeezy is `simulator`, with
/// secrets in memory; the data dir lives as long as the guard.
pub async fn core_on(
    simulator: &staffroom::sandbox::lemonsqueezy::PaymentSimulator,
) -> (tempfile::TempDir, staffroom::Core) {
    let dir = tempfile::tempdir().unwrap();
    let mut config = staffroom::config::Config::new(dir.path());
    config.secret_backend = staffroom::secrets::SecretBackend::Memory;
    config.payments.base_url = simulator.api_url();
    on_bench_store(&mut config);
    println!("store: {}", store_name());
    let core = staffroom::open(config).await.unwrap();
    core.secrets.set_override("lemonsqueezy_api_key", simulator.api_key());
    core.secrets.set_override("lemonsqueezy_store_id", Secret::new(simulator.store_id()));
    (dir, core)
}

/// Serves `core` as `staffroom serve` does on a loopback port and signs the demo admin in: the
/// base URL and the staff token.
pub async fn serve_signed_in(core: &staffroom::Core) -> (String, String) {
    staffroom::sandbox::ensure_demo_account(core).await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(staffroom::http::serve(listener, core.clone(), std::future::pending()));
    let login: serde_json::Value = reqwest::Client::new()
        .post(format!("{base}/api/auth"))
        .json(&json!({"email": staffroom::sandbox::DEMO_EMAIL, "password": staffroom::sandbox::DEMO_PASSWORD}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    (base, login["token"].as_str().unwrap().to_string())
}

/// The value at fraction `p` of `sorted`.
pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

/// Milliseconds, two decimals.
pub fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

/// A ~600-byte `subscription_updated` delivery for subscription `n` with the `webhook_id`
/// `{prefix}-{n}`, and its signature.
pub fn delivery(prefix: &str, n: u64) -> (Vec<u8>, String) {
    let body = serde_json::to_vec(&json!({
        "meta": {"event_name": "subscription_updated", "webhook_id": format!("{prefix}-{n}"), "test_mode": true},
        "data": {"type": "subscriptions", "id": n.to_string(), "attributes": {
            "status": "active", "customer_id": 1000 + n % 97, "product_id": 7, "variant_id": 11,
            "renews_at": "2026-12-22T10:00:00.000000Z", "updated_at": "2026-11-22T10:00:00.000000Z",
            "user_email": "customer@example.com", "user_name": "A Customer", "card_brand": "visa"
        }}
    }))
    .unwrap();
    let signature = sign(&Secret::new(SECRET), &body);
    (body, signature)
}
