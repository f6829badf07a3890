//! Staff authentication: accounts with roles, sign-in with throttling, sessions behind short-lived
//! tokens, refresh, logout, and immediate revocation (SPEC section 3); and the audit log every
//! area writes to (who did what). The requests staff send are declared here with their bounds;
//! the operations that take them are declared in the core.

mod actor;
pub mod audit;
pub mod password;
pub mod requests;
pub mod store;
pub mod throttle;
pub mod token;
pub mod validate;

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::json;

pub use self::actor::{Actor, StaffIdentity};
use self::audit::store::AuditStore;
use self::store::{AccountStore, Role, SessionCheck, SessionRecord, UserRecord};
use crate::audit::Audit;
use staffroom_base::error::{Error, ErrorCode, FieldError, Result};
use staffroom_base::secrets::Secret;
use staffroom_base::store::MetaStore;
use staffroom_base::time::{now_rfc3339, now_unix, unix_to_rfc3339};

pub use self::password::PasswordHasher;
pub use self::token::{Claims, TokenKeys};
pub use self::validate::LoginInput;

/// What staff accounts and the audit log ask of a database.
pub trait AuthStore: AccountStore + AuditStore + MetaStore + Send + Sync {}

impl<T: AccountStore + AuditStore + MetaStore + Send + Sync + ?Sized> AuthStore for T {}

/// A handle on the database, as staff accounts and the audit log see it.
pub type AuthDb = Arc<dyn AuthStore>;

/// The keyring entry where the desktop remembers its session's resume token ("keep me signed
/// in"); the core keeps it.
pub const REMEMBERED_SESSION: &str = "desktop_session";
/// The keyring entry holding the remembered sign-in to a team server: its URL and token.
pub const REMEMBERED_TEAM_SESSION: &str = "team_session";

/// Token and session lifetimes (SPEC section 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionLimits {
    /// Life of one access token.
    pub access_token: Duration,
    /// A session dies after this long without a request.
    pub idle: Duration,
    /// A session dies this long after sign-in, whatever happens.
    pub absolute: Duration,
}

impl Default for SessionLimits {
    fn default() -> Self {
        SessionLimits {
            access_token: Duration::from_secs(15 * 60),
            idle: Duration::from_secs(30 * 60),
            absolute: Duration::from_secs(12 * 60 * 60),
        }
    }
}

/// A session's last-seen time is written at most this often.
const TOUCH_EVERY_SECS: i64 = 30;

/// Live sessions one person may have: a desktop, a laptop and a few more, with room to spare. A
/// sign-in past it ends that person's oldest session, so that signing in again and again cannot
/// gather streams, or anything else a session holds, without end.
pub const MAX_SESSIONS: u32 = 10;

/// The client address of sign-ins from the desktop app itself (no network between).
pub const THIS_COMPUTER: &str = "this computer";

/// A staff member as every door shows them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct UserDto {
    pub id: String,
    pub email: String,
    pub name: String,
    pub role: Role,
    #[serde(default)]
    pub disabled: bool,
    /// Sign-ins are refused for now: too many wrong guesses (an admin may unlock it).
    #[serde(default)]
    pub locked: bool,
}

impl From<&UserRecord> for UserDto {
    fn from(u: &UserRecord) -> Self {
        UserDto {
            id: u.id.clone(),
            email: u.email.clone(),
            name: u.name.clone(),
            role: u.role,
            disabled: u.disabled,
            locked: false,
        }
    }
}

/// The seed's AuthResponse, plus when the token and its session end.
#[derive(Clone, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct AuthResponse {
    pub token: String,
    pub user: UserDto,
    /// When this token expires (RFC 3339).
    pub expires_at: String,
    /// When the session ends at the latest, whatever the activity (RFC 3339).
    pub session_expires_at: String,
    /// For "keep me signed in": the one token `POST /api/auth/resume` takes, to resume this
    /// session after a restart without the password. It lasts as long as the session may, and
    /// is retired together with `token` by the next refresh or resume; using a retired one ends
    /// the session (it was stolen). Keep it where only the signed-in person can read it.
    pub resume_token: String,
}

impl std::fmt::Debug for AuthResponse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthResponse")
            .field("token", &"[redacted]")
            .field("resume_token", &"[redacted]")
            .field("user", &self.user)
            .field("expires_at", &self.expires_at)
            .field("session_expires_at", &self.session_expires_at)
            .finish()
    }
}

/// A sign-in as the desktop's web view sees it: who, and until when; never the token, which
/// stays in Rust.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SignedIn {
    pub user: UserDto,
    pub expires_at: String,
    pub session_expires_at: String,
}

