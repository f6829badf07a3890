//! "Keep me signed in": the desktop app keeps its session's latest resume token (never an access
//! token) in the OS keyring, so a restart within the session's limits (idle at most 30 minutes,
//! 12 hours at most in all) resumes it without the password. The token stays bound to its one session: signing out, disabling the
//! user or any other end of that session makes the remembered token worthless.

use crate::auth::{AuthResponse, REMEMBERED_SESSION};
use crate::error::{ErrorCode, Result};
use crate::secrets::Secret;
use crate::Core;

impl Core {
    /// Remembers `resume_token` (an [`AuthResponse`]'s) in the keyring, or forgets the
    /// remembered one (`None`).
    pub async fn remember_session(&self, resume_token: Option<&str>) -> Result<()> {
        match resume_token {
            Some(token) => self.secrets.write(REMEMBERED_SESSION, Secret::new(token)).await,
            None => self.secrets.remove(REMEMBERED_SESSION).await,
        }
    }

    /// Whether a token is remembered (the app then keeps it current as the session refreshes).
    pub async fn has_remembered_session(&self) -> Result<bool> {
        Ok(self.secrets.read(REMEMBERED_SESSION).await?.is_some())
    }

    /// Resumes the remembered session with fresh tokens (remembered in turn), or `None` when
    /// nothing is remembered or that session has ended (then it is forgotten).
    pub async fn resume_remembered_session(&self) -> Result<Option<AuthResponse>> {
        let Some(token) = self.secrets.read(REMEMBERED_SESSION).await? else {
            return Ok(None);
        };
        match self.auth.resume(token.expose()).await {
            Ok(response) => {
                self.remember_session(Some(&response.resume_token)).await?;
                Ok(Some(response))
            }
            Err(err) if err.code == ErrorCode::Unauthorized => {
                tracing::info!("the remembered session has ended; signing in again is needed");
                self.remember_session(None).await?;
                Ok(None)
            }
            Err(err) => Err(err),
        }
    }
}
