//! Configuration of one running core: where its data lives, which secrets backend, which limits.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::docs::client::GoogleEndpoints;
use crate::secrets::SecretBackend;

pub use crate::auth::SessionLimits;

/// Everything a `Core` is built from.
#[derive(Debug, Clone)]
pub struct Config {
    /// The folder holding the database and the logs.
    pub data_dir: PathBuf,
    /// Run against the built-in provider simulators.
    pub sandbox: bool,
    /// Products the sandbox's payment simulator seeds (30; the memory benchmark asks for 1,000).
    pub sandbox_products: u64,
    /// A document of about 1 MB among the sandbox's, for the editor's benchmark.
    pub sandbox_large_document: bool,
    /// How many past orders the sandbox's store has (SPEC section 11: at least 1,500).
    pub sandbox_orders: u64,
    /// Where secrets are kept.
    pub secret_backend: SecretBackend,
    /// A team server's PostgreSQL database (`--database-url`); `None`: SQLite in the data dir.
    /// A secret, since the URL may carry a password.
    pub database_url: Option<crate::secrets::Secret>,
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
    /// Google Drive and Docs.
    pub docs: DocsConfig,
    /// Who the HTTP service answers to.
    pub http: HttpConfig,
}

/// What the HTTP service trusts and answers to.
#[derive(Debug, Clone, Default)]
pub struct HttpConfig {
    /// Reverse proxies (`--trusted-proxy CIDR`) whose `X-Forwarded-For` names the client.
    pub trusted_proxies: Vec<ipnet::IpNet>,
    /// Host names the service answers to besides its address and `localhost` (`--public-name`).
    pub public_names: Vec<String>,
}

/// The document provider.
#[derive(Debug, Clone, Default)]
pub struct DocsConfig {
    pub endpoints: GoogleEndpoints,
    /// Time-outs, retries and the client-side write limit.
    pub client: crate::docs::client::GoogleClientOptions,
}

/// Where the payment provider is, and how often the cache is synced.
#[derive(Debug, Clone)]
pub struct PaymentsConfig {
    /// The Lemon Squeezy API base URL (HTTPS; the sandbox points it at its simulator).
    pub base_url: String,
    /// How often products and subscriptions are synced in the background.
    pub sync_interval: Duration,
    /// How long after start the first background sync waits (zero: at once). The desktop waits
    /// while its window opens, showing the cache meanwhile; a cache never synced in full waits
    /// a second at most, whatever this says.
    pub first_sync_after: Duration,
    /// Time-outs, retries and the client-side rate limit.
    pub client: crate::payments::client::ClientOptions,
}

impl Default for PaymentsConfig {
    fn default() -> Self {
        PaymentsConfig {
            base_url: crate::payments::client::DEFAULT_BASE_URL.into(),
            sync_interval: Duration::from_secs(5 * 60),
            first_sync_after: Duration::ZERO,
            client: Default::default(),
        }
    }
}

impl Config {
    /// A configuration with the defaults for `data_dir`.
    pub fn new(data_dir: impl Into<PathBuf>) -> Self {
        Config {
            data_dir: data_dir.into(),
            sandbox: false,
            sandbox_products: 30,
            sandbox_large_document: false,
            sandbox_orders: 1_600,
            secret_backend: SecretBackend::Auto,
            database_url: None,
            session: SessionLimits::default(),
            // Leave at least one core for everything else: hashing must never stall the app.
            max_concurrent_hashes: std::thread::available_parallelism().map(|n| n.get() / 2).unwrap_or(1).max(1),
            long_running: false,
            payments: PaymentsConfig::default(),
            docs: DocsConfig::default(),
            http: HttpConfig::default(),
        }
    }
}

/// Environment variables that point a real-mode run at other provider endpoints (an egress
/// proxy, a recorded provider, or simulators shared by several replicas), each replacing the base
/// URL as the client uses it.
pub const ENDPOINT_VARIABLES: [(&str, &str); 4] = [
    ("STAFFROOM_LEMONSQUEEZY_API_URL", "https://api.lemonsqueezy.com/v1"),
    ("STAFFROOM_GOOGLE_DOCS_API_URL", "https://docs.googleapis.com/v1"),
    ("STAFFROOM_GOOGLE_DRIVE_API_URL", "https://www.googleapis.com/drive/v3"),
    ("STAFFROOM_GOOGLE_OAUTH_URL", "https://oauth2.googleapis.com"),
];

