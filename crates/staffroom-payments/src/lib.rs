//! The payment area (SPEC section 4): products, orders through checkouts, subscriptions and
//! their management, over Lemon Squeezy, with every read going through the SQLite cache.

pub mod apply;
pub mod connect;
pub mod customers;
pub mod discounts;
pub mod export;
pub mod invoices;
pub mod license_keys;
pub mod requests;
pub mod scope;
pub mod store;
pub mod summary;
pub mod sync;
pub mod validate;
pub mod webhooks;

// The provider's client and objects, from the crate that speaks to the providers.
pub use staffroom_providers::lemonsqueezy::{client, jsonapi, model};

use std::time::Duration;

use serde::Serialize;
use serde_json::{json, Value};

use self::client::LemonSqueezyClient;
use self::model::{OrderDto, OrderEvent, PageMeta, ProductDto, SubscriptionDto};
use self::scope::{Kind, StoreScope};
use self::store::{
    ApplyingStore, CustomerStore, DiscountStore, InvoiceStore, LicenseKeyStore, OrderRecord, PaymentStore,
};
use self::sync::{ResourceSync, SyncControl, SyncProgress, SyncReporter, SyncStatus, SyncStep};
use self::webhooks::store::InboxStore;
use self::webhooks::InboxReader;
use staffroom_auth::audit::Audit;
use staffroom_auth::Actor;
use staffroom_base::error::{Error, ErrorCode, Result};
use staffroom_base::secrets::Secrets;
use staffroom_base::store::{FleetStore, MetaStore};
use staffroom_base::time::now_rfc3339;

/// What the payment area asks of a database: its caches and orders, applying webhook events, the
/// webhook inbox, settings, and the fleet's locks.
pub trait PaymentsStore:
    PaymentStore
    + CustomerStore
    + InvoiceStore
    + LicenseKeyStore
    + DiscountStore
    + ApplyingStore
    + InboxStore
    + MetaStore
    + FleetStore
    + Send
    + Sync
{
}

impl<T> PaymentsStore for T where
    T: PaymentStore
        + CustomerStore
        + InvoiceStore
        + LicenseKeyStore
        + DiscountStore
        + ApplyingStore
        + InboxStore
        + MetaStore
        + FleetStore
        + Send
        + Sync
        + ?Sized
{
}

/// A handle on the database, as the payment area sees it.
pub type PaymentsDb = std::sync::Arc<dyn PaymentsStore>;

/// The most a start waits before syncing a cache never synced in full, whatever it was asked to
/// wait: the lists that read only the cache (orders, customers, licence keys, discounts, the
/// summary) are empty until then. Long enough for a first launch's window to open without the
/// sync taking both cores from it, short enough that nobody has signed in before it starts.
const NEVER_SYNCED_WAIT: Duration = Duration::from_secs(1);

/// A products list re-reads the catalogue from the provider when it is older than this.
const PRODUCTS_FRESH_FOR: Duration = Duration::from_secs(60);
/// The fleet-wide lock a team server's replicas sync under, one at a time ("syncing").
const SYNC_LOCK: i64 = 0x7379_6e63_696e_67;

/// A sync's turn: this process's, and on a team server the fleet's.
struct SyncTurn<'a> {
    // Fields drop in order: the fleet's lock goes first, so a task here that takes the local
    // turn next finds the fleet's free too.
    _fleet: staffroom_base::store::FleetLock,
    _here: tokio::sync::MutexGuard<'a, ()>,
}

/// `GET /products`.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
pub struct ProductList {
    pub products: Vec<ProductDto>,
    pub meta: PageMeta,
}

/// `GET /subscriptions`.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
pub struct SubscriptionList {
    pub subscriptions: Vec<SubscriptionDto>,
    pub meta: PageMeta,
}

/// `GET /orders`.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
pub struct OrderList {
    pub orders: Vec<OrderDto>,
    pub meta: PageMeta,
}

/// What a sync did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct SyncReport {
    pub products: usize,
    pub subscriptions: usize,
    /// Pending orders whose missed webhook was caught up from the provider's order list.
    pub orders_reconciled: usize,
    /// Orders of the store read (all on the first sync, then the pages with changes since the last).
    pub orders_read: usize,
    /// Customers read, likewise (and those whose orders or subscriptions changed).
    pub customers_read: usize,
    /// Subscription invoices read, likewise.
    pub invoices_read: usize,
    /// Licence keys read (all once a day, else the newest pages).
    pub license_keys_read: usize,
    /// Discounts read (all of them, each sync).
    pub discounts_read: usize,
    /// Provider requests made.
    pub requests: u32,
}

/// A management action on a subscription.
#[derive(Debug, Clone, PartialEq)]
pub enum SubscriptionAction {
    Cancel,
    Resume,
    Pause { mode: String, resumes_at: Option<String> },
    Unpause,
    ChangePlan { variant_id: String },
}

impl SubscriptionAction {
    /// Whether `after` (the provider's answer) shows this action done.
    fn took_effect(&self, after: &SubscriptionDto) -> bool {
        match self {
            SubscriptionAction::Cancel => matches!(after.provider_status.as_str(), "cancelled" | "expired"),
            SubscriptionAction::Resume => after.provider_status != "cancelled",
            SubscriptionAction::Pause { mode, .. } => after.pause_mode.as_deref() == Some(mode.as_str()),
            SubscriptionAction::Unpause => after.pause_mode.is_none(),
            SubscriptionAction::ChangePlan { variant_id } => &after.variant_id == variant_id,
        }
    }

    fn audit_action(&self) -> staffroom_auth::audit::AuditAction {
        match self {
            SubscriptionAction::Cancel => staffroom_auth::audit::AuditAction::SubscriptionCancel,
            SubscriptionAction::Resume => staffroom_auth::audit::AuditAction::SubscriptionResume,
            SubscriptionAction::Pause { .. } => staffroom_auth::audit::AuditAction::SubscriptionPause,
            SubscriptionAction::Unpause => staffroom_auth::audit::AuditAction::SubscriptionUnpause,
            SubscriptionAction::ChangePlan { .. } => staffroom_auth::audit::AuditAction::SubscriptionChangePlan,
        }
    }
}

