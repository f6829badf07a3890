//! The commands the UI invokes. Each one translates: arguments in, a core service call, its DTO
//! or its error object out. A dead session also tells every window (`session-expired`).

use serde::Serialize;
use serde_json::json;
use staffroom::auth::{SignedIn, UserDto, THIS_COMPUTER};
use staffroom::http::receiver::ReceiverStatus;
use staffroom::secrets::Secret;
use staffroom::{Error, ErrorCode};
use tauri::{AppHandle, Emitter, Runtime, State};

use crate::DesktopState;

/// What the UI needs before anyone signs in.
#[derive(Debug, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export_to = "desktop/")]
pub struct AppInfo {
    pub version: &'static str,
    pub sandbox: bool,
    /// The demo account, in sandbox mode only.
    pub demo: Option<staffroom::sandbox::DemoCredentials>,
    /// No account exists yet: show the first-admin setup.
    pub needs_first_admin: bool,
}

/// Announces a dead session to every window, then passes the error on.
fn expired<R: Runtime>(app: &AppHandle<R>, err: Error) -> Error {
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

/// Signs in; with `remember` ("keep me signed in") the session's token goes into the keyring so
/// the next launch resumes it, and without it any remembered one is forgotten. The token stays
/// here in Rust: the window gets who signed in and until when.
#[tauri::command]
pub async fn login(
    state: State<'_, DesktopState>,
    email: String,
    password: String,
    remember: Option<bool>,
) -> Result<SignedIn, Error> {
    let response = state.core.auth.login_json(&json!({ "email": email, "password": password }), THIS_COMPUTER).await?;
    state.set_token(Some(response.token.clone())).await;
    let remembered = remember.unwrap_or(false).then_some(response.token.as_str());
    // The sign-in stands even when the keyring cannot keep it; the next launch then asks again.
    if let Err(err) = state.core.remember_session(remembered).await {
        tracing::warn!(error = %err.message, "could not update the remembered sign-in");
    }
    Ok(SignedIn::from(&response))
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
    state.core.remember_session(None).await
}

/// The signed-in staff member; at launch, the remembered session if there is a live one.
#[tauri::command]
pub async fn current_user(state: State<'_, DesktopState>) -> Result<Option<UserDto>, Error> {
    if state.token().await.is_none() {
        match state.core.resume_remembered_session().await? {
            Some(resumed) => state.set_token(Some(resumed.token)).await,
            None => return Ok(None),
        }
    }
    match state.identity().await {
        Ok(who) => Ok(Some(UserDto::from(&who))),
        Err(err) if err.code == ErrorCode::Unauthorized => {
            state.set_token(None).await;
            Ok(None)
        }
        Err(err) => Err(err),
    }
}

#[tauri::command]
pub async fn refresh_session<R: Runtime>(app: AppHandle<R>, state: State<'_, DesktopState>) -> Result<SignedIn, Error> {
    let token = state.token().await.ok_or_else(|| expired(&app, Error::unauthorized("Sign in first")))?;
    match state.core.refresh_session(&token).await {
        Ok(response) => {
            state.set_token(Some(response.token.clone())).await;
            Ok(SignedIn::from(&response))
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

#[tauri::command]
pub async fn webhook_receiver(state: State<'_, DesktopState>) -> Result<ReceiverStatus, Error> {
    state.identity().await?;
    Ok(state.receiver.status().await)
}

/// Switches the receiver on (on 127.0.0.1 at `port`, 0 for any free port) or off. Admins only.
#[tauri::command]
pub async fn set_webhook_receiver(
    state: State<'_, DesktopState>,
    enabled: bool,
    port: Option<u16>,
) -> Result<ReceiverStatus, Error> {
    let actor = state.actor().await?;
    state.receiver.set(&actor, enabled, port).await
}

/// The newest stored deliveries, for the webhooks panel (live items arrive as `webhook` events).
#[tauri::command]
pub async fn webhook_events(
    state: State<'_, DesktopState>,
    limit: Option<u32>,
) -> Result<Vec<staffroom::webhooks::InboxEntry>, Error> {
    state.identity().await?;
    match &state.core.webhooks {
        Some(webhooks) => webhooks.reader().recent(limit.unwrap_or(100)).await,
        None => Ok(Vec::new()),
    }
}

/// Query parameters as the HTTP door takes them, so both doors validate alike.
fn query(page: Option<u32>, limit: Option<u32>, status: Option<String>) -> std::collections::HashMap<String, String> {
    let mut params = std::collections::HashMap::new();
    if let Some(page) = page {
        params.insert("page".into(), page.to_string());
    }
    if let Some(limit) = limit {
        params.insert("limit".into(), limit.to_string());
    }
    if let Some(status) = status.filter(|s| !s.is_empty()) {
        params.insert("status".into(), status);
    }
    params
}

#[tauri::command]
pub async fn list_products<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, DesktopState>,
    page: Option<u32>,
    limit: Option<u32>,
    status: Option<String>,
    search: Option<String>,
) -> Result<staffroom::payments::ProductList, Error> {
    state.identity().await.map_err(|e| expired(&app, e))?;
    let mut params = query(page, limit, status);
    if let Some(search) = search {
        params.insert("search".into(), search);
    }
    state.core.payments.list_products(&params).await
}

#[tauri::command]
pub async fn get_product<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, DesktopState>,
    id: String,
) -> Result<staffroom::payments::model::ProductDto, Error> {
    state.identity().await.map_err(|e| expired(&app, e))?;
    state.core.payments.get_product(&id).await
}

/// Creates an order (a checkout); `order` is the same body as `POST /api/payments/orders`.
#[tauri::command]
pub async fn create_order<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, DesktopState>,
    order: serde_json::Value,
) -> Result<staffroom::payments::model::OrderDto, Error> {
    let actor = state.actor().await.map_err(|e| expired(&app, e))?;
    state.core.payments.create_order(&actor, &order).await
}

// ---- documents --------------------------------------------------------------------------------

/// One page of documents; the parameters are those of `GET /api/docs/documents`.
#[tauri::command]
pub async fn list_documents<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, DesktopState>,
    folder_id: Option<String>,
    page_size: Option<u32>,
    page_token: Option<String>,
    order_by: Option<String>,
) -> Result<staffroom::docs::model::DocumentList, Error> {
    state.identity().await.map_err(|e| expired(&app, e))?;
    let mut params = std::collections::HashMap::new();
    for (name, value) in [
        ("folderId", folder_id.filter(|f| !f.is_empty())),
        ("pageSize", page_size.map(|n| n.to_string())),
        ("pageToken", page_token.filter(|t| !t.is_empty())),
        ("orderBy", order_by.filter(|o| !o.is_empty())),
    ] {
        if let Some(value) = value {
            params.insert(name.to_string(), value);
        }
    }
    state.core.docs.list(&params).await
}

