//! SQLite's SQL of staff accounts, sessions and sign-in throttling. Writers that must see the
//! count they change (a reservation, a failure) take an immediate transaction, which SQLite
//! serialises; `auth::throttle` decides what the counts mean.

use crate::Sql as _;
use rusqlite::{params, Connection, OptionalExtension, Row, Transaction, TransactionBehavior};

use super::audit;
use super::Sqlite;
use staffroom_core::auth::store::{AccountStore, Role, SessionCheck, SessionRecord, UserRecord};
use staffroom_core::auth::throttle::{self, AttemptCount, Reservation, CEILING_WINDOW_SECS, FORGET_AFTER_SECS};
use staffroom_core::error::{Error, Result};

const USER_COLUMNS: &str = "id, email, name, role, password_hash, disabled, created_at, updated_at";

fn user_from_row(row: &Row<'_>) -> rusqlite::Result<UserRecord> {
    Ok(UserRecord {
        id: row.get(0)?,
        email: row.get(1)?,
        name: row.get(2)?,
        role: Role::parse(&row.get::<_, String>(3)?),
        password_hash: row.get(4)?,
        disabled: row.get::<_, i64>(5)? != 0,
        created_at: row.get(6)?,
        updated_at: row.get(7)?,
    })
}

/// The account with this email (case-insensitive).
pub fn find_by_email(conn: &Connection, email: &str) -> Result<Option<UserRecord>> {
    Ok(conn
        .query_row(&format!("SELECT {USER_COLUMNS} FROM users WHERE email = ?1"), [email], user_from_row)
        .optional()
        .sql()?)
}

/// The account with this id.
pub fn find_by_id(conn: &Connection, id: &str) -> Result<Option<UserRecord>> {
    Ok(conn
        .query_row(&format!("SELECT {USER_COLUMNS} FROM users WHERE id = ?1"), [id], user_from_row)
        .optional()
        .sql()?)
}

/// Every account, oldest first.
pub fn list(conn: &Connection) -> Result<Vec<UserRecord>> {
    let mut stmt = conn.prepare(&format!("SELECT {USER_COLUMNS} FROM users ORDER BY created_at, email")).sql()?;
    let rows = stmt.query_map([], user_from_row).sql()?.collect::<rusqlite::Result<Vec<_>>>().sql()?;
    Ok(rows)
}

/// How many accounts exist.
pub fn count(conn: &Connection) -> Result<i64> {
    Ok(conn.query_row("SELECT COUNT(*) FROM users", [], |row| row.get(0)).sql()?)
}

/// Inserts a new account; a taken email is an `invalid_request` on `email`.
pub fn insert(conn: &Connection, user: &UserRecord) -> Result<()> {
    let inserted = conn.execute(
        "INSERT INTO users (id, email, name, role, password_hash, disabled, created_at, updated_at, password_changed_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?7)
         ON CONFLICT(email) DO NOTHING",
        params![
            user.id,
            user.email,
            user.name,
            user.role.as_str(),
            user.password_hash,
            user.disabled as i64,
            user.created_at,
            user.updated_at
        ],
    ).sql()?;
    if inserted == 0 {
        return Err(Error::invalid_field("email", "an account with this email already exists"));
    }
    Ok(())
}

/// Replaces the password hash (after a change, or a parameter upgrade at login).
pub fn set_password_hash(conn: &Connection, id: &str, hash: &str, now: &str, changed: bool) -> Result<()> {
    if changed {
        conn.execute(
            "UPDATE users SET password_hash = ?2, updated_at = ?3, password_changed_at = ?3 WHERE id = ?1",
            params![id, hash, now],
        )
        .sql()?;
    } else {
        conn.execute("UPDATE users SET password_hash = ?2 WHERE id = ?1", params![id, hash]).sql()?;
    }
    Ok(())
}

/// Disables or enables an account.
pub fn set_disabled(conn: &Connection, id: &str, disabled: bool, now: &str) -> Result<()> {
    conn.execute("UPDATE users SET disabled = ?2, updated_at = ?3 WHERE id = ?1", params![id, disabled as i64, now])
        .sql()?;
    Ok(())
}

