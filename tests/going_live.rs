//! Going live (SPEC section 13), through the real binary in real mode: a store connected from
//! nothing with a key checked first (refusals store nothing), the webhook registered by
//! Staffroom once and rotated without losing a delivery, the connections' problems as the
//! provider and the receiver show them, Google's scopes, the CLI's `connect` and `doctor`; against
//! the simulator and against a fake of Lemon Squeezy built from its documented objects. On a
//! PostgreSQL run (STAFFROOM_TEST_DATABASE=postgres) the same, as a team server whose secrets are
//! sealed in its database.

mod common;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::*;
use reqwest::Method;
use serde_json::{json, Value};
use staffroom::sandbox::google::{GoogleSimOptions, GoogleSimulator};
use staffroom::sandbox::lemonsqueezy::{Faults, PaymentSimulator, SimulatorOptions};
use staffroom::secrets::Secret;
use staffroom::webhooks::signature::sign;

const PASSWORD: &str = "correct horse battery staple 42";
/// The 15 Lemon Squeezy events Staffroom applies.
const EVENTS: usize = 15;

struct Live {
    server: Server,
    admin: String,
    staff: String,
    _dir: tempfile::TempDir,
}

impl Live {
    /// `staffroom serve` in real mode with nothing connected, its Lemon Squeezy endpoint at
    /// `api_url`, with Ada (admin) and Sam (staff) signed in; `env` besides.
    async fn start(api_url: &str, env: &[(&str, String)]) -> Live {
        let dir = tempfile::tempdir().unwrap();
        add_user(dir.path(), "ada@example.com", "Ada", "admin", PASSWORD);
        add_user(dir.path(), "sam@example.com", "Sam", "staff", PASSWORD);
        let mut all = vec![("STAFFROOM_LEMONSQUEEZY_API_URL".to_string(), api_url.to_string())];
        all.extend(env.iter().map(|(k, v)| (k.to_string(), v.clone())));
        let server = Server::start(ServerOptions {
            sandbox: false,
            data_dir: Some(dir.path().into()),
            env: all,
            ..Default::default()
        });
        let token = |login: Value| login["token"].as_str().unwrap().to_string();
        let admin = token(login(&server, "ada@example.com", PASSWORD).await);
        let staff = token(login(&server, "sam@example.com", PASSWORD).await);
        Live { server, admin, staff, _dir: dir }
    }

    async fn send(&self, token: &str, method: Method, path: &str, body: Option<Value>) -> (u16, Value) {
        let mut request = client().request(method, self.server.url(path)).bearer_auth(token);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.unwrap();
        (response.status().as_u16(), response.json().await.unwrap_or(Value::Null))
    }

    async fn check(&self, key: &str) -> (u16, Value) {
        self.send(&self.admin, Method::POST, "/api/settings/lemonsqueezy/check", Some(json!({ "apiKey": key }))).await
    }

    async fn connect(&self, key: &str, store: &str) -> (u16, Value) {
        let body = json!({ "apiKey": key, "storeId": store });
        self.send(&self.admin, Method::PUT, "/api/settings/lemonsqueezy", Some(body)).await
    }

    async fn register(&self, url: &str) -> (u16, Value) {
        self.send(&self.admin, Method::POST, "/api/settings/lemonsqueezy/webhook", Some(json!({ "url": url }))).await
    }

    async fn connections(&self) -> Value {
        let (status, body) = self.send(&self.admin, Method::GET, "/api/settings/connections", None).await;
        assert_eq!(status, 200, "{body}");
        body
    }

    /// Where a secret comes from, as Settings says.
    async fn source_of(&self, name: &str) -> String {
        let (_, settings) = self.send(&self.admin, Method::GET, "/api/settings", None).await;
        let secrets = settings["secrets"].as_array().unwrap();
        secrets.iter().find(|s| s["name"] == name).unwrap()["source"].as_str().unwrap().to_string()
    }

    /// The audit log's outcomes for `action`, oldest first.
    async fn audited(&self, action: &str) -> Vec<String> {
        let sql = format!("SELECT outcome FROM audit_log WHERE action = '{action}' ORDER BY id");
        column_text(&self.server.data_dir, &sql).await
    }

