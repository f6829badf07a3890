//! A team server's live events (`GET /api/events`), relayed to every window under the names the
//! embedded core's events have (`webhook`, `sync-progress`, `document-saved`), so the screens
//! update alike in both modes. The stream is read here in Rust, with the token that never reaches
//! the web view. After a drop it reconnects with the last id it saw (`Last-Event-ID`), so nothing
//! is missed; a `reset` from the server (too much missed) becomes `events-reset`, and the windows
//! refetch. Whether the server can be reached goes to the windows as `team-server`.

use std::sync::Arc;
use std::time::Duration;

use eventsource_stream::Eventsource;
use futures_util::StreamExt;
use serde::Serialize;
use serde_json::Value;
use tauri::{AppHandle, Emitter, Manager, Runtime};
use tokio::sync::Notify;

use crate::team::TeamServer;
use crate::DesktopState;

/// The events the windows listen to; anything else a newer server sends is left out.
const RELAYED: &[&str] = &["webhook", "sync-progress", "document-saved"];
/// The first wait before reconnecting to a server out of reach; it doubles up to [`LONGEST_WAIT`].
const FIRST_WAIT: Duration = Duration::from_millis(500);
const LONGEST_WAIT: Duration = Duration::from_secs(10);
/// The longest a server that has no place for the stream is waited for (its `Retry-After`).
const LONGEST_RETRY_AFTER: Duration = Duration::from_secs(60);

/// The running relay; dropping it stops it.
pub struct Relay {
    task: tauri::async_runtime::JoinHandle<()>,
    nudge: Arc<Notify>,
}

/// The `team-server` event: whether the team server can be reached.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Reach {
    pub server: String,
    pub reachable: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl Relay {
    /// Starts relaying `server`'s events with the app's current token.
    pub fn start<R: Runtime>(app: AppHandle<R>, server: Arc<TeamServer>) -> Relay {
        let nudge = Arc::new(Notify::new());
        let task = tauri::async_runtime::spawn(relay(app, server, nudge.clone()));
        Relay { task, nudge }
    }

    /// Reconnects now if the relay is waiting to ("Try again").
    pub fn nudge(&self) {
        self.nudge.notify_one();
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn relay<R: Runtime>(app: AppHandle<R>, server: Arc<TeamServer>, nudge: Arc<Notify>) {
    let mut last_id: Option<i64> = None;
    let mut wait = FIRST_WAIT;
    let mut reach = Reachability::default();
    loop {
        let Some(token) = app.state::<DesktopState>().token().await else { return };
        match server.events(&token, last_id).send().await {
            Ok(response) if response.status() == reqwest::StatusCode::OK => {
                reach.tell(&app, &server, None);
                wait = FIRST_WAIT;
                let mut events = crate::limits::bounded_events(response.bytes_stream()).eventsource();
                let ended = loop {
                    match events.next().await {
                        Some(Ok(event)) => {
                            if let Ok(id) = event.id.parse() {
                                last_id = Some(id);
                            }
                            forward(&app, &event.event, &event.data);
                        }
                        Some(Err(error)) => break Some(error),
                        None => break None,
                    }
                };
                match ended {
                    Some(error) => {
                        tracing::warn!(server = %server.url(), %error, "the team server's event stream broke; reconnecting")
                    }
                    None => {
                        tracing::debug!(server = %server.url(), "the team server's event stream ended; reconnecting")
                    }
                }
            }
            Ok(response) if response.status() == reqwest::StatusCode::UNAUTHORIZED => {
                // The session has ended (signed out elsewhere, disabled, idle too long): the
                // windows go back to the login screen, as after any refused call.
                let error = staffroom::Error::unauthorized("Your session on the team server has ended");
                let _ = app.emit("session-expired", error.object());
                return;
            }
            Ok(response) if response.status() == reqwest::StatusCode::TOO_MANY_REQUESTS => {
                // The server has as many streams as it serves: it is there, so wait as it says.
                let retry_after = response
                    .headers()
                    .get(reqwest::header::RETRY_AFTER)
                    .and_then(|v| v.to_str().ok()?.trim().parse().ok())
                    .map_or(LONGEST_WAIT, Duration::from_secs);
                tracing::warn!(server = %server.url(), ?retry_after, "the team server has no place for another event stream");
                wait = retry_after.min(LONGEST_RETRY_AFTER);
            }
            Ok(response) if response.status().is_redirection() => {
                reach.tell(&app, &server, server.refuse_redirect(&response).err())
            }
            Ok(response) => reach.tell(&app, &server, Some(server.not_staffroom(response.status().as_u16()))),
            Err(error) => reach.tell(&app, &server, Some(server.unreachable(&error))),
        }
        tokio::select! {
            _ = tokio::time::sleep(wait) => {}
            _ = nudge.notified() => {}
        }
        if reach.reachable == Some(false) {
            wait = (wait * 2).min(LONGEST_WAIT);
        }
    }
}

/// Sends one of the server's events to the windows.
fn forward<R: Runtime>(app: &AppHandle<R>, name: &str, data: &str) {
    if name == "reset" {
        let _ = app.emit("events-reset", ());
        return;
    }
    if !RELAYED.contains(&name) {
        return;
    }
    match serde_json::from_str::<Value>(data) {
        Ok(payload) => {
            let _ = app.emit(name, payload);
        }
        Err(error) => tracing::warn!(event = name, %error, "the team server sent an event that is not JSON"),
    }
}

/// What the windows were last told of the server's reach, so each change is told once.
#[derive(Default)]
struct Reachability {
    reachable: Option<bool>,
}

impl Reachability {
    fn tell<R: Runtime>(&mut self, app: &AppHandle<R>, server: &TeamServer, problem: Option<staffroom::Error>) {
        let reachable = problem.is_none();
        if self.reachable == Some(reachable) {
            return;
        }
        self.reachable = Some(reachable);
        let reach = Reach { server: server.url().to_string(), reachable, message: problem.map(|e| e.message) };
        let _ = app.emit("team-server", reach);
    }
}
