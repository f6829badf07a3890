//! The desktop signed in to a team server (SPEC section 10), through its real `call` command
//! (Tauri's mock runtime) against a sandbox service on loopback: the sign-in and the login
//! screen's remembered choice, the server's live events relayed to the windows, drafts kept on
//! this computer, "keep me signed in" across a restart, and signing out. Then, against a fake
//! server on loopback, a hostile or hijacked one: an address to open that is not Google's consent
//! page for this sign-in is never opened, and a redirect is never followed (it would re-send the
//! password or the token wherever it points).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use staffroom::config::Config;
use staffroom::secrets::SecretBackend;
use staffroom_desktop::{with_commands, DesktopState};
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{get_ipc_response, mock_builder, mock_context, noop_assets, MockRuntime, INVOKE_KEY};
use tauri::webview::InvokeRequest;
use tauri::{App, Listener, WebviewWindow};

const DOC: &str = "doc001sbxA1b2C3d4E5f6G7h8";

/// A team server: a sandbox core served over HTTP on loopback, receiving its simulator's webhooks
/// and sending live events, as `staffroom serve --sandbox` does.
struct TeamServer {
    base: String,
    core: staffroom::Core,
    _dir: tempfile::TempDir,
}

impl TeamServer {
    fn start() -> TeamServer {
        let dir = tempfile::tempdir().unwrap();
        let mut config = Config::new(dir.path().join("server"));
        config.sandbox = true;
        config.long_running = true;
        config.secret_backend = SecretBackend::Memory;
        let (base, core) = tauri::async_runtime::block_on(async {
            let core = staffroom::open(config).await.unwrap();
            staffroom::sandbox::ensure_demo_account(&core).await.unwrap();
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let base = format!("http://{}", listener.local_addr().unwrap());
            core.connect_sandbox_webhooks(&base).await.unwrap();
            let router = staffroom::http::router(core.clone(), [127, 0, 0, 1].into());
            tauri::async_runtime::spawn(staffroom::http::server::serve_router(
                listener,
                router,
                None,
                staffroom::http::server::ConnectionLimits::default(),
                std::future::pending(),
            ));
            (base, core)
        });
        TeamServer { base, core, _dir: dir }
    }
}

/// A desktop app over its own (real, not sandbox) core with no local account.
struct Desktop {
    _app: App<MockRuntime>,
    main: WebviewWindow<MockRuntime>,
    editor: WebviewWindow<MockRuntime>,
    core: staffroom::Core,
    events: mpsc::Receiver<(&'static str, Value)>,
}

impl Desktop {
    fn fresh(dir: &std::path::Path) -> Desktop {
        Desktop::with_state(dir, |state| state)
    }

    /// A fresh desktop whose state is first adjusted by `adjust` (a scripted browser).
    fn with_state(dir: &std::path::Path, adjust: impl FnOnce(DesktopState) -> DesktopState) -> Desktop {
        let mut config = Config::new(dir.join("desktop"));
        config.secret_backend = SecretBackend::Memory;
        let core = tauri::async_runtime::block_on(staffroom::open(config)).unwrap();
        Desktop::over_state(core.clone(), adjust(DesktopState::new(core)))
    }

    /// The app started afresh over the same core and keyring, as after a restart.
    fn restart(self) -> Desktop {
        let core = self.core.clone();
        drop(self);
        Desktop::over(core)
    }

    fn over(core: staffroom::Core) -> Desktop {
        Desktop::over_state(core.clone(), DesktopState::new(core))
    }

    fn over_state(core: staffroom::Core, state: DesktopState) -> Desktop {
        let app = with_commands(mock_builder()).manage(state).build(mock_context(noop_assets())).unwrap();
        let (sender, events) = mpsc::channel();
        for name in ["webhook", "team-server", "session-expired"] {
            let sender = sender.clone();
            app.listen_any(name, move |event| {
                let _ = sender.send((name, serde_json::from_str(event.payload()).unwrap_or(Value::Null)));
            });
        }
        let main = tauri::WebviewWindowBuilder::new(&app, "main", Default::default()).build().unwrap();
        let editor = tauri::WebviewWindowBuilder::new(&app, "editor-doc", Default::default()).build().unwrap();
        Desktop { _app: app, main, editor, core, events }
    }