impl From<&AuthResponse> for SignedIn {
    fn from(response: &AuthResponse) -> Self {
        SignedIn {
            user: response.user.clone(),
            expires_at: response.expires_at.clone(),
            session_expires_at: response.session_expires_at.clone(),
        }
    }
}

impl From<&StaffIdentity> for UserDto {
    /// The signed-in staff member (live, so neither disabled nor locked).
    fn from(who: &StaffIdentity) -> Self {
        UserDto {
            id: who.user_id.clone(),
            email: who.email.clone(),
            name: who.name.clone(),
            role: who.role,
            disabled: false,
            locked: false,
        }
    }
}

/// What a token's session is to it.
enum Found {
    /// Live, and the token is its current one.
    Current(StaffIdentity, UserRecord, SessionRecord),
    /// Live, but the token was replaced by a refresh or resume.
    Retired(UserRecord, SessionRecord),
    /// Gone, ended, or not the token's user's.
    Ended,
}

fn session_ended() -> Error {
    Error::unauthorized("Your session has ended; sign in again")
}

/// A new token id (`jti`).
fn new_token_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

/// Why a sign-in failed (the auth endpoint has its own bodies for these).
#[derive(Debug, Clone, PartialEq)]
pub enum LoginError {
    /// Unknown email, wrong password or disabled account: indistinguishable on purpose.
    InvalidCredentials,
    /// The request itself is bad.
    Validation(Vec<FieldError>),
    /// Too many failures: try again after this many seconds.
    Throttled { retry_after: u64 },
    /// Anything else (already logged).
    Other(Error),
}

impl From<Error> for LoginError {
    fn from(err: Error) -> Self {
        LoginError::Other(err)
    }
}

impl From<LoginError> for Error {
    fn from(err: LoginError) -> Self {
        match err {
            LoginError::InvalidCredentials => Error::unauthorized("The email or password is wrong"),
            LoginError::Validation(fields) => Error::invalid(fields),
            LoginError::Throttled { retry_after } => Error::rate_limited(
                "Too many failed sign-ins; wait before trying again",
                Duration::from_secs(retry_after),
            ),
            LoginError::Other(err) => err,
        }
    }
}

/// A new account.
#[derive(Debug, Clone)]
pub struct NewUser {
    pub email: String,
    pub name: String,
    pub role: Role,
    pub password: Secret,
}

/// Staff accounts, sign-in and sessions.
#[derive(Clone)]
pub struct AuthService {
    db: AuthDb,
    hasher: PasswordHasher,
    keys: TokenKeys,
    limits: SessionLimits,
    audit: Audit,
}

impl AuthService {
    /// The service over `db`, signing with `keys`.
    pub fn new(
        db: impl Into<AuthDb>,
        keys: TokenKeys,
        limits: SessionLimits,
        max_concurrent_hashes: usize,
        audit: Audit,
    ) -> Self {
        AuthService { db: db.into(), hasher: PasswordHasher::new(max_concurrent_hashes), keys, limits, audit }
    }

    /// Signs in from the client at `address` (an IP address, or [`THIS_COMPUTER`]). The attempt is counted first, in one transaction, so that only five per account
    /// and address reach the hasher before a lock however many arrive at once; then one hash,
    /// whatever the account's state (unknown, disabled and wrong passwords look the same).
    pub async fn login(&self, input: LoginInput, address: &str) -> Result<AuthResponse, LoginError> {
        let now = now_unix();
        let reservation = self.db.reserve_sign_in(&input.email, address, now).await?;
        if let throttle::Reservation::Refused { retry_after } = reservation {
            return Err(LoginError::Throttled { retry_after });
        }
        let user = self.db.user_by_email(&input.email).await?;
        let verified = self.hasher.verify(&input.password, user.as_ref().map(|u| u.password_hash.as_str())).await?;
        let user = match user {
            Some(user) if verified.matches && !user.disabled => user,
            other => {
                let account_locked = self.db.record_failed_sign_in(&input.email, address, now).await?;
                let reason = match other {
                    None => "unknown email",
                    Some(u) if u.disabled => "account disabled",
                    Some(_) => "wrong password",
                };
                tracing::debug!(reason, account_locked, "sign-in failed");
                self.audit
                    .record(
                        "anonymous",
                        crate::audit::AuditAction::SignIn,
                        Some(&input.email),
                        "failure",
                        Some(json!({ "reason": reason, "address": address })),
                    )
                    .await;
                return Err(LoginError::InvalidCredentials);
            }
        };

        let new_hash = if verified.needs_upgrade { Some(self.hasher.hash(&input.password).await?) } else { None };
        let session = SessionRecord {
            id: uuid::Uuid::new_v4().to_string(),
            user_id: user.id.clone(),
            created_at: now,
            last_seen_at: now,
            expires_at: now + self.limits.absolute.as_secs() as i64,
            revoked_at: None,
            token_id: Some(new_token_id()),
        };
        let ended = self.db.start_session(&input.email, address, new_hash, session.clone(), MAX_SESSIONS, now).await?;
        if verified.needs_upgrade {
            tracing::info!(user = %user.id, "password hash upgraded to current parameters");
        }
        if ended > 0 {
            let detail = json!({ "sessions": ended, "reason": format!("more than {MAX_SESSIONS} sessions at once") });
            self.audit
                .record(
                    &user.email,
                    crate::audit::AuditAction::SessionEnded,
                    Some(&user.email),
                    "success",
                    Some(detail),
                )
                .await;
        }
        self.audit.record(&user.email, crate::audit::AuditAction::SignIn, Some(&user.email), "success", None).await;
        Ok(self.issue(&user, &session, now)?)
    }

