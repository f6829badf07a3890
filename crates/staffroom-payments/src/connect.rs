//! Connecting the store (SPEC section 13): a key checked with the provider before anything is
//! kept, the store picked from those it sees, the webhook Staffroom registers itself, and how
//! the connection stands, with its problems as sentences and their fix.

use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::jsonapi::Resource;
use crate::scope::Kind;
use crate::webhooks::{BAD_SIGNATURE_AT, PREVIOUS_SECRET_FOR, PREVIOUS_SECRET_UNTIL};
use crate::PaymentService;
use staffroom_auth::audit::{failure, AuditAction};
use staffroom_auth::Actor;
use staffroom_base::connection::{ConnectionState, Problem};
use staffroom_base::error::{Error, ErrorCode, Result};
use staffroom_base::secrets::{keys, Secret, SecretSource};

/// Every Lemon Squeezy event Staffroom applies (orders, subscriptions, their invoices, licence
/// keys): what the webhook it registers asks for. The provider's event names, from its webhook
/// documentation; never the seed's `order_paid`, which Lemon Squeezy does not send.
pub const WEBHOOK_EVENTS: &[&str] = &[
    "order_created",
    "order_refunded",
    "subscription_created",
    "subscription_updated",
    "subscription_cancelled",
    "subscription_resumed",
    "subscription_expired",
    "subscription_paused",
    "subscription_unpaused",
    "subscription_payment_success",
    "subscription_payment_failed",
    "subscription_payment_recovered",
    "subscription_payment_refunded",
    "license_key_created",
    "license_key_updated",
];

/// Where Staffroom's receiver listens, below the address it is reached at.
pub const WEBHOOK_PATH: &str = "/api/payments/webhooks";
/// The `meta` key of the URL Staffroom last registered the webhook at.
pub const WEBHOOK_URL: &str = "lemonsqueezy_webhook_url";
/// Refusals for a bad signature within this long are a problem.
const BAD_SIGNATURES_WITHIN: chrono::Duration = chrono::Duration::hours(1);
/// How far the provider's clock and this one may differ, and how long a delivery may be on its
/// way, before a webhook sent and not arrived is a problem.
const DELIVERY_SLACK: chrono::Duration = chrono::Duration::seconds(5);

/// Whom a key belongs to.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
pub struct Account {
    pub name: String,
    pub email: String,
}

/// A store a key sees.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
pub struct StoreChoice {
    pub id: String,
    pub name: String,
    pub currency: String,
    /// The store's own address (`https://<slug>.lemonsqueezy.com`).
    pub url: String,
}

/// `POST /api/settings/lemonsqueezy/check`: what the provider says of a key.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct KeyCheck {
    pub account: Account,
    /// A test-mode key: its stores' orders are test orders.
    pub test_mode: bool,
    pub stores: Vec<StoreChoice>,
}

/// The connected store.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ConnectedStore {
    pub id: String,
    pub name: String,
    pub currency: String,
    pub test_mode: bool,
}

/// The store's webhook, as the provider has it.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct WebhookView {
    pub id: String,
    pub url: String,
    pub events: Vec<String>,
    /// When the provider last sent a delivery to it.
    pub last_sent_at: Option<String>,
}

/// How the Lemon Squeezy connection stands.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct LemonSqueezyConnection {
    pub state: ConnectionState,
    pub account: Option<Account>,
    pub store: Option<ConnectedStore>,
    pub webhook: Option<WebhookView>,
    /// When the newest delivery that verified arrived here.
    pub last_delivery_at: Option<String>,
    /// When every cached resource was last synced in full (the oldest of them).
    pub last_sync_at: Option<String>,
    pub problems: Vec<Problem>,
}

/// A webhook Staffroom registered.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct RegisteredWebhook {
    pub id: String,
    pub url: String,
    pub events: Vec<String>,
    pub test_mode: bool,
}

/// `POST /api/settings/lemonsqueezy/webhook`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
pub struct WebhookRegistration {
    pub webhook: RegisteredWebhook,
}

fn account_of(user: &Resource) -> Account {
    Account { name: user.str("name").unwrap_or_default(), email: user.str("email").unwrap_or_default() }
}

