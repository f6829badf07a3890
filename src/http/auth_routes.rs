//! `POST /api/auth`, `/api/auth/refresh`, `/api/auth/logout`.


use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::Value;

use crate::auth::{AuthResponse, LoginError, UserDto};
use crate::error::FieldError;
use crate::http::extract::{BearerToken, ClientAddress, RawBody, Staff};
use crate::http::response::AuthEndpointError;
use crate::Core;

pub fn routes() -> Router<Core> {
    Router::new()
        .route("/api/auth", post(login))
        .route("/api/auth/refresh", post(refresh))
        .route("/api/auth/logout", post(logout))
        .route("/api/auth/me", get(me))
}

/// `GET /api/auth/me`: the signed-in staff member.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct MeResponse {
    user: UserDto,
}

#[utoipa::path(get, path = "/api/auth/me", tag = "auth", security(("bearer" = [])), responses(
    (status = 200, body = MeResponse),
    (status = 401, description = "unauthorized: missing, invalid, expired or revoked token"),
))]
pub(crate) async fn me(Staff(who): Staff) -> Json<MeResponse> {
    Json(MeResponse { user: UserDto::from(&who) })
}

/// The sign-in body, for the OpenAPI document (the handler validates raw JSON itself so that it
/// can name every bad field).
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct AuthRequest {
    email: String,
    password: String,
}

#[utoipa::path(post, path = "/api/auth", tag = "auth", request_body = AuthRequest, responses(
    (status = 200, body = AuthResponse),
    (status = 401, description = "INVALID_CREDENTIALS"),
    (status = 422, description = "errors[] naming each bad field"),
    (status = 429, description = "RATE_LIMITED, with Retry-After"),
))]
pub(crate) async fn login(
    State(core): State<Core>,
    ClientAddress(address): ClientAddress,
    RawBody(body): RawBody,
) -> Result<Json<AuthResponse>, AuthEndpointError> {
    let body: Value = serde_json::from_slice(&body).map_err(|_| {
        LoginError::Validation(vec![FieldError::new("body", "must be a JSON object with email and password")])
    })?;
    Ok(Json(core.auth.login_json(&body, &address).await?))
}

#[utoipa::path(post, path = "/api/auth/refresh", tag = "auth", security(("bearer" = [])), responses(
    (status = 200, body = AuthResponse),
    (status = 401, description = "INVALID_TOKEN: the session has ended"),
))]
pub(crate) async fn refresh(
    State(core): State<Core>,
    BearerToken(token): BearerToken,
) -> Result<Json<AuthResponse>, AuthEndpointError> {
    Ok(Json(core.auth.refresh(&token).await?))
}

#[utoipa::path(post, path = "/api/auth/logout", tag = "auth", security(("bearer" = [])), responses(
    (status = 204, description = "The session has ended"),
    (status = 401, description = "INVALID_TOKEN"),
))]
pub(crate) async fn logout(
    State(core): State<Core>,
    BearerToken(token): BearerToken,
) -> Result<StatusCode, AuthEndpointError> {
    core.auth.logout(&token).await?;
    Ok(StatusCode::NO_CONTENT)
}
