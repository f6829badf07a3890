//! Shell tests on Tauri's mock runtime: operations are called through the real IPC path (the
//! `call` command, argument decoding, managed state, the core in sandbox mode on loopback), with
//! no display. They show that every operation a window may call answers through `call`, that a
//! window gets only the operations declared for it, and that failures reach the web view as the
//! core's error object `{code, message, details?}`, not as a bare string.

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use staffroom::config::Config;
use staffroom::secrets::SecretBackend;
use staffroom_desktop::{window_operations, with_commands, DesktopState};
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{get_ipc_response, mock_builder, mock_context, noop_assets, MockRuntime, INVOKE_KEY};
use tauri::webview::InvokeRequest;
use tauri::{App, Listener, WebviewWindow};

/// A mock app over a sandbox core on a throw-away data dir, with its main window.
struct Shell {
    _app: App<MockRuntime>,
    window: WebviewWindow<MockRuntime>,
    editor: WebviewWindow<MockRuntime>,
    core: staffroom::Core,
    expired: Arc<Mutex<usize>>,
    _dir: Arc<tempfile::TempDir>,
}

impl Shell {
    fn start() -> Shell {
        let dir = tempfile::tempdir().unwrap();
        let mut config = Config::new(dir.path().join("data"));
        config.sandbox = true;
        config.secret_backend = SecretBackend::Memory;
        // The core's tasks (simulators, syncs) run on Tauri's runtime, as in the real app.
        let core = tauri::async_runtime::block_on(async {
            let core = staffroom::open(config).await.unwrap();
            staffroom::sandbox::ensure_demo_account(&core).await.unwrap();
            core
        });
        Shell::over(core, Arc::new(dir))
    }

    /// The shell started afresh over the same core and keyring, as after a restart of the app.
    fn restart(&self) -> Shell {
        Shell::over(self.core.clone(), self._dir.clone())
    }

    fn over(core: staffroom::Core, dir: Arc<tempfile::TempDir>) -> Shell {
        Shell::over_state(DesktopState::new(core.clone()), core, dir)
    }

    /// A sandbox shell whose exports are saved where `picker` says (the save dialog's answer).
    fn saving_to(picker: staffroom_desktop::export::SavePicker) -> Shell {
        let shell = Shell::start();
        let (core, dir) = (shell.core.clone(), shell._dir.clone());
        drop(shell);
        Shell::over_state(DesktopState::new(core.clone()).with_save_picker(picker), core, dir)
    }

    fn over_state(state: DesktopState, core: staffroom::Core, dir: Arc<tempfile::TempDir>) -> Shell {
        let app = with_commands(mock_builder()).manage(state).build(mock_context(noop_assets())).unwrap();
        let expired = Arc::new(Mutex::new(0));
        let seen = expired.clone();
        app.listen_any("session-expired", move |_| *seen.lock().unwrap() += 1);
        let window = tauri::WebviewWindowBuilder::new(&app, "main", Default::default()).build().unwrap();
        let editor = tauri::WebviewWindowBuilder::new(&app, "editor-doc001", Default::default()).build().unwrap();
        Shell { _app: app, window, editor, core, expired, _dir: dir }
    }

    /// Calls an operation as the main window's web view would; Err carries what the UI's promise
    /// rejects with.
    fn invoke(&self, op: &str, request: Value) -> Result<Value, Value> {
        self.invoke_in(&self.window, op, request)
    }

    /// Calls an operation from `window`.
    fn invoke_in(&self, window: &WebviewWindow<MockRuntime>, op: &str, request: Value) -> Result<Value, Value> {
        let args = json!({ "op": op, "request": request });
        let request = InvokeRequest {
            cmd: "call".into(),
            callback: CallbackFn(0),
            error: CallbackFn(1),
            url: "tauri://localhost".parse().unwrap(),
            body: InvokeBody::Json(args),
            headers: Default::default(),
            invoke_key: INVOKE_KEY.to_string(),
        };
        get_ipc_response(window, request).map(|body| body.deserialize().unwrap())
    }

