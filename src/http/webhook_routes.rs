//! `POST /api/payments/webhooks`: signed by the provider, not by a staff token.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, RawQuery, State};
use axum::http::HeaderMap;
use axum::routing::{get, post};
use axum::{Json, Router};

use crate::error::Error;
use crate::http::extract::Staff;
use crate::http::ApiError;
use crate::webhooks::{InboxEntry, Received, MAX_BODY_BYTES};
use crate::Core;

/// The receiver: signed by the provider, served to tunnels and the desktop's own receiver.
pub fn receiver_routes() -> Router<Core> {
    Router::new().route("/api/payments/webhooks", post(receive).layer(DefaultBodyLimit::max(MAX_BODY_BYTES)))
}

/// The stored deliveries, for staff (behind the browser guard like every other route).
pub fn log_routes() -> Router<Core> {
    Router::new().route("/api/payments/webhooks", get(list))
}

/// `GET /api/payments/webhooks`: the newest stored deliveries.
#[derive(serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebhookLog {
    /// Whether this Staffroom receives deliveries (a usable signing secret is set).
    pub receiving: bool,
    /// Why deliveries are refused, when they are.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    pub events: Vec<InboxEntry>,
}

#[utoipa::path(get, path = "/api/payments/webhooks", tag = "payments", security(("bearer" = [])),
    params(("limit" = Option<u32>, Query, description = "1 to 500, default 50")),
    responses((status = 200, body = WebhookLog), (status = 401, description = "unauthorized")))]
pub(crate) async fn list(
    State(core): State<Core>,
    Staff(_staff): Staff,
    RawQuery(query): RawQuery,
) -> Result<Json<WebhookLog>, ApiError> {
    let query = crate::http::extract::query_params(query)?;
    let limit = match query.get("limit").map(String::as_str) {
        None => 50,
        Some(raw) => raw
            .parse::<u32>()
            .ok()
            .filter(|n| (1..=500).contains(n))
            .ok_or_else(|| Error::invalid_field("limit", "must be a whole number from 1 to 500"))?,
    };
    let Some(receiver) = core.webhooks.as_ref() else {
        return Ok(Json(WebhookLog { receiving: false, problem: None, events: Vec::new() }));
    };
    Ok(Json(WebhookLog {
        receiving: receiver.has_secret(),
        problem: receiver.secret_problem(),
        events: receiver.reader().recent(limit).await?,
    }))
}

#[utoipa::path(post, path = "/api/payments/webhooks", tag = "payments",
    request_body(content = serde_json::Value, description = "A Lemon Squeezy delivery (its own shape or the seed's)"),
    params(("X-Signature" = String, Header, description = "hex HMAC-SHA256 of the raw body with the signing secret")),
    responses(
        (status = 200, body = Received, description = "Stored durably (or already stored: duplicate true)"),
        (status = 400, description = "invalid_request: malformed JSON or payload"),
        (status = 401, description = "unauthorized: missing or wrong signature; nothing stored"),
        (status = 413, description = "payload_too_large: over 256 KiB"),
        (status = 415, description = "unsupported_media_type: not JSON"),
    ))]
pub(crate) async fn receive(
    State(core): State<Core>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Received>, ApiError> {
    let receiver =
        core.webhooks.as_ref().ok_or_else(|| Error::not_found("This Staffroom does not receive webhooks"))?;
    let body = body.map_err(|rejection| super::extract::body_refusal(&rejection, MAX_BODY_BYTES))?;
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let received =
        receiver.receive(&body, header("x-signature"), header("content-type"), header("x-event-name")).await?;
    Ok(Json(received))
}
