//! The webhook receiver (SPEC section 4, Webhooks): signature first, then the durable inbox,
//! then applying in arrival order on one task, with every step announced on a live feed.

pub mod inbox;
pub mod refusals;
pub mod store;

// The provider's webhook payloads and signatures, from the crate that speaks to the providers.
pub use staffroom_providers::lemonsqueezy::{payload, signature};

use std::sync::{Arc, RwLock};

use serde::Serialize;
use serde_json::Value;
use sha2::Digest as _;
use tokio::sync::{broadcast, mpsc};

use staffroom_base::error::{Error, ErrorCode, Result};
use staffroom_base::secrets::{Secret, Secrets};

pub use self::inbox::{InboxEntry, InboxReader, NewDelivery, Stored, WebhookInbox};
pub use self::payload::WebhookEvent;
use self::refusals::{Refusal, Refusals};
pub use self::store::{ApplyResult, Outcome, WebhooksDb};

/// How many feed items wait for a slow reader before it misses some. Tokio allocates every slot
/// when the channel is made, so each holds a pointer, not an item.
const FEED_CAPACITY: usize = 4 * 1024;

/// The live feed's sending side.
pub(crate) type Feed = broadcast::Sender<Arc<FeedItem>>;

/// Largest body accepted (413 beyond).
pub const MAX_BODY_BYTES: usize = 256 * 1024;

/// What turns an event into changes of the cached orders and subscriptions.
#[async_trait::async_trait]
pub trait EventApplier: Send + Sync + 'static {
    /// Applies stored deliveries (inbox id, event) in order and records how each ended in the
    /// inbox, in one transaction, so a delivery is applied exactly once: one already applied
    /// (by another replica of a team server, or before a restart) is skipped. Each event on its
    /// own: one that fails is recorded as `failed` and the others still apply. Returns what it
    /// applied; an error means nothing of the group was kept, and it waits in the inbox.
    async fn apply_stored(&self, group: &[(i64, WebhookEvent)]) -> Result<Vec<(i64, ApplyResult)>>;
}

/// One line of the live webhook feed.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct FeedItem {
    /// `received`, `duplicate`, `applied`, or `refused`: a summary of the deliveries refused
    /// lately (at most one a minute; the sentence is its `outcome`).
    pub kind: &'static str,
    pub at: String,
    pub inbox_id: Option<i64>,
    pub event_name: Option<String>,
    pub resource_type: Option<String>,
    pub resource_id: Option<String>,
    /// Whether the signature matched.
    pub verified: bool,
    pub outcome: Option<String>,
    pub order_id: Option<String>,
    pub subscription_id: Option<String>,
}

impl FeedItem {
    fn new(kind: &'static str, verified: bool) -> Self {
        FeedItem {
            kind,
            at: staffroom_base::time::now_rfc3339(),
            inbox_id: None,
            event_name: None,
            resource_type: None,
            resource_id: None,
            verified,
            outcome: None,
            order_id: None,
            subscription_id: None,
        }
    }

    fn about(mut self, id: Option<i64>, event: &WebhookEvent) -> Self {
        self.inbox_id = id;
        self.event_name = Some(event.name.clone());
        self.resource_type = Some(event.resource_type.clone());
        self.resource_id = Some(event.resource_id.clone());
        self
    }
}

/// The receiver's signing key, as last read.
#[derive(Debug)]
enum SigningKey {
    Usable(Secret),
    Missing,
    /// Set but unusable (empty): why, naming where it came from.
    Unusable(String),
    /// Before the first read.
    NotRead,
}

/// The signing keys as last read: the current one, and the one before the last rotation while
/// it still verifies.
#[derive(Debug)]
struct SigningKeys {
    current: SigningKey,
    previous: Option<(Secret, i64)>,
    read_at: std::time::Instant,
}

/// How long deliveries signed with the secret before a rotation still verify: the provider may
/// have sent some with it a moment before, and retries them for hours (SPEC section 13).
pub const PREVIOUS_SECRET_FOR: std::time::Duration = std::time::Duration::from_secs(10 * 60);
/// The `meta` key of when the previous signing secret stops verifying (unix seconds).
pub const PREVIOUS_SECRET_UNTIL: &str = "webhook_secret_previous_until";
/// The `meta` key of when deliveries were last refused for a bad signature (RFC 3339).
pub const BAD_SIGNATURE_AT: &str = "webhook_bad_signature_at";
/// How often a delivery that matches no key may make the receiver read the keys again: a
/// rotation made on another replica of a team server reaches this one that way.
const REREAD_AFTER: std::time::Duration = std::time::Duration::from_secs(5);

