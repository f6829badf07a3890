//! PostgreSQL's SQL of staff accounts, sessions and sign-in throttling: what `store::users` and
//! `store::throttle` do on SQLite, with the same rules. Where SQLite serialises writers with an
//! immediate transaction, this takes a row lock (`FOR UPDATE`), so that replicas counting
//! attempts of one account at one address queue on that row.

use deadpool_postgres::GenericClient;
use serde_json::json;
use tokio_postgres::Row;

use crate::error::{Error, Result};
use crate::store::audit::NewAuditEntry;
use crate::store::throttle::{lock_secs, Reservation, ACCOUNT_CEILING, ATTEMPTS_BEFORE_LOCK, CEILING_WINDOW_SECS};
use crate::store::users::{Role, SessionRecord, UserRecord};

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
    Ok(db.query_opt(&sql, &[&email]).await?.as_ref().map(user_of))
}

pub async fn find_by_id(db: &impl GenericClient, id: &str) -> Result<Option<UserRecord>> {
    let sql = format!("SELECT {USER_COLUMNS} FROM users WHERE id = $1");
    Ok(db.query_opt(&sql, &[&id]).await?.as_ref().map(user_of))
}

pub async fn list(db: &impl GenericClient) -> Result<Vec<UserRecord>> {
    // Byte order, as SQLite compares, whatever the database's collation.
    let sql = format!("SELECT {USER_COLUMNS} FROM users ORDER BY created_at, email COLLATE \"C\"");
    Ok(db.query(&sql, &[]).await?.iter().map(user_of).collect())
}

pub async fn count(db: &impl GenericClient) -> Result<i64> {
    Ok(db.query_one("SELECT COUNT(*) FROM users", &[]).await?.get(0))
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
        .await?;
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
        .await?;
    } else {
        db.execute("UPDATE users SET password_hash = $2 WHERE id = $1", &[&id, &hash]).await?;
    }
    Ok(())
}

pub async fn set_disabled(db: &impl GenericClient, id: &str, disabled: bool, now: &str) -> Result<()> {
    db.execute("UPDATE users SET disabled = $2, updated_at = $3 WHERE id = $1", &[&id, &disabled, &now]).await?;
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
    .await?;
    Ok(())
}

pub async fn rotate_token(db: &impl GenericClient, id: &str, old: &str, new: &str, now: i64) -> Result<bool> {
    Ok(db
        .execute(
            "UPDATE sessions SET token_id = $3, last_seen_at = $4 WHERE id = $1 AND token_id = $2 AND revoked_at IS NULL",
            &[&id, &old, &new, &now],
        )
        .await?
        == 1)
}

pub async fn find_session(db: &impl GenericClient, id: &str) -> Result<Option<SessionRecord>> {
    let row = db
        .query_opt(
            "SELECT id, user_id, created_at, last_seen_at, expires_at, revoked_at, token_id FROM sessions WHERE id = $1",
            &[&id],
        )
        .await?;
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
    db.execute("UPDATE sessions SET last_seen_at = $2 WHERE id = $1 AND revoked_at IS NULL", &[&id, &now]).await?;
    Ok(())
}

pub async fn revoke_session(db: &impl GenericClient, id: &str, now: i64) -> Result<bool> {
    Ok(db.execute("UPDATE sessions SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL", &[&id, &now]).await? > 0)
}

pub async fn revoke_user_sessions(db: &impl GenericClient, user_id: &str, now: i64) -> Result<usize> {
    Ok(db
        .execute("UPDATE sessions SET revoked_at = $2 WHERE user_id = $1 AND revoked_at IS NULL", &[&user_id, &now])
        .await? as usize)
}

pub async fn prune_sessions(db: &impl GenericClient, now: i64) -> Result<usize> {
    Ok(db.execute("DELETE FROM sessions WHERE expires_at < $1 OR revoked_at < $1", &[&(now - 24 * 3600)]).await?
        as usize)
}

fn key(email: &str, address: &str) -> String {
    format!("{} {address}", email.to_lowercase())
}