fn store_choice(store: &Resource) -> StoreChoice {
    StoreChoice {
        id: store.id.clone(),
        name: store.str("name").unwrap_or_default(),
        currency: store.str("currency").unwrap_or_default(),
        url: store.str("url").unwrap_or_default(),
    }
}

/// A key the provider refused, as a refusal of the field it came in.
fn on_the_key(err: Error) -> Error {
    if err.code == ErrorCode::Unauthorized {
        Error::invalid_field(
            "apiKey",
            "Lemon Squeezy refused this key: copy it again from Settings → API in Lemon Squeezy, or make a new one",
        )
    } else {
        err
    }
}

/// The list of stores a key sees, for a sentence.
fn stores_seen(stores: &[StoreChoice]) -> String {
    stores.iter().map(|s| format!("{} ({})", s.id, s.name)).collect::<Vec<_>>().join(", ")
}

/// `url` if it is where a receiver may be reached from the provider: `https`, or `http` on
/// loopback for a simulator, ending in [`WEBHOOK_PATH`], without credentials or a fragment.
pub fn webhook_url(raw: &str) -> Result<String> {
    let refuse = |why: &str| Error::invalid_field("url", why.to_string());
    let url = url::Url::parse(raw.trim())
        .map_err(|_| refuse("must be a URL such as https://staffroom.example.com/api/payments/webhooks"))?;
    let loopback = match url.host() {
        Some(url::Host::Domain(name)) => name == "localhost",
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    };
    match url.scheme() {
        "https" => {}
        "http" if loopback => {}
        "http" => {
            return Err(refuse(
                "must be https: Lemon Squeezy delivers to https addresses, and the deliveries carry customers' data",
            ))
        }
        _ => return Err(refuse("must be an https URL")),
    }
    if !url.username().is_empty() || url.password().is_some() || url.fragment().is_some() || url.query().is_some() {
        return Err(refuse("must have no user name, password, query or fragment"));
    }
    if !url.path().ends_with(WEBHOOK_PATH) {
        return Err(refuse(&format!("must end with {WEBHOOK_PATH}, where Staffroom's receiver listens")));
    }
    Ok(url.to_string())
}

/// An RFC 3339 time as people read it: `2026-11-28 10:31 UTC`.
fn readable(at: &str) -> String {
    chrono::DateTime::parse_from_rfc3339(at)
        .map(|t| t.with_timezone(&chrono::Utc).format("%Y-%m-%d %H:%M:%S UTC").to_string())
        .unwrap_or_else(|_| at.to_string())
}

fn parse_time(at: Option<&str>) -> Option<chrono::DateTime<chrono::Utc>> {
    chrono::DateTime::parse_from_rfc3339(at?).ok().map(|t| t.with_timezone(&chrono::Utc))
}

/// The "sent but never arrived" problem: the provider sent to `webhook` later than the newest
/// delivery that arrived here (`arrived`), beyond the slack, and long enough ago to have arrived.
pub fn silent_webhook(
    webhook: &WebhookView,
    arrived: Option<&str>,
    now: chrono::DateTime<chrono::Utc>,
) -> Option<Problem> {
    let sent_at = webhook.last_sent_at.as_deref()?;
    let sent = parse_time(Some(sent_at))?;
    if now - sent < DELIVERY_SLACK {
        return None;
    }
    let since = match parse_time(arrived) {
        Some(arrived) if sent <= arrived + DELIVERY_SLACK => return None,
        Some(_) => format!("since {}", readable(arrived.unwrap_or_default())),
        None => "ever".to_string(),
    };
    let message = match since.as_str() {
        "ever" => format!(
            "Lemon Squeezy sent a webhook at {} but none has ever arrived here: check that {} reaches this server",
            readable(sent_at),
            webhook.url
        ),
        since => format!(
            "Lemon Squeezy sent a webhook at {} but none has arrived here {since}: check that {} reaches this server",
            readable(sent_at),
            webhook.url
        ),
    };
    Some(Problem::new(
        "webhook_silent",
        message,
        format!(
            "Open {} from outside this network (a tunnel or a reverse proxy may have stopped or moved), or register the webhook again with the address that reaches this server; until then changes arrive with the sync",
            webhook.url
        ),
    ))
}

