//! One attempt of a request to a provider, as the provider clients see it: an answer (status,
//! body, `Retry-After`), a time-out, or a failure to reach it. Shared by the Lemon Squeezy and
//! Google clients, which add their own retries and error mapping.

use std::time::Duration;

use reqwest::StatusCode;

#[derive(Debug)]
pub enum Attempt {
    Answered(StatusCode, Vec<u8>, Option<Duration>),
    TimedOut,
    Failed(String),
}

impl Attempt {
    /// Sends `request` once and reads the whole answer.
    pub async fn send(request: reqwest::RequestBuilder) -> Attempt {
        match request.send().await {
            Ok(response) => {
                let status = response.status();
                let retry_after = response
                    .headers()
                    .get("retry-after")
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.parse::<u64>().ok())
                    .map(Duration::from_secs);
                match response.bytes().await {
                    Ok(bytes) => Attempt::Answered(status, bytes.to_vec(), retry_after),
                    Err(err) if err.is_timeout() => Attempt::TimedOut,
                    Err(err) => Attempt::Failed(err.to_string()),
                }
            }
            Err(err) if err.is_timeout() => Attempt::TimedOut,
            Err(err) => Attempt::Failed(err.to_string()),
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
