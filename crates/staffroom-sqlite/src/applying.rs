//! SQLite's side of applying webhook events (the rules are `payments::apply`'s): read what each
//! event concerns, decide, write the change, and record the outcome with the delivery, a group
//! in one transaction with a savepoint per event.

use super::{audit, invoices, license_keys, payments, Sqlite};
use crate::Sql as _;
use staffroom_core::error::Result;
use staffroom_core::payments::apply::{
    decide, failed, review_entry, stale, stale_payment, wanted, Change, Known, Wanted, OLDER_INVOICE, OLDER_LICENSE_KEY,
};
use staffroom_core::payments::store::ApplyingStore;
use staffroom_core::time::now_rfc3339;
use staffroom_core::webhooks::{ApplyResult, WebhookEvent};

/// One event on SQLite, inside the caller's transaction.
pub(crate) fn apply_one(conn: &rusqlite::Connection, event: &WebhookEvent) -> Result<ApplyResult> {
    let known = match wanted(event) {
        Wanted::Order { local_id, provider_id } => {
            let by_ours = match local_id {
                Some(id) => payments::get_order(conn, &id)?,
                None => None,
            };
            Known::Order(match by_ours {
                Some(order) => Some(order),
                None => payments::find_order_by_provider_id(conn, &provider_id)?,
            })
        }
        Wanted::Subscription(id) => Known::Subscription(payments::get_subscription(conn, &id)?),
        Wanted::Nothing => Known::Nothing,
    };
    let (change, result) = decide(event, known);
    match change {
        Change::None => {}
        Change::InsertOrder(order) => {
            payments::insert_order_in(conn, &order)?;
        }
        Change::UpdateOrder { order, review } => {
            if let Some((id, detail)) = &review {
                audit::append(conn, &review_entry(id, detail))?;
            }
            payments::update_order_from_provider(conn, &order)?;
        }
        Change::UpsertSubscription(subscription) => payments::upsert_subscription(conn, &subscription, &now_rfc3339())?,
        Change::UpsertLicenseKey(key) => {
            if !license_keys::upsert_license_key(conn, &key, &now_rfc3339())? {
                return Ok(stale(result, OLDER_LICENSE_KEY));
            }
        }
        Change::Invoice { invoice, payment } => {
            let written = invoices::upsert_invoice(conn, &invoice, &now_rfc3339())?;
            match payment {
                Some(payment) => {
                    if !payments::note_payment(conn, &payment.subscription_id, &payment.status, &payment.at)? {
                        return Ok(stale_payment(result));
                    }
                }
                None if !written => return Ok(stale(result, OLDER_INVOICE)),
                None => {}
            }
        }
    }
    Ok(result)
}

#[async_trait::async_trait]
impl ApplyingStore for Sqlite {
    /// One transaction for the whole group (a commit per event held applying to about 2,500
    /// events/s), with a savepoint per event, so one that fails leaves no trace and the others
    /// still apply; the outcomes are recorded in the same transaction.
    async fn apply_stored_events(&self, group: &[(i64, WebhookEvent)]) -> Result<Vec<(i64, ApplyResult)>> {
        // Owned by the closure that runs on the blocking pool.
        let group = group.to_vec();
        self.transaction(move |tx| {
            let now = now_rfc3339();
            let mut results = Vec::with_capacity(group.len());
            for (id, event) in &group {
                let waiting: bool = tx
                    .query_row("SELECT applied_at IS NULL FROM webhook_events WHERE id = ?1", [id], |row| row.get(0))
                    .sql()?;
                if !waiting {
                    continue;
                }
                tx.execute_batch("SAVEPOINT apply_one").sql()?;
                let result = apply_one(tx, event);
                let end = if result.is_ok() { "RELEASE apply_one" } else { "ROLLBACK TO apply_one; RELEASE apply_one" };
                tx.execute_batch(end).sql()?;
                let result = result.unwrap_or_else(|err| {
                    tracing::error!(id, %err, "applying a webhook delivery failed");
                    failed(&err)
                });
                tx.execute(
                    "UPDATE webhook_events SET applied_at = ?2, outcome = ?3, order_id = ?4, subscription_id = ?5
                         WHERE id = ?1",
                    rusqlite::params![id, now, result.outcome.to_string(), result.order_id, result.subscription_id],
                )
                .sql()?;
                results.push((*id, result));
            }
            Ok(results)
        })
        .await
    }

