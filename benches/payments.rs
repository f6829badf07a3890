//! Payment cache benchmark (run: `cargo bench --bench payments`; on PostgreSQL with
//! `STAFFROOM_BENCH_STORE=postgres`).
//!
//! Prints a full sync of 10,000 subscriptions from the simulator over loopback HTTP through the
//! real client and its production rate limiter (requests made, wall time, rows/s), then the
//! latency of `GET /api/payments/subscriptions?limit=100` pages served from the cache (real HTTP,
//! staff token checked on each request).

use std::time::Instant;

mod common;

use staffroom::sandbox::lemonsqueezy::{PaymentSimulator, SimulatorOptions};

use common::percentile;

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let simulator =
        PaymentSimulator::start(SimulatorOptions { subscriptions: 10_000, customers: 2_000, ..Default::default() })
            .await
            .unwrap();
    let (_dir, core) = common::core_on(&simulator).await;

    let started = Instant::now();
    let (rows, pages) = core.payments.sync_subscriptions().await.unwrap();
    let elapsed = started.elapsed();
    println!(
        "full sync: {rows} subscriptions, {pages} requests, {:.1} s wall, {:.0} rows/s (limiter: 240/min, bursts of 50)",
        elapsed.as_secs_f64(),
        rows as f64 / elapsed.as_secs_f64()
    );
    println!(
        "simulator saw {} requests, at most {} in one minute",
        simulator.request_count(),
        simulator.max_in_any_window()
    );

    let (base, token) = common::serve_signed_in(&core).await;
    let http = reqwest::Client::new();
    for (label, filter) in
        [("no filter", ""), ("status=cancelled", "&status=cancelled"), ("customerId", "&customerId=1007")]
    {
        let mut latencies = Vec::new();
        for n in 0..500u32 {
            let page = n % 100 + 1;
            let url = format!("{base}/api/payments/subscriptions?limit=100&page={page}{filter}");
            let start = Instant::now();
            let response = http.get(&url).bearer_auth(&token).send().await.unwrap();
            assert_eq!(response.status(), 200);
            let _ = response.bytes().await.unwrap();
            latencies.push(start.elapsed());
        }
        latencies.sort();
        println!(
            "cached page of 100 out of 10,000 ({label}): p50 {:.2} ms, p99 {:.2} ms",
            percentile(&latencies, 0.5).as_secs_f64() * 1000.0,
            percentile(&latencies, 0.99).as_secs_f64() * 1000.0
        );
    }
}
