//! Applying webhook events to the cached orders and subscriptions (SPEC section 4, Applying):
//! orders link by `meta.custom_data.order_id`, else by the provider's order id; an event older
//! than the cached state is recorded but not applied; statuses never move backwards.
//!
//! Each event is applied in three steps: read what it concerns ([`Wanted`] → [`Known`]), decide
//! ([`decide`], the rules above, free of storage), and write the [`Change`]. Only the reading
//! and writing are per backend, so SQLite and PostgreSQL apply by the same rules.

use crate::model::{OrderSource, OrderStatus};
use serde_json::Value;

use super::jsonapi::Resource;
use super::model::{self, OrderDto, SubscriptionDto};
use super::store::OrderRecord;
use crate::webhooks::{ApplyResult, EventApplier, Outcome, WebhookEvent};
use crate::PaymentsDb;
use staffroom_base::error::Result;
use staffroom_base::time::now_rfc3339;

/// Applies payment events to the cache in `db`.
pub struct PaymentsApplier {
    db: PaymentsDb,
}

impl PaymentsApplier {
    /// The applier for `db`.
    pub fn new(db: impl Into<PaymentsDb>) -> Self {
        PaymentsApplier { db: db.into() }
    }
}

/// Whether an order may move from `from` to `to`: only out of `pending`.
fn order_may_move(from: OrderStatus, to: OrderStatus) -> bool {
    from == to || from == OrderStatus::Pending
}

/// Whether a subscription may move from the provider status `from` to `to`: nothing leaves
/// `expired`; everything else is the provider's word.
fn subscription_may_move(from: &str, to: &str) -> bool {
    from != "expired" || to == "expired"
}

fn older(event: Option<&str>, cached: Option<&str>) -> bool {
    let parse = |s: &str| chrono::DateTime::parse_from_rfc3339(s).ok();
    match (event.and_then(parse), cached.and_then(parse)) {
        (Some(event), Some(cached)) => event < cached,
        _ => false,
    }
}

fn resource(event: &WebhookEvent) -> Resource {
    Resource {
        id: event.resource_id.clone(),
        kind: event.resource_type.clone(),
        attributes: event.attributes.clone(),
        related: Default::default(),
    }
}

/// What an event concerns, to be read before deciding.
pub enum Wanted {
    /// The order linked by our id (custom data) when there is one, else by the provider's id.
    Order {
        local_id: Option<String>,
        provider_id: String,
    },
    Subscription(String),
    Nothing,
}

/// What was read.
pub enum Known {
    Order(Option<OrderRecord>),
    Subscription(Option<SubscriptionDto>),
    Nothing,
}

/// What applying an event writes.
pub enum Change {
    None,
    InsertOrder(OrderRecord),
    /// With the audit entry of an order held for review: (order id, detail).
    UpdateOrder {
        order: OrderRecord,
        review: Option<(String, serde_json::Value)>,
    },
    UpsertSubscription(SubscriptionDto),
    /// An invoice as the event tells it (kept unless the cached one is newer), and, for a
    /// payment (a refund is not one), its subscription's latest payment, noted only if not older
    /// than the one noted; if it is, the event is stale.
    Invoice {
        invoice: Box<model::InvoiceDto>,
        payment: Option<Payment>,
    },
    /// A licence key as the event tells it (kept unless the cached one is newer).
    UpsertLicenseKey(Box<model::LicenseKeyDto>),
}

/// A subscription's latest payment, as a `subscription_payment_*` event tells it.
pub struct Payment {
    pub subscription_id: String,
    pub status: String,
    pub at: String,
}

pub fn wanted(event: &WebhookEvent) -> Wanted {
    match event.resource_type.as_str() {
        "orders" => Wanted::Order { local_id: event.local_order_id(), provider_id: event.resource_id.clone() },
        "subscriptions" => Wanted::Subscription(event.resource_id.clone()),
        _ => Wanted::Nothing,
    }
}

/// The rules: what `event` changes, given what is `known`, and how it ended.
pub fn decide(event: &WebhookEvent, known: Known) -> (Change, ApplyResult) {
    match (event.resource_type.as_str(), known) {
        ("orders", Known::Order(existing)) => decide_order(event, existing),
        ("subscriptions", Known::Subscription(cached)) => decide_subscription(event, cached),
        ("subscription-invoices", _) => decide_invoice(event),
        ("license-keys", _) => decide_license_key(event),
        (other, _) => (Change::None, ApplyResult::ignored(format!("no cached {other}"))),
    }
}

/// The outcome of a payment note that turned out older than the one kept.
pub fn stale_payment(result: ApplyResult) -> ApplyResult {
    stale(result, "older than the latest payment")
}

