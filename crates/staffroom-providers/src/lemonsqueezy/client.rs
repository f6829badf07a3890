//! The Lemon Squeezy API v1 client: JSON:API headers, bearer key, one shared client-side rate
//! limiter (bulk reads take at most three quarters of it), the shared retry policy (creates are
//! never replayed blindly), time-outs, and the provider's errors mapped to Staffroom's codes.
//! HTTPS only, except on loopback.

use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};
use reqwest::{Method, StatusCode};
use serde_json::Value;

use super::jsonapi::{Document, Resource};
pub use crate::retry::check_base_url;
use crate::retry::{Answer, Attempt, Replay, Retries, RetryPolicy};
use staffroom_base::error::{Error, ErrorCode, Result};
use staffroom_base::secrets::Secrets;

/// The provider's name in error details.
pub const PROVIDER: &str = "lemonsqueezy";
/// The real API.
pub const DEFAULT_BASE_URL: &str = "https://api.lemonsqueezy.com/v1";
const MEDIA_TYPE: &str = "application/vnd.api+json";

/// The client-side limit: `requests` per `period` with at most `burst` at once. The default,
/// 240/min with bursts of 50, keeps any 60-second window under the provider's 300.
#[derive(Debug, Clone, Copy)]
pub struct RateLimit {
    pub requests: u32,
    pub period: Duration,
    pub burst: u32,
}

impl Default for RateLimit {
    fn default() -> Self {
        RateLimit { requests: 240, period: Duration::from_secs(60), burst: 50 }
    }
}

/// `requests` per `period`, at most `burst` at once (each at least 1).
fn quota(requests: u32, period: Duration, burst: u32) -> Quota {
    Quota::with_period(period / requests.max(1))
        .expect("a positive period")
        .allow_burst(NonZeroU32::new(burst.max(1)).expect("positive"))
}

/// Time-outs and retries.
#[derive(Debug, Clone, Copy)]
pub struct ClientOptions {
    pub connect_timeout: Duration,
    /// For one attempt, from sending to the whole answer.
    pub request_timeout: Duration,
    pub retry: RetryPolicy,
    pub rate_limit: RateLimit,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            connect_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(15),
            retry: RetryPolicy {
                max_attempts: 5,
                max_total: Duration::from_secs(30),
                backoff_base: Duration::from_millis(200),
                max_wait: Duration::from_secs(10),
            },
            rate_limit: RateLimit::default(),
        }
    }
}

/// A Lemon Squeezy client; clones share the connection pool and the rate limiters.
#[derive(Clone)]
pub struct LemonSqueezyClient {
    http: reqwest::Client,
    base: url::Url,
    secrets: Secrets,
    /// A key to use instead of the stored one: one being checked before it is stored.
    key: Option<staffroom_base::secrets::Secret>,
    /// Every request waits on this one: `options.rate_limit` (by default 240 a minute, bursts of
    /// 50, under the provider's 300 a minute).
    limiter: Arc<DefaultDirectRateLimiter>,
    /// A [`LemonSqueezyClient::for_bulk_reads`] handle's requests wait on this one first: three
    /// quarters of the rate and of the burst (180 a minute, bursts of 37), so 13 requests at once
    /// and 60 a minute are always left for others. (A limit of 1 leaves no share.)
    bulk_limiter: Arc<DefaultDirectRateLimiter>,
    /// Whether this handle's requests are bulk reads.
    is_bulk: bool,
    options: ClientOptions,
}

