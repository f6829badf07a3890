//! Applying webhook events to the cached orders and subscriptions (SPEC section 4, Applying):
//! orders link by `meta.custom_data.order_id`, else by the provider's order id; an event older
//! than the cached state is recorded but not applied; statuses never move backwards.

use crate::payments::model::OrderStatus;
use serde_json::Value;

use super::jsonapi::Resource;
use super::model::{self, OrderDto, SubscriptionDto};
use crate::error::Result;
use crate::store::payments::{self as store, OrderRecord};
use crate::store::Db;
use crate::time::now_rfc3339;
use crate::webhooks::{ApplyResult, EventApplier, Outcome, WebhookEvent};

/// Applies payment events to the cache in `db`.
pub struct PaymentsApplier {
    db: Db,
}

impl PaymentsApplier {
    /// The applier for `db`.
    pub fn new(db: Db) -> Self {
        PaymentsApplier { db }
    }
}

/// Our order status from the provider's: refunds keep `paid` (with `refundedAt`).
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
    Resource { id: event.resource_id.clone(), kind: event.resource_type.clone(), attributes: event.attributes.clone() }
}

fn apply_order(conn: &rusqlite::Connection, event: &WebhookEvent) -> Result<ApplyResult> {
    let r = resource(event);
    let provider_status =
        r.str("status").unwrap_or_else(|| if event.name == "order_paid" { "paid".into() } else { "pending".into() });
    let updated_at = model::normalise_time(r.str("updated_at")).or_else(|| event.timestamp.clone());
    let existing = match event.local_order_id() {
        Some(id) => store::get_order(conn, &id)?,
        None => None,
    };
    let existing = match existing {
        Some(order) => Some(order),
        None => store::find_order_by_provider_id(conn, &r.id)?,
    };
    let now = now_rfc3339();
    // Lemon Squeezy creates an order when it is paid: its created_at is the moment of payment,
    // the same whichever event tells us first.
    let paid_moment =
        model::normalise_time(r.str("created_at")).or_else(|| updated_at.clone()).unwrap_or_else(|| now.clone());
    let refunded = event.name == "order_refunded" || matches!(provider_status.as_str(), "refunded" | "partial_refund");
    let refunded_at = refunded.then(|| {
        model::normalise_time(r.str("refunded_at")).or_else(|| updated_at.clone()).unwrap_or_else(|| now.clone())
    });
    let Some(mut order) = existing else {
        // An order made elsewhere (the provider's own checkout links): it becomes a local order.
        let item = r.attributes.get("first_order_item").cloned().unwrap_or(Value::Null);
        let status = OrderStatus::of_provider(&provider_status);
        let record = OrderRecord {
            dto: OrderDto {
                id: event.local_order_id().unwrap_or_else(|| uuid::Uuid::new_v4().to_string()),
                order_id: String::new(),
                status,
                total: r.int("total").unwrap_or(0),
                currency: r.str("currency").unwrap_or_else(|| "USD".into()),
                checkout_url: String::new(),
                created_at: model::normalise_time(r.str("created_at")).unwrap_or_else(|| now.clone()),
                email: r.str("user_email").unwrap_or_default(),
                name: r.str("user_name"),
                product_id: item.get("product_id").and_then(super::jsonapi::id_of).unwrap_or_default(),
                variant_id: item.get("variant_id").and_then(super::jsonapi::id_of).unwrap_or_default(),
                customer_id: r.str("customer_id"),
                provider_order_id: Some(r.id.clone()),
                paid_at: (status == OrderStatus::Paid).then(|| paid_moment.clone()),
                refunded_at,
                refunded_amount: r.int("refunded_amount").unwrap_or(0),
                updated_at: now,
                review: None,
                events: None,
            },
            provider_status: Some(provider_status),
            provider_updated_at: updated_at,
            expected: None,
            checkout_id: None,
            billing_address: None,
            metadata: None,
            created_by: Some("provider".into()),
        };
        let id = record.dto.id.clone();
        store::insert_order_in(conn, &record)?;
        return Ok(ApplyResult {
            outcome: Outcome::Applied(Some("new order from the provider".into())),
            order_id: Some(id),
            subscription_id: None,
        });
    };
    let id = order.dto.id.clone();
    let linked = |outcome: Outcome| ApplyResult { outcome, order_id: Some(id.clone()), subscription_id: None };
    if older(updated_at.as_deref(), order.provider_updated_at.as_deref()) {
        return Ok(linked(Outcome::Stale("older than the cached order".into())));
    }
    if refunded_at.is_some() {
        order.dto.refunded_at = refunded_at;
    }
    // The provider's running total of what was refunded; it only grows.
    if let Some(refunded) = r.int("refunded_amount") {
        order.dto.refunded_amount = order.dto.refunded_amount.max(refunded);
    }
    let target = OrderStatus::of_provider(&provider_status);
    let mut outcome = Outcome::Applied(None);
    let differences = if target == OrderStatus::Paid && order.dto.status != OrderStatus::Paid {
        checkout_differences(&order, &r, event.test_mode)
    } else {
        Vec::new()
    };
    if !differences.is_empty() {
        // Not what our checkout sold: the order is not marked paid, and a person looks at it.
        let reason = differences.join("; ");
        tracing::warn!(order = %order.dto.id, %reason, "a payment event does not match its checkout");
        crate::store::audit::append(
            conn,
            &crate::store::audit::NewAuditEntry {
                actor: "system",
                action: crate::audit::AuditAction::OrderReview,
                target: Some(&order.dto.id),
                outcome: "held for review",
                detail: Some(
                    serde_json::json!({ "event": event.name, "providerOrderId": r.id, "differences": differences }),
                ),
            },
        )?;
        order.dto.review = Some(reason.clone());
        outcome = Outcome::HeldForReview(reason);
    } else if order_may_move(order.dto.status, target) {
        if target == OrderStatus::Paid && order.dto.status != OrderStatus::Paid {
            order.dto.paid_at.get_or_insert(paid_moment);
            // From now on the order shows what the customer was charged (tax in, discounts out).
            if let Some(total) = r.int("total") {
                order.dto.total = total;
            }
            if let Some(currency) = r.str("currency") {
                order.dto.currency = currency;
            }
            order.dto.review = None;
        }
        order.dto.status = target;
    } else {
        outcome = Outcome::Applied(Some(format!("status kept at {} (never backwards)", order.dto.status)));
    }
    order.dto.provider_order_id = Some(r.id.clone());
    order.dto.customer_id = r.str("customer_id").or(order.dto.customer_id);
    order.dto.updated_at = now;
    order.provider_status = Some(provider_status);
    order.provider_updated_at = updated_at.or(order.provider_updated_at);
    store::update_order_from_provider(conn, &order)?;
    Ok(linked(outcome))
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

fn apply_subscription(conn: &rusqlite::Connection, event: &WebhookEvent) -> Result<ApplyResult> {
    let incoming: SubscriptionDto = model::subscription_from(&resource(event));
    let id = incoming.id.clone();
    let linked = |outcome: Outcome| ApplyResult { outcome, order_id: None, subscription_id: Some(id.clone()) };
    if let Some(cached) = store::get_subscription(conn, &incoming.id)? {
        if older(Some(&incoming.updated_at), Some(&cached.updated_at)) {
            return Ok(linked(Outcome::Stale("older than the cached subscription".into())));
        }
        if !subscription_may_move(&cached.provider_status, &incoming.provider_status) {
            return Ok(linked(Outcome::Stale("an expired subscription does not come back".into())));
        }
    }
    store::upsert_subscription(conn, &incoming, &now_rfc3339())?;
    Ok(linked(Outcome::Applied(None)))
}

fn apply_invoice(conn: &rusqlite::Connection, event: &WebhookEvent) -> Result<ApplyResult> {
    let r = resource(event);
    let Some(subscription_id) = r.str("subscription_id") else {
        return Ok(ApplyResult::ignored("the invoice names no subscription"));
    };
    let status = r.str("status").unwrap_or_else(|| event.name.trim_start_matches("subscription_payment_").to_string());
    let at = model::normalise_time(r.str("updated_at")).unwrap_or_else(now_rfc3339);
    let noted = store::note_payment(conn, &subscription_id, &status, &at)?;
    let outcome = if noted { Outcome::Applied(None) } else { Outcome::Stale("older than the latest payment".into()) };
    Ok(ApplyResult { outcome, order_id: None, subscription_id: Some(subscription_id) })
}

#[async_trait::async_trait]
impl EventApplier for PaymentsApplier {
    /// One transaction for the whole group (a commit per event held applying to about 2,500
    /// events/s), with a savepoint per event, so one that fails leaves no trace and the others
    /// still apply.
    async fn apply_all(&self, events: &[WebhookEvent]) -> Vec<Result<ApplyResult>> {
        let events = events.to_vec();
        let count = events.len();
        let applied = self
            .db
            .transaction(move |tx| {
                let mut results = Vec::with_capacity(events.len());
                for event in &events {
                    tx.execute_batch("SAVEPOINT apply_one")?;
                    let result = apply_one(tx, event);
                    let end =
                        if result.is_ok() { "RELEASE apply_one" } else { "ROLLBACK TO apply_one; RELEASE apply_one" };
                    tx.execute_batch(end)?;
                    results.push(result);
                }
                Ok(results)
            })
            .await;
        match applied {
            Ok(results) => results,
            // Nothing of the group was kept: each event failed.
            Err(error) => (0..count).map(|_| Err(error.clone())).collect(),
        }
    }
}

fn apply_one(conn: &rusqlite::Connection, event: &WebhookEvent) -> Result<ApplyResult> {
    match event.resource_type.as_str() {
        "orders" => apply_order(conn, event),
        "subscriptions" => apply_subscription(conn, event),
        "subscription-invoices" => apply_invoice(conn, event),
        other => Ok(ApplyResult::ignored(format!("no cached {other}"))),
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

    fn subscription_event(id: &str) -> WebhookEvent {
        let body = serde_json::json!({
            "meta": {"event_name": "subscription_updated", "webhook_id": format!("w-{id}")},
            "data": {"type": "subscriptions", "id": id, "attributes": {
                "status": "active", "customer_id": 1, "product_id": 7, "variant_id": 11,
                "updated_at": "2026-11-22T10:00:00.000000Z", "user_email": "c@example.com", "user_name": "C"
            }}
        });
        crate::webhooks::payload::parse(&body, None).unwrap()
    }

    #[tokio::test]
    async fn a_failing_event_fails_alone_and_the_rest_of_its_group_applies() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(dir.path()).unwrap();
        // SQLite itself refuses one of them, as a full disk or a broken row would.
        db.call_blocking(|conn| {
            Ok(conn.execute_batch(
                "CREATE TRIGGER refuse_boom BEFORE INSERT ON subscriptions WHEN NEW.id = 'boom'
                 BEGIN SELECT RAISE(ABORT, 'refused'); END;",
            )?)
        })
        .unwrap();
        let applier = PaymentsApplier::new(db.clone());
        let events: Vec<_> = ["1", "boom", "2"].into_iter().map(subscription_event).collect();
        let results = applier.apply_all(&events).await;
        assert!(results[0].is_ok() && results[2].is_ok(), "{results:?}");
        assert!(results[1].is_err(), "{results:?}");
        let stored: Vec<String> = db
            .call_blocking(|conn| {
                let mut statement = conn.prepare("SELECT id FROM subscriptions ORDER BY id")?;
                let ids = statement.query_map([], |row| row.get(0))?.collect::<rusqlite::Result<Vec<_>>>()?;
                Ok(ids)
            })
            .unwrap();
        assert_eq!(stored, ["1", "2"]);
    }
}