fn older_than(stamp: Option<&str>, age: Duration) -> bool {
    match stamp.and_then(|s| chrono::DateTime::parse_from_rfc3339(s).ok()) {
        Some(t) => chrono::Utc::now().signed_duration_since(t).to_std().map(|d| d > age).unwrap_or(false),
        None => true,
    }
}

/// Products, orders and subscriptions.
#[derive(Clone)]
pub struct PaymentService {
    db: PaymentsDb,
    /// The provider as the connected store sees it: every read by id and every write goes
    /// through it (see [`scope`]).
    provider: StoreScope,
    audit: Audit,
    inbox: InboxReader,
    sync: SyncControl,
    secrets: Secrets,
}

impl PaymentService {
    /// The service over `db`, talking to the provider through `client`.
    pub fn new(
        db: impl Into<PaymentsDb>,
        client: LemonSqueezyClient,
        secrets: Secrets,
        audit: Audit,
        sync_interval: Duration,
    ) -> Self {
        let db = db.into();
        PaymentService {
            inbox: InboxReader::new(db.clone() as webhooks::WebhooksDb),
            db,
            provider: StoreScope::new(client, secrets.clone()),
            audit,
            sync: SyncControl::new(sync_interval),
            secrets,
        }
    }

    async fn store_id(&self) -> Result<String> {
        self.provider.store_id().await
    }

    async fn currency(&self) -> Result<String> {
        if let Some(currency) = self.db.meta("lemonsqueezy_currency").await? {
            return Ok(currency);
        }
        let store = self.provider.store().await?;
        let currency = store.str("currency").unwrap_or_else(|| "USD".into());
        self.db.set_meta("lemonsqueezy_currency", currency.clone()).await?;
        Ok(currency)
    }

    /// This service reading the provider in bulk: a whole sync or a whole list (the catalogue,
    /// every subscription), which can take more requests than the client's burst of 50. They
    /// leave a quarter of the rate to what staff open meanwhile (a product opened during a
    /// large store's sync waited up to 1.3 s).
    fn for_bulk_reads(&self) -> PaymentService {
        PaymentService { provider: self.provider.for_bulk_reads(), ..self.clone() }
    }

    async fn record_sync(&self, resource: &'static str, error: Option<String>) -> Result<()> {
        self.db.record_sync(resource, now_rfc3339(), error).await
    }

    /// Re-reads the catalogue when it is older than a minute, one reader at a time: requests that
    /// waited while another read it take that outcome instead of reading it again. True when the
    /// provider is out of reach and the cached copy is what there is (stale).
    async fn refresh_catalogue_if_old(&self) -> Result<bool> {
        let state = self.db.sync_state("products").await?;
        if !older_than(state.synced_at.as_deref(), PRODUCTS_FRESH_FOR) {
            return Ok(false);
        }
        let asked = std::time::Instant::now();
        let _one_at_a_time = self.one_sync_at_a_time(true).await?;
        let state = self.db.sync_state("products").await?;
        if !older_than(state.synced_at.as_deref(), PRODUCTS_FRESH_FOR) {
            return Ok(false);
        }
        let tried_meanwhile = !older_than(state.attempted_at.as_deref(), asked.elapsed());
        if tried_meanwhile && state.synced_at.is_some() {
            return Ok(true);
        }
        match self.for_bulk_reads().read_catalogue(&SyncReporter::silent()).await {
            Ok(_) => Ok(false),
            Err(err) if err.is_provider_unreachable() && state.synced_at.is_some() => Ok(true),
            Err(err) => Err(err),
        }
    }

    async fn read_catalogue(&self, report: &SyncReporter) -> Result<(usize, u32)> {
        let outcome = async {
            let currency = self.currency().await?;
            let on_products = |done, total| report.step(SyncStep::Products, done, total);
            let (products, p_pages) = self.provider.list(Kind::Product, &[], on_products).await?;
            let on_variants = |done, total| report.step(SyncStep::Variants, done, total);
            // The variants list has no store filter: it holds every store of the key's account,
            // and only those of this store's products are kept.
            let (variants, v_pages) = self.provider.children_observed("variants", &[], on_variants).await?;
            let products: Vec<ProductDto> = products.iter().map(|p| model::product_from(p, &currency)).collect();
            let ours: std::collections::HashSet<&str> = products.iter().map(|p| p.id.as_str()).collect();
            let variants: Vec<_> = variants
                .iter()
                .map(model::variant_from)
                .filter(|(product_id, _, _)| ours.contains(product_id.as_str()))
                .collect();
            let variants = model::shown_variants(variants);
            let count = products.len();
            self.db.replace_products(products, variants, now_rfc3339()).await?;
            Ok::<_, Error>((count, p_pages + v_pages + 1))
        }
        .await;
        self.record_sync("products", outcome.as_ref().err().map(|e: &Error| e.message.clone())).await?;
        outcome
    }

    /// Re-reads every subscription of the store, after any sync already running.
    pub async fn sync_subscriptions(&self) -> Result<(usize, u32)> {
        let _one_at_a_time = self.one_sync_at_a_time(true).await?;
        self.for_bulk_reads().read_subscriptions(&SyncReporter::silent()).await
    }

    async fn read_subscriptions(&self, report: &SyncReporter) -> Result<(usize, u32)> {
        let outcome = async {
            // What a webhook writes from here on is newer than the pages read below.
            let since = now_rfc3339();
            let on_page = |done, total| report.step(SyncStep::Subscriptions, done, total);
            let (resources, pages) = self.provider.list(Kind::Subscription, &[], on_page).await?;
            let subs: Vec<SubscriptionDto> = resources.iter().map(model::subscription_from).collect();
            let count = subs.len();
            self.db.replace_subscriptions(subs, now_rfc3339(), since).await?;
            Ok::<_, Error>((count, pages))
        }
        .await;
        self.record_sync("subscriptions", outcome.as_ref().err().map(|e: &Error| e.message.clone())).await?;
        outcome
    }

