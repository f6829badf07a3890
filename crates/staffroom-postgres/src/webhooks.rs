//! PostgreSQL's SQL of the webhook inbox. The writer is a task with a pooled connection of its
//! own, whose commits wait for the WAL flush (`synchronous_commit` on, whatever the server's
//! default); a group of deliveries is stored in one transaction of two statements, whatever its
//! size.

use crate::Sql as _;
use std::collections::HashMap;

use deadpool_postgres::GenericClient;
use tokio_postgres::Row;

use tokio::sync::mpsc;

use super::Postgres;
use staffroom_core::error::Result;
use staffroom_core::webhooks::store::{
    answer, gather, InboxEntry, InboxJob, InboxStore, NewDelivery, Stored, MAX_GROUP,
};
use staffroom_core::webhooks::ApplyResult;

/// Stores a group in one commit: each delivery new (with its id) or found stored before. A key
/// twice in one group is new once, then a duplicate of itself.
pub async fn write_group(db: &mut deadpool_postgres::Object, group: &[&NewDelivery]) -> Result<Vec<Stored>> {
    let column = |f: fn(&NewDelivery) -> Option<&str>| group.iter().map(|d| f(d)).collect::<Vec<_>>();
    let keys = column(|d| Some(&d.dedupe_key));
    let bodies: Vec<&[u8]> = group.iter().map(|d| d.body.as_slice()).collect();
    let tx = db.transaction().await.sql()?;
    // Ids are taken in the group's order (ORDER BY n), which is the order they arrived in; rows
    // are inserted in key order, so that two replicas storing the same deliveries at once (in
    // different orders) wait on each other's keys in one order and never deadlock.
    let inserted = tx
        .query(
            "WITH input AS (
                 SELECT nextval(pg_get_serial_sequence('webhook_events', 'id')) AS id, k, w, e, t, r, b, a
                 FROM unnest($1::TEXT[], $2::TEXT[], $3::TEXT[], $4::TEXT[], $5::TEXT[], $6::BYTEA[], $7::TEXT[])
                      WITH ORDINALITY AS u (k, w, e, t, r, b, a, n)
                 ORDER BY n)
             INSERT INTO webhook_events (id, dedupe_key, webhook_id, event_name, resource_type, resource_id, body,
                    verified, received_at)
             OVERRIDING SYSTEM VALUE
             SELECT id, k, w, e, t, r, b, TRUE, a FROM input ORDER BY k, id
             ON CONFLICT (dedupe_key) DO NOTHING
             RETURNING id, dedupe_key",
            &[
                &keys,
                &column(|d| d.webhook_id.as_deref()),
                &column(|d| Some(&d.event_name)),
                &column(|d| Some(&d.resource_type)),
                &column(|d| Some(&d.resource_id)),
                &bodies,
                &column(|d| Some(&d.received_at)),
            ],
        )
        .await
        .sql()?;
    let mut new: HashMap<String, i64> = inserted.iter().map(|row| (row.get(1), row.get(0))).collect();
    let missing: Vec<&str> = keys.iter().flatten().copied().filter(|k| !new.contains_key(*k)).collect();
    let mut before: HashMap<String, i64> = HashMap::new();
    if !missing.is_empty() {
        for row in
            tx.query("SELECT id, dedupe_key FROM webhook_events WHERE dedupe_key = ANY($1)", &[&missing]).await.sql()?
        {
            before.insert(row.get(1), row.get(0));
        }
    }
    tx.commit().await.sql()?;
    let results = group
        .iter()
        .map(|d| match new.remove(&d.dedupe_key) {
            Some(id) => {
                before.insert(d.dedupe_key.clone(), id);
                Stored::New(id)
            }
            None => Stored::Duplicate(before[&d.dedupe_key]),
        })
        .collect();
    Ok(results)
}

const ENTRY_COLUMNS: &str =
    "id, event_name, resource_type, resource_id, verified, received_at, applied_at, outcome, order_id, subscription_id";

fn entry_of(row: &Row) -> InboxEntry {
    InboxEntry {
        id: row.get(0),
        event_name: row.get(1),
        resource_type: row.get(2),
        resource_id: row.get(3),
        verified: row.get(4),
        received_at: row.get(5),
        applied_at: row.get(6),
        outcome: row.get(7),
        order_id: row.get(8),
        subscription_id: row.get(9),
    }
}

