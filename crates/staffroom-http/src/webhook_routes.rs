//! `POST /api/payments/webhooks`: signed by the provider, not by a staff token.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};

use crate::ApiError;
use staffroom_core::error::{Error, ErrorCode, Result};
use staffroom_core::webhooks::{Received, MAX_BODY_BYTES};
use staffroom_core::Core;

/// The receiver: signed by the provider, served to tunnels and the desktop's own receiver.
pub fn receiver_routes() -> Router<Core> {
    Router::new().route("/api/payments/webhooks", post(receive).layer(DefaultBodyLimit::max(MAX_BODY_BYTES)))
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
) -> Response {
    match receive_checked(&core, &headers, body).await {
        Ok(received) => Json(received).into_response(),
        // A refused signature (or no secret to check it with) is counted into the refusal
        // summary, the receiver's; logged one by one, a flood of forged deliveries would push
        // every other line out of the log.
        Err(refused) if matches!(refused.code, ErrorCode::Unauthorized | ErrorCode::Unavailable) => {
            let mut response = ApiError(refused).into_response();
            response.extensions_mut().insert(crate::Quiet);
            response
        }
        Err(refused) => ApiError(refused).into_response(),
    }
}

async fn receive_checked(core: &Core, headers: &HeaderMap, body: Result<Bytes, BytesRejection>) -> Result<Received> {
    let receiver =
        core.webhooks.as_ref().ok_or_else(|| Error::not_found("This Staffroom does not receive webhooks"))?;
    let body = body.map_err(|rejection| super::extract::body_refusal(&rejection, MAX_BODY_BYTES))?;
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    receiver.receive(&body, header("x-signature"), header("content-type"), header("x-event-name")).await
}
