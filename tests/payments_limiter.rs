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

/// A whole sync reads in bulk: it may take three quarters of the rate and of the burst, so what
/// staff open meanwhile finds the last quarter free and does not queue behind it (a product
/// opened during a large store's first sync waited up to 1.3 s in the desktop bench). The rate is
/// scaled to 240 per 48 s (a request every 200 ms, a bulk one every 267 ms), so queueing costs
/// seconds, not milliseconds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reads_staff_ask_for_do_not_queue_behind_bulk_reads() {
    use std::sync::atomic::{AtomicU32, Ordering};
    let simulator = PaymentSimulator::start(SimulatorOptions::default()).await.unwrap();
    let store = Arc::new(MemoryStore::default());
    store.set("lemonsqueezy_api_key", &simulator.api_key()).unwrap();
    let period = Duration::from_secs(48);
    let options = ClientOptions { rate_limit: RateLimit { period, ..RateLimit::default() }, ..Default::default() };
    let client = LemonSqueezyClient::new(&simulator.api_url(), Secrets::new(store), options).unwrap();

    // Four bulk readers, as fast as the limiters let them, until the test ends.
    let bulk_reads = Arc::new(AtomicU32::new(0));
    let readers: Vec<_> = (0..4)
        .map(|_| {
            let (bulk, reads) = (client.for_bulk_reads(), bulk_reads.clone());
            tokio::spawn(async move {
                loop {
                    bulk.get("products/1", &[]).await.expect("a bulk read");
                    reads.fetch_add(1, Ordering::SeqCst);
                }
            })
        })
        .collect();
    // Past both bursts (37 of the bulk share, 50 of the whole): were there no share, from here
    // every request would wait its turn with the bulk readers.
    let past_the_bursts = async {
        while bulk_reads.load(Ordering::SeqCst) < 55 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(60), past_the_bursts).await.expect("the bulk readers read");

    // Ten reads at once, as a person opening one thing after another would ask.
    let started = Instant::now();
    let asked: Vec<_> = (0..10)
        .map(|n| {
            let client = client.clone();
            tokio::spawn(async move { client.get(&format!("products/{}", n % 30 + 1), &[]).await.map(|_| ()) })
        })
        .collect();
    for read in asked {
        read.await.unwrap().expect("a read staff asked for");
    }
    let waited = started.elapsed();
    readers.iter().for_each(|reader| reader.abort());
    println!("ten reads took {waited:?} while bulk readers were at their limit");
    // Queued with the bulk readers, ten reads would take two seconds at least (a request every
    // 200 ms, most of them the bulk readers').
    assert!(waited < Duration::from_secs(1), "ten reads took {waited:?} behind bulk reads");
}