    /// A delivery signed with `secret`: its status.
    async fn deliver(&self, secret: &Secret, body: &[u8]) -> u16 {
        client()
            .post(self.server.url("/api/payments/webhooks"))
            .header("content-type", "application/json")
            .header("x-signature", sign(secret, body))
            .body(body.to_vec())
            .send()
            .await
            .unwrap()
            .status()
            .as_u16()
    }

    /// Polls the connections until `done`, for at most `limit`.
    async fn connections_until(&self, limit: Duration, done: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + limit;
        loop {
            let now = self.connections().await;
            if done(&now) || Instant::now() > deadline {
                return now;
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }
}

fn problem_codes(connection: &Value) -> Vec<String> {
    connection["problems"].as_array().unwrap().iter().map(|p| p["code"].as_str().unwrap().to_string()).collect()
}

fn problem<'a>(connection: &'a Value, code: &str) -> &'a Value {
    let problems = connection["problems"].as_array().unwrap();
    problems.iter().find(|p| p["code"] == code).unwrap_or_else(|| panic!("no {code} in {connection}"))
}

/// A `subscription_updated` delivery, different for each `n`.
fn delivery(n: u32) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "meta": {"event_name": "subscription_updated", "webhook_id": format!("going-live-{n}")},
        "data": {"type": "subscriptions", "id": format!("{}", 900 + n), "attributes": {
            "store_id": 1, "status": "active", "customer_id": 77, "product_id": 3, "variant_id": 31,
            "user_email": "kim@example.com", "user_name": "Kim", "renews_at": "2027-01-01T00:00:00.000000Z",
            "ends_at": null, "pause": null, "created_at": "2026-11-01T00:00:00.000000Z",
            "updated_at": format!("2026-11-01T00:{n:02}:00.000000Z")
        }}
    }))
    .unwrap()
}

