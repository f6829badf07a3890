//! The audit log: who did what, when, to what, and how it ended.

use rusqlite::{params, Connection};
use serde::Serialize;

use crate::error::Result;

/// One audit entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct AuditEntry {
    pub id: i64,
    pub at: String,
    /// The staff member's email, or `cli` / `system`.
    pub actor: String,
    /// What was done, e.g. `auth.sign_in`, `users.disable`, `payments.order_create`.
    pub action: String,
    /// What it was done to (an email, an order id, a document id).
    pub target: Option<String>,
    /// `success`, `failure`, or a short reason.
    pub outcome: String,
    /// Extra facts as JSON text (never a secret).
    pub detail: Option<String>,
}

/// An entry about to be written.
#[derive(Debug, Clone)]
pub struct NewAuditEntry<'a> {
    pub actor: &'a str,
    pub action: crate::audit::AuditAction,
    pub target: Option<&'a str>,
    pub outcome: &'a str,
    pub detail: Option<serde_json::Value>,
}

/// Appends an entry.
pub fn append(conn: &Connection, entry: &NewAuditEntry<'_>) -> Result<()> {
    conn.execute(
        "INSERT INTO audit_log (at, actor, action, target, outcome, detail) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            crate::time::now_rfc3339(),
            entry.actor,
            entry.action,
            entry.target,
            entry.outcome,
            entry.detail.as_ref().map(|d| d.to_string())
        ],
    )?;
    Ok(())
}

/// The newest entries first, `limit` at most, before the id `before` when given.
pub fn list(conn: &Connection, limit: u32, before: Option<i64>) -> Result<Vec<AuditEntry>> {
    let mut stmt = conn.prepare(
        "SELECT id, at, actor, action, target, outcome, detail FROM audit_log
         WHERE ?1 IS NULL OR id < ?1 ORDER BY id DESC LIMIT ?2",
    )?;
    let rows = stmt
        .query_map(params![before, limit], |row| {
            Ok(AuditEntry {
                id: row.get(0)?,
                at: row.get(1)?,
                actor: row.get(2)?,
                action: row.get(3)?,
                target: row.get(4)?,
                outcome: row.get(5)?,
                detail: row.get(6)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// Deletes entries older than `cutoff` (RFC 3339); how many went.
pub fn prune(conn: &Connection, cutoff: &str) -> Result<usize> {
    Ok(conn.execute("DELETE FROM audit_log WHERE at < ?1", [cutoff])?)
}

impl super::Db {
    /// Appends an entry in a transaction of its own.
    pub async fn append_audit(&self, entry: NewAuditEntry<'_>) -> Result<()> {
        match self {
            super::Db::Sqlite(_) => {
                let (actor, target, outcome) =
                    (entry.actor.to_string(), entry.target.map(str::to_string), entry.outcome.to_string());
                let (action, detail) = (entry.action, entry.detail);
                self.write(move |conn| {
                    append(
                        conn,
                        &NewAuditEntry { actor: &actor, action, target: target.as_deref(), outcome: &outcome, detail },
                    )
                })
                .await
            }
            super::Db::Postgres(db) => super::pg::audit::append(&db.client().await?, &entry).await.map(drop),
        }
    }

    /// The newest entries first, `limit` at most, before the id `before` when given.
    pub async fn audit_entries(&self, limit: u32, before: Option<i64>) -> Result<Vec<AuditEntry>> {
        match self {
            super::Db::Sqlite(_) => self.call(move |conn| list(conn, limit, before)).await,
            super::Db::Postgres(db) => super::pg::audit::list(&db.client().await?, limit, before).await,
        }
    }

    /// Deletes entries older than `cutoff` (RFC 3339); how many went.
    pub async fn prune_audit(&self, cutoff: String) -> Result<usize> {
        match self {
            super::Db::Sqlite(_) => self.write(move |conn| prune(conn, &cutoff)).await,
            super::Db::Postgres(db) => super::pg::audit::prune(&db.client().await?, &cutoff).await,
        }
    }
}
