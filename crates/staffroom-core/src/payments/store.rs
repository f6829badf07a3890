//! What the payment service asks of a store, and its records: the cached catalogue and
//! subscriptions, each resource's sync state, and the orders. Each method is one statement or
//! one transaction.

use super::model::{OrderDto, ProductDto, SubscriptionDto, VariantDto};
use crate::error::Result;
use crate::webhooks::{ApplyResult, WebhookEvent};

/// A local order as stored.
#[derive(Debug, Clone)]
pub struct OrderRecord {
    pub dto: OrderDto,
    pub provider_status: Option<String>,
    pub provider_updated_at: Option<String>,
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

    /// A page of cached subscriptions, newest first, with exact filters.
    async fn list_subscriptions(
        &self,
        customer_id: Option<String>,
        status: Option<&'static str>,
        page: u32,
        limit: u32,
    ) -> Result<(Vec<SubscriptionDto>, u64)>;

    /// One cached subscription.
    async fn subscription(&self, id: String) -> Result<Option<SubscriptionDto>>;

    /// Inserts an order with the next number; returns the number.
    async fn insert_order(&self, order: OrderRecord) -> Result<i64>;

    /// One order by our id.
    async fn order(&self, id: String) -> Result<Option<OrderRecord>>;

    /// One order by the provider's order id.
    async fn order_by_provider_id(&self, provider_id: String) -> Result<Option<OrderRecord>>;

    /// A page of orders, newest first, and how many there are.
    async fn list_orders(&self, page: u32, limit: u32) -> Result<(Vec<OrderDto>, u64)>;

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
}
