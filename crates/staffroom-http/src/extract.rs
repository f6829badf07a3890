//! Extractors of the HTTP door: the client's address, the raw body (refused as the error object
//! when too large or too slow), and query parameters (each given once).

use std::collections::HashMap;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;

use crate::ApiError;
use staffroom_core::error::{Error, ErrorCode};
use staffroom_core::Core;

/// The client's address (see [`crate::guard::client_address`]), for throttling sign-ins.
pub struct ClientAddress(pub String);

impl FromRequestParts<Core> for ClientAddress {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, core: &Core) -> Result<Self, Self::Rejection> {
        let peer = parts.extensions.get::<axum::extract::ConnectInfo<std::net::SocketAddr>>().map(|c| c.0.ip());
        let forwarded = parts.headers.get("x-forwarded-for").and_then(|v| v.to_str().ok());
        Ok(ClientAddress(crate::guard::client_address(peer, forwarded, &core.config.http.trusted_proxies)))
    }
}

/// A request's raw body. One that is too large, or stops arriving before the body time-out, is
/// refused with the error object like any other bad input.
pub struct RawBody(pub Bytes);

impl<S: Send + Sync> FromRequest<S> for RawBody {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, Self::Rejection> {
        Bytes::from_request(request, state)
            .await
            .map(RawBody)
            .map_err(|rejection| ApiError(body_refusal(&rejection, crate::MAX_BODY_BYTES)))
    }
}

/// Why a body could not be read, for a route whose bodies may be `limit` bytes.
pub fn body_refusal(rejection: &BytesRejection, limit: usize) -> Error {
    if rejection.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
        Error::new(ErrorCode::PayloadTooLarge, format!("Request bodies are limited to {} KiB", limit / 1024))
    } else {
        Error::invalid_field(
            "body",
            format!(
                "could not be read in full: it stopped arriving, or took longer than {} s",
                crate::BODY_READ_TIMEOUT.as_secs()
            ),
        )
    }
}

/// Query parameters as a map; a parameter given twice is refused (which one was meant cannot be
/// known), anything else is left to validation, which names every bad field.
pub fn query_params(query: Option<String>) -> Result<HashMap<String, String>, Error> {
    let mut params = HashMap::new();
    let mut repeated = Vec::new();
    for (name, value) in url::form_urlencoded::parse(query.unwrap_or_default().as_bytes()).into_owned() {
        if params.contains_key(&name) {
            if !repeated.iter().any(|f: &staffroom_core::error::FieldError| f.field == name) {
                repeated.push(staffroom_core::error::FieldError::new(name.clone(), "is given more than once"));
            }
        } else {
            params.insert(name, value);
        }
    }
    if repeated.is_empty() {
        Ok(params)
    } else {
        Err(Error::invalid(repeated))
    }
}
