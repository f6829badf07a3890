//! The audit log as services use it: one call per state-changing action.

use serde_json::Value;

use crate::error::Result;
use crate::store::audit::{self, AuditEntry, NewAuditEntry};
use crate::store::Db;

/// Appends audit entries; a failure to write one is logged, never turned into a user error.
#[derive(Clone)]
pub struct Audit {
    db: Db,
}

impl Audit {
    /// The audit log in `db`.
    pub fn new(db: Db) -> Self {
        Audit { db }
    }

    /// Records that `actor` did `action` to `target` with `outcome`.
    pub async fn record(&self, actor: &str, action: &str, target: Option<&str>, outcome: &str, detail: Option<Value>) {
        let (actor, action, target, outcome) =
            (actor.to_string(), action.to_string(), target.map(str::to_string), outcome.to_string());
        let written = self
            .db
            .call(move |conn| {
                audit::append(
                    conn,
                    &NewAuditEntry {
                        actor: &actor,
                        action: &action,
                        target: target.as_deref(),
                        outcome: &outcome,
                        detail,
                    },
                )
            })
            .await;
        if let Err(err) = written {
            tracing::error!(%err, "could not write an audit entry");
        }
    }

    /// The newest entries first.
    pub async fn list(&self, limit: u32, before: Option<i64>) -> Result<Vec<AuditEntry>> {
        self.db.call(move |conn| audit::list(conn, limit.clamp(1, 500), before)).await
    }
}