/// Starts a session.
pub fn insert_session(conn: &Connection, session: &SessionRecord) -> Result<()> {
    conn.execute(
        "INSERT INTO sessions (id, user_id, created_at, last_seen_at, expires_at, revoked_at, token_id)
         VALUES (?1, ?2, ?3, ?4, ?5, NULL, ?6)",
        params![
            session.id,
            session.user_id,
            session.created_at,
            session.last_seen_at,
            session.expires_at,
            session.token_id
        ],
    )
    .sql()?;
    Ok(())
}

/// Makes `new` the session's current token, if `old` still is (two refreshes of one token: only
/// the first wins). True when it was swapped.
pub fn rotate_token(conn: &Connection, id: &str, old: &str, new: &str, now: i64) -> Result<bool> {
    Ok(conn.execute(
        "UPDATE sessions SET token_id = ?3, last_seen_at = ?4 WHERE id = ?1 AND token_id = ?2 AND revoked_at IS NULL",
        params![id, old, new, now],
    ).sql()? == 1)
}

/// The session with this id.
pub fn find_session(conn: &Connection, id: &str) -> Result<Option<SessionRecord>> {
    Ok(conn
        .query_row(
            "SELECT id, user_id, created_at, last_seen_at, expires_at, revoked_at, token_id FROM sessions WHERE id = ?1",
            [id],
            |row| {
                Ok(SessionRecord {
                    id: row.get(0)?,
                    user_id: row.get(1)?,
                    created_at: row.get(2)?,
                    last_seen_at: row.get(3)?,
                    expires_at: row.get(4)?,
                    revoked_at: row.get(5)?,
                    token_id: row.get(6)?,
                })
            },
        )
        .optional().sql()?)
}

/// Marks the session as used now.
pub fn touch_session(conn: &Connection, id: &str, now: i64) -> Result<()> {
    conn.execute("UPDATE sessions SET last_seen_at = ?2 WHERE id = ?1 AND revoked_at IS NULL", params![id, now])
        .sql()?;
    Ok(())
}

/// Ends one session.
pub fn revoke_session(conn: &Connection, id: &str, now: i64) -> Result<bool> {
    Ok(conn
        .execute("UPDATE sessions SET revoked_at = ?2 WHERE id = ?1 AND revoked_at IS NULL", params![id, now])
        .sql()?
        > 0)
}

/// Ends every session of a user; returns how many were live.
pub fn revoke_user_sessions(conn: &Connection, user_id: &str, now: i64) -> Result<usize> {
    Ok(conn
        .execute("UPDATE sessions SET revoked_at = ?2 WHERE user_id = ?1 AND revoked_at IS NULL", params![user_id, now])
        .sql()?)
}

/// Drops sessions that ended more than a day ago, so the table does not grow forever.
/// Ends the live sessions of `started`'s user past the newest `keep`, never `started` itself;
/// how many.
pub fn end_sessions_past(conn: &Connection, started: &SessionRecord, keep: u32, now: i64) -> Result<u64> {
    let ended = conn
        .execute(
            "UPDATE sessions SET revoked_at = ?2
             WHERE user_id = ?1 AND revoked_at IS NULL AND expires_at > ?2 AND id NOT IN (
                 SELECT id FROM sessions WHERE user_id = ?1 AND revoked_at IS NULL AND expires_at > ?2
                 ORDER BY id = ?4 DESC, created_at DESC, rowid DESC LIMIT ?3)",
            params![started.user_id, now, keep, started.id],
        )
        .sql()?;
    Ok(ended as u64)
}

pub fn prune_sessions(conn: &Connection, now: i64) -> Result<usize> {
    Ok(conn.execute("DELETE FROM sessions WHERE expires_at < ?1 OR revoked_at < ?1", params![now - 24 * 3600]).sql()?)
}