    fn sign_in(&self) {
        self.sign_in_remembering(false);
    }

    fn sign_in_remembering(&self, remember: bool) {
        let demo = self.invoke("app_info", json!({})).unwrap()["demo"].clone();
        let args = json!({ "email": demo["email"], "password": demo["password"], "remember": remember });
        self.invoke("login", args).unwrap();
    }
}

#[test]
fn every_operation_a_window_may_call_answers_through_call() {
    let shell = Shell::start();
    let operations = window_operations();
    assert!(operations.len() >= 30, "only {} operations", operations.len());
    // The check itself can fail: an operation nobody declared is refused as such.
    let unknown = shell.invoke("no_such_operation", json!({})).unwrap_err();
    assert_eq!(unknown["code"], "not_found", "{unknown}");
    shell.sign_in();
    for (spec, _) in &operations {
        // Sign-in state and the editor window aside, any answer or refusal is the core's: an
        // answer, or the error object (never a bare string).
        if ["logout", "google_sign_in", "set_webhook_receiver", "open_editor"].contains(&spec.name) {
            continue;
        }
        let window = if spec.windows.contains(&staffroom::api::Window::Main) { &shell.window } else { &shell.editor };
        match shell.invoke_in(window, spec.name, json!({})) {
            Ok(_) => {}
            Err(err) => assert!(err["code"].is_string() && err["message"].is_string(), "{}: {err}", spec.name),
        }
    }
}

#[test]
fn a_window_gets_only_the_operations_declared_for_it() {
    let shell = Shell::start();
    shell.sign_in();
    // The editor window may keep a draft, not manage staff or open other windows.
    for op in ["list_users", "create_order", "open_editor", "set_secret"] {
        let err = shell.invoke_in(&shell.editor, op, json!({})).unwrap_err();
        assert_eq!(err["code"], "forbidden", "{op}: {err}");
    }
    let err = shell.invoke_in(&shell.editor, "save_draft", json!({ "id": "doc001" })).unwrap_err();
    assert_eq!(err["code"], "invalid_request", "the editor may save drafts: {err}");
    // And the main window does not edit.
    let err = shell.invoke("save_document", json!({ "id": "doc001" })).unwrap_err();
    assert_eq!(err["code"], "forbidden", "{err}");
    // An operation only the HTTP service offers is not the windows' either.
    let err = shell.invoke("sign_in", json!({})).unwrap_err();
    assert_eq!(err["code"], "not_found", "{err}");
}

#[test]
fn errors_arrive_as_the_error_object() {
    let shell = Shell::start();

    // Wrong password: the core's object, with its code and a readable message.
    let err =
        shell.invoke("login", json!({ "email": "demo@staffroom.test", "password": "wrong password!" })).unwrap_err();
    assert_eq!(err["code"], "unauthorized", "{err}");
    assert!(err["message"].as_str().is_some_and(|m| !m.is_empty()), "{err}");

    // Signed out: unauthorized, and every window hears that the session is gone.
    let err = shell.invoke("list_products", json!({})).unwrap_err();
    assert_eq!(err["code"], "unauthorized", "{err}");
    assert!(*shell.expired.lock().unwrap() >= 1, "no session-expired event");

    // Bad input once signed in: invalid_request naming the field, not a panic or a bare string.
    shell.sign_in();
    let err = shell.invoke("create_order", json!({ "variant_id": "x", "email": "not an email" })).unwrap_err();
    assert_eq!(err["code"], "invalid_request", "{err}");
    assert!(err["details"].is_object() || err["details"].is_array(), "{err}");

    let err = shell.invoke("get_order", json!({ "id": "ord_does_not_exist" })).unwrap_err();
    assert_eq!(err["code"], "invalid_request", "{err}");
    let err = shell.invoke("get_order", json!({ "id": "6f1c1f2e-0000-4000-8000-000000000000" })).unwrap_err();
    assert_eq!(err["code"], "not_found", "{err}");
}

