//! Secrets: the `Secret` type that redacts itself, and the `SecretStore` trait with a real OS
//! keyring backend (Secret Service on desktops, the kernel keyring where there is none), an
//! in-memory backend for tests, and the environment/file overrides for headless machines.

mod keyring;
pub mod keys;
mod memory;
pub mod vault;

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use serde::Serialize;

pub use self::keyring::KeyringStore;
pub use self::memory::MemoryStore;

pub use staffroom_secret::{serialize_exposed, Secret};

/// The secrets Staffroom knows, by the name used in the keyring, the CLI and the environment.
pub const KNOWN_SECRETS: &[(&str, &str)] = &[
    (
        "jwt_key",
        "signing key of staff tokens (created at first run; a team server's replicas are each given the same one)",
    ),
    ("data_key", "team server: encrypts the secrets kept in its database (Google's tokens)"),
    ("lemonsqueezy_api_key", "Lemon Squeezy API key"),
    ("lemonsqueezy_store_id", "Lemon Squeezy store id"),
    ("webhook_secret", "Lemon Squeezy webhook signing secret"),
    ("webhook_secret_previous", "the webhook signing secret before the last rotation (still verified for 10 minutes)"),
    ("google_client_id", "Google OAuth client id"),
    ("google_client_secret", "Google OAuth client secret"),
    ("google_token", "Google OAuth tokens (after sign-in) or a pasted access token"),
    ("desktop_session", "the desktop app's remembered sign-in (\"keep me signed in\")"),
    ("team_session", "the desktop app's remembered sign-in to its team server (\"keep me signed in\")"),
];

/// Why a secret operation failed.
#[derive(Debug, thiserror::Error)]
pub enum SecretError {
    #[error("the OS keyring is not available ({0}); set STAFFROOM_SECRET_STORE=memory for a throw-away run, or provide the secret as STAFFROOM_<NAME> or STAFFROOM_<NAME>_FILE")]
    Unavailable(String),
    #[error("the keyring refused the operation: {0}")]
    Failed(String),
    #[error("{0}")]
    Invalid(String),
    /// A value that is empty or only whitespace: never a usable secret (an empty webhook key
    /// would accept deliveries signed with the empty key).
    #[error("the secret {name} from {from} is empty; set a usable value")]
    Empty { name: String, from: String },
}

impl From<SecretError> for crate::error::Error {
    fn from(err: SecretError) -> Self {
        match &err {
            SecretError::Empty { name, from } => {
                crate::error::Error::new(crate::ErrorCode::InvalidRequest, err.to_string())
                    .with_details(serde_json::json!({ "secret": name, "source": from }))
            }
            _ => crate::error::Error::internal("secret store", err),
        }
    }
}

/// Refuses an empty or whitespace-only `value` of `name`, naming where it came from.
fn usable(name: &str, value: Secret, source: impl FnOnce() -> String) -> Result<Secret, SecretError> {
    if value.expose().trim().is_empty() {
        Err(SecretError::Empty { name: name.to_string(), from: source() })
    } else {
        Ok(value)
    }
}

/// Where secrets are kept.
pub trait SecretStore: Send + Sync {
    /// The secret called `name`, if it is set.
    fn get(&self, name: &str) -> Result<Option<Secret>, SecretError>;
    /// Stores `value` as `name`, replacing any earlier value.
    fn set(&self, name: &str, value: &Secret) -> Result<(), SecretError>;
    /// Removes `name`; removing a missing secret is not an error.
    fn delete(&self, name: &str) -> Result<(), SecretError>;
    /// A short description of the backend, for `secrets status`.
    fn describe(&self) -> String;
}

/// Which backend to use (`STAFFROOM_SECRET_STORE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SecretBackend {
    /// Secret Service when a desktop session offers one, else the kernel keyring.
    #[default]
    Auto,
    /// The Secret Service over D-Bus (GNOME Keyring, KWallet).
    SecretService,
    /// The Linux kernel keyring (keyutils): no daemon needed, gone after a reboot.
    Keyutils,
    /// Process memory only: nothing survives the process. For tests and throw-away demos.
    Memory,
}

impl std::str::FromStr for SecretBackend {
    type Err = String;

