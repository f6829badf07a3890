//! The team server under a connection flood (run: `cargo bench --bench hardening`): a real
//! `staffroom serve --sandbox` (the release build) while an attacker holds 1,100 sockets that
//! never send a byte (reconnecting each as soon as the server closes it) and asks for 1,100 live
//! event streams with one session's token (retrying every 100 ms when refused). Meanwhile a
//! second client signs in and reads a page of products, 100 times in a row; the figures are that
//! client's latencies (first with no attack, then under it), and what the attacker got.
//! Attacker, server and client share the machine.

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
    let http = reqwest::Client::new();
    let quiet = rounds(&http, &base).await;
    let attacker_token = sign_in(&http, &base).await.expect("the attacker signs in");
    let attack = Attack::start(&base, &attacker_token);
    // Let the flood build up.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let under_attack = rounds(&http, &base).await;
    let (open_now, refused, closed) = attack.stop();
    let _ = server.kill();

    println!("The second client, {ROUNDS} rounds of a sign-in and a page of products:");
    quiet.print("no attack");
    under_attack
        .print(&format!("under {IDLE_SOCKETS} idle sockets and {STREAMS} event-stream requests from one session"));
    println!(
        "The attacker: {open_now} streams open at the end, {refused} stream requests refused, \
         {closed} idle sockets closed by the server"
    );
}

/// The attacker's tasks, and what they got.
struct Attack {
    tasks: Vec<tokio::task::JoinHandle<()>>,
    streams_open: Arc<AtomicU64>,
    refused: Arc<AtomicU64>,
    closed: Arc<AtomicU64>,
}

impl Attack {
    /// [`IDLE_SOCKETS`] sockets that never send a byte (each reconnected when the server closes
    /// it) and [`STREAMS`] event-stream requests with one token (each retried 100 ms after a
    /// refusal, or as soon as its stream ends).
    fn start(base: &str, token: &str) -> Attack {
        let addr = base.trim_start_matches("http://").to_string();
        let http = reqwest::Client::new();
        let (streams_open, refused, closed) = (Arc::default(), Arc::default(), Arc::<AtomicU64>::default());
        let mut tasks = Vec::new();
        for _ in 0..IDLE_SOCKETS {
            let (addr, closed) = (addr.clone(), closed.clone());
            tasks.push(tokio::spawn(async move {
                loop {
                    let Ok(mut socket) = tokio::net::TcpStream::connect(&addr).await else { continue };
                    let _ = socket.read(&mut [0u8; 1]).await;
                    closed.fetch_add(1, Ordering::Relaxed);
                }
            }));
        }
        for _ in 0..STREAMS {
            let (http, url, token) = (http.clone(), format!("{base}/api/events"), token.to_string());
            let (open, refused): (Arc<AtomicU64>, Arc<AtomicU64>) = (Arc::clone(&streams_open), Arc::clone(&refused));
            tasks.push(tokio::spawn(async move {
                loop {
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
                }
            }));
        }
        Attack { tasks, streams_open, refused, closed }
    }

    /// Stops every task; (streams open, stream requests refused, idle sockets closed).
    fn stop(self) -> (u64, u64, u64) {
        for task in &self.tasks {
            task.abort();
        }
        let read = |n: &AtomicU64| n.load(Ordering::Relaxed);
        (read(&self.streams_open), read(&self.refused), read(&self.closed))
    }
}

async fn sign_in(http: &reqwest::Client, base: &str) -> Option<String> {
    let credentials = json!({"email": staffroom::sandbox::DEMO_EMAIL, "password": staffroom::sandbox::DEMO_PASSWORD});
    let answer = http.post(format!("{base}/api/auth")).json(&credentials).send().await.ok()?;
    let body: Value = answer.json().await.ok()?;
    body["token"].as_str().map(str::to_string)
}

/// One client's latencies over [`ROUNDS`] rounds, and how many requests failed.
struct Rounds {
    sign_ins: Vec<Duration>,
    pages: Vec<Duration>,
    failures: usize,
}

/// [`ROUNDS`] times: a sign-in, then a page of products with its token; each may take 10 s.
async fn rounds(http: &reqwest::Client, base: &str) -> Rounds {
    const LIMIT: Duration = Duration::from_secs(10);
    let mut measured = Rounds { sign_ins: Vec::new(), pages: Vec::new(), failures: 0 };
    for _ in 0..ROUNDS {
        let started = Instant::now();
        let Ok(Some(token)) = tokio::time::timeout(LIMIT, sign_in(http, base)).await else {
            measured.failures += 1;
            continue;
        };
        measured.sign_ins.push(started.elapsed());
        let started = Instant::now();
        let page = http.get(format!("{base}/api/payments/products?limit=10")).bearer_auth(&token).send();
        match tokio::time::timeout(LIMIT, page).await {
            Ok(Ok(response)) if response.status() == 200 => measured.pages.push(started.elapsed()),
            _ => measured.failures += 1,
        }
    }
    measured.sign_ins.sort();
    measured.pages.sort();
    measured
}

impl Rounds {
    fn print(&self, when: &str) {
        println!("  {when}:");
        for (what, latencies) in [("sign-in", &self.sign_ins), ("page of products", &self.pages)] {
            match latencies.last() {
                Some(max) => println!(
                    "    {what:<17} p50 {}  p99 {}  max {}",
                    ms(percentile(latencies, 0.5)),
                    ms(percentile(latencies, 0.99)),
                    ms(*max)
                ),
                None => println!("    {what:<17} no answer at all"),
            }
        }
        println!("    failed or over 10 s: {}", self.failures);
    }
}