impl PaymentService {
    /// Whether a key and a store are set (whether the provider takes them is another matter).
    pub async fn is_connected(&self) -> bool {
        let key = self.secrets.read("lemonsqueezy_api_key").await.ok().flatten();
        key.is_some() && self.provider.store_id().await.is_ok()
    }

    /// Who `key` belongs to, whether it is a test-mode key, and the stores it sees. Stores
    /// nothing. A key the provider refuses is a refusal of `apiKey`.
    pub async fn check_key(&self, key: &Secret) -> Result<KeyCheck> {
        let (user, test_mode, stores) = self.provider.account(Some(key.clone())).await.map_err(on_the_key)?;
        Ok(KeyCheck { account: account_of(&user), test_mode, stores: stores.iter().map(store_choice).collect() })
    }

    /// Connects `store_id` with `key`: both checked with the provider first (nothing is kept
    /// when a check fails), then kept in the secret store; audited either way.
    pub async fn connect(&self, actor: &Actor, key: Secret, store_id: &str) -> Result<()> {
        actor.require_admin()?;
        let outcome = async {
            let check = self.check_key(&key).await?;
            let Some(store) = check.stores.iter().find(|s| s.id == store_id) else {
                let message = match check.stores.as_slice() {
                    [] => "is not a store of this key's account, which has no store yet".to_string(),
                    seen => format!("is not a store this key sees; it sees {}", stores_seen(seen)),
                };
                return Err(Error::invalid_field("storeId", message));
            };
            self.secrets.write("lemonsqueezy_api_key", key.clone()).await?;
            self.secrets.write("lemonsqueezy_store_id", Secret::new(store.id.clone())).await?;
            // Amounts are the connected store's: its currency, not a previous store's.
            self.db.set_meta("lemonsqueezy_currency", store.currency.clone()).await?;
            Ok(json!({"store": store.name, "testMode": check.test_mode}))
        }
        .await;
        let (result, detail) = match &outcome {
            Ok(detail) => ("success".to_string(), Some(detail.clone())),
            Err(err) => (failure(err), None),
        };
        self.audit.record(actor.audit_name(), AuditAction::LemonSqueezyConnect, Some(store_id), &result, detail).await;
        outcome.map(|_| ())
    }

    /// Registers the connected store's webhook at `url` (see [`PaymentService::register_webhook_with`]),
    /// with a new secret; audited.
    pub async fn register_webhook(&self, actor: &Actor, url: &str) -> Result<RegisteredWebhook> {
        actor.require_admin()?;
        let outcome = self.register_webhook_with(url, None).await;
        let result = outcome.as_ref().map(|_| "success".to_string()).unwrap_or_else(failure);
        let detail = outcome.as_ref().ok().map(|w| json!({"url": w.url, "webhook": w.id}));
        // Only a URL that passed the checks is kept (a refused one may carry a password).
        let target = webhook_url(url).ok();
        self.audit.record(actor.audit_name(), AuditAction::WebhookRegister, target.as_deref(), &result, detail).await;
        outcome
    }

