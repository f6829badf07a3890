//! PostgreSQL's SQL of the audit log (see `store::audit` for what each does).

use deadpool_postgres::GenericClient;

use crate::error::Result;
use crate::store::audit::{AuditEntry, NewAuditEntry};

/// Appends an entry; its id.
pub async fn append(db: &impl GenericClient, entry: &NewAuditEntry<'_>) -> Result<i64> {
    let detail = entry.detail.as_ref().map(|d| d.to_string());
    let row = db
        .query_one(
            "INSERT INTO audit_log (at, actor, action, target, outcome, detail) VALUES ($1, $2, $3, $4, $5, $6)
             RETURNING id",
            &[
                &crate::time::now_rfc3339(),
                &entry.actor,
                &entry.action.as_str(),
                &entry.target,
                &entry.outcome,
                &detail,
            ],
        )
        .await?;
    Ok(row.get(0))
}

pub async fn list(db: &impl GenericClient, limit: u32, before: Option<i64>) -> Result<Vec<AuditEntry>> {
    let rows = db
        .query(
            "SELECT id, at, actor, action, target, outcome, detail FROM audit_log
             WHERE $1::BIGINT IS NULL OR id < $1 ORDER BY id DESC LIMIT $2",
            &[&before, &i64::from(limit)],
        )
        .await?;
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
    Ok(db.execute("DELETE FROM audit_log WHERE at < $1", &[&cutoff]).await? as usize)
}
