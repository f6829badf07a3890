//! What the account service asks of the store, on either backend: each method is one unit of
//! work (one transaction where it writes more than one row), so that the service does not care
//! where accounts live. The SQL is `store::users` and `store::throttle` on SQLite, and
//! `store::pg::accounts` on PostgreSQL.

use super::throttle::{self, Reservation};
use super::users::{self, SessionRecord, UserRecord};
use super::{pg, Db};
use crate::error::Result;

/// How [`Db::live_session`] checks a session.
pub struct SessionCheck {
    /// How long a session may sit unused.
    pub idle_secs: i64,
    /// Mark a live session as used when it was last marked this long ago (`None`: never).
    pub touch_after_secs: Option<i64>,
}

impl Db {
    /// Counts one sign-in attempt of `email` from `address` before its password is checked, or
    /// refuses it.
    pub async fn reserve_sign_in(&self, email: &str, address: &str, now: i64) -> Result<Reservation> {
        let (email, address) = (email.to_string(), address.to_string());
        match self {
            Db::Sqlite(_) => self.write(move |conn| throttle::reserve(conn, &email, &address, now)).await,
            Db::Postgres(db) => pg::accounts::reserve(&mut db.client().await?, &email, &address, now).await,
        }
    }

    /// Records a failed sign-in; true when it locked the account.
    pub async fn record_failed_sign_in(&self, email: &str, address: &str, now: i64) -> Result<bool> {
        let (email, address) = (email.to_string(), address.to_string());
        match self {
            Db::Sqlite(_) => self.write(move |conn| throttle::record(conn, &email, &address, now, false)).await,
            Db::Postgres(db) => {
                let mut client = db.client().await?;
                let tx = client.transaction().await?;
                let locked = pg::accounts::record(&tx, &email, &address, now, false).await?;
                tx.commit().await?;
                Ok(locked)
            }
        }
    }

    /// After a right password: clears the address's count, stores an upgraded hash if there is
    /// one, drops long-dead sessions and starts `session`.
    pub async fn start_session(
        &self,
        email: &str,
        address: &str,
        new_hash: Option<String>,
        session: SessionRecord,
        now: i64,
    ) -> Result<()> {
        let (email, address) = (email.to_string(), address.to_string());
        let changed_at = crate::time::now_rfc3339();
        match self {
            Db::Sqlite(_) => {
                self.write(move |conn| {
                    throttle::record(conn, &email, &address, now, true)?;
                    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
                    if let Some(hash) = new_hash {
                        users::set_password_hash(&tx, &session.user_id, &hash, &changed_at, false)?;
                    }
                    users::prune_sessions(&tx, now)?;
                    users::insert_session(&tx, &session)?;
                    tx.commit()?;
                    Ok(())
                })
                .await
            }
            Db::Postgres(db) => {
                let mut client = db.client().await?;
                let tx = client.transaction().await?;
                pg::accounts::record(&tx, &email, &address, now, true).await?;
                if let Some(hash) = new_hash {
                    pg::accounts::set_password_hash(&tx, &session.user_id, &hash, &changed_at, false).await?;
                }
                pg::accounts::prune_sessions(&tx, now).await?;
                pg::accounts::insert_session(&tx, &session).await?;
                tx.commit().await?;
                Ok(())
            }
        }
    }

    /// Makes `new` the session's current token if `old` still is; true when it was swapped.
    pub async fn rotate_token(&self, session_id: &str, old: &str, new: &str, now: i64) -> Result<bool> {
        let (id, old, new) = (session_id.to_string(), old.to_string(), new.to_string());
        match self {
            Db::Sqlite(_) => self.write(move |conn| users::rotate_token(conn, &id, &old, &new, now)).await,
            Db::Postgres(db) => pg::accounts::rotate_token(&db.client().await?, &id, &old, &new, now).await,
        }
    }

    /// The session `id` with its user, if it is live now (not ended, within its absolute and
    /// idle limits, its user enabled), marked as used as `check` says.
    pub async fn live_session(
        &self,
        id: &str,
        now: i64,
        check: SessionCheck,
    ) -> Result<Option<(UserRecord, SessionRecord)>> {
        let is_live = move |user: &UserRecord, session: &SessionRecord| {
            session.revoked_at.is_none()
                && now < session.expires_at
                && now - session.last_seen_at <= check.idle_secs
                && !user.disabled
        };
        // Only a live session is marked as used: touching a dead one would revive it.
        let needs_touch = move |session: &SessionRecord| {
            check.touch_after_secs.is_some_and(|after| now - session.last_seen_at >= after)
        };
        let id = id.to_string();
        match self {
            Db::Sqlite(_) => {
                self.call(move |conn| {
                    let Some(session) = users::find_session(conn, &id)? else { return Ok(None) };
                    let Some(user) = users::find_by_id(conn, &session.user_id)? else { return Ok(None) };
                    let live = is_live(&user, &session);
                    if live && needs_touch(&session) {
                        users::touch_session(conn, &id, now)?;
                    }
                    Ok(live.then_some((user, session)))
                })
                .await
            }
            Db::Postgres(db) => {
                let client = db.client().await?;
                let Some(session) = pg::accounts::find_session(&client, &id).await? else { return Ok(None) };
                let Some(user) = pg::accounts::find_by_id(&client, &session.user_id).await? else { return Ok(None) };
                let live = is_live(&user, &session);
                if live && needs_touch(&session) {
                    pg::accounts::touch_session(&client, &id, now).await?;
                }
                Ok(live.then_some((user, session)))
            }
        }
    }