    /// A token for the session's current token id.
    fn issue(&self, user: &UserRecord, session: &SessionRecord, now: i64) -> Result<AuthResponse> {
        let exp = (now + self.limits.access_token.as_secs() as i64).min(session.expires_at);
        let claims = Claims {
            iss: token::ISSUER.into(),
            aud: token::ISSUER.into(),
            sub: user.id.clone(),
            sid: session.id.clone(),
            email: user.email.clone(),
            name: user.name.clone(),
            role: user.role.as_str().into(),
            iat: now,
            nbf: now,
            exp,
            jti: session.token_id.clone().unwrap_or_default(),
        };
        let resume = token::Claims { exp: session.expires_at, ..claims.clone() };
        Ok(AuthResponse {
            token: self.keys.sign(&claims)?,
            user: UserDto::from(user),
            expires_at: unix_to_rfc3339(exp),
            session_expires_at: unix_to_rfc3339(session.expires_at),
            resume_token: self.keys.sign_resume(&resume)?,
        })
    }

    /// New tokens for the live session behind `claims`; the ones they replace stop working now.
    /// A token that was already replaced is a stolen one being used (or the real one, after a
    /// thief renewed first): the whole session ends, so that neither keeps it (OAuth's rule for
    /// rotated refresh tokens, RFC 9700 section 4.14.2).
    async fn rotate(&self, claims: &token::Claims) -> Result<AuthResponse> {
        let (user, mut session) = match self.find_session(claims, true).await? {
            Found::Current(_, user, session) => (user, session),
            Found::Retired(user, session) => return Err(self.end_on_reuse(&user, &session).await),
            Found::Ended => return Err(session_ended()),
        };
        let now = now_unix();
        let fresh = new_token_id();
        let rotated = self.db.rotate_token(&session.id, &claims.jti, &fresh, now).await?;
        if !rotated {
            // Either another renewal of this same token won a moment ago (a second use), or the
            // session ended in the meantime (a sign-out): only the first is a theft.
            return Err(match self.find_session(claims, false).await? {
                Found::Ended => session_ended(),
                Found::Current(..) | Found::Retired(..) => self.end_on_reuse(&user, &session).await,
            });
        }
        session.token_id = Some(fresh);
        self.issue(&user, &session, now)
    }

    /// Ends `session` because one of its retired tokens was used again, and says why in the
    /// audit log; the error to answer.
    async fn end_on_reuse(&self, user: &UserRecord, session: &SessionRecord) -> Error {
        tracing::warn!(user = %user.id, session = %session.id, "a retired token was used again: the session is ended");
        if let Err(error) = self.db.revoke_session(&session.id, now_unix()).await {
            return error;
        }
        self.audit
            .record(
                "anonymous",
                crate::audit::AuditAction::SessionEnded,
                Some(&user.email),
                "failure",
                Some(json!({
                    "reason": "a token already replaced was used to renew the session: it may have been stolen",
                    "session": session.id,
                })),
            )
            .await;
        Error::unauthorized("This sign-in was renewed elsewhere, so it has been ended for safety; sign in again")
    }

    /// Checks a bearer token: valid signature and claims, and a live session of an enabled user.
    pub async fn authenticate(&self, token: &str) -> Result<StaffIdentity> {
        Ok(self.live_session(token).await?.0)
    }

    /// [`authenticate`](Self::authenticate), with the token's claims (its id and expiry).
    pub async fn authenticate_with_claims(&self, token: &str) -> Result<(StaffIdentity, token::Claims)> {
        let claims = self.keys.verify(token)?;
        let (identity, _, _) = self.live_session_of(claims.clone(), true).await?;
        Ok((identity, claims))
    }