/// The answer to a delivery: `{"received":true,"duplicate":bool}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Received {
    pub received: bool,
    pub duplicate: bool,
}

/// Receives, stores and applies webhook deliveries.
#[derive(Clone)]
pub struct WebhookReceiver {
    inbox: WebhookInbox,
    reader: InboxReader,
    keys: Arc<RwLock<SigningKeys>>,
    secrets: Secrets,
    db: WebhooksDb,
    to_apply: mpsc::UnboundedSender<(i64, WebhookEvent)>,
    feed: Feed,
    refusals: Refusals,
}

impl WebhookReceiver {
    /// Opens the inbox of `db`, reads the signing secret (`STAFFROOM_WEBHOOK_SECRET`, else the
    /// keyring), starts the applying task with `applier`, and queues what a previous run stored
    /// but did not apply. Needs a Tokio runtime.
    pub async fn start(db: impl Into<WebhooksDb>, secrets: Secrets, applier: Arc<dyn EventApplier>) -> Result<Self> {
        let db = db.into();
        let inbox = WebhookInbox::open(db.clone()).await?;
        let reader = InboxReader::new(db.clone());
        let (to_apply, queue) = mpsc::unbounded_channel();
        // Room for a burst: the live events' relay reads this feed, and an item it falls behind
        // on is an event no client ever sees (three items a delivery: about 1,300 deliveries;
        // 200 KB of slots, and about 1 MB of items when full).
        let (feed, _) = broadcast::channel(FEED_CAPACITY);
        let receiver = WebhookReceiver {
            inbox,
            reader: reader.clone(),
            keys: Arc::new(RwLock::new(SigningKeys {
                current: SigningKey::NotRead,
                previous: None,
                read_at: std::time::Instant::now(),
            })),
            secrets,
            db: db.clone(),
            to_apply,
            feed: feed.clone(),
            refusals: Refusals::new(feed.clone()),
        };
        receiver.reload_secret().await?;
        tokio::spawn(note_bad_signatures(receiver.refusals.bad_signatures(), db.clone()));
        // Deliveries stored before a crash or stop, but not applied, go first.
        let now = staffroom_base::time::now_rfc3339();
        while apply_waiting(&reader, &*applier, &feed, &now).await? == WAITING_PAGE {}
        tokio::spawn(sweep_inbox(reader, applier.clone(), feed.clone()));
        tokio::spawn(apply_in_order(queue, applier, feed));
        Ok(receiver)
    }

    /// Re-reads the signing secrets (after an admin changed them). A missing or unusable one
    /// does not stop the service: every delivery is refused (503) until a usable one is set.
    pub async fn reload_secret(&self) -> Result<()> {
        let current = match self.secrets.read("webhook_secret").await {
            Ok(Some(secret)) => SigningKey::Usable(secret),
            Ok(None) => SigningKey::Missing,
            // An empty value, naming where it came from.
            Err(err) if err.code == ErrorCode::InvalidRequest => SigningKey::Unusable(err.message),
            Err(err) => return Err(err),
        };
        // Said once when it becomes so, not at every read a refused delivery makes.
        let was = std::mem::discriminant(&self.keys.read().expect("keys lock poisoned").current);
        match &current {
            _ if std::mem::discriminant(&current) == was => {}
            // Before going live, not a failure: said plainly, once.
            SigningKey::Missing => tracing::info!(
                "no webhook registered yet: deliveries are refused until an admin registers it (Settings → Connections, or staffroom connect lemonsqueezy --webhook-url)"
            ),
            SigningKey::Unusable(problem) => {
                tracing::error!(%problem, "the webhook signing secret is unusable: every delivery is refused until a usable one is set")
            }
            SigningKey::Usable(_) | SigningKey::NotRead => {}
        }
        let until = self.db.meta(PREVIOUS_SECRET_UNTIL).await?.and_then(|s| s.parse::<i64>().ok());
        let previous = match until.filter(|until| *until > staffroom_base::time::now_unix()) {
            Some(until) => self.secrets.read("webhook_secret_previous").await.ok().flatten().map(|s| (s, until)),
            None => None,
        };
        *self.keys.write().expect("keys lock poisoned") =
            SigningKeys { current, previous, read_at: std::time::Instant::now() };
        Ok(())
    }

