//! `/api/payments/*` (except webhooks): products, orders, subscriptions and their actions.
//! Each handler translates; the rules live in `PaymentService`.


use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};

use crate::auth::Actor;
use crate::http::extract::{json_body, query_params as params, PathParam, RawBody, Staff};
use crate::http::ApiError;
use crate::payments::model::{OrderDto, ProductDto};
use crate::payments::sync::{SyncSettings, SyncStatus};
use crate::payments::{
    OrderList, ProductList, SubscriptionAction, SubscriptionActionResult, SubscriptionList, SyncReport,
};
use crate::Core;

pub fn routes() -> Router<Core> {
    Router::new()
        .route("/api/payments/products", get(list_products))
        .route("/api/payments/products/{id}", get(get_product))
        .route("/api/payments/orders", post(create_order).get(list_orders))
        .route("/api/payments/orders/{id}", get(get_order))
        .route("/api/payments/subscriptions", get(list_subscriptions))
        .route("/api/payments/subscriptions/{id}/{action}", post(act_on_subscription))
        .route("/api/payments/sync", post(sync).get(sync_status).put(set_sync_interval))
}

#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct ProductEnvelope {
    product: ProductDto,
}

#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct OrderEnvelope {
    order: OrderDto,
}

#[utoipa::path(get, path = "/api/payments/products", tag = "payments", security(("bearer" = [])),
    params(("page" = Option<u32>, Query), ("limit" = Option<u32>, Query, description = "1 to 100, default 10"),
           ("status" = Option<String>, Query, description = "draft or published"),
           ("search" = Option<String>, Query, description = "part of the name, any case (at most 100 characters)")),
    responses((status = 200, body = ProductList), (status = 400, description = "invalid_request"), (status = 401, description = "unauthorized")))]
pub(crate) async fn list_products(
    State(core): State<Core>,
    _: Staff,
    RawQuery(q): RawQuery,
) -> Result<Json<ProductList>, ApiError> {
    Ok(Json(core.payments.list_products(&params(q)?).await?))
}

#[utoipa::path(get, path = "/api/payments/products/{id}", tag = "payments", security(("bearer" = [])),
    params(("id" = String, Path, description = "the resource's id")),
    responses((status = 200, body = ProductEnvelope), (status = 404, description = "not_found")))]
pub(crate) async fn get_product(
    State(core): State<Core>,
    _: Staff,
    PathParam(id): PathParam<String>,
) -> Result<Json<ProductEnvelope>, ApiError> {
    Ok(Json(ProductEnvelope { product: core.payments.get_product(&id).await? }))
}

#[utoipa::path(post, path = "/api/payments/orders", tag = "payments", security(("bearer" = [])),
    request_body(content = Value, description = "productId, email required; variantId, customerId, name, billingAddress{country,…}, metadata (≤ 50 keys)"),
    responses((status = 201, body = OrderEnvelope), (status = 400, description = "invalid_request naming every bad field")))]
pub(crate) async fn create_order(
    State(core): State<Core>,
    Staff(who): Staff,
    RawBody(body): RawBody,
) -> Result<(StatusCode, Json<OrderEnvelope>), ApiError> {
    let body = json_body(&body)?;
    let order = core.payments.create_order(&Actor::Staff(who), &body).await?;
    Ok((StatusCode::CREATED, Json(OrderEnvelope { order })))
}

#[utoipa::path(get, path = "/api/payments/orders", tag = "payments", security(("bearer" = [])),
    params(("page" = Option<u32>, Query), ("limit" = Option<u32>, Query)),
    responses((status = 200, body = OrderList)))]
pub(crate) async fn list_orders(
    State(core): State<Core>,
    _: Staff,
    RawQuery(q): RawQuery,
) -> Result<Json<OrderList>, ApiError> {
    Ok(Json(core.payments.list_orders(&params(q)?).await?))
}