    /// The id of the current token of user `user_id`'s session `session_id` while that session is
    /// live, without counting the check as use (event streams ask this now and then; only what
    /// staff do keeps a session alive).
    pub async fn current_token_of(&self, session_id: &str, user_id: &str) -> Result<Option<String>> {
        let check = SessionCheck { idle_secs: self.limits.idle.as_secs() as i64, touch_after_secs: None };
        let found = self.db.live_session(session_id, now_unix(), check).await?;
        Ok(found.filter(|(_, session)| session.user_id == user_id).and_then(|(_, session)| session.token_id))
    }

    /// Fresh tokens for the session behind a remembered resume token ("keep me signed in"):
    /// only while that session is live (not signed out, idle at most the idle limit, within its
    /// absolute life, user enabled) and the resume token is its current one.
    pub async fn resume(&self, resume_token: &str) -> Result<AuthResponse> {
        self.rotate(&self.keys.verify_resume(resume_token)?).await
    }

    /// The session of an account with this email is unlocked at every address (an admin's act).
    pub async fn unlock(&self, actor: &Actor, email: &str) -> Result<UserDto> {
        actor.require_admin()?;
        let user = self.find(email).await?;
        let lifted = self.db.unlock_sign_in(&user.email).await?;
        self.audit
            .record(
                actor.audit_name(),
                crate::audit::AuditAction::UserUnlock,
                Some(&user.email),
                "success",
                Some(json!({ "locks": lifted })),
            )
            .await;
        Ok(UserDto::from(&user))
    }

    async fn live_session(&self, token: &str) -> Result<(StaffIdentity, UserRecord, SessionRecord)> {
        self.live_session_of(self.keys.verify(token)?, true).await
    }

    /// The live session behind `claims`, if their token is its current one.
    async fn live_session_of(
        &self,
        claims: token::Claims,
        touch: bool,
    ) -> Result<(StaffIdentity, UserRecord, SessionRecord)> {
        match self.find_session(&claims, touch).await? {
            Found::Current(identity, user, session) => Ok((identity, user, session)),
            Found::Retired(..) | Found::Ended => Err(session_ended()),
        }
    }

    /// The session behind `claims`, and whether their token is its current one.
    async fn find_session(&self, claims: &token::Claims, touch: bool) -> Result<Found> {
        let now = now_unix();
        let idle = self.limits.idle.as_secs() as i64;
        let check = SessionCheck { idle_secs: idle, touch_after_secs: touch.then_some(TOUCH_EVERY_SECS) };
        let found = self.db.live_session(&claims.sid, now, check).await?;
        let Some((user, session)) = found.filter(|(_, session)| session.user_id == claims.sub) else {
            return Ok(Found::Ended);
        };
        if session.token_id.as_deref() != Some(claims.jti.as_str()) {
            return Ok(Found::Retired(user, session));
        }
        let identity = StaffIdentity {
            user_id: user.id.clone(),
            session_id: session.id.clone(),
            email: user.email.clone(),
            name: user.name.clone(),
            role: user.role,
        };
        Ok(Found::Current(identity, user, session))
    }

    /// A fresh token for the live session behind `token`, which stops working at once.
    pub async fn refresh(&self, token: &str) -> Result<AuthResponse> {
        self.rotate(&self.keys.verify(token)?).await
    }

    /// Ends the session behind `token` at once.
    pub async fn logout(&self, token: &str) -> Result<()> {
        let (identity, _, session) = self.live_session(token).await?;
        let now = now_unix();
        self.db.revoke_session(&session.id, now).await?;
        self.audit
            .record(&identity.email, crate::audit::AuditAction::SignOut, Some(&identity.email), "success", None)
            .await;
        Ok(())
    }

    /// Whether an account with this email exists.
    pub async fn has_user(&self, email: &str) -> Result<bool> {
        Ok(self.db.user_by_email(email).await?.is_some())
    }

    /// Whether no account exists yet (the first run asks for the first admin).
    pub async fn needs_first_admin(&self) -> Result<bool> {
        Ok(self.db.user_count().await? == 0)
    }

    /// Creates the first admin; refused once any account exists.
    pub async fn create_first_admin(&self, email: String, name: String, password: Secret) -> Result<UserDto> {
        if !self.needs_first_admin().await? {
            return Err(Error::new(ErrorCode::Conflict, "Staffroom already has accounts; an admin must add you"));
        }
        self.add_user(&Actor::System, NewUser { email, name, role: Role::Admin, password }).await
    }

