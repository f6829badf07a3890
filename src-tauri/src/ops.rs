//! The desktop's own operations, declared like the core's (name, access, windows, request and
//! response) but run here: what only a desktop has (its session, kept in Rust; its windows; its
//! webhook receiver; the system browser for Google's sign-in).

use std::future::Future;
use std::sync::Arc;

use serde::Serialize;
use serde_json::json;
use staffroom::api::{Access, Answer, Input, NoInput, OpSpec, OpTypes, Request, MAIN};
use staffroom_macros::request;
use staffroom::auth::{AuthResponse, SignedIn, UserDto};
use staffroom::docs::oauth::GoogleStatus;
use staffroom::http::receiver::ReceiverStatus;
use staffroom::secrets::Secret;
use staffroom::{Error, ErrorCode, Result};
use tauri::{AppHandle, Runtime};

use crate::place::SignInPlace;
use crate::relay::Relay;
use crate::team::TeamServer;
use crate::DesktopState;

/// What a desktop operation runs with.
pub struct Context<'a, R: Runtime> {
    pub app: &'a AppHandle<R>,
    pub state: &'a DesktopState,
}

/// One of the desktop's own operations.
pub trait DesktopOperation: Send + Sync + 'static {
    const SPEC: OpSpec;
    type Request: Request;
    type Response: Serialize + ts_rs::TS + utoipa::ToSchema + Send + 'static;

    fn run<R: Runtime>(
        cx: &Context<'_, R>,
        request: Self::Request,
    ) -> impl Future<Output = Result<Self::Response>> + Send;
}

async fn run_erased<O: DesktopOperation, R: Runtime>(cx: &Context<'_, R>, input: Input) -> Result<Answer> {
    let request = O::Request::from_input(&input)?;
    let response = O::run(cx, request).await?;
    let body = serde_json::to_value(&response).map_err(|e| Error::internal("answer", e))?;
    Ok(Answer { status: None, body })
}

/// Lists the desktop's operations once: their declarations, and how to run one by name.
macro_rules! desktop_operations {
    ($($op:ty),* $(,)?) => {
        /// Every desktop operation's declaration and types.
        pub fn declarations() -> Vec<(OpSpec, OpTypes)> {
            vec![$((<$op>::SPEC, OpTypes::of::<<$op as DesktopOperation>::Request, <$op as DesktopOperation>::Response>())),*]
        }

        /// Runs the desktop operation called `name`, if there is one.
        pub async fn run<R: Runtime>(cx: &Context<'_, R>, name: &str, input: Input) -> Option<Result<Answer>> {
            $(if name == <$op>::SPEC.name {
                return Some(run_erased::<$op, R>(cx, input).await);
            })*
            None
        }
    };
}

desktop_operations!(
    GetAppInfo,
    Login,
    Logout,
    CurrentUser,
    RefreshSession,
    WebhookReceiver,
    SetWebhookReceiver,
    OpenEditor,
    GoogleSignIn,
    Reconnect,
    crate::notify::ShowNotification,
    crate::links::OpenLink,
    crate::export::ExportCsv,
    crate::export::DownloadDocument,
);

/// The declaration of the desktop operation `name`.
pub fn spec(name: &str) -> Option<OpSpec> {
    declarations().into_iter().map(|(spec, _)| spec).find(|spec| spec.name == name)
}

/// What the UI needs before anyone signs in.
#[derive(Debug, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[ts(export_to = "desktop/")]
pub struct AppInfo {
    pub version: String,
    pub sandbox: bool,
    /// The demo account, in sandbox mode only.
    pub demo: Option<staffroom::sandbox::DemoCredentials>,
    /// No account exists yet on this computer: show the first-admin setup (or joining a team).
    pub needs_first_admin: bool,
    /// The team server the login screen offers (the last one used, or `--server`).
    pub team_server: Option<String>,
    /// Whether the login screen starts with the team server chosen rather than this computer.
    pub use_team_server: bool,
    /// The team server this app is signed in to, if any (then `sandbox` is the server's mode).
    pub signed_in_to: Option<String>,
}

