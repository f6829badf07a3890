//! Growing up (SPEC section 10): one desktop's data dir copied into a team's PostgreSQL database,
//! once. Accounts, the payment cache and orders, the webhook inbox, the settings and the audit
//! log go across in one transaction; sessions, sign-in locks and document caches stay behind
//! (staff sign in again). A non-empty target is refused, and the sandbox-or-real mark goes with
//! the data: a sandbox dir (with its public demo account) goes only into a sandbox database.

use staffroom_core::error::{Error, Result};
use staffroom_core::store::transfer::DesktopData;
use staffroom_core::store::MetaStore as _;
use staffroom_postgres::Postgres;
use staffroom_sqlite::Sqlite;

/// What stays on the desktop: sessions and sign-in locks (staff sign in to the team afresh),
/// document caches and drafts (the team reads Google itself), and its settings and marks (the
/// install id, the mode mark and the keys are the team's own; the settings below travel).
const STAY_BEHIND: &[&str] =
    &["sessions", "login_attempts", "account_locks", "doc_cache", "doc_drafts", "doc_list_cache", "meta"];

/// The settings that travel.
const SETTINGS: &[&str] = &["audit_retention_days", "payments_sync_interval_secs"];

/// How many rows of each table were copied.
pub type Copied = Vec<(String, u64)>;

/// What the data dir holds: the mode it records, or the one the operator named for a dir that
/// records none; a contradiction, or neither, is refused.
fn source_mode(recorded: Option<String>, named: Option<&str>) -> Result<String> {
    match (recorded, named) {
        (Some(recorded), Some(named)) if recorded != named => Err(Error::invalid_field(
            "source-mode",
            format!("the data dir records that it holds {recorded} data, not {named}"),
        )),
        (Some(recorded), _) => Ok(recorded),
        (None, Some(named)) => Ok(named.to_string()),
        (None, None) => Err(Error::invalid_field(
            "source-mode",
            "the data dir does not record whether it holds sandbox or real data: name it with \
             --source-mode real (or sandbox), after checking that it has no sandbox demo account",
        )),
    }
}

/// Copies the data dir's database `source` into the team's database `target`. A data dir that does not
/// record whether it is a sandbox's (made before data dirs did) is copied only when the operator
/// says what it holds (`named_mode`, `real` or `sandbox`): a sandbox's public demo account must
/// never enter a real team by default.
pub async fn from_data_dir(source: &Sqlite, target: &Postgres, named_mode: Option<&str>) -> Result<Copied> {
    let mode = source_mode(source.meta("data_mode").await?, named_mode)?;
    let mut settings = Vec::new();
    for key in SETTINGS {
        if let Some(value) = source.meta(key).await? {
            settings.push((key.to_string(), value));
        }
    }
    let tables = source.export(STAY_BEHIND).await?;
    target.import(DesktopData { mode, tables, settings }).await
}