    /// Every order of the store (SPEC section 11), 100 a page, newest first: all of them on the
    /// first sync, after that until a page with nothing changed since the last sync began (a
    /// minute's slack for the provider's clock). Each order is applied by the webhook rules
    /// (`apply::decide`), so one made here stays linked, and no status moves backwards.
    async fn read_orders(&self, report: &SyncReporter) -> Result<(usize, u32)> {
        let outcome = async {
            let since = self.db.sync_state("orders").await?.synced_at.and_then(|at| {
                let at = chrono::DateTime::parse_from_rfc3339(&at).ok()?;
                Some((at - chrono::Duration::minutes(1)).with_timezone(&chrono::Utc))
            });
            let started = now_rfc3339();
            let mut read = 0;
            let changed = |r: &jsonapi::Resource| {
                let updated = r.str("updated_at").and_then(|t| chrono::DateTime::parse_from_rfc3339(&t).ok());
                since.zip(updated).is_none_or(|(since, updated)| updated >= since)
            };
            let mut pages = self.provider.pages(Kind::Order, &[]).await?;
            while let Some(page) = pages.next().await? {
                report.step(SyncStep::Orders, pages.read(), pages.total());
                let ours: Vec<_> = page.iter().map(synced_order).collect();
                read += ours.len();
                // A few at a time: a webhook waiting to apply waits for one small transaction,
                // not for a page.
                for chunk in ours.chunks(APPLY_CHUNK) {
                    self.db.apply_events(chunk.to_vec()).await?;
                }
                if !page.iter().any(changed) {
                    break;
                }
            }
            let pages = pages.read();
            self.db.record_sync("orders", started, None).await?;
            Ok::<_, Error>((read, pages))
        }
        .await;
        if let Err(err) = &outcome {
            self.db.record_sync("orders", now_rfc3339(), Some(err.message.clone())).await?;
        }
        outcome
    }

