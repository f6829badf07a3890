//! Property: any permutation of a realistic event sequence for one order and one subscription,
//! applied one by one or in groups, ends in the same state as the sequence in order (older
//! events are recorded, not applied; statuses never move backwards).

mod common;

use proptest::prelude::*;
use serde_json::{json, Value};
use staffroom::payments::apply::PaymentsApplier;
use staffroom::webhooks::{payload, WebhookEvent};

fn t(minute: u32) -> String {
    format!("2026-11-22T10:{minute:02}:00.000000Z")
}

fn order_event(name: &str, status: &str, minute: u32, refunded_at: Option<u32>) -> Value {
    json!({
        "meta": {"event_name": name, "custom_data": {"order_id": "ord-1"}},
        "data": {"type": "orders", "id": "9001", "attributes": {
            "status": status, "total": 4200, "currency": "USD", "user_email": "kim@example.com", "customer_id": 77,
            "first_order_item": {"product_id": 3, "variant_id": 31}, "created_at": t(1), "updated_at": t(minute),
            "refunded_at": refunded_at.map(t)
        }}
    })
}

fn subscription_event(name: &str, status: &str, minute: u32, pause: Value) -> Value {
    json!({
        "meta": {"event_name": name},
        "data": {"type": "subscriptions", "id": "501", "attributes": {
            "status": status, "customer_id": 77, "product_id": 3, "variant_id": 31, "user_email": "kim@example.com",
            "renews_at": "2027-01-01T00:00:00.000000Z", "ends_at": if status == "cancelled" || status == "expired" { json!(t(minute)) } else { Value::Null },
            "pause": pause, "created_at": t(2), "updated_at": t(minute)
        }}
    })
}

fn sequence() -> Vec<WebhookEvent> {
    let raw = vec![
        order_event("order_created", "pending", 1, None),
        order_event("order_paid", "paid", 2, None),
        subscription_event("subscription_created", "active", 3, Value::Null),
        json!({"meta": {"event_name": "subscription_payment_success"}, "data": {"type": "subscription-invoices", "id": "70",
               "attributes": {"subscription_id": 501, "status": "paid", "updated_at": t(4)}}}),
        subscription_event("subscription_paused", "paused", 5, json!({"mode": "void", "resumes_at": null})),
        subscription_event("subscription_unpaused", "active", 6, Value::Null),
        order_event("order_refunded", "refunded", 7, Some(7)),
        subscription_event("subscription_cancelled", "cancelled", 8, Value::Null),
        subscription_event("subscription_expired", "expired", 9, Value::Null),
    ];
    raw.iter().map(|v| payload::parse(v, None).unwrap()).collect()
}

/// Applies `events` to a fresh database (a PostgreSQL one on a PostgreSQL run) one at a time
/// and returns what the order and the subscription became.
fn final_state(events: &[WebhookEvent]) -> (Value, Value) {
    final_state_applied(events, None)
}

/// The same, with every event stored in the inbox first and applied as two groups, split at
/// `split`, as the receiver applies bursts: the second group meets what the first cached.
fn final_state_in_two_groups(events: &[WebhookEvent], split: usize) -> (Value, Value) {
    final_state_applied(events, Some(split))
}

fn final_state_applied(events: &[WebhookEvent], split: Option<usize>) -> (Value, Value) {
    use staffroom::webhooks::{EventApplier as _, NewDelivery, Stored, WebhookInbox};
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let core = common::memory_core(dir.path()).await;
        let applier = PaymentsApplier::new(core.db.clone());
        if let Some(split) = split {
            let inbox = WebhookInbox::open(&core.db).await.unwrap();
            let mut group = Vec::new();
            for (n, event) in events.iter().enumerate() {
                let delivery = NewDelivery {
                    dedupe_key: format!("delivery-{n}"),
                    webhook_id: None,
                    event_name: event.name.clone(),
                    resource_type: event.resource_type.clone(),
                    resource_id: event.resource_id.clone(),
                    body: b"{}".to_vec(),
                    received_at: "2026-11-22T10:00:00.000Z".into(),
                };
                let Stored::New(id) = inbox.store(delivery).await.unwrap() else { panic!("stored twice") };
                group.push((id, event.clone()));
            }
            let (first, second) = group.split_at(split.min(group.len()));
            for group in [first, second].into_iter().filter(|group| !group.is_empty()) {
                let applied = applier.apply_stored(group).await.unwrap();
                assert_eq!(applied.len(), group.len(), "every event has an outcome");
            }
        } else {
            for event in events {
                applier.apply_unstored(event).await.unwrap();
            }
        }
        let order = core.db.order("ord-1".into()).await.unwrap().expect("the order was made");
        let subscription = core.db.subscription("501".into()).await.unwrap().expect("the subscription was made");
        (
            json!({
                "status": order.dto.status, "paidAt": order.dto.paid_at, "refundedAt": order.dto.refunded_at,
                "providerOrderId": order.dto.provider_order_id, "providerUpdatedAt": order.provider_updated_at,
                "total": order.dto.total,
            }),
            json!({
                "status": subscription.status, "provider": subscription.provider_status,
                "endsAt": subscription.ends_at, "pause": subscription.pause_mode,
                "updatedAt": subscription.updated_at, "lastPayment": subscription.last_payment_status,
            }),
        )
    })
}

#[test]
fn the_in_order_sequence_ends_as_expected() {
    let (order, subscription) = final_state(&sequence());
    assert_eq!(order["status"], "paid");
    assert_eq!(order["refundedAt"], "2026-11-22T10:07:00Z");
    assert_eq!(order["paidAt"], "2026-11-22T10:01:00Z");
    assert_eq!(subscription["status"], "expired");
    assert_eq!(subscription["lastPayment"], "paid");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn any_permutation_ends_in_the_same_state(shuffled in Just(sequence()).prop_shuffle()) {
        prop_assert_eq!(final_state(&shuffled), final_state(&sequence()));
    }

    #[test]
    fn any_permutation_applied_in_groups_ends_in_the_same_state(
        shuffled in Just(sequence()).prop_shuffle(),
        split in 0usize..=sequence().len(),
    ) {
        prop_assert_eq!(final_state_in_two_groups(&shuffled, split), final_state(&sequence()));
    }
}