/// Reserves one attempt of `email` from `address`, or refuses it (see `store::throttle::reserve`).
pub async fn reserve(db: &mut deadpool_postgres::Object, email: &str, address: &str, now: i64) -> Result<Reservation> {
    let tx = db.transaction().await?;
    let email = email.to_lowercase();
    let locked_account = tx
        .query_opt("SELECT locked FROM account_locks WHERE email = $1", &[&email])
        .await?
        .is_some_and(|row| row.get::<_, bool>(0));
    let key = key(&email, address);
    tx.execute(
        "INSERT INTO login_attempts (key, email, attempts, failures, locks, locked_until, refused, updated_at)
         VALUES ($1, $2, 0, 0, 0, 0, 0, $3) ON CONFLICT (key) DO NOTHING",
        &[&key, &email, &now],
    )
    .await?;
    // The row lock: concurrent reservations of this key, on any replica, wait here and then see
    // the count this one leaves.
    let row = tx
        .query_one("SELECT attempts, locks, locked_until FROM login_attempts WHERE key = $1 FOR UPDATE", &[&key])
        .await?;
    let (attempts, locks, locked_until): (i64, i64, i64) = (row.get(0), row.get(1), row.get(2));
    let refused_for = if locked_account {
        Some(crate::store::throttle::ACCOUNT_LOCK_RETRY_SECS)
    } else if locked_until > now {
        Some((locked_until - now) as u64)
    } else if attempts >= ATTEMPTS_BEFORE_LOCK {
        Some(lock_secs(locks + 1) as u64)
    } else {
        None
    };
    let outcome = match refused_for {
        Some(retry_after) => {
            note_refusal(&tx, &key, &email, address, locked_account, now).await?;
            Reservation::Refused { retry_after: retry_after.max(1) }
        }
        None => {
            tx.execute(
                "UPDATE login_attempts SET attempts = attempts + 1, updated_at = $2 WHERE key = $1",
                &[&key, &now],
            )
            .await?;
            Reservation::Go
        }
    };
    tx.commit().await?;
    Ok(outcome)
}

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
        .await?;
    let (audit_id, refused): (Option<i64>, i64) = (row.get(0), row.get(1));
    let detail = json!({ "address": address, "refused": refused, "accountLocked": account });
    match audit_id {
        Some(id) => {
            tx.execute("UPDATE audit_log SET detail = $2 WHERE id = $1", &[&id, &detail.to_string()]).await?;
        }
        None => {
            let entry = NewAuditEntry {
                actor: "anonymous",
                action: crate::audit::AuditAction::SignIn,
                target: Some(email),
                outcome: "throttled",
                detail: Some(detail),
            };
            let id = super::audit::append(tx, &entry).await?;
            tx.execute("UPDATE login_attempts SET audit_id = $2 WHERE key = $1", &[&key, &id]).await?;
        }
    }
    Ok(())
}

/// How a reserved attempt ended (see `store::throttle::record`). True when this failure locked
/// the account.
pub async fn record(db: &impl GenericClient, email: &str, address: &str, now: i64, success: bool) -> Result<bool> {
    let email = email.to_lowercase();
    let key = key(&email, address);
    if success {
        db.execute("DELETE FROM login_attempts WHERE key = $1", &[&key]).await?;
        return Ok(false);
    }
    let row = db
        .query_one(
            "INSERT INTO login_attempts (key, email, attempts, failures, locks, locked_until, refused, updated_at)
             VALUES ($1, $2, 0, 1, 0, 0, 0, $3)
             ON CONFLICT (key) DO UPDATE SET failures = login_attempts.failures + 1, updated_at = $3
             RETURNING failures, locks",
            &[&key, &email, &now],
        )
        .await?;
    let (failures, locks): (i64, i64) = (row.get(0), row.get(1));
    if failures >= ATTEMPTS_BEFORE_LOCK {
        let lock = locks + 1;
        db.execute(
            "UPDATE login_attempts SET attempts = 0, failures = 0, locks = $2, locked_until = $3, audit_id = NULL, refused = 0
             WHERE key = $1",
            &[&key, &lock, &(now + lock_secs(lock))],
        )
        .await?;
    }
    let row = db
        .query_one(
            "INSERT INTO account_locks (email, window_start, failures, locked) VALUES ($1, $2, 1, FALSE)
             ON CONFLICT (email) DO UPDATE SET
                 failures = CASE WHEN $2 - account_locks.window_start >= $3 THEN 1 ELSE account_locks.failures + 1 END,
                 window_start = CASE WHEN $2 - account_locks.window_start >= $3 THEN $2 ELSE account_locks.window_start END
             RETURNING window_start, failures",
            &[&email, &now, &CEILING_WINDOW_SECS],
        )
        .await?;
    let (window_start, account_failures): (i64, i64) = (row.get(0), row.get(1));
    let lock_account = account_failures >= ACCOUNT_CEILING;
    if lock_account {
        let changed =
            db.execute("UPDATE account_locks SET locked = TRUE WHERE email = $1 AND NOT locked", &[&email]).await?;
        if changed == 1 {
            let entry = NewAuditEntry {
                actor: "system",
                action: crate::audit::AuditAction::AccountLocked,
                target: Some(&email),
                outcome: "locked until an admin unlocks it",
                detail: Some(json!({ "failures": account_failures, "since": window_start })),
            };
            super::audit::append(db, &entry).await?;
        }
    }
    db.execute("DELETE FROM login_attempts WHERE updated_at < $1 AND locked_until < $2", &[&(now - 24 * 3600), &now])
        .await?;
    Ok(lock_account)
}

pub async fn unlock(db: &impl GenericClient, email: &str) -> Result<usize> {
    let email = email.to_lowercase();
    let locks = db.execute("DELETE FROM login_attempts WHERE email = $1", &[&email]).await?;
    let account = db.execute("DELETE FROM account_locks WHERE email = $1", &[&email]).await?;
    Ok((locks + account) as usize)
}

pub async fn is_locked(db: &impl GenericClient, email: &str, now: i64) -> Result<bool> {
    let email = email.to_lowercase();
    let row = db
        .query_one(
            "SELECT COALESCE((SELECT locked FROM account_locks WHERE email = $1), FALSE),
                    EXISTS (SELECT 1 FROM login_attempts WHERE email = $1 AND locked_until > $2)",
            &[&email, &now],
        )
        .await?;
    Ok(row.get::<_, bool>(0) || row.get::<_, bool>(1))
}
