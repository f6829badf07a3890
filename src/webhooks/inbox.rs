//! The durable webhook inbox. One writer owns a connection and commits deliveries in groups:
//! every delivery waiting when a commit starts shares that commit's sync, so throughput grows
//! with concurrency while each acknowledged delivery is on disk before its 200. On SQLite the
//! writer is a thread with `synchronous=FULL`; on PostgreSQL a task whose commits wait for the
//! WAL flush (`synchronous_commit` on, PostgreSQL's default, which the connection insists on).

use std::time::Duration;

use rusqlite::{params, Connection, OptionalExtension};
use serde::Serialize;
use tokio::sync::{mpsc, oneshot};

use crate::error::{Error, Result};
use crate::store::{pg, Db};

/// Most deliveries written by one commit.
const MAX_GROUP: usize = 1024;
/// Deliveries waiting for the writer before senders are slowed down.
const QUEUE: usize = 8192;

/// A verified delivery about to be stored.
#[derive(Debug, Clone)]
pub struct NewDelivery {
    pub dedupe_key: String,
    pub webhook_id: Option<String>,
    pub event_name: String,
    pub resource_type: String,
    pub resource_id: String,
    pub body: Vec<u8>,
    pub received_at: String,
}

/// What storing did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stored {
    /// A new delivery, with its inbox id.
    New(i64),
    /// The same delivery was stored before, under this id.
    Duplicate(i64),
}

struct Job {
    delivery: NewDelivery,
    reply: oneshot::Sender<Result<Stored>>,
}

/// The writer side of the inbox.
#[derive(Clone)]
pub struct WebhookInbox {
    jobs: mpsc::Sender<Job>,
}

impl WebhookInbox {
    /// Starts the writer of `db`'s inbox, on a connection of its own. It ends when every
    /// `WebhookInbox` clone is dropped.
    pub async fn open(db: &Db) -> Result<Self> {
        match db {
            Db::Sqlite(db) => Self::open_sqlite(db),
            Db::Postgres(db) => {
                let client = db.client().await?;
                // Durable before the 200, whatever the server's default says.
                client.batch_execute("SET synchronous_commit = on").await?;
                let (jobs, receiver) = mpsc::channel(QUEUE);
                tokio::spawn(pg_writer(client, receiver));
                Ok(WebhookInbox { jobs })
            }
        }
    }

    fn open_sqlite(db: &crate::store::Sqlite) -> Result<Self> {
        let conn = Connection::open(db.path())?;
        conn.busy_timeout(Duration::from_secs(10))?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        // A full sync per commit: an acknowledged delivery survives a power cut, not only a crash.
        conn.pragma_update(None, "synchronous", "FULL")?;
        let (jobs, receiver) = mpsc::channel(QUEUE);
        std::thread::Builder::new()
            .name("webhook-inbox".into())
            .spawn({
                let db = db.clone();
                move || writer(conn, db, receiver)
            })
            .map_err(|e| Error::internal("webhook writer thread", e))?;
        Ok(WebhookInbox { jobs })
    }

    /// Stores `delivery` durably, or finds it stored already.
    pub async fn store(&self, delivery: NewDelivery) -> Result<Stored> {
        let (reply, answer) = oneshot::channel();
        self.jobs
            .send(Job { delivery, reply })
            .await
            .map_err(|_| Error::internal("webhook inbox", "the writer thread has stopped"))?;
        answer.await.map_err(|_| Error::internal("webhook inbox", "the writer thread dropped a delivery"))?
    }
}

/// Answers every job of a group with its result, or all of them with the error.
fn answer(group: &mut Vec<Job>, written: std::result::Result<Vec<Stored>, String>) {
    match written {
        Ok(results) => {
            for (job, stored) in group.drain(..).zip(results) {
                let _ = job.reply.send(Ok(stored));
            }
        }
        Err(err) => {
            tracing::error!(%err, deliveries = group.len(), "could not store webhook deliveries");
            for job in group.drain(..) {
                let _ = job.reply.send(Err(Error::internal("webhook inbox", &err)));
            }
        }
    }
}