#[test]
fn a_provider_refusing_its_credentials_does_not_sign_staff_out() {
    let shell = Shell::start();
    shell.sign_in();
    shell.invoke("google_sign_out", json!({})).unwrap();
    let err = shell.invoke("list_documents", json!({})).unwrap_err();
    assert_eq!(
        (err["code"].as_str(), err["details"]["provider"].as_str()),
        (Some("unauthorized"), Some("google")),
        "{err}"
    );
    assert_eq!(*shell.expired.lock().unwrap(), 0, "Google's refusal is not the end of the staff session");
    assert!(shell.invoke("list_products", json!({ "limit": 1 })).is_ok(), "still signed in");
}

#[test]
fn a_signed_in_window_gets_the_core_dtos() {
    let shell = Shell::start();
    let info = shell.invoke("app_info", json!({})).unwrap();
    assert_eq!(info["sandbox"], true);
    assert_eq!(info["needsFirstAdmin"], false);
    assert_eq!(shell.invoke("current_user", json!({})).unwrap(), Value::Null);

    shell.sign_in();
    let me = shell.invoke("current_user", json!({})).unwrap();
    assert_eq!(me["email"], "demo@staffroom.test");
    let products = shell.invoke("list_products", json!({ "page": 1, "limit": 5 })).unwrap();
    assert_eq!(products["products"].as_array().map(Vec::len), Some(5), "{products}");
    // Settings name every credential's source; the sandbox's Google sign-in is its own.
    let settings = shell.invoke("settings", json!({})).unwrap();
    let google = settings["secrets"].as_array().unwrap().iter().find(|s| s["name"] == "google_token").cloned();
    assert_eq!(google.map(|s| s["source"].clone()), Some(json!("sandbox (generated)")), "{settings}");
    assert_eq!(settings["google"]["signedIn"], true, "{settings}");
    // And where the simulators listen, for trying faults.
    for simulator in ["payments", "google"] {
        let url = settings["simulators"][simulator].as_str().unwrap_or_default();
        assert!(url.starts_with("http://127.0.0.1:"), "{simulator}: {settings}");
    }
    let sync = shell.invoke("sync_status", json!({})).unwrap();
    assert_eq!(sync["intervalSecs"], 300, "{sync}");

    shell.invoke("logout", json!({})).unwrap();
    assert_eq!(shell.invoke("current_user", json!({})).unwrap(), Value::Null);
    assert_eq!(shell.invoke("list_products", json!({})).unwrap_err()["code"], "unauthorized");
}

/// Every string in an answer, for looking for a token in it.
fn strings(value: &Value) -> Vec<String> {
    match value {
        Value::String(s) => vec![s.clone()],
        Value::Array(items) => items.iter().flat_map(strings).collect(),
        Value::Object(fields) => fields.iter().flat_map(|(k, v)| [vec![k.clone()], strings(v)].concat()).collect(),
        _ => Vec::new(),
    }
}

#[test]
fn the_web_view_never_receives_a_token() {
    let shell = Shell::start();
    let demo = shell.invoke("app_info", json!({})).unwrap()["demo"].clone();
    let answers = [
        shell
            .invoke("login", json!({ "email": demo["email"], "password": demo["password"], "remember": true }))
            .unwrap(),
        shell.invoke("refresh_session", json!({})).unwrap(),
        shell.restart().invoke("current_user", json!({})).unwrap(),
    ];
    for answer in answers {
        assert_eq!(answer["email"].as_str().or(answer["user"]["email"].as_str()), Some("demo@staffroom.test"));
        // A JWT's header is base64url JSON, so it starts "eyJ"; no key says "token" either.
        let leaked: Vec<String> =
            strings(&answer).into_iter().filter(|s| s.contains("eyJ") || s.to_lowercase().contains("token")).collect();
        assert!(leaked.is_empty(), "{leaked:?} in {answer}");
    }
}