    /// Creates the connected store's webhook at `url`, or updates the one of that store already
    /// pointing there (never a duplicate, never another store's), with every event Staffroom
    /// applies and `secret` (a new one when `None`), which is kept; the secret it replaces
    /// still verifies for 10 minutes. On a failure the secrets are as before.
    pub async fn register_webhook_with(&self, url: &str, secret: Option<Secret>) -> Result<RegisteredWebhook> {
        let url = webhook_url(url)?;
        self.provider.store_id().await.map_err(|_| {
            Error::new(ErrorCode::InvalidRequest, "Connect a Lemon Squeezy store first: the webhook is the store's")
        })?;
        let given = match self.secrets.source_of("webhook_secret").await? {
            SecretSource::Environment { variable } => Some(variable),
            SecretSource::File { .. } => Some("STAFFROOM_WEBHOOK_SECRET_FILE".to_string()),
            _ => None,
        };
        if let (Some(variable), None) = (given, &secret) {
            return Err(Error::new(
                ErrorCode::InvalidRequest,
                format!("{variable} is set where this Staffroom runs, and wins over a new secret: remove it and restart, then register again"),
            ));
        }
        let (_, test_mode, _) = self.provider.account(None).await?;
        let (webhooks, _) = self.provider.list(Kind::Webhook, &[], |_, _| {}).await?;
        let existing = webhooks.into_iter().find(|w| w.str("url").as_deref() == Some(url.as_str()));
        let secret = secret.unwrap_or_else(keys::generate_webhook_secret);
        let before = self.secrets.read("webhook_secret").await?;
        // Both verify from here on: the new secret, and for a while the one it replaces, which
        // the provider may still be signing with.
        self.keep_webhook_secret(&secret, before.as_ref()).await?;
        let mut attributes = json!({"url": url, "events": WEBHOOK_EVENTS, "secret": secret.expose()});
        let made = match existing {
            Some(found) => match self.provider.read(Kind::Webhook, &found.id).await {
                Ok(ours) => self.provider.update(&ours, attributes).await,
                Err(err) => Err(err),
            },
            None => {
                attributes["test_mode"] = json!(test_mode);
                self.provider.create_once(Kind::Webhook, attributes, Map::new()).await
            }
        };
        let made = match made {
            Ok(made) => made,
            // A definite refusal: the provider kept the old secret, so this server does too.
            Err(err) if !err.is_provider_unreachable() => {
                self.restore_webhook_secret(before).await;
                return Err(err);
            }
            // The outcome is unknown (a time-out, a 5xx): the provider may sign with either
            // secret, and for 10 minutes both verify; registering again settles it.
            Err(err) => return Err(err),
        };
        self.db.set_meta(WEBHOOK_URL, url.clone()).await?;
        // Refusals before this registration are of the secret it replaced.
        self.db.set_meta(BAD_SIGNATURE_AT, String::new()).await?;
        tracing::info!(webhook = %made.id, %url, "webhook registered");
        Ok(RegisteredWebhook {
            id: made.id.clone(),
            url,
            events: strings(made.attributes.get("events")),
            test_mode: made.bool("test_mode").unwrap_or(test_mode),
        })
    }

    async fn keep_webhook_secret(&self, secret: &Secret, before: Option<&Secret>) -> Result<()> {
        if before.is_some_and(|before| before.expose() == secret.expose()) {
            return Ok(());
        }
        if let Some(before) = before {
            let until = staffroom_base::time::now_unix() + PREVIOUS_SECRET_FOR.as_secs() as i64;
            self.secrets.write("webhook_secret_previous", before.clone()).await?;
            self.db.set_meta(PREVIOUS_SECRET_UNTIL, until.to_string()).await?;
        }
        self.secrets.write("webhook_secret", secret.clone()).await
    }

    /// Puts the secret back as it was before a registration the provider refused.
    async fn restore_webhook_secret(&self, before: Option<Secret>) {
        let restored = match before {
            Some(before) => self.secrets.write("webhook_secret", before).await,
            None => self.secrets.remove("webhook_secret").await,
        };
        let expired = self.db.set_meta(PREVIOUS_SECRET_UNTIL, "0".into()).await;
        if let Err(err) = restored.and(expired) {
            tracing::error!(%err, "could not put the webhook secret back after a failed registration");
        }
    }

