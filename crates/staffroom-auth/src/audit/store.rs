//! What the audit log asks of a store, and its records.

use serde::Serialize;

use staffroom_base::error::Result;
use staffroom_base::store::MetaStore;

/// What the audit log asks of a database: its entries, and its retention setting.
pub trait AuditStores: AuditStore + MetaStore + Send + Sync {}

impl<T: AuditStore + MetaStore + Send + Sync + ?Sized> AuditStores for T {}

/// A handle on the database, as the audit log sees it.
pub type AuditDb = std::sync::Arc<dyn AuditStores>;

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
    pub action: super::AuditAction,
    pub target: Option<&'a str>,
    pub outcome: &'a str,
    pub detail: Option<serde_json::Value>,
}

/// Which entries a page of the audit log holds: the newest first, `limit` at most, before the id
/// `before`, and only those of `actor`, of `action` and made in [`from`, `to`) when given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuditQuery {
    pub limit: u32,
    pub before: Option<i64>,
    pub actor: Option<String>,
    pub action: Option<&'static str>,
    /// RFC 3339 UTC.
    pub from: Option<String>,
    pub to: Option<String>,
}

/// The audit log's units of work.
#[async_trait::async_trait]
pub trait AuditStore {
    /// Appends an entry in a transaction of its own.
    async fn append_audit(&self, entry: NewAuditEntry<'_>) -> Result<()>;

    /// The entries `query` asks for, newest first.
    async fn audit_entries(&self, query: AuditQuery) -> Result<Vec<AuditEntry>>;

    /// Deletes entries older than `cutoff` (RFC 3339); how many went.
    async fn prune_audit(&self, cutoff: String) -> Result<usize>;
}