#[test]
fn keep_me_signed_in_survives_a_restart_until_signing_out() {
    let shell = Shell::start();
    shell.sign_in();
    assert_eq!(shell.restart().invoke("current_user", json!({})).unwrap(), Value::Null, "not asked to remember");

    shell.sign_in_remembering(true);
    let restarted = shell.restart();
    assert_eq!(restarted.invoke("current_user", json!({})).unwrap()["email"], "demo@staffroom.test");
    assert!(restarted.invoke("list_products", json!({ "limit": 1 })).is_ok());

    restarted.invoke("logout", json!({})).unwrap();
    assert_eq!(shell.restart().invoke("current_user", json!({})).unwrap(), Value::Null, "signed out is forgotten");
}

/// Calls `op` from `window` through the real IPC path.
fn call_from(window: &WebviewWindow<MockRuntime>, op: &str) -> Result<Value, Value> {
    let request = InvokeRequest {
        cmd: "call".into(),
        callback: CallbackFn(0),
        error: CallbackFn(1),
        url: "tauri://localhost".parse().unwrap(),
        body: InvokeBody::Json(json!({ "op": op, "request": {} })),
        headers: Default::default(),
        invoke_key: INVOKE_KEY.to_string(),
    };
    get_ipc_response(window, request).map(|body| body.deserialize().unwrap())
}

/// A mock app whose core is still opening (as the real app's window loads beside it).
fn opening() -> (App<MockRuntime>, WebviewWindow<MockRuntime>, staffroom_desktop::start::Started) {
    let (starting, started) = staffroom_desktop::start::starting();
    let app = with_commands(mock_builder()).manage(starting).build(mock_context(noop_assets())).unwrap();
    let window = tauri::WebviewWindowBuilder::new(&app, "main", Default::default()).build().unwrap();
    (app, window, started)
}

#[test]
fn a_call_made_while_the_core_opens_waits_for_it() {
    use tauri::Manager;
    let (app, window, started) = opening();
    let dir = tempfile::tempdir().unwrap();
    let mut config = Config::new(dir.path().join("data"));
    config.sandbox = true;
    config.secret_backend = SecretBackend::Memory;
    let handle = app.handle().clone();
    let opener = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(300));
        let core = tauri::async_runtime::block_on(staffroom::open(config)).unwrap();
        handle.manage(DesktopState::new(core));
        started.report(Ok(()));
    });
    let asked = std::time::Instant::now();
    let info = call_from(&window, "app_info").expect("answered once the core is open");
    assert!(asked.elapsed() >= std::time::Duration::from_millis(300), "the call waited for the core");
    assert_eq!(info["sandbox"], true);
    opener.join().unwrap();
    // Later calls find it at once.
    assert_eq!(call_from(&window, "app_info").unwrap()["sandbox"], true);
}

#[test]
fn a_core_that_could_not_open_is_every_call_s_sentence() {
    let (_app, window, started) = opening();
    started.report(Err("the data directory is not writable".into()));
    let refused = call_from(&window, "app_info").unwrap_err();
    assert_eq!(refused["code"], "unavailable");
    assert_eq!(refused["message"], "Staffroom could not start: the data directory is not writable");
}

