//! Secrets held in process memory: for unit tests and throw-away runs only.

use std::collections::HashMap;
use std::sync::Mutex;

use super::{Secret, SecretError, SecretStore};

/// A `SecretStore` that forgets everything when the process ends.
#[derive(Default)]
pub struct MemoryStore {
    values: Mutex<HashMap<String, Secret>>,
}

impl SecretStore for MemoryStore {
    fn get(&self, name: &str) -> Result<Option<Secret>, SecretError> {
        Ok(self.values.lock().expect("secret map poisoned").get(name).cloned())
    }

    fn set(&self, name: &str, value: &Secret) -> Result<(), SecretError> {
        self.values.lock().expect("secret map poisoned").insert(name.to_string(), value.clone());
        Ok(())
    }

    fn delete(&self, name: &str) -> Result<(), SecretError> {
        self.values.lock().expect("secret map poisoned").remove(name);
        Ok(())
    }

    fn describe(&self) -> String {
        "memory (not persisted)".into()
    }
}
