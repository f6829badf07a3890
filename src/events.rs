//! The live events a screen updates on (webhook feed, sync progress, document saved), numbered
//! and kept for 24 hours, so that a client of `GET /api/events` that reconnects with the last id
//! it saw misses nothing. One writer task stores what the services broadcast, many at a time in
//! one transaction, and only then hands each event, with its id, to the streams.
//!
//! On SQLite they are kept in a file of their own beside the database: a writer there would
//! otherwise hold the database's one write lock while the webhook receiver waits to commit.
//! On PostgreSQL (a team server) they are kept in the team's database, so that an event stored
//! by any replica reaches the streams of every replica: each replica's follower hears the
//! writers' `NOTIFY` on a connection of its own (and looks every second anyway, in case a
//! notification was lost with a connection) and sends what is new, in id order.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rusqlite::Connection;
use serde::Serialize;
use tokio::sync::{broadcast, mpsc, watch};

use crate::error::{Error, Result};

/// How long events are kept for a reconnecting client.
pub const RETENTION: Duration = Duration::from_secs(24 * 60 * 60);
/// The most events one transaction stores.
const BATCH: usize = 1000;
/// How often events older than [`RETENTION`] are deleted.
const PRUNE_EVERY: Duration = Duration::from_secs(60);
/// The `events_meta` key of the highest id deleted by pruning: a client that saw less has
/// missed some.
const PRUNED_THROUGH_KEY: &str = "pruned_through";
/// The events' own SQLite file in the data dir.
pub const EVENTS_FILE: &str = "events.sqlite3";

const SCHEMA: &str = "
    CREATE TABLE IF NOT EXISTS events (
        id INTEGER PRIMARY KEY AUTOINCREMENT, -- never given twice, even after pruning
        at INTEGER NOT NULL,
        kind TEXT NOT NULL,
        data TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS events_at ON events (at);
    CREATE TABLE IF NOT EXISTS events_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
";

/// Where events are kept.
#[derive(Clone)]
enum EventStore {
    Sqlite(SqliteEvents),
    Postgres(crate::store::pg::Postgres),
}

/// The events' SQLite file: one connection, used on the blocking pool.
#[derive(Clone)]
struct SqliteEvents(Arc<Mutex<Connection>>);

impl SqliteEvents {
    fn open(data_dir: &Path) -> Result<SqliteEvents> {
        let path = data_dir.join(EVENTS_FILE);
        let conn = Connection::open(&path)?;
        conn.busy_timeout(Duration::from_secs(5))?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        // Durable before any client sees it: after a power cut, an id a client has seen must not
        // be given again to another event, which that client would then skip.
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.execute_batch(SCHEMA)?;
        // The WAL and shared-memory files are private like the rest of the data dir.
        crate::data_dir::tighten(data_dir)?;
        Ok(SqliteEvents(Arc::new(Mutex::new(conn))))
    }

    async fn call<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Connection) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let conn = self.0.clone();
        tokio::task::spawn_blocking(move || {
            let mut conn =
                conn.lock().map_err(|_| Error::internal("events", "the events database lock is poisoned"))?;
            f(&mut conn)
        })
        .await?
    }

    async fn transaction<T: Send + 'static>(
        &self,
        f: impl FnOnce(&rusqlite::Transaction<'_>) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        self.call(move |conn| {
            let tx = conn.transaction()?;
            let out = f(&tx)?;
            tx.commit()?;
            Ok(out)
        })
        .await
    }
}

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
    db: EventStore,
    queue: mpsc::UnboundedSender<(EventKind, String)>,
    live: broadcast::Sender<Arc<LiveEvent>>,
    closing: watch::Sender<bool>,
}

