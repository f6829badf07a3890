//! SQL for staff accounts, sessions and login throttling. Services see only the types here.

use rusqlite::{params, Connection, OptionalExtension, Row};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// A staff member's role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Manages users and settings.
    Admin,
    /// Everyone else.
    Staff,
}

impl Role {
    /// The role as stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Admin => "admin",
            Role::Staff => "staff",
        }
    }

    pub(crate) fn parse(value: &str) -> Role {
        if value == "admin" {
            Role::Admin
        } else {
            Role::Staff
        }
    }
}

/// A staff account as stored (with its password hash; never sent to a door).
#[derive(Debug, Clone)]
pub struct UserRecord {
    pub id: String,
    pub email: String,
    pub name: String,
    pub role: Role,
    pub password_hash: String,
    pub disabled: bool,
    pub created_at: String,
    pub updated_at: String,
}

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
        .optional()?)
}

/// The account with this id.
pub fn find_by_id(conn: &Connection, id: &str) -> Result<Option<UserRecord>> {
    Ok(conn.query_row(&format!("SELECT {USER_COLUMNS} FROM users WHERE id = ?1"), [id], user_from_row).optional()?)
}

/// Every account, oldest first.
pub fn list(conn: &Connection) -> Result<Vec<UserRecord>> {
    let mut stmt = conn.prepare(&format!("SELECT {USER_COLUMNS} FROM users ORDER BY created_at, email"))?;
    let rows = stmt.query_map([], user_from_row)?.collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// How many accounts exist.
pub fn count(conn: &Connection) -> Result<i64> {
    Ok(conn.query_row("SELECT COUNT(*) FROM users", [], |row| row.get(0))?)
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
    )?;
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
        )?;
    } else {
        conn.execute("UPDATE users SET password_hash = ?2 WHERE id = ?1", params![id, hash])?;
    }
    Ok(())
}

/// Disables or enables an account.
pub fn set_disabled(conn: &Connection, id: &str, disabled: bool, now: &str) -> Result<()> {
    conn.execute("UPDATE users SET disabled = ?2, updated_at = ?3 WHERE id = ?1", params![id, disabled as i64, now])?;
    Ok(())
}

/// A staff session (the server side of a token's `sid`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRecord {
    pub id: String,
    pub user_id: String,
    pub created_at: i64,
    pub last_seen_at: i64,
    pub expires_at: i64,
    pub revoked_at: Option<i64>,
    /// The `jti` of the session's current token: only that token works.
    pub token_id: Option<String>,
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
    )?;
    Ok(())
}

/// Makes `new` the session's current token, if `old` still is (two refreshes of one token: only
/// the first wins). True when it was swapped.
pub fn rotate_token(conn: &Connection, id: &str, old: &str, new: &str, now: i64) -> Result<bool> {
    Ok(conn.execute(
        "UPDATE sessions SET token_id = ?3, last_seen_at = ?4 WHERE id = ?1 AND token_id = ?2 AND revoked_at IS NULL",
        params![id, old, new, now],
    )? == 1)
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
        .optional()?)
}

/// Marks the session as used now.
pub fn touch_session(conn: &Connection, id: &str, now: i64) -> Result<()> {
    conn.execute("UPDATE sessions SET last_seen_at = ?2 WHERE id = ?1 AND revoked_at IS NULL", params![id, now])?;
    Ok(())
}

/// Ends one session.
pub fn revoke_session(conn: &Connection, id: &str, now: i64) -> Result<bool> {
    Ok(conn.execute("UPDATE sessions SET revoked_at = ?2 WHERE id = ?1 AND revoked_at IS NULL", params![id, now])? > 0)
}

/// Ends every session of a user; returns how many were live.
pub fn revoke_user_sessions(conn: &Connection, user_id: &str, now: i64) -> Result<usize> {
    Ok(conn.execute(
        "UPDATE sessions SET revoked_at = ?2 WHERE user_id = ?1 AND revoked_at IS NULL",
        params![user_id, now],
    )?)
}

/// Drops sessions that ended more than a day ago, so the table does not grow forever.
pub fn prune_sessions(conn: &Connection, now: i64) -> Result<usize> {
    Ok(conn.execute("DELETE FROM sessions WHERE expires_at < ?1 OR revoked_at < ?1", params![now - 24 * 3600])?)
}