    /// Waits for any sync running here, and on a team server on any replica (with `wait`; else
    /// `None` when one runs), then holds the turn while the caller reads the provider: the fleet
    /// never syncs twice at once, so together it stays under the provider's rate limit.
    async fn one_sync_at_a_time(&self, wait: bool) -> Result<Option<SyncTurn<'_>>> {
        let here = if wait {
            self.sync.exclusive().await
        } else {
            match self.sync.try_exclusive() {
                Some(guard) => guard,
                None => return Ok(None),
            }
        };
        let Some(fleet) = self.db.take_fleet_lock(SYNC_LOCK, wait).await? else { return Ok(None) };
        Ok(Some(SyncTurn { _fleet: fleet, _here: here }))
    }

    /// Syncs products and subscriptions now (also what catches up missed webhooks), after any
    /// sync already running, reporting progress to `subscribe_sync` listeners. Both are
    /// attempted even when the first fails, so each records its own state.
    pub async fn sync_all(&self) -> Result<SyncReport> {
        let _one_at_a_time = self.one_sync_at_a_time(true).await?;
        self.sync_holding_the_turn().await
    }

    /// The background sync's turn. It waits for a sync running here, and on a team server on
    /// another replica: that may be a list catching up on the catalogue or the subscriptions
    /// alone, and giving the turn up then left the rest of the store (orders, customers, …)
    /// unsynced until the next interval, a first launch's above all. It gives the turn up when
    /// a whole sync ran here while it waited, and on a team server when any replica made one
    /// in the last half interval (replicas take turns, so the fleet syncs about once an
    /// interval).
    async fn sync_in_turn(&self) -> Result<Option<SyncReport>> {
        let whole_syncs = self.sync.whole_syncs();
        let Some(_turn) = self.one_sync_at_a_time(true).await? else { return Ok(None) };
        if self.sync.whole_syncs() != whole_syncs {
            return Ok(None);
        }
        if self.db.is_shared() {
            // A whole sync reads the discounts last, and nothing else reads them all: their last
            // attempt is the fleet's last whole sync.
            let last_whole = self.db.sync_state("discounts").await?.attempted_at;
            if !older_than(last_whole.as_deref(), self.sync.interval() / 2) {
                return Ok(None);
            }
        }
        self.sync_holding_the_turn().await.map(Some)
    }

    async fn sync_holding_the_turn(&self) -> Result<SyncReport> {
        let report = self.sync.reporter();
        let bulk = self.for_bulk_reads();
        let outcome = async {
            let products = bulk.read_catalogue(&report).await;
            let subscriptions = bulk.read_subscriptions(&report).await;
            // Our own orders first: one whose webhook was missed links to the provider's order
            // before the whole store is read, which would otherwise take that order as new.
            let reconciled = bulk.reconcile_orders_reporting(&report).await;
            let orders = bulk.read_orders(&report).await;
            // After the orders and subscriptions: whose of them changed says whose figures did.
            let customers = bulk.read_customers(&report).await;
            let invoices = bulk.read_invoices(&report).await;
            let license_keys = bulk.read_license_keys(&report).await;
            let discounts = bulk.read_discounts(&report).await;
            let (products, a) = products?;
            let ((subscriptions, b), (orders_reconciled, c), (orders, d)) = (subscriptions?, reconciled?, orders?);
            let ((customers, e), (invoices, f), (license_keys, g)) = (customers?, invoices?, license_keys?);
            let (discounts, h) = discounts?;
            Ok(SyncReport {
                products,
                subscriptions,
                orders_reconciled,
                orders_read: orders,
                customers_read: customers,
                invoices_read: invoices,
                license_keys_read: license_keys,
                discounts_read: discounts,
                requests: a + b + c + d + e + f + g + h,
            })
        }
        .await;
        self.sync.count_whole_sync();
        report.finished(outcome.as_ref().map(|_| ()));
        outcome
    }

    /// Progress of every sync from now on, page by page.
    pub fn subscribe_sync(&self) -> tokio::sync::broadcast::Receiver<SyncProgress> {
        self.sync.subscribe()
    }

    /// Whether a sync runs, its interval and each resource's last sync.
    pub async fn sync_status(&self) -> Result<SyncStatus> {
        let running = self.sync.is_running();
        let mut resources = Vec::new();
        for resource in ["products", "subscriptions", "orders", "customers"] {
            let state = self.db.sync_state(resource).await?;
            resources.push(ResourceSync {
                resource: resource.to_string(),
                synced_at: state.synced_at,
                attempted_at: state.attempted_at,
                error: state.error,
            });
        }
        Ok(SyncStatus { running, interval_secs: self.sync.interval().as_secs(), resources })
    }

    /// Changes the interval between background syncs (admins; audited), from the next one on.
    pub async fn set_sync_interval(&self, actor: &Actor, interval_secs: u64) -> Result<SyncStatus> {
        actor.require_admin()?;
        let interval = sync::validate_interval(interval_secs)?;
        self.sync.set_interval(&self.db, interval).await?;
        let detail = json!({ "intervalSecs": interval_secs });
        self.audit
            .record(actor.audit_name(), staffroom_auth::audit::AuditAction::SyncInterval, None, "success", Some(detail))
            .await;
        self.sync_status().await
    }

    /// Catches up pending orders whose `order_created` webhook never arrived (the receiver was
    /// down longer than the provider retries). The API does not return checkout custom data, so
    /// a provider order is matched by buyer email and variant, made after our order, and not
    /// linked to another local order yet.
    async fn reconcile_orders_reporting(&self, report: &SyncReporter) -> Result<(usize, u32)> {
        let since =
            (chrono::Utc::now() - chrono::Duration::days(30)).to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        let pending = self.db.pending_orders(since).await?;
        if pending.is_empty() {
            return Ok((0, 0));
        }
        let applier = apply::PaymentsApplier::new(self.db.clone());
        let mut by_email: std::collections::BTreeMap<String, Vec<OrderRecord>> = Default::default();
        for order in pending {
            by_email.entry(order.dto.email.to_lowercase()).or_default().push(order);
        }
        let (mut reconciled, mut requests) = (0, 0);
        let buyers = u32::try_from(by_email.len()).ok();
        for (done, (email, orders)) in (1..).zip(by_email) {
            report.step(SyncStep::Pending, done, buyers);
            let query = [("filter[user_email]", email)];
            let (mut candidates, pages) = self.provider.list(Kind::Order, &query, |_, _| {}).await?;
            requests += pages;
            candidates.sort_by_key(|c| c.str("created_at").unwrap_or_default());
            for order in orders {
                let ours = chrono::DateTime::parse_from_rfc3339(&order.dto.created_at).ok();
                let position = candidates.iter().position(|c| {
                    let variant =
                        c.attributes.get("first_order_item").and_then(|i| i.get("variant_id")).and_then(jsonapi::id_of);
                    let made = c.str("created_at").and_then(|t| chrono::DateTime::parse_from_rfc3339(&t).ok());
                    // A minute of slack: the provider's clock and second-resolution stamps differ from ours.
                    variant.as_deref() == Some(order.dto.variant_id.as_str())
                        && made.zip(ours).is_some_and(|(m, o)| m >= o - chrono::Duration::minutes(1))
                });
                let Some(position) = position else { continue };
                let candidate = candidates.remove(position);
                let linked = self.db.order_by_provider_id(candidate.id.clone()).await?;
                if linked.is_some() {
                    continue;
                }
                let mut custom = serde_json::Map::new();
                custom.insert("order_id".into(), Value::String(order.dto.id.clone()));
                let event = crate::webhooks::WebhookEvent {
                    name: "order_created".into(),
                    webhook_id: None,
                    resource_type: "orders".into(),
                    resource_id: candidate.id.clone(),
                    attributes: candidate.attributes.clone(),
                    custom_data: Some(custom),
                    test_mode: None,
                    timestamp: None,
                };
                applier.apply_unstored(&event).await?;
                tracing::info!(order = %order.dto.order_id, provider_order = %candidate.id, "reconciled an order whose webhook was missed");
                reconciled += 1;
            }
        }
        Ok((reconciled, requests))
    }

    /// Starts the background sync: once `first_after` from now (catching up what happened while
    /// Staffroom was not running), then at the interval an admin chose (or the configured one),
    /// rescheduled at once when it changes. A cache never synced in full waits no longer than
    /// [`NEVER_SYNCED_WAIT`].
    pub async fn start_background_sync(&self, first_after: Duration) -> Result<tokio::task::JoinHandle<()>> {
        self.sync.load_interval(&self.db).await?;
        let synced_before = self.sync_status().await?.resources.iter().all(|r| r.synced_at.is_some());
        let first_after = if synced_before { first_after } else { first_after.min(NEVER_SYNCED_WAIT) };
        let service = self.clone();
        let mut interval = self.sync.watch_interval();
        // A sync that overruns its slot delays the next one rather than bunching them up.
        let ticker_from = |start: tokio::time::Instant, every| {
            let mut ticker = tokio::time::interval_at(start, every);
            ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            ticker
        };
        Ok(tokio::spawn(async move {
            let first = tokio::time::Instant::now() + first_after;
            let mut ticker = ticker_from(first, *interval.borrow_and_update());
            let mut caught_up = false;
            loop {
                tokio::select! {
                    _ = ticker.tick() => caught_up = true,
                    changed = interval.changed() => {
                        if changed.is_err() {
                            break;
                        }
                        let every = *interval.borrow_and_update();
                        // The catch-up sync still comes when it was due.
                        let next = if caught_up { tokio::time::Instant::now() + every } else { first };
                        ticker = ticker_from(next, every);
                        continue;
                    }
                }
                if !service.is_connected().await {
                    // Nothing to sync before an admin connects a store: not a failure.
                    tracing::debug!("no Lemon Squeezy store connected yet: nothing to sync");
                    continue;
                }
                match service.sync_in_turn().await {
                    Ok(Some(report)) => {
                        tracing::info!(?report, "payments synced");
                        // A sync reads and frees a great deal: give the free pages back.
                        tokio::task::spawn_blocking(staffroom_base::memory::release_free_pages);
                    }
                    Ok(None) => tracing::debug!("another replica synced or is syncing: not this one's turn"),
                    Err(err) => {
                        tracing::warn!(code = err.code.as_str(), message = %err.message, "payments sync failed; serving the cache")
                    }
                }
            }
        }))
    }

    async fn meta_for(&self, resource: &'static str, mut meta: PageMeta, stale: bool) -> Result<PageMeta> {
        let state = self.db.sync_state(resource).await?;
        meta.synced_at = state.synced_at;
        meta.stale = Some(stale || state.error.is_some());
        Ok(meta)
    }

    /// `GET /products`: fresh from the provider when it answers, else the cache marked stale.
    pub async fn list_products(&self, query: &requests::ListProductsRequest) -> Result<ProductList> {
        let stale = self.refresh_catalogue_if_old().await?;
        let (page, limit) = (query.page.unwrap_or(1), query.limit.unwrap_or(10));
        let status = query.status.map(model::ProductStatus::as_str);
        let (products, total) = self.db.list_products(status, query.search.clone(), page, limit).await?;
        let meta = self.meta_for("products", PageMeta::new(page, limit, total), stale).await?;
        Ok(ProductList { products, meta })
    }

    /// `GET /products/:id` with its variants.
    pub async fn get_product(&self, id: &str) -> Result<ProductDto> {
        validate_id("id", id)?;
        let fresh = async {
            let currency = self.currency().await?;
            let resource = self.provider.read(Kind::Product, id).await?;
            let (variants, _) = self.provider.children("variants", &[("filter[product_id]", id.to_string())]).await?;
            let mut product = model::product_from(&resource, &currency);
            let mut variants = model::shown_variants(variants.iter().map(model::variant_from).collect());
            variants.sort_by_key(|(_, _, sort)| *sort);
            product.variants = Some(variants.into_iter().map(|(_, v, _)| v).collect());
            Ok::<_, Error>(product)
        }
        .await;
        match fresh {
            Ok(product) => {
                self.db.upsert_product(product.clone(), now_rfc3339()).await?;
                Ok(product)
            }
            Err(err) if err.is_provider_unreachable() => self.db.product(id.to_string()).await?.ok_or(err),
            Err(err) => Err(err),
        }
    }

    /// `POST /orders`: a provider checkout for the variant, and our local order record.
    pub async fn create_order(&self, actor: &Actor, new: validate::NewOrder) -> Result<OrderDto> {
        let product = self.get_product(&new.product_id).await?;
        let variant = sellable_variant(&product, new.variant_id.as_deref())?;
        let order_id = uuid::Uuid::new_v4().to_string();
        let store_id = self.store_id().await?;
        if let Some(code) = &new.discount_code() {
            self.check_discount_code(code, &variant.id).await?;
        }
        let (attributes, relationships) = checkout_request(&new, &order_id, &variant.id);
        let checkout = match self.create_checkout(attributes, relationships, &variant.id, &order_id).await {
            Ok(checkout) => checkout,
            Err(err) => {
                self.audit
                    .record(
                        actor.audit_name(),
                        staffroom_auth::audit::AuditAction::OrderCreate,
                        Some(&order_id),
                        "failure",
                        Some(json!({ "code": err.code })),
                    )
                    .await;
                return Err(err);
            }
        };
        let checkout_url =
            checkout.str("url").ok_or_else(|| Error::integration(client::PROVIDER, None, "The checkout has no URL"))?;
        let mut record = OrderRecord {
            dto: OrderDto { id: order_id.clone(), checkout_url, ..pending_order(&new, &product, variant) },
            provider_updated_at: None,
            currency_rate: None,
            expected: Some(store::CheckoutTerms {
                store_id: store_id.clone(),
                subtotal: variant.price,
                test_mode: checkout.bool("test_mode").unwrap_or(false),
            }),
            checkout_id: Some(checkout.id.clone()),
            billing_address: new.billing_address.as_ref().map(|a| Value::Object(a.clone()).to_string()),
            metadata: Some(Value::Object(new.metadata.clone()).to_string()),
            created_by: Some(actor.audit_name().to_string()),
        };
        let number = self.db.insert_order(record.clone()).await?;
        record.dto.order_id = store::order_label(number, None);
        self.audit
            .record(
                actor.audit_name(),
                staffroom_auth::audit::AuditAction::OrderCreate,
                Some(&record.dto.order_id),
                "success",
                Some(json!({ "orderId": order_id, "variantId": variant.id })),
            )
            .await;
        Ok(record.dto)
    }

    /// Creates the checkout of our order `order_id` once. `POST /checkouts` is not replayed
    /// blindly: when its answer is lost (a time-out, a 5xx), the store's checkouts for the
    /// variant are searched for the one carrying our order id, and only when there is none is it
    /// sent again.
    async fn create_checkout(
        &self,
        attributes: Value,
        relationships: serde_json::Map<String, Value>,
        variant_id: &str,
        order_id: &str,
    ) -> Result<jsonapi::Resource> {
        const ATTEMPTS: u32 = 3;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let error = match self.provider.create_once(Kind::Checkout, attributes.clone(), relationships.clone()).await
            {
                Ok(checkout) => return Ok(checkout),
                Err(error) if error.code == ErrorCode::IntegrationError => error,
                Err(error) => return Err(error),
            };
            match self.find_checkout(variant_id, order_id).await {
                Ok(Some(made)) => {
                    tracing::info!(order = order_id, checkout = %made.id, "the checkout had been made although its answer was lost");
                    return Ok(made);
                }
                Ok(None) if attempt < ATTEMPTS => {
                    tracing::info!(order = order_id, attempt, "no checkout was made; sending it again");
                    tokio::time::sleep(Duration::from_millis(250 * u64::from(attempt))).await;
                }
                // Out of attempts, or the look-up failed too: say what failed first.
                _ => return Err(error),
            }
        }
    }

    /// The checkout carrying our order id, among the variant's newest checkouts (ours was made
    /// moments ago, so the first page holds it).
    async fn find_checkout(&self, variant_id: &str, order_id: &str) -> Result<Option<jsonapi::Resource>> {
        let query = [("filter[variant_id]", variant_id.to_string()), ("page[size]", "100".to_string())];
        let (checkouts, _) = self.provider.first_page(Kind::Checkout, &query).await?;
        Ok(checkouts.into_iter().find(|c| {
            c.attributes.get("checkout_data").and_then(|d| d.get("custom")).and_then(|c| c.get("order_id"))
                == Some(&Value::String(order_id.to_string()))
        }))
    }

    /// `GET /orders/:id` with the webhook events applied to it.
    pub async fn get_order(&self, id: &str) -> Result<OrderDto> {
        validate_id("id", id)?;
        let record = self.db.order(id.to_string()).await?;
        let mut order = record.ok_or_else(|| Error::not_found(format!("No order {id}")))?.dto;
        let events = self.inbox.for_order(&order.id).await?;
        order.events = Some(
            events
                .into_iter()
                .map(|e| OrderEvent { event_name: e.event_name, received_at: e.received_at, outcome: e.outcome })
                .collect(),
        );
        Ok(order)
    }

    /// `GET /orders`: every order of the store from the cache, newest first, searched and
    /// filtered (SPEC section 11).
    pub async fn list_orders(&self, request: &requests::ListOrdersRequest) -> Result<OrderList> {
        use model::OrderStatusFilter as Wanted;
        let (page, limit) = (request.page.unwrap_or(1), request.limit.unwrap_or(10));
        let (status, provider_status) = match request.status {
            None => (None, None),
            Some(Wanted::Pending) => (Some(model::OrderStatus::Pending), None),
            Some(Wanted::Paid) => (Some(model::OrderStatus::Paid), None),
            Some(Wanted::Failed) => (Some(model::OrderStatus::Failed), None),
            Some(provider_only) => (None, Some(provider_only.as_str())),
        };
        let query = store::OrderQuery {
            page,
            limit,
            search: request.search.as_deref().map(store::OrderSearch::new),
            status,
            provider_status,
            customer_id: request.customer_id.clone(),
            product_id: request.product_id.clone(),
            from: request.from.as_deref().and_then(validate::instant),
            to: request.to.as_deref().and_then(validate::instant),
        };
        let (orders, total) = self.db.list_orders(query).await?;
        Ok(OrderList { orders, meta: PageMeta::new(page, limit, total) })
    }

    /// `GET /summary`: the store's money and subscriptions over a range of days, from the cache.
    pub async fn summary(&self, request: &requests::SummaryRequest) -> Result<summary::SalesSummaryEnvelope> {
        let (from, to) = summary::range(
            request.from.as_deref().and_then(validate::instant),
            request.to.as_deref().and_then(validate::instant),
        )?;
        let currency = self.db.meta("lemonsqueezy_currency").await?.unwrap_or_else(|| "USD".into());
        let sales = self.db.daily_sales(summary::span(&from, &to), currency.clone()).await?;
        let subscriptions = self.db.subscription_figures(from.clone(), to.clone()).await?;
        let state = self.db.sync_state("orders").await?;
        let freshness = (state.error.is_some(), state.synced_at);
        Ok(summary::SalesSummaryEnvelope {
            summary: summary::assemble((from, to), currency, sales, subscriptions, freshness),
        })
    }

    /// `GET /subscriptions`: from the cache, with exact filters; synced first when never synced.
    pub async fn list_subscriptions(&self, query: &requests::ListSubscriptionsRequest) -> Result<SubscriptionList> {
        let state = self.db.sync_state("subscriptions").await?;
        let mut stale = false;
        if state.synced_at.is_none() {
            let _one_at_a_time = self.one_sync_at_a_time(true).await?;
            // Lists asked for together before the first sync make that sync once.
            if self.db.sync_state("subscriptions").await?.synced_at.is_none() {
                self.for_bulk_reads().read_subscriptions(&SyncReporter::silent()).await?;
            }
        } else if older_than(state.synced_at.as_deref(), self.sync.interval() * 2) {
            stale = true;
        }
        let (page, limit) = (query.page.unwrap_or(1), query.limit.unwrap_or(10));
        let (status, provider_status) = query.status.map(model::SubscriptionStatusFilter::split).unwrap_or_default();
        let query = store::SubscriptionQuery {
            page,
            limit,
            status,
            provider_status,
            customer_id: query.customer_id.clone(),
            product_id: query.product_id.clone(),
            search: query.search.as_deref().map(store::like_pattern),
        };
        let (subscriptions, total) = self.db.list_subscriptions(query).await?;
        let meta = self.meta_for("subscriptions", PageMeta::new(page, limit, total), stale).await?;
        Ok(SubscriptionList { subscriptions, meta })
    }

    /// `GET /subscriptions/:id`: as the provider has it now, with the links it signs for 24 hours
    /// (where the customer updates their card, their portal), or as cached, without them, when
    /// it cannot be reached.
    pub async fn get_subscription(&self, id: &str) -> Result<(SubscriptionDto, bool)> {
        validate_id("id", id)?;
        let fresh =
            self.provider.read(Kind::Subscription, id).await.map(|resource| model::subscription_from(&resource));
        let not_found = || Error::not_found(format!("No subscription {id}"));
        match fresh {
            Ok(read) => {
                self.db.upsert_subscription(read.clone(), now_rfc3339()).await?;
                // The cached row adds the plan's price and interval and the latest payment.
                let cached = self.db.subscription(id.to_string()).await?.ok_or_else(not_found)?;
                let links = (read.update_payment_method_url, read.portal_url);
                Ok((SubscriptionDto { update_payment_method_url: links.0, portal_url: links.1, ..cached }, false))
            }
            Err(err) if err.is_provider_unreachable() => {
                Ok((self.db.subscription(id.to_string()).await?.ok_or(err)?, true))
            }
            Err(err) => Err(err),
        }
    }

    /// Cancel, resume, pause, unpause or change plan, of one of this store's subscriptions (to a
    /// variant of this store's products). The provider's answer is checked against what was
    /// asked: a change that waits for the customer (a PayPal subscription is changed only once
    /// its customer confirms at the URL Lemon Squeezy gives) comes back as pending with that URL;
    /// a change the provider reports done but did not make is an error. Audited, refusals too.
    pub async fn act_on_subscription(
        &self,
        actor: &Actor,
        id: &str,
        action: SubscriptionAction,
    ) -> Result<SubscriptionActionResult> {
        validate_id("id", id)?;
        let checked = self.send_subscription_action(id, &action).await;
        let outcome = match &checked {
            Ok((_, None)) => "success".to_string(),
            Ok((_, Some(_))) => "pending: the customer must confirm".to_string(),
            Err(err) => staffroom_auth::audit::failure(err),
        };
        self.audit.record(actor.audit_name(), action.audit_action(), Some(id), &outcome, None).await;
        let (subscription, pending_confirmation) = checked?;
        self.db.upsert_subscription(subscription.clone(), now_rfc3339()).await?;
        let subscription = self.db.subscription(subscription.id.clone()).await?.unwrap_or(subscription);
        Ok(SubscriptionActionResult { subscription, pending_confirmation })
    }

    /// Reads the subscription (refused unless it is this store's), sends `action`, and checks
    /// the provider's answer.
    async fn send_subscription_action(
        &self,
        id: &str,
        action: &SubscriptionAction,
    ) -> Result<(SubscriptionDto, Option<PendingConfirmation>)> {
        let ours = self.provider.read(Kind::Subscription, id).await?;
        let resource = match action {
            SubscriptionAction::Cancel => self.provider.delete(&ours).await?,
            SubscriptionAction::Resume => {
                let current = model::subscription_from(&ours);
                if current.provider_status != "cancelled" {
                    return Err(Error::conflict("Only a cancelled subscription can be resumed", None));
                }
                if current.ends_at.as_deref().is_some_and(|end| older_than(Some(end), Duration::ZERO)) {
                    return Err(Error::conflict("The subscription has ended and can no longer be resumed", None));
                }
                self.provider.update(&ours, json!({"cancelled": false})).await?
            }
            SubscriptionAction::Pause { mode, resumes_at } => {
                self.provider.update(&ours, json!({"pause": {"mode": mode, "resumes_at": resumes_at}})).await?
            }
            SubscriptionAction::Unpause => self.provider.update(&ours, json!({"pause": null})).await?,
            SubscriptionAction::ChangePlan { variant_id } => {
                let variant: u64 =
                    variant_id.parse().map_err(|_| Error::invalid_field("variantId", "must be a variant id"))?;
                match self.provider.read_variant(variant_id).await {
                    Err(err) if err.code == ErrorCode::NotFound => {
                        return Err(Error::invalid_field("variantId", "is not a variant of this store's products"))
                    }
                    other => other?,
                };
                self.provider.update(&ours, json!({"variant_id": variant})).await?
            }
        };
        let subscription = model::subscription_from(&resource);
        if action.took_effect(&subscription) {
            return Ok((subscription, None));
        }
        let url = resource
            .attributes
            .get("urls")
            .and_then(|u| u.get("customer_portal_update_subscription"))
            .and_then(Value::as_str)
            .filter(|u| u.starts_with("https://") || u.starts_with("http://"))
            .map(str::to_string);
        let Some(url) = url else {
            return Err(Error::integration(
                client::PROVIDER,
                None,
                "Lemon Squeezy accepted the change but the subscription did not change",
            ));
        };
        let message = "The customer pays through PayPal: the change happens once they confirm it at this link";
        Ok((subscription, Some(PendingConfirmation { message: message.into(), url })))
    }
}

