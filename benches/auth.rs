//! Sign-in and token benchmarks over real HTTP on loopback (run: `cargo bench --bench auth`).
//!
//! Prints: login latency p50/p99 and logins/s under 8 concurrent clients; `GET /api/health` p99
//! alone and while those logins run; token verifications/s (signature and claims alone, and the
//! whole bearer check with its session lookup over HTTP).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use staffroom::config::Config;
use staffroom::secrets::SecretBackend;

const CLIENTS: usize = 8;
const RUN_FOR: Duration = Duration::from_secs(6);

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

/// Hits `/api/health` every 10 ms until `stop`, returning the sorted latencies.
async fn probe_health(client: reqwest::Client, url: String, stop: Arc<AtomicBool>) -> Vec<Duration> {
    let mut latencies = Vec::new();
    while !stop.load(Ordering::Relaxed) {
        let start = Instant::now();
        let status = client.get(&url).send().await.unwrap().status();
        assert_eq!(status, 200);
        latencies.push(start.elapsed());
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    latencies.sort();
    latencies
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = Config::new(dir.path());
    config.sandbox = true;
    config.secret_backend = SecretBackend::Memory;
    let hash_slots = config.max_concurrent_hashes;
    let core = staffroom::open(config).await.unwrap();
    staffroom::sandbox::ensure_demo_account(&core).await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(staffroom::http::serve(listener, core.clone(), std::future::pending()));
    let client = reqwest::Client::new();
    let health_url = format!("{base}/api/health");
    println!(
        "machine: {} cores; concurrent argon2 hashes allowed: {hash_slots}",
        std::thread::available_parallelism().unwrap()
    );

    // Health alone.
    let stop = Arc::new(AtomicBool::new(false));
    let probe = tokio::spawn(probe_health(client.clone(), health_url.clone(), stop.clone()));
    tokio::time::sleep(Duration::from_secs(2)).await;
    stop.store(true, Ordering::Relaxed);
    let idle = probe.await.unwrap();
    println!(
        "health alone:          p50 {}  p99 {}  ({} probes)",
        ms(percentile(&idle, 0.5)),
        ms(percentile(&idle, 0.99)),
        idle.len()
    );

    // Logins from 8 clients, with health probed meanwhile.
    let stop = Arc::new(AtomicBool::new(false));
    let probe = tokio::spawn(probe_health(client.clone(), health_url.clone(), stop.clone()));
    let body = json!({ "email": staffroom::sandbox::DEMO_EMAIL, "password": staffroom::sandbox::DEMO_PASSWORD });
    let started = Instant::now();
    let mut workers = Vec::new();
    for _ in 0..CLIENTS {
        let (client, url, body) = (client.clone(), format!("{base}/api/auth"), body.clone());
        workers.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            while started.elapsed() < RUN_FOR {
                let start = Instant::now();
                let status = client.post(&url).json(&body).send().await.unwrap().status();
                assert_eq!(status, 200);
                latencies.push(start.elapsed());
            }
            latencies
        }));
    }
    let mut logins = Vec::new();
    for worker in workers {
        logins.extend(worker.await.unwrap());
    }
    let elapsed = started.elapsed();
    stop.store(true, Ordering::Relaxed);
    let busy = probe.await.unwrap();
    logins.sort();
    println!(
        "login, {CLIENTS} clients:      p50 {}  p99 {}  {:.1} logins/s  ({} logins in {:.1} s)",
        ms(percentile(&logins, 0.5)),
        ms(percentile(&logins, 0.99)),
        logins.len() as f64 / elapsed.as_secs_f64(),
        logins.len(),
        elapsed.as_secs_f64()
    );
    println!(
        "health during logins:  p50 {}  p99 {}  ({} probes)",
        ms(percentile(&busy, 0.5)),
        ms(percentile(&busy, 0.99)),
        busy.len()
    );

    // Token verification alone (signature, algorithm, typ, claims).
    let token = client
        .post(format!("{base}/api/auth"))
        .json(&body)
        .send()
        .await
        .unwrap()
        .json::<serde_json::Value>()
        .await
        .unwrap()["token"]
        .as_str()
        .unwrap()
        .to_string();
    let keys = staffroom::auth::TokenKeys::from_secret(&core.secrets.get("jwt_key").unwrap().unwrap()).unwrap();
    let n = 200_000;
    let start = Instant::now();
    for _ in 0..n {
        std::hint::black_box(keys.verify(std::hint::black_box(&token)).unwrap());
    }
    let per_sec = n as f64 / start.elapsed().as_secs_f64();
    println!("token verify (JWT only, 1 thread): {per_sec:.0} verifications/s");

    // The whole bearer check (JWT + live-session lookup in SQLite) over HTTP.
    let started = Instant::now();
    let mut workers = Vec::new();
    for _ in 0..CLIENTS {
        let (client, url, token) = (client.clone(), format!("{base}/api/auth/me"), token.clone());
        workers.push(tokio::spawn(async move {
            let mut count = 0u64;
            while started.elapsed() < Duration::from_secs(4) {
                let status = client.get(&url).bearer_auth(&token).send().await.unwrap().status();
                assert_eq!(status, 200);
                count += 1;
            }
            count
        }));
    }
    let mut total = 0;
    for worker in workers {
        total += worker.await.unwrap();
    }
    println!(
        "authenticated GET /api/auth/me, {CLIENTS} clients: {:.0} requests/s",
        total as f64 / started.elapsed().as_secs_f64()
    );
}
