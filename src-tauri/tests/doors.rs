//! Both doors answer alike. One sandbox core is served at once over HTTP on loopback (the
//! `staffroom serve` router) and to the desktop's `call` command (Tauri's mock runtime); every
//! operation that both doors offer is called through each with the same inputs (a valid one, an
//! invalid one, without a session, and as staff who are not admins) and must give the same answer
//! or the same error object. A third app calls the same operations through the team server
//! backend, over that HTTP service, and must answer as the desktop's core in process does.

use serde_json::{json, Value};
use staffroom::api::{self, Access, Input, Window};
use staffroom::config::Config;
use staffroom::secrets::SecretBackend;
use staffroom_desktop::team::TeamServer;
use staffroom_desktop::{with_commands, DesktopState};
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{get_ipc_response, mock_builder, mock_context, noop_assets, MockRuntime, INVOKE_KEY};
use tauri::webview::InvokeRequest;
use tauri::{App, Manager, WebviewWindow};

const DOC: &str = "doc001sbxA1b2C3d4E5f6G7h8";
const STAFF_PASSWORD: &str = "correct horse battery staple 7";

/// What differs between two equal calls made one after the other: new ids, times, links.
const VOLATILE: &[&str] = &[
    "id",
    "orderId",
    "checkoutUrl",
    "createdAt",
    "updatedAt",
    "receivedAt",
    "appliedAt",
    "syncedAt",
    "attemptedAt",
    "fetchedAt",
    "modifiedTime",
    "createdTime",
    "webViewLink",
    "revisionId",
    "requests",
    "ordersReconciled",
    "ordersRead",
    "customersRead",
    "invoicesRead",
    "licenseKeysRead",
    "discountsRead",
    "renewsAt",
    "lastSentAt",
    "lastDeliveryAt",
    "lastSyncAt",
];

/// Replaces what may differ between the doors' writes: volatile fields and the door's own name.
fn normalised(value: &Value) -> Value {
    match value {
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .map(|(k, v)| (k.clone(), if VOLATILE.contains(&k.as_str()) { json!("…") } else { normalised(v) }))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(normalised).collect()),
        Value::String(s) => json!(s.replace("http", "{door}").replace("desktop", "{door}").replace("team", "{door}")),
        other => other.clone(),
    }
}

/// A request with `{door}` in its strings made the door's own.
fn for_door(request: &Value, door: &str) -> Value {
    match request {
        Value::Object(fields) => Value::Object(fields.iter().map(|(k, v)| (k.clone(), for_door(v, door))).collect()),
        Value::Array(items) => Value::Array(items.iter().map(|v| for_door(v, door)).collect()),
        Value::String(s) => json!(s.replace("{door}", door)),
        other => other.clone(),
    }
}

/// A desktop app (mock runtime) and its two kinds of window.
struct Desktop {
    app: App<MockRuntime>,
    main: WebviewWindow<MockRuntime>,
    editor: WebviewWindow<MockRuntime>,
}

impl Desktop {
    fn new(state: DesktopState) -> Desktop {
        let app = with_commands(mock_builder()).manage(state).build(mock_context(noop_assets())).unwrap();
        let main = tauri::WebviewWindowBuilder::new(&app, "main", Default::default()).build().unwrap();
        let editor = tauri::WebviewWindowBuilder::new(&app, "editor-doc", Default::default()).build().unwrap();
        Desktop { app, main, editor }
    }
}

struct Doors {
    desktop: Desktop,
    /// The desktop signed in to a team server: this test's HTTP service.
    team: Desktop,
    base: String,
    http: reqwest::Client,
    _dir: tempfile::TempDir,
}

/// An answer as both doors give it: the body of a success, or the error object of a refusal.
#[derive(Debug, PartialEq)]
enum Outcome {
    Answer(Value),
    Refusal(Value),
}