/// The outcome of a change the store did not write because what it keeps is newer (`why`).
pub fn stale(result: ApplyResult, why: &str) -> ApplyResult {
    ApplyResult { outcome: Outcome::Stale(why.into()), ..result }
}

/// Why an invoice event changed nothing: its invoice older than the cached one, and no payment
/// of its own to note.
pub const OLDER_INVOICE: &str = "older than the cached invoice";
/// Why a licence-key event changed nothing.
pub const OLDER_LICENSE_KEY: &str = "older than the cached licence key";

fn decide_order(event: &WebhookEvent, existing: Option<OrderRecord>) -> (Change, ApplyResult) {
    let r = resource(event);
    let facts = OrderFacts::read(event, &r);
    match existing {
        None => order_from_provider(event, &r, facts),
        Some(order) => update_order(event, &r, order, facts),
    }
}

/// What an order event says, read once for either way of applying it.
struct OrderFacts {
    provider_status: String,
    updated_at: Option<String>,
    now: String,
    /// When the order was paid: Lemon Squeezy creates an order when it is paid, so its
    /// created_at is the moment of payment, the same whichever event tells us first.
    paid_moment: String,
    refunded_at: Option<String>,
}

impl OrderFacts {
    fn read(event: &WebhookEvent, r: &Resource) -> OrderFacts {
        let provider_status =
            r.str("status")
                .unwrap_or_else(|| if event.name == "order_paid" { "paid".into() } else { "pending".into() });
        let updated_at = model::normalise_time(r.str("updated_at")).or_else(|| event.timestamp.clone());
        let now = now_rfc3339();
        let paid_moment =
            model::normalise_time(r.str("created_at")).or_else(|| updated_at.clone()).unwrap_or_else(|| now.clone());
        let refunded =
            event.name == "order_refunded" || matches!(provider_status.as_str(), "refunded" | "partial_refund");
        let refunded_at = refunded.then(|| {
            model::normalise_time(r.str("refunded_at")).or_else(|| updated_at.clone()).unwrap_or_else(|| now.clone())
        });
        OrderFacts { provider_status, updated_at, now, paid_moment, refunded_at }
    }
}

/// An order made elsewhere (the provider's own checkout links): it becomes a local order.
fn order_from_provider(event: &WebhookEvent, r: &Resource, facts: OrderFacts) -> (Change, ApplyResult) {
    let item = r.attributes.get("first_order_item").cloned().unwrap_or(Value::Null);
    let status = OrderStatus::of_provider(&facts.provider_status);
    let record = OrderRecord {
        dto: OrderDto {
            id: event.local_order_id().unwrap_or_else(|| uuid::Uuid::new_v4().to_string()),
            order_id: String::new(),
            status,
            total: r.int("total").unwrap_or(0),
            currency: r.str("currency").unwrap_or_else(|| "USD".into()),
            checkout_url: String::new(),
            created_at: model::normalise_time(r.str("created_at")).unwrap_or_else(|| facts.now.clone()),
            email: r.str("user_email").unwrap_or_default(),
            name: r.str("user_name"),
            product_id: item.get("product_id").and_then(super::jsonapi::id_of).unwrap_or_default(),
            variant_id: item.get("variant_id").and_then(super::jsonapi::id_of).unwrap_or_default(),
            customer_id: r.str("customer_id"),
            provider_order_id: Some(r.id.clone()),
            paid_at: (status == OrderStatus::Paid).then_some(facts.paid_moment),
            refunded_at: facts.refunded_at,
            refunded_amount: r.int("refunded_amount").unwrap_or(0),
            updated_at: facts.now,
            review: None,
            source: OrderSource::Store,
            provider_status: Some(facts.provider_status),
            order_number: None,
            items: Vec::new(),
            subtotal: 0,
            discount_total: r.int("discount_total").unwrap_or(0),
            tax: r.int("tax").unwrap_or(0),
            receipt_url: None,
            events: None,
        },
        provider_updated_at: facts.updated_at,
        currency_rate: None,
        expected: None,
        checkout_id: None,
        billing_address: None,
        metadata: None,
        created_by: Some("provider".into()),
    };
    let mut record = record;
    copy_details(r, &mut record);
    let result = ApplyResult {
        outcome: Outcome::Applied(Some("new order from the provider".into())),
        order_id: Some(record.dto.id.clone()),
        subscription_id: None,
    };
    (Change::InsertOrder(record), result)
}

