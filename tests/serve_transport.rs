//! Transport of `staffroom serve`: TLS with a given certificate, refusal to listen beyond
//! loopback without it, and the header-read time-out against slow clients.

mod common;

use std::io::{Read, Write};
use std::time::{Duration, Instant};

use common::*;

#[tokio::test]
async fn serves_https_with_the_given_certificate() {
    let dir = tempfile::tempdir().unwrap();
    let certified = rcgen::generate_simple_self_signed(vec!["localhost".into(), "127.0.0.1".into()]).unwrap();
    let (cert, key) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    std::fs::write(&cert, certified.cert.pem()).unwrap();
    std::fs::write(&key, certified.signing_key.serialize_pem()).unwrap();
    let server = Server::start(ServerOptions {
        args: vec!["--tls-cert".into(), cert.display().to_string(), "--tls-key".into(), key.display().to_string()],
        ..Default::default()
    });
    assert!(server.base.starts_with("https://"), "{}", server.base);
    let trusted = reqwest::Certificate::from_pem(certified.cert.pem().as_bytes()).unwrap();
    let https = reqwest::Client::builder().add_root_certificate(trusted).build().unwrap();
    let url = server.url("/api/health").replace("127.0.0.1", "localhost");
    let health: serde_json::Value = https.get(&url).send().await.unwrap().json().await.unwrap();
    assert_eq!(health["status"], "ok");
    // Plain HTTP to the TLS port gets nowhere.
    let plain = client().get(server.url("/api/health").replace("https://", "http://")).send().await;
    assert!(plain.is_err() || !plain.unwrap().status().is_success());
}

#[test]
fn refuses_to_listen_beyond_loopback_without_tls() {
    let dir = tempfile::tempdir().unwrap();
    let out = command(dir.path()).args(["serve", "--addr", "0.0.0.0:0"]).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("without TLS"), "{err}");
}

#[test]
fn a_client_that_never_finishes_its_headers_is_cut_off() {
    let server = Server::sandbox();
    let addr = server.base.trim_start_matches("http://").to_string();
    let mut stream = std::net::TcpStream::connect(&addr).unwrap();
    stream.write_all(b"POST /api/payments/webhooks HTTP/1.1\r\nHost: x\r\n").unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let started = Instant::now();
    let mut buf = Vec::new();
    let _ = stream.read_to_end(&mut buf);
    let waited = started.elapsed();
    assert!(waited >= Duration::from_secs(9) && waited < Duration::from_secs(20), "closed after {waited:?}");
}
