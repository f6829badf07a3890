//! SQL of sign-in throttling. An attempt is counted (reserved) before its password is hashed, in
//! one immediate transaction, so however many guesses arrive at once only
//! [`ATTEMPTS_BEFORE_LOCK`] per account and address reach the hasher before a lock. A lock
//! refuses the account at that address only; [`ACCOUNT_CEILING`] failures within an hour, from
//! any addresses, lock the account everywhere until an admin unlocks it.

use rusqlite::{params, Connection, OptionalExtension, Transaction};
use serde_json::json;

use crate::error::Result;
use crate::store::audit::{self, NewAuditEntry};

/// Attempts per account and address before a lock.
pub const ATTEMPTS_BEFORE_LOCK: i64 = 5;
/// Failures per account within [`CEILING_WINDOW_SECS`], from any addresses, that lock it until
/// an admin unlocks it.
pub const ACCOUNT_CEILING: i64 = 20;
/// The window of the account ceiling.
pub const CEILING_WINDOW_SECS: i64 = 3600;
/// How long the `Retry-After` of an account lock says (it lasts until an admin unlocks it).
pub(crate) const ACCOUNT_LOCK_RETRY_SECS: u64 = 3600;

/// Whether an attempt may go to the hasher.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reservation {
    Go,
    /// Refused without hashing: try again after this many seconds.
    Refused {
        retry_after: u64,
    },
}

/// The wait of the `lock`th lock (1-based): 30 s, doubling, at most an hour.
pub fn lock_secs(lock: i64) -> i64 {
    let doublings = (lock - 1).clamp(0, 20) as u32;
    (30i64 << doublings).min(3600)
}

fn key(email: &str, address: &str) -> String {
    format!("{} {address}", email.to_lowercase())
}

/// Reserves one attempt of `email` from `address`, or refuses it (recording the refusal in the
/// lock's one audit entry).
pub fn reserve(conn: &mut Connection, email: &str, address: &str, now: i64) -> Result<Reservation> {
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    let email = email.to_lowercase();
    let locked_account: bool = tx
        .query_row("SELECT locked FROM account_locks WHERE email = ?1", [&email], |r| r.get::<_, i64>(0))
        .optional()?
        .is_some_and(|locked| locked == 1);
    let key = key(&email, address);
    tx.execute(
        "INSERT INTO login_attempts (key, email, attempts, failures, locks, locked_until, refused, updated_at)
         VALUES (?1, ?2, 0, 0, 0, 0, 0, ?3) ON CONFLICT(key) DO NOTHING",
        params![key, email, now],
    )?;
    let (attempts, locks, locked_until): (i64, i64, i64) =
        tx.query_row("SELECT attempts, locks, locked_until FROM login_attempts WHERE key = ?1", [&key], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })?;
    let refused_for = if locked_account {
        Some(ACCOUNT_LOCK_RETRY_SECS)
    } else if locked_until > now {
        Some((locked_until - now) as u64)
    } else if attempts >= ATTEMPTS_BEFORE_LOCK {
        // The allowed attempts are in flight: the lock they will set is the wait.
        Some(lock_secs(locks + 1) as u64)
    } else {
        None
    };
    let outcome = match refused_for {
        Some(retry_after) => {
            note_refusal(&tx, &key, &email, address, locked_account, now)?;
            Reservation::Refused { retry_after: retry_after.max(1) }
        }
        None => {
            tx.execute(
                "UPDATE login_attempts SET attempts = attempts + 1, updated_at = ?2 WHERE key = ?1",
                params![key, now],
            )?;
            Reservation::Go
        }
    };
    tx.commit()?;
    Ok(outcome)
}

