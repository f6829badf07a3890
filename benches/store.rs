//! The whole store benchmark (run: `cargo bench --bench store`; on PostgreSQL with
//! `STAFFROOM_BENCH_STORE=postgres`).
//!
//! Syncs a store of 50,000 orders and 3,000 customers from the simulator over loopback HTTP,
//! through the real client and its production rate limiter, and prints the requests per resource
//! and the most in any minute (the provider allows 300). Then, over real HTTP with the staff
//! token checked on each request, the latency of the cached lists staff search all day: orders
//! by e-mail, name, receipt number and filters; customers by name or e-mail; and the Overview's
//! summary over 30 and 180 days. Last, the CSV export of every order: time to its first byte,
//! its whole time, and how far the process's memory rose while it ran.

use std::time::{Duration, Instant};

mod common;

use serde_json::Value;
use staffroom::sandbox::lemonsqueezy::{PaymentSimulator, SimulatorOptions};

use common::{ms, percentile};

const ORDERS: u64 = 50_000;
const CUSTOMERS: u64 = 3_000;

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let options =
        SimulatorOptions { orders: ORDERS, customers: 200, order_customers: CUSTOMERS - 200, ..Default::default() };
    let simulator = PaymentSimulator::start(options).await.unwrap();
    let (_dir, core) = common::core_on(&simulator).await;

    let started = Instant::now();
    let report = core.payments.sync_all().await.unwrap();
    let elapsed = started.elapsed();
    println!(
        "full sync: {} orders, {} customers, {} subscriptions, {} products in {} requests, {:.1} s wall; \
         the simulator saw at most {} requests in one minute (limit 300)",
        report.orders_read,
        report.customers_read,
        report.subscriptions,
        report.products,
        report.requests,
        elapsed.as_secs_f64(),
        simulator.max_in_any_window()
    );
    let before = simulator.request_count();
    let started = Instant::now();
    let again = core.payments.sync_all().await.unwrap();
    println!(
        "second sync, nothing new: {} requests ({} orders and {} customers read), {:.1} s",
        simulator.request_count() - before,
        again.orders_read,
        again.customers_read,
        started.elapsed().as_secs_f64()
    );

    let (base, token) = common::serve_signed_in(&core).await;
    let http = reqwest::Client::new();
    let get = |path: String| {
        let (http, token, base) = (http.clone(), token.clone(), base.clone());
        async move {
            let start = Instant::now();
            let response = http.get(format!("{base}{path}")).bearer_auth(&token).send().await.unwrap();
            assert_eq!(response.status(), 200, "{path}");
            let body: Value = response.json().await.unwrap();
            (start.elapsed(), body)
        }
    };

    // What staff would type: e-mails and names of real customers, receipt numbers.
    let (_, customers) = get("/api/payments/customers?limit=100".into()).await;
    let customers: Vec<&Value> = customers["customers"].as_array().unwrap().iter().collect();
    let (_, orders) = get("/api/payments/orders?limit=100&page=37".into()).await;
    let numbers: Vec<i64> =
        orders["orders"].as_array().unwrap().iter().filter_map(|o| o["orderNumber"].as_i64()).collect();
    let term = |n: usize| -> String {
        let c = customers[n % customers.len()];
        match n % 3 {
            0 => c["email"].as_str().unwrap().split('@').next().unwrap().to_string(),
            1 => c["name"].as_str().unwrap().rsplit(' ').next().unwrap().to_string(),
            _ => format!("%23{}", numbers[n % numbers.len()]),
        }
    };
    let cases: Vec<(&str, Box<dyn Fn(usize) -> String>)> = vec![
        ("orders, newest page", Box::new(|n| format!("/api/payments/orders?limit=20&page={}", n % 50 + 1))),
        (
            "orders, search (e-mail, name, #number)",
            Box::new(move |n| format!("/api/payments/orders?limit=20&search={}", term(n))),
        ),
        (
            "orders, status=refunded",
            Box::new(|n| format!("/api/payments/orders?limit=20&status=refunded&page={}", n % 5 + 1)),
        ),
        ("orders, last 30 days", Box::new(|_| format!("/api/payments/orders?limit=20&from={}", days_ago(30)))),
        (
            "customers, search",
            Box::new(|n| {
                format!("/api/payments/customers?limit=20&search={}", ["ada", "müller", "okafor", "example"][n % 4])
            }),
        ),
        ("summary, 30 days", Box::new(|_| format!("/api/payments/summary?from={}", days_ago(30)))),
        ("summary, 180 days", Box::new(|_| format!("/api/payments/summary?from={}", days_ago(180)))),
    ];
    for (label, path) in &cases {
        let mut latencies: Vec<Duration> = Vec::new();
        for n in 0..300 {
            latencies.push(get(path(n)).await.0);
        }
        latencies.sort();
        println!(
            "{label}, over {ORDERS} cached orders: p50 {}, p99 {}",
            ms(percentile(&latencies, 0.5)),
            ms(percentile(&latencies, 0.99))
        );
    }

    // The accountant's export (SPEC section 14): every order, streamed from the cache. Memory is
    // the whole process's resident set (service, simulator and this client, which keeps no
    // chunk), sampled every 5 ms: a flat export grows it no more for 50,000 rows than for a few.
    for (label, query) in [("every order", ""), ("refunded orders", "?status=refunded"), ("every order, again", "")] {
        let before = resident_kib();
        let peak = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(before));
        let sampling = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        let sampler = {
            let (peak, sampling) = (peak.clone(), sampling.clone());
            tokio::spawn(async move {
                while sampling.load(std::sync::atomic::Ordering::Relaxed) {
                    peak.fetch_max(resident_kib(), std::sync::atomic::Ordering::Relaxed);
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
            })
        };
        let started = Instant::now();
        let mut response =
            http.get(format!("{base}/api/payments/orders/export{query}")).bearer_auth(&token).send().await.unwrap();
        assert_eq!(response.status(), 200);
        let mut first_byte = None;
        let (mut bytes, mut lines) = (0usize, 0usize);
        while let Some(chunk) = response.chunk().await.unwrap() {
            first_byte.get_or_insert_with(|| started.elapsed());
            bytes += chunk.len();
            lines += chunk.iter().filter(|b| **b == b'\n').count();
        }
        let whole = started.elapsed();
        sampling.store(false, std::sync::atomic::Ordering::Relaxed);
        sampler.await.unwrap();
        let peak = peak.load(std::sync::atomic::Ordering::Relaxed);
        println!(
            "export, {label}: {} rows, {:.1} MB in {:.2} s; first byte after {}; peak resident {:.1} MiB, {:.1} MiB above the {:.1} MiB before",
            lines.saturating_sub(1),
            bytes as f64 / 1e6,
            whole.as_secs_f64(),
            ms(first_byte.unwrap_or(whole)),
            peak as f64 / 1024.0,
            peak.saturating_sub(before) as f64 / 1024.0,
            before as f64 / 1024.0
        );
    }
}

/// This process's resident set, in KiB (Linux).
fn resident_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// The day `days` ago, as a date.
fn days_ago(days: i64) -> String {
    (chrono::Utc::now() - chrono::Duration::days(days)).format("%Y-%m-%d").to_string()
}
