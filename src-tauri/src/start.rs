//! The core opens beside the first window, not before it: the window and its WebKit processes
//! start while migrations run and the sandbox starts, so the sign-in form appears as soon as
//! WebKit can show it. A call that comes before the core is ready waits for it; if the core
//! could not open, every call says why (and the window shows it).

use staffroom::{Error, ErrorCode};
use tauri::{Manager, Runtime, State};
use tokio::sync::watch;

use crate::DesktopState;

/// Managed while the core opens: whether it has, and why not.
pub struct Starting(watch::Receiver<Option<Result<(), String>>>);

/// Where the opening core reports its outcome.
pub struct Started(watch::Sender<Option<Result<(), String>>>);

impl Started {
    /// Tells every waiting call that the core is ready (it is managed by now), or why it is not.
    pub fn report(self, outcome: Result<(), String>) {
        self.0.send_replace(Some(outcome));
    }
}

/// A pair: manage the [`Starting`] on the app, and report through the [`Started`].
pub fn starting() -> (Starting, Started) {
    let (sender, receiver) = watch::channel(None);
    (Starting(receiver), Started(sender))
}

/// The desktop's state, once the core has opened.
pub async fn desktop_state<R: Runtime>(app: &tauri::AppHandle<R>) -> Result<State<'_, DesktopState>, Error> {
    if let Some(state) = app.try_state::<DesktopState>() {
        return Ok(state);
    }
    let Some(starting) = app.try_state::<Starting>() else {
        return Err(Error::new(ErrorCode::Internal, "Staffroom has no core"));
    };
    let mut outcome = starting.0.clone();
    let reported = outcome.wait_for(Option::is_some).await.map_err(|_| not_started("it stopped while opening"))?;
    if let Some(Err(why)) = reported.as_ref() {
        return Err(not_started(why));
    }
    drop(reported);
    app.try_state::<DesktopState>().ok_or_else(|| not_started("its state is missing"))
}

fn not_started(why: &str) -> Error {
    Error::new(ErrorCode::Unavailable, format!("Staffroom could not start: {why}"))
}