#[test]
fn an_export_is_saved_where_the_dialog_says_with_its_progress_and_a_cancel_saves_nothing() {
    let folder = tempfile::tempdir().unwrap();
    let target = folder.path().join("paid orders.csv");
    let answer = Arc::new(Mutex::new(Some(target.clone())));
    let (asked, given) = (Arc::new(Mutex::new(Vec::new())), answer.clone());
    let names = asked.clone();
    let shell = Shell::saving_to(Arc::new(move |suggested: &str| {
        names.lock().unwrap().push(suggested.to_string());
        given.lock().unwrap().clone()
    }));
    let progress = Arc::new(Mutex::new(Vec::<Value>::new()));
    let seen = progress.clone();
    shell._app.listen_any("export-progress", move |event| {
        seen.lock().unwrap().push(serde_json::from_str(event.payload()).unwrap());
    });
    shell.sign_in();
    shell.invoke("sync_now", json!({})).unwrap();
    let listed = shell.invoke("list_orders", json!({ "status": "paid", "limit": 1 })).unwrap();
    let total = listed["meta"]["totalItems"].as_u64().unwrap();
    assert!(total > 0);

    let saved = shell.invoke("export_csv", json!({ "list": "orders", "filters": { "status": "paid" } })).unwrap();
    assert_eq!(saved["path"], target.display().to_string());
    assert_eq!(saved["rows"], total);
    let today = &staffroom::time::now_rfc3339()[..10];
    assert_eq!(asked.lock().unwrap().as_slice(), [format!("orders-{today}.csv")], "the dialog suggests the name");
    let file = std::fs::read_to_string(&target).unwrap();
    assert!(file.starts_with("\u{feff}orderNumber,"), "{}", &file[..80.min(file.len())]);
    assert_eq!(file.matches("\r\n").count() as u64, total + 1, "a header and every paid order");
    assert!(!folder.path().join("paid orders.csv.part").exists(), "the temporary file is gone");
    let last = progress.lock().unwrap().last().cloned().expect("progress was sent");
    assert_eq!(last, json!({ "list": "orders", "rows": total, "total": total }));

    // A bad filter is refused before a file is made; a cancelled dialog saves nothing.
    let refused = shell.invoke("export_csv", json!({ "list": "orders", "filters": { "status": "lost" } })).unwrap_err();
    assert_eq!(refused["code"], "invalid_request", "{refused}");
    let refused = shell.invoke("export_csv", json!({ "list": "products" })).unwrap_err();
    assert_eq!(refused["code"], "invalid_request", "{refused}");
    *answer.lock().unwrap() = None;
    let cancelled = shell.invoke("export_csv", json!({ "list": "customers" })).unwrap();
    assert_eq!(cancelled, json!({ "path": null, "rows": 0 }));
    assert_eq!(std::fs::read_dir(folder.path()).unwrap().count(), 1, "only the first export's file");
}

#[test]
fn a_document_downloads_as_a_pdf_where_the_dialog_says_from_the_main_window_and_the_editor() {
    let folder = tempfile::tempdir().unwrap();
    let asked = Arc::new(Mutex::new(Vec::new()));
    let (names, into) = (asked.clone(), folder.path().to_path_buf());
    let shell = Shell::saving_to(Arc::new(move |suggested: &str| {
        names.lock().unwrap().push(suggested.to_string());
        Some(into.join(suggested))
    }));
    shell.sign_in();
    let doc = "doc002sbxA1b2C3d4E5f6G7h8";
    let saved = shell.invoke("download_document", json!({ "id": doc, "name": "Launch: checklist/2" })).unwrap();
    let path = saved["path"].as_str().unwrap().to_string();
    assert_eq!(asked.lock().unwrap().as_slice(), ["Launch_ checklist_2.pdf"], "a safe name, suggested");
    let pdf = std::fs::read(&path).unwrap();
    assert!(pdf.starts_with(b"%PDF-"), "a PDF");
    assert_eq!(saved["bytes"], pdf.len());
    let text = shell.invoke_in(&shell.editor, "download_document", json!({ "id": doc, "format": "txt" })).unwrap();
    assert!(std::fs::read_to_string(text["path"].as_str().unwrap()).unwrap().contains("Launch checklist 2"));
    let refused = shell.invoke("download_document", json!({ "id": doc, "format": "odt" })).unwrap_err();
    assert_eq!(refused["code"], "invalid_request", "{refused}");
}
