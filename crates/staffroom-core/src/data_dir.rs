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

/// Whether the data at `place` (a data dir, or a team's database, as errors name it; `own` says
/// how to give the other mode its own place) is a sandbox's, given what was asked. The service and the app (`decides`) record the mode the first time they run on it, and
/// are refused data recorded in the other mode; CLI commands follow the recorded mode and never
/// record one, so an account added to fresh data can later sign in to whichever mode serves it.
pub async fn settle_mode(db: &Db, place: &str, own: &str, asked_sandbox: bool, decides: bool) -> Result<bool> {
    let recorded = db.meta(MODE_KEY).await?.map(|mode| mode == "sandbox");
    let refused = |sandbox: bool| {
        Error::new(
            ErrorCode::InvalidRequest,
            if sandbox {
                format!(
                    "{place} holds sandbox data (with its public demo account): start it with --sandbox, or give real data its own {own}"
                )
            } else {
                format!("{place} holds real data: start it without --sandbox, or give the sandbox its own {own}")
            },
        )
    };
    match (recorded, decides) {
        (Some(sandbox), false) => Ok(sandbox),
        (None, false) => Ok(asked_sandbox),
        (Some(sandbox), true) if sandbox == asked_sandbox => Ok(sandbox),
        (Some(sandbox), true) => Err(refused(sandbox)),
        (None, true) => {
            let mode = if asked_sandbox { "sandbox" } else { "real" };
            // Two replicas starting together in different modes: the first one recorded wins.
            let kept = db.meta_insert_if_absent(MODE_KEY, mode.to_string()).await? == "sandbox";
            if kept != asked_sandbox {
                return Err(refused(kept));
            }
            tracing::info!(%place, mode, "the mode is now recorded");
            Ok(asked_sandbox)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
