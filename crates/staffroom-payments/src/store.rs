//! What the payment service asks of a store, and its records: the cached catalogue and
//! subscriptions, each resource's sync state, and the orders. Each method is one statement or
//! one transaction.

use super::model::{
    CustomerDto, CustomerStatus, DiscountDto, DiscountRedemptionDto, InvoiceDto, LicenseKeyDto, OrderDto, OrderItem,
    OrderStatus, ProductDto, SubscriptionDto, SubscriptionStatus, VariantDto,
};
use crate::webhooks::{ApplyResult, WebhookEvent};
use staffroom_base::error::Result;

/// A local order as stored.
#[derive(Debug, Clone)]
pub struct OrderRecord {
    pub dto: OrderDto,
    pub provider_updated_at: Option<String>,
    /// US dollars per unit of the order's currency, as the provider wrote it (`1.0` for USD).
    pub currency_rate: Option<String>,
    pub checkout_id: Option<String>,
    pub billing_address: Option<String>,
    pub metadata: Option<String>,
    pub created_by: Option<String>,
    /// What our checkout promised, for checking the payment event: the store it was made in,
    /// the variant's price before tax and discounts, and whether it was a test-mode checkout.
    pub expected: Option<CheckoutTerms>,
}

/// The terms of the checkout an order was made with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckoutTerms {
    pub store_id: String,
    pub subtotal: i64,
    pub test_mode: bool,
}

/// Which orders a page of `GET /orders` holds (every field optional but the page).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OrderQuery {
    pub page: u32,
    pub limit: u32,
    pub search: Option<OrderSearch>,
    /// The local status to match, or the provider's.
    pub status: Option<OrderStatus>,
    pub provider_status: Option<&'static str>,
    pub customer_id: Option<String>,
    pub product_id: Option<String>,
    /// `created_at` from (inclusive) and to (exclusive), RFC 3339 UTC.
    pub from: Option<String>,
    pub to: Option<String>,
}

/// A search of orders: a `LIKE` pattern for the e-mail and the name (its `%` and `_` escaped
/// with `\`), and the receipt number or our `SR-` number the text names, if it names one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderSearch {
    /// What was typed, trimmed.
    pub text: String,
    pub pattern: String,
    pub order_number: Option<i64>,
    pub reference: Option<i64>,
}

impl OrderSearch {
    /// The search for what staff typed: `ada@example.com`, `Lovelace`, `1042`, `#1042` or `SR-000042`.
    pub fn new(text: &str) -> OrderSearch {
        let text = text.trim();
        let digits = |s: &str| {
            (!s.is_empty() && s.len() <= 18 && s.bytes().all(|b| b.is_ascii_digit())).then(|| s.parse().ok()).flatten()
        };
        let upper = text.to_ascii_uppercase();
        OrderSearch {
            text: text.to_string(),
            pattern: like_pattern(text),
            order_number: digits(text.strip_prefix('#').unwrap_or(text)),
            reference: upper.strip_prefix("SR-").and_then(digits),
        }
    }
}

/// A `LIKE` pattern that finds `text` anywhere, its `%` and `_` escaped with `\`.
pub fn like_pattern(text: &str) -> String {
    let escaped = text.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_");
    format!("%{escaped}%")
}

/// Which subscriptions a page of `GET /subscriptions` holds (every field optional but the page).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SubscriptionQuery {
    pub page: u32,
    pub limit: u32,
    /// The seed status to match, or the provider's.
    pub status: Option<SubscriptionStatus>,
    pub provider_status: Option<&'static str>,
    pub customer_id: Option<String>,
    pub product_id: Option<String>,
    /// A [`like_pattern`] for the customer's name or e-mail.
    pub search: Option<String>,
}

/// Which customers a page of `GET /customers` holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CustomerQuery {
    pub page: u32,
    pub limit: u32,
    /// A [`like_pattern`] for the name or the e-mail.
    pub search: Option<String>,
    pub status: Option<CustomerStatus>,
}