/// PostgreSQL's writer: while one group commits, the next gathers in the queue.
async fn pg_writer(mut client: deadpool_postgres::Object, mut jobs: mpsc::Receiver<Job>) {
    let mut group = Vec::with_capacity(MAX_GROUP);
    while let Some(first) = jobs.recv().await {
        group.push(first);
        while group.len() < MAX_GROUP {
            match jobs.try_recv() {
                Ok(job) => group.push(job),
                Err(_) => break,
            }
        }
        let deliveries: Vec<&NewDelivery> = group.iter().map(|job| &job.delivery).collect();
        let written = pg::webhooks::write_group(&mut client, &deliveries).await.map_err(|e| e.to_string());
        answer(&mut group, written);
    }
}

fn writer(mut conn: Connection, db: crate::store::Sqlite, mut jobs: mpsc::Receiver<Job>) {
    let mut group = Vec::with_capacity(MAX_GROUP);
    while let Some(first) = jobs.blocking_recv() {
        group.push(first);
        while group.len() < MAX_GROUP {
            match jobs.try_recv() {
                Ok(job) => group.push(job),
                Err(_) => break,
            }
        }
        // In turn with the applier and the other writers of the file, so that none waits long.
        let turn = db.write_turn();
        let written = write_group(&mut conn, &group).map_err(|e| e.to_string());
        drop(turn);
        answer(&mut group, written);
    }
}

fn write_group(conn: &mut Connection, group: &[Job]) -> rusqlite::Result<Vec<Stored>> {
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    let mut results = Vec::with_capacity(group.len());
    {
        let mut insert = tx.prepare_cached(
            "INSERT INTO webhook_events (dedupe_key, webhook_id, event_name, resource_type, resource_id, body, verified, received_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, 1, ?7)
             ON CONFLICT(dedupe_key) DO NOTHING",
        )?;
        let mut existing = tx.prepare_cached("SELECT id FROM webhook_events WHERE dedupe_key = ?1")?;
        for job in group {
            let d = &job.delivery;
            let inserted = insert.execute(params![
                d.dedupe_key,
                d.webhook_id,
                d.event_name,
                d.resource_type,
                d.resource_id,
                d.body,
                d.received_at
            ])?;
            results.push(if inserted == 1 {
                Stored::New(tx.last_insert_rowid())
            } else {
                Stored::Duplicate(existing.query_row([&d.dedupe_key], |row| row.get(0))?)
            });
        }
    }
    tx.commit()?;
    Ok(results)
}

/// A stored delivery, as the webhooks panel and order histories show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct InboxEntry {
    pub id: i64,
    pub event_name: String,
    pub resource_type: String,
    pub resource_id: String,
    pub verified: bool,
    pub received_at: String,
    pub applied_at: Option<String>,
    pub outcome: Option<String>,
    pub order_id: Option<String>,
    pub subscription_id: Option<String>,
}

const ENTRY_COLUMNS: &str =
    "id, event_name, resource_type, resource_id, verified, received_at, applied_at, outcome, order_id, subscription_id";

fn entry(row: &rusqlite::Row<'_>) -> rusqlite::Result<InboxEntry> {
    Ok(InboxEntry {
        id: row.get(0)?,
        event_name: row.get(1)?,
        resource_type: row.get(2)?,
        resource_id: row.get(3)?,
        verified: row.get::<_, i64>(4)? == 1,
        received_at: row.get(5)?,
        applied_at: row.get(6)?,
        outcome: row.get(7)?,
        order_id: row.get(8)?,
        subscription_id: row.get(9)?,
    })
}

/// Reads of the inbox (through the ordinary pool).
#[derive(Clone)]
pub struct InboxReader {
    db: Db,
}

impl InboxReader {
    /// Reads `db`'s inbox.
    pub fn new(db: Db) -> Self {
        InboxReader { db }
    }