    /// Whether a usable signing secret is set (without one the receiver refuses everything).
    pub fn has_secret(&self) -> bool {
        matches!(self.keys.read().expect("keys lock poisoned").current, SigningKey::Usable(_))
    }

    /// Why deliveries are refused, when they are (no usable signing secret).
    pub fn secret_problem(&self) -> Option<String> {
        match &self.keys.read().expect("keys lock poisoned").current {
            SigningKey::Usable(_) => None,
            SigningKey::Missing => Some(
                "No webhook signing secret is set; an admin registers the webhook in Settings → Connections".into(),
            ),
            SigningKey::Unusable(reason) => Some(reason.clone()),
            SigningKey::NotRead => Some("The webhook signing secret has not been read yet".into()),
        }
    }

    /// Whether `signature` signs `body` with the current key or, for 10 minutes after a
    /// rotation, the previous one; `None` when no usable key is set.
    fn verify(&self, body: &[u8], signature: Option<&str>) -> Option<bool> {
        let keys = self.keys.read().expect("keys lock poisoned");
        let SigningKey::Usable(current) = &keys.current else { return None };
        let previous = keys.previous.as_ref().filter(|(_, until)| *until > staffroom_base::time::now_unix());
        Some(
            signature::verify(current, body, signature)
                || previous.is_some_and(|(p, _)| signature::verify(p, body, signature)),
        )
    }

    /// Whether the keys were read long enough ago to read them again for a delivery that
    /// matched none of them.
    fn may_reread(&self) -> bool {
        self.keys.read().expect("keys lock poisoned").read_at.elapsed() >= REREAD_AFTER
    }

    /// The live feed: received, duplicate and applied deliveries, and summaries of refused ones.
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<FeedItem>> {
        self.feed.subscribe()
    }

    /// Reads of the stored deliveries.
    pub fn reader(&self) -> &InboxReader {
        &self.reader
    }

    /// Handles one delivery: signature (constant time, before parsing), media type, JSON,
    /// payload, then a durable store; the 200 may be sent once this returns `Ok`.
    pub async fn receive(
        &self,
        body: &[u8],
        signature: Option<&str>,
        content_type: Option<&str>,
        event_header: Option<&str>,
    ) -> Result<Received> {
        let mut verified = self.verify(body, signature);
        if verified != Some(true) && self.may_reread() {
            // Another replica may have rotated the secret, or an admin set the first one.
            self.reload_secret().await?;
            verified = self.verify(body, signature);
        }
        let Some(verified) = verified else {
            // Without a usable key nothing can be verified: refuse, and say it is set-up.
            let problem = self.secret_problem().unwrap_or_default();
            self.refusals.count(Refusal::NoSecret);
            return Err(Error::new(
                ErrorCode::Unavailable,
                format!("Webhook deliveries are refused until a usable signing secret is set: {problem}"),
            ));
        };
        if !verified {
            // Counted, never stored: a forger must not fill the feed, the events or the log.
            // Only a signature made with another secret says the secrets differ.
            self.refusals.count(if signature.is_some() { Refusal::BadSignature } else { Refusal::Unsigned });
            return Err(Error::unauthorized("The X-Signature header is missing or does not match the body"));
        }
        if !is_json(content_type) {
            return Err(Error::new(ErrorCode::UnsupportedMediaType, "Webhook deliveries must be application/json"));
        }
        let value: Value = serde_json::from_slice(body)
            .map_err(|e| Error::invalid_field("body", format!("is not valid JSON: {e}")))?;
        let event = payload::parse(&value, event_header).map_err(Error::invalid)?;
        let dedupe_key = dedupe_key(&event, body);
        let stored = self
            .inbox
            .store(NewDelivery {
                dedupe_key,
                webhook_id: event.webhook_id.clone(),
                event_name: event.name.clone(),
                resource_type: event.resource_type.clone(),
                resource_id: event.resource_id.clone(),
                body: kept_body(&value, body),
                received_at: staffroom_base::time::now_rfc3339(),
            })
            .await?;
        match stored {
            Stored::New(id) => {
                let _ = self.feed.send(Arc::new(FeedItem::new("received", true).about(Some(id), &event)));
                tracing::info!(id, event = %event.name, resource = %event.resource_id, "webhook stored");
                let _ = self.to_apply.send((id, event));
                Ok(Received { received: true, duplicate: false })
            }
            Stored::Duplicate(id) => {
                let _ = self.feed.send(Arc::new(FeedItem::new("duplicate", true).about(Some(id), &event)));
                tracing::info!(id, event = %event.name, "duplicate webhook delivery ignored");
                Ok(Received { received: true, duplicate: true })
            }
        }
    }
}

