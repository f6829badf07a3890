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

/// A connection from `source` (a loopback address of its own) to `addr`.
async fn connect_from(source: &str, addr: &str) -> tokio::net::TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(format!("{source}:0").parse().unwrap()).unwrap();
    socket.connect(addr.parse().unwrap()).await.unwrap()
}

/// 1,100 connections from one address, each sending a request head and then trickling its body
/// a byte every 10 s, would hold every place for good if a request in flight were all a place
/// asked. Its address holds an eighth of the places at most, so a real client (from another
/// address) is answered within a second; and every trickling connection is closed: those past
/// its share at once or after a short wait, the others once their body falls below the
/// minimum rate (5 s of grace), long before the body's 30 s deadline.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_trickling_their_bodies_neither_shut_out_a_real_client_nor_stay() {
    use tokio::io::AsyncWriteExt;
    staffroom::http::server::raise_open_file_limit();
    let server = Server::sandbox();
    let addr = server.base.trim_start_matches("http://").to_string();
    let head = format!(
        "POST /api/auth HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{{"
    );
    let started = tokio::time::Instant::now();
    let mut trickling = Vec::new();
    for _ in 0..1_100 {
        let mut stream = connect_from("127.0.0.2", &addr).await;
        // A connection closed at once may refuse the head: it is closed, which is the point.
        let _ = stream.write_all(head.as_bytes()).await;
        trickling.push(tokio::spawn(async move {
            use tokio::io::AsyncReadExt;
            let (mut read, mut write) = stream.split();
            let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
            let mut answer = vec![0u8; 4096];
            loop {
                tokio::select! {
                    got = read.read(&mut answer) => if matches!(got, Ok(0) | Err(_)) { return true },
                    () = tokio::time::sleep(Duration::from_secs(10)) => {
                        if write.write_all(b" ").await.is_err() {
                            return true;
                        }
                    }
                    () = tokio::time::sleep_until(deadline) => return false,
                }
            }
        }));
    }
    let asked = Instant::now();
    let health = client().get(server.url("/api/health")).timeout(Duration::from_secs(5)).send().await;
    let waited = asked.elapsed();
    assert_eq!(health.map(|h| h.status().as_u16()).ok(), Some(200), "no answer while 1,100 trickled");
    assert!(waited < Duration::from_secs(1), "health took {waited:?} while 1,100 connections trickled");
    let mut still_open = 0;
    for connection in trickling {
        if !connection.await.unwrap() {
            still_open += 1;
        }
    }
    assert_eq!(still_open, 0, "trickling connections kept their places past the body's minimum rate");
    assert!(started.elapsed() < Duration::from_secs(25));
}

/// A client that asks for answers and never takes them would keep its request in flight, and its
/// place, for good. Forty answers of the OpenAPI document asked at once (HTTP/1.1 pipelining)
/// fill what the sockets hold; once writes have waited 10 s with the client taking less than the
/// minimum rate, the connection is closed: what arrives is cut short.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_nobody_takes_are_cut_off() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let server = Server::sandbox();
    let addr = server.base.trim_start_matches("http://").to_string();
    let one = client().get(server.url("/api/openapi.json")).send().await.unwrap().bytes().await.unwrap().len();
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut stream = socket.connect(addr.parse().unwrap()).await.unwrap();
    let request = format!("GET /api/openapi.json HTTP/1.1\r\nHost: {addr}\r\n\r\n");
    stream.write_all(request.repeat(40).as_bytes()).await.unwrap();
    tokio::time::sleep(Duration::from_secs(20)).await;
    let mut taken = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut taken)).await.expect("closed");
    assert!(taken.len() < 40 * one, "every answer was kept for a client that took none: {} bytes", taken.len());
}