#[tauri::command]
pub async fn list_folders<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, DesktopState>,
) -> Result<Vec<staffroom::docs::model::Folder>, Error> {
    state.identity().await.map_err(|e| expired(&app, e))?;
    state.core.docs.folders().await
}

/// Creates a document; `document` is the same body as `POST /api/docs/documents`.
#[tauri::command]
pub async fn create_document<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, DesktopState>,
    document: serde_json::Value,
) -> Result<staffroom::docs::model::DocumentSummary, Error> {
    let actor = state.actor().await.map_err(|e| expired(&app, e))?;
    state.core.docs.create(&actor, &document).await
}

/// Shares a document; `share` is the same body as `POST /api/docs/documents/:id/permissions`.
#[tauri::command]
pub async fn share_document<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, DesktopState>,
    id: String,
    share: serde_json::Value,
) -> Result<staffroom::docs::model::PermissionList, Error> {
    let actor = state.actor().await.map_err(|e| expired(&app, e))?;
    state.core.docs.share(&actor, &id, &share).await
}

#[tauri::command]
pub async fn google_status<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, DesktopState>,
) -> Result<staffroom::docs::oauth::GoogleStatus, Error> {
    state.identity().await.map_err(|e| expired(&app, e))?;
    state.core.docs.auth().status().await
}

