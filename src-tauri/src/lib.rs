//! Staffroom's desktop shell: a thin door onto the core. Its one command, `call`, runs any
//! operation a window may call (the core's, through the [`backend::Backend`], or the desktop's
//! own in [`ops`]) and answers with its response, or rejects with the core's error object
//! `{code, message, details?}`.

pub mod backend;
mod call;
pub mod export;
mod limits;
pub mod links;
mod notify;
pub mod ops;
pub mod place;
pub mod relay;
mod rendering;
pub mod start;
mod state;
pub mod team;
mod webkit_memory;

use staffroom::config::{resolve_data_dir, Config};
use tauri::Manager;

pub use state::DesktopState;

/// The shell's own arguments.
#[derive(Default)]
struct Args {
    /// `--sandbox`: this computer's core runs the simulators.
    sandbox: bool,
    /// `--data-dir DIR` (or `STAFFROOM_DATA_DIR`).
    data_dir: Option<std::path::PathBuf>,
    /// `--server URL`: the login screen opens with this team server chosen (scripted installs).
    server: Option<String>,
}

fn parse_args() -> Args {
    let mut parsed = Args { data_dir: std::env::var_os("STAFFROOM_DATA_DIR").map(Into::into), ..Args::default() };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--sandbox" => parsed.sandbox = true,
            "--data-dir" => parsed.data_dir = args.next().map(Into::into),
            "--server" => parsed.server = args.next(),
            _ => {}
        }
    }
    parsed
}

/// Builds the core for this window's session.
async fn open_core(sandbox: bool, data_dir: Option<std::path::PathBuf>) -> staffroom::Result<staffroom::Core> {
    let mut config = Config::new(resolve_data_dir(data_dir.as_deref(), sandbox));
    config.sandbox = sandbox;
    let mut config = config.with_endpoint_overrides(|name| std::env::var(name).ok())?;
    // The desktop app runs for hours: it receives webhooks and keeps the cache synced.
    config.long_running = true;
    // Its first sync (the sandbox's: 100 orders, 245 subscriptions, … over loopback HTTP) would
    // take both cores from WebKit while the window opens: it waits until the sign-in form is up
    // (the lists show the cache meanwhile; a cache never synced waits a second at most).
    config.payments.first_sync_after = std::time::Duration::from_secs(3);
    if let Some(backend) = std::env::var("STAFFROOM_SECRET_STORE").ok().and_then(|v| v.parse().ok()) {
        config.secret_backend = backend;
    }
    // A bigger sandbox store, for the memory benchmark (tests/e2e/run --bench).
    if let Some(products) = std::env::var("STAFFROOM_SANDBOX_PRODUCTS").ok().and_then(|v| v.parse().ok()) {
        config.sandbox_products = products;
    }
    // A 1 MB document among the sandbox's, for the editor's benchmark (tests/e2e/run --bench).
    config.sandbox_large_document = std::env::var("STAFFROOM_SANDBOX_LARGE_DOCUMENT").is_ok_and(|v| v == "1");
    let core = staffroom::open(config).await?;
    if core.config.sandbox {
        staffroom::sandbox::ensure_demo_account(&core).await?;
    }
    Ok(core)
}

/// Starts the app.
pub fn run() {
    let launched = std::time::Instant::now();
    let Args { sandbox, data_dir, server } = parse_args();
    rendering::paint_with_the_cpu_without_a_gpu();
    let mut builder = with_commands(tauri::Builder::default());
    let has_bus = session_bus();
    if has_bus {
        // First, so a second launch focuses the running window instead of opening another core.
        builder = builder.plugin(tauri_plugin_single_instance::init(|app, _argv, _cwd| {
            if let Some(window) = app.get_webview_window("main") {
                let _ = window.unminimize();
                let _ = window.set_focus();
            }
        }));
    } else {
        // No session bus (a bare X session, a container): the single-instance plugin (which
        // needs one) is left out, and accessibility is told not to look for one; each otherwise
        // waited seconds before the window showed. A desktop always has a bus.
        std::env::set_var("NO_AT_BRIDGE", "1");
    }
    // After the environment is set: this starts WebKit's own set-up.
    webkit_memory::give_web_contexts_a_memory_limit();
    builder
        .plugin(tauri_plugin_opener::init())
        .plugin(tauri_plugin_notification::init())
        .plugin(tauri_plugin_dialog::init())
        .setup(move |app| {
            let log_dir = app.path().app_log_dir().ok();
            let guard = staffroom::logging::init(log_dir.as_deref());
            app.manage(LogGuard(guard));
            if !has_bus {
                tracing::warn!(
                    "no D-Bus session bus: a second launch opens a second window, and screen readers are not reached"
                );
            }
            #[cfg(target_os = "linux")]
            tracing::info!(
                contexts = webkit_memory::contexts_given_the_limit(),
                "WebKit's web process tidies up past {} MB",
                webkit_memory::MEMORY_LIMIT_MB
            );
            notify::open_on_click(app.handle()).map_err(|e| e.message)?;
            // A bad --server is refused before any window opens.
            let server = match &server {
                Some(url) => Some(
                    team::server_url(url)
                        .map_err(|e| format!("--server {url}: {}", e.object()["details"]["fields"][0]["message"]))?,
                ),
                None => None,
            };
            // The core opens while the window loads (start.rs); calls wait for it.
            let (starting, started) = start::starting();
            app.manage(starting);
            let handle = app.handle().clone();
            tauri::async_runtime::spawn(async move {
                let outcome = open_desktop(&handle, sandbox, data_dir, server, launched).await;
                if let Err(why) = &outcome {
                    tracing::error!(%why, "Staffroom could not start");
                }
                started.report(outcome);
            });
            Ok(())
        })
        .run(tauri::generate_context!())
        .expect("error while running Staffroom");
}

