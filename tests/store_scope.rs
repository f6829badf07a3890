//! A Lemon Squeezy API key sees every store of its account. The real binary, in real mode against
//! a simulator whose key sees two stores (as every real key does), refuses each action on the
//! other store's resources (404, or 400 naming a variant of another store), sends the provider
//! nothing for it, and audits the refusal.

mod common;

use common::*;
use serde_json::{json, Value};
use staffroom::sandbox::lemonsqueezy::{PaymentSimulator, SimulatorOptions};

const PASSWORD: &str = "correct horse battery staple 42";
/// The account's other store in the simulator.
const OTHER_STORE: &str = "2";

struct Live {
    server: Server,
    provider: PaymentSimulator,
    admin: String,
    staff: String,
    _dir: tempfile::TempDir,
}

impl Live {
    /// `staffroom serve` in real mode, connected to store 1 of a simulated account, with Ada
    /// (admin) and Sam (staff) signed in.
    async fn start() -> Live {
        let provider = PaymentSimulator::start(SimulatorOptions::default()).await.unwrap();
        let dir = tempfile::tempdir().unwrap();
        add_user(dir.path(), "ada@example.com", "Ada", "admin", PASSWORD);
        add_user(dir.path(), "sam@example.com", "Sam", "staff", PASSWORD);
        let server = Server::start(ServerOptions {
            sandbox: false,
            data_dir: Some(dir.path().into()),
            env: vec![
                ("STAFFROOM_LEMONSQUEEZY_API_URL".into(), provider.api_url()),
                ("STAFFROOM_LEMONSQUEEZY_API_KEY".into(), provider.api_key().expose().to_string()),
                ("STAFFROOM_LEMONSQUEEZY_STORE_ID".into(), provider.store_id()),
                ("STAFFROOM_WEBHOOK_SECRET".into(), "a real signing secret, not empty".into()),
            ],
            ..Default::default()
        });
        let token = |login: Value| login["token"].as_str().unwrap().to_string();
        let admin = token(login(&server, "ada@example.com", PASSWORD).await);
        let staff = token(login(&server, "sam@example.com", PASSWORD).await);
        Live { server, provider, admin, staff, _dir: dir }
    }

    async fn send(&self, token: &str, method: reqwest::Method, path: &str, body: Option<Value>) -> (u16, Value) {
        let mut request = client().request(method, self.server.url(path)).bearer_auth(token);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.unwrap();
        (response.status().as_u16(), response.json().await.unwrap_or(Value::Null))
    }

    /// The ids of `kind` the provider keeps for `store` (read straight from the simulator).
    async fn provider_ids(&self, kind: &str, store: &str) -> Vec<String> {
        let url = format!("{}/{kind}?filter[store_id]={store}&page[size]=100", self.provider.api_url());
        let list: Value = client()
            .get(url)
            .bearer_auth(self.provider.api_key().expose())
            .header("accept", "application/vnd.api+json")
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        list["data"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap().to_string()).collect()
    }

    /// The audit log's outcomes for `action` on `target`.
    async fn audited(&self, action: &str, target: &str) -> Vec<String> {
        let sql = format!("SELECT outcome FROM audit_log WHERE action = '{action}' AND target = '{target}'");
        column_text(&self.server.data_dir, &sql).await
    }
}