/// One day's paid orders (a UTC day, `YYYY-MM-DD`), their totals and what was refunded of them,
/// in the store's currency.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DaySales {
    pub date: String,
    pub orders: i64,
    pub gross: i64,
    pub refunds: i64,
}

/// The range of a summary as the stores read it: whole UTC days, [`first_day`, `end_day`), from
/// their roll-up of paid orders by day, and the part of a day at either end, [`from`,
/// `head_end`) and [`tail_start`, `to`), from the orders themselves. Days are `YYYY-MM-DD`, which
/// compare with an order's `created_at` as its day does. Made by `summary::span`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SalesSpan {
    pub from: String,
    pub head_end: String,
    pub first_day: String,
    pub end_day: String,
    pub tail_start: String,
    pub to: String,
}

/// The subscriptions' figures for the Overview: live ones, those started and cancelled in the
/// range, those whose payment failed, and the monthly recurring revenue (cents).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SubscriptionFigures {
    pub active: i64,
    pub new: i64,
    pub cancelled: i64,
    pub past_due: i64,
    pub mrr: i64,
}

/// An order's subtotal from the amounts kept: `total` = `subtotal` − `discount_total` + `tax`.
pub fn subtotal_of(total: i64, discount_total: i64, tax: i64) -> i64 {
    total + discount_total - tax
}

/// An order's items as stored (JSON).
pub fn items_to_json(items: &[OrderItem]) -> String {
    serde_json::to_string(items).unwrap_or_else(|_| "[]".into())
}

/// An order's items from what was stored ([`items_to_json`]); none if it does not read.
pub fn items_from_json(text: &str) -> Vec<OrderItem> {
    serde_json::from_str(text).unwrap_or_default()
}

/// How staff refer to an order: our `SR-` reference for one made here (`number`), else `#` and
/// the number on its receipt.
pub fn order_label(number: Option<i64>, order_number: Option<i64>) -> String {
    match (number, order_number) {
        (Some(n), _) => order_reference(n),
        (None, Some(n)) => format!("#{n}"),
        (None, None) => String::new(),
    }
}

/// The human-readable reference of order number `n`.
pub fn order_reference(n: i64) -> String {
    format!("SR-{n:06}")
}

/// When a resource was last synced, and whether the last attempt failed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SyncState {
    pub synced_at: Option<String>,
    pub attempted_at: Option<String>,
    pub error: Option<String>,
}

