//! PostgreSQL's side of applying webhook events (the rules are `payments::apply`'s): read what
//! each event concerns, decide, write the change, and record the outcome with the delivery, under
//! an advisory lock so that replicas apply one at a time and in order.

use super::{audit, invoices, license_keys, payments, webhooks, Postgres};
use crate::Sql as _;
use staffroom_core::error::Result;
use staffroom_core::payments::apply::{
    decide, failed, review_entry, stale, stale_payment, wanted, Change, Known, Wanted, OLDER_INVOICE, OLDER_LICENSE_KEY,
};
use staffroom_core::payments::model::SubscriptionDto;
use staffroom_core::payments::store::ApplyingStore;
use staffroom_core::time::now_rfc3339;
use staffroom_core::webhooks::{ApplyResult, WebhookEvent};

/// The advisory lock a team server's replicas apply under, one at a time ("applying").
const APPLY_LOCK: i64 = 0x6170_706c_7969_6e67;

/// One event on PostgreSQL, inside the caller's transaction.
async fn apply_one(tx: &deadpool_postgres::Transaction<'_>, event: &WebhookEvent) -> Result<ApplyResult> {
    let known = match wanted(event) {
        Wanted::Order { local_id, provider_id } => {
            let by_ours = match local_id {
                Some(id) => payments::get_order(tx, &id).await?,
                None => None,
            };
            Known::Order(match by_ours {
                Some(order) => Some(order),
                None => payments::find_order_by_provider_id(tx, &provider_id).await?,
            })
        }
        Wanted::Subscription(id) => Known::Subscription(payments::get_subscription(tx, &id).await?),
        Wanted::Nothing => Known::Nothing,
    };
    let (change, result) = decide(event, known);
    match change {
        Change::None => {}
        Change::InsertOrder(order) => {
            payments::insert_order(tx, &order).await?;
        }
        Change::UpdateOrder { order, review } => {
            if let Some((id, detail)) = &review {
                audit::append(tx, &review_entry(id, detail)).await?;
            }
            payments::update_order_from_provider(tx, &order).await?;
        }
        Change::UpsertSubscription(subscription) => {
            payments::upsert_subscription(tx, &subscription, &now_rfc3339()).await?
        }
        Change::UpsertLicenseKey(key) => {
            if !license_keys::upsert_license_key(tx, &key, &now_rfc3339()).await? {
                return Ok(stale(result, OLDER_LICENSE_KEY));
            }
        }
        Change::Invoice { invoice, payment } => {
            let written = invoices::upsert_invoice(tx, &invoice, &now_rfc3339()).await?;
            match payment {
                Some(payment) => {
                    if !payments::note_payment(tx, &payment.subscription_id, &payment.status, &payment.at).await? {
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
impl ApplyingStore for Postgres {
    async fn apply_stored_events(&self, group: &[(i64, WebhookEvent)]) -> Result<Vec<(i64, ApplyResult)>> {
        apply_stored(&mut self.client().await?, group).await
    }

    async fn apply_event(&self, event: WebhookEvent) -> Result<ApplyResult> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.sql()?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&APPLY_LOCK]).await.sql()?;
        let result = apply_one(&tx, &event).await?;
        tx.commit().await.sql()?;
        Ok(result)
    }

    async fn apply_events(&self, events: Vec<WebhookEvent>) -> Result<Vec<ApplyResult>> {
        let mut client = self.client().await?;
        let mut tx = client.transaction().await.sql()?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&APPLY_LOCK]).await.sql()?;
        let mut results = Vec::with_capacity(events.len());
        for event in &events {
            let one = tx.savepoint("apply_one").await.sql()?;
            let result = match apply_one(&one, event).await {
                Ok(result) => {
                    one.commit().await.sql()?;
                    result
                }
                Err(err) => {
                    one.rollback().await.sql()?;
                    tracing::error!(resource = %event.resource_id, %err, "applying what a sync read failed");
                    failed(&err)
                }
            };
            results.push(result);
        }
        tx.commit().await.sql()?;
        Ok(results)
    }
}

/// PostgreSQL: under the applying lock, so that replicas apply one at a time and in order, and
/// only what is still waiting (locked, so no replica can take it meanwhile). First the whole
/// group in one go; only if an event fails is the group applied again with a savepoint around
/// each event, so that just that one fails (a savepoint costs two round trips per event, which
/// held applying to about 2,000 events/s).
async fn apply_stored(
    client: &mut deadpool_postgres::Object,
    group: &[(i64, WebhookEvent)],
) -> Result<Vec<(i64, ApplyResult)>> {
    match apply_group(client, group, false).await {
        Ok(results) => Ok(results),
        Err(err) => {
            tracing::debug!(%err, "a webhook group failed as a whole; applying it again event by event");
            apply_group(client, group, true).await
        }
    }
}

async fn apply_group(
    client: &mut deadpool_postgres::Object,
    group: &[(i64, WebhookEvent)],
    savepoints: bool,
) -> Result<Vec<(i64, ApplyResult)>> {
    let tx = client.transaction().await.sql()?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&APPLY_LOCK]).await.sql()?;
    let ids: Vec<i64> = group.iter().map(|(id, _)| *id).collect();
    let waiting: std::collections::HashSet<i64> = tx
        .query("SELECT id FROM webhook_events WHERE id = ANY($1) AND applied_at IS NULL FOR UPDATE", &[&ids])
        .await
        .sql()?
        .iter()
        .map(|row| row.get(0))
        .collect();
    let waiting: Vec<&(i64, WebhookEvent)> = group.iter().filter(|(id, _)| waiting.contains(id)).collect();
    let mut subscriptions = match savepoints {
        false => Some(SubscriptionBatch::read(&tx, waiting.iter().map(|(_, event)| event)).await?),
        true => None,
    };
    let mut results = Vec::with_capacity(waiting.len());
    for (id, event) in waiting {
        let result = if savepoints {
            tx.batch_execute("SAVEPOINT apply_one").await.sql()?;
            let result = apply_one(&tx, event).await;
            let end = if result.is_ok() { "RELEASE apply_one" } else { "ROLLBACK TO apply_one; RELEASE apply_one" };
            tx.batch_execute(end).await.sql()?;
            result.unwrap_or_else(|err| {
                tracing::error!(id, %err, "applying a webhook delivery failed");
                failed(&err)
            })
        } else if let (Some(batch), Wanted::Subscription(subscription)) = (subscriptions.as_mut(), wanted(event)) {
            batch.decide(event, subscription)?
        } else {
            apply_one(&tx, event).await?
        };
        results.push((*id, result));
    }
    if let Some(batch) = subscriptions {
        batch.write(&tx).await?;
    }
    webhooks::mark_applied(&tx, &results, &now_rfc3339()).await?;
    tx.commit().await.sql()?;
    Ok(results)
}

