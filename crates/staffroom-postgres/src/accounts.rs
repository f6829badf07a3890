//! PostgreSQL's SQL of staff accounts, sessions and sign-in throttling. Where SQLite serialises
//! writers with an immediate transaction, this takes a row lock (an upsert's), so that replicas
//! counting attempts of one account at one address queue on that row; `auth::throttle` decides
//! what the counts mean.

use crate::Sql as _;
use deadpool_postgres::GenericClient;
use tokio_postgres::Row;

use super::Postgres;
use staffroom_core::auth::store::{AccountStore, Role, SessionCheck, SessionRecord, UserRecord};
use staffroom_core::auth::throttle::{self, AttemptCount, Reservation, CEILING_WINDOW_SECS, FORGET_AFTER_SECS};
use staffroom_core::error::{Error, Result};

const USER_COLUMNS: &str = "id, email, name, role, password_hash, disabled, created_at, updated_at";

fn user_of(row: &Row) -> UserRecord {
    UserRecord {
        id: row.get(0),
        email: row.get(1),
        name: row.get(2),
        role: Role::parse(row.get(3)),
        password_hash: row.get(4),
        disabled: row.get(5),
        created_at: row.get(6),
        updated_at: row.get(7),
    }
}

pub async fn find_by_email(db: &impl GenericClient, email: &str) -> Result<Option<UserRecord>> {
    let sql = format!("SELECT {USER_COLUMNS} FROM users WHERE lower(email) = lower($1)");
    Ok(db.query_opt(&sql, &[&email]).await.sql()?.as_ref().map(user_of))
}

pub async fn find_by_id(db: &impl GenericClient, id: &str) -> Result<Option<UserRecord>> {
    let sql = format!("SELECT {USER_COLUMNS} FROM users WHERE id = $1");
    Ok(db.query_opt(&sql, &[&id]).await.sql()?.as_ref().map(user_of))
}

pub async fn list(db: &impl GenericClient) -> Result<Vec<UserRecord>> {
    // Byte order, as SQLite compares, whatever the database's collation.
    let sql = format!("SELECT {USER_COLUMNS} FROM users ORDER BY created_at, email COLLATE \"C\"");
    Ok(db.query(&sql, &[]).await.sql()?.iter().map(user_of).collect())
}

pub async fn count(db: &impl GenericClient) -> Result<i64> {
    Ok(db.query_one("SELECT COUNT(*) FROM users", &[]).await.sql()?.get(0))
}

pub async fn insert(db: &impl GenericClient, user: &UserRecord) -> Result<()> {
    let inserted = db
        .execute(
            "INSERT INTO users (id, email, name, role, password_hash, disabled, created_at, updated_at, password_changed_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $7)
             ON CONFLICT ((lower(email))) DO NOTHING",
            &[
                &user.id,
                &user.email,
                &user.name,
                &user.role.as_str(),
                &user.password_hash,
                &user.disabled,
                &user.created_at,
                &user.updated_at,
            ],
        )
        .await.sql()?;
    if inserted == 0 {
        return Err(Error::invalid_field("email", "an account with this email already exists"));
    }
    Ok(())
}

pub async fn set_password_hash(db: &impl GenericClient, id: &str, hash: &str, now: &str, changed: bool) -> Result<()> {
    if changed {
        db.execute(
            "UPDATE users SET password_hash = $2, updated_at = $3, password_changed_at = $3 WHERE id = $1",
            &[&id, &hash, &now],
        )
        .await
        .sql()?;
    } else {
        db.execute("UPDATE users SET password_hash = $2 WHERE id = $1", &[&id, &hash]).await.sql()?;
    }
    Ok(())
}

pub async fn set_disabled(db: &impl GenericClient, id: &str, disabled: bool, now: &str) -> Result<()> {
    db.execute("UPDATE users SET disabled = $2, updated_at = $3 WHERE id = $1", &[&id, &disabled, &now]).await.sql()?;
    Ok(())
}

pub async fn insert_session(db: &impl GenericClient, session: &SessionRecord) -> Result<()> {
    db.execute(
        "INSERT INTO sessions (id, user_id, created_at, last_seen_at, expires_at, revoked_at, token_id)
         VALUES ($1, $2, $3, $4, $5, NULL, $6)",
        &[
            &session.id,
            &session.user_id,
            &session.created_at,
            &session.last_seen_at,
            &session.expires_at,
            &session.token_id,
        ],
    )
    .await
    .sql()?;
    Ok(())
}