#[utoipa::path(get, path = "/api/payments/orders/{id}", tag = "payments", security(("bearer" = [])),
    params(("id" = String, Path, description = "the resource's id")),
    responses((status = 200, body = OrderEnvelope), (status = 404, description = "not_found")))]
pub(crate) async fn get_order(
    State(core): State<Core>,
    _: Staff,
    PathParam(id): PathParam<String>,
) -> Result<Json<OrderEnvelope>, ApiError> {
    Ok(Json(OrderEnvelope { order: core.payments.get_order(&id).await? }))
}

#[utoipa::path(get, path = "/api/payments/subscriptions", tag = "payments", security(("bearer" = [])),
    params(("customerId" = Option<String>, Query), ("status" = Option<String>, Query, description = "active, cancelled or expired"),
           ("page" = Option<u32>, Query), ("limit" = Option<u32>, Query)),
    responses((status = 200, body = SubscriptionList), (status = 400, description = "invalid_request")))]
pub(crate) async fn list_subscriptions(
    State(core): State<Core>,
    _: Staff,
    RawQuery(q): RawQuery,
) -> Result<Json<SubscriptionList>, ApiError> {
    Ok(Json(core.payments.list_subscriptions(&params(q)?).await?))
}

#[utoipa::path(post, path = "/api/payments/subscriptions/{id}/{action}", tag = "payments", security(("bearer" = [])),
    params(("id" = String, Path, description = "the resource's id"), ("action" = String, Path, description = "cancel, resume, pause, unpause or change-plan")),
    request_body(content = Value, description = "pause: {mode: void|free, resumesAt?}; change-plan: {variantId}; others: none"),
    responses((status = 200, body = SubscriptionActionResult), (status = 202, body = SubscriptionActionResult, description = "the change waits for the customer's confirmation (pendingConfirmation)"),
              (status = 400, description = "invalid_request"), (status = 404, description = "not_found")))]
pub(crate) async fn act_on_subscription(
    State(core): State<Core>,
    Staff(who): Staff,
    PathParam((id, action)): PathParam<(String, String)>,
    RawBody(body): RawBody,
) -> Result<(StatusCode, Json<SubscriptionActionResult>), ApiError> {
    let action = SubscriptionAction::parse(&action, &json_body(&body)?)?;
    let result = core.payments.act_on_subscription(&Actor::Staff(who), &id, action).await?;
    let status = if result.pending_confirmation.is_some() { StatusCode::ACCEPTED } else { StatusCode::OK };
    Ok((status, Json(result)))
}

#[utoipa::path(post, path = "/api/payments/sync", tag = "payments", security(("bearer" = [])),
    responses((status = 200, body = SyncReport)))]
pub(crate) async fn sync(State(core): State<Core>, _: Staff) -> Result<Json<SyncReport>, ApiError> {
    Ok(Json(core.payments.sync_all().await?))
}

#[utoipa::path(get, path = "/api/payments/sync", tag = "payments", security(("bearer" = [])),
    responses((status = 200, body = SyncStatus), (status = 401, description = "unauthorized")))]
pub(crate) async fn sync_status(State(core): State<Core>, _: Staff) -> Result<Json<SyncStatus>, ApiError> {
    Ok(Json(core.payments.sync_status().await?))
}

/// Changes the interval between background syncs (admins).
#[utoipa::path(put, path = "/api/payments/sync", tag = "payments", security(("bearer" = [])),
    request_body = SyncSettings,
    responses((status = 200, body = SyncStatus), (status = 400, description = "invalid_request"),
              (status = 403, description = "forbidden: for staff who are not admins")))]
pub(crate) async fn set_sync_interval(
    State(core): State<Core>,
    Staff(who): Staff,
    RawBody(body): RawBody,
) -> Result<Json<SyncStatus>, ApiError> {
    let settings: SyncSettings = serde_json::from_value(json_body(&body)?)
        .map_err(|e| crate::Error::invalid_field("body", format!("is not {{\"intervalSecs\": seconds}}: {e}")))?;
    Ok(Json(core.payments.set_sync_interval(&Actor::Staff(who), &settings).await?))
}
