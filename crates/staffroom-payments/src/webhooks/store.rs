//! What the webhook inbox asks of a store, and its records. Storing is a tuned path per store:
//! each runs one writer of its own that commits deliveries in groups, every delivery waiting when
//! a commit starts sharing that commit's sync; reads go through the ordinary pool.

use serde::Serialize;
use tokio::sync::{mpsc, oneshot};

use staffroom_base::error::{Error, Result};

/// How applying one event ended; stored and shown as `applied`, or `applied: …`,
/// `held for review: …`, `stale: …`, `ignored: …`, `failed: …` with the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Applied; with what was notable about it, if anything.
    Applied(Option<String>),
    /// Not applied: it did not match what Staffroom sold, and waits for a person.
    HeldForReview(String),
    /// Older than what Staffroom keeps, or a move it never makes (out of `expired`).
    Stale(String),
    /// About nothing Staffroom keeps.
    Ignored(String),
    /// Could not be applied; it stays in the inbox.
    Failed(String),
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Applied(None) => f.write_str("applied"),
            Outcome::Applied(Some(note)) => write!(f, "applied: {note}"),
            Outcome::HeldForReview(why) => write!(f, "held for review: {why}"),
            Outcome::Stale(why) => write!(f, "stale: {why}"),
            Outcome::Ignored(why) => write!(f, "ignored: {why}"),
            Outcome::Failed(why) => write!(f, "failed: {why}"),
        }
    }
}

/// How applying one event ended, and what it touched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApplyResult {
    pub outcome: Outcome,
    /// The local order it touched.
    pub order_id: Option<String>,
    /// The subscription it touched.
    pub subscription_id: Option<String>,
}

impl ApplyResult {
    /// Nothing to do for this event.
    pub fn ignored(reason: impl std::fmt::Display) -> Self {
        ApplyResult { outcome: Outcome::Ignored(reason.to_string()), order_id: None, subscription_id: None }
    }
}

/// Most deliveries written by one commit.
pub const MAX_GROUP: usize = 1024;

/// A verified delivery about to be stored.
#[derive(Debug, Clone)]
pub struct NewDelivery {
    pub dedupe_key: String,
    pub webhook_id: Option<String>,
    pub event_name: String,
    pub resource_type: String,
    pub resource_id: String,
    pub body: Vec<u8>,
    pub received_at: String,
}

/// What storing did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stored {
    /// A new delivery, with its inbox id.
    New(i64),
    /// The same delivery was stored before, under this id.
    Duplicate(i64),
}

/// A delivery waiting for the writer, with where its answer goes.
pub struct InboxJob {
    pub delivery: NewDelivery,
    pub reply: oneshot::Sender<Result<Stored>>,
}

/// The next group for a writer: `first`, and whatever else is waiting, up to [`MAX_GROUP`].
pub fn gather(first: InboxJob, jobs: &mut mpsc::Receiver<InboxJob>, group: &mut Vec<InboxJob>) {
    group.push(first);
    while group.len() < MAX_GROUP {
        match jobs.try_recv() {
            Ok(job) => group.push(job),
            Err(_) => break,
        }
    }
}

/// Answers every job of a group with its result, or all of them with the error.
pub fn answer(group: &mut Vec<InboxJob>, written: std::result::Result<Vec<Stored>, String>) {
    match written {
        Ok(results) => {
            for (job, stored) in group.drain(..).zip(results) {
                let _ = job.reply.send(Ok(stored));
            }
        }
        Err(err) => {
            tracing::error!(%err, deliveries = group.len(), "could not store webhook deliveries");
            for job in group.drain(..) {
                let _ = job.reply.send(Err(Error::internal("webhook inbox", &err)));
            }
        }
    }
}

/// A stored delivery, as the webhooks panel and order histories show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct InboxEntry {
    pub id: i64,
    pub event_name: String,
    pub resource_type: String,
    pub resource_id: String,
    pub verified: bool,
    pub received_at: String,
    pub applied_at: Option<String>,
    pub outcome: Option<String>,
    pub order_id: Option<String>,
    pub subscription_id: Option<String>,
}

/// The inbox's units of work.
/// A handle on the database, as the webhook inbox sees it.
pub type WebhooksDb = std::sync::Arc<dyn InboxStore + Send + Sync>;

#[async_trait::async_trait]
pub trait InboxStore: staffroom_base::store::MetaStore {
    /// Starts this store's writer, on a connection of its own: it commits the jobs of `jobs` in
    /// groups, each durable before it is answered, and ends when every sender is dropped.
    async fn start_inbox_writer(&self, jobs: mpsc::Receiver<InboxJob>) -> Result<()>;

    /// Deliveries not applied yet that were received before `before` (RFC 3339, as stored),
    /// oldest first, with their bodies.
    async fn unapplied_deliveries(&self, limit: u32, before: String) -> Result<Vec<(i64, Vec<u8>)>>;

    /// Records how applying each delivery ended, and what it touched, in one transaction.
    async fn mark_deliveries_applied(&self, results: &[(i64, ApplyResult)]) -> Result<()>;

    /// The newest deliveries first, `limit` (1 to 500) at most.
    async fn recent_deliveries(&self, limit: u32) -> Result<Vec<InboxEntry>>;

    /// The deliveries applied to one local order, oldest first.
    async fn deliveries_for_order(&self, order_id: String) -> Result<Vec<InboxEntry>>;

    /// One delivery.
    async fn delivery(&self, id: i64) -> Result<Option<InboxEntry>>;

    /// How many deliveries are stored.
    async fn delivery_count(&self) -> Result<i64>;
}
