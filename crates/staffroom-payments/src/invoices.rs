//! The subscriptions' invoices (SPEC section 11): read by the sync, kept current by the
//! `subscription_payment_*` events (`apply::decide`), listed from the cache, and refunded whole
//! or in part by admins.

use serde::Serialize;
use serde_json::json;

use super::model::{self, InvoiceDto, PageMeta};
use super::scope::Kind;
use super::store::InvoiceQuery;
use super::sync::{SyncReporter, SyncStep};
use super::{validate_id, PaymentService};
use staffroom_auth::audit::AuditAction;
use staffroom_auth::Actor;
use staffroom_base::error::{Error, ErrorCode, Result};
use staffroom_base::time::now_rfc3339;

/// The most invoices one list shows: a monthly plan reaches it after eight years.
pub const SHOWN: u32 = 100;

/// `GET /subscriptions/{id}/invoices`: newest first.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
pub struct InvoiceList {
    pub invoices: Vec<InvoiceDto>,
    pub meta: PageMeta,
}

/// `{invoice}`.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
pub struct InvoiceEnvelope {
    pub invoice: InvoiceDto,
}

/// Whether an invoice in `status` can be refunded (what is left of it).
fn refundable_status(status: &str) -> bool {
    matches!(status, "paid" | "partial_refund")
}

impl PaymentService {
    /// The store's invoices, 100 a page, newest first: all of them on the first sync, after that
    /// until a page with nothing changed since the last sync began (a minute's slack for the
    /// provider's clock), as the orders are read. A refund made in the provider's dashboard to
    /// an older invoice comes by its `subscription_payment_refunded` event.
    pub(super) async fn read_invoices(&self, report: &SyncReporter) -> Result<(usize, u32)> {
        let outcome = async {
            let since = self.db.sync_state("invoices").await?.synced_at.and_then(|at| {
                let at = chrono::DateTime::parse_from_rfc3339(&at).ok()?;
                Some(at - chrono::Duration::minutes(1))
            });
            let started = now_rfc3339();
            let changed = |invoice: &InvoiceDto| {
                let updated = chrono::DateTime::parse_from_rfc3339(&invoice.updated_at).ok();
                since.zip(updated).is_none_or(|(since, updated)| updated >= since)
            };
            let mut pages = self.provider.pages(Kind::SubscriptionInvoice, &[]).await?;
            let mut read = 0;
            while let Some(page) = pages.next().await? {
                report.step(SyncStep::Invoices, pages.read(), pages.total());
                let invoices: Vec<InvoiceDto> = page.iter().map(model::invoice_from).collect();
                read += invoices.len();
                let any_changed = invoices.iter().any(changed);
                self.db.upsert_invoices(invoices, now_rfc3339()).await?;
                if !any_changed {
                    break;
                }
            }
            self.db.record_sync("invoices", started, None).await?;
            Ok::<_, Error>((read, pages.read()))
        }
        .await;
        if let Err(err) = &outcome {
            self.db.record_sync("invoices", now_rfc3339(), Some(err.message.clone())).await?;
        }
        outcome
    }

    /// `GET /subscriptions/{id}/invoices`: from the cache, newest first.
    pub async fn list_invoices(&self, subscription_id: &str) -> Result<InvoiceList> {
        validate_id("id", subscription_id)?;
        if self.db.subscription(subscription_id.to_string()).await?.is_none() {
            return Err(Error::not_found(format!("No subscription {subscription_id}")));
        }
        let query = InvoiceQuery::Subscription { id: subscription_id.to_string(), limit: SHOWN };
        let (invoices, total) = self.db.list_invoices(query).await?;
        let meta = self.meta_for("invoices", PageMeta::new(1, SHOWN, total), false).await?;
        Ok(InvoiceList { invoices, meta })
    }

    /// A customer's newest invoices, and how many they have.
    pub(super) async fn customer_invoices(&self, customer_id: &str, limit: u32) -> Result<(Vec<InvoiceDto>, u64)> {
        self.db.list_invoices(InvoiceQuery::Customer { id: customer_id.to_string(), limit }).await
    }

    /// `POST /invoices/{id}/refund` (admins): all that is left of a paid invoice of this store's,
    /// or `amount` cents of it, checked against the provider's own figures before anything is
    /// sent. An answer lost on the way is settled by reading the invoice again, as for orders.
    /// Audited, refusals too.
    pub async fn refund_invoice(&self, actor: &Actor, id: &str, amount: Option<u32>) -> Result<InvoiceDto> {
        actor.require_admin()?;
        validate_id("id", id)?;
        let refunded = self.send_invoice_refund(id, amount).await;
        let detail = match &refunded {
            Ok((invoice, cents)) => {
                Some(json!({"amount": cents, "currency": invoice.currency, "subscription": invoice.subscription_id}))
            }
            Err(_) => amount.map(|cents| json!({"amount": cents})),
        };
        let outcome = refunded.as_ref().map_or_else(staffroom_auth::audit::failure, |_| "success".to_string());
        self.audit.record(actor.audit_name(), AuditAction::InvoiceRefund, Some(id), &outcome, detail).await;
        let (invoice, _) = refunded?;
        self.db.upsert_invoices(vec![invoice.clone()], now_rfc3339()).await?;
        Ok(self.db.invoice(id.to_string()).await?.unwrap_or(invoice))
    }

    /// Checks that the invoice is this store's, paid, and has `amount` (or anything) left, then
    /// refunds it: the invoice after the refund, and the cents refunded.
    async fn send_invoice_refund(&self, id: &str, amount: Option<u32>) -> Result<(InvoiceDto, i64)> {
        let cached = self.db.invoice(id.to_string()).await?.ok_or_else(|| Kind::SubscriptionInvoice.not_found(id))?;
        if !refundable_status(&cached.status) {
            return Err(Error::conflict(
                format!("Only a paid invoice can be refunded; this one is {}", cached.status.replace('_', " ")),
                None,
            ));
        }
        let ours = self.provider.read(Kind::SubscriptionInvoice, id).await?;
        let before = model::invoice_from(&ours);
        let refundable = before.total - before.refunded_amount;
        if !refundable_status(&before.status) || refundable <= 0 {
            self.db.upsert_invoices(vec![before.clone()], now_rfc3339()).await?;
            let why = match before.status.as_str() {
                "refunded" | "partial_refund" | "paid" => "This invoice has already been refunded in full".to_string(),
                other => format!("Only a paid invoice can be refunded; this one is {}", other.replace('_', " ")),
            };
            return Err(Error::conflict(why, None));
        }
        if let Some(amount) = amount.filter(|a| i64::from(*a) > refundable) {
            let money = model::format_money(refundable, &before.currency);
            return Err(Error::invalid_field(
                "amount",
                format!("must be at most {refundable} ({money}, what is left to refund); {amount} is more"),
            ));
        }
        let mut attributes = serde_json::Map::new();
        if let Some(amount) = amount {
            attributes.insert("amount".into(), json!(amount));
        }
        let refunded = match self.provider.act_once(&ours, "refund", attributes).await {
            Ok(invoice) => model::invoice_from(&invoice),
            // The answer was lost: the invoice itself says whether the refund happened.
            Err(lost) if lost.code == ErrorCode::IntegrationError => {
                match self.provider.read(Kind::SubscriptionInvoice, id).await {
                    Ok(invoice) if invoice.int("refunded_amount").unwrap_or(0) > before.refunded_amount => {
                        model::invoice_from(&invoice)
                    }
                    _ => return Err(lost),
                }
            }
            Err(refused) => return Err(refused),
        };
        Ok((refunded, amount.map_or(refundable, i64::from)))
    }
}
