//! The durable webhook inbox. One writer owns a connection and commits deliveries in groups:
//! every delivery waiting when a commit starts shares that commit's sync, so throughput grows
//! with concurrency while each acknowledged delivery is on disk before its 200. Each store runs
//! its own writer (`InboxStore::start_inbox_writer`): on SQLite a thread with
//! `synchronous=FULL`; on PostgreSQL a task whose commits wait for the WAL flush.

use tokio::sync::{mpsc, oneshot};

use super::store::InboxJob;
use super::store::WebhooksDb;
pub use super::store::{InboxEntry, NewDelivery, Stored};
use staffroom_base::error::{Error, Result};

/// Deliveries waiting for the writer before senders are slowed down.
const QUEUE: usize = 8192;

/// The writer side of the inbox.
#[derive(Clone)]
pub struct WebhookInbox {
    jobs: mpsc::Sender<InboxJob>,
}

impl WebhookInbox {
    /// Starts the writer of `db`'s inbox, on a connection of its own. It ends when every
    /// `WebhookInbox` clone is dropped.
    pub async fn open(db: impl Into<WebhooksDb>) -> Result<Self> {
        let db = db.into();
        let (jobs, receiver) = mpsc::channel(QUEUE);
        db.start_inbox_writer(receiver).await?;
        Ok(WebhookInbox { jobs })
    }

    /// Stores `delivery` durably, or finds it stored already.
    pub async fn store(&self, delivery: NewDelivery) -> Result<Stored> {
        let (reply, answer) = oneshot::channel();
        self.jobs
            .send(InboxJob { delivery, reply })
            .await
            .map_err(|_| Error::internal("webhook inbox", "the writer thread has stopped"))?;
        answer.await.map_err(|_| Error::internal("webhook inbox", "the writer thread dropped a delivery"))?
    }
}

/// Reads of the inbox (through the ordinary pool).
#[derive(Clone)]
pub struct InboxReader {
    db: WebhooksDb,
}

impl InboxReader {
    /// Reads `db`'s inbox.
    pub fn new(db: impl Into<WebhooksDb>) -> Self {
        InboxReader { db: db.into() }
    }

    /// Deliveries not applied yet, oldest first, with their bodies.
    pub async fn unapplied(&self, limit: u32) -> Result<Vec<(i64, Vec<u8>)>> {
        self.unapplied_received_before(limit, "9999").await
    }

    /// Deliveries not applied yet that were received before `before` (RFC 3339, as stored),
    /// oldest first, with their bodies.
    pub async fn unapplied_received_before(&self, limit: u32, before: &str) -> Result<Vec<(i64, Vec<u8>)>> {
        self.db.unapplied_deliveries(limit, before.to_string()).await
    }

    /// Records how applying each delivery ended, and what it touched, in one transaction.
    pub async fn mark_applied(&self, results: &[(i64, super::store::ApplyResult)]) -> Result<()> {
        self.db.mark_deliveries_applied(results).await
    }

    /// The newest deliveries first.
    pub async fn recent(&self, limit: u32) -> Result<Vec<InboxEntry>> {
        self.db.recent_deliveries(limit).await
    }

    /// The deliveries applied to one local order, oldest first.
    pub async fn for_order(&self, order_id: &str) -> Result<Vec<InboxEntry>> {
        self.db.deliveries_for_order(order_id.to_string()).await
    }

    /// One delivery.
    pub async fn get(&self, id: i64) -> Result<Option<InboxEntry>> {
        self.db.delivery(id).await
    }

    /// How many deliveries are stored (for tests and the panel's counters).
    pub async fn count(&self) -> Result<i64> {
        self.db.delivery_count().await
    }
}