    /// Parses the names `STAFFROOM_SECRET_STORE` takes: auto, secret-service, keyutils, memory.
    fn from_str(value: &str) -> Result<Self, String> {
        <SecretBackend as clap::ValueEnum>::from_str(value, true)
    }
}

impl SecretBackend {
    /// Opens the backend. `namespace` keeps one installation's secrets apart from another's.
    pub fn open(self, namespace: &str) -> Result<Arc<dyn SecretStore>, SecretError> {
        match self {
            SecretBackend::Memory => Ok(Arc::new(MemoryStore::default())),
            SecretBackend::SecretService => Ok(Arc::new(KeyringStore::secret_service(namespace)?)),
            SecretBackend::Keyutils => Ok(Arc::new(KeyringStore::keyutils(namespace)?)),
            SecretBackend::Auto => match KeyringStore::secret_service(namespace) {
                Ok(store) => Ok(Arc::new(store)),
                Err(err) => {
                    tracing::debug!(%err, "no Secret Service; using the kernel keyring");
                    Ok(Arc::new(KeyringStore::keyutils(namespace)?))
                }
            },
        }
    }
}

/// Where a secret's value comes from, for `secrets status`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "source")]
pub enum SecretSource {
    Environment {
        variable: String,
    },
    File {
        path: PathBuf,
    },
    Keyring {
        backend: String,
    },
    /// Generated by the sandbox for this process.
    Sandbox,
    /// A team server's database, sealed with `data_key`.
    Database,
    Missing,
    /// Set, but not usable (empty): the reason.
    Unusable {
        reason: String,
    },
}

impl fmt::Display for SecretSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SecretSource::Environment { variable } => write!(f, "environment ({variable})"),
            SecretSource::File { path } => write!(f, "file ({})", path.display()),
            SecretSource::Keyring { backend } => write!(f, "keyring ({backend})"),
            SecretSource::Sandbox => f.write_str("sandbox (generated)"),
            SecretSource::Database => f.write_str("team database (sealed with data_key)"),
            SecretSource::Missing => f.write_str("not set"),
            SecretSource::Unusable { reason } => write!(f, "unusable: {reason}"),
        }
    }
}

/// The secret store as the app uses it: `STAFFROOM_<NAME>` and `STAFFROOM_<NAME>_FILE` first
/// (the systemd-credentials habit for headless machines), then the keyring; on a team server,
/// the team's vault for the [`vault::SHARED_SECRETS`] (the async methods only).
#[derive(Clone)]
pub struct Secrets {
    store: Arc<dyn SecretStore>,
    /// Values that win over everything else for this process only (the sandbox's generated
    /// provider credentials): never written to the keyring. Writing such a name changes the
    /// value for this process, so the sandbox never leaves a credential behind.
    overrides: Arc<std::sync::RwLock<std::collections::HashMap<String, Secret>>>,
    /// A team server's shared secrets, in place of the keyring.
    vault: Option<Arc<dyn vault::Vault>>,
}

impl Secrets {
    /// Wraps a backend.
    pub fn new(store: Arc<dyn SecretStore>) -> Self {
        Secrets { store, overrides: Default::default(), vault: None }
    }

    /// These secrets, keeping the [`vault::SHARED_SECRETS`] in `vault` rather than the keyring.
    pub fn with_vault(self, vault: Arc<dyn vault::Vault>) -> Self {
        Secrets { vault: Some(vault), ..self }
    }

    /// The vault that keeps `name`, when a vault keeps it.
    fn vault_for(&self, name: &str) -> Option<&Arc<dyn vault::Vault>> {
        self.vault.as_ref().filter(|_| vault::SHARED_SECRETS.contains(&name))
    }

    /// Makes `name` read as `value` for this process, without storing it anywhere.
    pub fn set_override(&self, name: &str, value: Secret) {
        self.overrides.write().expect("overrides poisoned").insert(name.to_string(), value);
    }

    fn overridden(&self, name: &str) -> Option<Secret> {
        self.overrides.read().expect("overrides poisoned").get(name).cloned()
    }

    /// Whether `name` is this process's own (the sandbox's), not a stored secret.
    pub fn is_overridden(&self, name: &str) -> bool {
        self.overridden(name).is_some()
    }

