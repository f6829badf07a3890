//! Serving a router: optional TLS (rustls), a cap on connections served at once and a share of
//! them per client address, deadlines and rates that keep a slow or idle connection from holding
//! a place, and a graceful shutdown that finishes requests in flight. Anything but loopback
//! needs TLS.
//!
//! A place is held from accept to close, so every connection must keep a request in flight to
//! keep its place: the first within [`FIRST_REQUEST_TIMEOUT`] of connecting (TLS handshake
//! included), later ones within [`IDLE_TIMEOUT`] of the last answer; and when every place (or
//! every place of its address, [`places`](crate::places)) is taken, the idle ones close at once
//! to make room. A request in flight must move: its head within [`HEADER_READ_TIMEOUT`], its body
//! within [`crate::BODY_READ_TIMEOUT`] and at [`pace::MIN_RATE`](crate::pace::MIN_RATE), its
//! answer taken at that rate too, and all of it within [`REQUEST_DEADLINE`] (event streams,
//! which last as long as their session, excepted). HTTP/2 connections are also pinged, so a peer
//! that vanished is noticed.

use std::future::Future as _;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use axum::Router;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use hyper_util::server::graceful::GracefulConnection;
use hyper_util::service::TowerToHyperService;
use rustls_pki_types::pem::PemObject as _;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use tokio::net::TcpListener;
use tokio::sync::{watch, Notify, Semaphore};
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::TlsAcceptor;
use tower::ServiceExt as _;

use crate::pace::{BodyPace, Paced};
use crate::places::{AddressPlace, AddressPlaces};
use staffroom_core::error::{Error, ErrorCode, Result};

/// How long a client may take to send a request's headers once it has begun them.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a new connection may take to send its first whole request head (or, with TLS, to
/// finish the handshake and then send it).
pub const FIRST_REQUEST_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a connection may stay open with no request in flight (HTTP/1 keep-alive, HTTP/2).
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(30);
/// How often an HTTP/2 connection is pinged, and how long the answer may take.
const H2_PING_INTERVAL: Duration = Duration::from_secs(20);
const H2_PING_TIMEOUT: Duration = Duration::from_secs(10);
/// Requests one HTTP/2 connection may have in flight at once.
const H2_MAX_STREAMS: u32 = 64;
/// How often a connection waiting for a place asks the idle ones again to make room.
const CROWDED_AGAIN: Duration = Duration::from_millis(100);
/// How long a connection may sit idle before it must make room when the server is crowded: a
/// newcomer gets this long to start (a TLS handshake takes a round trip or two), so that a flood
/// of fresh connections cannot push out every real client mid-handshake.
const CROWDED_GRACE: Duration = Duration::from_secs(1);
/// How long an idle connection being closed may take to say goodbye.
const IDLE_CLOSE_GRACE: Duration = Duration::from_secs(1);
/// How long a shutdown waits for requests in flight.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(20);
/// Connections served at once; more wait in the listen queue (a flood of connections cannot
/// take every file descriptor), while the idle ones are closed to make room for them.
pub const MAX_CONNECTIONS: usize = 1024;
/// Of those, the most one client address holds: an eighth, so that one client leaves seven
/// eighths to everyone else (a team's office behind one address needs a few dozen).
pub const PER_ADDRESS: usize = MAX_CONNECTIONS / 8;
/// How long a connection from an address holding its share waits for one of its own to make room.
const ADDRESS_WAIT: Duration = Duration::from_secs(2);
/// The longest a request may take from its head to the end of its answer (an event stream's
/// answer excepted: it lasts as long as its session).
pub const REQUEST_DEADLINE: Duration = Duration::from_secs(300);

/// How many connections the server serves, and how many of them one address may hold.
#[derive(Debug, Clone)]
pub struct ConnectionLimits {
    pub places: usize,
    pub per_address: usize,
    /// Reverse proxies (`--trusted-proxy`): their connections carry many clients and are not
    /// held to an address's share.
    pub trusted_proxies: Vec<ipnet::IpNet>,
}

