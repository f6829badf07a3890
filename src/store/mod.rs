//! Storage, behind one seam per area. Each area declares what it asks of a database as a trait of
//! units of work beside its service (`auth::store`, `audit::store`, `docs::store`,
//! `payments::store`; the `meta` table's is [`MetaStore`] here), with plain records. Two stores
//! implement every trait, module for module: [`sqlite`] (embedded, the default) and [`postgres`]
//! (team mode, SPEC section 10), each with its own migrations and connection set-up. A service
//! holds a [`Db`] and calls the traits through it; it never sees SQL.

pub mod migrate;
pub mod postgres;
pub mod sealed;
pub mod sqlite;

use std::path::Path;

pub use sqlite::{OpenError, Sqlite, DB_FILE};

use crate::audit::store::AuditStore;
use crate::auth::store::AccountStore;
use crate::docs::store::DocStore;
use crate::error::Result;
use crate::events::store::EventKeeping;
use crate::payments::store::{ApplyingStore, PaymentStore};
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

/// Everything a service may ask of a database: every area's trait.
pub trait Store:
    MetaStore
    + AuditStore
    + AccountStore
    + DocStore
    + PaymentStore
    + ApplyingStore
    + InboxStore
    + EventKeeping
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
        + ApplyingStore
        + InboxStore
        + EventKeeping
        + Send
        + Sync
{
}

/// A handle on the database, embedded or the team's. Services use it as a [`Store`]; the few
/// places that differ by design (the webhook inbox's group commit, the event stream's
/// `LISTEN/NOTIFY`, the fleet lock, copying a data dir into a team's database) match on it.
#[derive(Clone, Debug)]
pub enum Db {
    Sqlite(Sqlite),
    Postgres(postgres::Postgres),
}

impl Db {
    /// Opens (creating if needed) the embedded database in `data_dir` and brings its schema up to
    /// date.
    pub fn open(data_dir: &Path) -> Result<Db, OpenError> {
        Sqlite::open(data_dir).map(Db::Sqlite)
    }

    /// Connects to the team's PostgreSQL database at `url` and brings its schema up to date.
    pub async fn open_postgres(url: &str) -> Result<Db, postgres::OpenError> {
        postgres::Postgres::open(url).await.map(Db::Postgres)
    }
}

impl std::ops::Deref for Db {
    type Target = dyn Store;

    fn deref(&self) -> &Self::Target {
        match self {
            Db::Sqlite(db) => db,
            Db::Postgres(db) => db,
        }
    }
}