fn refused_as(body: &Value) -> &str {
    body["error"]["code"].as_str().unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_action_reaches_another_store_s_subscription() {
    let live = Live::start().await;
    let theirs = live.provider_ids("subscriptions", OTHER_STORE).await;
    assert!(!theirs.is_empty(), "the simulated account's other store has subscriptions");
    let writes_before = live.provider.writes();
    let post = reqwest::Method::POST;
    for id in &theirs {
        for (action, body) in [
            ("cancel", json!({})),
            ("resume", json!({})),
            ("pause", json!({"mode": "void"})),
            ("unpause", json!({})),
            ("change-plan", json!({"variantId": "5041"})),
        ] {
            let path = format!("/api/payments/subscriptions/{id}/{action}");
            let (status, body) = live.send(&live.staff, post.clone(), &path, Some(body)).await;
            assert_eq!((status, refused_as(&body)), (404, "not_found"), "{action} {id}: {body}");
            assert_eq!(body["error"]["message"], format!("No subscription {id} in this store"));
        }
        // Reading it is refused as well, in the same words.
        let (status, body) =
            live.send(&live.staff, reqwest::Method::GET, &format!("/api/payments/subscriptions/{id}"), None).await;
        assert_eq!((status, refused_as(&body)), (404, "not_found"), "{body}");
        // Each refusal is in the audit log, as a failure.
        let cancels = live.audited("payments.subscription_cancel", id).await;
        assert_eq!(cancels, vec!["failure: not_found".to_string()]);
    }
    assert_eq!(live.provider.writes(), writes_before, "the provider was sent a change to another store's subscription");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_change_to_another_store_s_variant_is_refused_and_a_change_within_the_store_goes_through() {
    let live = Live::start().await;
    let (_, list) =
        live.send(&live.staff, reqwest::Method::GET, "/api/payments/subscriptions?status=active&limit=100", None).await;
    let ours = list["subscriptions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["providerStatus"] == "active" && s["paymentProcessor"] == "stripe")
        .expect("an active subscription paid by card")
        .clone();
    let id = ours["id"].as_str().unwrap();
    let path = format!("/api/payments/subscriptions/{id}/change-plan");
    let writes_before = live.provider.writes();
    // 5041: the other store's membership, monthly.
    let (status, body) = live.send(&live.staff, reqwest::Method::POST, &path, Some(json!({"variantId": "5041"}))).await;
    assert_eq!((status, bad_fields(&body)), (400, vec!["variantId".to_string()]), "{body}");
    assert_eq!(live.provider.writes(), writes_before, "the provider was sent a change to another store's plan");
    assert_eq!(live.audited("payments.subscription_change_plan", id).await, vec!["failure: invalid_request"]);

    // A plan of this store's goes through: the check refuses only what is not ours.
    let product = ours["productId"].as_str().unwrap();
    let (_, product) =
        live.send(&live.staff, reqwest::Method::GET, &format!("/api/payments/products/{product}"), None).await;
    let other_plan = product["product"]["variants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["id"] != ours["variantId"] && v["status"] == "published")
        .expect("another plan of the same product")["id"]
        .clone();
    let (status, body) =
        live.send(&live.staff, reqwest::Method::POST, &path, Some(json!({"variantId": other_plan}))).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["subscription"]["variantId"], other_plan);
    assert_eq!(live.provider.writes().last().unwrap(), &format!("PATCH /v1/subscriptions/{id}"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_store_s_licence_keys_and_discounts_are_neither_shown_nor_changed() {
    let live = Live::start().await;
    let keys = live.provider_ids("license-keys", OTHER_STORE).await;
    let discounts = live.provider_ids("discounts", OTHER_STORE).await;
    assert!(!keys.is_empty() && !discounts.is_empty(), "the other store sells keys and has a discount");
    let writes_before = live.provider.writes();
    for key in &keys {
        let path = format!("/api/payments/license-keys/{key}");
        let (status, body) = live.send(&live.staff, reqwest::Method::GET, &path, None).await;
        assert_eq!((status, refused_as(&body)), (404, "not_found"), "{body}");
        let (status, body) =
            live.send(&live.admin, reqwest::Method::PATCH, &path, Some(json!({"disabled": true}))).await;
        assert_eq!((status, refused_as(&body)), (404, "not_found"), "{body}");
        assert_eq!(live.audited("payments.license_key_update", key).await, vec!["failure: not_found"]);
    }
    for discount in &discounts {
        let path = format!("/api/payments/discounts/{discount}");
        let (status, body) = live.send(&live.admin, reqwest::Method::DELETE, &path, None).await;
        assert_eq!((status, refused_as(&body)), (404, "not_found"), "{body}");
        assert_eq!(live.audited("payments.discount_delete", discount).await, vec!["failure: not_found"]);
    }
    // A discount limited to another store's variant is refused on that field.
    let (status, body) = live
        .send(
            &live.admin,
            reqwest::Method::POST,
            "/api/payments/discounts",
            Some(json!({"name": "Theirs", "code": "THEIRS5", "amount": 5, "amountType": "percent", "variantIds": ["5010"]})),
        )
        .await;
    assert_eq!((status, bad_fields(&body)), (400, vec!["variantIds".to_string()]), "{body}");
    assert_eq!(live.provider.writes(), writes_before, "the provider was sent a change to another store's resource");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fixed_discount_for_the_whole_store_is_checked_against_every_price() {
    let live = Live::start().await;
    let writes_before = live.provider.writes();
    let new =
        |amount: u32| json!({"name": "Big", "code": format!("BIG{amount}"), "amount": amount, "amountType": "fixed"});
    // More than the store's cheapest price (the seeded prices start at $5.00).
    let (status, body) =
        live.send(&live.admin, reqwest::Method::POST, "/api/payments/discounts", Some(new(1_000_000))).await;
    assert_eq!((status, bad_fields(&body)), (400, vec!["amount".to_string()]), "{body}");
    let message = body["error"]["details"]["fields"][0]["message"].as_str().unwrap();
    assert!(message.contains("more than the price of the store's cheapest product"), "{message}");
    assert_eq!(live.provider.writes(), writes_before);
    assert_eq!(live.audited("payments.discount_create", "BIG1000000").await, vec!["failure: invalid_request"]);
    // Within every price it is made.
    let (status, body) = live.send(&live.admin, reqwest::Method::POST, "/api/payments/discounts", Some(new(100))).await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(live.provider.writes().last().unwrap(), "POST /v1/discounts");
}
