//! What the shell keeps between commands: the core, and the signed-in staff member's token.

use staffroom::auth::{Actor, StaffIdentity};
use staffroom::http::receiver::ReceiverControl;
use staffroom::{Core, Error};
use tokio::sync::RwLock;

/// Managed state of the desktop app.
pub struct DesktopState {
    pub core: Core,
    /// The current access token (never leaves Rust: the web view only sees the user record).
    token: RwLock<Option<String>>,
    /// The app's own webhook receiver.
    pub receiver: ReceiverControl,
}

impl DesktopState {
    /// State over an opened core, signed out.
    pub fn new(core: Core) -> Self {
        DesktopState { receiver: ReceiverControl::new(core.clone()), core, token: RwLock::new(None) }
    }

    /// Remembers the token of a fresh sign-in or refresh.
    pub async fn set_token(&self, token: Option<String>) {
        *self.token.write().await = token;
    }

    /// The current token, if signed in.
    pub async fn token(&self) -> Option<String> {
        self.token.read().await.clone()
    }

    /// The signed-in staff member, checked against the core like any bearer token.
    pub async fn identity(&self) -> Result<StaffIdentity, Error> {
        let token = self.token().await.ok_or_else(|| Error::unauthorized("Sign in first"))?;
        self.core.auth.authenticate(&token).await
    }

    /// The signed-in staff member as an actor of core services.
    pub async fn actor(&self) -> Result<Actor, Error> {
        Ok(Actor::Staff(self.identity().await?))
    }
}