pub async fn rotate_token(db: &impl GenericClient, id: &str, old: &str, new: &str, now: i64) -> Result<bool> {
    Ok(db
        .execute(
            "UPDATE sessions SET token_id = $3, last_seen_at = $4 WHERE id = $1 AND token_id = $2 AND revoked_at IS NULL",
            &[&id, &old, &new, &now],
        )
        .await.sql()?
        == 1)
}

pub async fn find_session(db: &impl GenericClient, id: &str) -> Result<Option<SessionRecord>> {
    let row = db
        .query_opt(
            "SELECT id, user_id, created_at, last_seen_at, expires_at, revoked_at, token_id FROM sessions WHERE id = $1",
            &[&id],
        )
        .await.sql()?;
    Ok(row.map(|row| SessionRecord {
        id: row.get(0),
        user_id: row.get(1),
        created_at: row.get(2),
        last_seen_at: row.get(3),
        expires_at: row.get(4),
        revoked_at: row.get(5),
        token_id: row.get(6),
    }))
}

pub async fn touch_session(db: &impl GenericClient, id: &str, now: i64) -> Result<()> {
    db.execute("UPDATE sessions SET last_seen_at = $2 WHERE id = $1 AND revoked_at IS NULL", &[&id, &now])
        .await
        .sql()?;
    Ok(())
}

pub async fn revoke_session(db: &impl GenericClient, id: &str, now: i64) -> Result<bool> {
    Ok(db
        .execute("UPDATE sessions SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL", &[&id, &now])
        .await
        .sql()?
        > 0)
}

pub async fn revoke_user_sessions(db: &impl GenericClient, user_id: &str, now: i64) -> Result<usize> {
    Ok(db
        .execute("UPDATE sessions SET revoked_at = $2 WHERE user_id = $1 AND revoked_at IS NULL", &[&user_id, &now])
        .await
        .sql()? as usize)
}

/// Ends the live sessions of `started`'s user past the newest `keep`, never `started` itself;
/// how many. Sessions started in the same second are told apart by nothing kept: which of them
/// ends is any. (Two sign-ins at once may each keep the other's session: the next sign-in ends
/// what is past the count.)
pub async fn end_sessions_past(db: &impl GenericClient, started: &SessionRecord, keep: u32, now: i64) -> Result<u64> {
    db.execute(
        "UPDATE sessions SET revoked_at = $2
         WHERE user_id = $1 AND revoked_at IS NULL AND expires_at > $2 AND id NOT IN (
             SELECT id FROM sessions WHERE user_id = $1 AND revoked_at IS NULL AND expires_at > $2
             ORDER BY id = $4 DESC, created_at DESC, id DESC LIMIT $3)",
        &[&started.user_id, &now, &i64::from(keep), &started.id],
    )
    .await
    .sql()
}

pub async fn prune_sessions(db: &impl GenericClient, now: i64) -> Result<usize> {
    Ok(db.execute("DELETE FROM sessions WHERE expires_at < $1 OR revoked_at < $1", &[&(now - 24 * 3600)]).await.sql()?
        as usize)
}

/// Reserves one attempt of `email` from `address`, or refuses it (recording the refusal in the
/// lock's one audit entry).
pub async fn reserve(db: &mut deadpool_postgres::Object, email: &str, address: &str, now: i64) -> Result<Reservation> {
    let tx = db.transaction().await.sql()?;
    let email = email.to_lowercase();
    let account_locked = tx
        .query_opt("SELECT locked FROM account_locks WHERE email = $1", &[&email])
        .await
        .sql()?
        .is_some_and(|row| row.get::<_, bool>(0));
    let key = throttle::key(&email, address);
    // The count's row, made or found, and locked in one statement: concurrent reservations of
    // this key, on any replica, wait here and then see the count this one leaves. (An insert
    // that did nothing followed by `SELECT … FOR UPDATE` found no row when a right password
    // or an unlock deleted it in between.)
    let row = tx
        .query_one(
            "INSERT INTO login_attempts (key, email, attempts, failures, locks, locked_until, refused, updated_at)
             VALUES ($1, $2, 0, 0, 0, 0, 0, $3)
             ON CONFLICT (key) DO UPDATE SET key = EXCLUDED.key
             RETURNING attempts, locks, locked_until",
            &[&key, &email, &now],
        )
        .await
        .sql()?;
    let count = AttemptCount { account_locked, attempts: row.get(0), locks: row.get(1), locked_until: row.get(2) };
    let reservation = throttle::decide(count, now);
    match reservation {
        Reservation::Refused { .. } => note_refusal(&tx, &key, &email, address, account_locked, now).await?,
        Reservation::Go => {
            tx.execute(
                "UPDATE login_attempts SET attempts = attempts + 1, updated_at = $2 WHERE key = $1",
                &[&key, &now],
            )
            .await
            .sql()?;
        }
    }
    tx.commit().await.sql()?;
    Ok(reservation)
}

