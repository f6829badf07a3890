//! What the account service asks of a store, and its records. Each method is one unit of work
//! (one transaction where it writes more than one row), so the service does not care where
//! accounts live; `staffroom_sqlite::accounts` and `staffroom_postgres::accounts` implement it.

use serde::{Deserialize, Serialize};

use staffroom_base::error::Result;

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

    /// The role stored as `value`.
    pub fn parse(value: &str) -> Role {
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

/// How [`AccountStore::live_session`] checks a session.
#[derive(Debug, Clone, Copy)]
pub struct SessionCheck {
    /// How long a session may sit unused.
    pub idle_secs: i64,
    /// Mark a live session as used when it was last marked this long ago (`None`: never).
    pub touch_after_secs: Option<i64>,
}

impl SessionCheck {
    /// Whether `session` of `user` is live at `now`: not ended, within its absolute and idle
    /// limits, its user enabled.
    pub fn is_live(&self, user: &UserRecord, session: &SessionRecord, now: i64) -> bool {
        session.revoked_at.is_none()
            && now < session.expires_at
            && now - session.last_seen_at <= self.idle_secs
            && !user.disabled
    }

    /// Whether a live session is due to be marked as used (a dead one never is: touching it
    /// would revive it).
    pub fn needs_touch(&self, session: &SessionRecord, now: i64) -> bool {
        self.touch_after_secs.is_some_and(|after| now - session.last_seen_at >= after)
    }
}

/// Whether an attempt may go to the hasher.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reservation {
    Go,
    /// Refused without hashing: try again after this many seconds.
    Refused {
        retry_after: u64,
    },
}

/// The account service's units of work.
#[async_trait::async_trait]
pub trait AccountStore {
    /// Counts one sign-in attempt of `email` from `address` before its password is checked, or
    /// refuses it (as `auth::throttle` decides), recording a refusal in its lock's audit entry.
    async fn reserve_sign_in(&self, email: &str, address: &str, now: i64) -> Result<Reservation>;

    /// Records a failed sign-in, locking the address or the account as `auth::throttle` says;
    /// true when it locked the account.
    async fn record_failed_sign_in(&self, email: &str, address: &str, now: i64) -> Result<bool>;

    /// After a right password: clears the address's count, stores an upgraded hash if there is
    /// one, drops long-dead sessions, starts `session`, and ends the user's oldest sessions past
    /// the newest `keep`; how many it ended.
    async fn start_session(
        &self,
        email: &str,
        address: &str,
        new_hash: Option<String>,
        session: SessionRecord,
        keep: u32,
        now: i64,
    ) -> Result<u64>;

    /// Makes `new` the session's current token if `old` still is (two renewals of one token:
    /// only the first wins); true when it was swapped.
    async fn rotate_token(&self, session_id: &str, old: &str, new: &str, now: i64) -> Result<bool>;

    /// The session `id` with its user, if it is live now (see [`SessionCheck::is_live`]), marked
    /// as used as `check` says.
    async fn live_session(
        &self,
        id: &str,
        now: i64,
        check: SessionCheck,
    ) -> Result<Option<(UserRecord, SessionRecord)>>;

    /// Ends one session; false when it had already ended.
    async fn revoke_session(&self, id: &str, now: i64) -> Result<bool>;

    /// Lifts every sign-in lock of `email`; how many there were.
    async fn unlock_sign_in(&self, email: &str) -> Result<usize>;

    /// The account with this email, whatever its case.
    async fn user_by_email(&self, email: &str) -> Result<Option<UserRecord>>;

    /// How many accounts exist.
    async fn user_count(&self) -> Result<i64>;

    /// Adds an account; a taken email is an `invalid_request` on `email`.
    async fn insert_user(&self, user: UserRecord) -> Result<()>;

    /// Every account, oldest first, each with whether it is locked now.
    async fn users_with_locks(&self, now: i64) -> Result<Vec<(UserRecord, bool)>>;

    /// Disables or enables an account; disabling ends its sessions. How many sessions ended.
    async fn set_user_disabled(&self, id: &str, disabled: bool, now: i64) -> Result<usize>;

    /// A new password: stores its hash, lifts every lock (a fresh start) and ends every session.
    /// How many sessions ended.
    async fn set_user_password(&self, id: &str, email: &str, hash: String, now: i64) -> Result<usize>;
}
