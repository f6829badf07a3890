//! The HTTP door onto the operations: one route for each operation that has one, all served by
//! the same handler. It reads the caller's token and address, checks who calls, gathers the
//! input (path parameters, then the query string or the JSON body), runs the operation and
//! answers with its status; refusals are the error object, or the sign-in endpoint's own bodies.

use axum::extract::{RawPathParams, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{on, MethodFilter};
use axum::{Json, Router};
use serde_json::Value;

use crate::extract::{query_params, ClientAddress, RawBody};
use crate::response::AuthEndpointError;
use crate::ApiError;
use staffroom_core::api::{self, ErrorStyle, Input, Method, OpEntry, OpTypes, Route};
use staffroom_core::auth::LoginError;
use staffroom_core::error::{Error, ErrorCode, FieldError, Result};
use staffroom_core::Core;

/// Every operation that has a route.
pub fn routes() -> Router<Core> {
    let mut router = Router::new();
    for entry in api::operations() {
        let Some(route) = entry.spec.route else { continue };
        let handler = move |State(core): State<Core>,
                            ClientAddress(address): ClientAddress,
                            path: Result<RawPathParams, axum::extract::rejection::RawPathParamsRejection>,
                            RawQuery(query): RawQuery,
                            headers: HeaderMap,
                            RawBody(body): RawBody| async move {
            let path = path.map_err(|_| Error::invalid_field("path", "is not valid percent-encoded UTF-8"));
            let answer = async {
                let caller = api::authorize(&core, entry, bearer(&headers), &address).await?;
                let input = input(&route, &entry.types, path?, query, &body)?;
                entry.call(&core, &caller, input).await
            }
            .await;
            respond(entry, route, answer)
        };
        router = router.route(route.path, on(filter(route.method), handler));
    }
    router
}

fn filter(method: Method) -> MethodFilter {
    match method {
        Method::Get => MethodFilter::GET,
        Method::Post => MethodFilter::POST,
        Method::Put => MethodFilter::PUT,
        Method::Patch => MethodFilter::PATCH,
        Method::Delete => MethodFilter::DELETE,
    }
}

/// The bearer token of `Authorization`, if any.
pub(crate) fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(axum::http::header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim()).filter(|t| !t.is_empty())
}

/// The operation's input: the query string's parameters (GET, DELETE) or the JSON body's fields
/// (the others), with the path's parameters, which nothing else may repeat.
pub(crate) fn input(route: &Route, types: &OpTypes, path: RawPathParams, query: Option<String>, body: &[u8]) -> Result<Input> {
    let mut input = Input::new();
    if route.method.reads_query() {
        input.extend(types.text_input(query_params(query)?));
    } else if !body.is_empty() {
        match serde_json::from_slice::<Value>(body) {
            Ok(Value::Object(fields)) => input = fields,
            Ok(_) => return Err(Error::invalid_field("body", "must be a JSON object")),
            Err(e) => return Err(Error::invalid_field("body", format!("is not valid JSON: {e}"))),
        }
    }
    let mut repeated = Vec::new();
    for (name, value) in types.text_input(path.iter().map(|(name, value)| (name.to_string(), value.to_string()))) {
        if input.insert(name.clone(), value).is_some() {
            repeated.push(FieldError::new(name, "is given in the path; leave it out of the request"));
        }
    }
    if repeated.is_empty() {
        Ok(input)
    } else {
        Err(Error::invalid(repeated))
    }
}

fn respond(entry: &OpEntry, route: Route, answer: Result<api::Answer>) -> Response {
    match answer {
        Ok(answer) => {
            let status = StatusCode::from_u16(answer.status.unwrap_or(route.status)).unwrap_or(StatusCode::OK);
            if status == StatusCode::NO_CONTENT {
                status.into_response()
            } else {
                (status, Json(answer.body)).into_response()
            }
        }
        Err(error) => {
            if error.code == ErrorCode::Internal {
                tracing::error!(operation = entry.spec.name, message = %error.message, "an operation failed");
            }
            match route.errors {
                ErrorStyle::Standard => ApiError(error).into_response(),
                ErrorStyle::SignIn => AuthEndpointError(sign_in_refusal(error)).into_response(),
                ErrorStyle::Session => AuthEndpointError(LoginError::Other(error)).into_response(),
            }
        }
    }
}

/// A sign-in's refusal as the sign-in endpoint words it (SPEC section 2).
fn sign_in_refusal(error: Error) -> LoginError {
    match error.code {
        ErrorCode::Unauthorized => LoginError::InvalidCredentials,
        ErrorCode::InvalidRequest => LoginError::Validation(
            error
                .details
                .as_ref()
                .and_then(|d| d.get("fields"))
                .and_then(|f| serde_json::from_value(f.clone()).ok())
                .unwrap_or_default(),
        ),
        ErrorCode::RateLimited => LoginError::Throttled { retry_after: error.retry_after.unwrap_or(1) },
        _ => LoginError::Other(error),
    }
}
