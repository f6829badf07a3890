//! How a connection to a provider stands, and its problems as sentences with their fix
//! (SPEC section 13): what Settings → Connections, the Overview and `staffroom doctor` show.

use serde::Serialize;

use crate::error::{Error, ErrorCode};

/// How a provider answers the credentials Staffroom holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ConnectionState {
    Connected,
    /// Credentials are missing.
    NotConfigured,
    /// The provider refuses the credentials.
    Refused,
    /// The provider could not be reached (or did not answer in time).
    Unreachable,
}

impl ConnectionState {
    /// The state an error of the provider leaves the connection in.
    pub fn of(err: &Error) -> ConnectionState {
        if err.code == ErrorCode::Unauthorized {
            ConnectionState::Refused
        } else {
            ConnectionState::Unreachable
        }
    }
}

/// Something wrong with a connection: a stable code, what is wrong, and what to do about it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema, ts_rs::TS)]
pub struct Problem {
    /// e.g. `key_refused`, `no_webhook`, `webhook_silent`, `bad_signatures`, `scopes_missing`.
    pub code: String,
    /// What is wrong, as a sentence.
    pub message: String,
    /// What fixes it, as a sentence.
    pub fix: String,
}

impl Problem {
    pub fn new(code: &str, message: impl Into<String>, fix: impl Into<String>) -> Problem {
        Problem { code: code.to_string(), message: message.into(), fix: fix.into() }
    }
}