/// The payment service's units of work.
#[async_trait::async_trait]
pub trait PaymentStore {
    /// The sync state of `resource`.
    async fn sync_state(&self, resource: &'static str) -> Result<SyncState>;

    /// Records a sync attempt of `resource` at `at`: `error` is `None` when it succeeded.
    async fn record_sync(&self, resource: &'static str, at: String, error: Option<String>) -> Result<()>;

    /// Replaces the cached catalogue with a complete one from the provider.
    async fn replace_products(
        &self,
        products: Vec<ProductDto>,
        variants: Vec<(String, VariantDto, i64)>,
        now: String,
    ) -> Result<()>;

    /// Upserts one product with its variants.
    async fn upsert_product(&self, product: ProductDto, now: String) -> Result<()>;

    /// A page of cached products (by name), and how many match.
    async fn list_products(
        &self,
        status: Option<&'static str>,
        search: Option<String>,
        page: u32,
        limit: u32,
    ) -> Result<(Vec<ProductDto>, u64)>;

    /// One cached product with its variants.
    async fn product(&self, id: String) -> Result<Option<ProductDto>>;

    /// Stores a complete subscription list from the provider, dropping what it no longer has
    /// (but keeping what changed after `since`, the list's start).
    async fn replace_subscriptions(
        &self,
        subscriptions: Vec<SubscriptionDto>,
        now: String,
        since: String,
    ) -> Result<()>;

    /// Writes a subscription as the provider describes it now.
    async fn upsert_subscription(&self, subscription: SubscriptionDto, now: String) -> Result<()>;

    /// A page of cached subscriptions, newest first, with exact filters, each with its plan's
    /// price and interval.
    async fn list_subscriptions(&self, query: SubscriptionQuery) -> Result<(Vec<SubscriptionDto>, u64)>;

    /// One cached subscription.
    async fn subscription(&self, id: String) -> Result<Option<SubscriptionDto>>;

    /// Inserts an order; one made here takes the next `SR-` number, which is returned.
    async fn insert_order(&self, order: OrderRecord) -> Result<Option<i64>>;

    /// One order by our id.
    async fn order(&self, id: String) -> Result<Option<OrderRecord>>;

    /// One order by the provider's order id.
    async fn order_by_provider_id(&self, provider_id: String) -> Result<Option<OrderRecord>>;

    /// A page of the orders `query` asks for, newest first, and how many there are.
    async fn list_orders(&self, query: OrderQuery) -> Result<(Vec<OrderDto>, u64)>;

    /// The paid orders made in the span, day by day (days without one left out), in `currency`:
    /// an order charged in another currency counts at its `currency_rate`.
    async fn daily_sales(&self, span: SalesSpan, currency: String) -> Result<Vec<DaySales>>;

    /// The subscriptions' figures, `new` and `cancelled` counted in [`from`, `to`).
    async fn subscription_figures(&self, from: String, to: String) -> Result<SubscriptionFigures>;

    /// Local orders still pending that were created after `since`, oldest first.
    async fn pending_orders(&self, since: String) -> Result<Vec<OrderRecord>>;

    /// Applies the provider's view of an order to the local record.
    async fn update_order_from_provider(&self, order: OrderRecord) -> Result<()>;
}

/// Applying webhook events to the cache, by the rules of `payments::apply` (read what an event
/// concerns, [`decide`](super::apply::decide), write the change): the reading and writing are
/// each store's, the rules are not.
#[async_trait::async_trait]
pub trait ApplyingStore {
    /// Applies the deliveries of `group` (inbox id, event) still waiting, in order, in one
    /// transaction where one that fails fails alone; records each outcome with its delivery.
    /// Those already applied are skipped and left out of the answer.
    async fn apply_stored_events(&self, group: &[(i64, WebhookEvent)]) -> Result<Vec<(i64, ApplyResult)>>;

    /// Applies one event that is not in the inbox, in a transaction of its own.
    async fn apply_event(&self, event: WebhookEvent) -> Result<ApplyResult>;

    /// Applies events that are not in the inbox (what a sync read), in order, in one
    /// transaction where one that fails fails alone.
    async fn apply_events(&self, events: Vec<WebhookEvent>) -> Result<Vec<ApplyResult>>;
}

/// The store's customers, as the sync last read them.
#[async_trait::async_trait]
pub trait CustomerStore {
    /// Writes customers as the provider describes them now; one already newer (by its
    /// `updated_at`) is kept.
    async fn upsert_customers(&self, customers: Vec<CustomerDto>, now: String) -> Result<()>;

    /// A page of customers, newest first, and how many match.
    async fn list_customers(&self, query: CustomerQuery) -> Result<(Vec<CustomerDto>, u64)>;

    /// One customer.
    async fn customer(&self, id: String) -> Result<Option<CustomerDto>>;

    /// The customers whose orders or subscriptions the provider changed at `since` or after, and
    /// later than the customer as last read (each by the provider's `updated_at`): it recomputed
    /// their revenue or MRR since. Customers never read count too.
    async fn customers_touched_since(&self, since: String) -> Result<Vec<String>>;
}

/// Whose invoices a list holds (one of the two), newest first, at most `limit`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InvoiceQuery {
    Subscription { id: String, limit: u32 },
    Customer { id: String, limit: u32 },
}

/// The subscriptions' invoices, as the sync and the `subscription_payment_*` events last told.
#[async_trait::async_trait]
pub trait InvoiceStore {
    /// Writes invoices as the provider describes them now; one already newer (by its
    /// `updated_at`) is kept, and of two at the same time, the one with more refunded: two
    /// refunds within a second carry the same time, and refunds only grow.
    async fn upsert_invoices(&self, invoices: Vec<InvoiceDto>, now: String) -> Result<()>;

