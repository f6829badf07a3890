//! PostgreSQL keeps live events in the team's database, so that an event stored by any replica
//! reaches the streams of every replica. They are numbered in commit order across replicas,
//! since every writer takes one lock for its transaction, and announced with `NOTIFY`; each
//! replica's follower hears the writers' `NOTIFY` on a connection of its own (and looks every
//! second anyway, in case a notification was lost with a connection) and sends what is new, in
//! id order.

use crate::Sql as _;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use deadpool_postgres::GenericClient;
use tokio::sync::{broadcast, mpsc, watch};

use super::Postgres;
use staffroom_core::error::Result;
use staffroom_core::events::store::{EventKeeping, EventLog, Streams};
use staffroom_core::events::{EventKind, LiveEvent, Since, BATCH, PRUNE_EVERY, RETENTION};

/// The channel a stored batch is announced on.
pub const CHANNEL: &str = "staffroom_events";
/// The lock writers take, so that ids become visible in order ("events").
const WRITE_LOCK: i64 = 0x6576_656e_7473;
/// The `meta` key of the highest id deleted by pruning.
const PRUNED_THROUGH: &str = "events_pruned_through";

/// Stores a batch in one transaction, prunes what is older than `prune_before` when given, and
/// announces it.
pub async fn store(
    db: &mut deadpool_postgres::Object,
    batch: &[(EventKind, String)],
    now: i64,
    prune_before: Option<i64>,
) -> Result<()> {
    let kinds: Vec<&str> = batch.iter().map(|(kind, _)| kind.as_str()).collect();
    let data: Vec<&str> = batch.iter().map(|(_, data)| data.as_str()).collect();
    let tx = db.transaction().await.sql()?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&WRITE_LOCK]).await.sql()?;
    tx.execute(
        "INSERT INTO events (at, kind, data)
         SELECT $1, k, d FROM unnest($2::TEXT[], $3::TEXT[]) WITH ORDINALITY AS input (k, d, n) ORDER BY n",
        &[&now, &kinds, &data],
    )
    .await
    .sql()?;
    if let Some(before) = prune_before {
        let highest: Option<i64> =
            tx.query_one("SELECT MAX(id) FROM events WHERE at < $1", &[&before]).await.sql()?.get(0);
        if let Some(highest) = highest {
            tx.execute("DELETE FROM events WHERE id <= $1", &[&highest]).await.sql()?;
            tx.execute(
                "INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = $2",
                &[&PRUNED_THROUGH, &highest.to_string()],
            )
            .await
            .sql()?;
        }
    }
    tx.execute("SELECT pg_notify($1, '')", &[&CHANNEL]).await.sql()?;
    tx.commit().await.sql()?;
    Ok(())
}

async fn pruned_through(db: &impl GenericClient) -> Result<i64> {
    let row = db.query_opt("SELECT value FROM meta WHERE key = $1", &[&PRUNED_THROUGH]).await.sql()?;
    Ok(row.and_then(|row| row.get::<_, String>(0).parse().ok()).unwrap_or(0))
}

/// The newest id committed (ids commit in order, so nothing below it is still to come).
pub async fn latest(db: &impl GenericClient) -> Result<i64> {
    let newest: Option<i64> = db.query_one("SELECT MAX(id) FROM events", &[]).await.sql()?.get(0);
    Ok(newest.unwrap_or(0).max(pruned_through(db).await?))
}

/// Up to `limit` events after `last_seen`, oldest first, or a reset.
pub async fn since(db: &impl GenericClient, last_seen: i64, limit: usize) -> Result<Since> {
    let latest = latest(db).await?;
    if last_seen < pruned_through(db).await? || last_seen > latest {
        return Ok(Since::Reset { latest });
    }
    Ok(Since::Events(after(db, last_seen, limit).await?))
}

/// Up to `limit` events after `id`, oldest first.
pub async fn after(db: &impl GenericClient, id: i64, limit: usize) -> Result<Vec<LiveEvent>> {
    let rows = db
        .query("SELECT id, kind, data FROM events WHERE id > $1 ORDER BY id LIMIT $2", &[&id, &(limit as i64)])
        .await
        .sql()?;
    Ok(rows.iter().map(|row| LiveEvent { id: row.get(0), kind: crate::get_enum(row, 1), data: row.get(2) }).collect())
}

#[async_trait::async_trait]
impl EventKeeping for Postgres {
    async fn start_events(
        &self,
        _data_dir: &Path,
        incoming: mpsc::UnboundedReceiver<(EventKind, String)>,
        streams: Streams,
    ) -> Result<Arc<dyn EventLog>> {
        tokio::spawn(write_events(self.clone(), incoming));
        // Listening before the first look, so that nothing stored after this start is heard of
        // only by the clock.
        let told = Arc::new(tokio::sync::Notify::new());
        let listening = listen(self, told.clone()).await;
        let from = latest(&self.client().await?).await?;
        tokio::spawn(follow(self.clone(), from, streams.live, streams.closing, told, listening));
        Ok(Arc::new(self.clone()))
    }
}

#[async_trait::async_trait]
impl EventLog for Postgres {
    async fn since(&self, last_seen: i64, limit: usize) -> Result<Since> {
        since(&self.client().await?, last_seen, limit).await
    }

    async fn latest(&self) -> Result<i64> {
        latest(&self.client().await?).await
    }
}

/// PostgreSQL's writer: stores and announces; the followers of every replica send.
async fn write_events(db: Postgres, mut incoming: mpsc::UnboundedReceiver<(EventKind, String)>) {
    let mut last_prune = tokio::time::Instant::now() - PRUNE_EVERY;
    let mut batch = Vec::with_capacity(BATCH);
    while incoming.recv_many(&mut batch, BATCH).await > 0 {
        let now = staffroom_core::time::now_unix();
        let prune = (last_prune.elapsed() >= PRUNE_EVERY).then(|| now - RETENTION.as_secs() as i64);
        let stored = match db.client().await {
            Ok(mut client) => store(&mut client, &batch, now, prune).await,
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
async fn follow(
    db: Postgres,
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
                Ok(client) => after(&client, sent, BATCH).await,
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
async fn listen(db: &Postgres, told: Arc<tokio::sync::Notify>) -> Option<tokio::task::JoinHandle<()>> {
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
    if let Err(err) = client.batch_execute(&format!("LISTEN {}", CHANNEL)).await {
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
