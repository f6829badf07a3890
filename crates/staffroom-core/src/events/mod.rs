//! The live events a screen updates on (webhook feed, sync progress, document saved), numbered
//! and kept for 24 hours, so that a client of `GET /api/events` that reconnects with the last id
//! it saw misses nothing. One writer task stores what the services broadcast, many at a time in
//! one transaction, and only then hands each event, with its id, to the streams.
//!
//! Where they are kept is each store's ([`store::EventKeeping`]): SQLite keeps them in a file of
//! their own beside the database; PostgreSQL (a team server) in the team's database, so that an
//! event stored by any replica reaches the streams of every replica.

pub mod store;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use tokio::sync::{broadcast, mpsc, watch};

use self::store::EventLog;
use crate::error::Result;

/// How long events are kept for a reconnecting client.
pub const RETENTION: Duration = Duration::from_secs(24 * 60 * 60);
/// The most events one transaction stores.
pub const BATCH: usize = 1000;
/// How often events older than [`RETENTION`] are deleted.
pub const PRUNE_EVERY: Duration = Duration::from_secs(60);

crate::text_enum! {
    /// What an event is about; the SSE `event` field, and the desktop's event name.
    pub enum EventKind {
        Webhook = "webhook",
        SyncProgress = "sync-progress",
        DocumentSaved = "document-saved",
    }
}

/// One stored event: its id, its kind and its data as JSON (what the desktop emits today).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveEvent {
    pub id: i64,
    pub kind: EventKind,
    pub data: String,
}

/// What a client that last saw an id gets: the events after it, or, when some of those are no
/// longer kept (or the id is not one of this database's), a reset to the newest id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Since {
    Events(Vec<LiveEvent>),
    Reset { latest: i64 },
}

/// Stores events and hands them to the streams.
#[derive(Clone)]
pub struct EventHub {
    log: Arc<dyn EventLog>,
    queue: mpsc::UnboundedSender<(EventKind, String)>,
    live: broadcast::Sender<Arc<LiveEvent>>,
    closing: watch::Sender<bool>,
}

impl EventHub {
    /// Opens where events are kept (beside `db` in `data_dir`, or in the team's database) and
    /// starts the writer task, and on a team server the follower (needs a Tokio runtime).
    pub async fn start(db: &(dyn store::EventKeeping + Sync), data_dir: &Path) -> Result<EventHub> {
        let (queue, incoming) = mpsc::unbounded_channel();
        let (live, _) = broadcast::channel(4096);
        let (closing, _) = watch::channel(false);
        let streams = store::Streams { live: live.clone(), closing: closing.subscribe() };
        let log = db.start_events(data_dir, incoming, streams).await?;
        Ok(EventHub { log, queue, live, closing })
    }

    /// Queues an event for storing and sending.
    pub fn publish(&self, kind: EventKind, data: &impl Serialize) {
        match serde_json::to_string(data) {
            Ok(json) => {
                let _ = self.queue.send((kind, json));
            }
            Err(err) => tracing::error!(%kind, error = %err, "an event could not be written as JSON"),
        }
    }

    /// Events as they are stored. A receiver that falls behind reads the rest with [`since`](Self::since).
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<LiveEvent>> {
        self.live.subscribe()
    }

    /// Up to `limit` events after `last_seen`, oldest first.
    pub async fn since(&self, last_seen: i64, limit: usize) -> Result<Since> {
        self.log.since(last_seen, limit).await
    }

    /// The newest event's id (0 before the first).
    pub async fn latest(&self) -> Result<i64> {
        self.log.latest().await
    }

    /// Ends every stream (the service is stopping).
    pub fn close(&self) {
        self.closing.send_replace(true);
    }

    /// Resolves when the service is stopping.
    pub fn closed(&self) -> impl std::future::Future<Output = ()> + Send + 'static {
        let mut closing = self.closing.subscribe();
        async move {
            let _ = closing.wait_for(|closed| *closed).await;
        }
    }

    /// Stores and sends what `source` announces (the webhook feed, sync progress, saved
    /// documents), as events of `kind`.
    pub fn relay<T: Serialize + Clone + Send + 'static>(&self, kind: EventKind, mut source: broadcast::Receiver<T>) {
        let hub = self.clone();
        tokio::spawn(async move {
            loop {
                match source.recv().await {
                    Ok(item) => hub.publish(kind, &item),
                    Err(broadcast::error::RecvError::Lagged(missed)) => {
                        tracing::warn!(%kind, missed, "the event stream fell behind its source")
                    }
                    Err(broadcast::error::RecvError::Closed) => break,
                }
            }
        });
    }
}
