//! What the webhook benchmarks share: signed deliveries and how figures are printed.
#![allow(dead_code)]

use std::time::Duration;

use serde_json::json;
use staffroom::secrets::Secret;
use staffroom::webhooks::signature::sign;

/// The signing secret the benchmarks' services are started with.
pub const SECRET: &str = "whsec_bench";

/// A long-running core (receiver, applier, events) on a fresh data dir with secrets in memory,
/// verifying deliveries signed with [`SECRET`]. The dir lives as long as the returned guard.
pub async fn receiving_core() -> (tempfile::TempDir, staffroom::Core) {
    std::env::set_var("STAFFROOM_WEBHOOK_SECRET", SECRET);
    let dir = tempfile::tempdir().unwrap();
    let mut config = staffroom::config::Config::new(dir.path());
    config.secret_backend = staffroom::secrets::SecretBackend::Memory;
    config.long_running = true;
    let core = staffroom::Core::open(config).await.unwrap();
    (dir, core)
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