impl PaymentService {
    /// Refunds a paid order, all that is left of it or `amount` cents (admins; audited, refusals
    /// too). The provider's order is read first (refused unless it is this store's), so what may
    /// still be refunded is its word, not the local copy's. A refund is never sent twice: when
    /// its answer is lost, the order is read again to see whether it happened.
    pub async fn refund_order(&self, actor: &Actor, id: &str, amount: Option<u32>) -> Result<OrderDto> {
        actor.require_admin()?;
        validate_id("id", id)?;
        let record = self.db.order(id.to_string()).await?;
        let refunded = match &record {
            Some(record) => self.send_order_refund(record, amount).await,
            None => Err(Kind::Order.not_found(id)),
        };
        // What the audit log says in words: how much of which order, in its currency.
        let detail = record.as_ref().map(|record| {
            let asked = refunded.as_ref().map_or(amount.map(i64::from), |(_, refunded)| Some(*refunded));
            json!({
                "amount": asked,
                "currency": record.dto.currency,
                "order": record.dto.order_id,
                "providerOrderId": record.dto.provider_order_id,
            })
        });
        let outcome = refunded.as_ref().map_or_else(staffroom_auth::audit::failure, |_| "success".to_string());
        self.audit
            .record(actor.audit_name(), staffroom_auth::audit::AuditAction::OrderRefund, Some(id), &outcome, detail)
            .await;
        let (order, _) = refunded?;
        let mut record = record.expect("refunded, so found");
        let now = now_rfc3339();
        record.dto.refunded_amount =
            order.int("refunded_amount").unwrap_or(record.dto.refunded_amount).max(record.dto.refunded_amount);
        record.dto.refunded_at = model::normalise_time(order.str("refunded_at")).or(Some(now.clone()));
        record.dto.provider_status = order.str("status").or(record.dto.provider_status);
        record.provider_updated_at = model::normalise_time(order.str("updated_at")).or(record.provider_updated_at);
        record.dto.updated_at = now;
        self.db.update_order_from_provider(record).await?;
        self.get_order(id).await
    }

