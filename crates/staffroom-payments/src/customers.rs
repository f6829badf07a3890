//! The store's customers (SPEC section 11): read by the sync, listed from the cache, and shown
//! with their orders and subscriptions; a customer's page asks the provider afresh for the
//! figures and the signed portal link, which lives 24 hours and is never kept.

use std::collections::HashSet;

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::model::{self, CustomerDto, InvoiceDto, LicenseKeyDto, OrderDto, PageMeta, SubscriptionDto};
use super::scope::Kind;
use super::store::{like_pattern, CustomerQuery, LicenseKeyQuery, OrderQuery, SubscriptionQuery};
use super::sync::{SyncReporter, SyncStep};
use super::{requests, PaymentService};
use staffroom_base::error::{Error, Result};
use staffroom_base::time::now_rfc3339;

/// After the first sync, up to this many customers whose orders or subscriptions changed are
/// read one by one; more than that, and every page is read again (a page holds 100).
const ONE_BY_ONE: usize = 30;
/// The `meta` key of when every page of customers was last read.
const READ_IN_FULL: &str = "customers_read_in_full_at";
/// How many of a customer's orders and subscriptions their page shows (newest first).
const SHOWN: u32 = 50;

/// `GET /customers`.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
pub struct CustomerList {
    pub customers: Vec<CustomerDto>,
    pub meta: PageMeta,
}

/// A customer with what they bought: the newest orders, subscriptions, invoices and licence keys,
/// and how many of each.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct CustomerDetail {
    #[serde(flatten)]
    pub customer: CustomerDto,
    pub orders: Vec<OrderDto>,
    pub order_count: u64,
    pub subscriptions: Vec<SubscriptionDto>,
    pub subscription_count: u64,
    /// Their subscriptions' invoices, newest first.
    pub invoices: Vec<InvoiceDto>,
    pub invoice_count: u64,
    /// Their licence keys, newest first (short forms only).
    pub license_keys: Vec<LicenseKeyDto>,
    pub license_key_count: u64,
    /// The provider could not be reached: the figures are the last synced, and there is no
    /// portal link.
    pub stale: bool,
}

/// `{customer}`.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
pub struct CustomerEnvelope {
    pub customer: CustomerDetail,
}

impl PaymentService {
    /// The store's customers. Every page on the first sync and once a day after (what changes
    /// no order or subscription shows: a name, an e-mail status); otherwise the first page (the
    /// newest customers) and then, one request each, the customers whose orders or
    /// subscriptions the provider changed since they were last read: it recomputed their
    /// revenue or MRR, but they sit on old pages. More of those than a few pages' worth, and
    /// every page is read instead.
    pub(super) async fn read_customers(&self, report: &SyncReporter) -> Result<(usize, u32)> {
        let outcome = async {
            let since = self.db.sync_state("customers").await?.synced_at.as_deref().and_then(a_minute_before);
            let started = now_rfc3339();
            let touched = match since {
                Some(since) => {
                    let since = since.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
                    self.db.customers_touched_since(since).await?
                }
                None => Vec::new(),
            };
            let last_full = self.db.meta(READ_IN_FULL).await?;
            let every_page = since.is_none() || touched.len() > ONE_BY_ONE || older_than_a_day(last_full.as_deref());
            let mut pages = self.provider.pages(Kind::Customer, &[]).await?;
            let (mut read, mut seen) = (0, HashSet::new());
            while let Some(page) = pages.next().await? {
                report.step(SyncStep::Customers, pages.read(), pages.total());
                let customers: Vec<CustomerDto> = page.iter().map(model::customer_from).collect();
                read += customers.len();
                seen.extend(customers.iter().map(|c| c.id.clone()));
                self.db.upsert_customers(customers, now_rfc3339()).await?;
                if !every_page {
                    break;
                }
            }
            let mut requests = pages.read();
            for id in touched.iter().filter(|id| !seen.contains(*id)) {
                let customer = match self.provider.read(Kind::Customer, id).await {
                    // Gone at the provider (or never this store's): nothing to refresh.
                    Err(err) if err.code == staffroom_base::error::ErrorCode::NotFound => continue,
                    other => other?,
                };
                self.db.upsert_customers(vec![model::customer_from(&customer)], now_rfc3339()).await?;
                (read, requests) = (read + 1, requests + 1);
            }
            if every_page {
                self.db.set_meta(READ_IN_FULL, started.clone()).await?;
            }
            self.db.record_sync("customers", started, None).await?;
            Ok::<_, Error>((read, requests))
        }
        .await;
        if let Err(err) = &outcome {
            self.db.record_sync("customers", now_rfc3339(), Some(err.message.clone())).await?;
        }
        outcome
    }