// ---- the editor window ------------------------------------------------------------------------

/// Opens (or focuses) the editor window of a document: one window per document.
#[tauri::command]
pub async fn open_editor<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, DesktopState>,
    id: String,
    name: String,
) -> Result<(), Error> {
    use tauri::Manager;
    state.identity().await.map_err(|e| expired(&app, e))?;
    let id = staffroom::docs::validate::document_id(&id)?;
    let label = format!("editor-{id}");
    if let Some(window) = app.get_webview_window(&label) {
        let _ = window.unminimize();
        let _ = window.set_focus();
        return Ok(());
    }
    let url = tauri::WebviewUrl::App(format!("index.html?editor={id}").into());
    tauri::WebviewWindowBuilder::new(&app, label, url)
        .title(format!("{name} — Staffroom"))
        .inner_size(900.0, 760.0)
        .min_inner_size(600.0, 400.0)
        .build()
        .map_err(|e| Error::internal("editor window", e))?;
    Ok(())
}

#[tauri::command]
pub async fn editor_document<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, DesktopState>,
    id: String,
) -> Result<staffroom::docs::EditorView, Error> {
    let actor = state.actor().await.map_err(|e| expired(&app, e))?;
    state.core.docs.open_for_editing(&actor, &id).await
}

#[tauri::command]
pub async fn save_document<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, DesktopState>,
    id: String,
    edits: staffroom::docs::SaveEdits,
) -> Result<staffroom::docs::SaveOutcome, Error> {
    let actor = state.actor().await.map_err(|e| expired(&app, e))?;
    let outcome = state.core.docs.save(&actor, &id, edits).await?;
    if matches!(outcome, staffroom::docs::SaveOutcome::Saved { requests, .. } if requests > 0) {
        // The main window's document list shows the new modified time.
        let _ = app.emit("document-saved", &id);
    }
    Ok(outcome)
}

#[tauri::command]
pub async fn save_draft<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, DesktopState>,
    id: String,
    edits: staffroom::docs::SaveEdits,
) -> Result<staffroom::store::docs::Draft, Error> {
    let actor = state.actor().await.map_err(|e| expired(&app, e))?;
    state.core.docs.save_draft(&actor, &id, edits).await
}

#[tauri::command]
pub async fn discard_draft<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, DesktopState>,
    id: String,
) -> Result<(), Error> {
    let actor = state.actor().await.map_err(|e| expired(&app, e))?;
    state.core.docs.discard_draft(&actor, &id).await
}

// ---- the payments sync ------------------------------------------------------------------------

#[tauri::command]
pub async fn sync_status<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, DesktopState>,
) -> Result<staffroom::payments::sync::SyncStatus, Error> {
    state.identity().await.map_err(|e| expired(&app, e))?;
    state.core.payments.sync_status().await
}

/// Syncs now (after any sync already running); progress arrives as `sync-progress` events.
#[tauri::command]
pub async fn sync_now<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, DesktopState>,
) -> Result<staffroom::payments::sync::SyncStatus, Error> {
    state.identity().await.map_err(|e| expired(&app, e))?;
    // A failed sync is recorded per resource and shown by the status; the banner says stale.
    if let Err(err) = state.core.payments.sync_all().await {
        tracing::warn!(code = err.code.as_str(), message = %err.message, "a sync asked for in the app failed");
    }
    state.core.payments.sync_status().await
}

/// Changes the interval between background syncs (admins).
#[tauri::command]
pub async fn set_sync_interval<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, DesktopState>,
    interval_secs: u64,
) -> Result<staffroom::payments::sync::SyncStatus, Error> {
    let actor = state.actor().await.map_err(|e| expired(&app, e))?;
    let settings = staffroom::payments::sync::SyncSettings { interval_secs };
    state.core.payments.set_sync_interval(&actor, &settings).await
}

// ---- orders and subscriptions -----------------------------------------------------------------

