//! Live events fan-out benchmark over real HTTP on loopback (run: `cargo bench --bench events`).
//! On PostgreSQL: `STAFFROOM_BENCH_STORE=postgres`, with `STAFFROOM_BENCH_REPLICAS=2` for two replicas.
//!
//! 200 staff clients hold `GET /api/events` open while signed webhook deliveries arrive at a fixed
//! rate. For every client and every delivery, the latency is counted from the moment the
//! delivery was sent to the moment that client read its `received` event: it includes the
//! delivery's durable store, the event's own store and the stream. The server and the clients
//! share the machine.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde_json::Value;
use staffroom::auth::LoginInput;
use staffroom::secrets::Secret;

mod common;

use common::{delivery, ms, percentile, receiving_cores, store_name};

const CLIENTS: usize = 200;
const DELIVERIES: u64 = 100;
const RATE: u64 = 50;

/// One client: reads the stream until it has every delivery's `received` event, and returns
/// when it read each (by resource id).
async fn listen(
    client: reqwest::Client,
    url: String,
    token: String,
    ready: tokio::sync::mpsc::Sender<()>,
) -> HashMap<u64, Instant> {
    let mut response = client.get(url).bearer_auth(token).send().await.unwrap();
    assert_eq!(response.status(), 200);
    ready.send(()).await.unwrap();
    let mut seen = HashMap::new();
    let mut buffer = String::new();
    while (seen.len() as u64) < DELIVERIES {
        let chunk = response.chunk().await.unwrap().expect("the stream ended early");
        let now = Instant::now();
        buffer.push_str(std::str::from_utf8(&chunk).unwrap());
        while let Some(end) = buffer.find("\n\n") {
            let block: String = buffer.drain(..end + 2).collect();
            let Some(data) = block.lines().find_map(|line| line.strip_prefix("data: ")) else { continue };
            let data: Value = serde_json::from_str(data).unwrap();
            if data["kind"] == "received" {
                seen.insert(data["resourceId"].as_str().unwrap().parse().unwrap(), now);
            }
        }
    }
    seen
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let (_dir, cores) = receiving_cores().await;
    let core = &cores[0];
    let password = "fan-out bench passphrase 7c41";
    core.auth.create_first_admin("bench@example.com".into(), "Bench".into(), Secret::new(password)).await.unwrap();
    let login = LoginInput { email: "bench@example.com".into(), password: Secret::new(password) };
    let token = core.auth.login(login, "127.0.0.1").await.map_err(|e| format!("{e:?}")).unwrap().token;

    // Each replica on a listener of its own; the clients spread over them, the deliveries all go
    // to the first, so on two replicas half the clients hear of them across the database.
    let mut bases = Vec::new();
    for core in &cores {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        bases.push(format!("http://{}", listener.local_addr().unwrap()));
        tokio::spawn(staffroom::http::serve(listener, core.clone(), std::future::pending()));
    }
    let base = bases[0].clone();
    println!(
        "store: {}; machine: {} cores; servers and clients share them",
        store_name(),
        std::thread::available_parallelism().unwrap()
    );

    let (ready, mut connected) = tokio::sync::mpsc::channel(CLIENTS);
    let mut clients = Vec::with_capacity(CLIENTS);
    for n in 0..CLIENTS {
        // A client of its own for each listener: one connection each, as 200 desktops would have.
        let client = reqwest::Client::builder().http1_only().build().unwrap();
        let url = format!("{}/api/events", bases[n % bases.len()]);
        clients.push(tokio::spawn(listen(client, url, token.clone(), ready.clone())));
    }
    for _ in 0..CLIENTS {
        connected.recv().await.unwrap();
    }
    // The streams subscribe just after their headers go out.
    tokio::time::sleep(Duration::from_millis(500)).await;

    let sender = reqwest::Client::new();
    let url = format!("{base}/api/payments/webhooks");
    let started = Instant::now();
    let mut sent_at = HashMap::new();
    for n in 0..DELIVERIES {
        let scheduled = started + Duration::from_micros(n * 1_000_000 / RATE);
        tokio::time::sleep_until(scheduled.into()).await;
        let (body, signature) = delivery("fanout", n);
        sent_at.insert(n, Instant::now());
        let response = sender
            .post(&url)
            .header("content-type", "application/json")
            .header("x-signature", signature)
            .body(body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
    }

    let mut latencies = Vec::with_capacity(CLIENTS * DELIVERIES as usize);
    for client in clients {
        let seen = tokio::time::timeout(Duration::from_secs(60), client)
            .await
            .expect("every client heard every event")
            .unwrap();
        latencies.extend(seen.iter().map(|(n, at)| at.duration_since(sent_at[n])));
    }
    latencies.sort();
    println!(
        "{CLIENTS} clients, {DELIVERIES} deliveries at {RATE}/s: {} events read; delivery sent to event read p50 {}  p99 {}  max {}",
        latencies.len(),
        ms(percentile(&latencies, 0.5)),
        ms(percentile(&latencies, 0.99)),
        ms(*latencies.last().unwrap())
    );
}
