//! The embedded store (the default): SQLite, one database file in the data dir, WAL, foreign
//! keys, a busy time-out, and SQLite's own versioned migrations (`migrations/`, beside `src/`).
//! Every query runs on the blocking pool, never on the async threads. Each module here
//! implements, in SQLite's SQL, the store trait of one area of `staffroom-core`;
//! `staffroom-postgres` has the same modules.

pub mod accounts;
pub mod applying;
pub mod audit;
pub mod customers;
pub mod discounts;
pub mod docs;
pub mod events;
mod filter;
pub mod fleet;
pub mod invoices;
pub mod license_keys;
pub mod meta;
pub mod payments;
mod transfer;
pub mod webhooks;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use r2d2_sqlite::SqliteConnectionManager;
use rusqlite::Connection;
use rusqlite_migration::{Migrations, M};
use staffroom_core::text_enum::TextEnum;

use staffroom_core::error::{Error, Result};

/// The schema, one SQL file per version, in order; additive only.
const MIGRATION_FILES: &[&str] = &[
    include_str!("../migrations/0001_foundation.sql"),
    include_str!("../migrations/0002_payments.sql"),
    include_str!("../migrations/0003_webhooks.sql"),
    include_str!("../migrations/0004_docs.sql"),
    include_str!("../migrations/0005_doc_lists.sql"),
    include_str!("../migrations/0006_order_checks.sql"),
    include_str!("../migrations/0007_hardening.sql"),
    include_str!("../migrations/0008_refunds.sql"),
    include_str!("../migrations/0009_whole_store.sql"),
    include_str!("../migrations/0010_customers.sql"),
    include_str!("../migrations/0011_order_search.sql"),
    include_str!("../migrations/0012_sales_by_day.sql"),
    include_str!("../migrations/0013_invoices.sql"),
    include_str!("../migrations/0014_license_keys.sql"),
    include_str!("../migrations/0015_inbox_without_licence_keys.sql"),
    include_str!("../migrations/0016_discounts.sql"),
];

fn migrations() -> Migrations<'static> {
    Migrations::new(MIGRATION_FILES.iter().map(|sql| M::up(sql)).collect())
}

/// rusqlite's errors reach the core as internal "database" errors. The orphan rule keeps a `From`
/// between two other crates' types out of this crate, so each call into rusqlite says it: `.sql()?`.
pub trait Sql<T> {
    fn sql(self) -> Result<T>;
}

impl<T> Sql<T> for rusqlite::Result<T> {
    fn sql(self) -> Result<T> {
        self.map_err(|e| Error::internal("database", e))
    }
}

/// A text enum of the core, read from its stored text ([`TextEnum`]): the orphan rule keeps
/// rusqlite's `FromSql` off the core's enums, and what is written is `.as_str()`.
pub(crate) fn get_enum<E: TextEnum>(row: &rusqlite::Row<'_>, index: usize) -> rusqlite::Result<E> {
    let text: String = row.get(index)?;
    E::parse(&text).ok_or_else(|| {
        rusqlite::Error::FromSqlConversionFailure(
            index,
            rusqlite::types::Type::Text,
            format!("{text:?} is not a {}", E::NAME).into(),
        )
    })
}

/// The schema version this binary knows.
pub fn schema_version() -> usize {
    MIGRATION_FILES.len()
}

/// The name of the database file inside the data dir.
pub const DB_FILE: &str = "staffroom.sqlite3";

/// The embedded database: a small pool of connections used from the blocking thread pool.
#[derive(Clone)]
pub struct Sqlite {
    pool: r2d2::Pool<SqliteConnectionManager>,
    path: PathBuf,
    /// Turns at writing among this handle's writers, handed over in the order they asked (see
    /// [`Sqlite::write_turn`]).
    writing: Arc<tokio::sync::Mutex<()>>,
}

impl std::fmt::Debug for Sqlite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sqlite").field("path", &self.path).finish()
    }
}

/// Why the database could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("the database {path} was written by a newer Staffroom (schema {found}, this build knows {known}); install the newer version or use another --data-dir")]
    TooNew { path: PathBuf, found: i64, known: usize },
    #[error("cannot open the database {path}: {source}")]
    Sqlite { path: PathBuf, source: rusqlite::Error },
    #[error("cannot migrate the database {path}: {source}")]
    Migration { path: PathBuf, source: rusqlite_migration::Error },
    #[error("cannot create a connection pool for {path}: {source}")]
    Pool { path: PathBuf, source: r2d2::Error },
}

/// Settings every connection gets.
fn configure(conn: &mut Connection) -> rusqlite::Result<()> {
    conn.busy_timeout(Duration::from_secs(5))?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    // NORMAL is durable against a process crash in WAL mode; writers that must survive a power cut
    // (the webhook inbox) switch their own connection to FULL.
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    rusqlite::vtab::array::load_module(conn)?;
    Ok(())
}

