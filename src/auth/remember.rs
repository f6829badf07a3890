//! "Keep me signed in": the desktop app keeps its session's latest token in the OS keyring, so a
//! restart within the session's limits (idle at most 30 minutes, 12 hours at most in all) resumes
//! it without the password. The token stays bound to its one session: signing out, disabling the
//! user or any other end of that session makes the remembered token worthless.

use crate::auth::AuthResponse;
use crate::error::{ErrorCode, Result};
use crate::secrets::Secret;
use crate::Core;

/// The keyring entry holding the remembered token.
pub const REMEMBERED_SESSION: &str = "desktop_session";

impl Core {
    /// Remembers `token` in the keyring, or forgets the remembered one (`None`).
    pub async fn remember_session(&self, token: Option<&str>) -> Result<()> {
        let secrets = self.secrets.clone();
        let token = token.map(Secret::new);
        tokio::task::spawn_blocking(move || match token {
            Some(token) => secrets.set(REMEMBERED_SESSION, &token),
            None => secrets.delete(REMEMBERED_SESSION),
        })
        .await??;
        Ok(())
    }

    /// A fresh token for the session behind `token`. A remembered sign-in follows the session's
    /// newest token, and is forgotten once the session has ended.
    pub async fn refresh_session(&self, token: &str) -> Result<AuthResponse> {
        match self.auth.refresh(token).await {
            Ok(response) => {
                if self.has_remembered_session().await? {
                    self.remember_session(Some(&response.token)).await?;
                }
                Ok(response)
            }
            Err(err) => {
                if err.code == ErrorCode::Unauthorized {
                    if let Err(forget) = self.remember_session(None).await {
                        tracing::warn!(error = %forget.message, "could not forget the remembered sign-in");
                    }
                }
                Err(err)
            }
        }
    }

    /// Whether a token is remembered (the app then keeps it current as the session refreshes).
    pub async fn has_remembered_session(&self) -> Result<bool> {
        let secrets = self.secrets.clone();
        Ok(tokio::task::spawn_blocking(move || secrets.get(REMEMBERED_SESSION)).await??.is_some())
    }

    /// Resumes the remembered session with a fresh token (remembered in turn), or `None` when
    /// nothing is remembered or that session has ended (then it is forgotten).
    pub async fn resume_remembered_session(&self) -> Result<Option<AuthResponse>> {
        let secrets = self.secrets.clone();
        let Some(token) = tokio::task::spawn_blocking(move || secrets.get(REMEMBERED_SESSION)).await?? else {
            return Ok(None);
        };
        match self.auth.resume(token.expose()).await {
            Ok(response) => {
                self.remember_session(Some(&response.token)).await?;
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