/// Keeps when deliveries were last refused for a bad signature, for Connections on any replica.
async fn note_bad_signatures(mut seen: tokio::sync::watch::Receiver<Option<String>>, db: WebhooksDb) {
    while seen.changed().await.is_ok() {
        let at = seen.borrow_and_update().clone();
        if let Some(at) = at {
            if let Err(err) = db.set_meta(BAD_SIGNATURE_AT, at).await {
                tracing::warn!(%err, "could not note a refused delivery");
            }
        }
    }
}

/// The body as the inbox keeps it: whole, but for a licence key's `key`, a customer's credential
/// that is never kept anywhere (applying an event reads everything else; the short form stays).
fn kept_body(value: &Value, body: &[u8]) -> Vec<u8> {
    let key = value.pointer("/data/attributes/key");
    if value.pointer("/data/type").and_then(Value::as_str) != Some("license-keys") || key.is_none() {
        return body.to_vec();
    }
    let mut kept = value.clone();
    if let Some(attributes) = kept.pointer_mut("/data/attributes").and_then(Value::as_object_mut) {
        attributes.remove("key");
    }
    serde_json::to_vec(&kept).unwrap_or_else(|_| body.to_vec())
}

/// What makes two deliveries the same event. `meta.webhook_id` is undocumented (it may name the
/// delivery, the purchase or the endpoint), so it counts only together with the event name, the
/// resource and the resource's `updated_at`: a shared id never makes two events one, and a resent
/// delivery is still recognised. Without an id, the body itself.
fn dedupe_key(event: &WebhookEvent, body: &[u8]) -> String {
    match &event.webhook_id {
        Some(id) => {
            let parts =
                [id.as_str(), &event.name, &event.resource_type, &event.resource_id, event.updated_at().unwrap_or("")];
            format!("event:{}", hex::encode(sha2::Sha256::digest(parts.join("\u{1f}").as_bytes())))
        }
        None => format!("sha256:{}", hex::encode(sha2::Sha256::digest(body))),
    }
}

/// The stored deliveries as staff see them, and whether deliveries are received.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct WebhookLog {
    /// Whether this Staffroom receives deliveries (a usable signing secret is set).
    pub receiving: bool,
    /// Why deliveries are refused, when they are.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub problem: Option<String>,
    pub events: Vec<InboxEntry>,
}

/// The newest `limit` stored deliveries of `receiver` (none when this Staffroom does not receive).
pub async fn log(receiver: Option<&WebhookReceiver>, limit: u32) -> Result<WebhookLog> {
    let Some(receiver) = receiver else {
        return Ok(WebhookLog { receiving: false, problem: None, events: Vec::new() });
    };
    Ok(WebhookLog {
        receiving: receiver.has_secret(),
        problem: receiver.secret_problem(),
        events: receiver.reader().recent(limit).await?,
    })
}

fn is_json(content_type: Option<&str>) -> bool {
    let Some(value) = content_type else { return false };
    let mime = value.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    mime == "application/json" || (mime.starts_with("application/") && mime.ends_with("+json"))
}

/// Applies a group of stored deliveries in order (recording the outcomes with them), then
/// announces what was applied.
async fn apply_group(applier: &dyn EventApplier, feed: &Feed, group: &[(i64, WebhookEvent)]) -> Result<()> {
    let results = applier.apply_stored(group).await.inspect_err(|err| {
        tracing::error!(%err, deliveries = group.len(), "could not apply webhook deliveries; they wait in the inbox");
    })?;
    let events: std::collections::HashMap<i64, &WebhookEvent> = group.iter().map(|(id, event)| (*id, event)).collect();
    for (id, result) in results {
        let mut item = FeedItem::new("applied", true).about(Some(id), events[&id]);
        item.outcome = Some(result.outcome.to_string());
        item.order_id = result.order_id;
        item.subscription_id = result.subscription_id;
        let _ = feed.send(Arc::new(item));
    }
    Ok(())
}

/// The most waiting deliveries read at once.
const WAITING_PAGE: usize = 1000;
/// How often the applier looks for deliveries stored but not applied: by another replica that
/// died between its 200 and applying, or in a group whose commit failed.
const SWEEP_EVERY: std::time::Duration = std::time::Duration::from_secs(1);
/// How long a delivery waits before a sweep takes it: the replica that stored it applies it well
/// within that, so a sweep never competes with it for what it has queued.
const SWEEP_AFTER: chrono::Duration = chrono::Duration::seconds(2);
/// The most pages one sweep applies, so that arrivals never wait long behind it.
const SWEEP_PAGES: usize = 10;