pub struct GetAppInfo;
impl DesktopOperation for GetAppInfo {
    const SPEC: OpSpec =
        OpSpec::new("app_info", "desktop", "The version, the mode, and whether the first admin is still to be made")
            .access(Access::Public);
    type Request = NoInput;
    type Response = AppInfo;
    async fn run<R: Runtime>(cx: &Context<'_, R>, _: NoInput) -> Result<AppInfo> {
        let core = &cx.state.core;
        let place = cx.state.place();
        let team = cx.state.team().await;
        // The server's mode, as far as it can be asked now; out of reach, the banner says so.
        let sandbox = match &team {
            Some(server) => server.health().await.map(|h| h.sandbox).unwrap_or(false),
            None => core.config.sandbox,
        };
        Ok(AppInfo {
            version: env!("CARGO_PKG_VERSION").to_string(),
            sandbox,
            demo: staffroom::sandbox::demo_credentials(core).filter(|_| team.is_none()),
            needs_first_admin: core.auth.needs_first_admin().await?,
            team_server: place.server,
            use_team_server: place.use_server,
            signed_in_to: team.map(|server| server.url().to_string()),
        })
    }
}

/// A sign-in from the app: the account, and whether to keep the session across restarts.
#[request]
#[derive(Debug, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[ts(export_to = "desktop/")]
pub struct LoginRequest {
    #[field(rule = staffroom::auth::validate::EMAIL)]
    pub email: String,
    /// Checked by the sign-in it is handed to.
    #[field(text)]
    #[schema(value_type = String, format = Password)]
    #[serde(serialize_with = "staffroom::secrets::serialize_exposed")]
    #[ts(type = "string")]
    pub password: Secret,
    /// "Keep me signed in": the session's token goes into the OS keyring.
    #[field(flag)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub remember: Option<bool>,
    /// The team server to sign in to (HTTPS, or http on this computer only); none for this
    /// computer.
    #[field(
        // A web address of a host name, an IPv4 address or [::1], with a port and a path, no user, query or
        // fragment (spaces around it aside); `team::is_server_url` adds that plain http is only for
        // this computer. The sign-in keeps `team::server_url`'s form of it.
        pattern = "^[ \\t]*[Hh][Tt][Tt][Pp][Ss]?://([A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\\[::1\\])(:(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3}|0))?(/[A-Za-z0-9._~!$&'()*+,;=:@%/-]{0,2000})?[ \\t]*$",
        check = crate::team::is_server_url,
        message = "must be an https:// address such as https://staffroom.example.com (plain http only for a server on this computer)"
    )]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub server: Option<String>,
}

/// Signs in through the backend; the token stays here. With `remember` the session's resume token
/// goes into the keyring so the next launch resumes it; without, any remembered one is forgotten.
pub struct Login;
impl DesktopOperation for Login {
    const SPEC: OpSpec =
        OpSpec::new("login", "desktop", "Signs in; the token stays in the app").access(Access::Public).errors(&[
            (401, "unauthorized: the email or password is wrong"),
            (429, "rate_limited: too many failed sign-ins"),
        ]);
    type Request = LoginRequest;
    type Response = SignedIn;
    async fn run<R: Runtime>(cx: &Context<'_, R>, request: LoginRequest) -> Result<SignedIn> {
        let state = cx.state;
        let account = json!({ "email": request.email, "password": request.password.expose() });
        let input = account.as_object().cloned().unwrap_or_default();
        let remember = request.remember.unwrap_or(false);
        let Some(url) = request.server else {
            let response: AuthResponse = call_here(state, "sign_in", input).await?;
            state.sign_in_to(None, Some(response.token.clone())).await;
            state.set_relay(None);
            state.set_place(SignInPlace { use_server: false, ..state.place() }, true);
            // The sign-in stands even when the keyring cannot keep it; the next launch asks again.
            if let Err(err) = state.core.remember_session(remember.then_some(response.resume_token.as_str())).await {
                tracing::warn!(error = %err.message, "could not update the remembered sign-in");
            }
            return Ok(SignedIn::from(&response));
        };
        let server = Arc::new(TeamServer::new(&crate::team::server_url(&url)?)?);
        let response: AuthResponse = call_on(&server, None, "sign_in", input).await?;
        signed_in_to_team(cx, server, &response, remember).await;
        Ok(SignedIn::from(&response))
    }
}

/// Calls a core operation on this computer's core, whatever the app is signed in to.
async fn call_here<T: serde::de::DeserializeOwned>(state: &DesktopState, name: &str, input: Input) -> Result<T> {
    let operation = staffroom::api::find(name).expect("a core operation");
    let answer = staffroom::api::dispatch(&state.core, operation, None, staffroom::auth::THIS_COMPUTER, input).await?;
    serde_json::from_value(answer.body).map_err(|e| Error::internal("an operation's answer", e))
}

/// Calls a core operation on a team server the app is not (yet) signed in to.
async fn call_on<T: serde::de::DeserializeOwned>(
    server: &TeamServer,
    token: Option<&str>,
    name: &str,
    input: Input,
) -> Result<T> {
    use crate::backend::Backend;
    let operation = staffroom::api::find(name).expect("a core operation");
    let answer = server.call(operation, token, input).await?;
    serde_json::from_value(answer.body).map_err(|e| Error::internal("the team server's answer", e))
}