impl Doors {
    fn start() -> Doors {
        let dir = tempfile::tempdir().unwrap();
        let mut config = Config::new(dir.path().join("data"));
        config.sandbox = true;
        config.secret_backend = SecretBackend::Memory;
        let (core, base) = tauri::async_runtime::block_on(async {
            let core = staffroom::open(config).await.unwrap();
            staffroom::sandbox::ensure_demo_account(&core).await.unwrap();
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let base = format!("http://{}", listener.local_addr().unwrap());
            let router = staffroom::http::router(core.clone(), [127, 0, 0, 1].into());
            tauri::async_runtime::spawn(staffroom::http::server::serve_router(
                listener,
                router,
                None,
                staffroom::http::server::ConnectionLimits::default(),
                std::future::pending(),
            ));
            (core, base)
        });
        let server = TeamServer::new(&base).unwrap();
        let team = Desktop::new(DesktopState::with_team_server(core.clone(), server));
        let desktop = Desktop::new(DesktopState::new(core));
        Doors { desktop, team, base, http: reqwest::Client::new(), _dir: dir }
    }

    fn state(&self) -> tauri::State<'_, DesktopState> {
        self.desktop.app.state::<DesktopState>()
    }

    fn block_on<T>(&self, future: impl std::future::Future<Output = T>) -> T {
        tauri::async_runtime::block_on(future)
    }

    fn sign_in(&self, email: &str, password: &str) -> String {
        let answer: Value = self.block_on(async {
            let response = self
                .http
                .post(format!("{}/api/auth", self.base))
                .json(&json!({ "email": email, "password": password }))
                .send()
                .await
                .unwrap();
            response.json().await.unwrap()
        });
        answer["token"].as_str().unwrap_or_else(|| panic!("{answer}")).to_string()
    }

    /// Calls `operation` over HTTP, as the holder of `token`.
    fn over_http(&self, operation: &str, token: Option<&str>, request: &Value) -> Outcome {
        let spec = api::find(operation).unwrap().spec;
        let route = spec.route.unwrap();
        let input: Input = request.as_object().cloned().unwrap_or_default();
        let encoded = route.encode(&input);
        self.block_on(async {
            let method = reqwest::Method::from_bytes(format!("{:?}", route.method).to_uppercase().as_bytes()).unwrap();
            let mut call = self.http.request(method, format!("{}{}", self.base, encoded.path)).query(&encoded.query);
            if let Some(token) = token {
                call = call.bearer_auth(token);
            }
            if let Some(body) = &encoded.body {
                call = call.json(body);
            }
            let response = call.send().await.unwrap();
            let status = response.status().as_u16();
            let body: Value = if status == 204 { Value::Null } else { response.json().await.unwrap() };
            if (200..300).contains(&status) {
                Outcome::Answer(body)
            } else {
                assert_eq!(body["error"]["code"].as_str().map(|_| ()), Some(()), "{operation}: {status} {body}");
                let code: staffroom::ErrorCode = serde_json::from_value(body["error"]["code"].clone()).unwrap();
                assert_eq!(code.status(), status, "{operation}: the status is the code's");
                Outcome::Refusal(body["error"].clone())
            }
        })
    }

    /// Calls `operation` through the desktop's `call` command, with `token` as its session.
    fn on_desktop(&self, operation: &str, token: Option<&str>, request: &Value) -> Outcome {
        self.through(&self.desktop, operation, token, request)
    }

    /// Calls `operation` through the `call` command of the desktop signed in to the team server.
    fn on_team(&self, operation: &str, token: Option<&str>, request: &Value) -> Outcome {
        self.through(&self.team, operation, token, request)
    }

    fn through(&self, desktop: &Desktop, operation: &str, token: Option<&str>, request: &Value) -> Outcome {
        let spec = api::find(operation).unwrap().spec;
        self.block_on(desktop.app.state::<DesktopState>().set_token(token.map(str::to_owned)));
        let window = if spec.windows.contains(&Window::Main) { &desktop.main } else { &desktop.editor };
        let invoke = InvokeRequest {
            cmd: "call".into(),
            callback: CallbackFn(0),
            error: CallbackFn(1),
            url: "tauri://localhost".parse().unwrap(),
            body: InvokeBody::Json(json!({ "op": operation, "request": request })),
            headers: Default::default(),
            invoke_key: INVOKE_KEY.to_string(),
        };
        match get_ipc_response(window, invoke) {
            Ok(body) => Outcome::Answer(body.deserialize().unwrap()),
            Err(error) => Outcome::Refusal(error),
        }
    }
}

