//! The HTTP door (`staffroom serve`): an axum router serving the seed's interface, with every
//! route derived from the core's declarations, health, the generated OpenAPI document, the live
//! event streams, and the webhook receiver's listener. It holds a `Core` and no SQL.

pub mod events;
pub mod exports;
pub mod extract;
pub mod guard;
pub mod live_streams;
pub mod openapi;
pub mod ops;
pub mod pace;
pub mod places;
pub mod receiver;
pub mod response;
pub mod server;
pub mod webhook_routes;

use std::time::Duration;

use axum::extract::DefaultBodyLimit;
use axum::http::{Request, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde::Serialize;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::trace::TraceLayer;
use tracing::Span;

use staffroom_core::error::{Error, ErrorCode};
use staffroom_core::Core;

pub use self::response::ApiError;

/// The largest request body any route accepts (routes may set less).
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

/// `GET /api/health`.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Health {
    pub status: &'static str,
    pub version: &'static str,
    pub sandbox: bool,
}

#[utoipa::path(get, path = "/api/health", tag = "service", responses((status = 200, body = Health)))]
async fn health(axum::extract::State(core): axum::extract::State<Core>) -> Json<Health> {
    Json(Health { status: "ok", version: env!("CARGO_PKG_VERSION"), sandbox: core.config.sandbox })
}

async fn not_found() -> ApiError {
    ApiError(Error::not_found("No such route"))
}

async fn method_not_allowed() -> ApiError {
    ApiError(Error::new(ErrorCode::MethodNotAllowed, "This route does not take that method"))
}

fn panic_response(_: Box<dyn std::any::Any + Send + 'static>) -> Response<axum::body::Body> {
    use axum::response::IntoResponse;
    tracing::error!("a request handler panicked");
    ApiError(Error::new(ErrorCode::Internal, "Something went wrong inside Staffroom; the details are in its log"))
        .into_response()
}

/// Marks an answer logged at debug only: one that a flood would repeat (a refused webhook
/// delivery, which the refusal summary counts instead).
#[derive(Debug, Clone, Copy)]
pub struct Quiet;

/// How long a client may take to send a request's whole body, from its head (enforced for every
/// request where connections are served, [`server`]).
pub const BODY_READ_TIMEOUT: Duration = Duration::from_secs(30);

/// The whole service as one router over `core`, answering to the hosts of a service bound to
/// `bound` (and `--public-name`s). Every route but the webhook receiver stands behind the
/// browser guard (see [`guard`]); the receiver is authenticated by its signature instead, so a
/// tunnel's deliveries (any host, no origin) reach it.
pub fn router(core: Core, bound: std::net::IpAddr) -> Router {
    let hosts = guard::AllowedHosts::new(bound, &core.config.http.public_names);
    let guarded = Router::new()
        .route("/api/health", get(health))
        .route("/api/openapi.json", get(openapi::serve_document))
        .route(
            "/api/events",
            get(events::events).layer(axum::Extension(live_streams::LiveStreams::new(
                live_streams::PER_SESSION,
                live_streams::PER_PERSON,
                live_streams::PER_SERVER,
            ))),
        )
        .merge(ops::routes())
        .merge(exports::routes())
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::middleware::from_fn_with_state(hosts, guard::browser_guard));
    hardened(guarded.merge(webhook_routes::receiver_routes()).with_state(core))
}

/// The layers every router gets: a body size limit, a panic catcher that
/// answers the error object, headers that keep answers out of caches and browsers from guessing
/// types, and a span with the latency of every request.
fn hardened(router: Router) -> Router {
    use axum::http::header::{CACHE_CONTROL, X_CONTENT_TYPE_OPTIONS};
    use axum::http::HeaderValue;
    use tower_http::set_header::SetResponseHeaderLayer;
    router
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(CatchPanicLayer::custom(panic_response))
        // Tokens, customers and documents: nothing here belongs in a cache.
        .layer(SetResponseHeaderLayer::overriding(CACHE_CONTROL, HeaderValue::from_static("no-store")))
        .layer(SetResponseHeaderLayer::overriding(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff")))
        .layer(
            TraceLayer::new_for_http()
                .make_span_with(|request: &Request<_>| {
                    // Path only: queries and headers may carry tokens.
                    tracing::info_span!("request", method = %request.method(), path = %request.uri().path())
                })
                .on_request(())
                .on_response(|response: &Response<_>, latency: Duration, _span: &Span| {
                    let (status, latency_ms) = (response.status().as_u16(), latency.as_secs_f64() * 1000.0);
                    if response.extensions().get::<Quiet>().is_some() {
                        tracing::debug!(status, latency_ms, "answered");
                    } else {
                        tracing::info!(status, latency_ms, "answered");
                    }
                }),
        )
}

/// Only the webhook receiver: what the desktop app serves when its receiver is on, and what
/// `serve --webhooks-addr` serves to a tunnel.
pub fn webhook_router(core: Core) -> Router {
    hardened(
        webhook_routes::receiver_routes()
            .fallback(not_found)
            .method_not_allowed_fallback(method_not_allowed)
            .with_state(core),
    )
}

/// A webhook receiver started on its own (the desktop app's); dropping it does not stop it.
#[derive(Debug, Clone)]
pub struct ReceiverHandle {
    /// Where it listens.
    pub addr: std::net::SocketAddr,
    stop: std::sync::Arc<tokio::sync::Notify>,
}

impl ReceiverHandle {
    /// Stops accepting deliveries; those in flight finish.
    pub fn stop(&self) {
        self.stop.notify_one();
    }
}

/// Starts the webhook receiver alone on `addr` (loopback only: beyond it, use `staffroom serve`
/// with TLS). Used by the desktop app.
pub async fn start_webhook_receiver(core: Core, addr: std::net::SocketAddr) -> staffroom_core::Result<ReceiverHandle> {
    server::check_bind(addr, false)?;
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| Error::invalid_field("port", format!("cannot listen on {addr}: {e}")))?;
    let local = listener.local_addr().map_err(|e| Error::internal("listener", e))?;
    let stop = std::sync::Arc::new(tokio::sync::Notify::new());
    let stopped = stop.clone();
    let router = webhook_router(core);
    let limits = server::ConnectionLimits::default();
    tokio::spawn(server::serve_router(listener, router, None, limits, async move { stopped.notified().await }));
    Ok(ReceiverHandle { addr: local, stop })
}

/// Serves `core` over plain HTTP on `listener` until `shutdown` resolves, then finishes requests
/// in flight. See [`server::serve_router`] for TLS.
pub async fn serve(
    listener: tokio::net::TcpListener,
    core: Core,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let bound = listener.local_addr()?.ip();
    let limits = server::ConnectionLimits::behind(&core.config.http.trusted_proxies);
    server::serve_router(listener, router(core, bound), None, limits, shutdown).await
}

/// Resolves on SIGINT or SIGTERM.
pub async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .expect("installing a SIGTERM handler cannot fail");
        tokio::select! {
            _ = interrupt => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = interrupt.await;
    }
    tracing::info!("shutting down: finishing requests in flight");
}