/// Reserves one attempt of `email` from `address`, or refuses it (recording the refusal in the
/// lock's one audit entry).
pub fn reserve(conn: &mut Connection, email: &str, address: &str, now: i64) -> Result<Reservation> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).sql()?;
    let email = email.to_lowercase();
    let account_locked: bool = tx
        .query_row("SELECT locked FROM account_locks WHERE email = ?1", [&email], |r| r.get::<_, i64>(0))
        .optional()
        .sql()?
        .is_some_and(|locked| locked == 1);
    let key = throttle::key(&email, address);
    tx.execute(
        "INSERT INTO login_attempts (key, email, attempts, failures, locks, locked_until, refused, updated_at)
         VALUES (?1, ?2, 0, 0, 0, 0, 0, ?3) ON CONFLICT(key) DO NOTHING",
        params![key, email, now],
    )
    .sql()?;
    let count = tx
        .query_row("SELECT attempts, locks, locked_until FROM login_attempts WHERE key = ?1", [&key], |r| {
            Ok(AttemptCount { account_locked, attempts: r.get(0)?, locks: r.get(1)?, locked_until: r.get(2)? })
        })
        .sql()?;
    let reservation = throttle::decide(count, now);
    match reservation {
        Reservation::Refused { .. } => note_refusal(&tx, &key, &email, address, account_locked, now)?,
        Reservation::Go => {
            tx.execute(
                "UPDATE login_attempts SET attempts = attempts + 1, updated_at = ?2 WHERE key = ?1",
                params![key, now],
            )
            .sql()?;
        }
    }
    tx.commit().sql()?;
    Ok(reservation)
}

/// One audit entry per lock, counting the attempts it refused.
fn note_refusal(tx: &Transaction<'_>, key: &str, email: &str, address: &str, account: bool, now: i64) -> Result<()> {
    let (audit_id, refused): (Option<i64>, i64) = tx.query_row(
        "UPDATE login_attempts SET refused = refused + 1, updated_at = ?2 WHERE key = ?1 RETURNING audit_id, refused",
        params![key, now],
        |r| Ok((r.get(0)?, r.get(1)?)),
    ).sql()?;
    let detail = throttle::refusal_detail(address, refused, account);
    match audit_id {
        Some(id) => {
            tx.execute("UPDATE audit_log SET detail = ?2 WHERE id = ?1", params![id, detail.to_string()]).sql()?;
        }
        None => {
            audit::append(tx, &throttle::refusal_entry(email, detail))?;
            tx.execute("UPDATE login_attempts SET audit_id = ?2 WHERE key = ?1", params![key, tx.last_insert_rowid()])
                .sql()?;
        }
    }
    Ok(())
}

