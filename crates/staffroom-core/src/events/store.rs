//! Where live events are kept: each store starts its own keeping ([`EventKeeping`]) and answers
//! reconnecting clients ([`EventLog`]).

use std::path::Path;
use std::sync::Arc;

use tokio::sync::{broadcast, mpsc, watch};

use super::{EventKind, LiveEvent, Since};
use crate::error::Result;

/// Where stored events go: the streams, and the signal that the service is stopping.
pub struct Streams {
    pub live: broadcast::Sender<Arc<LiveEvent>>,
    pub closing: watch::Receiver<bool>,
}

/// Starting to keep events.
#[async_trait::async_trait]
pub trait EventKeeping {
    /// Starts the writer, which stores what `incoming` carries (up to [`BATCH`](super::BATCH) in
    /// one transaction, pruning past [`RETENTION`](super::RETENTION) every
    /// [`PRUNE_EVERY`](super::PRUNE_EVERY)), and sees that every stored event reaches
    /// `streams.live` with its id, in id order. Needs a Tokio runtime.
    async fn start_events(
        &self,
        data_dir: &Path,
        incoming: mpsc::UnboundedReceiver<(EventKind, String)>,
        streams: Streams,
    ) -> Result<Arc<dyn EventLog>>;
}

/// The kept events, for a client that reconnects.
#[async_trait::async_trait]
pub trait EventLog: Send + Sync {
    /// Up to `limit` events after `last_seen`, oldest first, or a reset when some of those are
    /// no longer kept (or the id is not one of this store's).
    async fn since(&self, last_seen: i64, limit: usize) -> Result<Since>;

    /// The newest event's id (0 before the first).
    async fn latest(&self) -> Result<i64>;
}
