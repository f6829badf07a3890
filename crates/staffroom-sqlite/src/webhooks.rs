//! SQLite's SQL of the webhook inbox. The writer is a thread with a connection of its own at
//! `synchronous=FULL` (an acknowledged delivery survives a power cut, not only a crash), taking
//! its turn with the file's other writers.

use crate::Sql as _;
use std::time::Duration;

use rusqlite::{params, Connection, OptionalExtension};
use tokio::sync::mpsc;

use super::Sqlite;
use staffroom_core::error::{Error, Result};
use staffroom_core::webhooks::store::{answer, gather, InboxEntry, InboxJob, InboxStore, Stored, MAX_GROUP};
use staffroom_core::webhooks::ApplyResult;

/// The writer thread: while one group commits, the next gathers in the queue.
fn writer(mut conn: Connection, db: Sqlite, mut jobs: mpsc::Receiver<InboxJob>) {
    let mut group = Vec::with_capacity(MAX_GROUP);
    while let Some(first) = jobs.blocking_recv() {
        gather(first, &mut jobs, &mut group);
        // In turn with the applier and the other writers of the file, so that none waits long.
        let turn = db.write_turn();
        let written = write_group(&mut conn, &group).map_err(|e| e.to_string());
        drop(turn);
        answer(&mut group, written);
    }
}

fn write_group(conn: &mut Connection, group: &[InboxJob]) -> rusqlite::Result<Vec<Stored>> {
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

#[async_trait::async_trait]
impl InboxStore for Sqlite {
    async fn start_inbox_writer(&self, jobs: mpsc::Receiver<InboxJob>) -> Result<()> {
        // Opening the file is disk work: off the async threads, like every other query.
        let path = self.path().to_path_buf();
        let conn = tokio::task::spawn_blocking(move || -> Result<Connection> {
            let conn = Connection::open(path).sql()?;
            conn.busy_timeout(Duration::from_secs(10)).sql()?;
            conn.pragma_update(None, "journal_mode", "WAL").sql()?;
            conn.pragma_update(None, "synchronous", "FULL").sql()?;
            Ok(conn)
        })
        .await??;
        let db = self.clone();
        std::thread::Builder::new()
            .name("webhook-inbox".into())
            .spawn(move || writer(conn, db, jobs))
            .map_err(|e| Error::internal("webhook writer thread", e))?;
        Ok(())
    }

    async fn unapplied_deliveries(&self, limit: u32, before: String) -> Result<Vec<(i64, Vec<u8>)>> {
        self.call(move |conn| {
            let mut stmt = conn
                .prepare(
                    "SELECT id, body FROM webhook_events WHERE applied_at IS NULL AND received_at < ?2
                 ORDER BY id LIMIT ?1",
                )
                .sql()?;
            let rows = stmt.query_map(params![limit, before], |row| Ok((row.get(0)?, row.get(1)?))).sql()?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>().sql()?)
        })
        .await
    }

    async fn mark_deliveries_applied(&self, results: &[(i64, ApplyResult)]) -> Result<()> {
        let (results, now) = (results.to_vec(), staffroom_core::time::now_rfc3339());
        self.transaction(move |tx| {
            let mut update = tx.prepare_cached(
                "UPDATE webhook_events SET applied_at = ?2, outcome = ?3, order_id = ?4, subscription_id = ?5 WHERE id = ?1",
            ).sql()?;
            for (id, r) in &results {
                update.execute(params![id, now, r.outcome.to_string(), r.order_id, r.subscription_id]).sql()?;
            }
            Ok(())
        })
        .await
    }

    async fn recent_deliveries(&self, limit: u32) -> Result<Vec<InboxEntry>> {
        self.call(move |conn| {
            let mut stmt =
                conn.prepare(&format!("SELECT {ENTRY_COLUMNS} FROM webhook_events ORDER BY id DESC LIMIT ?1")).sql()?;
            let rows = stmt.query_map([limit.clamp(1, 500)], entry).sql()?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>().sql()?)
        })
        .await
    }

    async fn deliveries_for_order(&self, order_id: String) -> Result<Vec<InboxEntry>> {
        self.call(move |conn| {
            let mut stmt = conn
                .prepare(&format!("SELECT {ENTRY_COLUMNS} FROM webhook_events WHERE order_id = ?1 ORDER BY id"))
                .sql()?;
            let rows = stmt.query_map([order_id], entry).sql()?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>().sql()?)
        })
        .await
    }

    async fn delivery(&self, id: i64) -> Result<Option<InboxEntry>> {
        self.call(move |conn| {
            Ok(conn
                .query_row(&format!("SELECT {ENTRY_COLUMNS} FROM webhook_events WHERE id = ?1"), [id], entry)
                .optional()
                .sql()?)
        })
        .await
    }

    async fn delivery_count(&self) -> Result<i64> {
        self.call(|conn| Ok(conn.query_row("SELECT COUNT(*) FROM webhook_events", [], |r| r.get(0)).sql()?)).await
    }
}
