//! `GET /api/events`: the live events as Server-Sent Events, for a staff token. Each event has
//! its id, so a client that reconnects with `Last-Event-ID` gets what it missed (within the
//! events' 24 hours; otherwise a `reset` event first, telling it to refetch). The stream ends
//! when its session does (sign-out, a disabled account, expiry), when its token is replaced or
//! expires (the client reconnects with its fresh one), when its client stops taking events (for
//! [`WRITE_TIMEOUT`]), or when the service stops. Each stream takes a place (see
//! [`live_streams`](super::live_streams)): a few per session and per person, a bounded number per
//! server.

use std::convert::Infallible;
use std::time::Duration;

use axum::extract::{Extension, State};
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use tokio::sync::{broadcast, mpsc};

use crate::live_streams::{LiveStreams, StreamPlace};
use crate::ops::bearer;
use crate::ApiError;
use staffroom_core::error::{Error, ErrorCode, Result};
use staffroom_core::events::{EventHub, LiveEvent, Since};
use staffroom_core::Core;

/// How many stored events one read catches up (and how many wait for a slow client).
const PAGE: usize = 500;
/// How long an event may wait for a client that takes none: its stream then ends, and its place
/// is free. (Its session's checks wait meanwhile, no longer than this.)
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(10);

/// The route's handler.
#[utoipa::path(
    get,
    path = "/api/events",
    tag = "service",
    params(("Last-Event-ID" = Option<i64>, Header, minimum = 0, description = "The id of the last event received: the stream starts after it")),
    responses(
        (status = 200, content_type = "text/event-stream", description = "Events `webhook` (a webhook feed item), `sync-progress` (a sync's progress), `document-saved` (a document id), and `reset` (events were missed: refetch), each with its id and its data as JSON"),
        (status = 429, description = "rate_limited: the session (4), the person (8) or the server (512) has as many streams open as it may; `Retry-After` says when to try again"),
    ),
    security(("bearer" = []))
)]
pub async fn events(
    State(core): State<Core>,
    Extension(streams): Extension<LiveStreams>,
    headers: HeaderMap,
) -> Response {
    match open(&core, &streams, &headers).await {
        Ok(stream) => stream.into_response(),
        Err(error) => ApiError(error).into_response(),
    }
}

async fn open(
    core: &Core,
    streams: &LiveStreams,
    headers: &HeaderMap,
) -> Result<Sse<impl futures::Stream<Item = std::result::Result<Event, Infallible>>>> {
    let hub =
        core.events.clone().ok_or_else(|| Error::new(ErrorCode::Unavailable, "This service sends no live events"))?;
    let token = bearer(headers).ok_or_else(|| Error::unauthorized("Sign in first: this needs a staff token"))?;
    let (identity, claims) = core.auth.authenticate_with_claims(token).await?;
    let last_seen = last_event_id(headers)?;
    let place = streams.take(&core.auth, &identity.session_id, &identity.user_id, &claims.jti)?;
    let token = TokenLife { id: claims.jti, expires_at: claims.exp };
    let (sender, receiver) = mpsc::channel(PAGE);
    tokio::spawn(feed(hub, place, token, last_seen, sender));
    let stream = futures::stream::unfold(receiver, |mut receiver| async move {
        receiver.recv().await.map(|event| (Ok(event), receiver))
    });
    Ok(Sse::new(stream).keep_alive(KeepAlive::default()))
}

/// The `Last-Event-ID` header: an event id, or none.
fn last_event_id(headers: &HeaderMap) -> Result<Option<i64>> {
    let Some(value) = headers.get("last-event-id") else { return Ok(None) };
    let id = value.to_str().ok().map(str::trim).and_then(|v| v.parse::<i64>().ok()).filter(|id| *id >= 0);
    id.map(Some).ok_or_else(|| Error::invalid_field("Last-Event-ID", "must be the id of an event (a whole number)"))
}

