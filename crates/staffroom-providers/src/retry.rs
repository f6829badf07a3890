//! What the provider clients share: one attempt of a request (an answer with its status, body and
//! `Retry-After`, a time-out, or a failure to reach the provider), and the one retry policy both
//! clients follow. Each client classifies its provider's answers; the policy decides whether and
//! when to try again, and never replays a request that may have changed something unless the
//! caller said replaying it is harmless.

use std::time::{Duration, Instant};

use rand::Rng as _;
use reqwest::StatusCode;

use staffroom_base::error::{Error, Result};

/// Checks a provider base URL: HTTPS, or plain HTTP on loopback only (the sandbox, tests, and a
/// recording proxy on this machine). Credentials never cross a network in clear text.
pub fn check_base_url(raw: &str) -> Result<url::Url> {
    let url = url::Url::parse(raw).map_err(|e| Error::invalid_field("baseUrl", format!("is not a URL: {e}")))?;
    let loopback = match url.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(d)) => d == "localhost",
        None => false,
    };
    if url.cannot_be_a_base() || url.query().is_some() || url.fragment().is_some() || !url.username().is_empty() {
        return Err(Error::invalid_field(
            "baseUrl",
            "must be a plain base URL, without credentials, query or fragment",
        ));
    }
    match url.scheme() {
        "https" => Ok(url),
        "http" if loopback => Ok(url),
        _ => Err(Error::invalid_field("baseUrl", "must use HTTPS (plain HTTP only on loopback)")),
    }
}

/// An answer longer than the caller reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooLarge;

#[derive(Debug)]
pub enum Attempt {
    Answered(StatusCode, Vec<u8>, Option<Duration>),
    /// Sent, but no whole answer in time: the provider may or may not have acted on it.
    TimedOut,
    /// The connection failed after the request may have left (reset, broken pipe, …).
    Failed(String),
    /// The provider was never reached (refused, DNS, TLS): nothing can have happened there.
    Unsent(String),
}

impl Attempt {
    /// Sends `request` once and reads the whole answer.
    pub async fn send(request: reqwest::RequestBuilder) -> Attempt {
        match Attempt::send_at_most(request, usize::MAX).await {
            Ok(attempt) => attempt,
            Err(TooLarge) => unreachable!("no answer is longer than usize::MAX bytes"),
        }
    }

    /// Sends `request` once and reads its answer, unless it is longer than `cap` bytes (by its
    /// `Content-Length` when it gives one, else as the bytes come): then [`TooLarge`], and the
    /// rest is not read.
    pub async fn send_at_most(request: reqwest::RequestBuilder, cap: usize) -> Result<Attempt, TooLarge> {
        let mut response = match request.send().await {
            Ok(response) => response,
            Err(err) if err.is_timeout() => return Ok(Attempt::TimedOut),
            Err(err) if err.is_connect() => return Ok(Attempt::Unsent(err.to_string())),
            Err(err) => return Ok(Attempt::Failed(err.to_string())),
        };
        if response.content_length().is_some_and(|length| length > cap as u64) {
            return Err(TooLarge);
        }
        let status = response.status();
        let retry_after = response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok())
            .map(Duration::from_secs);
        let mut body = Vec::new();
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) if body.len().saturating_add(chunk.len()) > cap => return Err(TooLarge),
                Ok(Some(chunk)) => body.extend_from_slice(&chunk),
                Ok(None) => return Ok(Attempt::Answered(status, body, retry_after)),
                Err(err) if err.is_timeout() => return Ok(Attempt::TimedOut),
                Err(err) => return Ok(Attempt::Failed(err.to_string())),
            }
        }
    }

    /// The provider's `Retry-After`, if it answered with one.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Attempt::Answered(_, _, retry_after) => *retry_after,
            _ => None,
        }
    }
}

/// What an answer means for retrying, as the provider's client reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// A success or a refusal that another try cannot change.
    Final,
    /// Over the provider's rate limit: nothing was done, so trying later is always safe.
    RateLimited,
    /// The provider failed (5xx): it may have acted before failing.
    ServerError,
}

/// Whether a request may be sent again after an outcome that leaves its effect unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replay {
    /// Reads, and writes that land the same however often they arrive.
    Safe,
    /// Creates and other writes that would happen twice: retried only when the provider surely
    /// did nothing (rate limited, never reached); the caller finds out what happened otherwise.
    Unsafe,
}

/// How hard a client tries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included.
    pub max_attempts: u32,
    /// No retry starts after this much time since the first attempt.
    pub max_total: Duration,
    /// The first retry waits this long plus up to this long again at random; each further retry
    /// doubles the fixed part (Google's published algorithm, which suits both providers).
    pub backoff_base: Duration,
    /// No single wait is longer than this.
    pub max_wait: Duration,
}

/// One request's retries: counts attempts and time, and says how long to wait before the next.
#[derive(Debug)]
pub struct Retries {
    policy: RetryPolicy,
    replay: Replay,
    started: Instant,
    attempts: u32,
}

