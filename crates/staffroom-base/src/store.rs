//! What every area asks of a database besides its own: the `meta` table's settings and marks,
//! and what the replicas of a team share (fleet-wide locks, sealed secrets). Each area's own
//! trait sits beside its service; the stores (`staffroom-sqlite`, `staffroom-postgres`) implement
//! them all.

use crate::error::Result;

/// The `meta` table: settings and marks, one text value per key.
#[async_trait::async_trait]
pub trait MetaStore {
    /// Sets a value.
    async fn set_meta(&self, key: &'static str, value: String) -> Result<()>;

    /// A value, if set.
    async fn meta(&self, key: &'static str) -> Result<Option<String>>;

    /// The value of `key`: `value` if it had none (the first to ask wins, also among replicas
    /// starting together).
    async fn meta_insert_if_absent(&self, key: &'static str, value: String) -> Result<String>;
}

/// A fleet-wide lock (see [`FleetStore::take_fleet_lock`]): released when dropped.
pub struct FleetLock {
    _release: Option<tokio::sync::oneshot::Sender<()>>,
}

impl FleetLock {
    /// A lock held until the guard drops `release`.
    pub fn held_until_dropped(release: tokio::sync::oneshot::Sender<()>) -> FleetLock {
        FleetLock { _release: Some(release) }
    }

    /// The lock of a database no other replica shares: nothing to wait for.
    pub fn alone() -> FleetLock {
        FleetLock { _release: None }
    }
}

/// What only a database shared by replicas (a team server) does; a database no one shares
/// answers as one replica alone.
#[async_trait::async_trait]
pub trait FleetStore {
    /// Whether other replicas share this database.
    fn is_shared(&self) -> bool;

    /// Takes the fleet-wide lock `key` (waiting for it with `wait`, else `None` when another
    /// replica holds it), held until the returned guard is dropped or this process dies.
    async fn take_fleet_lock(&self, key: i64, wait: bool) -> Result<Option<FleetLock>>;

    /// A sealed secret's stored bytes (shared databases only).
    async fn sealed_secret(&self, name: &str) -> Result<Option<Vec<u8>>>;

    /// Keeps a sealed secret, replacing the one before (shared databases only).
    async fn put_sealed_secret(&self, name: &str, sealed: &[u8]) -> Result<()>;

    /// Forgets a sealed secret (shared databases only).
    async fn delete_sealed_secret(&self, name: &str) -> Result<()>;
}