/// How a reserved attempt ended: a failure may lock the address or the account (as
/// `auth::throttle` says); a success clears the address's count. True when this failure locked
/// the account.
pub fn record(conn: &mut Connection, email: &str, address: &str, now: i64, success: bool) -> Result<bool> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).sql()?;
    let email = email.to_lowercase();
    let key = throttle::key(&email, address);
    if success {
        clear_attempts(&tx, &email, address)?;
        tx.commit().sql()?;
        return Ok(false);
    }
    // The row may be gone: a right password or an admin's unlock cleared it while this attempt
    // was being checked. The failure then starts a fresh count.
    let (failures, locks): (i64, i64) = tx
        .query_row(
            "INSERT INTO login_attempts (key, email, attempts, failures, locks, locked_until, refused, updated_at)
         VALUES (?1, ?2, 0, 1, 0, 0, 0, ?3)
         ON CONFLICT(key) DO UPDATE SET failures = failures + 1, updated_at = ?3
         RETURNING failures, locks",
            params![key, email, now],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .sql()?;
    if let Some((lock, locked_until)) = throttle::lock_after_failure(failures, locks, now) {
        tx.execute(
            "UPDATE login_attempts SET attempts = 0, failures = 0, locks = ?2, locked_until = ?3, audit_id = NULL, refused = 0
             WHERE key = ?1",
            params![key, lock, locked_until],
        ).sql()?;
    }
    // The account's failures within the window, whatever the address (successes do not reset
    // it: a guesser cannot hide behind the owner's own sign-ins).
    let (window_start, account_failures): (i64, i64) = tx
        .query_row(
            "INSERT INTO account_locks (email, window_start, failures, locked) VALUES (?1, ?2, 1, 0)
         ON CONFLICT(email) DO UPDATE SET
             failures = CASE WHEN ?2 - window_start >= ?3 THEN 1 ELSE failures + 1 END,
             window_start = CASE WHEN ?2 - window_start >= ?3 THEN ?2 ELSE window_start END
         RETURNING window_start, failures",
            params![email, now, CEILING_WINDOW_SECS],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .sql()?;
    let lock_account = throttle::locks_account(account_failures);
    if lock_account {
        let changed =
            tx.execute("UPDATE account_locks SET locked = 1 WHERE email = ?1 AND locked = 0", [&email]).sql()?;
        if changed == 1 {
            audit::append(&tx, &throttle::account_lock_entry(&email, account_failures, window_start))?;
        }
    }
    tx.execute(
        "DELETE FROM login_attempts WHERE updated_at < ?1 AND locked_until < ?2",
        params![now - FORGET_AFTER_SECS, now],
    )
    .sql()?;
    tx.commit().sql()?;
    Ok(lock_account)
}

/// A right password: the address's count starts again.
fn clear_attempts(conn: &Connection, email: &str, address: &str) -> Result<()> {
    conn.execute("DELETE FROM login_attempts WHERE key = ?1", [throttle::key(email, address)]).sql()?;
    Ok(())
}

/// Lifts every lock of `email` (an admin's unlock, a new password); how many there were.
pub fn unlock(conn: &Connection, email: &str) -> Result<usize> {
    let email = email.to_lowercase();
    let locks = conn.execute("DELETE FROM login_attempts WHERE email = ?1", [&email]).sql()?;
    let account = conn.execute("DELETE FROM account_locks WHERE email = ?1", [&email]).sql()?;
    Ok(locks + account)
}

/// Whether `email` is locked, at any address or as an account (for the Users screen).
pub fn is_locked(conn: &Connection, email: &str, now: i64) -> Result<bool> {
    let email = email.to_lowercase();
    let account: bool = conn
        .query_row("SELECT locked FROM account_locks WHERE email = ?1", [&email], |r| r.get::<_, i64>(0))
        .optional()
        .sql()?
        .is_some_and(|l| l == 1);
    let address: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM login_attempts WHERE email = ?1 AND locked_until > ?2",
            params![email, now],
            |r| r.get(0),
        )
        .sql()?;
    Ok(account || address > 0)
}

#[async_trait::async_trait]
impl AccountStore for Sqlite {
    async fn reserve_sign_in(&self, email: &str, address: &str, now: i64) -> Result<Reservation> {
        let (email, address) = (email.to_string(), address.to_string());
        self.write(move |conn| reserve(conn, &email, &address, now)).await
    }

    async fn record_failed_sign_in(&self, email: &str, address: &str, now: i64) -> Result<bool> {
        let (email, address) = (email.to_string(), address.to_string());
        self.write(move |conn| record(conn, &email, &address, now, false)).await
    }

