//! The Drive v3 and Docs v1 client: bearer token from [`GoogleAuth`] (refreshed once on a 401),
//! retries with Google's backoff on rate limits (403/429 by reason) and server errors, a
//! client-side limit below Docs' 60 writes per minute, time-outs, and Google's error bodies
//! mapped to Staffroom's codes. HTTPS only, except on loopback.

use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::{Duration, Instant};

use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};
use rand::Rng as _;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use super::model::{BatchUpdateResponse, Document, DocumentSummary, FileList, Permission, DOC_MIME};
use super::oauth::{GoogleAuth, PROVIDER};
use crate::config::GoogleEndpoints;
use crate::error::{Error, ErrorCode, Result};
use crate::payments::client::check_base_url;
use crate::provider::Attempt;

/// Time-outs, retries and the write limit.
#[derive(Debug, Clone, Copy)]
pub struct GoogleClientOptions {
    pub connect_timeout: Duration,
    pub request_timeout: Duration,
    pub max_attempts: u32,
    /// No retry starts after this much time since the first attempt.
    pub max_total: Duration,
    /// Docs writes per minute (Google allows 60 per user; stay below).
    pub writes_per_minute: u32,
    /// The first retry waits about this long; each further one doubles (Google's algorithm).
    pub backoff_base: Duration,
}

impl Default for GoogleClientOptions {
    fn default() -> Self {
        GoogleClientOptions {
            connect_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(20),
            max_attempts: 5,
            max_total: Duration::from_secs(30),
            writes_per_minute: 50,
            backoff_base: Duration::from_secs(1),
        }
    }
}

/// Drive fields of a document summary (nested in `files(...)` for lists, as Drive requires).
const SUMMARY_FIELDS: &str = "id,name,mimeType,createdTime,modifiedTime,webViewLink,thumbnailLink";
const PERMISSION_FIELDS: &str = "id,type,role,emailAddress,domain";

/// A Google API client; clones share the connection pool, the token and the write limiter.
#[derive(Clone)]
pub struct GoogleClient {
    http: reqwest::Client,
    drive: url::Url,
    docs: url::Url,
    auth: GoogleAuth,
    writes: Arc<DefaultDirectRateLimiter>,
    options: GoogleClientOptions,
}

fn with_slash(mut url: url::Url) -> url::Url {
    if !url.path().ends_with('/') {
        url.set_path(&format!("{}/", url.path()));
    }
    url
}