/// An event about an order we keep: its status moves forward only, and a payment that does not
/// match the order's checkout is held for review instead.
fn update_order(
    event: &WebhookEvent,
    r: &Resource,
    mut order: OrderRecord,
    facts: OrderFacts,
) -> (Change, ApplyResult) {
    let id = order.dto.id.clone();
    let linked = |outcome: Outcome| ApplyResult { outcome, order_id: Some(id.clone()), subscription_id: None };
    if older(facts.updated_at.as_deref(), order.provider_updated_at.as_deref()) {
        return (Change::None, linked(Outcome::Stale("older than the cached order".into())));
    }
    if facts.refunded_at.is_some() {
        order.dto.refunded_at = facts.refunded_at;
    }
    // The provider's running total of what was refunded; it only grows.
    if let Some(refunded) = r.int("refunded_amount") {
        order.dto.refunded_amount = order.dto.refunded_amount.max(refunded);
    }
    let target = OrderStatus::of_provider(&facts.provider_status);
    let mut outcome = Outcome::Applied(None);
    let mut review = None;
    let differences = if target == OrderStatus::Paid && order.dto.status != OrderStatus::Paid {
        checkout_differences(&order, r, event.test_mode)
    } else {
        Vec::new()
    };
    if !differences.is_empty() {
        // Not what our checkout sold: the order is not marked paid, and a person looks at it.
        let reason = differences.join("; ");
        tracing::warn!(order = %order.dto.id, %reason, "a payment event does not match its checkout");
        let detail = serde_json::json!({ "event": event.name, "providerOrderId": r.id, "differences": differences });
        review = Some((order.dto.id.clone(), detail));
        order.dto.review = Some(reason.clone());
        outcome = Outcome::HeldForReview(reason);
    } else if order_may_move(order.dto.status, target) {
        if target == OrderStatus::Paid && order.dto.status != OrderStatus::Paid {
            order.dto.paid_at.get_or_insert(facts.paid_moment);
            // From now on the order shows what the customer was charged (tax in, discounts out).
            if let Some(total) = r.int("total") {
                order.dto.total = total;
            }
            if let Some(currency) = r.str("currency") {
                order.dto.currency = currency;
            }
            order.dto.discount_total = r.int("discount_total").unwrap_or(order.dto.discount_total);
            order.dto.tax = r.int("tax").unwrap_or(order.dto.tax);
            order.dto.review = None;
        }
        order.dto.status = target;
    } else {
        outcome = Outcome::Applied(Some(format!("status kept at {} (never backwards)", order.dto.status)));
    }
    order.dto.provider_order_id = Some(r.id.clone());
    order.dto.customer_id = r.str("customer_id").or(order.dto.customer_id);
    order.dto.updated_at = facts.now;
    order.dto.provider_status = Some(facts.provider_status);
    order.provider_updated_at = facts.updated_at.or(order.provider_updated_at);
    copy_details(r, &mut order);
    (Change::UpdateOrder { order, review }, linked(outcome))
}

/// What every order resource states beside its status and amounts: the number on the receipt,
/// the items, the receipt link and the currency's rate, kept when an event leaves one out.
fn copy_details(r: &Resource, order: &mut OrderRecord) {
    order.dto.order_number = r.int("order_number").or(order.dto.order_number);
    let items = model::order_items(r);
    if !items.is_empty() {
        order.dto.items = items;
    }
    let receipt = r.attributes.get("urls").and_then(|urls| urls.get("receipt")).and_then(Value::as_str);
    order.dto.receipt_url = receipt.map(str::to_string).or(order.dto.receipt_url.take());
    order.currency_rate = r.str("currency_rate").or(order.currency_rate.take());
}

/// How a payment event differs from what the order's checkout sold: another store, variant,
/// currency, price before tax and discounts (`subtotal`), or mode (test or live). The store,
/// variant, currency and subtotal are in every documented order object, so an event that does
/// not state one of them counts as a difference; the mode is not in Lemon Squeezy's documented
/// `order_created` example, so it is compared only when the event gives it.
fn checkout_differences(order: &OrderRecord, event: &Resource, test_mode: Option<bool>) -> Vec<String> {
    let Some(expected) = &order.expected else { return Vec::new() };
    let item = event.attributes.get("first_order_item");
    let facts = [
        ("store", event.str("store_id"), Some(expected.store_id.clone())),
        (
            "variant",
            item.and_then(|i| i.get("variant_id")).and_then(super::jsonapi::id_of),
            Some(order.dto.variant_id.clone()),
        ),
        ("currency", event.str("currency"), Some(order.dto.currency.clone())),
        ("subtotal", event.int("subtotal").map(|s| s.to_string()), Some(expected.subtotal.to_string())),
    ];
    let mode = |test: bool| if test { "test" } else { "live" }.to_string();
    let stated_mode = test_mode.or(event.bool("test_mode")).map(mode);
    let mode_fact = ("mode", stated_mode.clone(), stated_mode.map(|_| mode(expected.test_mode)));
    facts
        .into_iter()
        .chain([mode_fact])
        .filter(|(_, got, want)| got != want)
        .map(|(what, got, want)| match got {
            Some(got) => format!("{what} is {got}, the checkout's is {}", want.unwrap_or_default()),
            None => format!("the event does not say its {what}"),
        })
        .collect()
}

