//! The payment area's operations: products, orders, subscriptions, the sync and the webhook log.

pub use staffroom_payments::requests::*;

use super::customers::{CustomerEnvelope, CustomerList};
use super::discounts::{DiscountEnvelope, DiscountList};
use super::invoices::{InvoiceEnvelope, InvoiceList};
use super::license_keys::{LicenseKeyDetailEnvelope, LicenseKeyEnvelope, LicenseKeyList};
use super::summary::SalesSummaryEnvelope;
use super::sync::SyncStatus;
use super::validate::NewOrder;
use super::{OrderList, ProductList, SubscriptionActionResult, SubscriptionList, SyncReport};
use crate::api::{Access, Caller, NoInput, OpSpec, Operation, Route};
use crate::error::Result;
use crate::webhooks::WebhookLog;
use crate::Core;

/// Errors of operations on one resource.
const NOT_FOUND: &[(u16, &str)] = &[(404, "not_found: no such resource")];

pub struct ListProducts;
impl Operation for ListProducts {
    const SPEC: OpSpec = OpSpec::new(
        "list_products",
        "payments",
        "Products of the store, from the cache when Lemon Squeezy is out of reach",
    )
    .route(Route::get("/api/payments/products"));
    type Request = ListProductsRequest;
    type Response = ProductList;
    async fn run(core: &Core, _: &Caller, request: ListProductsRequest) -> Result<ProductList> {
        core.payments.list_products(&request).await
    }
}

pub struct GetProduct;
impl Operation for GetProduct {
    const SPEC: OpSpec = OpSpec::new("get_product", "payments", "One product with its variants")
        .route(Route::get("/api/payments/products/{id}"))
        .errors(NOT_FOUND);
    type Request = IdRequest;
    type Response = ProductEnvelope;
    async fn run(core: &Core, _: &Caller, request: IdRequest) -> Result<ProductEnvelope> {
        Ok(ProductEnvelope { product: core.payments.get_product(&request.id).await? })
    }
}

pub struct CreateOrder;
impl Operation for CreateOrder {
    const SPEC: OpSpec = OpSpec::new("create_order", "payments", "An order: a Lemon Squeezy checkout for a product")
        .route(Route::post("/api/payments/orders").status(201))
        .errors(NOT_FOUND);
    type Request = NewOrder;
    type Response = OrderEnvelope;
    async fn run(core: &Core, caller: &Caller, request: NewOrder) -> Result<OrderEnvelope> {
        Ok(OrderEnvelope { order: core.payments.create_order(&caller.actor()?, request).await? })
    }
}

pub struct ListOrders;
impl Operation for ListOrders {
    const SPEC: OpSpec =
        OpSpec::new("list_orders", "payments", "Every order of the store, newest first, searched and filtered")
            .route(Route::get("/api/payments/orders"));
    type Request = ListOrdersRequest;
    type Response = OrderList;
    async fn run(core: &Core, _: &Caller, request: ListOrdersRequest) -> Result<OrderList> {
        core.payments.list_orders(&request).await
    }
}

pub struct GetSummary;
impl Operation for GetSummary {
    const SPEC: OpSpec = OpSpec::new(
        "get_summary",
        "payments",
        "The store's revenue, refunds, orders and subscriptions over a range of days, from the cache",
    )
    .route(Route::get("/api/payments/summary"));
    type Request = SummaryRequest;
    type Response = SalesSummaryEnvelope;
    async fn run(core: &Core, _: &Caller, request: SummaryRequest) -> Result<SalesSummaryEnvelope> {
        core.payments.summary(&request).await
    }
}

pub struct GetOrder;
impl Operation for GetOrder {
    const SPEC: OpSpec = OpSpec::new("get_order", "payments", "One order with the webhook events applied to it")
        .route(Route::get("/api/payments/orders/{id}"))
        .errors(NOT_FOUND);
    type Request = IdRequest;
    type Response = OrderEnvelope;
    async fn run(core: &Core, _: &Caller, request: IdRequest) -> Result<OrderEnvelope> {
        Ok(OrderEnvelope { order: core.payments.get_order(&request.id).await? })
    }
}

