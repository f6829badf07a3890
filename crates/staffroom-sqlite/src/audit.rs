//! SQLite's SQL of the audit log: who did what, when, to what, and how it ended.

use crate::Sql as _;
use rusqlite::{params, Connection};

use super::Sqlite;
use staffroom_core::audit::store::{AuditEntry, AuditQuery, AuditStore, NewAuditEntry};
use staffroom_core::error::Result;

/// Appends an entry.
pub fn append(conn: &Connection, entry: &NewAuditEntry<'_>) -> Result<()> {
    conn.execute(
        "INSERT INTO audit_log (at, actor, action, target, outcome, detail) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            staffroom_core::time::now_rfc3339(),
            entry.actor,
            entry.action.as_str(),
            entry.target,
            entry.outcome,
            entry.detail.as_ref().map(|d| d.to_string())
        ],
    )
    .sql()?;
    Ok(())
}

/// The entries `query` asks for, newest first.
pub fn list(conn: &Connection, query: &AuditQuery) -> Result<Vec<AuditEntry>> {
    let mut stmt = conn
        .prepare_cached(
            "SELECT id, at, actor, action, target, outcome, detail FROM audit_log
         WHERE (?1 IS NULL OR id < ?1) AND (?3 IS NULL OR actor = ?3) AND (?4 IS NULL OR action = ?4)
           AND (?5 IS NULL OR at >= ?5) AND (?6 IS NULL OR at < ?6)
         ORDER BY id DESC LIMIT ?2",
        )
        .sql()?;
    let values = params![query.before, query.limit, query.actor, query.action, query.from, query.to];
    let rows = stmt
        .query_map(values, |row| {
            Ok(AuditEntry {
                id: row.get(0)?,
                at: row.get(1)?,
                actor: row.get(2)?,
                action: row.get(3)?,
                target: row.get(4)?,
                outcome: row.get(5)?,
                detail: row.get(6)?,
            })
        })
        .sql()?
        .collect::<rusqlite::Result<Vec<_>>>()
        .sql()?;
    Ok(rows)
}

/// Deletes entries older than `cutoff` (RFC 3339); how many went.
pub fn prune(conn: &Connection, cutoff: &str) -> Result<usize> {
    Ok(conn.execute("DELETE FROM audit_log WHERE at < ?1", [cutoff]).sql()?)
}

#[async_trait::async_trait]
impl AuditStore for Sqlite {
    async fn append_audit(&self, entry: NewAuditEntry<'_>) -> Result<()> {
        let (actor, target, outcome) =
            (entry.actor.to_string(), entry.target.map(str::to_string), entry.outcome.to_string());
        let (action, detail) = (entry.action, entry.detail);
        self.write(move |conn| {
            append(conn, &NewAuditEntry { actor: &actor, action, target: target.as_deref(), outcome: &outcome, detail })
        })
        .await
    }

    async fn audit_entries(&self, query: AuditQuery) -> Result<Vec<AuditEntry>> {
        self.call(move |conn| list(conn, &query)).await
    }

    async fn prune_audit(&self, cutoff: String) -> Result<usize> {
        self.write(move |conn| prune(conn, &cutoff)).await
    }
}