    /// Ends one session.
    pub async fn revoke_session(&self, id: &str, now: i64) -> Result<bool> {
        let id = id.to_string();
        match self {
            Db::Sqlite(_) => self.write(move |conn| users::revoke_session(conn, &id, now)).await,
            Db::Postgres(db) => pg::accounts::revoke_session(&db.client().await?, &id, now).await,
        }
    }

    /// Lifts every sign-in lock of `email`; how many there were.
    pub async fn unlock_sign_in(&self, email: &str) -> Result<usize> {
        let email = email.to_string();
        match self {
            Db::Sqlite(_) => self.write(move |conn| throttle::unlock(conn, &email)).await,
            Db::Postgres(db) => pg::accounts::unlock(&db.client().await?, &email).await,
        }
    }

    /// The account with this email, whatever its case.
    pub async fn user_by_email(&self, email: &str) -> Result<Option<UserRecord>> {
        let email = email.to_string();
        match self {
            Db::Sqlite(_) => self.call(move |conn| users::find_by_email(conn, &email)).await,
            Db::Postgres(db) => pg::accounts::find_by_email(&db.client().await?, &email).await,
        }
    }

    /// How many accounts exist.
    pub async fn user_count(&self) -> Result<i64> {
        match self {
            Db::Sqlite(_) => self.call(|conn| users::count(conn)).await,
            Db::Postgres(db) => pg::accounts::count(&db.client().await?).await,
        }
    }

    /// Adds an account; a taken email is an `invalid_request` on `email`.
    pub async fn insert_user(&self, user: UserRecord) -> Result<()> {
        match self {
            Db::Sqlite(_) => self.write(move |conn| users::insert(conn, &user)).await,
            Db::Postgres(db) => pg::accounts::insert(&db.client().await?, &user).await,
        }
    }

    /// Every account, oldest first, each with whether it is locked now.
    pub async fn users_with_locks(&self, now: i64) -> Result<Vec<(UserRecord, bool)>> {
        match self {
            Db::Sqlite(_) => {
                self.call(move |conn| {
                    users::list(conn)?
                        .into_iter()
                        .map(|user| {
                            let locked = throttle::is_locked(conn, &user.email, now)?;
                            Ok((user, locked))
                        })
                        .collect()
                })
                .await
            }
            Db::Postgres(db) => {
                let client = db.client().await?;
                let mut listed = Vec::new();
                for user in pg::accounts::list(&client).await? {
                    let locked = pg::accounts::is_locked(&client, &user.email, now).await?;
                    listed.push((user, locked));
                }
                Ok(listed)
            }
        }
    }

    /// Disables or enables an account; disabling ends its sessions. How many sessions ended.
    pub async fn set_user_disabled(&self, id: &str, disabled: bool, now: i64) -> Result<usize> {
        let (id, at) = (id.to_string(), crate::time::now_rfc3339());
        match self {
            Db::Sqlite(_) => {
                self.transaction(move |tx| {
                    users::set_disabled(tx, &id, disabled, &at)?;
                    if disabled {
                        users::revoke_user_sessions(tx, &id, now)
                    } else {
                        Ok(0)
                    }
                })
                .await
            }
            Db::Postgres(db) => {
                let mut client = db.client().await?;
                let tx = client.transaction().await?;
                pg::accounts::set_disabled(&tx, &id, disabled, &at).await?;
                let ended = if disabled { pg::accounts::revoke_user_sessions(&tx, &id, now).await? } else { 0 };
                tx.commit().await?;
                Ok(ended)
            }
        }
    }

    /// A new password: stores its hash, lifts every lock (a fresh start) and ends every session.
    /// How many sessions ended.
    pub async fn set_user_password(&self, id: &str, email: &str, hash: String, now: i64) -> Result<usize> {
        let (id, email, at) = (id.to_string(), email.to_string(), crate::time::now_rfc3339());
        match self {
            Db::Sqlite(_) => {
                self.transaction(move |tx| {
                    users::set_password_hash(tx, &id, &hash, &at, true)?;
                    throttle::unlock(tx, &email)?;
                    users::revoke_user_sessions(tx, &id, now)
                })
                .await
            }
            Db::Postgres(db) => {
                let mut client = db.client().await?;
                let tx = client.transaction().await?;
                pg::accounts::set_password_hash(&tx, &id, &hash, &at, true).await?;
                pg::accounts::unlock(&tx, &email).await?;
                let ended = pg::accounts::revoke_user_sessions(&tx, &id, now).await?;
                tx.commit().await?;
                Ok(ended)
            }
        }
    }
}