    /// The environment variable that overrides `name`.
    pub fn env_var(name: &str) -> String {
        format!("STAFFROOM_{}", name.to_ascii_uppercase())
    }

    fn from_env(name: &str) -> Result<Option<(Secret, SecretSource)>, SecretError> {
        let var = Self::env_var(name);
        if let Some(value) = std::env::var_os(&var) {
            let value = value.into_string().map_err(|_| SecretError::Invalid(format!("{var} is not UTF-8")))?;
            let secret = usable(name, Secret::new(value), || format!("the environment variable {var}"))?;
            return Ok(Some((secret, SecretSource::Environment { variable: var })));
        }
        let file_var = format!("{var}_FILE");
        if let Some(path) = std::env::var_os(&file_var) {
            let path = PathBuf::from(path);
            let value = std::fs::read_to_string(&path)
                .map_err(|e| SecretError::Invalid(format!("cannot read {file_var} ({}): {e}", path.display())))?;
            let value = value.trim_end_matches(['\n', '\r']).to_string();
            let secret = usable(name, Secret::new(value), || format!("{file_var} ({})", path.display()))?;
            return Ok(Some((secret, SecretSource::File { path })));
        }
        Ok(None)
    }

    /// The secret `name` from `STAFFROOM_<NAME>` or its `_FILE` only, never the keyring; with
    /// where it comes from.
    pub fn from_environment(name: &str) -> Result<Option<(Secret, SecretSource)>, SecretError> {
        Self::from_env(name)
    }

    /// The secret `name`, from the environment, a file, or the keyring.
    pub fn get(&self, name: &str) -> Result<Option<Secret>, SecretError> {
        if let Some(secret) = self.overridden(name) {
            return Ok(Some(secret));
        }
        if let Some((secret, _)) = Self::from_env(name)? {
            return Ok(Some(secret));
        }
        self.store.get(name)?.map(|value| usable(name, value, || format!("the {}", self.store.describe()))).transpose()
    }

    /// Stores `name` in the keyring; an empty or whitespace-only value is refused.
    pub fn set(&self, name: &str, value: &Secret) -> Result<(), SecretError> {
        validate_name(name)?;
        let value = usable(name, value.clone(), || "the value given".to_string())?;
        self.store.set(name, &value)
    }

    /// Removes `name` from the keyring.
    pub fn delete(&self, name: &str) -> Result<(), SecretError> {
        self.store.delete(name)
    }

    /// The secret `name`, created with `make` and stored the first time it is asked for.
    pub fn get_or_create(&self, name: &str, make: impl FnOnce() -> Secret) -> Result<Secret, SecretError> {
        if let Some(secret) = self.get(name)? {
            return Ok(secret);
        }
        let secret = make();
        self.store.set(name, &secret)?;
        Ok(secret)
    }

    /// Where `name` comes from (never its value).
    pub fn source(&self, name: &str) -> Result<SecretSource, SecretError> {
        if self.overridden(name).is_some() {
            return Ok(SecretSource::Sandbox);
        }
        match Self::from_env(name) {
            Ok(Some((_, source))) => return Ok(source),
            Ok(None) => {}
            // Where it comes from is still worth saying when it is unusable.
            Err(SecretError::Empty { from, .. }) => {
                return Ok(SecretSource::Unusable { reason: format!("{from} is empty") })
            }
            Err(err) => return Err(err),
        }
        Ok(match self.store.get(name)? {
            Some(_) => SecretSource::Keyring { backend: self.store.describe() },
            None => SecretSource::Missing,
        })
    }

    /// The backend's description.
    pub fn describe(&self) -> String {
        self.store.describe()
    }

    /// [`get`](Self::get) for async code, and a team's vault: a keyring read may be a D-Bus
    /// round trip, so it runs off the async threads.
    pub async fn read(&self, name: &str) -> crate::Result<Option<Secret>> {
        if let Some(vault) = self.vault_for(name) {
            if let Some(secret) = self.overridden(name) {
                return Ok(Some(secret));
            }
            if let Some((secret, _)) = Self::from_env(name)? {
                return Ok(Some(secret));
            }
            if let Some(stored) = vault.get(name).await? {
                return Ok(Some(usable(name, stored, || "the team database".into())?));
            }
            // A replica set up before the vault keeps it in its keyring: still read there.
        }
        self.off_thread(name, |secrets, name| secrets.get(name)).await
    }

