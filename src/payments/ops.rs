//! The payment area's operations: products, orders, subscriptions, the sync and the webhook log.

use serde::Serialize;

use super::model::{OrderDto, ProductDto, ProductStatus, SubscriptionStatus};
use super::sync::{SyncStatus, MAX_INTERVAL, MIN_INTERVAL};
use super::validate::{self, NewOrder};
use super::{OrderList, ProductList, SubscriptionAction, SubscriptionActionResult, SubscriptionList, SyncReport};
use crate::api::{Access, Caller, Fields, Input, NoInput, OpSpec, Operation, Request, Route, MAX_NUMBER};
use crate::error::Result;
use crate::webhooks::WebhookLog;
use crate::Core;

/// Errors of operations on one resource.
const NOT_FOUND: &[(u16, &str)] = &[(404, "not_found: no such resource")];

/// `page` (1 or more) and `limit` (1 to 100) of a list.
fn page_and_limit(fields: &mut Fields) -> (Option<u32>, Option<u32>) {
    (fields.whole_number("page", 1, MAX_NUMBER), fields.whole_number("limit", 1, 100))
}

/// A path id: a provider id (digits) or ours (a UUID).
fn id(fields: &mut Fields) -> String {
    let id = fields.required_string("id").unwrap_or_default();
    if !id.is_empty() && !validate::is_id(id) {
        fields.problem("id", "is not a valid id");
    }
    id.to_string()
}

/// `GET /api/payments/products`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListProductsRequest {
    #[schema(minimum = 1, maximum = 2147483647)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub page: Option<u32>,
    /// Default 10.
    #[schema(minimum = 1, maximum = 100)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub limit: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub status: Option<ProductStatus>,
    /// Part of the name, any case.
    #[schema(max_length = 100, pattern = "^[^\\x00-\\x1f\\x7f-\\x9f]*$")]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub search: Option<String>,
}

impl Request for ListProductsRequest {
    fn from_input(input: &Input) -> Result<Self> {
        let mut fields = Fields::new(input);
        let (page, limit) = page_and_limit(&mut fields);
        let status = fields.choice("status", ProductStatus::NAMES).and_then(ProductStatus::parse);
        let search = fields.string("search").map(str::trim).filter(|s| !s.is_empty());
        if search.is_some_and(|s| s.chars().count() > 100 || s.chars().any(char::is_control)) {
            fields.problem("search", "must be at most 100 characters, without control characters");
        }
        let search = search.map(str::to_owned);
        fields.finish(|| ListProductsRequest { page, limit, status, search })
    }
}

/// A request naming one resource by its `id`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS, utoipa::ToSchema)]
pub struct IdRequest {
    #[schema(pattern = "^[A-Za-z0-9-]{1,64}$")]
    pub id: String,
}

impl Request for IdRequest {
    fn from_input(input: &Input) -> Result<Self> {
        let mut fields = Fields::new(input);
        let id = id(&mut fields);
        fields.finish(|| IdRequest { id })
    }
}

/// `{product}`.
#[derive(Debug, Clone, Serialize, ts_rs::TS, utoipa::ToSchema)]
pub struct ProductEnvelope {
    pub product: ProductDto,
}

/// `{order}`.
#[derive(Debug, Clone, Serialize, ts_rs::TS, utoipa::ToSchema)]
pub struct OrderEnvelope {
    pub order: OrderDto,
}

/// `POST /api/payments/orders/{id}/refund`: all that is left of the order, or `amount` of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS, utoipa::ToSchema)]
pub struct RefundRequest {
    #[schema(pattern = "^[A-Za-z0-9-]{1,64}$")]
    pub id: String,
    /// Cents to refund; all that is left when absent.
    #[schema(minimum = 1, maximum = 2147483647)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub amount: Option<u32>,
}

impl Request for RefundRequest {
    fn from_input(input: &Input) -> Result<Self> {
        let mut fields = Fields::new(input);
        let id = id(&mut fields);
        let amount = fields.whole_number("amount", 1, MAX_NUMBER);
        fields.finish(|| RefundRequest { id, amount })
    }
}

/// `GET /api/payments/orders`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListOrdersRequest {
    #[schema(minimum = 1, maximum = 2147483647)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub page: Option<u32>,
    /// Default 10.
    #[schema(minimum = 1, maximum = 100)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub limit: Option<u32>,
}

impl Request for ListOrdersRequest {
    fn from_input(input: &Input) -> Result<Self> {
        let mut fields = Fields::new(input);
        let (page, limit) = page_and_limit(&mut fields);
        fields.finish(|| ListOrdersRequest { page, limit })
    }
}

