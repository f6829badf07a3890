//! Configuration of one running core: where its data lives, which secrets backend, which limits.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::secrets::SecretBackend;

/// Everything a `Core` is built from.
#[derive(Debug, Clone)]
pub struct Config {
    /// The folder holding the database and the logs.
    pub data_dir: PathBuf,
    /// Run against the built-in provider simulators.
    pub sandbox: bool,
    /// Where secrets are kept.
    pub secret_backend: SecretBackend,
    /// Staff session limits.
    pub session: SessionLimits,
    /// How many argon2 hashes may run at once.
    pub max_concurrent_hashes: usize,
    /// A long-running door (`serve`, the desktop app): runs the webhook receiver and the
    /// background sync. CLI commands do not: two processes applying the same inbox would apply
    /// events twice.
    pub long_running: bool,
    /// The payment provider.
    pub payments: PaymentsConfig,
}

/// Where the payment provider is, and how often the cache is synced.
#[derive(Debug, Clone)]
pub struct PaymentsConfig {
    /// The Lemon Squeezy API base URL (HTTPS; the sandbox points it at its simulator).
    pub base_url: String,
    /// How often products and subscriptions are synced in the background.
    pub sync_interval: Duration,
    /// Time-outs, retries and the client-side rate limit.
    pub client: crate::payments::client::ClientOptions,
}

impl Default for PaymentsConfig {
    fn default() -> Self {
        PaymentsConfig {
            base_url: crate::payments::client::DEFAULT_BASE_URL.into(),
            sync_interval: Duration::from_secs(5 * 60),
            client: Default::default(),
        }
    }
}

/// Token and session lifetimes (SPEC section 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionLimits {
    /// Life of one access token.
    pub access_token: Duration,
    /// A session dies after this long without a request.
    pub idle: Duration,
    /// A session dies this long after sign-in, whatever happens.
    pub absolute: Duration,
}

impl Default for SessionLimits {
    fn default() -> Self {
        SessionLimits {
            access_token: Duration::from_secs(15 * 60),
            idle: Duration::from_secs(30 * 60),
            absolute: Duration::from_secs(12 * 60 * 60),
        }
    }
}

impl Config {
    /// A configuration with the defaults for `data_dir`.
    pub fn new(data_dir: impl Into<PathBuf>) -> Self {
        Config {
            data_dir: data_dir.into(),
            sandbox: false,
            secret_backend: SecretBackend::Auto,
            session: SessionLimits::default(),
            // Leave at least one core for everything else: hashing must never stall the app.
            max_concurrent_hashes: std::thread::available_parallelism().map(|n| n.get() / 2).unwrap_or(1).max(1),
            long_running: false,
            payments: PaymentsConfig::default(),
        }
    }
}

/// The data dir: `explicit` when given (`--data-dir` or `STAFFROOM_DATA_DIR`), else the XDG data
/// dir's `staffroom`, or `staffroom-sandbox` beside it in sandbox mode so demo data never mixes
/// with real data.
pub fn resolve_data_dir(explicit: Option<&Path>, sandbox: bool) -> PathBuf {
    if let Some(dir) = explicit {
        return dir.to_path_buf();
    }
    let base = dirs::data_dir().unwrap_or_else(|| PathBuf::from("."));
    base.join(if sandbox { "staffroom-sandbox" } else { "staffroom" })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sandbox_data_lives_beside_real_data_unless_a_dir_is_given() {
        let real = resolve_data_dir(None, false);
        let sandbox = resolve_data_dir(None, true);
        assert_eq!(real.parent(), sandbox.parent());
        assert_ne!(real, sandbox);
        let explicit = Path::new("/some/where");
        assert_eq!(resolve_data_dir(Some(explicit), true), explicit);
    }
}