/// Whether a D-Bus session bus is there to talk to: named in the environment, or at its usual
/// place in the user's runtime directory. Only Linux desktops use one.
fn session_bus() -> bool {
    if !cfg!(target_os = "linux") || std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some() {
        return true;
    }
    std::env::var_os("XDG_RUNTIME_DIR").is_some_and(|dir| std::path::Path::new(&dir).join("bus").exists())
}

/// Opens this computer's core and everything around it, and manages the desktop's state.
async fn open_desktop(
    app: &tauri::AppHandle,
    sandbox: bool,
    data_dir: Option<std::path::PathBuf>,
    server: Option<String>,
    launched: std::time::Instant,
) -> Result<(), String> {
    let core = open_core(sandbox, data_dir).await.map_err(|e| e.message)?;
    let ms = launched.elapsed().as_millis();
    tracing::info!(sandbox, data_dir = %core.config.data_dir.display(), ms_since_launch = ms, "desktop app started");
    forward_webhook_feed(app.clone(), &core);
    forward_sync_progress(app.clone(), &core);
    forward_document_saves(app.clone(), &core);
    let state = DesktopState::new(core);
    if let Some(server) = server {
        state.set_place(place::SignInPlace { server: Some(server), use_server: true }, false);
    }
    // Restored before any call can see the state, so none reads the receiver half-restored. One
    // that cannot listen again (its port taken) leaves the app usable: Webhooks shows it off.
    if let Err(e) = state.receiver.restore().await {
        tracing::warn!(error = %e.message, "the webhook receiver could not start again");
    }
    app.manage(state);
    // Opening freed much (migrations, the sandbox's seed, the demo account's hash): give it back
    // while the user reads the sign-in form.
    tauri::async_runtime::spawn_blocking(staffroom::memory::release_free_pages);
    Ok(())
}

/// Registers the shell's command on a builder: the real app's, or a mock runtime's in the shell
/// tests.
pub fn with_commands<R: tauri::Runtime>(builder: tauri::Builder<R>) -> tauri::Builder<R> {
    builder.invoke_handler(tauri::generate_handler![call::call])
}

/// Every operation a window may call: the core's that name a window, and the desktop's own.
pub fn window_operations() -> Vec<(staffroom::api::OpSpec, staffroom::api::OpTypes)> {
    let core =
        staffroom::api::operations().iter().filter(|op| !op.spec.windows.is_empty()).map(|op| (op.spec, op.types));
    core.chain(ops::declarations()).collect()
}

/// Whether the windows show this computer's core (not a team server's, whose events come
/// through the [`relay`]).
async fn on_this_computer(app: &tauri::AppHandle) -> bool {
    use tauri::Manager;
    match app.try_state::<DesktopState>() {
        Some(state) => state.team().await.is_none(),
        None => true,
    }
}

/// Sends every webhook feed item (received, applied, a summary of refused ones) to every window at once, so
/// orders and subscriptions update without a reload.
fn forward_webhook_feed(app: tauri::AppHandle, core: &staffroom::Core) {
    use tauri::Emitter;
    let Some(webhooks) = &core.webhooks else { return };
    let mut feed = webhooks.subscribe();
    tauri::async_runtime::spawn(async move {
        loop {
            match feed.recv().await {
                Ok(item) if on_this_computer(&app).await => {
                    let _ = app.emit("webhook", item);
                }
                Ok(_) => {}
                Err(tokio::sync::broadcast::error::RecvError::Lagged(missed)) => {
                    tracing::warn!(missed, "the window feed fell behind; the next item refreshes the lists");
                }
                Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
            }
        }
    });
}

/// Sends the payments sync's progress to every window, for the progress bar of a long sync.
fn forward_sync_progress(app: tauri::AppHandle, core: &staffroom::Core) {
    use tauri::Emitter;
    let mut progress = core.payments.subscribe_sync();
    tauri::async_runtime::spawn(async move {
        loop {
            match progress.recv().await {
                Ok(step) if on_this_computer(&app).await => {
                    let _ = app.emit("sync-progress", step);
                }
                Ok(_) => {}
                // Only the newest step matters on screen.
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
            }
        }
    });
}

/// Tells every window when a document was saved with changes (the main window's document list
/// shows the new modified time).
fn forward_document_saves(app: tauri::AppHandle, core: &staffroom::Core) {
    use tauri::Emitter;
    let mut saved = core.docs.subscribe_saved();
    tauri::async_runtime::spawn(async move {
        loop {
            match saved.recv().await {
                Ok(id) if on_this_computer(&app).await => {
                    let _ = app.emit("document-saved", id);
                }
                Ok(_) => {}
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
            }
        }
    });
}

/// Keeps the log file writer alive (dropping it flushes and stops file logging).
struct LogGuard(#[allow(dead_code)] Option<staffroom::logging::WorkerGuard>);