    fn call(&self, op: &str, request: Value) -> Result<Value, Value> {
        self.call_in(&self.main, op, request)
    }

    fn call_in(&self, window: &WebviewWindow<MockRuntime>, op: &str, request: Value) -> Result<Value, Value> {
        let request = InvokeRequest {
            cmd: "call".into(),
            callback: CallbackFn(0),
            error: CallbackFn(1),
            url: "tauri://localhost".parse().unwrap(),
            body: InvokeBody::Json(json!({ "op": op, "request": request })),
            headers: Default::default(),
            invoke_key: INVOKE_KEY.to_string(),
        };
        get_ipc_response(window, request).map(|body| body.deserialize().unwrap())
    }

    /// Waits (at most `wait`) for an event satisfying `wanted`; how long it took.
    fn wait_for(&self, wait: Duration, wanted: impl Fn(&str, &Value) -> bool) -> Duration {
        let started = Instant::now();
        loop {
            let left = wait.checked_sub(started.elapsed()).expect("the awaited event did not come");
            let (name, payload) = self.events.recv_timeout(left).expect("the awaited event did not come");
            if wanted(name, &payload) {
                return started.elapsed();
            }
        }
    }
}

fn demo_sign_in(server: &TeamServer, remember: bool) -> Value {
    let credentials = staffroom::sandbox::DEMO_EMAIL;
    json!({
        "email": credentials,
        "password": staffroom::sandbox::DEMO_PASSWORD,
        "server": format!("{}/", server.base),
        "remember": remember,
    })
}

#[test]
fn a_desktop_signs_in_to_a_team_server_and_sees_its_orders_turn_paid_live() {
    let server = TeamServer::start();
    let dir = tempfile::tempdir().unwrap();
    let desktop = Desktop::fresh(dir.path());

    let info = desktop.call("app_info", json!({})).unwrap();
    assert_eq!(info["needsFirstAdmin"], true, "a fresh desktop has no account of its own");
    assert_eq!((info["teamServer"].clone(), info["signedInTo"].clone()), (Value::Null, Value::Null));

    // A bad address is the field's problem, before anything is sent.
    let refused =
        desktop.call("login", json!({"email": "a@b.co", "password": "x", "server": "http://10.0.0.5"})).unwrap_err();
    assert_eq!(refused["code"], "invalid_request");
    assert_eq!(refused["details"]["fields"][0]["field"], "server", "{refused}");

    let signed_in = desktop.call("login", demo_sign_in(&server, false)).unwrap();
    assert_eq!(signed_in["user"]["email"], staffroom::sandbox::DEMO_EMAIL);
    let info = desktop.call("app_info", json!({})).unwrap();
    assert_eq!(info["signedInTo"], server.base, "{info}");
    assert_eq!(
        (info["teamServer"].as_str(), info["useTeamServer"].as_bool()),
        (Some(server.base.as_str()), Some(true))
    );
    assert_eq!(info["sandbox"], true, "the server's mode, not this computer's");
    assert_eq!(info["demo"], Value::Null, "this computer's demo account is not the server's");
    desktop.wait_for(Duration::from_secs(5), |name, payload| name == "team-server" && payload["reachable"] == true);

    // Every screen's operations go to the server: its products, its orders.
    let products = desktop.call("list_products", json!({})).unwrap();
    assert!(!products["products"].as_array().unwrap().is_empty(), "{products}");
    let created = desktop.call("create_order", json!({"productId": "3", "email": "buyer@example.com"})).unwrap();
    let order_id = created["order"]["id"].as_str().unwrap().to_string();
    let checkout = created["order"]["checkoutUrl"].as_str().unwrap();
    let pay = format!("{}/pay", checkout.split('?').next().unwrap());
    let paid_at = Instant::now();
    let answer = tauri::async_runtime::block_on(reqwest::Client::new().post(pay).send()).unwrap();
    assert!(answer.status().is_success());
    desktop.wait_for(Duration::from_secs(10), |name, payload| {
        name == "webhook" && payload["kind"] == "applied" && payload["orderId"] == order_id.as_str()
    });
    println!("the paid order reached the desktop's windows {:?} after the payment was sent", paid_at.elapsed());
    let order = desktop.call("get_order", json!({"id": order_id})).unwrap();
    assert_eq!(order["order"]["status"], "paid");

    // This app's own receiver is not used: the server receives.
    let refused = desktop.call("set_webhook_receiver", json!({"enabled": true, "port": 0})).unwrap_err();
    assert_eq!(refused["code"], "conflict", "{refused}");

    // Drafts stay on this computer: the server keeps none, the editor opens with this one's.
    let view = desktop.call_in(&desktop.editor, "editor_document", json!({"id": DOC})).unwrap();
    assert_eq!(view["draft"], Value::Null);
    let mut blocks = view["blocks"].clone();
    blocks[0]["text"] = json!("Kept on this computer");
    // New text with no runs: its characters keep the styles they have.
    blocks[0].as_object_mut().unwrap().remove("runs");
    let edits = json!({"id": DOC, "baseRevisionId": view["document"]["revisionId"], "blocks": blocks});
    desktop.call_in(&desktop.editor, "save_draft", edits).unwrap();
    let token = tauri::async_runtime::block_on(desktop.core_token(&server));
    let on_server = tauri::async_runtime::block_on(
        reqwest::Client::new().get(format!("{}/api/docs/documents/{DOC}/draft", server.base)).bearer_auth(token).send(),
    )
    .unwrap();
    assert_eq!(on_server.status(), 404, "the server keeps no draft of this desktop's");
    let view = desktop.call_in(&desktop.editor, "editor_document", json!({"id": DOC})).unwrap();
    assert_eq!(view["draft"]["blocks"][0]["text"], "Kept on this computer", "{}", view["draft"]);

    // Signing out forgets the token; the login screen still offers the server.
    desktop.call("logout", json!({})).unwrap();
    assert_eq!(desktop.call("current_user", json!({})).unwrap(), Value::Null);
    let refused = desktop.call("list_products", json!({})).unwrap_err();
    assert_eq!(refused["code"], "unauthorized");
    let info = desktop.call("app_info", json!({})).unwrap();
    assert_eq!(
        (info["teamServer"].as_str(), info["useTeamServer"].as_bool()),
        (Some(server.base.as_str()), Some(true))
    );
    assert_eq!(info["signedInTo"], Value::Null);
}

/// The user in the browser: on Google's (the server's simulator's) consent page, clicks Allow,
/// and is sent back to the desktop's loopback listener. Returns the landing page's status.
async fn allow_in_browser(consent: String) -> u16 {
    let browser = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    let page = browser.get(&consent).send().await.unwrap().text().await.unwrap();
    let href = page.split("id=\"allow\" href=\"").nth(1).unwrap().split('"').next().unwrap().replace("&amp;", "&");
    let approve = url::Url::parse(&consent).unwrap().join(&href).unwrap();
    let approved = browser.get(approve).send().await.unwrap();
    let back = approved.headers()["location"].to_str().unwrap().to_string();
    browser.get(back).send().await.unwrap().status().as_u16()
}

#[test]
fn an_admin_signs_the_team_server_in_to_google_from_the_desktop() {
    let server = TeamServer::start();
    let dir = tempfile::tempdir().unwrap();
    let (opened, pages) = mpsc::channel();
    let desktop = Desktop::with_state(dir.path(), |state| {
        state.with_browser(std::sync::Arc::new(move |url: &str| {
            let url = url.to_string();
            let opened = opened.clone();
            tauri::async_runtime::spawn(
                async move { opened.send((url.clone(), allow_in_browser(url).await)).unwrap() },
            );
            Ok(())
        }))
    });
    desktop.call("login", demo_sign_in(&server, false)).unwrap();
    desktop.call("google_sign_out", json!({})).unwrap();
    let status = tauri::async_runtime::block_on(server.core.docs.auth().status()).unwrap();
    assert!(!status.signed_in, "signed out on the server");

    let signed_in = desktop.call("google_sign_in", json!({})).unwrap();
    assert_eq!((signed_in["signedIn"].as_bool(), signed_in["kind"].as_str()), (Some(true), Some("oauth")));
    let (consent, landing) = pages.recv_timeout(Duration::from_secs(5)).unwrap();
    assert_eq!(landing, 200, "the browser landed on this computer's listener");
    let google = staffroom::sandbox::simulators(&server.core).unwrap().google.base_url();
    assert!(consent.starts_with(&google), "the server's Google built the page: {consent}");
    let params: std::collections::HashMap<String, String> =
        url::Url::parse(&consent).unwrap().query_pairs().into_owned().collect();
    assert!(params["redirect_uri"].starts_with("http://127.0.0.1:"), "{consent}");
    assert_eq!(params["code_challenge_method"], "S256");

    // The tokens are the server's: documents work through it, and this computer keeps none.
    let status = tauri::async_runtime::block_on(server.core.docs.auth().status()).unwrap();
    assert_eq!((status.signed_in, status.kind.as_deref()), (true, Some("oauth")));
    let documents = desktop.call("list_documents", json!({})).unwrap();
    assert!(!documents["documents"].as_array().unwrap().is_empty());
    assert!(desktop.core.secrets.get("google_token").unwrap().is_none());
    let audit = tauri::async_runtime::block_on(server.core.audit.list(5, None)).unwrap();
    let entry = audit.iter().find(|e| e.action == "settings.google_sign_in").expect("audited on the server");
    assert_eq!((entry.actor.as_str(), entry.outcome.as_str()), (staffroom::sandbox::DEMO_EMAIL, "success"));
}

#[test]
fn keep_me_signed_in_resumes_the_team_session_after_a_restart() {
    let server = TeamServer::start();
    let dir = tempfile::tempdir().unwrap();
    let desktop = Desktop::fresh(dir.path());
    desktop.call("login", demo_sign_in(&server, true)).unwrap();

    let desktop = desktop.restart();
    let user = desktop.call("current_user", json!({})).unwrap();
    assert_eq!(user["email"], staffroom::sandbox::DEMO_EMAIL, "resumed on the server without the password");
    let info = desktop.call("app_info", json!({})).unwrap();
    assert_eq!(info["signedInTo"], server.base);
    desktop.call("list_orders", json!({})).unwrap();

    // Choosing this computer at the next sign-in leaves the server's remembered session alone
    // but no longer resumes it.
    desktop.call("logout", json!({})).unwrap();
    let desktop = desktop.restart();
    assert_eq!(desktop.call("current_user", json!({})).unwrap(), Value::Null, "signed out means signed out");
}

#[test]
fn a_server_out_of_reach_is_told_to_the_windows_and_try_again_asks_it_again() {
    let dir = tempfile::tempdir().unwrap();
    let desktop = Desktop::fresh(dir.path());
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}");
    let refused = desktop
        .call("login", json!({"email": "a@example.com", "password": "correct horse battery staple", "server": url}))
        .unwrap_err();
    assert_eq!(refused["code"], "unavailable", "{refused}");
    assert_eq!(refused["details"]["teamServer"], url);
    assert_eq!(desktop.call("reconnect", json!({})).unwrap(), Value::Null, "signed in nowhere: nothing to reach");
}