    /// How the connection stands, as the provider answers now, with its problems.
    pub async fn connection(&self) -> Result<LemonSqueezyConnection> {
        let last_delivery_at = self.inbox.recent(1).await?.into_iter().next().map(|d| d.received_at);
        let status = self.sync_status().await?;
        let last_sync_at = status
            .resources
            .iter()
            .map(|r| r.synced_at.clone())
            .collect::<Option<Vec<_>>>()
            .and_then(|all| all.into_iter().min());
        let mut view = LemonSqueezyConnection {
            state: ConnectionState::NotConfigured,
            account: None,
            store: None,
            webhook: None,
            last_delivery_at,
            last_sync_at,
            problems: Vec::new(),
        };
        let connect_fix = "Connect the store in Settings → Connections (on a server: staffroom connect lemonsqueezy)";
        let key = self.secrets.read("lemonsqueezy_api_key").await?;
        let store_id = self.provider.store_id().await.ok();
        let (Some(_), Some(store_id)) = (key, store_id) else {
            view.problems.push(Problem::new("not_connected", "No Lemon Squeezy store is connected", connect_fix));
            return Ok(view);
        };
        let (user, test_mode, stores) = match self.provider.account(None).await {
            Ok(answer) => answer,
            Err(err) => {
                view.state = ConnectionState::of(&err);
                view.problems.push(match view.state {
                    ConnectionState::Refused => Problem::new(
                        "key_refused",
                        "Lemon Squeezy refuses the API key (it was deleted, or it expired)",
                        format!("Make a new key in Lemon Squeezy (Settings → API) and connect again: {connect_fix}"),
                    ),
                    _ => Problem::new(
                        "unreachable",
                        format!("Lemon Squeezy could not be reached: {}", err.message),
                        "Check this server's internet connection; staff keep working from the cache meanwhile",
                    ),
                });
                return Ok(view);
            }
        };
        view.account = Some(account_of(&user));
        let Some(store) = stores.iter().find(|s| s.id == store_id) else {
            view.state = ConnectionState::Refused;
            view.problems.push(Problem::new(
                "store_not_seen",
                format!("The API key does not see store {store_id} any more"),
                format!("Connect again with a key of the store's account: {connect_fix}"),
            ));
            return Ok(view);
        };
        let choice = store_choice(store);
        view.store = Some(ConnectedStore { id: choice.id, name: choice.name, currency: choice.currency, test_mode });
        view.state = ConnectionState::Connected;
        match self.our_webhook().await {
            Ok(webhook) => {
                view.webhook = webhook;
                view.problems = self.webhook_problems(&view, status.interval_secs).await?;
            }
            // The account answered but the webhooks did not: say so rather than fail the view.
            Err(err) => view.problems.push(Problem::new(
                "webhooks_unread",
                format!("Lemon Squeezy did not say which webhooks the store has: {}", err.message),
                "Check again in a moment",
            )),
        }
        for resource in status.resources.iter().filter(|r| r.error.is_some()) {
            view.problems.push(Problem::new(
                "sync_failed",
                format!(
                    "The last sync of {} failed: {}",
                    resource.resource,
                    resource.error.as_deref().unwrap_or_default()
                ),
                "Sync again from Settings; if it fails again, the sentence above says what Lemon Squeezy refused",
            ));
        }
        Ok(view)
    }

    /// The store's webhook that delivers to Staffroom: the one registered from here, else one
    /// pointing at a Staffroom receiver (made by hand before).
    async fn our_webhook(&self) -> Result<Option<WebhookView>> {
        let registered = self.db.meta(WEBHOOK_URL).await?;
        let (webhooks, _) = self.provider.list(Kind::Webhook, &[], |_, _| {}).await?;
        let url = |w: &Resource| w.str("url").unwrap_or_default();
        let ours = webhooks
            .iter()
            .find(|w| registered.as_deref() == Some(url(w).as_str()))
            .or_else(|| webhooks.iter().find(|w| url(w).ends_with(WEBHOOK_PATH)));
        Ok(ours.map(|w| WebhookView {
            id: w.id.clone(),
            url: url(w),
            events: strings(w.attributes.get("events")),
            last_sent_at: w.str("last_sent_at"),
        }))
    }

    async fn webhook_problems(&self, view: &LemonSqueezyConnection, interval_secs: u64) -> Result<Vec<Problem>> {
        let register = "Register the webhook in Settings → Connections with the address where this server is reached from the internet (on a server: staffroom connect lemonsqueezy --webhook-url)";
        let Some(webhook) = &view.webhook else {
            return Ok(vec![Problem::new(
                "no_webhook",
                format!(
                    "No webhook is registered for this store: changes made in Lemon Squeezy (a payment, a refund, a cancellation) arrive only with the sync, every {} minutes",
                    interval_secs.div_ceil(60)
                ),
                register,
            )]);
        };
        let mut problems = Vec::new();
        let missing: Vec<&str> =
            WEBHOOK_EVENTS.iter().copied().filter(|e| !webhook.events.iter().any(|w| w == e)).collect();
        if !missing.is_empty() {
            problems.push(Problem::new(
                "webhook_events_missing",
                format!("The webhook does not send {}: those changes arrive only with the sync", missing.join(", ")),
                format!("Register the webhook again: {register}"),
            ));
        }
        if self.secrets.read("webhook_secret").await.ok().flatten().is_none() {
            problems.push(Problem::new(
                "no_signing_secret",
                "This server has no webhook signing secret, so it refuses every delivery",
                format!("Register the webhook again, which sets one secret on both sides: {register}"),
            ));
        }
        problems.extend(silent_webhook(webhook, view.last_delivery_at.as_deref(), chrono::Utc::now()));
        if let Some(at) = self.db.meta(BAD_SIGNATURE_AT).await? {
            let arrived_since = parse_time(view.last_delivery_at.as_deref()) > parse_time(Some(&at));
            if !arrived_since && parse_time(Some(&at)).is_some_and(|t| chrono::Utc::now() - t < BAD_SIGNATURES_WITHIN) {
                problems.push(Problem::new(
                    "bad_signatures",
                    format!(
                        "Deliveries were refused at {} because their signature did not match: the webhook's secret in Lemon Squeezy differs from this server's",
                        readable(&at)
                    ),
                    format!("Register the webhook again, which sets one new secret on both sides: {register}"),
                ));
            }
        }
        Ok(problems)
    }
}