/// One audit entry per lock, counting the attempts it refused.
async fn note_refusal(
    tx: &deadpool_postgres::Transaction<'_>,
    key: &str,
    email: &str,
    address: &str,
    account: bool,
    now: i64,
) -> Result<()> {
    let row = tx
        .query_one(
            "UPDATE login_attempts SET refused = refused + 1, updated_at = $2 WHERE key = $1 RETURNING audit_id, refused",
            &[&key, &now],
        )
        .await.sql()?;
    let (audit_id, refused): (Option<i64>, i64) = (row.get(0), row.get(1));
    let detail = throttle::refusal_detail(address, refused, account);
    match audit_id {
        Some(id) => {
            tx.execute("UPDATE audit_log SET detail = $2 WHERE id = $1", &[&id, &detail.to_string()]).await.sql()?;
        }
        None => {
            let id = super::audit::append(tx, &throttle::refusal_entry(email, detail)).await?;
            tx.execute("UPDATE login_attempts SET audit_id = $2 WHERE key = $1", &[&key, &id]).await.sql()?;
        }
    }
    Ok(())
}

/// How a reserved attempt ended: a failure may lock the address or the account (as
/// `auth::throttle` says); a success clears the address's count. True when this failure locked
/// the account.
pub async fn record(db: &impl GenericClient, email: &str, address: &str, now: i64, success: bool) -> Result<bool> {
    let email = email.to_lowercase();
    let key = throttle::key(&email, address);
    if success {
        db.execute("DELETE FROM login_attempts WHERE key = $1", &[&key]).await.sql()?;
        return Ok(false);
    }
    // The row may be gone (a right password or an admin's unlock cleared it meanwhile): the
    // failure then starts a fresh count.
    let row = db
        .query_one(
            "INSERT INTO login_attempts (key, email, attempts, failures, locks, locked_until, refused, updated_at)
             VALUES ($1, $2, 0, 1, 0, 0, 0, $3)
             ON CONFLICT (key) DO UPDATE SET failures = login_attempts.failures + 1, updated_at = $3
             RETURNING failures, locks",
            &[&key, &email, &now],
        )
        .await
        .sql()?;
    if let Some((lock, locked_until)) = throttle::lock_after_failure(row.get(0), row.get(1), now) {
        db.execute(
            "UPDATE login_attempts SET attempts = 0, failures = 0, locks = $2, locked_until = $3, audit_id = NULL, refused = 0
             WHERE key = $1",
            &[&key, &lock, &locked_until],
        )
        .await.sql()?;
    }
    // The account's failures within the window, whatever the address.
    let row = db
        .query_one(
            "INSERT INTO account_locks (email, window_start, failures, locked) VALUES ($1, $2, 1, FALSE)
             ON CONFLICT (email) DO UPDATE SET
                 failures = CASE WHEN $2 - account_locks.window_start >= $3 THEN 1 ELSE account_locks.failures + 1 END,
                 window_start = CASE WHEN $2 - account_locks.window_start >= $3 THEN $2 ELSE account_locks.window_start END
             RETURNING window_start, failures",
            &[&email, &now, &CEILING_WINDOW_SECS],
        )
        .await.sql()?;
    let (window_start, account_failures): (i64, i64) = (row.get(0), row.get(1));
    let lock_account = throttle::locks_account(account_failures);
    if lock_account {
        let changed = db
            .execute("UPDATE account_locks SET locked = TRUE WHERE email = $1 AND NOT locked", &[&email])
            .await
            .sql()?;
        if changed == 1 {
            super::audit::append(db, &throttle::account_lock_entry(&email, account_failures, window_start)).await?;
        }
    }
    db.execute(
        "DELETE FROM login_attempts WHERE updated_at < $1 AND locked_until < $2",
        &[&(now - FORGET_AFTER_SECS), &now],
    )
    .await
    .sql()?;
    Ok(lock_account)
}

/// Lifts every lock of `email` (an admin's unlock, a new password); how many there were.
pub async fn unlock(db: &impl GenericClient, email: &str) -> Result<usize> {
    let email = email.to_lowercase();
    let locks = db.execute("DELETE FROM login_attempts WHERE email = $1", &[&email]).await.sql()?;
    let account = db.execute("DELETE FROM account_locks WHERE email = $1", &[&email]).await.sql()?;
    Ok((locks + account) as usize)
}