fn decide_subscription(event: &WebhookEvent, cached: Option<SubscriptionDto>) -> (Change, ApplyResult) {
    let incoming: SubscriptionDto = model::subscription_from(&resource(event));
    let id = incoming.id.clone();
    let linked = |outcome: Outcome| ApplyResult { outcome, order_id: None, subscription_id: Some(id.clone()) };
    if let Some(cached) = cached {
        if older(Some(&incoming.updated_at), Some(&cached.updated_at)) {
            return (Change::None, linked(Outcome::Stale("older than the cached subscription".into())));
        }
        if !subscription_may_move(&cached.provider_status, &incoming.provider_status) {
            return (Change::None, linked(Outcome::Stale("an expired subscription does not come back".into())));
        }
    }
    (Change::UpsertSubscription(incoming), linked(Outcome::Applied(None)))
}

fn decide_invoice(event: &WebhookEvent) -> (Change, ApplyResult) {
    let r = resource(event);
    let Some(subscription_id) = r.str("subscription_id") else {
        return (Change::None, ApplyResult::ignored("the invoice names no subscription"));
    };
    let status = r.str("status").unwrap_or_else(|| event.name.trim_start_matches("subscription_payment_").to_string());
    let at = model::normalise_time(r.str("updated_at")).unwrap_or_else(now_rfc3339);
    let mut invoice = model::invoice_from(&r);
    if invoice.updated_at.is_empty() {
        invoice.updated_at = at.clone();
    }
    let result =
        ApplyResult { outcome: Outcome::Applied(None), order_id: None, subscription_id: Some(subscription_id.clone()) };
    // A refund changes the invoice, not how the subscription's payments stand.
    let payment = (event.name != "subscription_payment_refunded").then_some(Payment { subscription_id, status, at });
    (Change::Invoice { invoice: Box::new(invoice), payment }, result)
}

fn decide_license_key(event: &WebhookEvent) -> (Change, ApplyResult) {
    let key = model::license_key_from(&resource(event));
    if key.key_short.is_empty() {
        return (Change::None, ApplyResult::ignored("the licence key has no key"));
    }
    (
        Change::UpsertLicenseKey(Box::new(key)),
        ApplyResult { outcome: Outcome::Applied(None), order_id: None, subscription_id: None },
    )
}

pub fn review_entry<'a>(order_id: &'a str, detail: &serde_json::Value) -> staffroom_auth::audit::NewAuditEntry<'a> {
    staffroom_auth::audit::NewAuditEntry {
        actor: "system",
        action: staffroom_auth::audit::AuditAction::OrderReview,
        target: Some(order_id),
        outcome: "held for review",
        detail: Some(detail.clone()),
    }
}

/// An event that could not be applied: recorded as failed, with why.
pub fn failed(error: &staffroom_base::Error) -> ApplyResult {
    ApplyResult { outcome: Outcome::Failed(error.message.clone()), order_id: None, subscription_id: None }
}

#[async_trait::async_trait]
impl EventApplier for PaymentsApplier {
    async fn apply_stored(&self, group: &[(i64, WebhookEvent)]) -> Result<Vec<(i64, ApplyResult)>> {
        self.db.apply_stored_events(group).await
    }
}

impl PaymentsApplier {
    /// Applies one event that is not in the inbox (an order the reconciliation found at the
    /// provider), by the same rules, in a transaction of its own.
    pub async fn apply_unstored(&self, event: &WebhookEvent) -> Result<ApplyResult> {
        self.db.apply_event(event.clone()).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_never_move_backwards() {
        use OrderStatus::{Failed, Paid, Pending};
        assert!(order_may_move(Pending, Paid));
        assert!(order_may_move(Pending, Failed));
        assert!(!order_may_move(Paid, Pending));
        assert!(!order_may_move(Paid, Failed));
        assert!(!order_may_move(Failed, Pending));
        assert!(subscription_may_move("cancelled", "active"));
        assert!(!subscription_may_move("expired", "active"));
        assert!(subscription_may_move("active", "expired"));
    }
}
