//! PostgreSQL's SQL of the audit log: who did what, when, to what, and how it ended.

use crate::Sql as _;
use deadpool_postgres::GenericClient;

use super::Postgres;
use staffroom_core::audit::store::{AuditEntry, AuditQuery, AuditStore, NewAuditEntry};
use staffroom_core::error::Result;

/// Appends an entry; its id.
pub async fn append(db: &impl GenericClient, entry: &NewAuditEntry<'_>) -> Result<i64> {
    let detail = entry.detail.as_ref().map(|d| d.to_string());
    let row = db
        .query_one(
            "INSERT INTO audit_log (at, actor, action, target, outcome, detail) VALUES ($1, $2, $3, $4, $5, $6)
             RETURNING id",
            &[
                &staffroom_core::time::now_rfc3339(),
                &entry.actor,
                &entry.action.as_str(),
                &entry.target,
                &entry.outcome,
                &detail,
            ],
        )
        .await
        .sql()?;
    Ok(row.get(0))
}

/// The entries `query` asks for, newest first.
pub async fn list(db: &impl GenericClient, query: &AuditQuery) -> Result<Vec<AuditEntry>> {
    let sql = db
        .prepare_cached(
            "SELECT id, at, actor, action, target, outcome, detail FROM audit_log
             WHERE ($1::BIGINT IS NULL OR id < $1) AND ($3::TEXT IS NULL OR actor = $3)
               AND ($4::TEXT IS NULL OR action = $4) AND ($5::TEXT IS NULL OR at >= $5)
               AND ($6::TEXT IS NULL OR at < $6)
             ORDER BY id DESC LIMIT $2",
        )
        .await
        .sql()?;
    let limit = i64::from(query.limit);
    let rows =
        db.query(&sql, &[&query.before, &limit, &query.actor, &query.action, &query.from, &query.to]).await.sql()?;
    Ok(rows
        .iter()
        .map(|row| AuditEntry {
            id: row.get(0),
            at: row.get(1),
            actor: row.get(2),
            action: row.get(3),
            target: row.get(4),
            outcome: row.get(5),
            detail: row.get(6),
        })
        .collect())
}

pub async fn prune(db: &impl GenericClient, cutoff: &str) -> Result<usize> {
    Ok(db.execute("DELETE FROM audit_log WHERE at < $1", &[&cutoff]).await.sql()? as usize)
}

#[async_trait::async_trait]
impl AuditStore for Postgres {
    async fn append_audit(&self, entry: NewAuditEntry<'_>) -> Result<()> {
        append(&self.client().await?, &entry).await.map(drop)
    }

    async fn audit_entries(&self, query: AuditQuery) -> Result<Vec<AuditEntry>> {
        list(&self.client().await?, &query).await
    }

    async fn prune_audit(&self, cutoff: String) -> Result<usize> {
        prune(&self.client().await?, &cutoff).await
    }
}