impl Desktop {
    /// A token of the demo account on the server, for looking at it from outside the app.
    async fn core_token(&self, server: &TeamServer) -> String {
        let answer: Value = reqwest::Client::new()
            .post(format!("{}/api/auth", server.base))
            .json(&json!({"email": staffroom::sandbox::DEMO_EMAIL, "password": staffroom::sandbox::DEMO_PASSWORD}))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        answer["token"].as_str().unwrap().to_string()
    }
}

// A hostile or hijacked server (docs/SECURITY.md): a fake one on loopback.

impl Desktop {
    /// A fresh desktop whose system browser is scripted to send `opened` what it is asked to open.
    fn recording_what_it_opens(dir: &std::path::Path, opened: mpsc::Sender<String>) -> Desktop {
        let opened = std::sync::Mutex::new(opened);
        Desktop::with_state(dir, |state| {
            state.with_browser(std::sync::Arc::new(move |url: &str| {
                opened.lock().unwrap().send(url.to_string()).unwrap();
                Ok(())
            }))
        })
    }
}

fn fake_sign_in(server: &str) -> Value {
    json!({"email": "ada@example.com", "password": "a long passphrase 1", "server": server})
}

/// One request the fake server received.
#[derive(Debug, Clone)]
struct Received {
    method: String,
    path: String,
    body: Value,
}