/// One audit entry per lock, counting the attempts it refused.
fn note_refusal(tx: &Transaction<'_>, key: &str, email: &str, address: &str, account: bool, now: i64) -> Result<()> {
    let (audit_id, refused): (Option<i64>, i64) = tx.query_row(
        "UPDATE login_attempts SET refused = refused + 1, updated_at = ?2 WHERE key = ?1 RETURNING audit_id, refused",
        params![key, now],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    let detail = json!({ "address": address, "refused": refused, "accountLocked": account });
    match audit_id {
        Some(id) => {
            tx.execute("UPDATE audit_log SET detail = ?2 WHERE id = ?1", params![id, detail.to_string()])?;
        }
        None => {
            audit::append(
                tx,
                &NewAuditEntry {
                    actor: "anonymous",
                    action: crate::audit::AuditAction::SignIn,
                    target: Some(email),
                    outcome: "throttled",
                    detail: Some(detail),
                },
            )?;
            tx.execute("UPDATE login_attempts SET audit_id = ?2 WHERE key = ?1", params![key, tx.last_insert_rowid()])?;
        }
    }
    Ok(())
}

/// How a reserved attempt ended. A failure may lock the address (after
/// [`ATTEMPTS_BEFORE_LOCK`]) or the account (after [`ACCOUNT_CEILING`] in the window); a success
/// clears the address's count. True when this failure locked the account.
pub fn record(conn: &mut Connection, email: &str, address: &str, now: i64, success: bool) -> Result<bool> {
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    let email = email.to_lowercase();
    let key = key(&email, address);
    if success {
        tx.execute("DELETE FROM login_attempts WHERE key = ?1", [&key])?;
        tx.commit()?;
        return Ok(false);
    }
    // The row may be gone: a right password or an admin's unlock cleared it while this attempt
    // was being checked. The failure then starts a fresh count.
    let (failures, locks): (i64, i64) = tx.query_row(
        "INSERT INTO login_attempts (key, email, attempts, failures, locks, locked_until, refused, updated_at)
         VALUES (?1, ?2, 0, 1, 0, 0, 0, ?3)
         ON CONFLICT(key) DO UPDATE SET failures = failures + 1, updated_at = ?3
         RETURNING failures, locks",
        params![key, email, now],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    if failures >= ATTEMPTS_BEFORE_LOCK {
        let lock = locks + 1;
        tx.execute(
            "UPDATE login_attempts SET attempts = 0, failures = 0, locks = ?2, locked_until = ?3, audit_id = NULL, refused = 0
             WHERE key = ?1",
            params![key, lock, now + lock_secs(lock)],
        )?;
    }
    // The account's failures within the hour, whatever the address (successes do not reset it:
    // a guesser cannot hide behind the owner's own sign-ins).
    let (window_start, account_failures): (i64, i64) = tx.query_row(
        "INSERT INTO account_locks (email, window_start, failures, locked) VALUES (?1, ?2, 1, 0)
         ON CONFLICT(email) DO UPDATE SET
             failures = CASE WHEN ?2 - window_start >= ?3 THEN 1 ELSE failures + 1 END,
             window_start = CASE WHEN ?2 - window_start >= ?3 THEN ?2 ELSE window_start END
         RETURNING window_start, failures",
        params![email, now, CEILING_WINDOW_SECS],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    let lock_account = account_failures >= ACCOUNT_CEILING;
    if lock_account {
        let changed = tx.execute("UPDATE account_locks SET locked = 1 WHERE email = ?1 AND locked = 0", [&email])?;
        if changed == 1 {
            audit::append(
                &tx,
                &NewAuditEntry {
                    actor: "system",
                    action: crate::audit::AuditAction::AccountLocked,
                    target: Some(&email),
                    outcome: "locked until an admin unlocks it",
                    detail: Some(json!({ "failures": account_failures, "since": window_start })),
                },
            )?;
        }
    }
    // Forget addresses nobody has tried for a day, so random guesses cannot fill the disk.
    tx.execute(
        "DELETE FROM login_attempts WHERE updated_at < ?1 AND locked_until < ?2",
        params![now - 24 * 3600, now],
    )?;
    tx.commit()?;
    Ok(lock_account)
}

/// Lifts every lock of `email` (an admin's unlock, a new password); how many there were.
pub fn unlock(conn: &Connection, email: &str) -> Result<usize> {
    let email = email.to_lowercase();
    let locks = conn.execute("DELETE FROM login_attempts WHERE email = ?1", [&email])?;
    let account = conn.execute("DELETE FROM account_locks WHERE email = ?1", [&email])?;
    Ok(locks + account)
}

/// Whether `email` is locked, at any address or as an account (for the Users screen).
pub fn is_locked(conn: &Connection, email: &str, now: i64) -> Result<bool> {
    let email = email.to_lowercase();
    let account: bool = conn
        .query_row("SELECT locked FROM account_locks WHERE email = ?1", [&email], |r| r.get::<_, i64>(0))
        .optional()?
        .is_some_and(|l| l == 1);
    let address: i64 = conn.query_row(
        "SELECT COUNT(*) FROM login_attempts WHERE email = ?1 AND locked_until > ?2",
        params![email, now],
        |r| r.get(0),
    )?;
    Ok(account || address > 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Db;

    #[test]
    fn five_attempts_then_a_lock_that_grows_and_only_that_address() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(dir.path()).unwrap();
        db.call_blocking(|conn| {
            for _ in 0..5 {
                assert_eq!(reserve(conn, "Ada@x.test", "1.1.1.1", 100)?, Reservation::Go);
            }
            // Reserved but not yet failed: the sixth waits for the lock they will set.
            assert!(matches!(reserve(conn, "ada@x.test", "1.1.1.1", 100)?, Reservation::Refused { .. }));
            for _ in 0..5 {
                record(conn, "ada@x.test", "1.1.1.1", 100, false)?;
            }
            assert_eq!(reserve(conn, "ada@x.test", "1.1.1.1", 101)?, Reservation::Refused { retry_after: 29 });
            assert_eq!(reserve(conn, "ada@x.test", "2.2.2.2", 101)?, Reservation::Go, "another address");
            // After the lock: five more, then a lock twice as long.
            for _ in 0..5 {
                assert_eq!(reserve(conn, "ada@x.test", "1.1.1.1", 131)?, Reservation::Go);
                record(conn, "ada@x.test", "1.1.1.1", 131, false)?;
            }
            assert_eq!(reserve(conn, "ada@x.test", "1.1.1.1", 131)?, Reservation::Refused { retry_after: 60 });
            assert!(is_locked(conn, "ada@x.test", 131)?);
            assert_eq!(unlock(conn, "ada@x.test")?, 3);
            assert_eq!(reserve(conn, "ada@x.test", "1.1.1.1", 131)?, Reservation::Go);
            Ok(())
        })
        .unwrap();
        assert_eq!(lock_secs(1), 30);
        assert_eq!(lock_secs(8), 3600);
    }

    #[test]
    fn a_failure_that_ends_after_a_success_cleared_the_count_still_counts() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(dir.path()).unwrap();
        db.call_blocking(|conn| {
            // Two guesses at once: the right one finishes first and clears the address's count.
            assert_eq!(reserve(conn, "ada@x.test", "1.1.1.1", 100)?, Reservation::Go);
            assert_eq!(reserve(conn, "ada@x.test", "1.1.1.1", 100)?, Reservation::Go);
            record(conn, "ada@x.test", "1.1.1.1", 100, true)?;
            assert!(!record(conn, "ada@x.test", "1.1.1.1", 100, false)?);
            let failures: i64 = conn.query_row(
                "SELECT failures FROM login_attempts WHERE key = ?1",
                [key("ada@x.test", "1.1.1.1")],
                |r| r.get(0),
            )?;
            assert_eq!(failures, 1);
            // The same after an admin's unlock.
            assert_eq!(reserve(conn, "ada@x.test", "1.1.1.1", 100)?, Reservation::Go);
            unlock(conn, "ada@x.test")?;
            record(conn, "ada@x.test", "1.1.1.1", 100, false)?;
            Ok(())
        })
        .unwrap();
    }

    #[test]
    fn the_account_ceiling_holds_across_addresses_until_unlocked() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(dir.path()).unwrap();
        db.call_blocking(|conn| {
            let mut locked = false;
            for n in 0..ACCOUNT_CEILING {
                let address = format!("10.0.0.{}", n / 5);
                assert_eq!(reserve(conn, "ada@x.test", &address, 10)?, Reservation::Go);
                locked = record(conn, "ada@x.test", &address, 10, false)?;
            }
            assert!(locked);
            assert_eq!(reserve(conn, "ada@x.test", "192.0.2.1", 5000)?, Reservation::Refused { retry_after: 3600 });
            unlock(conn, "ada@x.test")?;
            assert_eq!(reserve(conn, "ada@x.test", "192.0.2.1", 5000)?, Reservation::Go);
            Ok(())
        })
        .unwrap();
    }
}
