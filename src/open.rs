//! Opening Staffroom: the store the configuration names (the embedded SQLite in the data dir, or
//! the team's PostgreSQL), its mode settled, and the core started on it.

use staffroom_core::config::Config;
use staffroom_core::store::Db;
use staffroom_core::{Core, Error, ErrorCode, Result};
use staffroom_postgres::Postgres;
use staffroom_sqlite::Sqlite;

/// Opens the data dir (creating it, private to its owner), the database it or `config` names,
/// the secrets, and starts the services. The service and the app record the database's mode
/// (sandbox or real) on first start and are refused the other mode later; CLI commands follow
/// the recorded mode. Blocking work (migrations, keyring) runs off the async threads.
pub async fn open(mut config: Config) -> Result<Core> {
    let (db, sandbox) = open_database(&config).await?;
    config.sandbox = sandbox;
    let simulators = match sandbox {
        true => Some(start_sandbox(&mut config, &db).await?),
        false => None,
    };
    Core::start(config, db, simulators).await
}

#[cfg(feature = "sandbox")]
async fn start_sandbox(
    config: &mut Config,
    db: &Db,
) -> Result<std::sync::Arc<dyn staffroom_core::sandbox::Simulators>> {
    Ok(crate::sandbox::start(config, db).await?)
}

#[cfg(not(feature = "sandbox"))]
async fn start_sandbox(_: &mut Config, _: &Db) -> Result<std::sync::Arc<dyn staffroom_core::sandbox::Simulators>> {
    Err(Error::new(
        ErrorCode::InvalidRequest,
        "this build of Staffroom has no sandbox: build it with the `sandbox` feature",
    ))
}

/// Opens the database `config` names, embedded or the team's, and settles its mode (sandbox or
/// real): whether this core runs in the sandbox.
async fn open_database(config: &Config) -> Result<(Db, bool)> {
    let (dir, asked, decides) = (config.data_dir.clone(), config.sandbox, config.long_running);
    match &config.database_url {
        None => {
            let db = tokio::task::spawn_blocking(move || {
                staffroom_core::data_dir::prepare(&dir)?;
                Sqlite::open(&dir).map(Db::new).map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))
            })
            .await??;
            let place = format!("the data dir {}", config.data_dir.display());
            let sandbox = staffroom_core::data_dir::settle_mode(&db, &place, "--data-dir", asked, decides).await?;
            // The WAL and shared-memory files SQLite has just made are private too.
            let dir = config.data_dir.clone();
            tokio::task::spawn_blocking(move || staffroom_core::data_dir::tighten(&dir)).await??;
            Ok((db, sandbox))
        }
        Some(url) => {
            // The data dir still holds this replica's logs.
            tokio::task::spawn_blocking(move || staffroom_core::data_dir::prepare(&dir)).await??;
            let db = Postgres::open(url.expose())
                .await
                .map(Db::new)
                .map_err(|e| Error::new(ErrorCode::Unavailable, e.to_string()))?;
            let sandbox =
                staffroom_core::data_dir::settle_mode(&db, "the team's database", "database", asked, decides).await?;
            Ok((db, sandbox))
        }
    }
}