/// After a sign-in to (or a resumed session on) a team server: every operation goes there from
/// now on, its events are relayed, and the login screen will offer it next time.
async fn signed_in_to_team<R: Runtime>(
    cx: &Context<'_, R>,
    server: Arc<TeamServer>,
    response: &AuthResponse,
    remember: bool,
) {
    let state = cx.state;
    state.sign_in_to(Some(server.clone()), Some(response.token.clone())).await;
    state.set_place(SignInPlace { server: Some(server.url().to_string()), use_server: true }, true);
    let remembered = remember.then(|| (server.url(), response.resume_token.as_str()));
    if let Err(err) = remember_team_session(&state.core, remembered).await {
        tracing::warn!(error = %err.message, "could not update the remembered sign-in to the team server");
    }
    state.set_relay(Some(Relay::start(cx.app.clone(), server)));
}

/// A remembered sign-in to a team server: which server, and the session's latest resume token.
#[derive(serde::Serialize, serde::Deserialize)]
struct TeamSession {
    server: String,
    resume_token: String,
}

/// Remembers (or forgets, with `None`) the sign-in to a team server in the keyring.
async fn remember_team_session(core: &staffroom::Core, session: Option<(&str, &str)>) -> Result<()> {
    const NAME: &str = staffroom::auth::REMEMBERED_TEAM_SESSION;
    match session {
        Some((server, token)) => {
            let kept = serde_json::to_string(&TeamSession { server: server.into(), resume_token: token.into() })
                .map_err(|e| Error::internal("a remembered sign-in", e))?;
            core.secrets.write(NAME, Secret::new(kept)).await
        }
        None => core.secrets.remove(NAME).await,
    }
}

/// The remembered sign-in to a team server, if one is kept.
async fn remembered_team_session(core: &staffroom::Core) -> Result<Option<TeamSession>> {
    let kept = core.secrets.read(staffroom::auth::REMEMBERED_TEAM_SESSION).await?;
    Ok(kept.and_then(|secret| serde_json::from_str(secret.expose()).ok()))
}

pub struct Logout;
impl DesktopOperation for Logout {
    const SPEC: OpSpec = OpSpec::new("logout", "desktop", "Signs out, here and of the session").access(Access::Public);
    type Request = NoInput;
    type Response = ();
    async fn run<R: Runtime>(cx: &Context<'_, R>, _: NoInput) -> Result<()> {
        if cx.state.token().await.is_some() {
            // An already-dead session is signed out all the same.
            if let Err(err) = cx.state.call::<serde_json::Value>("sign_out", Input::new()).await {
                tracing::debug!(code = err.code.as_str(), "sign-out of a dead session");
            }
        }
        let was_team = cx.state.team().await.is_some();
        cx.state.sign_in_to(None, None).await;
        cx.state.set_relay(None);
        if was_team {
            remember_team_session(&cx.state.core, None).await
        } else {
            cx.state.core.remember_session(None).await
        }
    }
}

/// The signed-in staff member; at launch, the remembered session if there is a live one.
pub struct CurrentUser;
impl DesktopOperation for CurrentUser {
    const SPEC: OpSpec = OpSpec::new("current_user", "desktop", "Who is signed in, if anyone").access(Access::Public);
    type Request = NoInput;
    type Response = Option<UserDto>;
    async fn run<R: Runtime>(cx: &Context<'_, R>, _: NoInput) -> Result<Option<UserDto>> {
        let state = cx.state;
        if state.token().await.is_none() && !resume(cx).await? {
            return Ok(None);
        }
        match state.call::<staffroom::auth::ops::MeResponse>("me", Input::new()).await {
            Ok(me) => Ok(Some(me.user)),
            Err(err) if err.code == ErrorCode::Unauthorized => {
                state.set_token(None).await;
                Ok(None)
            }
            Err(err) => Err(err),
        }
    }
}