/// An answer: status, extra headers, JSON body.
type Answer = (u16, Vec<(String, String)>, Value);

/// A fake server on loopback answering each request with `answer`, one connection at a time.
fn fake_server(answer: impl Fn(&Received) -> Answer + Send + 'static) -> (String, Arc<Mutex<Vec<Received>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            if reader.read_line(&mut line).is_err() || line.is_empty() {
                continue;
            }
            let mut parts = line.split_whitespace();
            let (method, path) = (parts.next().unwrap_or("").to_string(), parts.next().unwrap_or("").to_string());
            let mut length = 0;
            loop {
                let mut header = String::new();
                reader.read_line(&mut header).unwrap();
                if header.trim().is_empty() {
                    break;
                }
                if let Some((name, value)) = header.split_once(':') {
                    if name.eq_ignore_ascii_case("content-length") {
                        length = value.trim().parse().unwrap();
                    }
                }
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            let received = Received { method, path, body: serde_json::from_slice(&body).unwrap_or(Value::Null) };
            log.lock().unwrap().push(received.clone());
            let (status, headers, body) = answer(&received);
            let body = body.to_string();
            let mut response = format!(
                "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
                body.len()
            );
            for (name, value) in headers {
                response.push_str(&format!("{name}: {value}\r\n"));
            }
            response.push_str("\r\n");
            response.push_str(&body);
            let _ = stream.write_all(response.as_bytes());
        }
    });
    (base, seen)
}