pub struct RefundOrder;
impl Operation for RefundOrder {
    const SPEC: OpSpec = OpSpec::new("refund_order", "payments", "Refunds a paid order, in full or in part")
        .route(Route::post("/api/payments/orders/{id}/refund"))
        .access(Access::Admin)
        .errors(&[
            (404, "not_found: no such order"),
            (409, "conflict: only a paid order can be refunded, and only what is left of it"),
        ]);
    type Request = RefundRequest;
    type Response = OrderEnvelope;
    async fn run(core: &Core, caller: &Caller, request: RefundRequest) -> Result<OrderEnvelope> {
        Ok(OrderEnvelope { order: core.payments.refund_order(&caller.actor()?, &request.id, request.amount).await? })
    }
}

pub struct ListSubscriptions;
impl Operation for ListSubscriptions {
    const SPEC: OpSpec = OpSpec::new("list_subscriptions", "payments", "Subscriptions, from the cache")
        .route(Route::get("/api/payments/subscriptions"));
    type Request = ListSubscriptionsRequest;
    type Response = SubscriptionList;
    async fn run(core: &Core, _: &Caller, request: ListSubscriptionsRequest) -> Result<SubscriptionList> {
        core.payments.list_subscriptions(&request).await
    }
}

pub struct GetSubscription;
impl Operation for GetSubscription {
    const SPEC: OpSpec = OpSpec::new(
        "get_subscription",
        "payments",
        "One subscription as the provider has it now, with the links to update the card and the portal",
    )
    .route(Route::get("/api/payments/subscriptions/{id}"))
    .errors(NOT_FOUND);
    type Request = IdRequest;
    type Response = SubscriptionEnvelope;
    async fn run(core: &Core, _: &Caller, request: IdRequest) -> Result<SubscriptionEnvelope> {
        let (subscription, stale) = core.payments.get_subscription(&request.id).await?;
        Ok(SubscriptionEnvelope { subscription, stale })
    }
}

pub struct ListInvoices;
impl Operation for ListInvoices {
    const SPEC: OpSpec = OpSpec::new(
        "list_invoices",
        "payments",
        "A subscription's invoices (first payment, renewals, plan changes), newest first, from the cache",
    )
    .route(Route::get("/api/payments/subscriptions/{id}/invoices"))
    .errors(&[(404, "not_found: no such subscription")]);
    type Request = IdRequest;
    type Response = InvoiceList;
    async fn run(core: &Core, _: &Caller, request: IdRequest) -> Result<InvoiceList> {
        core.payments.list_invoices(&request.id).await
    }
}

pub struct RefundInvoice;
impl Operation for RefundInvoice {
    const SPEC: OpSpec = OpSpec::new(
        "refund_invoice",
        "payments",
        "Refunds a paid subscription invoice (a renewal), in full or in part",
    )
    .route(Route::post("/api/payments/invoices/{id}/refund"))
    .access(Access::Admin)
    .errors(&[
        (404, "not_found: no such invoice"),
        (409, "conflict: only a paid invoice can be refunded, and only what is left of it"),
    ]);
    type Request = RefundRequest;
    type Response = InvoiceEnvelope;
    async fn run(core: &Core, caller: &Caller, request: RefundRequest) -> Result<InvoiceEnvelope> {
        Ok(InvoiceEnvelope {
            invoice: core.payments.refund_invoice(&caller.actor()?, &request.id, request.amount).await?,
        })
    }
}

pub struct ListLicenseKeys;
impl Operation for ListLicenseKeys {
    const SPEC: OpSpec = OpSpec::new(
        "list_license_keys",
        "payments",
        "The store's licence keys, newest first, by order, customer or status, searched by e-mail or key (short forms only)",
    )
    .route(Route::get("/api/payments/license-keys"));
    type Request = ListLicenseKeysRequest;
    type Response = LicenseKeyList;
    async fn run(core: &Core, _: &Caller, request: ListLicenseKeysRequest) -> Result<LicenseKeyList> {
        core.payments.list_license_keys(&request).await
    }
}