impl Sqlite {
    /// Opens (creating if needed) the database in `data_dir` and brings its schema up to date.
    pub fn open(data_dir: &Path) -> Result<Sqlite, OpenError> {
        let path = data_dir.join(DB_FILE);
        let mut conn = Connection::open(&path).map_err(|source| OpenError::Sqlite { path: path.clone(), source })?;
        configure(&mut conn).map_err(|source| OpenError::Sqlite { path: path.clone(), source })?;
        let found: i64 = conn
            .pragma_query_value(None, "user_version", |row| row.get(0))
            .map_err(|source| OpenError::Sqlite { path: path.clone(), source })?;
        if found > schema_version() as i64 {
            return Err(OpenError::TooNew { path, found, known: schema_version() });
        }
        migrations().to_latest(&mut conn).map_err(|source| OpenError::Migration { path: path.clone(), source })?;
        drop(conn);

        let manager = SqliteConnectionManager::file(&path).with_init(configure);
        // Connections open when work needs them and close after a minute unused: each holds a
        // page cache of up to 2 MB, and eight kept open from the start held 3 MB of the
        // desktop's memory after its first sync.
        let pool = r2d2::Pool::builder()
            .max_size(8)
            .min_idle(Some(1))
            .idle_timeout(Some(Duration::from_secs(60)))
            .build(manager)
            .map_err(|source| OpenError::Pool { path: path.clone(), source })?;
        Ok(Sqlite { pool, path, writing: Default::default() })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Runs `f` with a connection on the blocking pool.
    pub async fn call<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T> + Send + 'static,
    {
        let pool = self.pool.clone();
        tokio::task::spawn_blocking(move || {
            let mut conn = pool.get().map_err(|e| Error::internal("database pool", e))?;
            f(&mut conn)
        })
        .await?
    }

    /// Runs `f`, which writes, with a connection on the blocking pool, in this handle's turn. The
    /// turn comes first, so that a writer waiting for it holds no connection readers could use.
    pub async fn write<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T> + Send + 'static,
    {
        let db = self.clone();
        tokio::task::spawn_blocking(move || {
            let _turn = db.write_turn();
            let mut conn = db.pool.get().map_err(|e| Error::internal("database pool", e))?;
            f(&mut conn)
        })
        .await?
    }

    /// Runs `f` inside one transaction on the blocking pool; it commits only if `f` succeeds.
    pub async fn transaction<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&rusqlite::Transaction<'_>) -> Result<T> + Send + 'static,
    {
        self.write(move |conn| {
            let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate).sql()?;
            let out = f(&tx)?;
            tx.commit().sql()?;
            Ok(out)
        })
        .await
    }

    /// Waits for this handle's turn to write (blocking: from a thread outside the runtime), held
    /// until the guard is dropped. SQLite's own wait for its write lock polls with sleeps that
    /// grow to 100 ms, so a writer that comes back at once (the webhook inbox at full speed) kept
    /// the others waiting for up to a second; turns taken in order hand the lock over at once.
    /// The inbox, [`Sqlite::write`] and [`Sqlite::transaction`] take turns; writers in other
    /// processes, and a session's occasional last-seen touch, still meet SQLite's wait.
    pub fn write_turn(&self) -> tokio::sync::OwnedMutexGuard<()> {
        self.writing.clone().blocking_lock_owned()
    }

    /// Runs `f` with a connection on the current thread (for the CLI and tests outside a runtime).
    pub fn call_blocking<T>(&self, f: impl FnOnce(&mut Connection) -> Result<T>) -> Result<T> {
        let mut conn = self.pool.get().map_err(|e| Error::internal("database pool", e))?;
        f(&mut conn)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use staffroom_core::store::MetaStore;

    #[test]
    fn migrations_are_valid() {
        migrations().validate().unwrap();
    }

    /// Writes through the pool wait for the turn, which the webhook inbox holds while it commits:
    /// SQLite's lock is then handed over in the order asked (tokio's mutex is first come, first
    /// served), not to whoever polls at the right moment.
    #[tokio::test(flavor = "multi_thread")]
    async fn pool_writers_wait_for_the_turn() {
        let dir = tempfile::tempdir().unwrap();
        let db = Sqlite::open(dir.path()).unwrap();
        let sqlite = db.clone();
        let held = tokio::task::spawn_blocking(move || sqlite.write_turn()).await.unwrap();
        let write = tokio::spawn({
            let db = db.clone();
            async move {
                db.write(|conn| Ok(conn.execute("INSERT INTO meta (key, value) VALUES ('a', '1')", []).sql()?)).await
            }
        });
        let transaction = tokio::spawn({
            let db = db.clone();
            async move {
                db.transaction(|tx| Ok(tx.execute("INSERT INTO meta (key, value) VALUES ('b', '2')", []).sql()?)).await
            }
        });
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        assert!(!write.is_finished() && !transaction.is_finished(), "both wait while the turn is held");
        assert_eq!(db.meta("a").await.unwrap(), None, "and have written nothing");
        drop(held);
        assert_eq!((write.await.unwrap().unwrap(), transaction.await.unwrap().unwrap()), (1, 1));
        assert_eq!((db.meta("a").await.unwrap(), db.meta("b").await.unwrap()), (Some("1".into()), Some("2".into())));
    }

    #[test]
    fn opens_a_real_file_with_wal_and_foreign_keys() {
        let dir = tempfile::tempdir().unwrap();
        let db = Sqlite::open(dir.path()).unwrap();
        let (mode, fk): (String, i64) = db
            .call_blocking(|c| {
                Ok((
                    c.pragma_query_value(None, "journal_mode", |r| r.get(0)).sql()?,
                    c.pragma_query_value(None, "foreign_keys", |r| r.get(0)).sql()?,
                ))
            })
            .unwrap();
        assert_eq!(mode, "wal");
        assert_eq!(fk, 1);
        assert!(dir.path().join(DB_FILE).exists());
        // Opening again is a no-op migration.
        drop(db);
        Sqlite::open(dir.path()).unwrap();
    }

    #[test]
    fn refuses_a_database_from_a_newer_binary() {
        let dir = tempfile::tempdir().unwrap();
        drop(Sqlite::open(dir.path()).unwrap());
        let conn = Connection::open(dir.path().join(DB_FILE)).unwrap();
        conn.pragma_update(None, "user_version", 99).unwrap();
        drop(conn);
        let err = Sqlite::open(dir.path()).err().expect("a newer database must be refused");
        let message = err.to_string();
        assert!(matches!(err, OpenError::TooNew { found: 99, .. }), "{message}");
        assert!(message.contains("newer Staffroom"), "{message}");
    }
}
