//! The team server under a connection flood (run: `cargo bench --bench hardening`): a real
//! `staffroom serve --sandbox` (the release build) while an attacker holds 1,100 sockets that
//! never send a byte (reconnecting each as soon as the server closes it) and asks for 1,100 live
//! event streams with one session's token (retrying every 100 ms when refused). Meanwhile a
//! second client signs in and reads a page of products, 100 times in a row; the figures are that
//! client's latencies, and what the attacker got. Attacker, server and client share the machine.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::io::AsyncReadExt;

mod common;

use common::{ms, percentile};

const IDLE_SOCKETS: usize = 1_100;
const STREAMS: usize = 1_100;
const ROUNDS: usize = 100;

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    staffroom::http::server::raise_open_file_limit();
    let dir = tempfile::tempdir().unwrap();
    let mut server = Command::new(env!("CARGO_BIN_EXE_staffroom"))
        .args(["--data-dir"])
        .arg(dir.path())
        .args(["serve", "--sandbox", "--addr", "127.0.0.1:0"])
        .env("STAFFROOM_SECRET_STORE", "memory")
        .env_remove("STAFFROOM_DATA_DIR")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = BufReader::new(server.stdout.take().unwrap());
    let base = stdout
        .lines()
        .map_while(Result::ok)
        .find_map(|line| line.strip_prefix("listening on ").map(str::to_string))
        .expect("the server started");
    let addr = base.trim_start_matches("http://").to_string();
    let http = reqwest::Client::new();
    let sign_in = || {
        let (http, url) = (http.clone(), format!("{base}/api/auth"));
        async move {
            let body = json!({"email": staffroom::sandbox::DEMO_EMAIL, "password": staffroom::sandbox::DEMO_PASSWORD});
            let answer: Value = http.post(url).json(&body).send().await.unwrap().json().await.unwrap();
            answer["token"].as_str().unwrap().to_string()
        }
    };
    let attacker_token = sign_in().await;

    let stop = Arc::new(tokio::sync::Notify::new());
    let (closed, streams_open, refused) =
        (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let mut attackers = Vec::new();
    for _ in 0..IDLE_SOCKETS {
        let (addr, closed, stop) = (addr.clone(), closed.clone(), stop.clone());
        attackers.push(tokio::spawn(async move {
            loop {
                let Ok(mut socket) = tokio::net::TcpStream::connect(&addr).await else { continue };
                let mut byte = [0u8; 1];
                tokio::select! {
                    _ = socket.read(&mut byte) => closed.fetch_add(1, Ordering::Relaxed),
                    () = stop.notified() => return,
                };
            }
        }));
    }
    for _ in 0..STREAMS {
        let (http, url, token) = (http.clone(), format!("{base}/api/events"), attacker_token.clone());
        let (open, refused, stop) = (streams_open.clone(), refused.clone(), stop.clone());
        attackers.push(tokio::spawn(async move {
            loop {
                let attempt = async {
                    match http.get(&url).bearer_auth(&token).send().await {
                        Ok(mut response) if response.status() == 200 => {
                            open.fetch_add(1, Ordering::Relaxed);
                            while let Ok(Some(_)) = response.chunk().await {}
                            open.fetch_sub(1, Ordering::Relaxed);
                        }
                        _ => {
                            refused.fetch_add(1, Ordering::Relaxed);
                            tokio::time::sleep(Duration::from_millis(100)).await;
                        }
                    }
                };
                tokio::select! {
                    () = attempt => {}
                    () = stop.notified() => return,
                }
            }
        }));
    }
    // Let the flood build up.
    tokio::time::sleep(Duration::from_secs(3)).await;

    let (mut sign_ins, mut pages) = (Vec::new(), Vec::new());
    let mut failures = 0;
    for _ in 0..ROUNDS {
        let started = Instant::now();
        let token = tokio::time::timeout(Duration::from_secs(10), sign_in()).await;
        sign_ins.push(started.elapsed());
        let Ok(token) = token else {
            failures += 1;
            continue;
        };
        let started = Instant::now();
        let page = http.get(format!("{base}/api/payments/products?limit=10")).bearer_auth(&token).send();
        match tokio::time::timeout(Duration::from_secs(10), page).await {
            Ok(Ok(response)) if response.status() == 200 => pages.push(started.elapsed()),
            _ => failures += 1,
        }
    }
    let (open_now, refused_total, closed_total) =
        (streams_open.load(Ordering::Relaxed), refused.load(Ordering::Relaxed), closed.load(Ordering::Relaxed));
    stop.notify_waiters();
    for attacker in attackers {
        attacker.abort();
    }
    let _ = server.kill();

    sign_ins.sort();
    pages.sort();
    println!(
        "Under {IDLE_SOCKETS} idle sockets and {STREAMS} event-stream requests from one session ({} rounds):",
        ROUNDS
    );
    for (what, latencies) in [("sign-in", &sign_ins), ("page of products", &pages)] {
        if latencies.is_empty() {
            println!("  {what:<17} no answer at all");
            continue;
        }
        println!(
            "  {what:<17} p50 {}  p99 {}  max {}",
            ms(percentile(latencies, 0.5)),
            ms(percentile(latencies, 0.99)),
            ms(*latencies.last().unwrap())
        );
    }
    println!("  the second client's requests that failed or took over 10 s: {failures}");
    println!(
        "  attacker: {open_now} streams open at the end, {refused_total} stream requests refused, \
         {closed_total} idle sockets closed by the server"
    );
}