    /// Checks that `record`'s order is paid, this store's, and has `amount` (or anything) left
    /// to refund, then refunds it: the provider's order after the refund, and the cents refunded.
    async fn send_order_refund(&self, record: &OrderRecord, amount: Option<u32>) -> Result<(jsonapi::Resource, i64)> {
        let Some(provider_id) =
            record.dto.provider_order_id.as_deref().filter(|_| record.dto.status == model::OrderStatus::Paid)
        else {
            return Err(Error::conflict("Only a paid order can be refunded", None));
        };
        let before = self.provider.read(Kind::Order, provider_id).await?;
        let refunded_before = before.int("refunded_amount").unwrap_or(0);
        let refundable = before.int("total").unwrap_or(record.dto.total) - refunded_before;
        if refundable <= 0 {
            return Err(Error::conflict("This order has already been refunded in full", None));
        }
        if let Some(amount) = amount.filter(|a| i64::from(*a) > refundable) {
            let money = model::format_money(refundable, &record.dto.currency);
            return Err(Error::invalid_field(
                "amount",
                format!("must be at most {refundable} ({money}, what is left to refund); {amount} is more"),
            ));
        }
        let mut attributes = serde_json::Map::new();
        if let Some(amount) = amount {
            attributes.insert("amount".into(), json!(amount));
        }
        let refunded = match self.provider.act_once(&before, "refund", attributes).await {
            Ok(order) => order,
            // The answer was lost: the order itself says whether the refund happened.
            Err(lost) if lost.code == ErrorCode::IntegrationError => {
                match self.provider.read(Kind::Order, provider_id).await {
                    Ok(order) if order.int("refunded_amount").unwrap_or(0) > refunded_before => order.into_resource(),
                    _ => return Err(lost),
                }
            }
            Err(refused) => return Err(refused),
        };
        Ok((refunded, amount.map_or(refundable, i64::from)))
    }
}

