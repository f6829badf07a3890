//! What the shell keeps between calls: this computer's core, the team server it is signed in to
//! (if any), the signed-in staff member's token, and the app's own webhook receiver.

use std::sync::{Arc, Mutex};

use serde::de::DeserializeOwned;
use staffroom::api::{Answer, Caller, Input, OpEntry};
use staffroom::auth::{Actor, StaffIdentity, THIS_COMPUTER};
use staffroom::http::receiver::ReceiverControl;
use staffroom::{Core, Error};
use tokio::sync::RwLock;

use crate::backend::{Backend, InProcess};
use crate::place::SignInPlace;
use crate::relay::Relay;
use crate::team::TeamServer;

/// The operations that keep an editor's unsaved edits: on a team server too, they stay on this
/// computer (SPEC section 10), kept per server and staff member.
const DRAFT_OPERATIONS: &[&str] = &["get_draft", "save_draft", "discard_draft"];
/// What the editor opens with: in team mode the server's, with this computer's draft.
const EDITOR_VIEW: &str = "editor_document";

/// Opens a page in a browser: the system's, unless tests script one.
pub type Browser = Arc<dyn Fn(&str) -> Result<(), Error> + Send + Sync>;

/// Managed state of the desktop app.
pub struct DesktopState {
    /// This computer's core: its own accounts and data, and, in team mode, the drafts.
    pub core: Core,
    local: Arc<dyn Backend>,
    /// The team server signed in to: while there is one, every core operation goes there.
    team: RwLock<Option<Arc<TeamServer>>>,
    /// The current access token (never leaves Rust: the web view only sees the user record).
    token: RwLock<Option<String>>,
    /// The app's own webhook receiver (this computer's; a team server receives its own).
    pub receiver: ReceiverControl,
    /// Where the login screen signs in, remembered in the data dir.
    place: Mutex<SignInPlace>,
    /// The team server's live events, relayed to the windows while signed in to one.
    relay: Mutex<Option<Relay>>,
    /// Where Google's consent page is opened (`None`: the system browser).
    browser: Option<Browser>,
    /// Where an export asks to be saved (`None`: the OS's save dialog).
    save_picker: Option<crate::export::SavePicker>,
}

impl DesktopState {
    /// State over an opened core, signed out, with the login screen's remembered choice.
    pub fn new(core: Core) -> Self {
        let place = SignInPlace::load(&core.config.data_dir);
        DesktopState {
            receiver: ReceiverControl::new(core.clone()),
            local: Arc::new(InProcess::new(core.clone())),
            core,
            team: RwLock::new(None),
            token: RwLock::new(None),
            place: Mutex::new(place),
            relay: Mutex::new(None),
            browser: None,
            save_picker: None,
        }
    }

    /// Answers exports' "save as" with `picker` instead of the OS's dialog (for tests).
    pub fn with_save_picker(mut self, picker: crate::export::SavePicker) -> Self {
        self.save_picker = Some(picker);
        self
    }

    /// The picker exports ask, when it is not the OS's dialog.
    pub fn save_picker(&self) -> Option<crate::export::SavePicker> {
        self.save_picker.clone()
    }

    /// Opens pages with `browser` instead of the system browser (for tests).
    pub fn with_browser(mut self, browser: Browser) -> Self {
        self.browser = Some(browser);
        self
    }

    /// The browser pages are opened with, when it is not the system's.
    pub fn browser(&self) -> Option<Browser> {
        self.browser.clone()
    }

    /// State whose core operations go to `server` (for tests of the team backend), signed out.
    pub fn with_team_server(core: Core, server: TeamServer) -> Self {
        let state = DesktopState::new(core);
        *state.team.try_write().expect("not yet shared") = Some(Arc::new(server));
        state
    }

    /// The login screen's choice.
    pub fn place(&self) -> SignInPlace {
        self.place.lock().expect("the sign-in place lock").clone()
    }

    /// Changes the login screen's choice; with `keep`, remembers it for the next launch.
    pub fn set_place(&self, place: SignInPlace, keep: bool) {
        if keep {
            if let Err(err) = place.save(&self.core.config.data_dir) {
                tracing::warn!(error = %err, "could not remember where to sign in");
            }
        }
        *self.place.lock().expect("the sign-in place lock") = place;
    }

    /// The team server signed in to, if any.
    pub async fn team(&self) -> Option<Arc<TeamServer>> {
        self.team.read().await.clone()
    }