#[tauri::command]
pub async fn list_orders<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, DesktopState>,
    page: Option<u32>,
    limit: Option<u32>,
) -> Result<staffroom::payments::OrderList, Error> {
    state.identity().await.map_err(|e| expired(&app, e))?;
    state.core.payments.list_orders(&query(page, limit, None)).await
}

/// One order with its event history.
#[tauri::command]
pub async fn get_order<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, DesktopState>,
    id: String,
) -> Result<staffroom::payments::model::OrderDto, Error> {
    state.identity().await.map_err(|e| expired(&app, e))?;
    state.core.payments.get_order(&id).await
}

#[tauri::command]
pub async fn list_subscriptions<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, DesktopState>,
    page: Option<u32>,
    limit: Option<u32>,
    status: Option<String>,
    customer_id: Option<String>,
) -> Result<staffroom::payments::SubscriptionList, Error> {
    state.identity().await.map_err(|e| expired(&app, e))?;
    let mut params = query(page, limit, status);
    if let Some(customer) = customer_id.filter(|c| !c.is_empty()) {
        params.insert("customerId".into(), customer);
    }
    state.core.payments.list_subscriptions(&params).await
}

/// cancel, resume, pause ({mode, resumesAt?}), unpause or change-plan ({variantId}).
#[tauri::command]
pub async fn act_on_subscription<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, DesktopState>,
    id: String,
    action: String,
    body: Option<serde_json::Value>,
) -> Result<staffroom::payments::SubscriptionActionResult, Error> {
    let actor = state.actor().await.map_err(|e| expired(&app, e))?;
    let action = staffroom::payments::SubscriptionAction::parse(&action, &body.unwrap_or_else(|| json!({})))?;
    state.core.payments.act_on_subscription(&actor, &id, action).await
}

// ---- settings ---------------------------------------------------------------------------------

/// Where one secret comes from (never its value).
#[derive(Debug, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export_to = "desktop/")]
pub struct SecretInfo {
    pub name: &'static str,
    pub about: &'static str,
    /// e.g. "not set", "keyring (kernel keyring)", "environment (STAFFROOM_…)".
    pub source: String,
}

/// What Settings shows (admins only).
#[derive(Debug, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export_to = "desktop/")]
pub struct SettingsView {
    pub sandbox: bool,
    pub data_dir: String,
    pub secrets: Vec<SecretInfo>,
    pub google: staffroom::docs::oauth::GoogleStatus,
    /// In the sandbox, where the two simulators listen (each has `/__sandbox/faults`, to try the
    /// app with a provider slow, failing or out of reach).
    pub simulators: Option<Simulators>,
}

/// The sandbox's simulators, by root URL.
#[derive(Debug, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export_to = "desktop/")]
pub struct Simulators {
    pub payments: String,
    pub google: String,
}

#[tauri::command]
pub async fn settings<R: Runtime>(app: AppHandle<R>, state: State<'_, DesktopState>) -> Result<SettingsView, Error> {
    let actor = state.actor().await.map_err(|e| expired(&app, e))?;
    actor.require_admin()?;
    let core = &state.core;
    let secrets = core
        .secret_sources()
        .await?
        .into_iter()
        // The signing key of staff tokens and the remembered sign-in are kept by the app itself.
        .filter(|(name, _, _)| *name != "jwt_key" && *name != staffroom::auth::REMEMBERED_SESSION)
        .map(|(name, about, source)| SecretInfo { name, about, source: source.to_string() })
        .collect();
    Ok(SettingsView {
        sandbox: core.config.sandbox,
        data_dir: core.config.data_dir.display().to_string(),
        secrets,
        google: core.docs.auth().status().await?,
        simulators: core.payment_simulator.as_ref().zip(core.google_simulator.as_ref()).map(|(payments, google)| {
            Simulators { payments: payments.base_url().to_string(), google: google.base_url().to_string() }
        }),
    })
}

