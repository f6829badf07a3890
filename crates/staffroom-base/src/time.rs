//! Time in the shapes of SPEC section 1: RFC 3339 in UTC with `Z`, and unix seconds internally.

use chrono::{SecondsFormat, Utc};

/// Now as RFC 3339 UTC with `Z` and milliseconds, e.g. `2026-11-22T10:04:05.123Z`.
pub fn now_rfc3339() -> String {
    Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// Now in unix seconds.
pub fn now_unix() -> i64 {
    Utc::now().timestamp()
}

/// Unix seconds as RFC 3339 UTC with `Z`.
pub fn unix_to_rfc3339(secs: i64) -> String {
    chrono::DateTime::from_timestamp(secs, 0).unwrap_or_default().to_rfc3339_opts(SecondsFormat::Secs, true)
}
