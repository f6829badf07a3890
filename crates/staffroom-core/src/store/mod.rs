//! Storage, behind one seam per area. Each area declares what it asks of a database as a trait of
//! units of work beside its service (`auth::store`, `audit::store`, `docs::store`,
//! `payments::store`, `webhooks::store`, `events::store`; the `meta` table's [`MetaStore`] and
//! what replicas share, [`FleetStore`], are here), with plain records. Two stores
//! implement every trait, module for module, each in its own crate with its own migrations and
//! connection set-up: `staffroom-sqlite` (embedded, the default) and `staffroom-postgres` (team
//! mode, SPEC section 10). A service holds a [`Db`] and calls the traits through it; it never
//! sees SQL, and this crate cannot: it does not depend on either database's driver.

pub mod sealed;

use std::sync::Arc;

use crate::audit::store::AuditStore;
use crate::auth::store::AccountStore;
use crate::docs::store::DocStore;
use crate::error::Result;
use crate::events::store::EventKeeping;
use crate::payments::store::{
    ApplyingStore, CustomerStore, DiscountStore, InvoiceStore, LicenseKeyStore, PaymentStore,
};
use crate::webhooks::store::InboxStore;

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

/// Everything a service may ask of a database: every area's trait.
pub trait Store:
    MetaStore
    + AuditStore
    + AccountStore
    + DocStore
    + PaymentStore
    + CustomerStore
    + InvoiceStore
    + LicenseKeyStore
    + DiscountStore
    + ApplyingStore
    + InboxStore
    + EventKeeping
    + FleetStore
    + Send
    + Sync
{
}

impl<T> Store for T where
    T: MetaStore
        + AuditStore
        + AccountStore
        + DocStore
        + PaymentStore
        + CustomerStore
        + InvoiceStore
        + LicenseKeyStore
        + DiscountStore
        + ApplyingStore
        + InboxStore
        + EventKeeping
        + FleetStore
        + Send
        + Sync
{
}

/// A handle on the database, embedded or the team's: whichever store the wiring opened
/// (`staffroom::open`), as a [`Store`]. Services call every trait through it.
#[derive(Clone)]
pub struct Db(Arc<dyn Store>);

impl Db {
    /// A handle on `store`.
    pub fn new(store: impl Store + 'static) -> Db {
        Db(Arc::new(store))
    }
}

impl std::ops::Deref for Db {
    type Target = dyn Store;

    fn deref(&self) -> &Self::Target {
        &*self.0
    }
}

impl std::fmt::Debug for Db {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.is_shared() { "Db(shared)" } else { "Db(embedded)" })
    }
}