impl ConnectionLimits {
    /// The server's limits, behind the reverse proxies `trusted_proxies` names.
    pub fn behind(trusted_proxies: &[ipnet::IpNet]) -> ConnectionLimits {
        ConnectionLimits { trusted_proxies: trusted_proxies.to_vec(), ..ConnectionLimits::default() }
    }
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        ConnectionLimits { places: MAX_CONNECTIONS, per_address: PER_ADDRESS, trusted_proxies: Vec::new() }
    }
}

/// A certificate chain and its private key, as PEM files.
#[derive(Debug, Clone)]
pub struct TlsFiles {
    pub cert: PathBuf,
    pub key: PathBuf,
}

/// Loads a rustls server configuration from PEM files.
pub fn load_tls(files: &TlsFiles) -> Result<Arc<ServerConfig>> {
    let bad = |path: &Path, e: &dyn std::fmt::Display| {
        Error::new(ErrorCode::InvalidRequest, format!("cannot read {}: {e}", path.display()))
    };
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(&files.cert)
        .map_err(|e| bad(&files.cert, &e))?
        .collect::<std::result::Result<_, _>>()
        .map_err(|e| bad(&files.cert, &e))?;
    if certs.is_empty() {
        return Err(bad(&files.cert, &"no certificate in the file"));
    }
    let key = PrivateKeyDer::from_pem_file(&files.key).map_err(|e| bad(&files.key, &e))?;
    let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| Error::internal("tls", e))?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .map_err(|e| Error::new(ErrorCode::InvalidRequest, format!("the TLS certificate and key do not fit: {e}")))?;
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

/// Raises this process's limit of open files as far as it may go (up to 65,536): every
/// connection place is a file descriptor, and a session's usual 1,024 would run out before the
/// places do. Where the hard limit is unlimited (macOS), 10,240 is the most asked for.
#[cfg(unix)]
pub fn raise_open_file_limit() {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit and setrlimit only read and write the struct passed to them.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return;
        }
        for wanted in [limit.rlim_max.min(65_536), limit.rlim_max.min(10_240)] {
            if wanted <= limit.rlim_cur {
                return;
            }
            let raised = libc::rlimit { rlim_cur: wanted, rlim_max: limit.rlim_max };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                return;
            }
        }
        tracing::warn!(limit = limit.rlim_cur, "could not raise the limit of open files");
    }
}

/// Elsewhere the limit is left as it is.
#[cfg(not(unix))]
pub fn raise_open_file_limit() {}

/// Refuses to listen beyond loopback without TLS: tokens and webhook bodies must not cross a
/// network in clear text.
pub fn check_bind(addr: SocketAddr, tls: bool) -> Result<()> {
    if addr.ip().is_loopback() || tls {
        Ok(())
    } else {
        Err(Error::new(
            ErrorCode::InvalidRequest,
            format!(
                "refusing to listen on {addr} without TLS: give --tls-cert and --tls-key, or listen on 127.0.0.1 \
                 and put a tunnel or reverse proxy in front"
            ),
        ))
    }
}

