//! What the shell keeps between calls: the core, the backend its operations go through, the
//! signed-in staff member's token, and the app's own webhook receiver.

use std::sync::Arc;

use serde::de::DeserializeOwned;
use staffroom::api::Input;
use staffroom::auth::{Actor, StaffIdentity};
use staffroom::http::receiver::ReceiverControl;
use staffroom::{Core, Error};
use tokio::sync::RwLock;

use crate::backend::{Backend, InProcess};

/// Managed state of the desktop app.
pub struct DesktopState {
    pub core: Core,
    pub backend: Arc<dyn Backend>,
    /// The current access token (never leaves Rust: the web view only sees the user record).
    token: RwLock<Option<String>>,
    /// The app's own webhook receiver.
    pub receiver: ReceiverControl,
}

impl DesktopState {
    /// State over an opened core, signed out.
    pub fn new(core: Core) -> Self {
        let backend = Arc::new(InProcess::new(core.clone()));
        DesktopState::with_backend(core, backend)
    }

    /// State whose core operations go through `backend` (a team server), signed out.
    pub fn with_backend(core: Core, backend: Arc<dyn Backend>) -> Self {
        DesktopState { receiver: ReceiverControl::new(core.clone()), backend, core, token: RwLock::new(None) }
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
        let token = self.token().await.ok_or_else(staffroom::api::signed_out)?;
        self.core.auth.authenticate(&token).await
    }

    /// The signed-in staff member as an actor of core services.
    pub async fn actor(&self) -> Result<Actor, Error> {
        Ok(Actor::Staff(self.identity().await?))
    }

    /// Calls the core operation `name` through the backend with this window's token, and reads
    /// its answer as `T`.
    pub async fn call<T: DeserializeOwned>(&self, name: &str, input: Input) -> Result<T, Error> {
        let operation = staffroom::api::find(name).ok_or_else(|| Error::not_found(format!("No operation {name}")))?;
        let token = self.token().await;
        let answer = self.backend.call(operation, token.as_deref(), input).await?;
        serde_json::from_value(answer.body).map_err(|e| Error::internal("an operation's answer", e))
    }
}
