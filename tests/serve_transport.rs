//! Transport of `staffroom serve`: TLS with a given certificate, refusal to listen beyond
//! loopback without it, and the header-read time-out against slow clients.

mod common;

use std::io::{Read, Write};
use std::time::{Duration, Instant};

use common::*;

/// `staffroom serve` with a self-signed certificate for `localhost` (kept in `dir`), and a client
/// that trusts it.
fn tls_server(dir: &std::path::Path) -> (Server, reqwest::Client) {
    let certified = rcgen::generate_simple_self_signed(vec!["localhost".into(), "127.0.0.1".into()]).unwrap();
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    std::fs::write(&cert, certified.cert.pem()).unwrap();
    std::fs::write(&key, certified.signing_key.serialize_pem()).unwrap();
    let server = Server::start(ServerOptions {
        args: vec!["--tls-cert".into(), cert.display().to_string(), "--tls-key".into(), key.display().to_string()],
        ..Default::default()
    });
    let trusted = reqwest::Certificate::from_pem(certified.cert.pem().as_bytes()).unwrap();
    (server, reqwest::Client::builder().add_root_certificate(trusted).build().unwrap())
}

#[tokio::test]
async fn serves_https_with_the_given_certificate() {
    let dir = tempfile::tempdir().unwrap();
    let (server, https) = tls_server(dir.path());
    assert!(server.base.starts_with("https://"), "{}", server.base);
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
    let mut stream = std::net::TcpStream::connect(addr_of(&server)).unwrap();
    stream.write_all(b"POST /api/payments/webhooks HTTP/1.1\r\nHost: x\r\n").unwrap();
    let waited = time_until_closed(&mut stream);
    // The first request's head must be whole within 5 s of connecting.
    assert!(waited >= Duration::from_secs(4) && waited < Duration::from_secs(12), "closed after {waited:?}");
}

/// The server's `host:port`.
fn addr_of(server: &Server) -> String {
    server.base.trim_start_matches("http://").to_string()
}

/// Reads until the server closes the connection; how long that took.
fn time_until_closed(stream: &mut std::net::TcpStream) -> Duration {
    stream.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let started = Instant::now();
    let mut buf = Vec::new();
    let _ = stream.read_to_end(&mut buf);
    started.elapsed()
}

#[test]
fn a_connection_that_sends_nothing_is_closed_within_seconds() {
    let server = Server::sandbox();
    let mut stream = std::net::TcpStream::connect(addr_of(&server)).unwrap();
    let waited = time_until_closed(&mut stream);
    assert!(waited >= Duration::from_secs(4) && waited < Duration::from_secs(12), "closed after {waited:?}");
}

#[test]
fn an_idle_keep_alive_connection_is_closed() {
    let server = Server::sandbox();
    let mut stream = std::net::TcpStream::connect(addr_of(&server)).unwrap();
    stream.write_all(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").unwrap();
    let mut head = [0u8; 12];
    stream.read_exact(&mut head).unwrap();
    assert_eq!(&head, b"HTTP/1.1 200");
    let waited = time_until_closed(&mut stream);
    assert!(waited < Duration::from_secs(40), "an idle keep-alive connection stayed open {waited:?}");
}

#[test]
fn an_idle_http2_connection_is_sent_goaway_and_closed() {
    let server = Server::sandbox();
    let mut stream = std::net::TcpStream::connect(addr_of(&server)).unwrap();
    // HTTP/2 with prior knowledge: the preface and an empty SETTINGS frame, then nothing.
    stream.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n").unwrap();
    stream.write_all(&[0, 0, 0, 0x4, 0, 0, 0, 0, 0]).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let started = Instant::now();
    let mut frames = Vec::new();
    let _ = stream.read_to_end(&mut frames);
    let waited = started.elapsed();
    assert!(waited >= Duration::from_secs(4) && waited < Duration::from_secs(12), "closed after {waited:?}");
    assert!(frame_types(&frames).contains(&0x7), "no GOAWAY before the close: {frames:?}");
}

/// The types of the HTTP/2 frames in `bytes`.
fn frame_types(mut bytes: &[u8]) -> Vec<u8> {
    let mut types = Vec::new();
    while bytes.len() >= 9 {
        let length = u32::from_be_bytes([0, bytes[0], bytes[1], bytes[2]]) as usize;
        types.push(bytes[3]);
        bytes = &bytes[(9 + length).min(bytes.len())..];
    }
    types
}

/// 1,100 connections that never send a byte are more than the server's 1,024 places: once they
/// have had a second's grace, the idle ones make room, and a real client is answered well before
/// their own 5 s deadline would have freed a place.
async fn flood_then_ask(server: &Server, https: &reqwest::Client, url: &str) -> Duration {
    staffroom::http::server::raise_open_file_limit();
    let addr = url.split('/').nth(2).unwrap().replace("localhost", "127.0.0.1");
    let mut idle = Vec::new();
    for _ in 0..1_100 {
        idle.push(tokio::net::TcpStream::connect(&addr).await.unwrap());
    }
    let started = Instant::now();
    let health = https.get(url).timeout(Duration::from_secs(5)).send().await;
    let waited = started.elapsed();
    let health = health.unwrap_or_else(|e| panic!("no answer within 5 s while 1,100 idle sockets were open: {e}"));
    assert_eq!(health.status(), 200, "{}", server.base);
    drop(idle);
    waited
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_idle_connections_cannot_shut_out_a_real_client() {
    let server = Server::sandbox();
    let waited = flood_then_ask(&server, &client(), &server.url("/api/health")).await;
    assert!(waited < Duration::from_millis(2_500), "health took {waited:?}");
}

/// The same over TLS: a real client's handshake is not pushed out by the crowd.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_idle_connections_cannot_shut_out_a_real_client_over_tls() {
    let dir = tempfile::tempdir().unwrap();
    let (server, https) = tls_server(dir.path());
    let url = server.url("/api/health").replace("127.0.0.1", "localhost");
    let waited = flood_then_ask(&server, &https, &url).await;
    assert!(waited < Duration::from_millis(2_500), "health took {waited:?}");
}