    /// [`set`](Self::set) for async code, and a team's vault; a name the process overrides
    /// changes for this process only.
    pub async fn write(&self, name: &str, value: Secret) -> crate::Result<()> {
        validate_name(name)?;
        let value = usable(name, value, || "the value given".to_string())?;
        if self.overridden(name).is_some() {
            self.set_override(name, value);
            return Ok(());
        }
        if let Some(vault) = self.vault_for(name) {
            return vault.set(name, &value).await;
        }
        self.off_thread(name, move |secrets, name| secrets.set(name, &value)).await
    }

    /// [`delete`](Self::delete) for async code, and a team's vault.
    pub async fn remove(&self, name: &str) -> crate::Result<()> {
        self.overrides.write().expect("overrides poisoned").remove(name);
        if let Some(vault) = self.vault_for(name) {
            return vault.delete(name).await;
        }
        self.off_thread(name, |secrets, name| secrets.delete(name)).await
    }

    /// [`source`](Self::source) for async code, and a team's vault.
    pub async fn source_of(&self, name: &str) -> crate::Result<SecretSource> {
        if let (Some(vault), None) = (self.vault_for(name), self.overridden(name)) {
            if let (Ok(None), Some(_)) = (Self::from_env(name), vault.get(name).await?) {
                return Ok(SecretSource::Database);
            }
        }
        self.off_thread(name, |secrets, name| secrets.source(name)).await
    }

    async fn off_thread<T: Send + 'static>(
        &self,
        name: &str,
        work: impl FnOnce(&Secrets, &str) -> Result<T, SecretError> + Send + 'static,
    ) -> crate::Result<T> {
        let (secrets, name) = (self.clone(), name.to_string());
        Ok(tokio::task::spawn_blocking(move || work(&secrets, &name)).await??)
    }
}

/// Only the names Staffroom knows can be set, so a typo does not silently store a stray secret.
pub fn validate_name(name: &str) -> Result<(), SecretError> {
    if KNOWN_SECRETS.iter().any(|(known, _)| *known == name) {
        Ok(())
    } else {
        let names: Vec<&str> = KNOWN_SECRETS.iter().map(|(n, _)| *n).collect();
        Err(SecretError::Invalid(format!("unknown secret '{name}'; known secrets: {}", names.join(", "))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_redact_themselves() {
        let secret = Secret::new("hunter2-very-secret");
        assert_eq!(format!("{secret:?}"), "Secret([redacted])");
        assert_eq!(format!("{secret}"), "[redacted]");
        assert_eq!(format!("{:?}", Some(secret.clone())), "Some(Secret([redacted]))");
        assert_eq!(secret.expose(), "hunter2-very-secret");
    }

    #[test]
    fn memory_store_round_trip_and_get_or_create() {
        let secrets = Secrets::new(Arc::new(MemoryStore::default()));
        assert_eq!(secrets.get("google_token").unwrap(), None);
        secrets.set("google_token", &Secret::new("abc")).unwrap();
        assert_eq!(secrets.get("google_token").unwrap().unwrap().expose(), "abc");
        let first = secrets.get_or_create("jwt_key", || Secret::new("k1")).unwrap();
        let second = secrets.get_or_create("jwt_key", || Secret::new("k2")).unwrap();
        assert_eq!(first, second);
        secrets.delete("google_token").unwrap();
        secrets.delete("google_token").unwrap();
        assert_eq!(secrets.get("google_token").unwrap(), None);
        secrets.set_override("google_token", Secret::new("sandbox"));
        assert_eq!(secrets.get("google_token").unwrap().unwrap().expose(), "sandbox");
        assert_eq!(secrets.source("google_token").unwrap(), SecretSource::Sandbox);
    }

    #[test]
    fn unknown_names_are_refused() {
        let secrets = Secrets::new(Arc::new(MemoryStore::default()));
        let err = secrets.set("jwt-keyy", &Secret::new("x")).unwrap_err();
        assert!(err.to_string().contains("unknown secret"), "{err}");
    }
}