fn strings(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> chrono::DateTime<chrono::Utc> {
        parse_time(Some(s)).unwrap()
    }

    fn webhook(last_sent_at: Option<&str>) -> WebhookView {
        WebhookView {
            id: "1".into(),
            url: "https://staffroom.example.com/api/payments/webhooks".into(),
            events: vec![],
            last_sent_at: last_sent_at.map(str::to_string),
        }
    }

    #[test]
    fn a_webhook_sent_later_than_the_last_arrival_is_a_problem_once_it_had_time_to_arrive() {
        let now = at("2026-11-28T10:00:00Z");
        let sent = webhook(Some("2026-11-28T09:59:00.000000Z"));
        let problem = silent_webhook(&sent, Some("2026-11-28T09:30:00Z"), now).unwrap();
        assert_eq!(problem.code, "webhook_silent");
        assert_eq!(
            problem.message,
            "Lemon Squeezy sent a webhook at 2026-11-28 09:59:00 UTC but none has arrived here since 2026-11-28 09:30:00 UTC: check that https://staffroom.example.com/api/payments/webhooks reaches this server"
        );
        assert!(silent_webhook(&sent, None, now).unwrap().message.contains("none has ever arrived here"));
        // Arrived after it was sent, or within the slack of the clocks: no problem.
        assert_eq!(silent_webhook(&sent, Some("2026-11-28T09:59:01Z"), now), None);
        assert_eq!(silent_webhook(&sent, Some("2026-11-28T09:58:57Z"), now), None);
        // Sent a moment ago: it may be on its way.
        assert_eq!(silent_webhook(&sent, Some("2026-11-28T09:00:00Z"), at("2026-11-28T09:59:02Z")), None);
        // Never sent: nothing to miss.
        assert_eq!(silent_webhook(&webhook(None), None, now), None);
    }

    #[test]
    fn a_webhook_url_is_https_to_the_receiver() {
        assert_eq!(
            webhook_url(" https://staffroom.example.com/api/payments/webhooks ").unwrap(),
            "https://staffroom.example.com/api/payments/webhooks"
        );
        assert!(webhook_url("http://127.0.0.1:9000/api/payments/webhooks").is_ok());
        assert!(webhook_url("https://tunnel.example.com/shop/api/payments/webhooks").is_ok());
        for bad in [
            "http://staffroom.example.com/api/payments/webhooks",
            "https://staffroom.example.com/",
            "https://user:pw@staffroom.example.com/api/payments/webhooks",
            "https://staffroom.example.com/api/payments/webhooks?x=1",
            "ftp://staffroom.example.com/api/payments/webhooks",
            "staffroom.example.com/api/payments/webhooks",
            "",
        ] {
            let err = webhook_url(bad).unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidRequest, "{bad}");
            assert_eq!(err.details.unwrap()["fields"][0]["field"], "url", "{bad}");
        }
    }

    #[test]
    fn the_events_are_the_providers_and_never_the_seeds() {
        assert!(!WEBHOOK_EVENTS.contains(&"order_paid"));
        assert_eq!(WEBHOOK_EVENTS.len(), 15);
    }
}
