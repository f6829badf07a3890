//! Webhook receiver load benchmark over real HTTP on loopback (run: `cargo bench --bench webhooks`).
//! On PostgreSQL: `STAFFROOM_BENCH_STORE=postgres`, with `STAFFROOM_BENCH_REPLICAS=2` for two replicas.
//!
//! The server and this load generator share the machine. Prints accepted deliveries/s at full
//! speed (closed loop, 64 connections), latency p50/p99/p99.9 at a fixed 1,000 deliveries/s (open
//! model: latency counted from each request's scheduled start, so a stall is not hidden), and
//! checks that stored == acknowledged. Every commit is a full sync (`synchronous=FULL`).
//! For both runs it also prints how applying keeps up: received-to-applied latency (p50/p99),
//! the largest backlog of stored but unapplied deliveries, and how long after the last delivery
//! the backlog was gone.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

mod common;

use common::{delivery, ms, percentile, receiving_cores, store_name};

/// Sends delivery `n` and checks it was acknowledged.
async fn send(client: &reqwest::Client, url: &str, n: u64) {
    let (body, signature) = delivery("bench", n);
    let response = client
        .post(url)
        .header("content-type", "application/json")
        .header("x-signature", signature)
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
}

/// How applying keeps up, from the receiver's live feed.
#[derive(Default)]
struct Applying {
    received_at: HashMap<i64, Instant>,
    latencies: Vec<Duration>,
    backlog: usize,
    largest_backlog: usize,
    missed_feed_items: u64,
    last_applied: Option<Instant>,
    /// Applied (by another replica's sweep) before its `received` item was read.
    applied_first: HashMap<i64, Instant>,
}

/// Follows the feeds of every replica: each delivery's `received` and `applied` items.
fn watch_applying(cores: &[staffroom::Core]) -> Arc<Mutex<Applying>> {
    let applying = Arc::new(Mutex::new(Applying::default()));
    for core in cores {
        follow_feed(core, applying.clone());
    }
    applying
}

fn follow_feed(core: &staffroom::Core, state: Arc<Mutex<Applying>>) {
    let mut feed = core.webhooks.as_ref().unwrap().subscribe();
    tokio::spawn(async move {
        loop {
            let item = match feed.recv().await {
                Ok(item) => item,
                Err(tokio::sync::broadcast::error::RecvError::Lagged(n)) => {
                    state.lock().unwrap().missed_feed_items += n;
                    continue;
                }
                Err(_) => break,
            };
            let (Some(id), now) = (item.inbox_id, Instant::now()) else { continue };
            let mut s = state.lock().unwrap();
            match item.kind {
                "received" => {
                    if s.applied_first.remove(&id).is_some() {
                        s.latencies.push(Duration::ZERO);
                        continue;
                    }
                    s.received_at.insert(id, now);
                    s.backlog += 1;
                    s.largest_backlog = s.largest_backlog.max(s.backlog);
                }
                "applied" => {
                    if let Some(at) = s.received_at.remove(&id) {
                        s.latencies.push(now - at);
                        s.backlog -= 1;
                    } else {
                        s.applied_first.insert(id, now);
                    }
                    s.last_applied = Some(now);
                }
                _ => {}
            }
        }
    });
}

/// Waits for the backlog to empty, prints the figures since the last report, and starts afresh.
async fn report_applying(applying: &Mutex<Applying>, run: &str, last_sent: Instant) {
    for _ in 0..6000 {
        if applying.lock().unwrap().backlog == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let mut s = applying.lock().unwrap();
    s.latencies.sort();
    let drained = s.last_applied.map(|t| t.saturating_duration_since(last_sent)).unwrap_or_default();
    println!(
        "  applying ({run}): {} applied, received to applied p50 {}  p99 {}; largest backlog {}; drained {} after the last delivery; {} feed items missed",
        s.latencies.len(),
        ms(percentile(&s.latencies, 0.5)),
        ms(percentile(&s.latencies, 0.99)),
        s.largest_backlog,
        ms(drained),
        s.missed_feed_items,
    );
    *s = Applying::default();
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let (_dir, cores) = receiving_cores().await;
    // Each replica on a listener of its own; deliveries go to them in turn, as a load balancer
    // would send them.
    let mut urls = Vec::new();
    for core in &cores {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        urls.push(format!("http://{}/api/payments/webhooks", listener.local_addr().unwrap()));
        tokio::spawn(staffroom::http::serve(listener, core.clone(), std::future::pending()));
    }
    let urls = Arc::new(urls);
    let url_of = move |n: u64| urls[n as usize % urls.len()].clone();
    let applying = watch_applying(&cores);
    let client = reqwest::Client::builder().pool_max_idle_per_host(256).build().unwrap();
    let next = Arc::new(AtomicU64::new(0));
    let acknowledged = Arc::new(AtomicU64::new(0));
    println!(
        "store: {}; machine: {} cores; servers and load generator share them",
        store_name(),
        std::thread::available_parallelism().unwrap()
    );

    // Full speed: 64 connections, closed loop.
    let run_for = Duration::from_secs(5);
    let started = Instant::now();
    let mut workers = Vec::new();
    for _ in 0..64 {
        let (client, url_of, next, acknowledged) = (client.clone(), url_of.clone(), next.clone(), acknowledged.clone());
        workers.push(tokio::spawn(async move {
            while started.elapsed() < run_for {
                let n = next.fetch_add(1, Ordering::Relaxed);
                send(&client, &url_of(n), n).await;
                acknowledged.fetch_add(1, Ordering::Relaxed);
            }
        }));
    }
    for worker in workers {
        worker.await.unwrap();
    }
    let elapsed = started.elapsed();
    let full_speed = acknowledged.load(Ordering::Relaxed);
    println!(
        "full speed, 64 connections: {:.0} stored deliveries/s ({full_speed} in {:.1} s)",
        full_speed as f64 / elapsed.as_secs_f64(),
        elapsed.as_secs_f64()
    );
    report_applying(&applying, "full speed", Instant::now()).await;

    // Fixed rate: 1,000 deliveries/s for 5 s, open model.
    let rate = 1000u64;
    let total = rate * 5;
    let started = Instant::now();
    let mut handles = Vec::with_capacity(total as usize);
    for i in 0..total {
        let scheduled = started + Duration::from_micros(i * 1_000_000 / rate);
        tokio::time::sleep_until(scheduled.into()).await;
        let (client, acknowledged) = (client.clone(), acknowledged.clone());
        let n = next.fetch_add(1, Ordering::Relaxed);
        let url = url_of(n);
        handles.push(tokio::spawn(async move {
            send(&client, &url, n).await;
            acknowledged.fetch_add(1, Ordering::Relaxed);
            scheduled.elapsed()
        }));
    }
    let mut latencies = Vec::with_capacity(handles.len());
    for handle in handles {
        latencies.push(handle.await.unwrap());
    }
    latencies.sort();
    println!(
        "fixed {rate}/s for 5 s: p50 {}  p99 {}  p99.9 {}  max {}",
        ms(percentile(&latencies, 0.5)),
        ms(percentile(&latencies, 0.99)),
        ms(percentile(&latencies, 0.999)),
        ms(*latencies.last().unwrap())
    );
    report_applying(&applying, "1,000/s", Instant::now()).await;

    let stored = cores[0].webhooks.as_ref().unwrap().reader().count().await.unwrap();
    let acknowledged = acknowledged.load(Ordering::Relaxed);
    println!("stored {stored} == acknowledged {acknowledged}: {}", stored as u64 == acknowledged);
    assert_eq!(stored as u64, acknowledged);
}