/// Serves `router` on `listener` within `limits` until `shutdown` resolves, then waits for
/// requests in flight.
pub async fn serve_router(
    listener: TcpListener,
    router: Router,
    tls: Option<Arc<ServerConfig>>,
    limits: ConnectionLimits,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let max_connections = limits.places;
    let acceptor = tls.map(TlsAcceptor::from);
    let mut builder = Builder::new(TokioExecutor::new());
    builder.http1().timer(TokioTimer::new()).header_read_timeout(HEADER_READ_TIMEOUT);
    builder
        .http2()
        .timer(TokioTimer::new())
        .keep_alive_interval(H2_PING_INTERVAL)
        .keep_alive_timeout(H2_PING_TIMEOUT)
        .max_concurrent_streams(H2_MAX_STREAMS);
    let builder = Arc::new(builder);
    let places = Arc::new(Semaphore::new(max_connections));
    let addresses = AddressPlaces::new(limits.per_address, limits.trusted_proxies);
    let server = ServerSignals { crowded: Arc::new(Notify::new()), stopping: watch::channel(false).0 };
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(pair) => pair,
                Err(err) => {
                    // Out of file descriptors and the like: the idle connections give theirs
                    // back, and the loop waits a little rather than spin.
                    tracing::warn!(%err, "accept failed");
                    server.crowded.notify_waiters();
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = &mut shutdown => break,
        };
        let permit = loop {
            // Every place is taken and someone is waiting: the connections with nothing in flight
            // make room. Asked again now and then, as one accepted a moment ago may not listen yet.
            if let Ok(permit) = places.clone().try_acquire_owned() {
                break Some(permit);
            }
            server.crowded.notify_waiters();
            tokio::select! {
                permit = places.clone().acquire_owned() => break Some(permit.expect("the semaphore is never closed")),
                () = tokio::time::sleep(CROWDED_AGAIN) => {}
                _ = &mut shutdown => break None,
            }
        };
        let Some(permit) = permit else { break };
        let _ = stream.set_nodelay(true);
        let (busy, watched) = watch::channel(Busy::default());
        let service = TowerToHyperService::new(tracked_service(router.clone(), peer, Arc::new(busy)));
        let (acceptor, builder, signals) = (acceptor.clone(), builder.clone(), server.clone());
        let place = addresses.take(peer.ip());
        let addresses = addresses.clone();
        tokio::spawn(async move {
            // An address that holds its share waits for one of its own to make room, or goes.
            let place = match place {
                Some(place) => place,
                None => match addresses.wait_for(peer.ip(), ADDRESS_WAIT).await {
                    Some(place) => place,
                    None => return tracing::debug!(%peer, "closed: its address holds its share of the places"),
                },
            };
            let idle = IdleWatch {
                accepted: tokio::time::Instant::now(),
                busy: watched,
                signals,
                address_crowded: place.crowded.clone(),
            };
            serve_connection(stream, peer, acceptor, builder, service, idle, (permit, place)).await
        });
    }
    drop(listener);
    server.stopping.send_replace(true);
    let all = u32::try_from(max_connections).unwrap_or(u32::MAX);
    if tokio::time::timeout(SHUTDOWN_GRACE, places.acquire_many(all)).await.is_err() {
        tracing::warn!("some requests were still running when the shutdown grace period ended");
    }
    Ok(())
}

/// Serves one connection (after its TLS handshake, if any) until it ends or is closed; its place
/// is given back then.
async fn serve_connection<S>(
    stream: tokio::net::TcpStream,
    peer: SocketAddr,
    acceptor: Option<TlsAcceptor>,
    builder: Arc<Builder<TokioExecutor>>,
    service: S,
    mut idle: IdleWatch,
    _places: (tokio::sync::OwnedSemaphorePermit, AddressPlace),
) where
    S: hyper::service::Service<hyper::Request<hyper::body::Incoming>, Response = axum::response::Response>
        + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
    S::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    // Every answer must be taken at the minimum rate, over TLS or not.
    let stream = Paced::new(stream);
    let Some(acceptor) = acceptor else {
        let conn = builder.serve_connection_with_upgrades(TokioIo::new(stream), service);
        return idle.drive(conn, peer).await;
    };
    // The handshake counts against the first request's deadline, and gives way to a crowd once
    // it has had its grace.
    let handshake = tokio::time::timeout_at(idle.accepted + FIRST_REQUEST_TIMEOUT, acceptor.accept(stream));
    tokio::pin!(handshake);
    let stream = loop {
        tokio::select! {
            done = &mut handshake => match done {
                Ok(Ok(stream)) => break stream,
                Ok(Err(err)) => return tracing::debug!(%err, %peer, "TLS handshake failed"),
                Err(_) => return tracing::debug!(%peer, "TLS handshake timed out"),
            },
            () = crowded(&idle.signals, &idle.address_crowded) => {
                if idle.accepted.elapsed() >= CROWDED_GRACE {
                    return;
                }
            }
        }
    };
    let conn = builder.serve_connection_with_upgrades(TokioIo::new(stream), service);
    idle.drive(conn, peer).await;
}

/// What every connection hears from the server.
#[derive(Clone)]
struct ServerSignals {
    /// Every place is taken: idle connections close.
    crowded: Arc<Notify>,
    /// The server is shutting down: connections finish what is in flight, then close.
    stopping: watch::Sender<bool>,
}

/// A connection's requests: how many are in flight (until their answer's body ends), and how
/// many have begun in all.
#[derive(Debug, Default, Clone, Copy)]
struct Busy {
    in_flight: usize,
    begun: u64,
}