    async fn apply_event(&self, event: WebhookEvent) -> Result<ApplyResult> {
        self.transaction(move |tx| apply_one(tx, &event)).await
    }

    async fn apply_events(&self, events: Vec<WebhookEvent>) -> Result<Vec<ApplyResult>> {
        self.transaction(move |tx| {
            let mut results = Vec::with_capacity(events.len());
            for event in &events {
                tx.execute_batch("SAVEPOINT apply_one").sql()?;
                let result = apply_one(tx, event);
                let end = if result.is_ok() { "RELEASE apply_one" } else { "ROLLBACK TO apply_one; RELEASE apply_one" };
                tx.execute_batch(end).sql()?;
                results.push(result.unwrap_or_else(|err| {
                    tracing::error!(resource = %event.resource_id, %err, "applying what a sync read failed");
                    failed(&err)
                }));
            }
            Ok(results)
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use staffroom_core::webhooks::EventApplier;

    fn subscription_event(id: &str) -> WebhookEvent {
        let body = serde_json::json!({
            "meta": {"event_name": "subscription_updated", "webhook_id": format!("w-{id}")},
            "data": {"type": "subscriptions", "id": id, "attributes": {
                "status": "active", "customer_id": 1, "product_id": 7, "variant_id": 11,
                "updated_at": "2026-11-22T10:00:00.000000Z", "user_email": "c@example.com", "user_name": "C"
            }}
        });
        staffroom_core::webhooks::payload::parse(&body, None).unwrap()
    }

    #[tokio::test]
    async fn a_failing_event_fails_alone_and_the_rest_of_its_group_applies() {
        let dir = tempfile::tempdir().unwrap();
        let sqlite = Sqlite::open(dir.path()).unwrap();
        let db = staffroom_core::store::Db::new(sqlite.clone());
        // SQLite itself refuses one of them, as a full disk or a broken row would.
        sqlite
            .call_blocking(|conn| {
                Ok(conn
                    .execute_batch(
                        "CREATE TRIGGER refuse_boom BEFORE INSERT ON subscriptions WHEN NEW.id = 'boom'
                 BEGIN SELECT RAISE(ABORT, 'refused'); END;",
                    )
                    .sql()?)
            })
            .unwrap();
        let inbox = staffroom_core::webhooks::WebhookInbox::open(&db).await.unwrap();
        let mut group = Vec::new();
        for id in ["1", "boom", "2"] {
            let event = subscription_event(id);
            let delivery = staffroom_core::webhooks::NewDelivery {
                dedupe_key: id.into(),
                webhook_id: None,
                event_name: event.name.clone(),
                resource_type: event.resource_type.clone(),
                resource_id: event.resource_id.clone(),
                body: b"{}".to_vec(),
                received_at: now_rfc3339(),
            };
            let staffroom_core::webhooks::Stored::New(inbox_id) = inbox.store(delivery).await.unwrap() else {
                panic!("new")
            };
            group.push((inbox_id, event));
        }
        let applier = staffroom_core::payments::apply::PaymentsApplier::new(db.clone());
        let results = applier.apply_stored(&group).await.unwrap();
        let outcomes: Vec<String> = results.iter().map(|(_, r)| r.outcome.to_string()).collect();
        assert_eq!(outcomes[0], "applied");
        assert!(outcomes[1].starts_with("failed"), "{outcomes:?}");
        assert_eq!(outcomes[2], "applied");
        let stored: Vec<String> = sqlite
            .call_blocking(|conn| {
                let mut statement = conn.prepare("SELECT id FROM subscriptions ORDER BY id").sql()?;
                let ids =
                    statement.query_map([], |row| row.get(0)).sql()?.collect::<rusqlite::Result<Vec<_>>>().sql()?;
                Ok(ids)
            })
            .unwrap();
        assert_eq!(stored, ["1", "2"]);
        // Recorded with the deliveries, and never applied twice.
        let reader = staffroom_core::webhooks::InboxReader::new(db.clone());
        assert!(reader.unapplied(10).await.unwrap().is_empty());
        assert!(applier.apply_stored(&group).await.unwrap().is_empty(), "already applied: skipped");
    }
}