/// What a subscription action did: the subscription as it is now, and, when the change waits for
/// the customer, where they confirm it.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionActionResult {
    pub subscription: SubscriptionDto,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub pending_confirmation: Option<PendingConfirmation>,
}

/// A change the provider made wait for the customer's confirmation.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct PendingConfirmation {
    /// Where the customer confirms (Lemon Squeezy's customer portal).
    pub url: String,
    pub message: String,
}

/// Path ids: provider ids are digits, ours are UUIDs; anything else is refused before any I/O.
fn validate_id(field: &str, id: &str) -> Result<()> {
    if validate::is_id(id) {
        Ok(())
    } else {
        Err(Error::invalid_field(field, "is not a valid id"))
    }
}

/// The variant an order of `product` sells: the one asked for, or the first sellable one.
/// Only a published product sells, and only its published variants; a product's only variant
/// is its "default" one, which Lemon Squeezy keeps `pending` (its variant reference), and it
/// sells as the product itself.
fn sellable_variant<'p>(product: &'p ProductDto, asked: Option<&str>) -> Result<&'p model::VariantDto> {
    if product.status != model::ProductStatus::Published {
        return Err(Error::invalid_field("productId", "is a draft product; only published products can be sold"));
    }
    let variants = product.variants.as_deref().unwrap_or_default();
    let sellable = |v: &model::VariantDto| v.status == "published" || (variants.len() == 1 && v.status == "pending");
    let variant = match asked {
        Some(id) => variants
            .iter()
            .find(|v| v.id == id)
            .ok_or_else(|| Error::invalid_field("variantId", "is not a variant of this product"))?,
        None => variants
            .iter()
            .find(|v| sellable(v))
            .ok_or_else(|| Error::invalid_field("productId", "has no published variant to sell"))?,
    };
    if !sellable(variant) {
        return Err(Error::invalid_field("variantId", "is not published"));
    }
    Ok(variant)
}