/// The router as one connection's service: each request is counted in flight from the moment
/// its head has arrived until its answer's body has been sent or dropped; its body must arrive
/// in time and at pace, and its answer end by [`REQUEST_DEADLINE`].
fn tracked_service(
    router: Router,
    peer: SocketAddr,
    busy: Arc<watch::Sender<Busy>>,
) -> impl tower::Service<
    hyper::Request<hyper::body::Incoming>,
    Response = axum::response::Response,
    Error = std::convert::Infallible,
    Future = impl Send,
> + Clone {
    tower::service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
        let in_flight = InFlight::begin(busy.clone());
        let head = tokio::time::Instant::now();
        let mut request = request.map(|body| Body::new(BodyWithDeadline::new(body, head)));
        request.extensions_mut().insert(axum::extract::ConnectInfo(peer));
        let router = router.clone();
        async move {
            let response = router.oneshot(request).await?;
            let is_stream = response
                .headers()
                .get(axum::http::header::CONTENT_TYPE)
                .is_some_and(|t| t.as_bytes().starts_with(b"text/event-stream"));
            let deadline = (!is_stream).then(|| Box::pin(tokio::time::sleep_until(head + REQUEST_DEADLINE)));
            Ok(response.map(|body| Body::new(TrackedBody { body, deadline, _in_flight: in_flight })))
        }
    })
}

/// One request in flight, until dropped.
struct InFlight(Arc<watch::Sender<Busy>>);

impl InFlight {
    fn begin(busy: Arc<watch::Sender<Busy>>) -> InFlight {
        busy.send_modify(|b| {
            b.in_flight += 1;
            b.begun += 1;
        });
        InFlight(busy)
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.send_modify(|b| b.in_flight -= 1);
    }
}

/// An answer's body that keeps its request counted in flight while it is being sent (an event
/// stream is in flight for as long as it is open), and ends it, failed, at its deadline.
struct TrackedBody {
    body: Body,
    /// The request's [`REQUEST_DEADLINE`]; none for an event stream.
    deadline: Option<Pin<Box<tokio::time::Sleep>>>,
    _in_flight: InFlight,
}

/// The error of an answer not taken by its request's deadline.
#[derive(Debug)]
struct AnswerTooLate;

impl std::fmt::Display for AnswerTooLate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the request and its answer took more than {} s", REQUEST_DEADLINE.as_secs())
    }
}

impl std::error::Error for AnswerTooLate {}

impl http_body::Body for TrackedBody {
    type Data = <Body as http_body::Body>::Data;
    type Error = <Body as http_body::Body>::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<std::result::Result<http_body::Frame<Self::Data>, Self::Error>>> {
        let frame = Pin::new(&mut self.body).poll_frame(cx);
        if frame.is_pending() && self.deadline.as_mut().is_some_and(|d| d.as_mut().poll(cx).is_ready()) {
            return Poll::Ready(Some(Err(axum::Error::new(AnswerTooLate))));
        }
        frame
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

/// A request's body, which must arrive whole within [`crate::BODY_READ_TIMEOUT`] of its head,
/// and at [`pace::MIN_RATE`](crate::pace::MIN_RATE) after a short grace: a client trickling a
/// byte now and then would otherwise keep its request, and its connection's place, in flight.
struct BodyWithDeadline {
    body: hyper::body::Incoming,
    deadline: Pin<Box<tokio::time::Sleep>>,
    pace: BodyPace,
    too_slow: Pin<Box<tokio::time::Sleep>>,
}

impl BodyWithDeadline {
    fn new(body: hyper::body::Incoming, head: tokio::time::Instant) -> BodyWithDeadline {
        let pace = BodyPace::new(head);
        BodyWithDeadline {
            body,
            deadline: Box::pin(tokio::time::sleep_until(head + crate::BODY_READ_TIMEOUT)),
            too_slow: Box::pin(tokio::time::sleep_until(pace.too_slow_at())),
            pace,
        }
    }
}

/// The error of a body that did not arrive in time.
#[derive(Debug)]
struct BodyTooSlow;

impl std::fmt::Display for BodyTooSlow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the request body did not arrive within {} s, or at {} bytes a second",
            crate::BODY_READ_TIMEOUT.as_secs(),
            crate::pace::MIN_RATE
        )
    }
}