    /// The invoices `query` asks for, newest first, and how many there are in all.
    async fn list_invoices(&self, query: InvoiceQuery) -> Result<(Vec<InvoiceDto>, u64)>;

    /// One invoice.
    async fn invoice(&self, id: String) -> Result<Option<InvoiceDto>>;
}

/// Which licence keys a page of `GET /license-keys` holds, newest first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LicenseKeyQuery {
    pub page: u32,
    pub limit: u32,
    /// Our order's id.
    pub order_id: Option<String>,
    pub customer_id: Option<String>,
    /// A key whose expiry has passed by `now` counts as `expired` whatever its stored status
    /// (the provider's may not have been read since).
    pub status: Option<String>,
    /// RFC 3339 in whole seconds (`…T10:00:00Z`), as the cache writes an expiry.
    pub now: String,
    /// [`like_pattern`]s: one for the customer's e-mail, one for the key's short form (made of
    /// the last 12 characters of a whole key pasted in).
    pub search: Option<(String, String)>,
}

/// The store's licence keys, short forms only, as the sync and the `license_key_*` events last
/// told.
#[async_trait::async_trait]
pub trait LicenseKeyStore {
    /// Writes licence keys as the provider describes them now; one already newer (by its
    /// `updated_at`) is kept.
    async fn upsert_license_keys(&self, keys: Vec<LicenseKeyDto>, now: String) -> Result<()>;

    /// A page of the keys `query` asks for, newest first, each with our order's id and the
    /// product's name when they are cached, and how many match.
    async fn list_license_keys(&self, query: LicenseKeyQuery) -> Result<(Vec<LicenseKeyDto>, u64)>;

    /// One licence key, as [`list_license_keys`](LicenseKeyStore::list_license_keys) shows it.
    async fn license_key(&self, id: String) -> Result<Option<LicenseKeyDto>>;
}

/// Which discounts a page of `GET /discounts` holds, newest first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DiscountQuery {
    pub page: u32,
    pub limit: u32,
    /// A [`like_pattern`] for the code or the name.
    pub search: Option<String>,
}

/// The store's discounts and their redemptions, as the sync and Staffroom's own changes last
/// told (the provider sends no webhook for them).
#[async_trait::async_trait]
pub trait DiscountStore {
    /// Makes the cached discounts `discounts`, the provider's whole list as read from `started`:
    /// one deleted in its dashboard since goes, one made here while the list was read (written
    /// at or after `started`) stays. Redemptions stay: they are the orders' history.
    async fn replace_discounts(&self, discounts: Vec<DiscountDto>, started: String, now: String) -> Result<()>;

    /// Writes one discount (made here).
    async fn upsert_discount(&self, discount: DiscountDto, now: String) -> Result<()>;

    /// Forgets one discount (deleted here, or found gone).
    async fn delete_discount(&self, id: String) -> Result<()>;

    /// Writes redemptions; one already kept stays (they never change once made).
    async fn insert_redemptions(&self, redemptions: Vec<DiscountRedemptionDto>) -> Result<()>;

    /// A page of discounts, newest first, each with how many redemptions it has and its latest
    /// 20 (with our order's id, number and buyer when the order is cached), and how many match.
    async fn list_discounts(&self, query: DiscountQuery) -> Result<(Vec<DiscountDto>, u64)>;

    /// One discount, as [`list_discounts`](DiscountStore::list_discounts) shows it.
    async fn discount(&self, id: String) -> Result<Option<DiscountDto>>;
}