/// Resumes the remembered sign-in where the login screen would sign in: this computer, or the
/// team server chosen. Whether there was a live one to resume.
async fn resume<R: Runtime>(cx: &Context<'_, R>) -> Result<bool> {
    let state = cx.state;
    let place = state.place();
    if !place.use_server {
        let Some(resumed) = state.core.resume_remembered_session().await? else { return Ok(false) };
        state.sign_in_to(None, Some(resumed.token)).await;
        return Ok(true);
    }
    let Some(kept) = remembered_team_session(&state.core).await? else { return Ok(false) };
    if place.server.as_deref() != Some(kept.server.as_str()) {
        return Ok(false);
    }
    let server = Arc::new(TeamServer::new(&kept.server)?);
    match call_on::<AuthResponse>(&server, Some(&kept.resume_token), "resume_session", Input::new()).await {
        Ok(resumed) => {
            signed_in_to_team(cx, server, &resumed, true).await;
            Ok(true)
        }
        Err(err) if err.code == ErrorCode::Unauthorized => {
            tracing::info!("the remembered session on the team server has ended; signing in again is needed");
            remember_team_session(&state.core, None).await?;
            Ok(false)
        }
        Err(err) => Err(err),
    }
}

/// A fresh token for the session (the old one stops working); a remembered sign-in follows it.
pub struct RefreshSession;
impl DesktopOperation for RefreshSession {
    const SPEC: OpSpec = OpSpec::new("refresh_session", "desktop", "Renews the session's token").access(Access::Token);
    type Request = NoInput;
    type Response = SignedIn;
    async fn run<R: Runtime>(cx: &Context<'_, R>, _: NoInput) -> Result<SignedIn> {
        let state = cx.state;
        match state.call::<AuthResponse>("refresh_token", Input::new()).await {
            Ok(response) => {
                state.set_token(Some(response.token.clone())).await;
                match state.team().await {
                    Some(server) => {
                        if remembered_team_session(&state.core).await?.is_some() {
                            remember_team_session(&state.core, Some((server.url(), &response.resume_token))).await?;
                        }
                    }
                    None if state.core.has_remembered_session().await? => {
                        state.core.remember_session(Some(&response.resume_token)).await?;
                    }
                    None => {}
                }
                Ok(SignedIn::from(&response))
            }
            // A server out of reach has not ended the session: the next refresh may get through.
            Err(err) if err.code == ErrorCode::Unavailable => Err(err),
            Err(err) => {
                let team = state.team().await.is_some();
                state.set_token(None).await;
                if err.code == ErrorCode::Unauthorized {
                    let forgotten = if team {
                        remember_team_session(&state.core, None).await
                    } else {
                        state.core.remember_session(None).await
                    };
                    if let Err(forget) = forgotten {
                        tracing::warn!(error = %forget.message, "could not forget the remembered sign-in");
                    }
                }
                Err(err)
            }
        }
    }
}

pub struct WebhookReceiver;
impl DesktopOperation for WebhookReceiver {
    const SPEC: OpSpec =
        OpSpec::new("webhook_receiver", "desktop", "Whether the app's own webhook receiver runs, and where");
    type Request = NoInput;
    type Response = ReceiverStatus;
    async fn run<R: Runtime>(cx: &Context<'_, R>, _: NoInput) -> Result<ReceiverStatus> {
        Ok(cx.state.receiver.status().await)
    }
}

/// Switches the receiver on (on 127.0.0.1 at `port`, 0 for any free port) or off.
#[request]
#[derive(Debug, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[ts(export_to = "desktop/")]
pub struct ReceiverSwitch {
    #[field(flag)]
    pub enabled: bool,
    /// Default 8787; 0 for any free port.
    #[field(min = 0, max = 65535)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub port: Option<u16>,
}

pub struct SetWebhookReceiver;
impl DesktopOperation for SetWebhookReceiver {
    const SPEC: OpSpec =
        OpSpec::new("set_webhook_receiver", "desktop", "Switches the app's webhook receiver on or off")
            .access(Access::Admin);
    type Request = ReceiverSwitch;
    type Response = ReceiverStatus;
    async fn run<R: Runtime>(cx: &Context<'_, R>, request: ReceiverSwitch) -> Result<ReceiverStatus> {
        if let Some(server) = cx.state.team().await {
            return Err(Error::new(
                ErrorCode::Conflict,
                format!(
                    "The team server {} receives the webhooks; this app's receiver is not used while signed in to it",
                    server.url()
                ),
            ));
        }
        cx.state.receiver.set(&cx.state.actor().await?, request.enabled, request.port).await
    }
}

/// The editor window of a document.
#[request]
#[derive(Debug, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[ts(export_to = "desktop/")]
pub struct OpenEditorRequest {
    #[field(pattern = "^[A-Za-z0-9_-]{1,200}$", message = "must be a Google document id (letters, digits, - or _)")]
    pub id: String,
    /// The document's name, for the window's title.
    #[field(text)]
    pub name: String,
}