pub struct GetLicenseKey;
impl Operation for GetLicenseKey {
    const SPEC: OpSpec = OpSpec::new(
        "get_license_key",
        "payments",
        "One licence key in full, with the machines it is activated on, read from Lemon Squeezy (audited)",
    )
    .route(Route::get("/api/payments/license-keys/{id}"))
    .errors(&[(404, "not_found: no such licence key")]);
    type Request = IdRequest;
    type Response = LicenseKeyDetailEnvelope;
    async fn run(core: &Core, caller: &Caller, request: IdRequest) -> Result<LicenseKeyDetailEnvelope> {
        Ok(LicenseKeyDetailEnvelope {
            license_key: core.payments.get_license_key(&caller.actor()?, &request.id).await?,
        })
    }
}

pub struct UpdateLicenseKey;
impl Operation for UpdateLicenseKey {
    const SPEC: OpSpec = OpSpec::new(
        "update_license_key",
        "payments",
        "Disables or enables a licence key, or changes its activation limit or expiry",
    )
    .route(Route::patch("/api/payments/license-keys/{id}"))
    .access(Access::Admin)
    .errors(&[
        (404, "not_found: no such licence key"),
        (409, "conflict: the key is already disabled (or, to enable, not disabled)"),
    ]);
    type Request = UpdateLicenseKeyRequest;
    type Response = LicenseKeyEnvelope;
    async fn run(core: &Core, caller: &Caller, request: UpdateLicenseKeyRequest) -> Result<LicenseKeyEnvelope> {
        Ok(LicenseKeyEnvelope { license_key: core.payments.update_license_key(&caller.actor()?, &request).await? })
    }
}

pub struct ListDiscounts;
impl Operation for ListDiscounts {
    const SPEC: OpSpec = OpSpec::new(
        "list_discounts",
        "payments",
        "The store's discount codes, newest first, each with its redemptions, searched by code or name",
    )
    .route(Route::get("/api/payments/discounts"));
    type Request = ListDiscountsRequest;
    type Response = DiscountList;
    async fn run(core: &Core, _: &Caller, request: ListDiscountsRequest) -> Result<DiscountList> {
        core.payments.list_discounts(&request).await
    }
}

pub struct CreateDiscount;
impl Operation for CreateDiscount {
    const SPEC: OpSpec = OpSpec::new("create_discount", "payments", "Makes a discount code at Lemon Squeezy")
        .route(Route::post("/api/payments/discounts").status(201))
        .access(Access::Admin)
        .errors(&[(400, "invalid_request: a field is wrong, the code is in use, or a fixed amount is above a price")]);
    type Request = CreateDiscountRequest;
    type Response = DiscountEnvelope;
    async fn run(core: &Core, caller: &Caller, request: CreateDiscountRequest) -> Result<DiscountEnvelope> {
        Ok(DiscountEnvelope { discount: core.payments.create_discount(&caller.actor()?, &request).await? })
    }
}

pub struct DeleteDiscount;
impl Operation for DeleteDiscount {
    const SPEC: OpSpec = OpSpec::new("delete_discount", "payments", "Deletes a discount code at Lemon Squeezy")
        .route(Route::delete("/api/payments/discounts/{id}").status(204))
        .access(Access::Admin)
        .errors(&[(404, "not_found: no such discount")]);
    type Request = IdRequest;
    type Response = ();
    async fn run(core: &Core, caller: &Caller, request: IdRequest) -> Result<()> {
        core.payments.delete_discount(&caller.actor()?, &request.id).await
    }
}

pub struct ListCustomers;
impl Operation for ListCustomers {
    const SPEC: OpSpec =
        OpSpec::new("list_customers", "payments", "The store's customers, newest first, searched by name or e-mail")
            .route(Route::get("/api/payments/customers"));
    type Request = ListCustomersRequest;
    type Response = CustomerList;
    async fn run(core: &Core, _: &Caller, request: ListCustomersRequest) -> Result<CustomerList> {
        core.payments.list_customers(&request).await
    }
}