fn admin() -> Value {
    json!({"id": "u1", "email": "ada@example.com", "name": "Ada", "role": "admin", "disabled": false, "locked": false})
}

/// What a Staffroom server answers to sign-in and `me`.
fn signed_in(received: &Received) -> Option<Answer> {
    match (received.method.as_str(), received.path.as_str()) {
        ("POST", "/api/auth") => Some((
            200,
            vec![],
            json!({
                "token": "aaa.bbb.ccc", "resumeToken": "ddd.eee.fff", "user": admin(),
                "expiresAt": "2030-01-01T00:00:00Z", "sessionExpiresAt": "2030-01-01T00:00:00Z"
            }),
        )),
        ("GET", "/api/auth/me") => Some((200, vec![], json!({ "user": admin() }))),
        _ => None,
    }
}

#[test]
fn a_sign_in_address_that_is_not_this_sign_in_s_google_page_is_never_opened() {
    let google = "https://accounts.google.com/o/oauth2/v2/auth";
    // Each address the server will send, given the sign-in's own redirect_uri and state.
    let pages: Vec<(&str, Box<dyn Fn(&str, &str) -> String + Send + Sync>)> = vec![
        ("a file", Box::new(|_, _| "file:///etc/passwd".into())),
        ("a share", Box::new(|_, _| "smb://attacker.example/share".into())),
        ("another program", Box::new(|_, _| "ms-settings:privacy".into())),
        ("another host", Box::new(|r, s| format!("https://accounts.evil.example/auth?redirect_uri={r}&state={s}"))),
        (
            "plain http",
            Box::new(move |r, s| format!("http://accounts.google.com/o/oauth2/v2/auth?redirect_uri={r}&state={s}")),
        ),
        ("another redirect", Box::new(move |_, s| format!("{google}?redirect_uri=http://127.0.0.1:9/&state={s}"))),
        ("another state", Box::new(move |r, _| format!("{google}?redirect_uri={r}&state=not-yours"))),
    ];
    for (what, page) in pages {
        let (server, _) = fake_server(move |received| {
            if let Some(answer) = signed_in(received) {
                return answer;
            }
            if received.path == "/api/docs/google/authorization" {
                let redirect = received.body["redirectUri"].as_str().unwrap_or_default();
                let state = received.body["state"].as_str().unwrap_or_default();
                let url = page(&url_encoded(redirect), state);
                return (200, vec![], json!({ "url": url }));
            }
            (404, vec![], json!({"error": {"code": "not_found", "message": "No such route"}}))
        });
        let (opened, was_opened) = mpsc::channel();
        let dir = tempfile::tempdir().unwrap();
        let desktop = Desktop::recording_what_it_opens(dir.path(), opened);
        desktop.call("login", fake_sign_in(&server)).unwrap();
        let refused = desktop.call("google_sign_in", json!({})).expect_err(what);
        let message = refused["message"].as_str().unwrap_or_default();
        assert!(message.contains("was not opened"), "{what}: {refused}");
        assert!(was_opened.recv_timeout(Duration::from_millis(200)).is_err(), "{what}: opened anyway");
    }
}