    /// Deliveries not applied yet, oldest first, with their bodies.
    pub async fn unapplied(&self, limit: u32) -> Result<Vec<(i64, Vec<u8>)>> {
        self.unapplied_received_before(limit, "9999").await
    }

    /// Deliveries not applied yet that were received before `before` (RFC 3339, as stored),
    /// oldest first, with their bodies.
    pub async fn unapplied_received_before(&self, limit: u32, before: &str) -> Result<Vec<(i64, Vec<u8>)>> {
        if let Db::Postgres(db) = &self.db {
            return pg::webhooks::unapplied(&db.client().await?, limit, before).await;
        }
        let before = before.to_string();
        self.db
            .call(move |conn| {
                let mut stmt = conn.prepare(
                    "SELECT id, body FROM webhook_events WHERE applied_at IS NULL AND received_at < ?2
                     ORDER BY id LIMIT ?1",
                )?;
                let rows = stmt.query_map(rusqlite::params![limit, before], |row| Ok((row.get(0)?, row.get(1)?)))?;
                Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
            })
            .await
    }

    /// Records how applying each delivery ended, and what it touched, in one transaction.
    pub async fn mark_applied(&self, results: &[(i64, super::ApplyResult)]) -> Result<()> {
        let now = crate::time::now_rfc3339();
        if let Db::Postgres(db) = &self.db {
            return pg::webhooks::mark_applied(&db.client().await?, results, &now).await;
        }
        let results = results.to_vec();
        self.db
            .transaction(move |tx| {
                let mut update = tx.prepare_cached(
                    "UPDATE webhook_events SET applied_at = ?2, outcome = ?3, order_id = ?4, subscription_id = ?5 WHERE id = ?1",
                )?;
                for (id, r) in &results {
                    update.execute(params![id, now, r.outcome.to_string(), r.order_id, r.subscription_id])?;
                }
                Ok(())
            })
            .await
    }

    /// The newest deliveries first.
    pub async fn recent(&self, limit: u32) -> Result<Vec<InboxEntry>> {
        if let Db::Postgres(db) = &self.db {
            return pg::webhooks::recent(&db.client().await?, limit).await;
        }
        self.db
            .call(move |conn| {
                let mut stmt =
                    conn.prepare(&format!("SELECT {ENTRY_COLUMNS} FROM webhook_events ORDER BY id DESC LIMIT ?1"))?;
                let rows = stmt.query_map([limit.clamp(1, 500)], entry)?;
                Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
            })
            .await
    }

    /// The deliveries applied to one local order, oldest first.
    pub async fn for_order(&self, order_id: &str) -> Result<Vec<InboxEntry>> {
        if let Db::Postgres(db) = &self.db {
            return pg::webhooks::for_order(&db.client().await?, order_id).await;
        }
        let order_id = order_id.to_string();
        self.db
            .call(move |conn| {
                let mut stmt = conn
                    .prepare(&format!("SELECT {ENTRY_COLUMNS} FROM webhook_events WHERE order_id = ?1 ORDER BY id"))?;
                let rows = stmt.query_map([order_id], entry)?;
                Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
            })
            .await
    }

    /// One delivery.
    pub async fn get(&self, id: i64) -> Result<Option<InboxEntry>> {
        if let Db::Postgres(db) = &self.db {
            return pg::webhooks::get(&db.client().await?, id).await;
        }
        self.db
            .call(move |conn| {
                Ok(conn
                    .query_row(&format!("SELECT {ENTRY_COLUMNS} FROM webhook_events WHERE id = ?1"), [id], entry)
                    .optional()?)
            })
            .await
    }

    /// How many deliveries are stored (for tests and the panel's counters).
    pub async fn count(&self) -> Result<i64> {
        if let Db::Postgres(db) = &self.db {
            return pg::webhooks::count(&db.client().await?).await;
        }
        self.db.call(|conn| Ok(conn.query_row("SELECT COUNT(*) FROM webhook_events", [], |r| r.get(0))?)).await
    }
}