#[tokio::test]
async fn a_store_is_connected_only_with_a_key_and_a_store_the_provider_confirms() {
    let provider = PaymentSimulator::start(SimulatorOptions::default()).await.unwrap();
    let live = Live::start(&provider.api_url(), &[]).await;
    let key = provider.api_key().expose().to_string();

    let before = live.connections().await;
    assert_eq!(before["lemonSqueezy"]["state"], "not_configured", "{before}");
    assert_eq!(problem_codes(&before["lemonSqueezy"]), ["not_connected"]);

    // Staff who are not admins may do none of it.
    for (method, path, body) in [
        (Method::POST, "/api/settings/lemonsqueezy/check", json!({ "apiKey": key })),
        (Method::PUT, "/api/settings/lemonsqueezy", json!({ "apiKey": key, "storeId": "1" })),
        (
            Method::POST,
            "/api/settings/lemonsqueezy/webhook",
            json!({ "url": "https://a.example/api/payments/webhooks" }),
        ),
        (Method::GET, "/api/settings/connections", Value::Null),
        (
            Method::PUT,
            "/api/settings/google/client",
            json!({ "clientId": "1-a.apps.googleusercontent.com", "clientSecret": "x" }),
        ),
    ] {
        let body = (!body.is_null()).then_some(body);
        let (status, answer) = live.send(&live.staff, method, path, body).await;
        assert_eq!((status, answer["error"]["code"].as_str()), (403, Some("forbidden")), "{path}: {answer}");
    }

    // A key the provider refuses: a sentence on apiKey.
    let (status, refused) = live.check("not-a-key").await;
    assert_eq!(status, 400, "{refused}");
    assert_eq!(bad_fields(&refused), ["apiKey"]);
    assert!(refused["error"]["message"].as_str().unwrap().contains("Lemon Squeezy refused this key"), "{refused}");
    // A blank one never reaches the provider.
    let asked = provider.request_count();
    let (status, blank) = live.check("   ").await;
    assert_eq!((status, bad_fields(&blank)), (400, vec!["apiKey".to_string()]));
    assert_eq!(provider.request_count(), asked);

    // The key's account, mode and stores; nothing stored.
    let (status, checked) = live.check(&key).await;
    assert_eq!(status, 200, "{checked}");
    assert_eq!(checked["account"], json!({"name": "Sandbox Owner", "email": "owner@staffroom.test"}));
    assert_eq!(checked["testMode"], true);
    let stores: Vec<&str> = checked["stores"].as_array().unwrap().iter().map(|s| s["id"].as_str().unwrap()).collect();
    assert_eq!(stores, ["1", "2"], "a key sees every store of its account");
    assert_eq!(checked["stores"][0]["currency"], "USD");
    assert_eq!(checked["stores"][1]["currency"], "EUR");
    assert_eq!(live.source_of("lemonsqueezy_api_key").await, "not set");

    // A store the key does not see: a sentence on storeId naming those it does; nothing kept.
    let (status, foreign) = live.connect(&key, "999").await;
    assert_eq!(status, 400, "{foreign}");
    assert_eq!(bad_fields(&foreign), ["storeId"]);
    let message = foreign["error"]["message"].as_str().unwrap();
    assert!(message.contains("1 (") && message.contains("2 ("), "{message}");
    // The provider out of reach: its error, nothing kept.
    provider.set_faults(Faults { error_rate: 1.0, ..Default::default() });
    let (status, down) = live.connect(&key, "1").await;
    assert_eq!((status, down["error"]["code"].as_str()), (502, Some("integration_error")), "{down}");
    provider.set_faults(Faults::default());
    assert_eq!(live.source_of("lemonsqueezy_api_key").await, "not set");
    assert_eq!(live.source_of("lemonsqueezy_store_id").await, "not set");

    // Connected: kept, synced, and the webhook still to register.
    let (status, connected) = live.connect(&key, "1").await;
    assert_eq!(status, 200, "{connected}");
    let lemon = &connected["lemonSqueezy"];
    assert_eq!(lemon["state"], "connected", "{connected}");
    assert_eq!(lemon["store"]["id"], "1");
    assert_eq!(lemon["store"]["testMode"], true);
    assert!(lemon["lastSyncAt"].is_string(), "synced before answering: {connected}");
    assert_eq!(problem_codes(lemon), ["no_webhook"]);
    assert!(problem(lemon, "no_webhook")["message"]
        .as_str()
        .unwrap()
        .contains("arrive only with the sync, every 5 minutes"));
    let kept = if on_postgres() { "team database (sealed with data_key)" } else { "keyring (memory (not persisted))" };
    assert_eq!(live.source_of("lemonsqueezy_api_key").await, kept);
    assert_eq!(live.source_of("lemonsqueezy_store_id").await, kept);
    let (status, products) = live.send(&live.admin, Method::GET, "/api/payments/products", None).await;
    assert_eq!((status, products["products"].as_array().map(|p| !p.is_empty())), (200, Some(true)));
    // The secret never comes back.
    assert!(!connected.to_string().contains(&key));

    // Every step audited, refusals as failures.
    assert_eq!(
        live.audited("settings.lemonsqueezy_check").await,
        ["failure: invalid_request", "success"],
        "a blank key is refused before the operation"
    );
    assert_eq!(
        live.audited("settings.lemonsqueezy_connect").await,
        ["failure: invalid_request", "failure: integration_error", "success"]
    );
    assert!(!stored_text(&live.server.data_dir).await.contains(&key), "the key is in the database in the clear");
}