impl std::error::Error for BodyTooSlow {}

impl http_body::Body for BodyWithDeadline {
    type Data = bytes::Bytes;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<std::result::Result<http_body::Frame<Self::Data>, Self::Error>>> {
        let this = &mut *self;
        match Pin::new(&mut this.body).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref() {
                    this.pace.arrived(data.len());
                    this.too_slow.as_mut().reset(this.pace.too_slow_at());
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Pending => {
                // Waiting for the client: too late, or too slow so far, ends the body.
                let late = this.deadline.as_mut().poll(cx).is_ready();
                if late || this.too_slow.as_mut().poll(cx).is_ready() {
                    return Poll::Ready(Some(Err(Box::new(BodyTooSlow))));
                }
                Poll::Pending
            }
            ended => ended.map_err(Into::into),
        }
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

/// Watches one connection for idleness and for the server's signals.
struct IdleWatch {
    /// When the connection was accepted: its first request is due [`FIRST_REQUEST_TIMEOUT`] later.
    accepted: tokio::time::Instant,
    busy: watch::Receiver<Busy>,
    signals: ServerSignals,
    /// Told when every place of the connection's address is taken (none for a trusted proxy's).
    address_crowded: Option<Arc<Notify>>,
}

/// Resolves when the server, or the connection's address, has no place left for a newcomer.
async fn crowded(signals: &ServerSignals, address_crowded: &Option<Arc<Notify>>) {
    let address = async {
        match address_crowded {
            Some(crowded) => crowded.notified().await,
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        () = signals.crowded.notified() => {}
        () = address => {}
    }
}

impl IdleWatch {
    /// Serves `conn` until it ends, is idle too long, the server is crowded while it is idle, or
    /// the server stops; in the last three cases it is closed gracefully (HTTP/2 says GOAWAY).
    async fn drive<C>(&mut self, conn: C, peer: SocketAddr)
    where
        C: GracefulConnection,
        C::Error: std::fmt::Display,
    {
        tokio::pin!(conn);
        let mut stopping = self.signals.stopping.subscribe();
        // Idle, there is nothing to finish: the peer gets a moment to take the GOAWAY (HTTP/2
        // waits for its ping's answer), not the grace that requests in flight get.
        let grace = tokio::select! {
            result = conn.as_mut() => return log_end(result, peer),
            () = self.idle_too_long() => {
                tracing::debug!(%peer, "closing an idle connection");
                // A request that began in the same moment still gets to finish.
                if self.busy.borrow().in_flight == 0 { IDLE_CLOSE_GRACE } else { SHUTDOWN_GRACE }
            }
            _ = stopping.wait_for(|stopping| *stopping) => SHUTDOWN_GRACE,
        };
        conn.as_mut().graceful_shutdown();
        match tokio::time::timeout(grace, conn).await {
            Ok(result) => log_end(result, peer),
            Err(_) => tracing::debug!(%peer, "a connection did not close in time; dropped"),
        }
    }

    /// Resolves once no request has been in flight for the time allowed (a first request's
    /// deadline for a new connection, the idle time-out after that), or when the server is
    /// crowded and none has been for [`CROWDED_GRACE`].
    async fn idle_too_long(&mut self) {
        loop {
            let now = *self.busy.borrow_and_update();
            if now.in_flight > 0 {
                if self.busy.changed().await.is_err() {
                    return std::future::pending().await;
                }
                continue;
            }
            let idle_since = if now.begun == 0 { self.accepted } else { tokio::time::Instant::now() };
            let deadline =
                if now.begun == 0 { self.accepted + FIRST_REQUEST_TIMEOUT } else { idle_since + IDLE_TIMEOUT };
            loop {
                tokio::select! {
                    () = tokio::time::sleep_until(deadline) => return,
                    () = crowded(&self.signals, &self.address_crowded) => {
                        if idle_since.elapsed() >= CROWDED_GRACE {
                            return;
                        }
                    }
                    changed = self.busy.changed() => {
                        if changed.is_err() {
                            return std::future::pending().await;
                        }
                        break;
                    }
                }
            }
        }
    }
}

fn log_end<E: std::fmt::Display>(result: std::result::Result<(), E>, peer: SocketAddr) {
    if let Err(err) = result {
        tracing::debug!(%err, %peer, "connection ended with an error");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_is_allowed_without_tls() {
        assert!(check_bind("127.0.0.1:8787".parse().unwrap(), false).is_ok());
        assert!(check_bind("[::1]:8787".parse().unwrap(), false).is_ok());
        let err = check_bind("0.0.0.0:8787".parse().unwrap(), false).unwrap_err();
        assert!(err.message.contains("without TLS"));
        assert!(check_bind("0.0.0.0:8787".parse().unwrap(), true).is_ok());
    }

    const REQUEST: &[u8] = b"GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";

    /// A server with `places` places whose `/` counts its requests in `entered` and answers
    /// once `release` is notified.
    async fn serve_slow(
        places: usize,
        release: Arc<Notify>,
        entered: Arc<std::sync::atomic::AtomicUsize>,
    ) -> SocketAddr {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let router = Router::new().route(
            "/",
            axum::routing::get(move || {
                let (release, entered) = (release.clone(), entered.clone());
                async move {
                    entered.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    release.notified().await;
                    "ok"
                }
            }),
        );
        let limits = ConnectionLimits { places, per_address: places, trusted_proxies: Vec::new() };
        tokio::spawn(serve_router(listener, router, None, limits, std::future::pending()));
        addr
    }

    async fn answer(mut stream: tokio::net::TcpStream) -> std::io::Result<String> {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        stream.write_all(REQUEST).await?;
        let mut answer = String::new();
        stream.read_to_string(&mut answer).await.map(|_| answer)
    }

    /// Connections with a request in flight keep their places: one beyond the cap waits,
    /// unserved, until one of them ends.
    #[tokio::test]
    async fn busy_connections_keep_their_places_and_the_next_waits_its_turn() {
        let release = Arc::new(Notify::new());
        let entered = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let addr = serve_slow(2, release.clone(), entered.clone()).await;
        let busy = [
            tokio::spawn(answer(tokio::net::TcpStream::connect(addr).await.unwrap())),
            tokio::spawn(answer(tokio::net::TcpStream::connect(addr).await.unwrap())),
        ];
        tokio::time::sleep(Duration::from_millis(200)).await;
        let third = tokio::spawn(answer(tokio::net::TcpStream::connect(addr).await.unwrap()));
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(
            entered.load(std::sync::atomic::Ordering::SeqCst),
            2,
            "a third request began while two held the places"
        );
        // Each release lets one waiting request answer: the two busy ones, then the third.
        for _ in 0..3 {
            release.notify_one();
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        for task in busy {
            assert!(task.await.unwrap().unwrap().starts_with("HTTP/1.1 200"));
        }
        let served = tokio::time::timeout(Duration::from_secs(5), third).await.unwrap().unwrap().unwrap();
        assert!(served.starts_with("HTTP/1.1 200"), "{served}");
    }

    /// When every place is taken by connections that have nothing in flight, they close to
    /// make room, and the next connection is served at once.
    #[tokio::test]
    async fn idle_connections_make_room_when_every_place_is_taken() {
        let release = Arc::new(Notify::new());
        let addr = serve_slow(2, release.clone(), Arc::default()).await;
        let idle =
            [tokio::net::TcpStream::connect(addr).await.unwrap(), tokio::net::TcpStream::connect(addr).await.unwrap()];
        // Past their grace, idle connections give way to a newcomer.
        tokio::time::sleep(CROWDED_GRACE + Duration::from_millis(100)).await;
        let third = tokio::spawn(answer(tokio::net::TcpStream::connect(addr).await.unwrap()));
        tokio::time::sleep(Duration::from_millis(200)).await;
        release.notify_one();
        let served = tokio::time::timeout(Duration::from_secs(2), third).await.unwrap().unwrap().unwrap();
        assert!(served.starts_with("HTTP/1.1 200"), "{served}");
        for mut stream in idle {
            use tokio::io::AsyncReadExt;
            let mut rest = Vec::new();
            let closed = tokio::time::timeout(Duration::from_secs(2), stream.read_to_end(&mut rest)).await;
            assert!(matches!(closed, Ok(Ok(0))), "an idle connection was left open: {closed:?}");
        }
    }
}