/// Opens (or focuses) the editor window of a document: one window per document.
pub struct OpenEditor;
impl DesktopOperation for OpenEditor {
    const SPEC: OpSpec =
        OpSpec::new("open_editor", "desktop", "Opens a document's editor window, or brings it to the front")
            .windows(MAIN);
    type Request = OpenEditorRequest;
    type Response = ();
    async fn run<R: Runtime>(cx: &Context<'_, R>, request: OpenEditorRequest) -> Result<()> {
        use tauri::Manager;
        let label = format!("editor-{}", request.id);
        if let Some(window) = cx.app.get_webview_window(&label) {
            let _ = window.unminimize();
            let _ = window.set_focus();
            return Ok(());
        }
        let url = tauri::WebviewUrl::App(format!("index.html?editor={}", request.id).into());
        tauri::WebviewWindowBuilder::new(cx.app, label, url)
            .title(format!("{} — Staffroom", request.name))
            .inner_size(900.0, 760.0)
            .min_inner_size(600.0, 400.0)
            .build()
            .map_err(|e| Error::internal("editor window", e))?;
        Ok(())
    }
}

/// Google sign-in: opens Google's consent page in the system browser and waits (up to five
/// minutes) for it to come back to this computer's loopback listener. Signed in to a team server,
/// the server builds the page and exchanges the code (SPEC section 10): its client and tokens
/// stay on the server, and only the browser step runs here.
pub struct GoogleSignIn;
impl DesktopOperation for GoogleSignIn {
    const SPEC: OpSpec =
        OpSpec::new("google_sign_in", "desktop", "Signs in to Google in the system browser").access(Access::Admin);
    type Request = NoInput;
    type Response = GoogleStatus;
    async fn run<R: Runtime>(cx: &Context<'_, R>, _: NoInput) -> Result<GoogleStatus> {
        const WAIT: std::time::Duration = std::time::Duration::from_secs(300);
        if cx.state.team().await.is_none() {
            let actor = cx.state.actor().await?;
            let docs = &cx.state.core.docs;
            let pending = docs.begin_sign_in(&actor).await?;
            open_in_browser(cx, &pending.url)?;
            return docs.finish_sign_in(&actor, pending, WAIT).await;
        }
        let step = staffroom::docs::oauth::BrowserStep::start().await?;
        let request = serde_json::json!({
            "redirectUri": step.redirect_uri,
            "codeChallenge": step.code_challenge,
            "state": step.state,
        });
        let page: staffroom::docs::ops::Authorization =
            cx.state.call("google_authorization", json_input(request)).await?;
        // The server built the page: it is opened only if it is Google's, for this sign-in.
        let server = cx.state.team().await.map(|server| server.url().to_string()).unwrap_or_default();
        let sign_in = crate::links::SignIn {
            google_auth_url: &cx.state.core.config.docs.endpoints.auth_url,
            server: &server,
            redirect_uri: &step.redirect_uri,
            state: &step.state,
        };
        crate::links::check_consent_page(&page.url, &sign_in)?;
        open_in_browser(cx, &page.url)?;
        let code = step.finish(WAIT).await?;
        let handed = serde_json::json!({
            "code": code.code.expose(),
            "codeVerifier": code.verifier.expose(),
            "redirectUri": code.redirect_uri,
        });
        cx.state.call("google_exchange_code", json_input(handed)).await
    }
}

fn json_input(value: serde_json::Value) -> Input {
    match value {
        serde_json::Value::Object(fields) => fields,
        _ => unreachable!("built as an object"),
    }
}

/// Opens a web page in the system browser (or the tests' scripted one), checked first by the
/// caller ([`crate::links`]); http(s) only, whatever the caller checked.
pub(crate) fn open_in_browser<R: Runtime>(cx: &Context<'_, R>, url: &str) -> Result<()> {
    use tauri_plugin_opener::OpenerExt;
    crate::links::check_web_link(url)?;
    if let Some(browser) = cx.state.browser() {
        return browser(url);
    }
    cx.app.opener().open_url(url, None::<&str>).map_err(|e| Error::internal("opening the browser", e))
}

/// "Try again" on the banner that says the team server cannot be reached: asks the server now,
/// and has the live events reconnect at once. On this computer there is nothing to reach.
pub struct Reconnect;
impl DesktopOperation for Reconnect {
    const SPEC: OpSpec = OpSpec::new("reconnect", "desktop", "Checks that the team server can be reached again")
        .access(Access::Public)
        .errors(&[(503, "unavailable: the team server still cannot be reached (details.teamServer)")]);
    type Request = NoInput;
    type Response = ();
    async fn run<R: Runtime>(cx: &Context<'_, R>, _: NoInput) -> Result<()> {
        let Some(server) = cx.state.team().await else { return Ok(()) };
        server.health().await?;
        cx.state.nudge_relay();
        Ok(())
    }
}
