//! The client-side rate limiter, proven against the simulator: a burst of 1,000 reads from many
//! tasks never shows the provider more than 300 requests in any window. The window is scaled
//! down (60 s → 0.6 s) on both sides so the test is quick; the limiter code is the real one.

use std::sync::Arc;
use std::time::{Duration, Instant};

use staffroom::payments::client::{ClientOptions, LemonSqueezyClient, RateLimit};
use staffroom::sandbox::lemonsqueezy::{PaymentSimulator, SimulatorOptions};
use staffroom::secrets::{MemoryStore, SecretStore, Secrets};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_of_1000_reads_stays_under_300_per_window() {
    let window = Duration::from_millis(600);
    let simulator =
        PaymentSimulator::start(SimulatorOptions { rate_window: window, ..Default::default() }).await.unwrap();
    let store = Arc::new(MemoryStore::default());
    store.set("lemonsqueezy_api_key", &simulator.api_key()).unwrap();
    // The production limit (240 per 60 s, bursts of 50), on the scaled window.
    let production = RateLimit::default();
    let scaled = RateLimit { requests: production.requests, period: window, burst: production.burst };
    let options = ClientOptions { rate_limit: scaled, ..Default::default() };
    let client = LemonSqueezyClient::new(&simulator.api_url(), Secrets::new(store), options).unwrap();

    let started = Instant::now();
    let mut tasks = Vec::new();
    for task in 0..20 {
        let client = client.clone();
        tasks.push(tokio::spawn(async move {
            for n in 0..50 {
                let id = (task * 50 + n) % 30 + 1;
                client.get(&format!("products/{id}"), &[]).await.expect("every read succeeds without a 429");
            }
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    let elapsed = started.elapsed();
    println!(
        "1000 reads in {elapsed:?}; the simulator saw {} requests, at most {} in one {window:?} window",
        simulator.request_count(),
        simulator.max_in_any_window()
    );
    assert_eq!(simulator.request_count(), 1000, "no retries were needed: the limiter kept under the provider's limit");
    assert!(simulator.max_in_any_window() <= 300, "{} requests in one window", simulator.max_in_any_window());
    // 50 at once, then 240 per window: 950 more need about 950 / 240 windows.
    assert!(elapsed >= window * 3, "the limiter really waited ({elapsed:?})");
}