pub async fn unapplied(db: &impl GenericClient, limit: u32, received_before: &str) -> Result<Vec<(i64, Vec<u8>)>> {
    let rows = db
        .query(
            "SELECT id, body FROM webhook_events WHERE applied_at IS NULL AND received_at < $2 ORDER BY id LIMIT $1",
            &[&i64::from(limit), &received_before],
        )
        .await
        .sql()?;
    Ok(rows.iter().map(|row| (row.get(0), row.get(1))).collect())
}

pub async fn mark_applied(db: &impl GenericClient, results: &[(i64, ApplyResult)], now: &str) -> Result<()> {
    let ids: Vec<i64> = results.iter().map(|(id, _)| *id).collect();
    let outcomes: Vec<String> = results.iter().map(|(_, r)| r.outcome.to_string()).collect();
    let orders: Vec<Option<&str>> = results.iter().map(|(_, r)| r.order_id.as_deref()).collect();
    let subscriptions: Vec<Option<&str>> = results.iter().map(|(_, r)| r.subscription_id.as_deref()).collect();
    db.execute(
        "UPDATE webhook_events w SET applied_at = $5, outcome = u.outcome, order_id = u.order_id,
                subscription_id = u.subscription_id
         FROM unnest($1::BIGINT[], $2::TEXT[], $3::TEXT[], $4::TEXT[]) AS u (id, outcome, order_id, subscription_id)
         WHERE w.id = u.id",
        &[&ids, &outcomes, &orders, &subscriptions, &now],
    )
    .await
    .sql()?;
    Ok(())
}

pub async fn recent(db: &impl GenericClient, limit: u32) -> Result<Vec<InboxEntry>> {
    let sql = format!("SELECT {ENTRY_COLUMNS} FROM webhook_events ORDER BY id DESC LIMIT $1");
    Ok(db.query(&sql, &[&i64::from(limit.clamp(1, 500))]).await.sql()?.iter().map(entry_of).collect())
}

pub async fn for_order(db: &impl GenericClient, order_id: &str) -> Result<Vec<InboxEntry>> {
    let sql = format!("SELECT {ENTRY_COLUMNS} FROM webhook_events WHERE order_id = $1 ORDER BY id");
    Ok(db.query(&sql, &[&order_id]).await.sql()?.iter().map(entry_of).collect())
}

pub async fn get(db: &impl GenericClient, id: i64) -> Result<Option<InboxEntry>> {
    let sql = format!("SELECT {ENTRY_COLUMNS} FROM webhook_events WHERE id = $1");
    Ok(db.query_opt(&sql, &[&id]).await.sql()?.as_ref().map(entry_of))
}

pub async fn count(db: &impl GenericClient) -> Result<i64> {
    Ok(db.query_one("SELECT COUNT(*) FROM webhook_events", &[]).await.sql()?.get(0))
}

/// PostgreSQL's writer: while one group commits, the next gathers in the queue.
async fn writer(mut client: deadpool_postgres::Object, mut jobs: mpsc::Receiver<InboxJob>) {
    let mut group = Vec::with_capacity(MAX_GROUP);
    while let Some(first) = jobs.recv().await {
        gather(first, &mut jobs, &mut group);
        let deliveries: Vec<&NewDelivery> = group.iter().map(|job| &job.delivery).collect();
        let written = write_group(&mut client, &deliveries).await.map_err(|e| e.to_string());
        answer(&mut group, written);
    }
}

#[async_trait::async_trait]
impl InboxStore for Postgres {
    async fn start_inbox_writer(&self, jobs: mpsc::Receiver<InboxJob>) -> Result<()> {
        let client = self.client().await?;
        // Durable before the 200, whatever the server's default says.
        client.batch_execute("SET synchronous_commit = on").await.sql()?;
        tokio::spawn(writer(client, jobs));
        Ok(())
    }

    async fn unapplied_deliveries(&self, limit: u32, before: String) -> Result<Vec<(i64, Vec<u8>)>> {
        unapplied(&self.client().await?, limit, &before).await
    }

    async fn mark_deliveries_applied(&self, results: &[(i64, ApplyResult)]) -> Result<()> {
        mark_applied(&self.client().await?, results, &staffroom_core::time::now_rfc3339()).await
    }

    async fn recent_deliveries(&self, limit: u32) -> Result<Vec<InboxEntry>> {
        recent(&self.client().await?, limit).await
    }

    async fn deliveries_for_order(&self, order_id: String) -> Result<Vec<InboxEntry>> {
        for_order(&self.client().await?, &order_id).await
    }

    async fn delivery(&self, id: i64) -> Result<Option<InboxEntry>> {
        get(&self.client().await?, id).await
    }

    async fn delivery_count(&self) -> Result<i64> {
        count(&self.client().await?).await
    }
}