/// One operation's inputs: a valid one (`{door}` in a string becomes the door's name, for a write
/// that cannot be made twice), and an invalid one.
struct Case {
    operation: &'static str,
    valid: Value,
    invalid: Option<Value>,
}

fn case(operation: &'static str, valid: Value, invalid: Option<Value>) -> Case {
    Case { operation, valid, invalid }
}

#[test]
fn every_operation_of_both_doors_answers_alike() {
    let doors = Doors::start();
    let admin = doors.sign_in(staffroom::sandbox::DEMO_EMAIL, staffroom::sandbox::DEMO_PASSWORD);
    let core = doors.state().core.clone();
    doors.block_on(async {
        let new = staffroom::auth::NewUser {
            email: "sam@example.com".into(),
            name: "Sam".into(),
            role: staffroom::auth::store::Role::Staff,
            password: staffroom::secrets::Secret::new(STAFF_PASSWORD),
        };
        core.auth.add_user(&staffroom::auth::Actor::Cli, new).await.unwrap();
    });
    let staff = doors.sign_in("sam@example.com", STAFF_PASSWORD);
    // A pending order (refunds are refused for it) and the editor's view of a document.
    let pending =
        match doors.over_http("create_order", Some(&admin), &json!({"productId": "11", "email": "a@example.com"})) {
            Outcome::Answer(body) => body["order"]["id"].as_str().unwrap().to_string(),
            refused => panic!("{refused:?}"),
        };
    let view = match doors.on_desktop("editor_document", Some(&admin), &json!({ "id": DOC })) {
        Outcome::Answer(view) => view,
        refused => panic!("{refused:?}"),
    };
    let edits = json!({ "id": DOC, "baseRevisionId": view["document"]["revisionId"], "blocks": view["blocks"] });
    // The sandbox's own credentials: connecting them again changes nothing.
    let simulators = staffroom::sandbox::simulators(&core).unwrap();
    let key = simulators.payments.api_key().expose().to_string();
    let (client_id, client_secret) = simulators.google.client();
    let webhook_url = format!("{}/api/payments/webhooks", doors.base);

    let cases = vec![
        case("list_users", json!({}), None),
        case(
            "add_user",
            json!({"email": "new-{door}@example.com", "name": "New", "role": "staff", "password": "a long passphrase for {door} 99"}),
            Some(json!({"email": "nope", "name": "", "password": "short"})),
        ),
        case(
            "set_user_disabled",
            json!({"email": "sam@example.com", "disabled": false}),
            Some(json!({"email": "sam@example.com", "disabled": "yes"})),
        ),
        case("unlock_user", json!({"email": "sam@example.com"}), Some(json!({"email": "nobody@example.com"}))),
        case(
            "list_products",
            json!({"page": 2, "limit": 5, "status": "published"}),
            Some(json!({"limit": 0, "status": "x"})),
        ),
        case("get_product", json!({"id": "11"}), Some(json!({"id": "a b"}))),
        case("create_order", json!({"productId": "11", "email": "{door}@example.com"}), Some(json!({"email": "nope"}))),
        case("list_orders", json!({"limit": 5}), Some(json!({"page": 0}))),
        case("get_summary", json!({"from": "2026-01-01"}), Some(json!({"from": "2026-02-01", "to": "2026-01-01"}))),
        case("get_order", json!({"id": pending}), Some(json!({"id": "x y"}))),
        case("refund_order", json!({"id": pending}), Some(json!({"id": pending, "amount": 0}))),
        case(
            "list_subscriptions",
            json!({"status": "active", "limit": 3}),
            Some(json!({"status": "trialing", "customerId": "a b"})),
        ),
        case("get_subscription", json!({"id": "1"}), Some(json!({"id": "a b"}))),
        case("list_customers", json!({"limit": 3, "search": "a"}), Some(json!({"status": "happy", "limit": 101}))),
        case("get_customer", json!({"id": "1001"}), Some(json!({"id": "x y"}))),
        case("list_invoices", json!({"id": "2"}), Some(json!({"id": "x y"}))),
        // No such invoice: every door refuses it alike, and nothing is refunded twice.
        case("refund_invoice", json!({"id": "1"}), Some(json!({"id": "2001", "amount": 0}))),
        case("list_license_keys", json!({"status": "active", "limit": 5}), Some(json!({"status": "lost"}))),
        // No such key: read and change are refused alike (a real one's reading is audited, so
        // each door would leave its own entry).
        case("get_license_key", json!({"id": "1"}), Some(json!({"id": "a b"}))),
        case("update_license_key", json!({"id": "1", "disabled": true}), Some(json!({"id": "1"}))),
        case("list_discounts", json!({"limit": 5, "search": "launch"}), Some(json!({"limit": 101}))),
        // A code in use: every door refuses it alike (a new one would be made once, by one door).
        case(
            "create_discount",
            json!({"name": "Again", "code": "LAUNCH10", "amount": 10, "amountType": "percent"}),
            Some(json!({"name": "Bad", "code": "lower", "amount": 10, "amountType": "percent"})),
        ),
        case("delete_discount", json!({"id": "999999"}), Some(json!({"id": "a b"}))),
        case(
            "act_on_subscription",
            json!({"id": "1", "action": "cancel"}),
            Some(json!({"id": "1", "action": "pause", "mode": "forever"})),
        ),
        case("sync_now", json!({}), None),
        case("sync_status", json!({}), None),
        case("set_sync_interval", json!({"intervalSecs": 600}), Some(json!({"intervalSecs": 5}))),
        case("webhook_events", json!({"limit": 5}), Some(json!({"limit": 501}))),
        case("list_documents", json!({"pageSize": 5}), Some(json!({"pageSize": 0, "orderBy": "name"}))),
        case("list_folders", json!({}), None),
        case("read_document", json!({"id": DOC}), Some(json!({"id": DOC, "suggestionsViewMode": "ALL"}))),
        case("create_document", json!({"name": "Notes of {door}"}), Some(json!({"name": "   "}))),
        case(
            "share_document",
            json!({"id": DOC, "permissions": [{"role": "reader", "type": "user", "emailAddress": "{door}@example.com"}]}),
            Some(json!({"id": DOC, "permissions": []})),
        ),
        case("editor_document", json!({"id": DOC}), Some(json!({"id": "bad id"}))),
        case("save_draft", edits.clone(), Some(json!({"id": DOC}))),
        case("save_document", edits.clone(), Some(json!({"id": DOC, "blocks": "none"}))),
        case("discard_draft", json!({"id": DOC}), Some(json!({"id": "bad id"}))),
        case("google_status", json!({}), None),
        case("settings", json!({}), None),
        case(
            "set_secret",
            json!({"name": "google_token", "value": "ya29.a-pasted-token"}),
            Some(json!({"name": "jwt_key", "value": " "})),
        ),
        case("audit_log", json!({"limit": 5}), Some(json!({"limit": 0}))),
        case("audit_retention", json!({}), None),
        case("set_audit_retention", json!({"days": 400}), Some(json!({"days": 1}))),
        case("connections", json!({}), None),
        case("check_lemonsqueezy_key", json!({"apiKey": key}), Some(json!({"apiKey": ""}))),
        case(
            "connect_lemonsqueezy",
            json!({"apiKey": key, "storeId": "1"}),
            Some(json!({"apiKey": key, "storeId": "x"})),
        ),
        case(
            "register_webhook",
            json!({"url": webhook_url}),
            Some(json!({"url": "ftp://example.com/api/payments/webhooks"})),
        ),
        case(
            "set_google_client",
            json!({"clientId": client_id, "clientSecret": client_secret}),
            Some(json!({"clientId": "not-a-client", "clientSecret": "x"})),
        ),
        case(
            "set_templates_folder",
            json!({"folderId": "fld_templates"}),
            Some(json!({"folderId": "fld_operations/x"})),
        ),
        case("list_templates", json!({}), None),
        case(
            "create_from_template",
            json!({"templateId": "tplWelcomeLetterSbx01", "name": "Welcome {door}", "customerId": "1001"}),
            Some(json!({"templateId": "tplWelcomeLetterSbx01", "name": "Welcome {door}"})),
        ),
        // Last: the documents above need Google's sign-in.
        case("google_sign_out", json!({}), None),
    ];

    // Every operation both doors offer is in the table, so a new one cannot skip this test.
    let both: Vec<&str> = api::operations()
        .iter()
        .filter(|op| op.spec.route.is_some() && !op.spec.windows.is_empty())
        .map(|op| op.spec.name)
        .collect();
    let listed: Vec<&str> = cases.iter().map(|c| c.operation).collect();
    let missing: Vec<&&str> = both.iter().filter(|name| !listed.contains(name)).collect();
    assert!(missing.is_empty(), "operations of both doors without a case here: {missing:?}");

    for case in &cases {
        let op = case.operation;
        let access = api::find(op).unwrap().spec.access;
        let as_user = if access == Access::Admin { &admin } else { &staff };
        // Signed out: the same refusal.
        let (http, desktop) = (doors.over_http(op, None, &case.valid), doors.on_desktop(op, None, &case.valid));
        assert!(matches!(&http, Outcome::Refusal(e) if e["code"] == "unauthorized"), "{op}: {http:?}");
        assert_eq!(http, desktop, "{op}, signed out");
        assert_eq!(doors.on_team(op, None, &case.valid), desktop, "{op}, signed out, team");
        // Staff who are not admins: forbidden at both.
        if access == Access::Admin {
            let (http, desktop) =
                (doors.over_http(op, Some(&staff), &case.valid), doors.on_desktop(op, Some(&staff), &case.valid));
            assert!(matches!(&http, Outcome::Refusal(e) if e["code"] == "forbidden"), "{op}: {http:?}");
            assert_eq!(http, desktop, "{op}, as staff");
            assert_eq!(doors.on_team(op, Some(&staff), &case.valid), desktop, "{op}, as staff, team");
        }
        if let Some(invalid) = &case.invalid {
            let (http, desktop) =
                (doors.over_http(op, Some(as_user), invalid), doors.on_desktop(op, Some(as_user), invalid));
            assert!(matches!(&http, Outcome::Refusal(_)), "{op}: {invalid} was accepted: {http:?}");
            assert_eq!(http, desktop, "{op}, invalid {invalid}");
            assert_eq!(doors.on_team(op, Some(as_user), invalid), desktop, "{op}, invalid {invalid}, team");
        }
        let http = doors.over_http(op, Some(as_user), &for_door(&case.valid, "http"));
        let desktop = doors.on_desktop(op, Some(as_user), &for_door(&case.valid, "desktop"));
        let team = doors.on_team(op, Some(as_user), &for_door(&case.valid, "team"));
        let normal = |outcome| match outcome {
            Outcome::Answer(a) => Outcome::Answer(normalised(&a)),
            refusal => refusal,
        };
        let (http, desktop, team) = (normal(http), normal(desktop), normal(team));
        assert_eq!(http, desktop, "{op}, valid {}", case.valid);
        assert_eq!(team, desktop, "{op}, valid {}, team", case.valid);
    }
}
