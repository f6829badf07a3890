//! The team store (SPEC section 10): PostgreSQL, a pool of connections to one database that any
//! number of replicas share, and PostgreSQL's own versioned migrations (`migrations/`, beside
//! `src/`), applied by one replica at a time under an advisory lock. Each module here
//! implements, in PostgreSQL's SQL, the store trait of one area of `staffroom-core`;
//! `staffroom-sqlite` has the same modules.

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
pub mod tls;
mod transfer;
pub mod webhooks;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use tokio_postgres::tls::MakeTlsConnect;

use staffroom_core::error::{Error, Result};
use staffroom_core::text_enum::TextEnum;

/// PostgreSQL's schema, one SQL file per version, in order; additive only.
const MIGRATION_FILES: &[&str] = &[
    include_str!("../migrations/0001_foundation.sql"),
    include_str!("../migrations/0002_accounts.sql"),
    include_str!("../migrations/0003_docs.sql"),
    include_str!("../migrations/0004_payments.sql"),
    include_str!("../migrations/0005_webhooks.sql"),
    include_str!("../migrations/0006_events.sql"),
    include_str!("../migrations/0007_sealed_secrets.sql"),
    include_str!("../migrations/0008_list_order.sql"),
    include_str!("../migrations/0009_whole_store.sql"),
    include_str!("../migrations/0010_customers.sql"),
    include_str!("../migrations/0011_order_search.sql"),
    include_str!("../migrations/0012_order_search_trigrams.sql"),
    include_str!("../migrations/0013_sales_by_day.sql"),
    include_str!("../migrations/0014_order_buyers.sql"),
    include_str!("../migrations/0015_invoices.sql"),
    include_str!("../migrations/0016_license_keys.sql"),
    include_str!("../migrations/0017_inbox_without_licence_keys.sql"),
    include_str!("../migrations/0018_discounts.sql"),
];

/// The schema version this binary knows.
pub fn schema_version() -> i64 {
    MIGRATION_FILES.len() as i64
}

/// The advisory lock key migrations run under ("staffroom" as bytes, so that it is ours).
const MIGRATION_LOCK: i64 = 0x7374_6166_6672_6f6f;

/// A connection outside the pool, to be driven by its owner.
pub type Connection = tokio_postgres::Connection<
    tokio_postgres::Socket,
    <tls::Connector as MakeTlsConnect<tokio_postgres::Socket>>::Stream,
>;

/// How long connecting to the database may take.
const CONNECT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);
/// How long a request may wait for a free connection of the pool.
const WAIT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// How many connections one replica keeps at most.
const POOL_SIZE: usize = 16;

/// Why the database could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("{0}")]
    Url(String),
    #[error("cannot reach the database: {0}")]
    Connect(String),
    #[error("the database was written by a newer Staffroom (schema {found}, this build knows {known}); upgrade every replica")]
    TooNew { found: i64, known: i64 },
    #[error("cannot migrate the database: {0}")]
    Migration(tokio_postgres::Error),
}

/// A handle on the team's database.
#[derive(Clone)]
pub struct Postgres {
    pool: Pool,
    /// Where the pool connects, and how, for a connection of its own (`LISTEN` needs one).
    config: tokio_postgres::Config,
    tls: tls::Connector,
}

impl std::fmt::Debug for Postgres {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the URL: it may carry a password.
        f.write_str("Postgres")
    }
}

/// An error with its causes, which tokio-postgres keeps out of its own message (a TLS handshake
/// says only that it failed; its cause says the certificate was signed by an unknown CA).
fn described(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut cause = err.source();
    while let Some(err) = cause {
        let more = err.to_string();
        if !text.contains(&more) {
            text = format!("{text}: {more}");
        }
        cause = err.source();
    }
    text
}

/// The driver's and the pool's errors reach the core as the core's errors. The orphan rule keeps
/// a `From` between two other crates' types out of this crate, so each call into them says it:
/// `.sql()?`.
pub trait Sql<T> {
    fn sql(self) -> Result<T>;
}

impl<T> Sql<T> for std::result::Result<T, tokio_postgres::Error> {
    fn sql(self) -> Result<T> {
        self.map_err(|e| Error::internal("database", e))
    }
}

