//! The desktop door: one command, `call`, for every operation a window may call. It finds the
//! operation (the core's, or the desktop's own), checks that the calling window may call it and
//! who calls, runs it, and rejects with the core's error object. A dead session also tells every
//! window (`session-expired`).

use serde_json::Value;
use staffroom::api::{self, Access, Input, OpSpec, Window};
use staffroom::{Error, ErrorCode};
use tauri::{AppHandle, Emitter, Runtime, Webview};

use crate::ops::{self, Context};
use crate::start::desktop_state;
use crate::DesktopState;

/// Calls operation `op` with `request` (an object of its fields) for the calling window.
#[tauri::command]
pub async fn call<R: Runtime>(
    app: AppHandle<R>,
    webview: Webview<R>,
    op: String,
    request: Option<Value>,
) -> Result<Value, Error> {
    let input = match request {
        None | Some(Value::Null) => Input::new(),
        Some(Value::Object(fields)) => fields,
        Some(_) => return Err(Error::invalid_field("request", "must be an object of the operation's fields")),
    };
    let window = Window::of_label(webview.label());
    let state = desktop_state(&app).await?;
    if let Some(operation) = api::find(&op).filter(|o| !o.spec.windows.is_empty()) {
        allowed(&operation.spec, window)?;
        let answer = state.call_operation(operation, input).await;
        return answer.map(|a| a.body).map_err(|e| expired(&app, &operation.spec, e));
    }
    let spec = ops::spec(&op).ok_or_else(|| Error::not_found(format!("No operation called {op}")))?;
    allowed(&spec, window)?;
    let answer = async {
        check_access(&state, &spec).await?;
        let cx = Context { app: &app, state: &state };
        ops::run(&cx, &op, input).await.expect("declared, so listed")
    }
    .await;
    answer.map(|a| a.body).map_err(|e| expired(&app, &spec, e))
}

/// Refuses an operation its declaration does not give to this kind of window.
fn allowed(spec: &OpSpec, window: Option<Window>) -> Result<(), Error> {
    if window.is_some_and(|w| spec.windows.contains(&w)) {
        Ok(())
    } else {
        Err(Error::new(ErrorCode::Forbidden, format!("This window may not call {}", spec.name)))
    }
}

/// Checks the caller of a desktop operation as the core checks its own.
async fn check_access(state: &DesktopState, spec: &OpSpec) -> Result<(), Error> {
    match spec.access {
        Access::Public => Ok(()),
        Access::Token => state.token().await.map(|_| ()).ok_or_else(api::signed_out),
        Access::Staff => state.identity().await.map(|_| ()),
        Access::Admin => state.actor().await?.require_admin(),
    }
}

/// Announces a dead session to every window, then passes the error on. A provider refusing its
/// stored credentials is `unauthorized` too, with `details.provider` (SPEC section 2): that is
/// Settings' business, not the staff member's session.
fn expired<R: Runtime>(app: &AppHandle<R>, spec: &OpSpec, err: Error) -> Error {
    let provider = err.details.as_ref().is_some_and(|d| d.get("provider").is_some());
    if err.code == ErrorCode::Unauthorized && spec.access != Access::Public && !provider {
        let _ = app.emit("session-expired", err.object());
    }
    err
}
