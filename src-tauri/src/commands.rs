//! The commands the UI invokes. Each one translates: arguments in, a core service call, its DTO
//! or its error object out. A dead session also tells every window (`session-expired`).

use serde::Serialize;
use serde_json::json;
use staffroom::auth::{AuthResponse, UserDto};
use staffroom::secrets::Secret;
use staffroom::{Error, ErrorCode};
use tauri::{AppHandle, Emitter, State};

use crate::DesktopState;

/// What the UI needs before anyone signs in.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AppInfo {
    pub version: &'static str,
    pub sandbox: bool,
    /// The demo account, in sandbox mode only.
    pub demo: Option<staffroom::sandbox::DemoCredentials>,
    /// No account exists yet: show the first-admin setup.
    pub needs_first_admin: bool,
}

/// Announces a dead session to every window, then passes the error on.
fn expired(app: &AppHandle, err: Error) -> Error {
    if err.code == ErrorCode::Unauthorized {
        let _ = app.emit("session-expired", err.object());
    }
    err
}

#[tauri::command]
pub async fn app_info(state: State<'_, DesktopState>) -> Result<AppInfo, Error> {
    Ok(AppInfo {
        version: env!("CARGO_PKG_VERSION"),
        sandbox: state.core.config.sandbox,
        demo: staffroom::sandbox::demo_credentials(&state.core),
        needs_first_admin: state.core.auth.needs_first_admin().await?,
    })
}

#[tauri::command]
pub async fn login(state: State<'_, DesktopState>, email: String, password: String) -> Result<AuthResponse, Error> {
    let response = state.core.auth.login_json(&json!({ "email": email, "password": password })).await?;
    state.set_token(Some(response.token.clone())).await;
    Ok(response)
}

#[tauri::command]
pub async fn logout(state: State<'_, DesktopState>) -> Result<(), Error> {
    if let Some(token) = state.token().await {
        // An already-dead session is signed out all the same.
        if let Err(err) = state.core.auth.logout(&token).await {
            tracing::debug!(code = err.code.as_str(), "logout of a dead session");
        }
    }
    state.set_token(None).await;
    Ok(())
}

#[tauri::command]
pub async fn current_user(state: State<'_, DesktopState>) -> Result<Option<UserDto>, Error> {
    if state.token().await.is_none() {
        return Ok(None);
    }
    match state.identity().await {
        Ok(who) => {
            Ok(Some(UserDto { id: who.user_id, email: who.email, name: who.name, role: who.role, disabled: false }))
        }
        Err(err) if err.code == ErrorCode::Unauthorized => {
            state.set_token(None).await;
            Ok(None)
        }
        Err(err) => Err(err),
    }
}

#[tauri::command]
pub async fn refresh_session(app: AppHandle, state: State<'_, DesktopState>) -> Result<AuthResponse, Error> {
    let token = state.token().await.ok_or_else(|| expired(&app, Error::unauthorized("Sign in first")))?;
    match state.core.auth.refresh(&token).await {
        Ok(response) => {
            state.set_token(Some(response.token.clone())).await;
            Ok(response)
        }
        Err(err) => {
            state.set_token(None).await;
            Err(expired(&app, err))
        }
    }
}

#[tauri::command]
pub async fn create_first_admin(
    state: State<'_, DesktopState>,
    email: String,
    name: String,
    password: String,
) -> Result<UserDto, Error> {
    state.core.auth.create_first_admin(email, name, Secret::new(password)).await
}