    async fn start_session(
        &self,
        email: &str,
        address: &str,
        new_hash: Option<String>,
        session: SessionRecord,
        keep: u32,
        now: i64,
    ) -> Result<u64> {
        let (email, address) = (email.to_string(), address.to_string());
        let changed_at = staffroom_core::time::now_rfc3339();
        self.write(move |conn| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).sql()?;
            clear_attempts(&tx, &email, &address)?;
            if let Some(hash) = new_hash {
                set_password_hash(&tx, &session.user_id, &hash, &changed_at, false)?;
            }
            prune_sessions(&tx, now)?;
            insert_session(&tx, &session)?;
            let ended = end_sessions_past(&tx, &session, keep, now)?;
            tx.commit().sql()?;
            Ok(ended)
        })
        .await
    }

    async fn rotate_token(&self, session_id: &str, old: &str, new: &str, now: i64) -> Result<bool> {
        let (id, old, new) = (session_id.to_string(), old.to_string(), new.to_string());
        self.write(move |conn| rotate_token(conn, &id, &old, &new, now)).await
    }

    async fn live_session(
        &self,
        id: &str,
        now: i64,
        check: SessionCheck,
    ) -> Result<Option<(UserRecord, SessionRecord)>> {
        let id = id.to_string();
        self.call(move |conn| {
            let Some(session) = find_session(conn, &id)? else { return Ok(None) };
            let Some(user) = find_by_id(conn, &session.user_id)? else { return Ok(None) };
            let live = check.is_live(&user, &session, now);
            if live && check.needs_touch(&session, now) {
                touch_session(conn, &id, now)?;
            }
            Ok(live.then_some((user, session)))
        })
        .await
    }

    async fn revoke_session(&self, id: &str, now: i64) -> Result<bool> {
        let id = id.to_string();
        self.write(move |conn| revoke_session(conn, &id, now)).await
    }

    async fn unlock_sign_in(&self, email: &str) -> Result<usize> {
        let email = email.to_string();
        self.write(move |conn| unlock(conn, &email)).await
    }

    async fn user_by_email(&self, email: &str) -> Result<Option<UserRecord>> {
        let email = email.to_string();
        self.call(move |conn| find_by_email(conn, &email)).await
    }

    async fn user_count(&self) -> Result<i64> {
        self.call(|conn| count(conn)).await
    }

    async fn insert_user(&self, user: UserRecord) -> Result<()> {
        self.write(move |conn| insert(conn, &user)).await
    }

    async fn users_with_locks(&self, now: i64) -> Result<Vec<(UserRecord, bool)>> {
        self.call(move |conn| {
            list(conn)?
                .into_iter()
                .map(|user| {
                    let locked = is_locked(conn, &user.email, now)?;
                    Ok((user, locked))
                })
                .collect()
        })
        .await
    }

    async fn set_user_disabled(&self, id: &str, disabled: bool, now: i64) -> Result<usize> {
        let (id, at) = (id.to_string(), staffroom_core::time::now_rfc3339());
        self.transaction(move |tx| {
            set_disabled(tx, &id, disabled, &at)?;
            if disabled {
                revoke_user_sessions(tx, &id, now)
            } else {
                Ok(0)
            }
        })
        .await
    }

    async fn set_user_password(&self, id: &str, email: &str, hash: String, now: i64) -> Result<usize> {
        let (id, email, at) = (id.to_string(), email.to_string(), staffroom_core::time::now_rfc3339());
        self.transaction(move |tx| {
            set_password_hash(tx, &id, &hash, &at, true)?;
            unlock(tx, &email)?;
            revoke_user_sessions(tx, &id, now)
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use staffroom_core::auth::throttle::{lock_secs, ACCOUNT_CEILING};

    #[test]
    fn five_attempts_then_a_lock_that_grows_and_only_that_address() {
        let dir = tempfile::tempdir().unwrap();
        let db = Sqlite::open(dir.path()).unwrap();
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
        let db = Sqlite::open(dir.path()).unwrap();
        db.call_blocking(|conn| {
            // Two guesses at once: the right one finishes first and clears the address's count.
            assert_eq!(reserve(conn, "ada@x.test", "1.1.1.1", 100)?, Reservation::Go);
            assert_eq!(reserve(conn, "ada@x.test", "1.1.1.1", 100)?, Reservation::Go);
            record(conn, "ada@x.test", "1.1.1.1", 100, true)?;
            assert!(!record(conn, "ada@x.test", "1.1.1.1", 100, false)?);
            let failures: i64 = conn
                .query_row(
                    "SELECT failures FROM login_attempts WHERE key = ?1",
                    [throttle::key("ada@x.test", "1.1.1.1")],
                    |r| r.get(0),
                )
                .sql()?;
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
        let db = Sqlite::open(dir.path()).unwrap();
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