/// The subscriptions a group of events is about, read in one statement before the group and
/// written after it, each once, in one pipelined go: a burst of subscription events costs a few
/// round trips, not two per event. Each event is decided against what the events before it in
/// the group made of its subscription, as if each had been written at once.
struct SubscriptionBatch {
    known: std::collections::HashMap<String, Option<SubscriptionDto>>,
    changed: Vec<String>,
}

impl SubscriptionBatch {
    async fn read(
        tx: &deadpool_postgres::Transaction<'_>,
        events: impl Iterator<Item = &WebhookEvent>,
    ) -> Result<SubscriptionBatch> {
        let ids: Vec<String> = events
            .filter_map(|event| match wanted(event) {
                Wanted::Subscription(id) => Some(id),
                _ => None,
            })
            .collect();
        let mut cached = payments::get_subscriptions(tx, &ids).await?;
        // One entry per subscription, however many of the group's events name it.
        let mut known = std::collections::HashMap::with_capacity(ids.len());
        for id in ids {
            known.entry(id).or_insert_with_key(|id| cached.remove(id));
        }
        Ok(SubscriptionBatch { known, changed: Vec::new() })
    }

    fn decide(&mut self, event: &WebhookEvent, id: String) -> Result<ApplyResult> {
        let cached = self.known.get(&id).cloned().flatten();
        let (change, result) = decide(event, Known::Subscription(cached));
        match change {
            Change::None => {}
            Change::UpsertSubscription(subscription) => {
                if !self.changed.contains(&id) {
                    self.changed.push(id.clone());
                }
                self.known.insert(id, Some(subscription));
            }
            // A subscription event never changes anything else; if one ever did, the group is
            // applied again event by event.
            _ => {
                return Err(staffroom_core::Error::internal("applying", "a subscription event changed something else"))
            }
        }
        Ok(result)
    }

    async fn write(self, tx: &deadpool_postgres::Transaction<'_>) -> Result<()> {
        let now = now_rfc3339();
        let writes = self
            .changed
            .iter()
            .filter_map(|id| self.known.get(id)?.as_ref())
            .map(|subscription| payments::upsert_subscription(tx, subscription, &now));
        futures::future::try_join_all(writes).await?;
        Ok(())
    }
}