impl LemonSqueezyClient {
    /// A client for `base_url`, reading the API key from `secrets` (`lemonsqueezy_api_key`).
    pub fn new(base_url: &str, secrets: Secrets, options: ClientOptions) -> Result<Self> {
        let mut base = check_base_url(base_url)?;
        if !base.path().ends_with('/') {
            base.set_path(&format!("{}/", base.path()));
        }
        let http = reqwest::Client::builder()
            .connect_timeout(options.connect_timeout)
            .timeout(options.request_timeout)
            .user_agent(concat!("Staffroom/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| Error::internal("http client", e))?;
        let RateLimit { requests, period, burst } = options.rate_limit;
        let three_quarters = |n: u32| (u64::from(n) * 3 / 4) as u32;
        let limiter = Arc::new(RateLimiter::direct(quota(requests, period, burst)));
        let bulk_limiter =
            Arc::new(RateLimiter::direct(quota(three_quarters(requests), period, three_quarters(burst))));
        Ok(LemonSqueezyClient { http, base, secrets, key: None, limiter, bulk_limiter, is_bulk: false, options })
    }

    /// The same client for bulk reads (a whole sync, a whole list): its requests also wait for
    /// the bulk share of the rate, so they never take the last quarter of it. Only reads are
    /// made through such a handle; a write would wait for the share too.
    pub fn for_bulk_reads(&self) -> Self {
        LemonSqueezyClient { is_bulk: true, ..self.clone() }
    }

    /// The same client asking with `key` rather than the stored key (a key being checked).
    pub fn with_key(&self, key: staffroom_base::secrets::Secret) -> Self {
        LemonSqueezyClient { key: Some(key), ..self.clone() }
    }

    fn url(&self, path: &str) -> Result<url::Url> {
        self.base.join(path.trim_start_matches('/')).map_err(|e| Error::internal("provider url", e))
    }

    /// Follow-up URLs from the provider (`links.next`) must point at the same origin: the API
    /// key never goes anywhere else.
    fn same_origin(&self, url: &url::Url) -> bool {
        url.scheme() == self.base.scheme()
            && url.host() == self.base.host()
            && url.port_or_known_default() == self.base.port_or_known_default()
    }

    async fn key(&self) -> Result<String> {
        if let Some(key) = &self.key {
            return Ok(key.expose().to_string());
        }
        let key = self.secrets.read("lemonsqueezy_api_key").await?;
        key.map(|k| k.expose().to_string()).ok_or_else(|| {
            Error::new(ErrorCode::Unauthorized, "No Lemon Squeezy API key is set; an admin must add it in Settings")
                .with_details(serde_json::json!({ "provider": PROVIDER }))
        })
    }

    /// Sends one request with the limiter, retries and error mapping; returns the JSON body.
    /// An `Unsafe` request is replayed only when the provider surely did nothing with it.
    async fn send(&self, method: Method, url: url::Url, body: Option<&Value>, replay: Replay) -> Result<Value> {
        let key = self.key().await?;
        let mut retries = Retries::start(self.options.retry, replay);
        loop {
            // The bulk share first: a bulk request never holds a shared cell while it waits.
            if self.is_bulk {
                self.bulk_limiter.until_ready().await;
            }
            self.limiter.until_ready().await;
            // The API asks for the JSON:API media type in both headers on every request.
            let mut request = self
                .http
                .request(method.clone(), url.clone())
                .bearer_auth(&key)
                .header("accept", MEDIA_TYPE)
                .header("content-type", MEDIA_TYPE);
            if let Some(body) = body {
                request = request.body(serde_json::to_vec(body).expect("JSON serializes"));
            }
            let outcome = Attempt::send(request).await;
            let answer = match &outcome {
                Attempt::Answered(StatusCode::TOO_MANY_REQUESTS, _, _) => Answer::RateLimited,
                Attempt::Answered(status, _, _) if status.is_server_error() => Answer::ServerError,
                _ => Answer::Final,
            };
            let Some(wait) = retries.next_wait(&outcome, answer) else {
                return finish(method.as_str(), url.path(), outcome);
            };
            tracing::debug!(
                attempt = retries.attempts(),
                wait_ms = wait.as_millis() as u64,
                path = url.path(),
                "retrying a provider request"
            );
            tokio::time::sleep(wait).await;
        }
    }

    /// `GET` one document.
    pub async fn get(&self, path: &str, query: &[(&str, String)]) -> Result<Document> {
        let mut url = self.url(path)?;
        if !query.is_empty() {
            url.query_pairs_mut().extend_pairs(query.iter().map(|(k, v)| (*k, v.as_str())));
        }
        parse_document(self.send(Method::GET, url, None, Replay::Safe).await?)
    }

    /// Every resource of a list, following `links.next`; also returns how many pages it took.
    pub async fn get_all(&self, path: &str, query: &[(&str, String)]) -> Result<(Vec<Resource>, u32)> {
        self.get_all_observed(path, query, |_, _| {}).await
    }

    /// `get_all`, telling `on_page` after each page how many are read and how many there are.
    pub async fn get_all_observed(
        &self,
        path: &str,
        query: &[(&str, String)],
        on_page: impl Fn(u32, Option<u32>),
    ) -> Result<(Vec<Resource>, u32)> {
        let mut pages = self.pages(path, query);
        let mut resources = Vec::new();
        while let Some(page) = pages.next().await? {
            resources.extend(page);
            on_page(pages.read, pages.total.map(|t| t.max(pages.read)));
        }
        Ok((resources, pages.read))
    }

    /// A list read 100 at a time, following `links.next`, for a caller that may stop early.
    pub fn pages<'a>(&'a self, path: &'a str, query: &[(&str, String)]) -> Pages<'a> {
        let mut query: Vec<(String, String)> = query.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
        query.push(("page[size]".into(), "100".into()));
        Pages { client: self, first: Some((path, query)), next: None, read: 0, total: None }
    }

    /// `GET` one resource.
    pub async fn get_one(&self, path: &str) -> Result<Resource> {
        self.get(path, &[]).await?.resource()
    }

    /// `POST` a document once, returning the created resource. A failure that leaves the outcome
    /// unknown (a time-out, a 5xx) is not replayed: the caller looks for what was made first.
    pub async fn post_once(&self, path: &str, body: &Value) -> Result<Resource> {
        parse_document(self.send(Method::POST, self.url(path)?, Some(body), Replay::Unsafe).await?)?.resource()
    }

    /// `PATCH` a resource: the same attributes set twice land once, so it may be replayed.
    pub async fn patch(&self, path: &str, body: &Value) -> Result<Resource> {
        parse_document(self.send(Method::PATCH, self.url(path)?, Some(body), Replay::Safe).await?)?.resource()
    }

    /// `DELETE` a resource that answers `204 No Content` (discounts). Not replayed: a second
    /// delete of what the first removed would answer 404.
    pub async fn delete_nothing(&self, path: &str) -> Result<()> {
        self.send(Method::DELETE, self.url(path)?, None, Replay::Unsafe).await.map(|_| ())
    }

    /// `DELETE` a resource that answers with its new state (subscriptions do); cancelling twice
    /// cancels once.
    pub async fn delete(&self, path: &str) -> Result<Resource> {
        parse_document(self.send(Method::DELETE, self.url(path)?, None, Replay::Safe).await?)?.resource()
    }
}

fn bad_answer(what: &str) -> Error {
    Error::integration(PROVIDER, None, format!("Lemon Squeezy answered with {what}"))
}

fn parse_document(value: Value) -> Result<Document> {
    serde_json::from_value(value).map_err(|e| bad_answer(&format!("an unexpected document ({e})")))
}

/// The provider's first error detail, if its body has one.
fn provider_detail(body: &[u8]) -> Option<String> {
    let value: Value = serde_json::from_slice(body).ok()?;
    let first = value.get("errors")?.get(0)?;
    first.get("detail").or_else(|| first.get("title")).and_then(Value::as_str).map(str::to_string)
}

/// The `source.pointer` of the provider's first error, if it has one.
fn provider_pointer(body: &[u8]) -> Option<String> {
    let value: Value = serde_json::from_slice(body).ok()?;
    value.get("errors")?.get(0)?.get("source")?.get("pointer")?.as_str().map(str::to_string)
}

/// The error Staffroom makes of a refusal Lemon Squeezy answered with `status` and `body`.
pub fn refusal(status: u16, body: &[u8]) -> Error {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_GATEWAY);
    match finish("", "", Attempt::Answered(status, body.to_vec(), None)) {
        Err(error) => error,
        Ok(_) => Error::integration(PROVIDER, Some(status.as_u16()), "Lemon Squeezy answered a success, not a refusal"),
    }
}

fn finish(method: &str, path: &str, outcome: Attempt) -> Result<Value> {
    match outcome {
        Attempt::Answered(status, body, _) if status.is_success() => {
            if body.is_empty() {
                return Ok(Value::Null);
            }
            serde_json::from_slice(&body).map_err(|_| bad_answer("a body that is not JSON"))
        }
        Attempt::Answered(status, body, retry_after) => {
            let detail = provider_detail(&body);
            tracing::warn!(method, path, status = status.as_u16(), "Lemon Squeezy refused a request");
            Err(match status {
                StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => Error::provider_unauthorized(PROVIDER),
                StatusCode::NOT_FOUND => {
                    Error::not_found(detail.unwrap_or_else(|| "Not found at Lemon Squeezy".into()))
                        .with_details(serde_json::json!({ "provider": PROVIDER }))
                }
                StatusCode::TOO_MANY_REQUESTS => Error::rate_limited(
                    "Lemon Squeezy's rate limit was reached; try again shortly",
                    retry_after.unwrap_or(Duration::from_secs(30)),
                )
                .with_details(serde_json::json!({ "provider": PROVIDER })),
                // Staffroom checks every field before it asks, so a 422 is the provider refusing
                // what the resource's state forbids (an expired subscription cancelled).
                // The attribute it names (`source.pointer`, JSON:API's), when it names one.
                StatusCode::UNPROCESSABLE_ENTITY => Error::conflict(
                    detail.unwrap_or_else(|| "Lemon Squeezy refused the change in the resource's state".into()),
                    None,
                )
                .with_details(serde_json::json!({ "provider": PROVIDER, "pointer": provider_pointer(&body) })),
                other => Error::integration(
                    PROVIDER,
                    Some(other.as_u16()),
                    format!(
                        "Lemon Squeezy failed ({}){}",
                        other.as_u16(),
                        detail.map(|d| format!(": {d}")).unwrap_or_default()
                    ),
                ),
            })
        }
        Attempt::TimedOut => {
            tracing::warn!(method, path, "Lemon Squeezy timed out");
            Err(Error::provider_timeout(PROVIDER))
        }
        Attempt::Failed(reason) | Attempt::Unsent(reason) => {
            tracing::warn!(method, path, %reason, "Lemon Squeezy unreachable");
            Err(Error::integration(PROVIDER, None, "Lemon Squeezy could not be reached"))
        }
    }
}

/// The pages of one list (see [`LemonSqueezyClient::pages`]).
pub struct Pages<'a> {
    client: &'a LemonSqueezyClient,
    first: Option<(&'a str, Vec<(String, String)>)>,
    next: Option<String>,
    /// Pages read so far.
    pub read: u32,
    /// How many pages the list has, as its first page said.
    pub total: Option<u32>,
}

impl Pages<'_> {
    /// The next page's resources; `None` after the last.
    pub async fn next(&mut self) -> Result<Option<Vec<Resource>>> {
        let document = if let Some((path, query)) = self.first.take() {
            let query: Vec<(&str, String)> = query.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
            let document = self.client.get(path, &query).await?;
            self.total = document.last_page();
            document
        } else if let Some(next) = self.next.take() {
            let url = url::Url::parse(&next).map_err(|_| bad_answer("a links.next that is not a URL"))?;
            if !self.client.same_origin(&url) {
                return Err(bad_answer("a links.next pointing at another host"));
            }
            parse_document(self.client.send(Method::GET, url, None, Replay::Safe).await?)?
        } else {
            return Ok(None);
        };
        self.read += 1;
        if self.read > 10_000 {
            return Err(bad_answer("more than 10,000 pages"));
        }
        self.next = document.next_link();
        Ok(Some(document.resources()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provider_errors_map_to_our_codes() {
        let body =
            br#"{"errors":[{"status":"404","title":"Not Found","detail":"The related resource does not exist."}]}"#;
        let err = finish("GET", "/x", Attempt::Answered(StatusCode::NOT_FOUND, body.to_vec(), None)).unwrap_err();
        assert_eq!((err.status(), err.message.as_str()), (404, "The related resource does not exist."));
        let err = finish("GET", "/x", Attempt::Answered(StatusCode::UNAUTHORIZED, vec![], None)).unwrap_err();
        assert_eq!(err.status(), 401);
        assert_eq!(err.details.unwrap()["provider"], PROVIDER);
        let err =
            finish("GET", "/x", Attempt::Answered(StatusCode::BAD_GATEWAY, b"<html>".to_vec(), None)).unwrap_err();
        assert_eq!((err.status(), err.details.unwrap()["status"].as_u64()), (502, Some(502)));
        assert_eq!(finish("GET", "/x", Attempt::TimedOut).unwrap_err().status(), 504);
        let err = finish("GET", "/x", Attempt::Answered(StatusCode::OK, b"not json".to_vec(), None)).unwrap_err();
        assert_eq!(err.code, ErrorCode::IntegrationError);
    }
}