    /// `GET /customers`: from the cache, newest first, searched by name or e-mail.
    pub async fn list_customers(&self, request: &requests::ListCustomersRequest) -> Result<CustomerList> {
        let (page, limit) = (request.page.unwrap_or(1), request.limit.unwrap_or(10));
        let query =
            CustomerQuery { page, limit, search: request.search.as_deref().map(like_pattern), status: request.status };
        let (customers, total) = self.db.list_customers(query).await?;
        let meta = self.meta_for("customers", PageMeta::new(page, limit, total), false).await?;
        Ok(CustomerList { customers, meta })
    }

    /// `GET /customers/:id`: the customer as the provider has them now (with the portal link),
    /// or as last synced when it cannot be reached; with their newest orders and subscriptions.
    pub async fn get_customer(&self, id: &str) -> Result<CustomerDetail> {
        super::validate_id("id", id)?;
        let fresh = self.provider.read(Kind::Customer, id).await.map(|resource| model::customer_from(&resource));
        let (customer, stale) = match fresh {
            Ok(customer) => {
                self.db.upsert_customers(vec![customer.clone()], now_rfc3339()).await?;
                (customer, false)
            }
            Err(err) if err.is_provider_unreachable() => (self.db.customer(id.to_string()).await?.ok_or(err)?, true),
            Err(err) => return Err(err),
        };
        let orders = OrderQuery { page: 1, limit: SHOWN, customer_id: Some(id.to_string()), ..Default::default() };
        let (orders, order_count) = self.db.list_orders(orders).await?;
        let subscriptions =
            SubscriptionQuery { page: 1, limit: SHOWN, customer_id: Some(id.to_string()), ..Default::default() };
        let (subscriptions, subscription_count) = self.db.list_subscriptions(subscriptions).await?;
        let (invoices, invoice_count) = self.customer_invoices(id, SHOWN).await?;
        let now = super::license_keys::expiry_clock();
        let keys = LicenseKeyQuery {
            page: 1,
            limit: SHOWN,
            customer_id: Some(id.to_string()),
            now: now.clone(),
            ..Default::default()
        };
        let (license_keys, license_key_count) = self.db.list_license_keys(keys).await?;
        let license_keys = license_keys.into_iter().map(|k| super::license_keys::as_of(k, &now)).collect();
        Ok(CustomerDetail {
            customer,
            orders,
            order_count,
            subscriptions,
            subscription_count,
            invoices,
            invoice_count,
            license_keys,
            license_key_count,
            stale,
        })
    }
}

/// Whether the last full read of the customers (RFC 3339) was a day ago or more, or never.
pub(super) fn older_than_a_day(at: Option<&str>) -> bool {
    at.and_then(|at| DateTime::parse_from_rfc3339(at).ok())
        .is_none_or(|at| Utc::now().signed_duration_since(at) >= chrono::Duration::days(1))
}

/// A minute before a sync began, for the provider's clock.
pub(super) fn a_minute_before(at: &str) -> Option<DateTime<Utc>> {
    let at = DateTime::parse_from_rfc3339(at).ok()?;
    Some((at - chrono::Duration::minutes(1)).with_timezone(&Utc))
}