    /// Adds an account, enforcing the field rules and the password policy.
    pub async fn add_user(&self, actor: &Actor, new: NewUser) -> Result<UserDto> {
        actor.require_admin()?;
        let email = new.email.trim().to_string();
        let name = new.name.trim().to_string();
        let mut errors = Vec::new();
        if let Some(problem) = validate::email_problem(&email) {
            errors.push(FieldError::new("email", problem));
        }
        if let Some(problem) = validate::name_problem(&name) {
            errors.push(FieldError::new("name", problem));
        }
        if let Err(reason) = password::check_policy(new.password.expose(), &[&email, &name, "staffroom"]) {
            errors.push(FieldError::new("password", reason));
        }
        if !errors.is_empty() {
            return Err(Error::invalid(errors));
        }
        let now = now_rfc3339();
        let record = UserRecord {
            id: uuid::Uuid::new_v4().to_string(),
            email,
            name,
            role: new.role,
            password_hash: self.hasher.hash(&new.password).await?,
            disabled: false,
            created_at: now.clone(),
            updated_at: now,
        };
        let outcome = self.db.insert_user(record.clone()).await;
        let label = if outcome.is_ok() { "success" } else { "failure" };
        self.audit
            .record(
                actor.audit_name(),
                crate::audit::AuditAction::UserAdd,
                Some(&record.email),
                label,
                Some(json!({ "role": record.role })),
            )
            .await;
        outcome?;
        Ok(UserDto::from(&record))
    }

    /// Every account.
    pub async fn list_users(&self, actor: &Actor) -> Result<Vec<UserDto>> {
        actor.require_admin()?;
        let now = now_unix();
        let listed = self.db.users_with_locks(now).await?;
        Ok(listed.iter().map(|(user, locked)| UserDto { locked: *locked, ..UserDto::from(user) }).collect())
    }

    async fn find(&self, email: &str) -> Result<UserRecord> {
        let email = email.trim();
        self.db
            .user_by_email(email)
            .await?
            .ok_or_else(|| Error::not_found(format!("No account with the email {email}")))
    }

    /// Disables or enables an account; disabling ends all its sessions at once.
    pub async fn set_disabled(&self, actor: &Actor, email: &str, disabled: bool) -> Result<UserDto> {
        actor.require_admin()?;
        let mut user = self.find(email).await?;
        if let Actor::Staff(who) = actor {
            if who.user_id == user.id && disabled {
                return Err(Error::conflict("You cannot disable your own account", None));
            }
        }
        let revoked = self.db.set_user_disabled(&user.id, disabled, now_unix()).await?;
        user.disabled = disabled;
        let action =
            if disabled { crate::audit::AuditAction::UserDisable } else { crate::audit::AuditAction::UserEnable };
        self.audit
            .record(actor.audit_name(), action, Some(&user.email), "success", Some(json!({ "sessionsEnded": revoked })))
            .await;
        Ok(UserDto::from(&user))
    }

    /// Sets a new password (policy enforced); ends all the account's sessions at once.
    /// Staff may change their own password; admins anyone's.
    pub async fn set_password(&self, actor: &Actor, email: &str, password: Secret) -> Result<UserDto> {
        let user = self.find(email).await?;
        match actor {
            Actor::Staff(who) if who.user_id == user.id => {}
            other => other.require_admin()?,
        }
        if let Err(reason) = password::check_policy(password.expose(), &[&user.email, &user.name, "staffroom"]) {
            return Err(Error::invalid_field("password", reason));
        }
        let hash = self.hasher.hash(&password).await?;
        // A new password is a fresh start: no lock from guesses at the old one.
        let revoked = self.db.set_user_password(&user.id, &user.email, hash, now_unix()).await?;
        self.audit
            .record(
                actor.audit_name(),
                crate::audit::AuditAction::UserSetPassword,
                Some(&user.email),
                "success",
                Some(json!({ "sessionsEnded": revoked })),
            )
            .await;
        Ok(UserDto::from(&user))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auth_responses_never_print_their_token() {
        let response = AuthResponse {
            token: "eyJ.secret.token".into(),
            user: UserDto {
                id: "u".into(),
                email: "a@x.test".into(),
                name: "A".into(),
                role: Role::Staff,
                disabled: false,
                locked: false,
            },
            expires_at: "t".into(),
            session_expires_at: "t".into(),
            resume_token: "eyJ.hidden.resume".into(),
        };
        let printed = format!("{response:?}");
        assert!(!printed.contains("secret") && !printed.contains("hidden"), "{printed}");
    }
}