/// Whether `email` is locked, at any address or as an account (for the Users screen).
pub async fn is_locked(db: &impl GenericClient, email: &str, now: i64) -> Result<bool> {
    let email = email.to_lowercase();
    let row = db
        .query_one(
            "SELECT COALESCE((SELECT locked FROM account_locks WHERE email = $1), FALSE),
                    EXISTS (SELECT 1 FROM login_attempts WHERE email = $1 AND locked_until > $2)",
            &[&email, &now],
        )
        .await
        .sql()?;
    Ok(row.get::<_, bool>(0) || row.get::<_, bool>(1))
}

#[async_trait::async_trait]
impl AccountStore for Postgres {
    async fn reserve_sign_in(&self, email: &str, address: &str, now: i64) -> Result<Reservation> {
        reserve(&mut self.client().await?, email, address, now).await
    }

    async fn record_failed_sign_in(&self, email: &str, address: &str, now: i64) -> Result<bool> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.sql()?;
        let locked = record(&tx, email, address, now, false).await?;
        tx.commit().await.sql()?;
        Ok(locked)
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
        let changed_at = staffroom_core::time::now_rfc3339();
        let mut client = self.client().await?;
        let tx = client.transaction().await.sql()?;
        record(&tx, email, address, now, true).await?;
        if let Some(hash) = new_hash {
            set_password_hash(&tx, &session.user_id, &hash, &changed_at, false).await?;
        }
        prune_sessions(&tx, now).await?;
        insert_session(&tx, &session).await?;
        let ended = end_sessions_past(&tx, &session, keep, now).await?;
        tx.commit().await.sql()?;
        Ok(ended)
    }

    async fn rotate_token(&self, session_id: &str, old: &str, new: &str, now: i64) -> Result<bool> {
        rotate_token(&self.client().await?, session_id, old, new, now).await
    }

    async fn live_session(
        &self,
        id: &str,
        now: i64,
        check: SessionCheck,
    ) -> Result<Option<(UserRecord, SessionRecord)>> {
        let client = self.client().await?;
        let Some(session) = find_session(&client, id).await? else { return Ok(None) };
        let Some(user) = find_by_id(&client, &session.user_id).await? else { return Ok(None) };
        let live = check.is_live(&user, &session, now);
        if live && check.needs_touch(&session, now) {
            touch_session(&client, id, now).await?;
        }
        Ok(live.then_some((user, session)))
    }

    async fn revoke_session(&self, id: &str, now: i64) -> Result<bool> {
        revoke_session(&self.client().await?, id, now).await
    }

    async fn unlock_sign_in(&self, email: &str) -> Result<usize> {
        unlock(&self.client().await?, email).await
    }

    async fn user_by_email(&self, email: &str) -> Result<Option<UserRecord>> {
        find_by_email(&self.client().await?, email).await
    }

    async fn user_count(&self) -> Result<i64> {
        count(&self.client().await?).await
    }

    async fn insert_user(&self, user: UserRecord) -> Result<()> {
        insert(&self.client().await?, &user).await
    }

    async fn users_with_locks(&self, now: i64) -> Result<Vec<(UserRecord, bool)>> {
        let client = self.client().await?;
        let mut listed = Vec::new();
        for user in list(&client).await? {
            let locked = is_locked(&client, &user.email, now).await?;
            listed.push((user, locked));
        }
        Ok(listed)
    }

    async fn set_user_disabled(&self, id: &str, disabled: bool, now: i64) -> Result<usize> {
        let at = staffroom_core::time::now_rfc3339();
        let mut client = self.client().await?;
        let tx = client.transaction().await.sql()?;
        set_disabled(&tx, id, disabled, &at).await?;
        let ended = if disabled { revoke_user_sessions(&tx, id, now).await? } else { 0 };
        tx.commit().await.sql()?;
        Ok(ended)
    }

    async fn set_user_password(&self, id: &str, email: &str, hash: String, now: i64) -> Result<usize> {
        let at = staffroom_core::time::now_rfc3339();
        let mut client = self.client().await?;
        let tx = client.transaction().await.sql()?;
        set_password_hash(&tx, id, &hash, &at, true).await?;
        unlock(&tx, email).await?;
        let ended = revoke_user_sessions(&tx, id, now).await?;
        tx.commit().await.sql()?;
        Ok(ended)
    }
}
