//! PostgreSQL's SQL of the live events (see `events`): numbered in commit order across replicas,
//! since every writer takes one lock for its transaction, and announced with `NOTIFY`.

use deadpool_postgres::GenericClient;

use crate::error::Result;
use crate::events::{EventKind, LiveEvent, Since};

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
    let kinds: Vec<EventKind> = batch.iter().map(|(kind, _)| *kind).collect();
    let data: Vec<&str> = batch.iter().map(|(_, data)| data.as_str()).collect();
    let tx = db.transaction().await?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&WRITE_LOCK]).await?;
    tx.execute(
        "INSERT INTO events (at, kind, data)
         SELECT $1, k, d FROM unnest($2::TEXT[], $3::TEXT[]) WITH ORDINALITY AS input (k, d, n) ORDER BY n",
        &[&now, &kinds, &data],
    )
    .await?;
    if let Some(before) = prune_before {
        let highest: Option<i64> = tx.query_one("SELECT MAX(id) FROM events WHERE at < $1", &[&before]).await?.get(0);
        if let Some(highest) = highest {
            tx.execute("DELETE FROM events WHERE id <= $1", &[&highest]).await?;
            tx.execute(
                "INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = $2",
                &[&PRUNED_THROUGH, &highest.to_string()],
            )
            .await?;
        }
    }
    tx.execute("SELECT pg_notify($1, '')", &[&CHANNEL]).await?;
    tx.commit().await?;
    Ok(())
}

async fn pruned_through(db: &impl GenericClient) -> Result<i64> {
    let row = db.query_opt("SELECT value FROM meta WHERE key = $1", &[&PRUNED_THROUGH]).await?;
    Ok(row.and_then(|row| row.get::<_, String>(0).parse().ok()).unwrap_or(0))
}

/// The newest id committed (ids commit in order, so nothing below it is still to come).
pub async fn latest(db: &impl GenericClient) -> Result<i64> {
    let newest: Option<i64> = db.query_one("SELECT MAX(id) FROM events", &[]).await?.get(0);
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
        .await?;
    Ok(rows.iter().map(|row| LiveEvent { id: row.get(0), kind: row.get(1), data: row.get(2) }).collect())
}