/// Applies the oldest page of deliveries stored but not applied, among those received before
/// `before` (RFC 3339); how many it read.
async fn apply_waiting(reader: &InboxReader, applier: &dyn EventApplier, feed: &Feed, before: &str) -> Result<usize> {
    let pending = reader.unapplied_received_before(WAITING_PAGE as u32, before).await?;
    if pending.is_empty() {
        return Ok(0);
    }
    tracing::debug!(count = pending.len(), "applying webhook deliveries that were stored but not applied");
    let read = pending.len();
    let mut group = Vec::new();
    for (id, body) in pending {
        match serde_json::from_slice::<Value>(&body).ok().and_then(|v| payload::parse(&v, None).ok()) {
            Some(event) => group.push((id, event)),
            None => {
                let failed = ApplyResult {
                    outcome: Outcome::Failed("the stored body no longer parses".into()),
                    order_id: None,
                    subscription_id: None,
                };
                reader.mark_applied(&[(id, failed)]).await?;
            }
        }
    }
    apply_group(applier, feed, &group).await?;
    Ok(read)
}

/// The applying task: deliveries this process stored, in groups as they queue up.
async fn apply_in_order(
    mut queue: mpsc::UnboundedReceiver<(i64, WebhookEvent)>,
    applier: Arc<dyn EventApplier>,
    feed: Feed,
) {
    let mut group = Vec::new();
    while let Some(first) = queue.recv().await {
        group.push(first);
        while group.len() < 256 {
            match queue.try_recv() {
                Ok(next) => group.push(next),
                Err(_) => break,
            }
        }
        // A failure is logged; the deliveries wait in the inbox for the sweep.
        let _ = apply_group(&*applier, &feed, &group).await;
        group.clear();
    }
}

/// The sweeping task: every [`SWEEP_EVERY`], whatever has waited in the inbox longer than
/// [`SWEEP_AFTER`]. A task of its own, so that arrivals never wait behind its query (which reads
/// past every delivery applied since the last vacuum); applying skips what is applied already, so
/// a delivery found both ways is applied once.
async fn sweep_inbox(reader: InboxReader, applier: Arc<dyn EventApplier>, feed: Feed) {
    let mut sweep = tokio::time::interval(SWEEP_EVERY);
    sweep.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        sweep.tick().await;
        if Arc::strong_count(&applier) == 1 {
            return; // the applying task ended: the receiver is gone
        }
        let before = (chrono::Utc::now() - SWEEP_AFTER).to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        for _ in 0..SWEEP_PAGES {
            match apply_waiting(&reader, &*applier, &feed, &before).await {
                Ok(read) if read == WAITING_PAGE => continue,
                Ok(_) => break,
                Err(err) => {
                    tracing::warn!(%err, "could not look for webhook deliveries waiting to be applied");
                    break;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_licence_keys_whole_key_is_not_kept_in_the_inbox() {
        let body = br#"{"meta":{"event_name":"license_key_created"},"data":{"type":"license-keys","id":"7","attributes":{"key":"80E15DB5-C796-436B-850C-8F9C98A48ABE","key_short":"XXXX-8F9C98A48ABE"}}}"#;
        let value: Value = serde_json::from_slice(body).unwrap();
        let kept = String::from_utf8(kept_body(&value, body)).unwrap();
        assert!(!kept.contains("80E15DB5") && kept.contains("XXXX-8F9C98A48ABE"), "{kept}");
        let order =
            br#"{"meta":{"event_name":"order_created"},"data":{"type":"orders","id":"1","attributes":{"key":"x"}}}"#;
        assert_eq!(
            kept_body(&serde_json::from_slice(order).unwrap(), order),
            order.to_vec(),
            "other bodies as they came"
        );
    }

    #[test]
    fn json_media_types() {
        assert!(is_json(Some("application/json")));
        assert!(is_json(Some("application/json; charset=utf-8")));
        assert!(is_json(Some("Application/JSON")));
        assert!(is_json(Some("application/vnd.api+json")));
        assert!(!is_json(Some("text/plain")));
        assert!(!is_json(Some("application/x-www-form-urlencoded")));
        assert!(!is_json(None));
    }
}