fn url_encoded(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

#[test]
fn a_redirect_is_never_followed_with_the_password() {
    // Where the redirect points: it must never hear from the desktop.
    let (elsewhere, heard) = fake_server(|_| (200, vec![], json!({})));
    let target = format!("{elsewhere}/collect");
    let (server, _) = fake_server(move |_| (307, vec![("location".into(), target.clone())], json!({})));
    let dir = tempfile::tempdir().unwrap();
    let desktop = Desktop::fresh(dir.path());
    let refused = desktop.call("login", fake_sign_in(&server)).expect_err("a redirected sign-in");
    let message = refused["message"].as_str().unwrap_or_default();
    assert!(message.contains("redirect") && message.contains(&server), "{refused}");
    std::thread::sleep(Duration::from_millis(200));
    assert!(heard.lock().unwrap().is_empty(), "the password went where the redirect pointed");
}

#[test]
fn a_redirect_after_sign_in_does_not_carry_the_token_away() {
    let (elsewhere, heard) = fake_server(|_| (200, vec![], json!({"products": []})));
    let target = format!("{elsewhere}/steal");
    let (server, _) = fake_server(move |received| {
        signed_in(received).unwrap_or_else(|| (302, vec![("location".into(), target.clone())], json!({})))
    });
    let dir = tempfile::tempdir().unwrap();
    let desktop = Desktop::fresh(dir.path());
    desktop.call("login", fake_sign_in(&server)).unwrap();
    let refused = desktop.call("list_products", json!({})).expect_err("a redirected call");
    assert!(refused["message"].as_str().unwrap_or_default().contains("redirect"), "{refused}");
    std::thread::sleep(Duration::from_millis(200));
    assert!(heard.lock().unwrap().is_empty(), "the token went where the redirect pointed");
}

#[test]
fn links_a_server_sends_are_checked_before_they_are_opened() {
    let (server, _) = fake_server(|received| {
        signed_in(received).unwrap_or((
            404,
            vec![],
            json!({"error": {"code": "not_found", "message": "No such route"}}),
        ))
    });
    let dir = tempfile::tempdir().unwrap();
    let (opened, pages) = mpsc::channel();
    let desktop = Desktop::recording_what_it_opens(dir.path(), opened);
    desktop.call("login", fake_sign_in(&server)).unwrap();
    let receipt = "https://app.lemonsqueezy.com/my-orders/2ba9?signature=5f1e";
    desktop.call("open_link", json!({"url": receipt, "kind": "receipt"})).unwrap();
    assert_eq!(pages.recv_timeout(Duration::from_secs(2)).unwrap(), receipt);
    for (url, kind) in [
        ("https://shop.example@evil.example/receipt", "receipt"),
        ("https://app.lemonsqueezy.com.evil.example/my-orders/1", "receipt"),
        ("http://app.lemonsqueezy.com/my-orders/1", "receipt"),
        ("https://evil.example/checkout/1", "checkout"),
        // The sandbox's simulator on this computer: not from a server that runs no sandbox.
        ("http://127.0.0.1:9/checkout/1", "checkout"),
        ("file:///etc/passwd", "web"),
        ("ms-settings:privacy", "web"),
    ] {
        let refused = desktop.call("open_link", json!({"url": url, "kind": kind})).expect_err(url);
        assert_eq!(
            (refused["code"].as_str(), refused["details"]["fields"][0]["field"].as_str()),
            (Some("invalid_request"), Some("url")),
            "{url}: {refused}"
        );
    }
    // An editor window opens a document's links the same way.
    desktop.call_in(&desktop.editor, "open_link", json!({"url": "https://example.org/a", "kind": "web"})).unwrap();
    assert_eq!(pages.recv_timeout(Duration::from_secs(2)).unwrap(), "https://example.org/a");
    assert!(pages.recv_timeout(Duration::from_millis(300)).is_err(), "a refused link was opened");
}

#[test]
fn an_answer_too_large_is_refused_not_read() {
    let huge = "x".repeat(40 * 1024 * 1024);
    let (server, _) = fake_server(move |received| {
        signed_in(received).unwrap_or_else(|| (200, vec![], json!({"products": [], "padding": huge})))
    });
    let dir = tempfile::tempdir().unwrap();
    let desktop = Desktop::fresh(dir.path());
    desktop.call("login", fake_sign_in(&server)).unwrap();
    let refused = desktop.call("list_products", json!({})).expect_err("a 40 MB answer");
    assert_eq!(refused["code"], "integration_error", "{refused}");
    assert!(refused["message"].as_str().unwrap().contains("more than 32 MB"), "{refused}");
}

#[test]
fn a_desktop_signed_in_to_a_team_server_saves_the_servers_export() {
    let server = TeamServer::start();
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("subscriptions.csv");
    let chosen = target.clone();
    let desktop = Desktop::with_state(dir.path(), move |state| {
        state.with_save_picker(Arc::new(move |_suggested: &str| Some(chosen.clone())))
    });
    desktop.call("login", demo_sign_in(&server, false)).unwrap();
    desktop.call("sync_now", json!({})).unwrap();
    let listed = desktop.call("list_subscriptions", json!({ "status": "active", "limit": 1 })).unwrap();
    let total = listed["meta"]["totalItems"].as_u64().unwrap();
    assert!(total > 0, "{listed}");

    let saved =
        desktop.call("export_csv", json!({ "list": "subscriptions", "filters": { "status": "active" } })).unwrap();
    assert_eq!(saved["rows"], total);
    let file = std::fs::read(&target).unwrap();
    // The same bytes the server's own door answers.
    let direct = tauri::async_runtime::block_on(async {
        let http = reqwest::Client::new();
        let account = json!({ "email": staffroom::sandbox::DEMO_EMAIL, "password": staffroom::sandbox::DEMO_PASSWORD });
        let signed_in: Value =
            http.post(format!("{}/api/auth", server.base)).json(&account).send().await.unwrap().json().await.unwrap();
        let token = signed_in["token"].as_str().unwrap().to_string();
        http.get(format!("{}/api/payments/subscriptions/export?status=active", server.base))
            .bearer_auth(token)
            .send()
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap()
    });
    assert_eq!(file, direct.to_vec(), "the desktop saved what the server sent");

    // A bad filter is refused (before the dialog asks), as its error object, and nothing is saved.
    std::fs::remove_file(&target).unwrap();
    let refused =
        desktop.call("export_csv", json!({ "list": "orders", "filters": { "from": "yesterday" } })).unwrap_err();
    assert_eq!(refused["code"], "invalid_request", "{refused}");
    assert!(!target.exists());
}