impl EventHub {
    /// Opens where events are kept (beside `db` in `data_dir`, or in the team's database) and
    /// starts the writer task, and on a team server the follower (needs a Tokio runtime).
    pub async fn start(db: &crate::store::Db, data_dir: &Path) -> Result<EventHub> {
        let (queue, incoming) = mpsc::unbounded_channel();
        let (live, _) = broadcast::channel(4096);
        let (closing, _) = watch::channel(false);
        let db = match db {
            crate::store::Db::Sqlite(_) => {
                let dir = data_dir.to_path_buf();
                let events = tokio::task::spawn_blocking(move || SqliteEvents::open(&dir)).await??;
                tokio::spawn(write_events(events.clone(), incoming, live.clone()));
                EventStore::Sqlite(events)
            }
            crate::store::Db::Postgres(db) => {
                tokio::spawn(write_events_pg(db.clone(), incoming));
                // Listening before the first look, so that nothing stored after this start is
                // heard of only by the clock.
                let told = Arc::new(tokio::sync::Notify::new());
                let listening = listen(db, told.clone()).await;
                let from = crate::store::pg::events::latest(&db.client().await?).await?;
                tokio::spawn(follow_pg(db.clone(), from, live.clone(), closing.subscribe(), told, listening));
                EventStore::Postgres(db.clone())
            }
        };
        Ok(EventHub { db, queue, live, closing })
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
        let db = match &self.db {
            EventStore::Sqlite(db) => db,
            EventStore::Postgres(db) => {
                return crate::store::pg::events::since(&db.client().await?, last_seen, limit).await;
            }
        };
        db.call(move |conn| {
            use rusqlite::OptionalExtension;
            let latest = latest_id(conn)?;
            let pruned_through: i64 = conn
                .query_row("SELECT value FROM events_meta WHERE key = ?1", [PRUNED_THROUGH_KEY], |row| {
                    row.get::<_, String>(0)
                })
                .optional()?
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
            if last_seen < pruned_through || last_seen > latest {
                return Ok(Since::Reset { latest });
            }
            let mut statement =
                conn.prepare_cached("SELECT id, kind, data FROM events WHERE id > ?1 ORDER BY id LIMIT ?2")?;
            let events = statement
                .query_map(rusqlite::params![last_seen, limit as i64], |row| {
                    Ok(LiveEvent { id: row.get(0)?, kind: row.get(1)?, data: row.get(2)? })
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(Since::Events(events))
        })
        .await
    }

    /// The newest event's id (0 before the first).
    pub async fn latest(&self) -> Result<i64> {
        match &self.db {
            EventStore::Sqlite(db) => db.call(|conn| Ok(latest_id(conn)?)).await,
            EventStore::Postgres(db) => crate::store::pg::events::latest(&db.client().await?).await,
        }
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

    /// Stores and sends what the services announce: the webhook feed, sync progress and saved
    /// documents.
    pub fn follow(&self, core: &crate::Core) {
        if let Some(webhooks) = &core.webhooks {
            self.relay(EventKind::Webhook, webhooks.subscribe());
        }
        self.relay(EventKind::SyncProgress, core.payments.subscribe_sync());
        self.relay(EventKind::DocumentSaved, core.docs.subscribe_saved());
    }

    fn relay<T: Serialize + Clone + Send + 'static>(&self, kind: EventKind, mut source: broadcast::Receiver<T>) {
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

/// The writer: stores whatever is queued in one transaction, then sends it; deletes events past
/// their retention now and then.
async fn write_events(
    db: SqliteEvents,
    mut incoming: mpsc::UnboundedReceiver<(EventKind, String)>,
    live: broadcast::Sender<Arc<LiveEvent>>,
) {
    let mut last_prune = tokio::time::Instant::now() - PRUNE_EVERY;
    let mut batch = Vec::with_capacity(BATCH);
    while incoming.recv_many(&mut batch, BATCH).await > 0 {
        let pending = std::mem::take(&mut batch);
        let prune = last_prune.elapsed() >= PRUNE_EVERY;
        let stored = db
            .transaction(move |tx| {
                let mut stored = Vec::with_capacity(pending.len());
                let now = crate::time::now_unix();
                {
                    let mut insert = tx.prepare_cached("INSERT INTO events (at, kind, data) VALUES (?1, ?2, ?3)")?;
                    for (kind, data) in pending {
                        insert.execute(rusqlite::params![now, kind, data])?;
                        stored.push(LiveEvent { id: tx.last_insert_rowid(), kind, data });
                    }
                }
                if prune {
                    prune_old(tx, now - RETENTION.as_secs() as i64)?;
                }
                Ok(stored)
            })
            .await;
        if prune {
            last_prune = tokio::time::Instant::now();
        }
        match stored {
            Ok(stored) => {
                for event in stored {
                    let _ = live.send(Arc::new(event));
                }
            }
            Err(err) => tracing::error!(error = %err, "live events could not be stored; streams will miss them"),
        }
    }
}

/// PostgreSQL's writer: stores and announces; the followers of every replica send.
async fn write_events_pg(db: crate::store::pg::Postgres, mut incoming: mpsc::UnboundedReceiver<(EventKind, String)>) {
    let mut last_prune = tokio::time::Instant::now() - PRUNE_EVERY;
    let mut batch = Vec::with_capacity(BATCH);
    while incoming.recv_many(&mut batch, BATCH).await > 0 {
        let now = crate::time::now_unix();
        let prune = (last_prune.elapsed() >= PRUNE_EVERY).then(|| now - RETENTION.as_secs() as i64);
        let stored = match db.client().await {
            Ok(mut client) => crate::store::pg::events::store(&mut client, &batch, now, prune).await,
            Err(err) => Err(err),
        };
        if prune.is_some() {
            last_prune = tokio::time::Instant::now();
        }
        if let Err(err) = stored {
            tracing::error!(error = %err, events = batch.len(), "live events could not be stored; streams will miss them");
        }
        batch.clear();
    }
}

/// How often a follower looks for new events without being told.
const FOLLOW_EVERY: Duration = Duration::from_secs(1);

/// A team server replica's follower: sends every event stored after `from`, by any replica, to
/// this replica's streams, in id order, as notifications (or the clock) say there are some.
async fn follow_pg(
    db: crate::store::pg::Postgres,
    mut sent: i64,
    live: broadcast::Sender<Arc<LiveEvent>>,
    mut closing: watch::Receiver<bool>,
    told: Arc<tokio::sync::Notify>,
    mut listening: Option<tokio::task::JoinHandle<()>>,
) {
    loop {
        if listening.as_ref().is_none_or(|task| task.is_finished()) {
            listening = listen(&db, told.clone()).await;
        }
        tokio::select! {
            _ = told.notified() => {}
            _ = tokio::time::sleep(FOLLOW_EVERY) => {}
            _ = closing.wait_for(|closed| *closed) => break,
        }
        loop {
            let fresh = match db.client().await {
                Ok(client) => crate::store::pg::events::after(&client, sent, BATCH).await,
                Err(err) => Err(err),
            };
            match fresh {
                Ok(events) => {
                    let full = events.len() == BATCH;
                    for event in events {
                        sent = event.id;
                        let _ = live.send(Arc::new(event));
                    }
                    if !full {
                        break;
                    }
                }
                Err(err) => {
                    tracing::warn!(error = %err, "could not read new live events; trying again");
                    break;
                }
            }
        }
    }
    if let Some(task) = listening {
        task.abort();
    }
}

/// `LISTEN`s on a connection of its own, waking `told` at each notification; the task ends
/// when the connection does. `None` when the database cannot be reached now.
async fn listen(
    db: &crate::store::pg::Postgres,
    told: Arc<tokio::sync::Notify>,
) -> Option<tokio::task::JoinHandle<()>> {
    let (client, mut connection) = match db.dedicated().await {
        Ok(pair) => pair,
        Err(err) => {
            tracing::warn!(error = %err, "cannot listen for live events; looking every second instead");
            return None;
        }
    };
    let reader = tokio::spawn(async move {
        let mut messages = futures::stream::poll_fn(move |cx| connection.poll_message(cx));
        while let Some(message) = futures::StreamExt::next(&mut messages).await {
            match message {
                Ok(tokio_postgres::AsyncMessage::Notification(_)) => told.notify_one(),
                Ok(_) => {}
                Err(err) => {
                    tracing::warn!(error = %err, "the live events' connection ended");
                    break;
                }
            }
        }
    });
    // The task above drives the connection while the client asks to listen.
    if let Err(err) = client.batch_execute(&format!("LISTEN {}", crate::store::pg::events::CHANNEL)).await {
        tracing::warn!(error = %err, "cannot listen for live events; looking every second instead");
        reader.abort();
        return None;
    }
    // The client lives as long as the connection it listens on.
    Some(tokio::spawn(async move {
        let _client = client;
        let _ = reader.await;
    }))
}

/// The highest id ever given to an event (AUTOINCREMENT never gives one again, even after a
/// delete), 0 before the first.
fn latest_id(conn: &rusqlite::Connection) -> rusqlite::Result<i64> {
    use rusqlite::OptionalExtension;
    Ok(conn
        .query_row("SELECT seq FROM sqlite_sequence WHERE name = 'events'", [], |row| row.get(0))
        .optional()?
        .unwrap_or(0))
}

/// Deletes events older than `before` (unix seconds) and records the highest id deleted.
fn prune_old(tx: &rusqlite::Transaction<'_>, before: i64) -> Result<()> {
    use rusqlite::OptionalExtension;
    let highest: Option<i64> =
        tx.query_row("SELECT MAX(id) FROM events WHERE at < ?1", [before], |row| row.get(0)).optional()?.flatten();
    if let Some(highest) = highest {
        tx.execute("DELETE FROM events WHERE id <= ?1", [highest])?;
        tx.execute(
            "INSERT INTO events_meta (key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = ?2",
            rusqlite::params![PRUNED_THROUGH_KEY, highest.to_string()],
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events_of(since: Since) -> Vec<(i64, EventKind, String)> {
        match since {
            Since::Events(events) => events.into_iter().map(|e| (e.id, e.kind, e.data)).collect(),
            Since::Reset { latest } => panic!("unexpected reset to {latest}"),
        }
    }

    #[tokio::test]
    async fn events_are_numbered_stored_and_sent_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let db = crate::store::Db::open(dir.path()).unwrap();
        let hub = EventHub::start(&db, dir.path()).await.unwrap();
        let mut live = hub.subscribe();
        hub.publish(EventKind::DocumentSaved, &"doc-1");
        hub.publish(EventKind::Webhook, &serde_json::json!({"kind": "received"}));
        let first = live.recv().await.unwrap();
        let second = live.recv().await.unwrap();
        assert_eq!((first.kind, first.data.as_str()), (EventKind::DocumentSaved, "\"doc-1\""));
        assert_eq!(second.id, first.id + 1);
        assert_eq!(hub.latest().await.unwrap(), second.id);

        let stored = events_of(hub.since(0, 10).await.unwrap());
        assert_eq!(stored.len(), 2);
        assert_eq!(stored[1], (second.id, EventKind::Webhook, r#"{"kind":"received"}"#.to_string()));
        assert_eq!(events_of(hub.since(first.id, 10).await.unwrap()).len(), 1);
        assert_eq!(events_of(hub.since(second.id, 10).await.unwrap()).len(), 0);
        assert_eq!(events_of(hub.since(0, 1).await.unwrap()).len(), 1, "the limit holds");
    }

    #[tokio::test]
    async fn an_id_that_was_pruned_or_never_issued_gets_a_reset() {
        let dir = tempfile::tempdir().unwrap();
        let db = crate::store::Db::open(dir.path()).unwrap();
        let hub = EventHub::start(&db, dir.path()).await.unwrap();
        let mut live = hub.subscribe();
        for n in 0..3 {
            hub.publish(EventKind::DocumentSaved, &format!("doc-{n}"));
        }
        for _ in 0..3 {
            live.recv().await.unwrap();
        }
        // The first two are a day and a minute old.
        let old = crate::time::now_unix() - RETENTION.as_secs() as i64 - 60;
        let EventStore::Sqlite(events) = &hub.db else { unreachable!("a SQLite data dir") };
        events
            .transaction(move |tx| {
                tx.execute("UPDATE events SET at = ?1 WHERE id <= 2", [old])?;
                prune_old(tx, crate::time::now_unix() - RETENTION.as_secs() as i64)
            })
            .await
            .unwrap();

        assert_eq!(hub.since(1, 10).await.unwrap(), Since::Reset { latest: 3 }, "event 2 is gone");
        assert_eq!(events_of(hub.since(2, 10).await.unwrap()).len(), 1, "nothing after 2 is gone");
        assert_eq!(hub.since(99, 10).await.unwrap(), Since::Reset { latest: 3 }, "not an id of this database");
    }
}