/// Stores a provider credential in the keyring (admins only; audited by the core).
#[tauri::command]
pub async fn set_secret<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, DesktopState>,
    name: String,
    value: String,
) -> Result<(), Error> {
    let actor = state.actor().await.map_err(|e| expired(&app, e))?;
    if value.trim().is_empty() {
        return Err(Error::invalid_field("value", "must not be empty"));
    }
    state.core.set_secret(&actor, &name, Secret::new(value.trim())).await
}

/// Google sign-in: opens Google's consent page in the system browser and waits (up to five
/// minutes) for it to come back to the loopback listener.
#[tauri::command]
pub async fn google_sign_in<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, DesktopState>,
) -> Result<staffroom::docs::oauth::GoogleStatus, Error> {
    use tauri_plugin_opener::OpenerExt;
    let actor = state.actor().await.map_err(|e| expired(&app, e))?;
    let pending = state.core.docs.begin_sign_in(&actor).await?;
    app.opener().open_url(pending.url.clone(), None::<&str>).map_err(|e| Error::internal("opening the browser", e))?;
    state.core.docs.finish_sign_in(&actor, pending, std::time::Duration::from_secs(300)).await
}

#[tauri::command]
pub async fn google_sign_out<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, DesktopState>,
) -> Result<staffroom::docs::oauth::GoogleStatus, Error> {
    let actor = state.actor().await.map_err(|e| expired(&app, e))?;
    state.core.docs.sign_out(&actor).await
}

// ---- users and audit (admins) -----------------------------------------------------------------

#[tauri::command]
pub async fn list_users<R: Runtime>(app: AppHandle<R>, state: State<'_, DesktopState>) -> Result<Vec<UserDto>, Error> {
    let actor = state.actor().await.map_err(|e| expired(&app, e))?;
    state.core.auth.list_users(&actor).await
}

/// Adds a staff account (admins only; the password rules are the core's).
#[tauri::command]
pub async fn add_user<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, DesktopState>,
    email: String,
    name: String,
    role: staffroom::store::users::Role,
    password: String,
) -> Result<UserDto, Error> {
    let actor = state.actor().await.map_err(|e| expired(&app, e))?;
    let new = staffroom::auth::NewUser { email, name, role, password: Secret::new(password) };
    state.core.auth.add_user(&actor, new).await
}

/// Disables (signing the person out everywhere) or re-enables an account.
#[tauri::command]
pub async fn set_user_disabled<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, DesktopState>,
    email: String,
    disabled: bool,
) -> Result<UserDto, Error> {
    let actor = state.actor().await.map_err(|e| expired(&app, e))?;
    state.core.auth.set_disabled(&actor, &email, disabled).await
}

/// Lifts every sign-in lock of an account (admins).
#[tauri::command]
pub async fn unlock_user<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, DesktopState>,
    email: String,
) -> Result<UserDto, Error> {
    let actor = state.actor().await.map_err(|e| expired(&app, e))?;
    state.core.auth.unlock(&actor, &email).await
}

/// How long audit entries are kept.
#[tauri::command]
pub async fn audit_retention<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, DesktopState>,
) -> Result<staffroom::audit::AuditRetention, Error> {
    state.actor().await.map_err(|e| expired(&app, e))?.require_admin()?;
    state.core.audit.retention().await
}

/// Changes how long audit entries are kept (admins).
#[tauri::command]
pub async fn set_audit_retention<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, DesktopState>,
    days: u32,
) -> Result<staffroom::audit::AuditRetention, Error> {
    let actor = state.actor().await.map_err(|e| expired(&app, e))?;
    state.core.audit.set_retention(&actor, days).await
}

/// The audit log, newest first, `limit` entries before the entry id `before`.
#[tauri::command]
pub async fn audit_log<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, DesktopState>,
    limit: Option<u32>,
    before: Option<i64>,
) -> Result<Vec<staffroom::store::audit::AuditEntry>, Error> {
    let actor = state.actor().await.map_err(|e| expired(&app, e))?;
    actor.require_admin()?;
    state.core.audit.list(limit.unwrap_or(50).clamp(1, 200), before).await
}
