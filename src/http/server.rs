//! Serving a router: a header-read time-out against slow clients, optional TLS (rustls), and a
//! graceful shutdown that finishes requests in flight. Anything but loopback needs TLS.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use hyper_util::service::TowerToHyperService;
use rustls_pki_types::pem::PemObject as _;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use tokio::net::TcpListener;
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::TlsAcceptor;
use tower::ServiceExt as _;

use crate::error::{Error, ErrorCode, Result};

/// How long a client may take to send its request headers.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a shutdown waits for requests in flight.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(20);
/// Connections served at once; more wait in the listen queue (a flood of idle connections
/// cannot take every file descriptor).
pub const MAX_CONNECTIONS: usize = 1024;

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

/// Serves `router` on `listener` until `shutdown` resolves, then waits for requests in flight.
pub async fn serve_router(
    listener: TcpListener,
    router: Router,
    tls: Option<Arc<ServerConfig>>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    serve_capped(listener, router, tls, shutdown, MAX_CONNECTIONS).await
}

/// [`serve_router`] with at most `max_connections` connections served at once.
async fn serve_capped(
    listener: TcpListener,
    router: Router,
    tls: Option<Arc<ServerConfig>>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    max_connections: usize,
) -> std::io::Result<()> {
    let acceptor = tls.map(TlsAcceptor::from);
    let mut builder = Builder::new(TokioExecutor::new());
    builder.http1().timer(TokioTimer::new()).header_read_timeout(HEADER_READ_TIMEOUT);
    let builder = Arc::new(builder);
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let connections = Arc::new(tokio::sync::Semaphore::new(max_connections));
    tokio::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            permit = connections.clone().acquire_owned() => permit.expect("the semaphore is never closed"),
            _ = &mut shutdown => break,
        };
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(pair) => pair,
                Err(err) => {
                    // Out of file descriptors and the like: wait a little rather than spin.
                    tracing::warn!(%err, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let service = router.clone().map_request(move |request: hyper::Request<hyper::body::Incoming>| {
            let mut request = request.map(axum::body::Body::new);
            request.extensions_mut().insert(axum::extract::ConnectInfo(peer));
            request
        });
        let service = TowerToHyperService::new(service);
        let builder = builder.clone();
        match &acceptor {
            None => {
                let conn = builder.serve_connection_with_upgrades(TokioIo::new(stream), service).into_owned();
                let conn = graceful.watch(conn);
                tokio::spawn(async move {
                    let _permit = permit;
                    if let Err(err) = conn.await {
                        tracing::debug!(%err, %peer, "connection ended with an error");
                    }
                });
            }
            Some(acceptor) => {
                let acceptor = acceptor.clone();
                let watcher = graceful.watcher();
                tokio::spawn(async move {
                    let _permit = permit;
                    let stream = match tokio::time::timeout(HEADER_READ_TIMEOUT, acceptor.accept(stream)).await {
                        Ok(Ok(stream)) => stream,
                        Ok(Err(err)) => return tracing::debug!(%err, %peer, "TLS handshake failed"),
                        Err(_) => return tracing::debug!(%peer, "TLS handshake timed out"),
                    };
                    let conn = builder.serve_connection_with_upgrades(TokioIo::new(stream), service).into_owned();
                    if let Err(err) = watcher.watch(conn).await {
                        tracing::debug!(%err, %peer, "connection ended with an error");
                    }
                });
            }
        }
    }
    drop(listener);
    if tokio::time::timeout(SHUTDOWN_GRACE, graceful.shutdown()).await.is_err() {
        tracing::warn!("some requests were still running when the shutdown grace period ended");
    }
    Ok(())
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

    /// Connections beyond the cap wait, unserved, until one of those being served ends.
    #[tokio::test]
    async fn connections_beyond_the_cap_wait_their_turn() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let router = Router::new().route("/", axum::routing::get(|| async { "ok" }));
        tokio::spawn(serve_capped(listener, router, None, std::future::pending(), 2));
        let request = b"GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
        let answer = |mut stream: tokio::net::TcpStream| async move {
            stream.write_all(request).await.unwrap();
            let mut answer = String::new();
            stream.read_to_string(&mut answer).await.map(|_| answer)
        };
        // Two idle connections take both places.
        let idle =
            [tokio::net::TcpStream::connect(addr).await.unwrap(), tokio::net::TcpStream::connect(addr).await.unwrap()];
        let third = tokio::spawn(answer(tokio::net::TcpStream::connect(addr).await.unwrap()));
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert!(!third.is_finished(), "a third connection is served while two hold the places");
        drop(idle);
        let served = tokio::time::timeout(Duration::from_secs(5), third).await.unwrap().unwrap().unwrap();
        assert!(served.starts_with("HTTP/1.1 200"), "{served}");
    }
}