/// The attributes and relationships (besides the store's) of the provider's `POST /checkouts`
/// for our order `order_id` (carried in its custom data, so that the paid order's webhook finds
/// it).
fn checkout_request(
    new: &validate::NewOrder,
    order_id: &str,
    variant_id: &str,
) -> (Value, serde_json::Map<String, Value>) {
    let mut custom = new.metadata.clone();
    custom.insert("order_id".into(), Value::String(order_id.to_string()));
    let mut checkout_data = json!({ "email": new.email, "custom": custom });
    if let Some(name) = &new.name {
        checkout_data["name"] = name.clone().into();
    }
    if let Some(address) = &new.billing_address {
        checkout_data["billing_address"] = Value::Object(address.clone());
    }
    if let Some(code) = new.discount_code() {
        checkout_data["discount_code"] = code.into();
    }
    let mut relationships = serde_json::Map::new();
    relationships.insert("variant".into(), json!({"data": {"type": "variants", "id": variant_id}}));
    (json!({"checkout_data": checkout_data}), relationships)
}

/// A new order of `variant`, pending, as it is before its checkout exists (no id, no URL yet).
fn pending_order(new: &validate::NewOrder, product: &ProductDto, variant: &model::VariantDto) -> OrderDto {
    let now = now_rfc3339();
    OrderDto {
        id: String::new(),
        order_id: String::new(),
        status: model::OrderStatus::Pending,
        total: variant.price,
        currency: product.currency.clone(),
        checkout_url: String::new(),
        created_at: now.clone(),
        email: new.email.clone(),
        name: new.buyer_name(),
        product_id: product.id.clone(),
        variant_id: variant.id.clone(),
        customer_id: new.customer_id.clone(),
        provider_order_id: None,
        paid_at: None,
        refunded_at: None,
        refunded_amount: 0,
        updated_at: now,
        review: None,
        source: model::OrderSource::Staffroom,
        provider_status: None,
        order_number: None,
        items: vec![model::OrderItem {
            product_id: product.id.clone(),
            variant_id: variant.id.clone(),
            product_name: Some(product.name.clone()),
            variant_name: Some(variant.name.clone()),
            quantity: 1,
            price: variant.price,
        }],
        subtotal: variant.price,
        discount_total: 0,
        tax: 0,
        receipt_url: None,
        events: None,
    }
}

/// How many of the orders a sync read are applied in one transaction.
const APPLY_CHUNK: usize = 20;

/// An order a sync read, as the event that applies it: what the provider says of it now.
fn synced_order(resource: &jsonapi::Resource) -> crate::webhooks::WebhookEvent {
    crate::webhooks::WebhookEvent {
        name: "order_updated".into(),
        webhook_id: None,
        resource_type: "orders".into(),
        resource_id: resource.id.clone(),
        attributes: resource.attributes.clone(),
        custom_data: None,
        test_mode: None,
        timestamp: None,
    }
}
