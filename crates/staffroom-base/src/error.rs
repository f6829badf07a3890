//! One error type for every door: stable codes, one HTTP status per code, and a JSON body that
//! the HTTP service and the desktop commands share (SPEC section 2).

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// The stable error codes of the integration areas (the seed's five, plus `forbidden`, `conflict`
/// and `internal`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    Unauthorized,
    NotFound,
    InvalidRequest,
    /// Signed in, but not allowed: an admin-only operation called by staff, or the provider
    /// refusing this user access to one resource. Never answered from a cache.
    Forbidden,
    Conflict,
    RateLimited,
    IntegrationError,
    /// A wrong HTTP method on a known route (405).
    MethodNotAllowed,
    /// A body too large for the route (413).
    PayloadTooLarge,
    /// A body that is not JSON where JSON is required (415).
    UnsupportedMediaType,
    /// A request for a host name this service does not answer to (421): a browser page that
    /// reached it through DNS rebinding, or a misrouted proxy.
    MisdirectedRequest,
    /// The service cannot do this until an admin fixes its set-up (503), e.g. the webhook
    /// receiver without a usable signing secret.
    Unavailable,
    /// Something failed inside Staffroom; the details are in the logs, never in the answer.
    Internal,
}

impl ErrorCode {
    /// The one HTTP status of this code (`IntegrationError` is 504 instead when the provider timed out).
    pub fn status(self) -> u16 {
        match self {
            ErrorCode::Unauthorized => 401,
            ErrorCode::NotFound => 404,
            ErrorCode::InvalidRequest => 400,
            ErrorCode::Forbidden => 403,
            ErrorCode::Conflict => 409,
            ErrorCode::RateLimited => 429,
            ErrorCode::IntegrationError => 502,
            ErrorCode::MethodNotAllowed => 405,
            ErrorCode::PayloadTooLarge => 413,
            ErrorCode::UnsupportedMediaType => 415,
            ErrorCode::MisdirectedRequest => 421,
            ErrorCode::Unavailable => 503,
            ErrorCode::Internal => 500,
        }
    }

    /// The code as it appears on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::Unauthorized => "unauthorized",
            ErrorCode::NotFound => "not_found",
            ErrorCode::InvalidRequest => "invalid_request",
            ErrorCode::Forbidden => "forbidden",
            ErrorCode::Conflict => "conflict",
            ErrorCode::RateLimited => "rate_limited",
            ErrorCode::IntegrationError => "integration_error",
            ErrorCode::MethodNotAllowed => "method_not_allowed",
            ErrorCode::PayloadTooLarge => "payload_too_large",
            ErrorCode::UnsupportedMediaType => "unsupported_media_type",
            ErrorCode::MisdirectedRequest => "misdirected_request",
            ErrorCode::Unavailable => "unavailable",
            ErrorCode::Internal => "internal",
        }
    }
}

/// One bad input field, named so a form can point at it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
pub struct FieldError {
    pub field: String,
    pub message: String,
}

impl FieldError {
    /// A field error from anything string-like.
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        FieldError { field: field.into(), message: message.into() }
    }
}

/// The error every core service returns and every door shows: `{"error":{code,message,details?}}`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{code:?}: {message}")]
pub struct Error {
    pub code: ErrorCode,
    pub message: String,
    pub details: Option<Value>,
    /// Seconds the caller should wait (429 `Retry-After`).
    pub retry_after: Option<u64>,
    /// The provider timed out: `integration_error` answers 504 rather than 502.
    pub timed_out: bool,
}

/// Results of the core.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The error object on the wire (`error` of an HTTP body, what a desktop command rejects with).
/// [`Error`] serializes through it, so its TypeScript type cannot drift from the JSON.
#[derive(Serialize, ts_rs::TS)]
pub struct ErrorObject<'a> {
    code: ErrorCode,
    message: &'a str,
    /// Free-form facts by code: `fields` (a list of [`FieldError`]) for `invalid_request`,
    /// `provider` and `status` for provider failures, `currentRevisionId` for a conflict.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "unknown")]
    details: Option<&'a Value>,
}