impl GoogleClient {
    pub fn new(endpoints: &GoogleEndpoints, auth: GoogleAuth, options: GoogleClientOptions) -> Result<Self> {
        let drive = with_slash(check_base_url(&endpoints.drive_url)?);
        let docs = with_slash(check_base_url(&endpoints.docs_url)?);
        let http = reqwest::Client::builder()
            .connect_timeout(options.connect_timeout)
            .timeout(options.request_timeout)
            .user_agent(concat!("Staffroom/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| Error::internal("http client", e))?;
        let per_minute = options.writes_per_minute.max(1);
        let quota = Quota::with_period(Duration::from_secs(60) / per_minute)
            .expect("a positive period")
            .allow_burst(NonZeroU32::new(per_minute.min(10)).expect("positive"));
        Ok(GoogleClient { http, drive, docs, auth, writes: Arc::new(RateLimiter::direct(quota)), options })
    }

    pub fn auth(&self) -> &GoogleAuth {
        &self.auth
    }

    fn drive_url(&self, path: &str) -> Result<url::Url> {
        self.drive.join(path).map_err(|e| Error::internal("drive url", e))
    }

    fn docs_url(&self, path: &str) -> Result<url::Url> {
        self.docs.join(path).map_err(|e| Error::internal("docs url", e))
    }

    /// Sends one request with retries, the token refresh on a 401, and error mapping.
    async fn send(&self, method: Method, url: url::Url, body: Option<&Value>, is_write: bool) -> Result<Value> {
        let started = Instant::now();
        let mut token = self.auth.access_token().await?;
        let mut refreshed = false;
        let mut attempt = 0;
        loop {
            attempt += 1;
            if is_write {
                self.writes.until_ready().await;
            }
            let mut request = self.http.request(method.clone(), url.clone()).bearer_auth(&token);
            if let Some(body) = body {
                request = request.json(body);
            }
            let outcome = Attempt::send(request).await;
            if let Attempt::Answered(StatusCode::UNAUTHORIZED, _, _) = &outcome {
                if !refreshed {
                    // Refresh once; a second 401 means the sign-in itself is gone.
                    refreshed = true;
                    token = self.auth.refresh_after_rejection(&token).await?;
                    continue;
                }
            }
            let retryable = match &outcome {
                Attempt::Answered(status, body, _) => is_retryable(*status, body),
                Attempt::TimedOut | Attempt::Failed(_) => true,
            };
            if !retryable || attempt >= self.options.max_attempts || started.elapsed() >= self.options.max_total {
                return finish(method.as_str(), url.path(), outcome);
            }
            let hinted = outcome.retry_after();
            // Google's algorithm: 2^n times the base plus up to a second of jitter, capped.
            let exponential = self.options.backoff_base * (1u32 << (attempt - 1).min(5));
            let jitter = self.options.backoff_base.mul_f64(rand::rng().random_range(0.0..1.0));
            let wait = hinted.unwrap_or(exponential + jitter).min(Duration::from_secs(32));
            let left = self.options.max_total.saturating_sub(started.elapsed());
            tracing::debug!(attempt, wait_ms = wait.as_millis() as u64, path = url.path(), "retrying a Google request");
            tokio::time::sleep(wait.min(left)).await;
        }
    }

    /// Drive `files.list` of Google Docs matching `q`.
    pub async fn list_files(
        &self,
        q: &str,
        order_by: &str,
        page_size: u32,
        page_token: Option<&str>,
    ) -> Result<FileList> {
        let mut url = self.drive_url("files")?;
        {
            let mut query = url.query_pairs_mut();
            query.append_pair("q", q);
            query.append_pair("orderBy", order_by);
            query.append_pair("pageSize", &page_size.to_string());
            query.append_pair("fields", &format!("nextPageToken,files({SUMMARY_FIELDS})"));
            query.append_pair("supportsAllDrives", "true");
            query.append_pair("includeItemsFromAllDrives", "true");
            if let Some(token) = page_token {
                query.append_pair("pageToken", token);
            }
        }
        let value = self.send(Method::GET, url, None, false).await.map_err(|e| blame(e, "pageToken"))?;
        parse(value, "a file list")
    }

    /// Drive `files.list` of the folders (id and name), sorted by name.
    pub async fn list_folders(&self) -> Result<Vec<super::model::Folder>> {
        let mut url = self.drive_url("files")?;
        url.query_pairs_mut()
            .append_pair("q", "mimeType = 'application/vnd.google-apps.folder' and trashed = false")
            .append_pair("orderBy", "name")
            .append_pair("pageSize", "200")
            .append_pair("fields", "files(id,name)");
        let list = self.send(Method::GET, url, None, false).await?;
        serde_json::from_value(list.get("files").cloned().unwrap_or_else(|| json!([]))).map_err(|e| {
            Error::integration(PROVIDER, None, format!("Google answered with an unexpected folder list ({e})"))
        })
    }

    /// Drive `files.create` of an empty Google Doc in `folder` (My Drive's root when `None`).
    pub async fn create_document(&self, name: &str, folder: Option<&str>) -> Result<DocumentSummary> {
        let mut url = self.drive_url("files")?;
        url.query_pairs_mut().append_pair("fields", SUMMARY_FIELDS).append_pair("supportsAllDrives", "true");
        let mut body = json!({ "name": name, "mimeType": DOC_MIME });
        if let Some(folder) = folder {
            body["parents"] = json!([folder]);
        }
        let value = self.send(Method::POST, url, Some(&body), false).await.map_err(|e| blame(e, "folderId"))?;
        parse(value, "a created file")
    }

    /// Drive `permissions.create`.
    pub async fn create_permission(
        &self,
        file_id: &str,
        permission: &Permission,
        notify: Option<bool>,
    ) -> Result<Permission> {
        let mut url = self.drive_url(&format!("files/{}/permissions", encode(file_id)))?;
        {
            let mut query = url.query_pairs_mut();
            query.append_pair("fields", PERMISSION_FIELDS).append_pair("supportsAllDrives", "true");
            if permission.role == "owner" {
                // Required as an acknowledgement; the notification cannot be turned off.
                query.append_pair("transferOwnership", "true");
            } else if let (Some(notify), "user" | "group") = (notify, permission.kind.as_str()) {
                query.append_pair("sendNotificationEmail", if notify { "true" } else { "false" });
            }
        }
        let mut body = json!({ "role": permission.role, "type": permission.kind });
        if let Some(email) = &permission.email_address {
            body["emailAddress"] = json!(email);
        }
        if let Some(domain) = &permission.domain {
            body["domain"] = json!(domain);
        }
        let value = self.send(Method::POST, url, Some(&body), false).await.map_err(|e| blame(e, "permissions"))?;
        parse(value, "a permission")
    }

    /// Docs `documents.get`.
    pub async fn get_document(&self, id: &str, view_mode: &str) -> Result<Document> {
        let mut url = self.docs_url(&format!("documents/{}", encode(id)))?;
        url.query_pairs_mut().append_pair("suggestionsViewMode", view_mode);
        parse(self.send(Method::GET, url, None, false).await?, "a document")
    }

    /// Docs `documents.batchUpdate`, with `writeControl.requiredRevisionId` when given.
    pub async fn batch_update(
        &self,
        id: &str,
        requests: &[Value],
        required_revision: Option<&str>,
    ) -> Result<BatchUpdateResponse> {
        let url = self.docs_url(&format!("documents/{}:batchUpdate", encode(id)))?;
        let mut body = json!({ "requests": requests });
        if let Some(revision) = required_revision {
            body["writeControl"] = json!({ "requiredRevisionId": revision });
        }
        let value = self.send(Method::POST, url, Some(&body), true).await.map_err(|e| blame(e, "requests"))?;
        parse(value, "a batch update answer")
    }
}

/// A path segment, percent-encoded (ids are validated, this is defence in depth).
fn encode(segment: &str) -> String {
    url::form_urlencoded::byte_serialize(segment.as_bytes()).collect()
}

/// An `invalid_request` from Google names `field` as the cause.
fn blame(mut error: Error, field: &str) -> Error {
    if error.code == ErrorCode::InvalidRequest {
        if let Some(details) = error.details.as_mut() {
            if let Some(fields) = details.get_mut("fields").and_then(Value::as_array_mut) {
                for f in fields {
                    if f["field"] == "google" {
                        f["field"] = json!(field);
                    }
                }
            }
        }
    }
    error
}

fn parse<T: serde::de::DeserializeOwned>(value: Value, what: &str) -> Result<T> {
    serde_json::from_value(value)
        .map_err(|e| Error::integration(PROVIDER, None, format!("Google answered with an unexpected {what} ({e})")))
}

/// Google's error body: message, reasons (from `errors[]` and `details[]`), and `status`.
#[derive(Debug, Default, PartialEq)]
pub struct GoogleErrorBody {
    pub message: Option<String>,
    pub reasons: Vec<String>,
    pub status: Option<String>,
}

pub fn parse_error_body(body: &[u8]) -> GoogleErrorBody {
    let Ok(value) = serde_json::from_slice::<Value>(body) else { return GoogleErrorBody::default() };
    let error = &value["error"];
    let mut reasons: Vec<String> = Vec::new();
    for list in ["errors", "details"] {
        for item in error[list].as_array().into_iter().flatten() {
            if let Some(reason) = item["reason"].as_str() {
                reasons.push(reason.to_string());
            }
        }
    }
    GoogleErrorBody {
        message: error["message"].as_str().map(str::to_string),
        reasons,
        status: error["status"].as_str().map(str::to_string),
    }
}

const RATE_REASONS: &[&str] =
    &["userRateLimitExceeded", "rateLimitExceeded", "sharingRateLimitExceeded", "RATE_LIMIT_EXCEEDED"];

fn is_rate_limited(status: StatusCode, body: &GoogleErrorBody) -> bool {
    status == StatusCode::TOO_MANY_REQUESTS
        || (status == StatusCode::FORBIDDEN && body.reasons.iter().any(|r| RATE_REASONS.contains(&r.as_str())))
}

fn is_retryable(status: StatusCode, body: &[u8]) -> bool {
    matches!(status.as_u16(), 500 | 502 | 503 | 504) || is_rate_limited(status, &parse_error_body(body))
}

fn finish(method: &str, path: &str, outcome: Attempt) -> Result<Value> {
    match outcome {
        Attempt::Answered(status, body, _) if status.is_success() => {
            if body.is_empty() {
                return Ok(Value::Null);
            }
            serde_json::from_slice(&body).map_err(|_| {
                Error::integration(PROVIDER, Some(status.as_u16()), "Google answered with a body that is not JSON")
            })
        }
        Attempt::Answered(status, body, retry_after) => {
            let parsed = parse_error_body(&body);
            tracing::warn!(method, path, status = status.as_u16(), reasons = ?parsed.reasons, "Google refused a request");
            let message = parsed.message.clone().unwrap_or_else(|| format!("Google answered {}", status.as_u16()));
            let provider = json!({ "provider": PROVIDER, "status": status.as_u16(), "reasons": parsed.reasons });
            Err(if is_rate_limited(status, &parsed) {
                Error::rate_limited(
                    "Google's rate limit was reached; try again shortly",
                    retry_after.unwrap_or(Duration::from_secs(30)),
                )
                .with_details(provider)
            } else if status == StatusCode::BAD_REQUEST && message.contains("required revision ID") {
                Error::conflict("The document changed since it was read; reload it and apply the edits again", None)
            } else {
                match status {
                    StatusCode::UNAUTHORIZED => Error::provider_unauthorized(PROVIDER),
                    StatusCode::FORBIDDEN
                        if parsed.reasons.iter().any(|r| {
                            ["insufficientPermissions", "ACCESS_TOKEN_SCOPE_INSUFFICIENT", "authError"].contains(&r.as_str())
                        }) =>
                    {
                        Error::new(ErrorCode::Unauthorized, "Google did not grant Staffroom access to this; sign in again with the requested permissions")
                            .with_details(provider)
                    }
                    StatusCode::NOT_FOUND => Error::not_found(message).with_details(provider),
                    StatusCode::BAD_REQUEST => {
                        Error::invalid_field("google", format!("Google refused the request: {message}"))
                    }
                    other => Error::integration(PROVIDER, Some(other.as_u16()), format!("Google failed: {message}"))
                        .with_details(provider),
                }
            })
        }
        Attempt::TimedOut => {
            tracing::warn!(method, path, "Google timed out");
            Err(Error::provider_timeout(PROVIDER))
        }
        Attempt::Failed(reason) => {
            tracing::warn!(method, path, %reason, "Google unreachable");
            Err(Error::integration(PROVIDER, None, "Google could not be reached"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answered(status: u16, body: &str) -> Attempt {
        Attempt::Answered(StatusCode::from_u16(status).unwrap(), body.as_bytes().to_vec(), None)
    }

    #[test]
    fn reads_reasons_from_errors_and_details() {
        let body = br#"{"error":{"code":403,"message":"m","errors":[{"reason":"userRateLimitExceeded"}],"details":[{"@type":"x","reason":"ACCESS_TOKEN_SCOPE_INSUFFICIENT"}]}}"#;
        let parsed = parse_error_body(body);
        assert_eq!(parsed.reasons, vec!["userRateLimitExceeded", "ACCESS_TOKEN_SCOPE_INSUFFICIENT"]);
        assert!(is_retryable(StatusCode::FORBIDDEN, body));
        assert!(!is_retryable(StatusCode::FORBIDDEN, br#"{"error":{"errors":[{"reason":"dailyLimitExceeded"}]}}"#));
        assert!(is_retryable(StatusCode::SERVICE_UNAVAILABLE, b""));
    }

    #[test]
    fn maps_google_errors_to_our_codes() {
        let stale = r#"{"error":{"code":400,"message":"The required revision ID 'x' does not match the latest revision.","status":"FAILED_PRECONDITION"}}"#;
        assert_eq!(finish("POST", "/", answered(400, stale)).unwrap_err().status(), 409);
        let missing = r#"{"error":{"code":404,"message":"File not found: x.","errors":[{"reason":"notFound"}]}}"#;
        assert_eq!(finish("GET", "/", answered(404, missing)).unwrap_err().status(), 404);
        assert_eq!(finish("GET", "/", answered(429, "{}")).unwrap_err().status(), 429);
        assert_eq!(finish("GET", "/", answered(401, "{}")).unwrap_err().status(), 401);
        let scope = r#"{"error":{"code":403,"errors":[{"reason":"insufficientPermissions"}]}}"#;
        assert_eq!(finish("GET", "/", answered(403, scope)).unwrap_err().status(), 401);
        let policy = r#"{"error":{"code":403,"message":"no","errors":[{"reason":"shareOutNotPermitted"}]}}"#;
        assert_eq!(finish("GET", "/", answered(403, policy)).unwrap_err().status(), 502);
        assert_eq!(
            finish("GET", "/", answered(400, r#"{"error":{"message":"bad index"}}"#)).unwrap_err().status(),
            400
        );
        assert_eq!(finish("GET", "/", answered(503, "<html>")).unwrap_err().status(), 502);
        assert_eq!(finish("GET", "/", Attempt::TimedOut).unwrap_err().status(), 504);
        assert_eq!(finish("GET", "/", answered(200, "nope")).unwrap_err().code, ErrorCode::IntegrationError);
    }
}
