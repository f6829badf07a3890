//! Storage, behind one seam per area. Each area declares what it asks of a database as a trait of
//! units of work beside its service (`auth::store`, `audit::store`, `docs::store`,
//! `payments::store`, `webhooks::store`, `events::store`; the `meta` table's [`MetaStore`] and
//! what replicas share, [`FleetStore`], are here), with plain records. Two stores
//! implement every trait, module for module, each in its own crate with its own migrations and
//! connection set-up: `staffroom-sqlite` (embedded, the default) and `staffroom-postgres` (team
//! mode, SPEC section 10). A service holds a [`Db`] and calls the traits through it; it never
//! sees SQL, and this crate cannot: it does not depend on either database's driver.

pub mod transfer;

use std::sync::Arc;

pub use staffroom_base::sealed;
pub use staffroom_base::store::{FleetLock, FleetStore, MetaStore};

use crate::audit::store::AuditStore;
use crate::auth::store::AccountStore;
use crate::docs::store::DocStore;
use crate::events::store::EventKeeping;
use crate::payments::store::{
    ApplyingStore, CustomerStore, DiscountStore, InvoiceStore, LicenseKeyStore, PaymentStore,
};
use crate::webhooks::store::InboxStore;

/// Everything a service may ask of a database: every area's trait.
pub trait Store:
    crate::auth::AuthStore
    + crate::audit::store::AuditStores
    + crate::payments::PaymentsStore
    + crate::docs::DocsStore
    + MetaStore
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
    T: crate::auth::AuthStore
        + crate::audit::store::AuditStores
        + crate::payments::PaymentsStore
        + crate::docs::DocsStore
        + MetaStore
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

    /// The same database, as what replicas share (for what keeps sealed secrets).
    pub fn fleet(&self) -> Arc<dyn FleetStore + Send + Sync> {
        self.0.clone()
    }
}

impl From<Db> for crate::auth::AuthDb {
    fn from(db: Db) -> Self {
        db.0
    }
}

impl From<Db> for crate::payments::PaymentsDb {
    fn from(db: Db) -> Self {
        db.0
    }
}

impl From<Db> for crate::docs::DocsDb {
    fn from(db: Db) -> Self {
        db.0
    }
}

impl From<Db> for crate::webhooks::WebhooksDb {
    fn from(db: Db) -> Self {
        db.0
    }
}

impl From<&Db> for crate::webhooks::WebhooksDb {
    fn from(db: &Db) -> Self {
        db.0.clone()
    }
}

impl From<Db> for crate::audit::AuditDb {
    fn from(db: Db) -> Self {
        db.0
    }
}

impl From<&Db> for crate::audit::AuditDb {
    fn from(db: &Db) -> Self {
        db.0.clone()
    }
}

impl From<&Db> for crate::auth::AuthDb {
    fn from(db: &Db) -> Self {
        db.0.clone()
    }
}

impl From<&Db> for crate::payments::PaymentsDb {
    fn from(db: &Db) -> Self {
        db.0.clone()
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