impl Error {
    /// An error with a code and a human sentence.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Error { code, message: message.into(), details: None, retry_after: None, timed_out: false }
    }

    /// Attaches the free-form `details` object.
    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }

    /// Missing, invalid, expired or revoked staff token.
    pub fn unauthorized(message: impl Into<String>) -> Self {
        Error::new(ErrorCode::Unauthorized, message)
    }

    /// The provider rejected the stored credentials.
    pub fn provider_unauthorized(provider: &str) -> Self {
        Error::new(
            ErrorCode::Unauthorized,
            format!("{provider} rejected the stored credentials; an admin must update them in Settings"),
        )
        .with_details(json!({ "provider": provider }))
    }

    /// The provider refuses this user access to one resource (`details.provider`, `details.reason`).
    pub fn provider_forbidden(provider: &str, reason: Option<&str>, message: impl Into<String>) -> Self {
        Error::new(ErrorCode::Forbidden, message).with_details(json!({ "provider": provider, "reason": reason }))
    }

    /// No such resource, locally or at the provider.
    pub fn not_found(message: impl Into<String>) -> Self {
        Error::new(ErrorCode::NotFound, message)
    }

    /// Bad input, naming every bad field.
    pub fn invalid(fields: Vec<FieldError>) -> Self {
        let message = match fields.as_slice() {
            [one] => format!("{}: {}", one.field, one.message),
            many => format!("{} fields are invalid", many.len()),
        };
        Error::new(ErrorCode::InvalidRequest, message).with_details(json!({ "fields": fields }))
    }

    /// Bad input in one field.
    pub fn invalid_field(field: impl Into<String>, message: impl Into<String>) -> Self {
        Error::invalid(vec![FieldError::new(field, message)])
    }

    /// A document edit against a stale revision.
    pub fn conflict(message: impl Into<String>, current_revision_id: Option<String>) -> Self {
        let err = Error::new(ErrorCode::Conflict, message);
        match current_revision_id {
            Some(rev) => err.with_details(json!({ "currentRevisionId": rev })),
            None => err,
        }
    }

    /// Too many requests; try again after `retry_after`.
    pub fn rate_limited(message: impl Into<String>, retry_after: Duration) -> Self {
        let mut err = Error::new(ErrorCode::RateLimited, message);
        err.retry_after = Some(retry_after.as_secs().max(1));
        err
    }

    /// The provider failed or answered nonsense (`status` is the provider's HTTP status, if any).
    pub fn integration(provider: &str, status: Option<u16>, message: impl Into<String>) -> Self {
        Error::new(ErrorCode::IntegrationError, message).with_details(json!({ "provider": provider, "status": status }))
    }

    /// The provider did not answer in time (504).
    pub fn provider_timeout(provider: &str) -> Self {
        let mut err = Error::integration(provider, None, format!("{provider} did not answer in time"));
        err.timed_out = true;
        err
    }

    /// An internal failure: logged in full here, shown to the caller as a plain sentence.
    pub fn internal(context: &str, source: impl std::fmt::Display) -> Self {
        tracing::error!(context, error = %source, "internal error");
        Error::new(ErrorCode::Internal, "Something went wrong inside Staffroom; the details are in its log")
    }

    /// The HTTP status of this error.
    pub fn status(&self) -> u16 {
        if self.code == ErrorCode::IntegrationError && self.timed_out {
            504
        } else {
            self.code.status()
        }
    }

    /// Whether this means a provider cannot be answering now (down, slow, limiting us): reads
    /// then fall back to what was kept from it.
    pub fn is_provider_unreachable(&self) -> bool {
        matches!(self.code, ErrorCode::IntegrationError | ErrorCode::RateLimited)
    }

    /// The JSON body: `{"error":{"code","message","details"?}}`.
    pub fn body(&self) -> Value {
        json!({ "error": self.wire() })
    }

    /// The error object alone (what a desktop command rejects with).
    pub fn object(&self) -> Value {
        json!(self.wire())
    }

    fn wire(&self) -> ErrorObject<'_> {
        ErrorObject { code: self.code, message: &self.message, details: self.details.as_ref() }
    }
}

impl Serialize for Error {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        self.wire().serialize(serializer)
    }
}

impl From<tokio::task::JoinError> for Error {
    fn from(err: tokio::task::JoinError) -> Self {
        Error::internal("background task", err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_code_has_its_status_and_body() {
        let cases = [
            (Error::unauthorized("no token"), 401, json!({"error":{"code":"unauthorized","message":"no token"}})),
            (
                Error::not_found("no such product"),
                404,
                json!({"error":{"code":"not_found","message":"no such product"}}),
            ),
            (
                Error::invalid(vec![
                    FieldError::new("limit", "must be 1 to 100"),
                    FieldError::new("page", "must be at least 1"),
                ]),
                400,
                json!({"error":{"code":"invalid_request","message":"2 fields are invalid","details":{"fields":[
                    {"field":"limit","message":"must be 1 to 100"},{"field":"page","message":"must be at least 1"}]}}}),
            ),
            (
                Error::conflict("stale revision", Some("rev-2".into())),
                409,
                json!({"error":{"code":"conflict","message":"stale revision","details":{"currentRevisionId":"rev-2"}}}),
            ),
            (
                Error::rate_limited("slow down", Duration::from_secs(30)),
                429,
                json!({"error":{"code":"rate_limited","message":"slow down"}}),
            ),
            (
                Error::integration("lemonsqueezy", Some(500), "provider failed"),
                502,
                json!({"error":{"code":"integration_error","message":"provider failed","details":{"provider":"lemonsqueezy","status":500}}}),
            ),
            (
                Error::provider_timeout("google"),
                504,
                json!({"error":{"code":"integration_error","message":"google did not answer in time","details":{"provider":"google","status":null}}}),
            ),
            (
                Error::provider_unauthorized("lemonsqueezy"),
                401,
                json!({"error":{"code":"unauthorized","message":"lemonsqueezy rejected the stored credentials; an admin must update them in Settings","details":{"provider":"lemonsqueezy"}}}),
            ),
        ];
        for (err, status, body) in cases {
            assert_eq!(err.status(), status, "{err:?}");
            assert_eq!(err.body(), body);
            assert_eq!(serde_json::to_value(&err).unwrap(), body["error"]);
        }
    }

    #[test]
    fn rate_limited_carries_retry_after_of_at_least_one_second() {
        assert_eq!(Error::rate_limited("x", Duration::from_millis(10)).retry_after, Some(1));
        assert_eq!(Error::rate_limited("x", Duration::from_secs(90)).retry_after, Some(90));
    }

    #[test]
    fn internal_errors_leak_nothing() {
        let err = Error::internal("db", "disk I/O error at /secret/path");
        assert_eq!(err.status(), 500);
        assert!(!err.body().to_string().contains("/secret/path"));
    }
}
