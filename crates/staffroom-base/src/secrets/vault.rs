//! Where a team server keeps the secrets an admin sets while it runs (the Lemon Squeezy key and
//! store, the webhook's signing secrets, Google's OAuth client): in its database, sealed with
//! `data_key`, so that every replica reads the same (SPEC sections 10 and 13). A replica's own
//! environment still wins (`STAFFROOM_<NAME>`), as for every secret.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::Secret;
use crate::error::{Error, ErrorCode, Result};
use crate::sealed::Sealer;
use crate::store::FleetStore;

/// The secrets a team keeps in its vault: what an admin sets at run time from any replica.
pub const SHARED_SECRETS: &[&str] = &[
    "lemonsqueezy_api_key",
    "lemonsqueezy_store_id",
    "webhook_secret",
    "webhook_secret_previous",
    "google_client_id",
    "google_client_secret",
];

/// How long a replica trusts what it read from the vault: the Lemon Squeezy client reads the
/// key for every request, and a change made on another replica reaches this one within this.
const FRESH_FOR: Duration = Duration::from_secs(5);

/// A store of shared secrets.
#[async_trait::async_trait]
pub trait Vault: Send + Sync {
    async fn get(&self, name: &str) -> Result<Option<Secret>>;
    async fn set(&self, name: &str, value: &Secret) -> Result<()>;
    async fn delete(&self, name: &str) -> Result<()>;
}

/// The team database's sealed secrets.
pub struct SealedVault {
    db: Arc<dyn FleetStore + Send + Sync>,
    sealer: Sealer,
    /// What was read lately, and when.
    read: Mutex<HashMap<String, (Instant, Option<Secret>)>>,
}

impl SealedVault {
    pub fn new(db: Arc<dyn FleetStore + Send + Sync>, sealer: Sealer) -> SealedVault {
        SealedVault { db, sealer, read: Mutex::default() }
    }

    fn remember(&self, name: &str, value: Option<Secret>) {
        self.read.lock().unwrap_or_else(|p| p.into_inner()).insert(name.to_string(), (Instant::now(), value));
    }
}

#[async_trait::async_trait]
impl Vault for SealedVault {
    async fn get(&self, name: &str) -> Result<Option<Secret>> {
        let cached = self.read.lock().unwrap_or_else(|p| p.into_inner()).get(name).cloned();
        if let Some((_, value)) = cached.filter(|(at, _)| at.elapsed() < FRESH_FOR) {
            return Ok(value);
        }
        let value = match self.db.sealed_secret(name).await? {
            Some(sealed) => {
                let opened = self.sealer.open(name, &sealed)?;
                let text = String::from_utf8(opened).map_err(|e| Error::internal("sealed secret", e))?;
                Some(Secret::new(text))
            }
            None => None,
        };
        self.remember(name, value.clone());
        Ok(value)
    }

    async fn set(&self, name: &str, value: &Secret) -> Result<()> {
        self.db.put_sealed_secret(name, &self.sealer.seal(name, value.expose().as_bytes())).await?;
        self.remember(name, Some(value.clone()));
        Ok(())
    }

    async fn delete(&self, name: &str) -> Result<()> {
        self.db.delete_sealed_secret(name).await?;
        self.remember(name, None);
        Ok(())
    }
}

/// A team database reached without `data_key` (a CLI command given none): its shared secrets
/// can be neither read nor kept.
pub struct NoDataKey;

fn no_data_key(name: &str) -> Error {
    Error::new(
        ErrorCode::InvalidRequest,
        format!(
            "a team server keeps {name} sealed with data_key: give this command the team's data_key (STAFFROOM_DATA_KEY or its _FILE)"
        ),
    )
}

#[async_trait::async_trait]
impl Vault for NoDataKey {
    async fn get(&self, name: &str) -> Result<Option<Secret>> {
        Err(no_data_key(name))
    }

    async fn set(&self, name: &str, _: &Secret) -> Result<()> {
        Err(no_data_key(name))
    }

    async fn delete(&self, name: &str) -> Result<()> {
        Err(no_data_key(name))
    }
}