/// The token a stream was opened with: the stream lasts no longer than it does.
struct TokenLife {
    id: String,
    /// Unix seconds.
    expires_at: i64,
}

/// Sends one client its events until its session ends or its token is replaced or expires, it
/// goes away or the service stops. Holds the stream's place until then.
async fn feed(
    hub: EventHub,
    mut place: StreamPlace,
    token: TokenLife,
    last_seen: Option<i64>,
    sender: mpsc::Sender<Event>,
) {
    // Subscribed before reading what is stored, so nothing falls between the two.
    let mut live = hub.subscribe();
    let mut stream = Stream { hub: hub.clone(), sender, last: 0 };
    let started = match last_seen {
        Some(id) => {
            stream.last = id;
            stream.catch_up().await
        }
        None => match hub.latest().await {
            Ok(latest) => {
                stream.last = latest;
                Ok(true)
            }
            Err(error) => Err(error),
        },
    };
    if !matches!(started, Ok(true)) {
        return stream.end(started);
    }
    let closed = hub.closed();
    tokio::pin!(closed);
    let gone = stream.sender.clone();
    let left = u64::try_from(token.expires_at - staffroom_core::time::now_unix()).unwrap_or(0);
    let expired = tokio::time::sleep(Duration::from_secs(left));
    tokio::pin!(expired);
    loop {
        let step = tokio::select! {
            received = live.recv() => match received {
                Ok(event) => Ok(stream.send(&event).await),
                Err(broadcast::error::RecvError::Lagged(_)) => stream.catch_up().await,
                Err(broadcast::error::RecvError::Closed) => Ok(false),
            },
            changed = place.state.changed() => Ok(changed.is_ok() && place.state.borrow().as_deref() == Some(token.id.as_str())),
            () = &mut expired => Ok(false),
            () = &mut closed => Ok(false),
            () = gone.closed() => Ok(false),
        };
        if !matches!(step, Ok(true)) {
            return stream.end(step);
        }
    }
}

/// One client's stream: where it is, and where its events go.
struct Stream {
    hub: EventHub,
    sender: mpsc::Sender<Event>,
    /// The id of the last event sent (or skipped as already seen).
    last: i64,
}

impl Stream {
    /// Sends `event` unless the client has it already; false once the client is gone, or has
    /// taken nothing for [`WRITE_TIMEOUT`].
    async fn send(&mut self, event: &LiveEvent) -> bool {
        if event.id <= self.last {
            return true;
        }
        self.last = event.id;
        let sse = Event::default().id(event.id.to_string()).event(event.kind.as_str()).data(&event.data);
        self.deliver(sse).await
    }

    /// Hands `sse` to the client's answer, waiting at most [`WRITE_TIMEOUT`] for room.
    async fn deliver(&self, sse: Event) -> bool {
        match tokio::time::timeout(WRITE_TIMEOUT, self.sender.send(sse)).await {
            Ok(sent) => sent.is_ok(),
            Err(_) => {
                tracing::info!("an event stream's client stopped taking events; the stream ends");
                false
            }
        }
    }

    /// Sends the stored events after the last one sent, or a `reset` when some are gone.
    async fn catch_up(&mut self) -> Result<bool> {
        loop {
            match self.hub.since(self.last, PAGE).await? {
                Since::Events(events) => {
                    let done = events.len() < PAGE;
                    for event in &events {
                        if !self.send(event).await {
                            return Ok(false);
                        }
                    }
                    if done {
                        return Ok(true);
                    }
                }
                Since::Reset { latest } => {
                    self.last = latest;
                    let reset = Event::default().id(latest.to_string()).event("reset").data("{}");
                    return Ok(self.deliver(reset).await);
                }
            }
        }
    }

    fn end(self, why: Result<bool>) {
        if let Err(error) = why {
            tracing::error!(%error, "an event stream ended on an error; the client will reconnect");
        }
    }
}