/// `GET /api/payments/subscriptions`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListSubscriptionsRequest {
    #[schema(minimum = 1, maximum = 2147483647)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub page: Option<u32>,
    /// Default 10.
    #[schema(minimum = 1, maximum = 100)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub limit: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub status: Option<SubscriptionStatus>,
    /// The provider's customer id.
    #[schema(pattern = "^[A-Za-z0-9_-]{1,64}$")]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub customer_id: Option<String>,
}

impl Request for ListSubscriptionsRequest {
    fn from_input(input: &Input) -> Result<Self> {
        let mut fields = Fields::new(input);
        let (page, limit) = page_and_limit(&mut fields);
        let status = fields.choice("status", SubscriptionStatus::NAMES).and_then(SubscriptionStatus::parse);
        let customer_id = fields.string("customerId").map(str::to_owned);
        if customer_id.as_deref().is_some_and(|id| {
            id.is_empty() || id.len() > 64 || !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        }) {
            fields.problem("customerId", "must be a provider customer id (letters, digits, - or _)");
        }
        fields.finish(|| ListSubscriptionsRequest { page, limit, status, customer_id })
    }
}

/// `POST /api/payments/subscriptions/{id}/{action}`: the action, and what it needs.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionActionRequest {
    #[schema(pattern = "^[A-Za-z0-9-]{1,64}$")]
    pub id: String,
    /// `cancel`, `resume`, `pause`, `unpause` or `change-plan`.
    #[schema(pattern = "^(cancel|resume|pause|unpause|change-plan)$")]
    #[ts(type = "\"cancel\" | \"resume\" | \"pause\" | \"unpause\" | \"change-plan\"")]
    pub action: String,
    /// pause: `void` (default) or `free`.
    #[schema(pattern = "^(void|free)$")]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "\"void\" | \"free\" | null")]
    pub mode: Option<String>,
    /// pause: when it resumes by itself (RFC 3339, in the future).
    #[schema(format = DateTime)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub resumes_at: Option<String>,
    /// change-plan: the new variant.
    #[schema(pattern = "^[0-9]{1,20}$")]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub variant_id: Option<String>,
    /// The action as checked when the request was read.
    #[serde(skip)]
    pub checked: Option<SubscriptionAction>,
}

impl Request for SubscriptionActionRequest {
    fn from_input(input: &Input) -> Result<Self> {
        let mut fields = Fields::new(input);
        let id = id(&mut fields);
        let action = fields.required_string("action").unwrap_or_default().to_string();
        let body = fields.without(&["id", "action"]);
        let checked = fields.take(SubscriptionAction::parse(&action, &body))?;
        let text = |name: &str| body.get(name).and_then(|v| v.as_str()).map(str::to_owned);
        fields.finish(|| SubscriptionActionRequest {
            id,
            action,
            mode: text("mode"),
            resumes_at: text("resumesAt"),
            variant_id: text("variantId"),
            checked,
        })
    }
}

/// `PUT /api/payments/sync`: a new interval between background syncs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SyncSettings {
    #[schema(minimum = 60, maximum = 86400)]
    pub interval_secs: u64,
}

impl Request for SyncSettings {
    fn from_input(input: &Input) -> Result<Self> {
        let mut fields = Fields::new(input);
        fields.only(&["intervalSecs"], "is not a field of this request");
        let (min, max) = (MIN_INTERVAL.as_secs() as u32, MAX_INTERVAL.as_secs() as u32);
        let interval = fields.whole_number("intervalSecs", min, max);
        if interval.is_none() && fields.value("intervalSecs").is_none() {
            fields.problem("intervalSecs", "is required");
        }
        fields.finish(|| SyncSettings { interval_secs: u64::from(interval.unwrap_or(0)) })
    }
}

/// `GET /api/payments/webhooks`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, ts_rs::TS, utoipa::ToSchema)]
pub struct WebhookLogRequest {
    /// Default 50.
    #[schema(minimum = 1, maximum = 500)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub limit: Option<u32>,
}

impl Request for WebhookLogRequest {
    fn from_input(input: &Input) -> Result<Self> {
        let mut fields = Fields::new(input);
        let limit = fields.whole_number("limit", 1, 500);
        fields.finish(|| WebhookLogRequest { limit })
    }
}

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
        OpSpec::new("list_orders", "payments", "Local orders, newest first").route(Route::get("/api/payments/orders"));
    type Request = ListOrdersRequest;
    type Response = OrderList;
    async fn run(core: &Core, _: &Caller, request: ListOrdersRequest) -> Result<OrderList> {
        core.payments.list_orders(&request).await
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
        let action = request.checked.expect("checked when read");
        core.payments.act_on_subscription(&caller.actor()?, &request.id, action).await
    }
    fn status(response: &SubscriptionActionResult) -> Option<u16> {
        response.pending_confirmation.is_some().then_some(202)
    }
}

pub struct SyncNow;
impl Operation for SyncNow {
    const SPEC: OpSpec =
        OpSpec::new("sync_now", "payments", "Syncs products and subscriptions now, after any sync already running")
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
