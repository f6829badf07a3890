//! The OS keyring through `keyring-core`: the Secret Service over D-Bus, or the kernel keyring.

use std::sync::Arc;

use keyring_core::api::CredentialStore;
use keyring_core::Error as KeyringError;

use super::{Secret, SecretError, SecretStore};

/// A `SecretStore` over one OS keyring backend. Every entry lives under the service `staffroom`
/// with the user `<name>@<namespace>`, so two installations never see each other's secrets.
pub struct KeyringStore {
    store: Arc<CredentialStore>,
    backend: &'static str,
    namespace: String,
}

impl KeyringStore {
    /// The Secret Service of the desktop session (fails when there is none).
    pub fn secret_service(namespace: &str) -> Result<Self, SecretError> {
        let store = dbus_secret_service_keyring_store::Store::new()
            .map_err(|e| SecretError::Unavailable(format!("Secret Service: {e}")))?;
        Ok(KeyringStore { store, backend: "Secret Service", namespace: namespace.to_string() })
    }

    /// The Linux kernel keyring (keyutils).
    pub fn keyutils(namespace: &str) -> Result<Self, SecretError> {
        let store = linux_keyutils_keyring_store::Store::new()
            .map_err(|e| SecretError::Unavailable(format!("kernel keyring: {e}")))?;
        let store = KeyringStore { store, backend: "kernel keyring", namespace: namespace.to_string() };
        // In a process without a session keyring, adding a key is refused (EACCES) until a
        // search has made the kernel set one up: search once, so that a first `set` works.
        let _ = store.entry("probe").and_then(|e| e.get_password().map_err(map_error));
        Ok(store)
    }

    fn entry(&self, name: &str) -> Result<keyring_core::Entry, SecretError> {
        self.store.build("staffroom", &format!("{name}@{}", self.namespace), None).map_err(map_error)
    }
}

fn map_error(err: KeyringError) -> SecretError {
    match err {
        KeyringError::NoStorageAccess(e) => SecretError::Unavailable(e.to_string()),
        KeyringError::NoDefaultStore => SecretError::Unavailable("no keyring".into()),
        other => SecretError::Failed(other.to_string()),
    }
}

impl SecretStore for KeyringStore {
    fn get(&self, name: &str) -> Result<Option<Secret>, SecretError> {
        match self.entry(name)?.get_password() {
            Ok(value) => Ok(Some(Secret::new(value))),
            Err(KeyringError::NoEntry) => Ok(None),
            Err(err) => Err(map_error(err)),
        }
    }

    fn set(&self, name: &str, value: &Secret) -> Result<(), SecretError> {
        self.entry(name)?.set_password(value.expose()).map_err(map_error)
    }

    fn delete(&self, name: &str) -> Result<(), SecretError> {
        match self.entry(name)?.delete_credential() {
            Ok(()) | Err(KeyringError::NoEntry) => Ok(()),
            Err(err) => Err(map_error(err)),
        }
    }

    fn describe(&self) -> String {
        self.backend.to_string()
    }
}
