//! The data dir as a thing to protect: only its owner may read it (the database holds cached
//! documents, drafts, customers, webhook bodies and password hashes), and it keeps the mode it
//! was first served in, so sandbox data (and its well-known demo admin) never mixes with real
//! data.

use std::path::Path;

use crate::error::{Error, ErrorCode, Result};
use crate::store::Db;

/// The meta key holding the dir's mode: `sandbox` or `real`.
const MODE_KEY: &str = "data_mode";

/// Makes files this process creates private (0600 files, 0700 dirs), whatever umask it was
/// started with: SQLite's WAL and shared-memory files and the log files are created later, by
/// code that takes the process umask. Call once, first thing, from a binary's `main`.
#[cfg(unix)]
pub fn private_files_from_now_on() {
    // SAFETY: umask only sets the process's file-creation mask; it cannot fail.
    unsafe {
        libc::umask(0o077);
    }
}

#[cfg(not(unix))]
pub fn private_files_from_now_on() {}

/// Creates `dir` (0700) or, when it exists with looser modes, tightens it and everything in it
/// (dirs 0700, files 0600), saying so in the log.
pub fn prepare(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::new(ErrorCode::Internal, format!("cannot create the data dir {}: {e}", dir.display())))?;
    let tightened = tighten(dir)?;
    if tightened > 0 {
        tracing::warn!(
            data_dir = %dir.display(),
            paths = tightened,
            "tightened the data dir's permissions: only its owner may read it now"
        );
    }
    Ok(())
}

/// Sets private modes on `path` and below; how many paths it changed.
#[cfg(unix)]
pub fn tighten(path: &Path) -> Result<usize> {
    use std::os::unix::fs::PermissionsExt as _;
    let cannot = |e: std::io::Error| Error::new(ErrorCode::Internal, format!("cannot secure {}: {e}", path.display()));
    let meta = std::fs::symlink_metadata(path).map_err(cannot)?;
    if meta.file_type().is_symlink() {
        return Ok(0);
    }
    let wanted = if meta.is_dir() { 0o700 } else { 0o600 };
    let mut changed = 0;
    if meta.permissions().mode() & 0o777 != wanted {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(wanted)).map_err(cannot)?;
        changed += 1;
    }
    if meta.is_dir() {
        for entry in std::fs::read_dir(path).map_err(cannot)? {
            changed += tighten(&entry.map_err(cannot)?.path())?;
        }
    }
    Ok(changed)
}

#[cfg(not(unix))]
pub fn tighten(_path: &Path) -> Result<usize> {
    Ok(0)
}

/// Whether the data dir at `dir` (its database `db`) is a sandbox, given what was asked. The
/// service and the app (`decides`) record the mode the first time they run on a dir, and are
/// refused a dir recorded in the other mode; CLI commands follow the recorded mode and never
/// record one, so an account added to a fresh dir can later sign in to whichever mode serves it.
pub fn settle_mode(db: &Db, dir: &Path, asked_sandbox: bool, decides: bool) -> Result<bool> {
    let recorded = db.call_blocking(|conn| {
        use rusqlite::OptionalExtension as _;
        Ok(conn.query_row("SELECT value FROM meta WHERE key = ?1", [MODE_KEY], |r| r.get::<_, String>(0)).optional()?)
    })?;
    let recorded = recorded.map(|mode| mode == "sandbox");
    match (recorded, decides) {
        (Some(sandbox), false) => Ok(sandbox),
        (None, false) => Ok(asked_sandbox),
        (Some(sandbox), true) if sandbox == asked_sandbox => Ok(sandbox),
        (Some(sandbox), true) => Err(Error::new(
            ErrorCode::InvalidRequest,
            if sandbox {
                format!(
                    "the data dir {} holds sandbox data (with its public demo account): start it with --sandbox, or give real data its own --data-dir",
                    dir.display()
                )
            } else {
                format!(
                    "the data dir {} holds real data: start it without --sandbox, or give the sandbox its own --data-dir",
                    dir.display()
                )
            },
        )),
        (None, true) => {
            let mode = if asked_sandbox { "sandbox" } else { "real" };
            db.call_blocking(|conn| {
                conn.execute("INSERT INTO meta (key, value) VALUES (?1, ?2)", [MODE_KEY, mode])?;
                Ok(())
            })?;
            tracing::info!(data_dir = %dir.display(), mode, "the data dir's mode is now recorded");
            Ok(asked_sandbox)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_service_decides_and_cli_commands_follow() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(dir.path()).unwrap();
        // A CLI command on a fresh dir does not decide.
        assert!(settle_mode(&db, dir.path(), true, false).unwrap());
        assert!(!settle_mode(&db, dir.path(), false, false).unwrap());
        // The first service does; then the other mode is refused, naming the dir and the flag.
        assert!(settle_mode(&db, dir.path(), true, true).unwrap());
        let err = settle_mode(&db, dir.path(), false, true).unwrap_err();
        assert!(err.message.contains(&dir.path().display().to_string()) && err.message.contains("--sandbox"));
        // A CLI command follows the record, whatever it asked.
        assert!(settle_mode(&db, dir.path(), false, false).unwrap());
    }

    #[cfg(unix)]
    #[test]
    fn loose_modes_are_tightened() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("inner/file");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, "x").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        assert!(tighten(dir.path()).unwrap() >= 2);
        assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(std::fs::metadata(dir.path()).unwrap().permissions().mode() & 0o777, 0o700);
        assert_eq!(tighten(dir.path()).unwrap(), 0, "nothing left to change");
    }
}