impl<T> Sql<T> for std::result::Result<T, deadpool_postgres::PoolError> {
    fn sql(self) -> Result<T> {
        self.map_err(|err| match err {
            // The database is away or overwhelmed: say so, and that it is worth trying again.
            deadpool_postgres::PoolError::Timeout(_) | deadpool_postgres::PoolError::Backend(_) => {
                tracing::error!(error = described(&err), "the database cannot be reached");
                Error::new(
                    staffroom_core::ErrorCode::Unavailable,
                    "The team's database cannot be reached; try again shortly",
                )
            }
            other => Error::internal("database pool", other),
        })
    }
}

/// A text enum of the core, read from its stored text ([`TextEnum`]): the orphan rule keeps
/// tokio-postgres' `FromSql` off the core's enums, and what is written is `.as_str()`. A text
/// that names no value panics, as `Row::get` does on a column of the wrong type: the schema's
/// CHECK constraints keep such a text out.
pub(crate) fn get_enum<E: TextEnum>(row: &tokio_postgres::Row, index: usize) -> E {
    let text: &str = row.get(index);
    E::parse(text).unwrap_or_else(|| panic!("{text:?} in column {index} is not a {}", E::NAME))
}

impl Postgres {
    /// Connects to the database at `url` (a `postgres://` URL or key=value string) and brings its
    /// schema up to date.
    pub async fn open(url: &str) -> Result<Postgres, OpenError> {
        let (mut config, tls) = tls::settings(url).map_err(OpenError::Url)?;
        if config.get_connect_timeout().is_none() {
            // A database that does not answer is an error the caller sees, not a wait forever.
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        let manager = Manager::from_config(
            config.clone(),
            tls.clone(),
            ManagerConfig { recycling_method: RecyclingMethod::Fast },
        );
        let pool = Pool::builder(manager)
            .max_size(POOL_SIZE)
            .runtime(deadpool_postgres::Runtime::Tokio1)
            .create_timeout(Some(CONNECT_TIMEOUT))
            .wait_timeout(Some(WAIT_TIMEOUT))
            .build()
            .map_err(|e| OpenError::Connect(e.to_string()))?;
        let db = Postgres { pool, config, tls };
        db.migrate().await?;
        Ok(db)
    }

    /// Applies the migrations this database has not had yet, one replica at a time: the others
    /// wait on the lock, then find nothing left to do.
    async fn migrate(&self) -> Result<(), OpenError> {
        let mut client = self.pool.get().await.map_err(|e| {
            let e = described(&e);
            OpenError::Connect(format!("{e}{}", tls::hint(&e)))
        })?;
        client.execute("SELECT pg_advisory_lock($1)", &[&MIGRATION_LOCK]).await.map_err(OpenError::Migration)?;
        let outcome = async {
            client
                .batch_execute(
                    "CREATE TABLE IF NOT EXISTS schema_migrations (
                        version    BIGINT PRIMARY KEY,
                        applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
                    )",
                )
                .await
                .map_err(OpenError::Migration)?;
            let found: i64 = client
                .query_one("SELECT COALESCE(MAX(version), 0) FROM schema_migrations", &[])
                .await
                .map_err(OpenError::Migration)?
                .get(0);
            if found > schema_version() {
                return Err(OpenError::TooNew { found, known: schema_version() });
            }
            for (index, sql) in MIGRATION_FILES.iter().enumerate().skip(found as usize) {
                let version = index as i64 + 1;
                let tx = client.transaction().await.map_err(OpenError::Migration)?;
                tx.batch_execute(sql).await.map_err(OpenError::Migration)?;
                tx.execute("INSERT INTO schema_migrations (version) VALUES ($1)", &[&version])
                    .await
                    .map_err(OpenError::Migration)?;
                tx.commit().await.map_err(OpenError::Migration)?;
                tracing::info!(version, "database migrated");
            }
            Ok(())
        }
        .await;
        // Unlocked whatever happened (a connection returned to the pool keeps its session locks).
        let _ = client.execute("SELECT pg_advisory_unlock($1)", &[&MIGRATION_LOCK]).await;
        outcome
    }

    /// A connection of its own, outside the pool, with the stream of what the server sends
    /// unasked (notifications); the caller drives the connection.
    pub async fn dedicated(&self) -> Result<(tokio_postgres::Client, Connection)> {
        Ok(self.config.connect(self.tls.clone()).await.sql()?)
    }

    /// A connection from the pool.
    pub async fn client(&self) -> Result<deadpool_postgres::Object> {
        Ok(self.pool.get().await.sql()?)
    }
}