pub struct GetCustomer;
impl Operation for GetCustomer {
    const SPEC: OpSpec = OpSpec::new(
        "get_customer",
        "payments",
        "One customer with their revenue, MRR, portal link, newest orders and subscriptions",
    )
    .route(Route::get("/api/payments/customers/{id}"))
    .errors(NOT_FOUND);
    type Request = IdRequest;
    type Response = CustomerEnvelope;
    async fn run(core: &Core, _: &Caller, request: IdRequest) -> Result<CustomerEnvelope> {
        Ok(CustomerEnvelope { customer: core.payments.get_customer(&request.id).await? })
    }
}

pub struct ActOnSubscription;
impl Operation for ActOnSubscription {
    const SPEC: OpSpec = OpSpec::new(
        "act_on_subscription",
        "payments",
        "Cancel, resume, pause, unpause or change the plan of a subscription (202 when the customer must confirm)",
    )
    .route(Route::post("/api/payments/subscriptions/{id}/{action}"))
    .errors(&[
        (202, "the change waits for the customer's confirmation at `pendingConfirmation.url` (PayPal)"),
        (404, "not_found: no such subscription"),
        (409, "conflict: the subscription's state forbids the action (resuming an expired one)"),
    ]);
    type Request = SubscriptionActionRequest;
    type Response = SubscriptionActionResult;
    async fn run(core: &Core, caller: &Caller, request: SubscriptionActionRequest) -> Result<SubscriptionActionResult> {
        core.payments.act_on_subscription(&caller.actor()?, &request.id, request.action()).await
    }
    fn status(response: &SubscriptionActionResult) -> Option<u16> {
        response.pending_confirmation.is_some().then_some(202)
    }
}

pub struct SyncNow;
impl Operation for SyncNow {
    const SPEC: OpSpec =
        OpSpec::new("sync_now", "payments", "Syncs the store's catalogue, orders, customers, subscriptions, invoices and licence keys now, after any sync already running")
            .route(Route::post("/api/payments/sync"));
    type Request = NoInput;
    type Response = SyncReport;
    async fn run(core: &Core, _: &Caller, _: NoInput) -> Result<SyncReport> {
        core.payments.sync_all().await
    }
}

pub struct GetSyncStatus;
impl Operation for GetSyncStatus {
    const SPEC: OpSpec =
        OpSpec::new("sync_status", "payments", "Whether a sync runs, its interval and each resource's last sync")
            .route(Route::get("/api/payments/sync"));
    type Request = NoInput;
    type Response = SyncStatus;
    async fn run(core: &Core, _: &Caller, _: NoInput) -> Result<SyncStatus> {
        core.payments.sync_status().await
    }
}

pub struct SetSyncInterval;
impl Operation for SetSyncInterval {
    const SPEC: OpSpec = OpSpec::new("set_sync_interval", "payments", "Changes the interval between background syncs")
        .route(Route::put("/api/payments/sync"))
        .access(Access::Admin);
    type Request = SyncSettings;
    type Response = SyncStatus;
    async fn run(core: &Core, caller: &Caller, request: SyncSettings) -> Result<SyncStatus> {
        core.payments.set_sync_interval(&caller.actor()?, request.interval_secs).await
    }
}

pub struct ListWebhookEvents;
impl Operation for ListWebhookEvents {
    const SPEC: OpSpec = OpSpec::new(
        "webhook_events",
        "payments",
        "The newest stored webhook deliveries, and whether deliveries are received",
    )
    .route(Route::get("/api/payments/webhooks"));
    type Request = WebhookLogRequest;
    type Response = WebhookLog;
    async fn run(core: &Core, _: &Caller, request: WebhookLogRequest) -> Result<WebhookLog> {
        crate::webhooks::log(core.webhooks.as_ref(), request.limit.unwrap_or(50)).await
    }
}