#[tokio::test]
async fn the_webhook_is_registered_once_and_a_rotation_loses_no_delivery() {
    let provider = PaymentSimulator::start(SimulatorOptions::default()).await.unwrap();
    let live = Live::start(&provider.api_url(), &[]).await;
    let key = provider.api_key().expose().to_string();
    let url = live.server.url("/api/payments/webhooks");
    // Another store of the account has a webhook at the same address: never Staffroom's to touch.
    let other = client()
        .post(format!("{}/webhooks", provider.api_url()))
        .bearer_auth(&key)
        .header("content-type", "application/vnd.api+json")
        .header("accept", "application/vnd.api+json")
        .body(
            json!({"data": {"type": "webhooks",
                "attributes": {"url": url, "events": ["order_created"], "secret": "the other store's secret"},
                "relationships": {"store": {"data": {"type": "stores", "id": "2"}}}}})
            .to_string(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(other.status(), 201);

    // Before a store is connected: a sentence, nothing asked of the provider.
    let (status, early) = live.register(&url).await;
    assert_eq!(status, 400, "{early}");
    assert!(early["error"]["message"].as_str().unwrap().contains("Connect a Lemon Squeezy store first"));
    assert_eq!(live.connect(&key, "1").await.0, 200);
    let (status, bad) = live.register("http://staffroom.example.com/api/payments/webhooks").await;
    assert_eq!((status, bad_fields(&bad)), (400, vec!["url".to_string()]), "{bad}");

    let (status, first) = live.register(&url).await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(first["webhook"]["url"], url.as_str());
    assert_eq!(first["webhook"]["events"].as_array().unwrap().len(), EVENTS);
    assert_eq!(first["webhook"]["testMode"], true);
    let ours = |p: &PaymentSimulator| p.webhooks().into_iter().filter(|w| w.store_id == 1).collect::<Vec<_>>();
    let [made] = ours(&provider).try_into().unwrap_or_else(|all: Vec<_>| panic!("{all:?}"));
    let old_secret = made.secret.clone();
    assert!((32..=40).contains(&old_secret.expose().len()));
    assert!(!made.events.contains(&"order_paid".to_string()));

    // A second registration updates that webhook with a new secret: never a duplicate.
    let (status, second) = live.register(&url).await;
    assert_eq!(status, 200, "{second}");
    assert_eq!(second["webhook"]["id"], first["webhook"]["id"]);
    let [updated] = ours(&provider).try_into().unwrap_or_else(|all: Vec<_>| panic!("{all:?}"));
    assert_ne!(updated.secret.expose(), old_secret.expose());
    let theirs: Vec<_> = provider.webhooks().into_iter().filter(|w| w.store_id == 2).collect();
    assert_eq!(theirs.len(), 1);
    assert_eq!(theirs[0].secret.expose(), "the other store's secret");
    assert_eq!(theirs[0].events, ["order_created"]);

    // The new secret verifies, and for a while the old one; any other does not.
    assert_eq!(live.deliver(&updated.secret, &delivery(1)).await, 200);
    assert_eq!(live.deliver(&old_secret, &delivery(2)).await, 200);
    assert_eq!(live.deliver(&Secret::new("a secret nobody registered"), &delivery(3)).await, 401);
    // A delivery signed with another secret: the secrets differ, Connections says so (until a
    // delivery verifies after it).
    let differing = live
        .connections_until(Duration::from_secs(5), |c| {
            problem_codes(&c["lemonSqueezy"]).contains(&"bad_signatures".into())
        })
        .await;
    assert_eq!(problem_codes(&differing["lemonSqueezy"]), ["bad_signatures"], "{differing}");
    // One without any signature is no sign of that (a scanner).
    let unsigned = client()
        .post(live.server.url("/api/payments/webhooks"))
        .header("content-type", "application/json")
        .body(delivery(9))
        .send()
        .await
        .unwrap();
    assert_eq!(unsigned.status(), 401);

    // A checkout paid at the provider arrives, signed with the new secret.
    let (_, created) = live
        .send(
            &live.admin,
            Method::POST,
            "/api/payments/orders",
            Some(json!({"productId": "3", "email": "b@example.com"})),
        )
        .await;
    let order = created["order"]["id"].as_str().unwrap().to_string();
    client().post(checkout_action(created["order"]["checkoutUrl"].as_str().unwrap(), "pay")).send().await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let (_, now) = live.send(&live.admin, Method::GET, &format!("/api/payments/orders/{order}"), None).await;
        if now["order"]["status"] == "paid" {
            break;
        }
        assert!(Instant::now() < deadline, "the order did not turn paid: {now}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // Deliveries verify again since: nothing is wrong.
    let healthy = live.connections().await;
    let lemon = &healthy["lemonSqueezy"];
    assert_eq!(lemon["webhook"]["id"], first["webhook"]["id"], "{healthy}");
    assert!(lemon["webhook"]["lastSentAt"].is_string(), "{healthy}");
    assert!(lemon["lastDeliveryAt"].is_string(), "{healthy}");
    assert_eq!(problem_codes(lemon), Vec::<String>::new(), "{healthy}");

    // Deliveries stop arriving: Connections tells when the provider sent one and none came.
    provider.set_faults(Faults { lost_deliveries: true, ..Default::default() });
    tokio::time::sleep(Duration::from_secs(6)).await;
    let (_, lost) = live
        .send(
            &live.admin,
            Method::POST,
            "/api/payments/orders",
            Some(json!({"productId": "3", "email": "c@example.com"})),
        )
        .await;
    client().post(checkout_action(lost["order"]["checkoutUrl"].as_str().unwrap(), "pay")).send().await.unwrap();
    let silent = live
        .connections_until(Duration::from_secs(15), |c| {
            problem_codes(&c["lemonSqueezy"]).contains(&"webhook_silent".into())
        })
        .await;
    let sentence = problem(&silent["lemonSqueezy"], "webhook_silent")["message"].as_str().unwrap().to_string();
    assert!(sentence.starts_with("Lemon Squeezy sent a webhook at "), "{sentence}");
    assert!(sentence.contains(" but none has arrived here since "), "{sentence}");
    assert!(sentence.ends_with(&format!(": check that {url} reaches this server")), "{sentence}");

    // Past its ten minutes the old secret verifies no more (the receiver reads the keys again
    // after a delivery that matched none).
    execute_sql(&live.server.data_dir, "UPDATE meta SET value = '1' WHERE key = 'webhook_secret_previous_until'").await;
    assert_eq!(live.deliver(&Secret::new("still nobody's"), &delivery(4)).await, 401);
    assert_eq!(live.deliver(&old_secret, &delivery(5)).await, 401);
    assert_eq!(live.deliver(&updated.secret, &delivery(6)).await, 200);

    assert_eq!(
        live.audited("settings.webhook_register").await,
        ["failure: invalid_request", "failure: invalid_request", "success", "success"]
    );
    assert!(!stored_text(&live.server.data_dir).await.contains(updated.secret.expose()));
}

/// Lemon Squeezy as its documentation shows it: the user, store and webhook objects of the API
/// reference (`tests/contract/lemonsqueezy`), behind one key; what was asked of it is kept.
struct DocumentedProvider {
    url: String,
    webhooks: Arc<Mutex<Vec<Value>>>,
    asked: Arc<Mutex<Vec<(String, Value)>>>,
}

impl DocumentedProvider {
    const KEY: &'static str = "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.documented";

    async fn start() -> DocumentedProvider {
        use axum::extract::{Path, State};
        use axum::http::{HeaderMap, StatusCode};
        use axum::response::IntoResponse;
        use axum::routing::get;
        type Shared = (Arc<Mutex<Vec<Value>>>, Arc<Mutex<Vec<(String, Value)>>>);
        let fixture = |name: &str| -> Value {
            let path = format!("{}/tests/contract/lemonsqueezy/{name}", env!("CARGO_MANIFEST_DIR"));
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
        };
        let (user, store, webhook) = (fixture("user.json"), fixture("store.json"), fixture("webhook.json"));
        let authorised = |headers: &HeaderMap| {
            headers.get("authorization").and_then(|v| v.to_str().ok()) == Some(&format!("Bearer {}", Self::KEY))
        };
        let refused = || {
            let body = json!({"jsonapi": {"version": "1.0"}, "errors": [{"detail": "Unauthenticated.", "status": "401", "title": "Unauthorized"}]});
            (StatusCode::UNAUTHORIZED, axum::Json(body)).into_response()
        };
        let list = |items: Vec<Value>| {
            json!({"meta": {"page": {"currentPage": 1, "from": 1, "lastPage": 1, "perPage": 10, "to": items.len(), "total": items.len()}},
                   "jsonapi": {"version": "1.0"}, "data": items})
        };
        let webhooks: Arc<Mutex<Vec<Value>>> = Arc::new(Mutex::new(vec![webhook["data"].clone()]));
        let asked = Arc::new(Mutex::new(Vec::new()));
        let me = move |headers: HeaderMap| {
            let user = user.clone();
            async move {
                if authorised(&headers) {
                    axum::Json(user).into_response()
                } else {
                    refused()
                }
            }
        };
        let stores = move |headers: HeaderMap| {
            let body = list(vec![store["data"].clone()]);
            async move {
                if authorised(&headers) {
                    axum::Json(body).into_response()
                } else {
                    refused()
                }
            }
        };
        let list_webhooks = move |State((hooks, asked)): State<Shared>, headers: HeaderMap, uri: axum::http::Uri| async move {
            asked.lock().unwrap().push((format!("GET {uri}"), Value::Null));
            if !authorised(&headers) {
                return refused();
            }
            let wanted = uri.query().unwrap_or("").contains("filter%5Bstore_id%5D=1")
                || uri.query().unwrap_or("").contains("filter[store_id]=1");
            let all = hooks.lock().unwrap().clone();
            axum::Json(list(if wanted { all } else { Vec::new() })).into_response()
        };
        let one = move |State((hooks, _)): State<Shared>, Path(id): Path<String>| async move {
            let found = hooks.lock().unwrap().iter().find(|w| w["id"] == id.as_str()).cloned();
            match found {
                Some(hook) => axum::Json(json!({"jsonapi": {"version": "1.0"}, "data": hook})).into_response(),
                None => StatusCode::NOT_FOUND.into_response(),
            }
        };
        let create = move |State((hooks, asked)): State<Shared>, axum::Json(body): axum::Json<Value>| async move {
            asked.lock().unwrap().push(("POST /v1/webhooks".into(), body.clone()));
            let mut made = hooks.lock().unwrap()[0].clone();
            made["id"] = json!("2");
            let a = &body["data"]["attributes"];
            made["attributes"]["url"] = a["url"].clone();
            made["attributes"]["events"] = a["events"].clone();
            made["attributes"]["test_mode"] = a["test_mode"].clone();
            made["attributes"]["last_sent_at"] = Value::Null;
            hooks.lock().unwrap().push(made.clone());
            (StatusCode::CREATED, axum::Json(json!({"jsonapi": {"version": "1.0"}, "data": made}))).into_response()
        };
        let update = move |State((hooks, asked)): State<Shared>,
                           Path(id): Path<String>,
                           axum::Json(body): axum::Json<Value>| async move {
            asked.lock().unwrap().push((format!("PATCH /v1/webhooks/{id}"), body.clone()));
            let mut hooks = hooks.lock().unwrap();
            let hook = hooks.iter_mut().find(|w| w["id"] == id.as_str()).unwrap();
            for (k, v) in body["data"]["attributes"].as_object().unwrap() {
                if k != "secret" {
                    hook["attributes"][k] = v.clone();
                }
            }
            axum::Json(json!({"jsonapi": {"version": "1.0"}, "data": hook.clone()})).into_response()
        };
        let app = axum::Router::new()
            .route("/v1/users/me", get(me))
            .route("/v1/stores", get(stores))
            .route("/v1/webhooks", get(list_webhooks).post(create))
            .route("/v1/webhooks/{id}", get(one).patch(update))
            .with_state((webhooks.clone(), asked.clone()));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        DocumentedProvider { url, webhooks, asked }
    }
}

#[tokio::test]
async fn the_documented_objects_connect_a_store_and_its_webhook() {
    let provider = DocumentedProvider::start().await;
    let live = Live::start(&provider.url, &[]).await;

    let (status, refused) = live.check("a-revoked-key").await;
    assert_eq!((status, bad_fields(&refused)), (400, vec!["apiKey".to_string()]), "{refused}");
    let (status, checked) = live.check(DocumentedProvider::KEY).await;
    assert_eq!(status, 200, "{checked}");
    assert_eq!(
        checked,
        json!({"account": {"name": "John Doe", "email": "johndoe@example.com"}, "testMode": true,
               "stores": [{"id": "1", "name": "My Store", "currency": "USD", "url": "https://my-store.lemonsqueezy.com"}]})
    );
    // Connecting syncs a store this fake has no catalogue of: the sync fails, the connection
    // is kept, and the failure is a problem with its sentence.
    let (status, connected) = live.connect(DocumentedProvider::KEY, "1").await;
    assert_eq!(status, 200, "{connected}");
    assert_eq!(
        connected["lemonSqueezy"]["store"],
        json!({"id": "1", "name": "My Store", "currency": "USD", "testMode": true})
    );
    // The documented webhook points elsewhere: not Staffroom's, so there is none yet.
    assert!(problem_codes(&connected["lemonSqueezy"]).contains(&"no_webhook".to_string()), "{connected}");

    let url = "https://staffroom.example.com/api/payments/webhooks";
    let (status, registered) = live.register(url).await;
    assert_eq!(status, 200, "{registered}");
    assert_eq!(registered["webhook"]["id"], "2");
    let (_, again) = live.register(url).await;
    assert_eq!(again["webhook"]["id"], "2", "{again}");
    let asked = provider.asked.lock().unwrap().clone();
    let writes: Vec<&(String, Value)> = asked.iter().filter(|(what, _)| !what.starts_with("GET")).collect();
    assert_eq!(
        writes.iter().map(|(what, _)| what.as_str()).collect::<Vec<_>>(),
        ["POST /v1/webhooks", "PATCH /v1/webhooks/2"]
    );
    let created = &writes[0].1["data"];
    assert_eq!(created["relationships"]["store"]["data"], json!({"type": "stores", "id": "1"}));
    assert_eq!(created["attributes"]["events"].as_array().unwrap().len(), EVENTS);
    assert_eq!(created["attributes"]["test_mode"], true);
    let (first, second) = (&writes[0].1["data"]["attributes"]["secret"], &writes[1].1["data"]["attributes"]["secret"]);
    assert_ne!(first, second, "a registration sets a new secret");
    assert!(asked.iter().any(|(what, _)| what.contains("filter") && what.contains("store_id")), "{asked:?}");
    assert_eq!(provider.webhooks.lock().unwrap().len(), 2);

    let connections = live.connections().await;
    let lemon = &connections["lemonSqueezy"];
    assert_eq!(lemon["webhook"]["id"], "2", "{connections}");
    assert_eq!(lemon["webhook"]["lastSentAt"], Value::Null);
    assert_eq!(lemon["account"]["email"], "johndoe@example.com");
}

#[tokio::test]
async fn googles_connection_says_whose_it_is_and_which_scopes_it_lacks() {
    use staffroom::sandbox::google::{DOCUMENTS, DRIVE};
    let provider = PaymentSimulator::start(SimulatorOptions::default()).await.unwrap();
    let google = GoogleSimulator::start(GoogleSimOptions::default()).await.unwrap();
    let endpoints = google.endpoints();
    let at_google = |token: Option<String>| {
        let mut env = vec![
            ("STAFFROOM_GOOGLE_DOCS_API_URL", endpoints.docs_url.clone()),
            ("STAFFROOM_GOOGLE_DRIVE_API_URL", endpoints.drive_url.clone()),
            ("STAFFROOM_GOOGLE_OAUTH_URL", google.base_url().to_string()),
        ];
        env.extend(token.map(|t| ("STAFFROOM_GOOGLE_TOKEN", t)));
        env
    };

    // Nothing set: the OAuth client is missing, and where to make one is said.
    let live = Live::start(&provider.api_url(), &at_google(None)).await;
    let google_view = live.connections().await["google"].clone();
    assert_eq!(google_view["state"], "not_configured");
    assert_eq!(problem_codes(&google_view), ["google_client_missing"]);
    assert!(problem(&google_view, "google_client_missing")["fix"]
        .as_str()
        .unwrap()
        .contains("https://console.cloud.google.com/apis/credentials"));
    let (client_id, client_secret) = google.client();
    let (status, bad) = live
        .send(
            &live.admin,
            Method::PUT,
            "/api/settings/google/client",
            Some(json!({"clientId": "not a client", "clientSecret": ""})),
        )
        .await;
    assert_eq!((status, bad_fields(&bad)), (400, vec!["clientId".to_string(), "clientSecret".to_string()]), "{bad}");
    let (status, set) = live
        .send(
            &live.admin,
            Method::PUT,
            "/api/settings/google/client",
            Some(json!({"clientId": client_id, "clientSecret": client_secret})),
        )
        .await;
    assert_eq!(status, 200, "{set}");
    assert_eq!(problem_codes(&set["google"]), ["google_signed_out"]);
    assert_eq!(live.audited("settings.google_client").await, ["success"]);
    drop(live);

    // A sign-in granted `documents` alone: connected, but lacking `drive`.
    let narrow = google.issue_token_with_scopes(&[DOCUMENTS])["access_token"].as_str().unwrap().to_string();
    let live = Live::start(&provider.api_url(), &at_google(Some(narrow))).await;
    let google_view = live.connections().await["google"].clone();
    assert_eq!(google_view["state"], "connected", "{google_view}");
    assert_eq!(google_view["scopes"], json!([DOCUMENTS]));
    assert_eq!(google_view["missingScopes"], json!([DRIVE]));
    assert_eq!(problem_codes(&google_view), ["scopes_missing"]);
    drop(live);

    // Every scope: whose account it is, no problem.
    let full = google.issue_token()["access_token"].as_str().unwrap().to_string();
    let live = Live::start(&provider.api_url(), &at_google(Some(full.clone()))).await;
    let google_view = live.connections().await["google"].clone();
    assert_eq!(
        (google_view["state"].as_str(), google_view["missingScopes"].clone()),
        (Some("connected"), json!([])),
        "{google_view}"
    );
    assert!(google_view["account"]["email"].as_str().unwrap().contains('@'), "{google_view}");
    assert_eq!(problem_codes(&google_view), Vec::<String>::new());

    // Revoked at Google: refused, with the fix.
    client().post(&endpoints.revoke_url).form(&[("token", full.as_str())]).send().await.unwrap();
    let google_view = live.connections().await["google"].clone();
    assert_eq!(google_view["state"], "refused", "{google_view}");
    assert_eq!(problem_codes(&google_view), ["google_refused"]);
}

// The CLI runs while this test waits for it: the simulators answer from other threads.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cli_connects_a_headless_server_and_the_doctor_says_what_is_wrong() {
    let provider = PaymentSimulator::start(SimulatorOptions::default()).await.unwrap();
    let google = GoogleSimulator::start(GoogleSimOptions::default()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let endpoints = google.endpoints();
    let env = [
        ("STAFFROOM_LEMONSQUEEZY_API_URL", provider.api_url()),
        ("STAFFROOM_GOOGLE_DOCS_API_URL", endpoints.docs_url.clone()),
        ("STAFFROOM_GOOGLE_DRIVE_API_URL", endpoints.drive_url.clone()),
        ("STAFFROOM_GOOGLE_OAUTH_URL", google.base_url().to_string()),
        ("STAFFROOM_GOOGLE_TOKEN", google.issue_token()["access_token"].as_str().unwrap().to_string()),
    ];
    let cli = |args: &[&str], stdin: &str| {
        let mut child = command(dir.path())
            .args(args)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write as _;
        child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        (out.status, String::from_utf8_lossy(&out.stdout).to_string(), String::from_utf8_lossy(&out.stderr).to_string())
    };
    // Nothing connected: the doctor says so, with the fix, and fails.
    let (status, out, err) = cli(&["doctor"], "");
    assert!(!status.success());
    assert!(out.contains("Lemon Squeezy: not configured"), "{out}{err}");
    assert!(out.contains("problem: No Lemon Squeezy store is connected.\n  fix: Connect the store"), "{out}");
    assert!(out.contains("Google: connected"), "{out}{err}");

    // A refused key: nothing kept.
    let (status, _, err) = cli(&["connect", "lemonsqueezy", "--store", "1"], "wrong-key\n");
    assert!(!status.success());
    assert!(err.contains("Lemon Squeezy refused this key"), "{err}");
    let key = provider.api_key().expose().to_string();
    let url = "https://shop.example.com/api/payments/webhooks";
    let (status, out, err) =
        cli(&["connect", "lemonsqueezy", "--store", "1", "--webhook-url", url], &format!("{key}\n"));
    assert!(status.success(), "{out}{err}");
    assert!(out.contains("connected store 1 ("), "{out}");
    let made: Vec<_> = provider.webhooks().into_iter().filter(|w| w.store_id == 1).collect();
    assert_eq!(made.len(), 1);
    assert!(out.contains(&format!("registered webhook {} at {url} for {EVENTS} events", made[0].id)), "{out}");
    assert!(out.contains(&format!("webhook: {} at {url}", made[0].id)), "{out}");

    // The next command: a team keeps what was connected sealed in its database; a desktop's
    // data dir here keeps it in memory secrets, which ended with the command that set them.
    let (status, out, _) = cli(&["doctor"], "");
    if on_postgres() {
        assert!(status.success(), "{out}");
        assert!(out.contains("Lemon Squeezy: connected") && out.contains("No problems."), "{out}");
    } else {
        assert!(!status.success() && out.contains("Lemon Squeezy: not configured"), "{out}");
    }
}
