//! How core errors become HTTP answers: one status per code, `WWW-Authenticate` on 401,
//! `Retry-After` on 429, and the auth endpoint's own bodies.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

use staffroom_core::auth::LoginError;
use staffroom_core::error::{Error, ErrorCode};

/// A core error as an HTTP answer of the integration areas: `{"error":{code,message,details?}}`.
#[derive(Debug)]
pub struct ApiError(pub Error);

impl From<Error> for ApiError {
    fn from(err: Error) -> Self {
        ApiError(err)
    }
}

fn add_common_headers(response: &mut Response, code: ErrorCode, retry_after: Option<u64>) {
    let headers = response.headers_mut();
    if code == ErrorCode::Unauthorized {
        headers.insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    }
    if let Some(secs) = retry_after {
        headers.insert(header::RETRY_AFTER, HeaderValue::from(secs));
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let err = self.0;
        let status = StatusCode::from_u16(err.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut response = (status, Json(err.body())).into_response();
        add_common_headers(&mut response, err.code, err.retry_after);
        response
    }
}

/// The auth endpoint's answers (SPEC section 2): `INVALID_CREDENTIALS`, `errors[]`, `RATE_LIMITED`,
/// `INTERNAL`; and `INVALID_TOKEN` for refresh and logout with a dead token.
#[derive(Debug)]
pub struct AuthEndpointError(pub LoginError);

impl From<LoginError> for AuthEndpointError {
    fn from(err: LoginError) -> Self {
        AuthEndpointError(err)
    }
}

impl From<Error> for AuthEndpointError {
    fn from(err: Error) -> Self {
        AuthEndpointError(LoginError::Other(err))
    }
}

impl IntoResponse for AuthEndpointError {
    fn into_response(self) -> Response {
        match self.0 {
            LoginError::InvalidCredentials => (
                StatusCode::UNAUTHORIZED,
                Json(json!({"error": "INVALID_CREDENTIALS", "message": "The email or password is wrong"})),
            )
                .into_response(),
            LoginError::Validation(fields) => {
                (StatusCode::UNPROCESSABLE_ENTITY, Json(json!({ "errors": fields }))).into_response()
            }
            LoginError::Throttled { retry_after } => {
                let mut response = (
                    StatusCode::TOO_MANY_REQUESTS,
                    Json(json!({"error": "RATE_LIMITED", "message": "Too many failed sign-ins; wait before trying again"})),
                )
                    .into_response();
                add_common_headers(&mut response, ErrorCode::RateLimited, Some(retry_after));
                response
            }
            LoginError::Other(err) => match err.code {
                ErrorCode::Unauthorized => {
                    let mut response =
                        (StatusCode::UNAUTHORIZED, Json(json!({"error": "INVALID_TOKEN", "message": err.message})))
                            .into_response();
                    add_common_headers(&mut response, ErrorCode::Unauthorized, None);
                    response
                }
                ErrorCode::RateLimited => {
                    let mut response = (
                        StatusCode::TOO_MANY_REQUESTS,
                        Json(json!({"error": "RATE_LIMITED", "message": err.message})),
                    )
                        .into_response();
                    add_common_headers(&mut response, ErrorCode::RateLimited, err.retry_after);
                    response
                }
                _ => (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    Json(json!({"error": "INTERNAL", "message": "Something went wrong inside Staffroom; the details are in its log"})),
                )
                    .into_response(),
            },
        }
    }
}