impl Retries {
    /// The budget of one request, starting now.
    pub fn start(policy: RetryPolicy, replay: Replay) -> Self {
        Retries { policy, replay, started: Instant::now(), attempts: 0 }
    }

    /// After `outcome` (whose answer the client read as `answer`): the wait before trying again,
    /// or `None` when the outcome is final.
    pub fn next_wait(&mut self, outcome: &Attempt, answer: Answer) -> Option<Duration> {
        self.attempts += 1;
        let worth_retrying = match (outcome, self.replay) {
            (Attempt::Unsent(_), _) => true,
            (Attempt::Answered(..), _) if answer == Answer::RateLimited => true,
            (Attempt::Answered(..), Replay::Safe) => answer == Answer::ServerError,
            (Attempt::TimedOut | Attempt::Failed(_), Replay::Safe) => true,
            _ => false,
        };
        let elapsed = self.started.elapsed();
        if !worth_retrying || self.attempts >= self.policy.max_attempts || elapsed >= self.policy.max_total {
            return None;
        }
        let base = self.policy.backoff_base;
        let exponential = base.saturating_mul(1u32 << (self.attempts - 1).min(10));
        let jitter = base.mul_f64(rand::rng().random_range(0.0..1.0));
        let wait = outcome.retry_after().unwrap_or(exponential + jitter).min(self.policy.max_wait);
        Some(wait.min(self.policy.max_total.saturating_sub(elapsed)))
    }

    /// How many attempts were made so far.
    pub fn attempts(&self) -> u32 {
        self.attempts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_urls_must_be_https_except_on_loopback() {
        assert!(check_base_url("https://api.lemonsqueezy.com/v1").is_ok());
        assert!(check_base_url("http://127.0.0.1:9000/v1").is_ok());
        assert!(check_base_url("http://localhost:9000/v1").is_ok());
        assert!(check_base_url("http://[::1]:9000/v1").is_ok());
        assert!(check_base_url("http://api.lemonsqueezy.com/v1").is_err());
        assert!(check_base_url("ftp://127.0.0.1/").is_err());
        assert!(check_base_url("not a url").is_err());
        assert!(check_base_url("https://user:pw@api.lemonsqueezy.com/v1").is_err());
        assert!(check_base_url("https://api.lemonsqueezy.com/v1?x=1").is_err());
    }

    fn policy() -> RetryPolicy {
        RetryPolicy {
            max_attempts: 4,
            max_total: Duration::from_secs(60),
            backoff_base: Duration::from_millis(100),
            max_wait: Duration::from_secs(5),
        }
    }

    fn answered(status: u16) -> Attempt {
        Attempt::Answered(StatusCode::from_u16(status).unwrap(), Vec::new(), None)
    }

    #[test]
    fn safe_requests_retry_failures_with_growing_waits() {
        let mut retries = Retries::start(policy(), Replay::Safe);
        let first = retries.next_wait(&answered(503), Answer::ServerError).unwrap();
        let second = retries.next_wait(&Attempt::TimedOut, Answer::Final).unwrap();
        assert!(first >= Duration::from_millis(100) && first < Duration::from_millis(200), "{first:?}");
        assert!(second >= Duration::from_millis(200) && second < Duration::from_millis(300), "{second:?}");
        assert!(retries.next_wait(&Attempt::Failed("reset".into()), Answer::Final).is_some());
        assert_eq!(retries.next_wait(&answered(503), Answer::ServerError), None, "four attempts in all");
    }

    #[test]
    fn unsafe_requests_retry_only_what_surely_did_nothing() {
        let mut retries = Retries::start(policy(), Replay::Unsafe);
        assert_eq!(retries.next_wait(&answered(500), Answer::ServerError), None);
        let mut retries = Retries::start(policy(), Replay::Unsafe);
        assert_eq!(retries.next_wait(&Attempt::TimedOut, Answer::Final), None);
        let mut retries = Retries::start(policy(), Replay::Unsafe);
        assert!(retries.next_wait(&answered(429), Answer::RateLimited).is_some());
        assert!(retries.next_wait(&Attempt::Unsent("refused".into()), Answer::Final).is_some());
    }

    #[test]
    fn final_answers_and_hints() {
        let mut retries = Retries::start(policy(), Replay::Safe);
        assert_eq!(retries.next_wait(&answered(404), Answer::Final), None);
        let mut retries = Retries::start(policy(), Replay::Safe);
        let hinted = Attempt::Answered(StatusCode::TOO_MANY_REQUESTS, Vec::new(), Some(Duration::from_secs(3)));
        assert_eq!(retries.next_wait(&hinted, Answer::RateLimited), Some(Duration::from_secs(3)));
        let long = Attempt::Answered(StatusCode::TOO_MANY_REQUESTS, Vec::new(), Some(Duration::from_secs(90)));
        assert_eq!(retries.next_wait(&long, Answer::RateLimited), Some(Duration::from_secs(5)), "capped");
    }
}