impl Config {
    /// Applies the provider endpoint variables read through `env` (HTTPS, or plain HTTP on
    /// loopback only). They are for real mode, with the real credentials: a sandbox runs its own
    /// simulators, so setting one there is refused rather than ignored.
    pub fn with_endpoint_overrides(mut self, env: impl Fn(&str) -> Option<String>) -> crate::Result<Self> {
        let mut set = Vec::new();
        let mut errors = Vec::new();
        for (name, _) in ENDPOINT_VARIABLES {
            let Some(raw) = env(name).map(|v| v.trim().trim_end_matches('/').to_string()).filter(|v| !v.is_empty())
            else {
                continue;
            };
            match staffroom_providers::retry::check_base_url(&raw) {
                Ok(_) => set.push((name, raw)),
                Err(err) => {
                    let problem = err
                        .details
                        .as_ref()
                        .and_then(|d| d["fields"][0]["message"].as_str())
                        .unwrap_or("is not usable");
                    errors.push(crate::error::FieldError::new(name, problem.to_string()));
                }
            }
        }
        if !errors.is_empty() {
            return Err(crate::Error::invalid(errors));
        }
        if self.sandbox && !set.is_empty() {
            let names: Vec<&str> = set.iter().map(|(n, _)| *n).collect();
            return Err(crate::Error::invalid_field(
                names[0],
                format!(
                    "{} point real mode at other endpoints; --sandbox runs its own simulators, so unset them",
                    names.join(", ")
                ),
            ));
        }
        for (name, url) in set {
            match name {
                "STAFFROOM_LEMONSQUEEZY_API_URL" => self.payments.base_url = url,
                "STAFFROOM_GOOGLE_DOCS_API_URL" => self.docs.endpoints.docs_url = url,
                "STAFFROOM_GOOGLE_DRIVE_API_URL" => self.docs.endpoints.drive_url = url,
                _ => {
                    // The token and revoke endpoints; the consent page stays Google's, opened in
                    // the user's own browser.
                    self.docs.endpoints.token_url = format!("{url}/token");
                    self.docs.endpoints.revoke_url = format!("{url}/revoke");
                    self.docs.endpoints.tokeninfo_url = format!("{url}/tokeninfo");
                }
            }
        }
        Ok(self)
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

    fn env(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| pairs.iter().find(|(n, _)| *n == name).map(|(_, v)| v.to_string())
    }

    #[test]
    fn endpoint_overrides_replace_base_urls_in_real_mode() {
        let config = Config::new("/tmp/x")
            .with_endpoint_overrides(env(&[
                ("STAFFROOM_LEMONSQUEEZY_API_URL", "https://proxy.example/ls/v1/"),
                ("STAFFROOM_GOOGLE_DOCS_API_URL", "http://127.0.0.1:9000/v1"),
                ("STAFFROOM_GOOGLE_DRIVE_API_URL", "https://proxy.example/drive/v3"),
                ("STAFFROOM_GOOGLE_OAUTH_URL", "https://proxy.example/oauth"),
            ]))
            .unwrap();
        assert_eq!(config.payments.base_url, "https://proxy.example/ls/v1");
        assert_eq!(config.docs.endpoints.docs_url, "http://127.0.0.1:9000/v1");
        assert_eq!(config.docs.endpoints.drive_url, "https://proxy.example/drive/v3");
        assert_eq!(config.docs.endpoints.token_url, "https://proxy.example/oauth/token");
        assert_eq!(config.docs.endpoints.revoke_url, "https://proxy.example/oauth/revoke");
        assert_eq!(config.docs.endpoints.auth_url, GoogleEndpoints::default().auth_url);
        let untouched = Config::new("/tmp/x").with_endpoint_overrides(env(&[])).unwrap();
        assert_eq!(untouched.payments.base_url, crate::payments::client::DEFAULT_BASE_URL);
    }

    #[test]
    fn endpoint_overrides_must_be_https_or_loopback_and_not_in_the_sandbox() {
        let err = Config::new("/tmp/x")
            .with_endpoint_overrides(env(&[
                ("STAFFROOM_LEMONSQUEEZY_API_URL", "http://proxy.example/v1"),
                ("STAFFROOM_GOOGLE_OAUTH_URL", "not a url"),
            ]))
            .unwrap_err();
        let fields: Vec<&str> = err.details.as_ref().unwrap()["fields"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["field"].as_str().unwrap())
            .collect();
        assert_eq!(fields, ["STAFFROOM_LEMONSQUEEZY_API_URL", "STAFFROOM_GOOGLE_OAUTH_URL"]);
        let mut sandbox = Config::new("/tmp/x");
        sandbox.sandbox = true;
        let err =
            sandbox.with_endpoint_overrides(env(&[("STAFFROOM_GOOGLE_DOCS_API_URL", "https://proxy.example/v1")]));
        assert!(err.unwrap_err().message.contains("--sandbox"));
    }

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