    /// Signs this app in to `team` (a team server) or this computer (`None`) with `token`, or
    /// out of everything (`None`, `None`).
    pub async fn sign_in_to(&self, team: Option<Arc<TeamServer>>, token: Option<String>) {
        *self.team.write().await = team;
        *self.token.write().await = token;
    }

    /// Remembers the token of a fresh sign-in or refresh.
    pub async fn set_token(&self, token: Option<String>) {
        *self.token.write().await = token;
    }

    /// The current token, if signed in.
    pub async fn token(&self) -> Option<String> {
        self.token.read().await.clone()
    }

    /// Keeps (or, with `None`, stops) the relay of a team server's live events.
    pub fn set_relay(&self, relay: Option<Relay>) {
        *self.relay.lock().expect("the relay lock") = relay;
    }

    /// Asks the relay, if one runs, to reconnect now rather than after its wait.
    pub fn nudge_relay(&self) {
        if let Some(relay) = &*self.relay.lock().expect("the relay lock") {
            relay.nudge();
        }
    }

    /// The signed-in staff member, checked like any bearer token: by this computer's core, or by
    /// the team server (then known here by an id that names the server, so that what this
    /// computer keeps for them, their drafts, stays apart from local accounts' and other servers').
    pub async fn identity(&self) -> Result<StaffIdentity, Error> {
        let token = self.token().await.ok_or_else(staffroom::api::signed_out)?;
        let Some(team) = self.team().await else { return self.core.auth.authenticate(&token).await };
        let me = staffroom::api::find("me").expect("a core operation");
        let me = team.call(me, Some(&token), Input::new()).await?;
        let me: staffroom::auth::ops::MeResponse =
            serde_json::from_value(me.body).map_err(|e| Error::internal("the team server's answer", e))?;
        Ok(StaffIdentity {
            user_id: format!("{}#{}", team.url(), me.user.id),
            session_id: String::new(),
            email: me.user.email,
            name: me.user.name,
            role: me.user.role,
        })
    }

    /// The signed-in staff member as an actor of core services.
    pub async fn actor(&self) -> Result<Actor, Error> {
        Ok(Actor::Staff(self.identity().await?))
    }

    /// Calls core operation `operation` with this app's token: on the team server when signed in
    /// to one (except drafts, which stay here), else on this computer's core.
    pub async fn call_operation(&self, operation: &'static OpEntry, input: Input) -> Result<Answer, Error> {
        let token = self.token().await;
        let Some(team) = self.team().await else {
            return self.local.call(operation, token.as_deref(), input).await;
        };
        if DRAFT_OPERATIONS.contains(&operation.spec.name) {
            return self.here(operation, input).await;
        }
        let mut answer = team.call(operation, token.as_deref(), input).await?;
        if operation.spec.name == EDITOR_VIEW {
            self.with_local_draft(&mut answer).await?;
        }
        Ok(answer)
    }

    /// Runs a core operation on this computer's core as the team server's staff member.
    async fn here(&self, operation: &'static OpEntry, input: Input) -> Result<Answer, Error> {
        let caller = Caller { identity: Some(self.identity().await?), token: None, address: THIS_COMPUTER.into() };
        operation.call(&self.core, &caller, input).await
    }

    /// The server's editor view with this computer's draft of the document in it; the document
    /// is kept here too, as the base later drafts are checked against.
    async fn with_local_draft(&self, answer: &mut Answer) -> Result<(), Error> {
        let document: staffroom::docs::model::Document = serde_json::from_value(answer.body["document"].clone())
            .map_err(|e| Error::internal("the team server's editor view", e))?;
        self.core.docs.keep_copy(&document).await?;
        let draft = self.core.docs.draft(&self.actor().await?, &document.id, document.tab_id.as_deref()).await?;
        answer.body["draft"] = serde_json::to_value(draft).map_err(|e| Error::internal("a draft", e))?;
        Ok(())
    }

    /// Calls the core operation `name` (see [`Self::call_operation`]) and reads its answer as `T`.
    pub async fn call<T: DeserializeOwned>(&self, name: &str, input: Input) -> Result<T, Error> {
        let operation = staffroom::api::find(name).ok_or_else(|| Error::not_found(format!("No operation {name}")))?;
        let answer = self.call_operation(operation, input).await?;
        serde_json::from_value(answer.body).map_err(|e| Error::internal("an operation's answer", e))
    }
}
