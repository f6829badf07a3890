//! The payment area over real HTTP: our router on loopback, our client talking HTTP to the
//! payment simulator on loopback, with the simulator's fault switches.

mod common;

use std::time::Duration;

use common::*;
use serde_json::{json, Value};
use staffroom::sandbox::lemonsqueezy::Faults;

#[tokio::test]
async fn products_page_limit_and_status_arithmetic() {
    let app = SandboxApp::start().await;
    let (status, body) = app.get("/api/payments/products?limit=7").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["meta"]["totalItems"], 30);
    assert_eq!(body["meta"]["totalPages"], 5);
    assert_eq!(body["meta"]["currentPage"], 1);
    assert_eq!(body["meta"]["stale"], false);
    assert!(body["meta"]["syncedAt"].as_str().unwrap().ends_with('Z'));
    assert_eq!(body["products"].as_array().unwrap().len(), 7);
    let (_, last) = app.get("/api/payments/products?limit=7&page=5").await;
    assert_eq!(last["products"].as_array().unwrap().len(), 2);
    let (_, beyond) = app.get("/api/payments/products?limit=7&page=9").await;
    assert_eq!(beyond["products"].as_array().unwrap().len(), 0);
    let (_, drafts) = app.get("/api/payments/products?status=draft&limit=100").await;
    assert_eq!(drafts["meta"]["totalItems"], 5);
    assert!(drafts["products"].as_array().unwrap().iter().all(|p| p["status"] == "draft"));
    let (_, published) = app.get("/api/payments/products?status=published").await;
    assert_eq!(published["meta"]["totalItems"], 25);
    assert_eq!(published["meta"]["totalPages"], 3, "default limit 10");
    let product = &published["products"][0];
    for field in ["id", "name", "slug", "currency", "status", "createdAt", "updatedAt"] {
        assert!(product[field].is_string(), "{field}");
    }
    assert!(product["price"].is_i64());
    assert_eq!(product["currency"], "USD");
}

#[tokio::test]
async fn products_search_matches_part_of_the_name_in_any_case() {
    let app = SandboxApp::start().await;
    let (_, all) = app.get("/api/payments/products?limit=100").await;
    let name = all["products"][3]["name"].as_str().unwrap().to_string();
    let word = name.split_whitespace().last().unwrap().to_lowercase();
    let expected = all["products"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["name"].as_str().unwrap().to_lowercase().contains(&word))
        .count();
    let (status, found) =
        app.get(&format!("/api/payments/products?limit=100&search=%20{}%20", word.to_uppercase())).await;
    assert_eq!(status, 200, "{found}");
    assert_eq!(found["meta"]["totalItems"], expected as u64);
    assert!(found["products"].as_array().unwrap().iter().any(|p| p["name"] == name.as_str()), "{found}");

    // LIKE's wildcards are searched for literally, so they match nothing here.
    for wildcard in ["%25", "_", "%25_%25"] {
        let (status, none) = app.get(&format!("/api/payments/products?search={wildcard}")).await;
        assert_eq!(status, 200);
        assert_eq!(none["meta"]["totalItems"], 0, "{wildcard}");
    }
    // A blank search is no search.
    let (_, blank) = app.get("/api/payments/products?search=%20%20").await;
    assert_eq!(blank["meta"]["totalItems"], 30);
    let (status, body) = app.get(&format!("/api/payments/products?search={}", "a".repeat(101))).await;
    assert_eq!((status, bad_fields(&body)), (400, vec!["search".to_string()]));
}

#[tokio::test]
async fn product_detail_has_variants_and_unknown_ids_are_404() {
    let app = SandboxApp::start().await;
    let (status, body) = app.get("/api/payments/products/12").await;
    assert_eq!(status, 200, "{body}");
    let product = &body["product"];
    assert_eq!(product["id"], "12");
    let variants = product["variants"].as_array().unwrap();
    assert!(variants.len() >= 2);
    assert_eq!(variants[0]["status"], "published");
    assert!(variants.iter().all(|v| v["id"].is_string() && v["price"].is_i64()));
    let (status, body) = app.get("/api/payments/products/999").await;
    assert_eq!(status, 404);
    assert_eq!(body["error"]["code"], "not_found");
    let (status, body) = app.get("/api/payments/products/not%20an%20id").await;
    assert_eq!(status, 400);
    assert_eq!(bad_fields(&body), ["id"]);
}

#[tokio::test]
async fn list_validation_names_every_bad_field() {
    let app = SandboxApp::start().await;
    for (query, fields) in [
        ("limit=0", vec!["limit"]),
        ("limit=101", vec!["limit"]),
        ("limit=abc", vec!["limit"]),
        ("page=0", vec!["page"]),
        ("page=-3&limit=1.5", vec!["page", "limit"]),
        ("status=trialing", vec!["status"]),
    ] {
        for path in ["products", "subscriptions"] {
            let (status, body) = app.get(&format!("/api/payments/{path}?{query}")).await;
            let expected: Vec<&str> = fields.clone();
            assert_eq!(status, 400, "{path}?{query}: {body}");
            assert_eq!(body["error"]["code"], "invalid_request");
            assert_eq!(bad_fields(&body), expected, "{path}?{query}");
        }
    }
    let (status, body) = app.get("/api/payments/subscriptions?customerId=a%20b").await;
    assert_eq!((status, bad_fields(&body)), (400, vec!["customerId".to_string()]));
    let response = client().get(format!("{}/api/payments/products", app.base)).send().await.unwrap();
    assert_eq!(response.status(), 401, "every route needs a staff token");
}

#[tokio::test]
async fn subscriptions_filters_and_status_mapping() {
    let app = SandboxApp::start().await;
    let (status, all) = app.get("/api/payments/subscriptions?limit=100").await;
    assert_eq!(status, 200, "{all}");
    assert_eq!(all["meta"]["totalItems"], 245);
    assert_eq!(all["meta"]["totalPages"], 3);
    let mut seen = std::collections::BTreeMap::new();
    for page in 1..=3 {
        let (_, body) = app.get(&format!("/api/payments/subscriptions?limit=100&page={page}")).await;
        for s in body["subscriptions"].as_array().unwrap() {
            let provider = s["providerStatus"].as_str().unwrap().to_string();
            let expected = match provider.as_str() {
                "cancelled" => "cancelled",
                "expired" => "expired",
                _ => "active",
            };
            assert_eq!(s["status"], expected, "{provider}");
            *seen.entry(provider).or_insert(0) += 1;
        }
    }
    assert_eq!(seen.len(), 7, "every provider status is present: {seen:?}");
    for (status, count) in [("active", 175), ("cancelled", 35), ("expired", 35)] {
        let (_, body) = app.get(&format!("/api/payments/subscriptions?status={status}")).await;
        assert_eq!(body["meta"]["totalItems"], count, "{status}");
    }
    let customer = all["subscriptions"][0]["customerId"].as_str().unwrap().to_string();
    let (_, mine) = app.get(&format!("/api/payments/subscriptions?customerId={customer}&limit=100")).await;
    let mine = mine["subscriptions"].as_array().unwrap();
    assert!(!mine.is_empty());
    assert!(mine.iter().all(|s| s["customerId"] == customer.as_str()), "the customer filter is exact");
    let prefix = &customer[..customer.len() - 1];
    let (_, none) = app.get(&format!("/api/payments/subscriptions?customerId={prefix}")).await;
    assert!(none["subscriptions"].as_array().unwrap().iter().all(|s| s["customerId"] == prefix));
    let (_, both) =
        app.get(&format!("/api/payments/subscriptions?customerId={customer}&status=cancelled&limit=100")).await;
    assert!(both["subscriptions"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s["customerId"] == customer.as_str() && s["status"] == "cancelled"));
}

#[tokio::test]
async fn orders_are_created_through_checkouts_and_validated() {
    let app = SandboxApp::start().await;
    let (status, body) = app
        .post(
            "/api/payments/orders",
            json!({"productId": "15", "email": "ada@example.com", "name": "Ada", "billingAddress": {"country": "GB", "zip": "NW1"},
                   "metadata": {"ticket": "T-9"}}),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    let order = &body["order"];
    assert_eq!(order["status"], "pending");
    assert_eq!(order["orderId"], "SR-000001");
    assert_eq!(order["variantId"], "151", "the first published variant by default");
    assert!(order["total"].is_i64() && order["currency"] == "USD");
    assert!(order["checkoutUrl"].as_str().unwrap().contains("/checkout/custom/"));
    let id = order["id"].as_str().unwrap();
    let (status, detail) = app.get(&format!("/api/payments/orders/{id}")).await;
    assert_eq!(status, 200);
    assert_eq!(detail["order"]["email"], "ada@example.com");
    assert_eq!(detail["order"]["events"], json!([]));
    let (_, second) = app
        .post("/api/payments/orders", json!({"productId": "15", "variantId": "152", "email": "bo@example.com"}))
        .await;
    assert_eq!(second["order"]["orderId"], "SR-000002");
    // The list holds the whole store (synced in the background); ours are the newest.
    let (_, list) = app.get("/api/payments/orders").await;
    assert!(list["meta"]["totalItems"].as_u64().unwrap() >= 2, "{list}");
    assert_eq!(list["orders"][0]["orderId"], "SR-000002", "newest first");
    assert_eq!(
        (list["orders"][0]["source"].as_str(), list["orders"][1]["orderId"].as_str()),
        (Some("staffroom"), Some("SR-000001"))
    );
    let (_, found) = app.get("/api/payments/orders?search=sr-000001").await;
    assert_eq!((found["meta"]["totalItems"].as_u64(), found["orders"][0]["id"].as_str()), (Some(1), Some(id)));

    let too_much: serde_json::Map<String, Value> = (0..51).map(|i| (format!("k{i}"), json!(i))).collect();
    for (body, fields) in [
        (json!({}), vec!["productId", "email"]),
        (json!({"productId": "15"}), vec!["email"]),
        (json!({"productId": "15", "email": "not-an-email"}), vec!["email"]),
        (
            json!({"productId": "15", "email": "a@example.com", "billingAddress": {"country": "UK"}}),
            vec!["billingAddress.country"],
        ),
        (json!({"productId": "15", "email": "a@example.com", "metadata": too_much}), vec!["metadata"]),
        (json!({"productId": "6", "email": "a@example.com"}), vec!["productId"]),
        (json!({"productId": "15", "variantId": "11", "email": "a@example.com"}), vec!["variantId"]),
        (json!({"productId": "16", "variantId": "163", "email": "a@example.com"}), vec!["variantId"]),
    ] {
        let (status, answer) = app.post("/api/payments/orders", body.clone()).await;
        assert_eq!(status, 400, "{body}: {answer}");
        assert_eq!(bad_fields(&answer), fields, "{body}");
    }
    let (status, answer) =
        app.post("/api/payments/orders", json!({"productId": "999", "email": "a@example.com"})).await;
    assert_eq!((status, answer["error"]["code"].as_str()), (404, Some("not_found")));
    let (status, _) = app.get("/api/payments/orders/00000000-0000-0000-0000-000000000000").await;
    assert_eq!(status, 404);
    let (_, list) = app.get("/api/payments/orders").await;
    assert_eq!(list["orders"][0]["orderId"], "SR-000002", "refused orders leave nothing behind");
    let (_, refused) = app.get("/api/payments/orders?search=a@example.com&limit=100").await;
    let emails: Vec<&str> = refused["orders"].as_array().unwrap().iter().filter_map(|o| o["email"].as_str()).collect();
    assert_eq!(emails, ["ada@example.com"], "{refused}");
}

#[tokio::test]
async fn provider_failures_map_to_our_codes() {
    let app = SandboxApp::start().await;
    app.simulator().set_faults(Faults { reject_key: true, ..Default::default() });
    let (status, body) = app.get("/api/payments/products/12").await;
    assert_eq!(status, 401, "{body}");
    assert_eq!(body["error"]["details"]["provider"], "lemonsqueezy");

    // Reads would fall back to the cache; creating an order needs the provider itself.
    let order = json!({"productId": "15", "email": "a@example.com"});
    app.simulator().set_faults(Faults { error_rate: 1.0, ..Default::default() });
    let (status, body) = app.post("/api/payments/orders", order.clone()).await;
    assert_eq!(status, 502, "{body}");
    assert_eq!(body["error"]["code"], "integration_error");
    assert_eq!(body["error"]["details"]["status"], 500);

    app.simulator().set_faults(Faults { timeout: true, ..Default::default() });
    let (status, body) = app.post("/api/payments/orders", order).await;
    assert_eq!(status, 504, "{body}");
    assert_eq!(body["error"]["code"], "integration_error");

    app.simulator().set_faults(Faults { burst_429: 3, ..Default::default() });
    let before = app.simulator().request_count();
    let (status, body) = app.get("/api/payments/products/14").await;
    assert_eq!(status, 200, "a burst of 429s is absorbed by retries: {body}");
    assert!(app.simulator().request_count() - before >= 4);
}

#[tokio::test]
async fn with_the_provider_down_reads_come_from_the_cache_marked_stale() {
    let app = SandboxApp::start().await;
    let (_, fresh) = app.get("/api/payments/subscriptions?limit=5").await;
    assert_eq!(fresh["meta"]["stale"], false);
    let (_, product) = app.get("/api/payments/products/12").await;
    app.simulator().set_faults(Faults { error_rate: 1.0, ..Default::default() });
    let (status, _) = app.post("/api/payments/sync", json!({})).await;
    assert_eq!(status, 502, "the on-demand sync reports the failure");
    let (status, stale) = app.get("/api/payments/subscriptions?limit=5").await;
    assert_eq!(status, 200);
    assert_eq!(stale["meta"]["stale"], true);
    assert_eq!(stale["subscriptions"], fresh["subscriptions"], "the last cached answer");
    let (status, cached) = app.get("/api/payments/products/12").await;
    assert_eq!(status, 200, "product detail falls back to the cache");
    assert_eq!(cached["product"]["name"], product["product"]["name"]);
    let (_, products) = app.get("/api/payments/products").await;
    assert_eq!(products["meta"]["stale"], true);
    app.simulator().set_faults(Faults::default());
    let (status, report) = app.post("/api/payments/sync", json!({})).await;
    assert_eq!(status, 200, "{report}");
    assert_eq!(report["subscriptions"], 245);
    let (_, again) = app.get("/api/payments/subscriptions?limit=5").await;
    assert_eq!(again["meta"]["stale"], false);
}

async fn first_with(app: &SandboxApp, provider_status: &str) -> String {
    for page in 1..=3 {
        let (_, body) = app.get(&format!("/api/payments/subscriptions?limit=100&page={page}")).await;
        if let Some(s) =
            body["subscriptions"].as_array().unwrap().iter().find(|s| s["providerStatus"] == provider_status)
        {
            return s["id"].as_str().unwrap().to_string();
        }
    }
    panic!("no {provider_status} subscription");
}

#[tokio::test]
async fn subscription_actions_change_the_providers_state() {
    let app = SandboxApp::start().await;
    let id = first_with(&app, "active").await;
    let numeric: u64 = id.parse().unwrap();
    let action = |name: &str, body: Value| {
        let path = format!("/api/payments/subscriptions/{id}/{name}");
        let app = &app;
        async move { app.post(&path, body).await }
    };

    let (status, body) = action("cancel", json!({})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        (body["subscription"]["status"].as_str(), body["subscription"]["providerStatus"].as_str()),
        (Some("cancelled"), Some("cancelled"))
    );
    assert!(body["subscription"]["endsAt"].is_string());
    assert_eq!(app.simulator().subscription_status(numeric).as_deref(), Some("cancelled"));

    let (status, body) = action("resume", json!({})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["subscription"]["status"], "active");
    assert_eq!(app.simulator().subscription_status(numeric).as_deref(), Some("active"));

    let (status, body) = action("pause", json!({"mode": "free", "resumesAt": "2099-01-01T00:00:00Z"})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["subscription"]["providerStatus"], "paused");
    assert_eq!(body["subscription"]["status"], "active", "paused maps to active");
    assert_eq!(body["subscription"]["pauseMode"], "free");
    assert_eq!(app.simulator().subscription_status(numeric).as_deref(), Some("paused"));

    let (status, body) = action("unpause", json!({})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["subscription"]["providerStatus"], "active");

    let current = body["subscription"]["variantId"].as_str().unwrap().to_string();
    let other = if current.ends_with('1') {
        format!("{}2", &current[..current.len() - 1])
    } else {
        format!("{}1", &current[..current.len() - 1])
    };
    let (status, body) = action("change-plan", json!({"variantId": other})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["subscription"]["variantId"], other.as_str());

    for (name, body, field) in [
        ("pause", json!({"mode": "later"}), "mode"),
        ("pause", json!({"resumesAt": "2001-01-01T00:00:00Z"}), "resumesAt"),
        ("change-plan", json!({}), "variantId"),
        ("change-plan", json!({"variantId": "x1"}), "variantId"),
    ] {
        let (status, answer) = action(name, body).await;
        assert_eq!((status, bad_fields(&answer)), (400, vec![field.to_string()]), "{name}");
    }
    // An action there is not is a bad path (SPEC section 2), named as such.
    let (status, answer) = action("explode", json!({})).await;
    assert_eq!((status, bad_fields(&answer)), (400, vec!["action".to_string()]));
    let expired = first_with(&app, "expired").await;
    let (status, answer) = app.post(&format!("/api/payments/subscriptions/{expired}/resume"), json!({})).await;
    // The subscription's state forbids it: conflict (SPEC section 2), not a bad request.
    assert_eq!(
        (status, answer["error"]["code"].as_str()),
        (409, Some("conflict")),
        "an expired subscription cannot be resumed: {answer}"
    );
    let (status, _) = app.post("/api/payments/subscriptions/999999/cancel", json!({})).await;
    assert_eq!(status, 404);

    let audit = app.core.audit.list(50, None).await.unwrap();
    for action in [
        "payments.subscription_cancel",
        "payments.subscription_resume",
        "payments.subscription_pause",
        "payments.subscription_unpause",
        "payments.subscription_change_plan",
    ] {
        assert!(audit.iter().any(|e| e.action == action && e.outcome == "success"), "{action} audited");
    }
}

#[tokio::test]
async fn the_sandbox_checkout_loop_turns_an_order_paid() {
    let app = SandboxApp::start().await;
    let (_, created) =
        app.post("/api/payments/orders", json!({"productId": "3", "email": "kim@example.com", "name": "Kim"})).await;
    let order = &created["order"];
    let id = order["id"].as_str().unwrap();
    let checkout = order["checkoutUrl"].as_str().unwrap();
    let page = client().get(checkout).send().await.unwrap().text().await.unwrap();
    assert!(page.contains("id=\"pay\"") && page.contains("id=\"decline\""));
    let paid = client().post(checkout_action(&checkout, "pay")).send().await.unwrap().text().await.unwrap();
    assert!(paid.contains("Payment complete"));
    let detail = app.eventually(&format!("/api/payments/orders/{id}"), |d| d["order"]["status"] == "paid").await;
    assert_eq!(detail["order"]["status"], "paid", "{detail}");
    assert!(detail["order"]["paidAt"].is_string());
    assert_eq!(detail["order"]["events"][0]["eventName"], "order_created");
    assert_eq!(detail["order"]["events"][0]["outcome"], "applied");

    // A subscription product also sends subscription_created, which lands in the cache.
    let (_, created) = app.post("/api/payments/orders", json!({"productId": "2", "email": "lee@example.com"})).await;
    let checkout = created["order"]["checkoutUrl"].as_str().unwrap().to_string();
    client().post(checkout_action(&checkout, "pay")).send().await.unwrap();
    let lees = |subs: &Value| {
        subs["subscriptions"].as_array().unwrap().iter().any(|s| s["customerEmail"] == "lee@example.com")
    };
    let found = lees(&app.eventually("/api/payments/subscriptions?limit=100", lees).await);
    assert!(found, "subscription_created was applied");

    // Decline turns a pending order failed.
    let (_, created) = app.post("/api/payments/orders", json!({"productId": "3", "email": "no@example.com"})).await;
    let id = created["order"]["id"].as_str().unwrap().to_string();
    let checkout = created["order"]["checkoutUrl"].as_str().unwrap().to_string();
    client().post(checkout_action(&checkout, "decline")).send().await.unwrap();
    let detail = app.eventually(&format!("/api/payments/orders/{id}"), |d| d["order"]["status"] == "failed").await;
    assert_eq!(detail["order"]["status"], "failed", "{detail}");
}

#[tokio::test]
async fn a_sync_catches_up_an_order_whose_webhook_was_missed() {
    let app = SandboxApp::start().await;
    // The sync the start began is over (it would catch the order up too, unasked).
    app.core.payments.sync_all().await.unwrap();
    // The receiver is "down": the provider's deliveries go nowhere.
    app.simulator().set_faults(Faults { lost_deliveries: true, ..Default::default() });
    let (_, created) = app.post("/api/payments/orders", json!({"productId": "3", "email": "missed@example.com"})).await;
    let id = created["order"]["id"].as_str().unwrap().to_string();
    let checkout = created["order"]["checkoutUrl"].as_str().unwrap().to_string();
    client().post(checkout_action(&checkout, "pay")).send().await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let early = app.get(&format!("/api/payments/orders/{id}")).await.1;
    assert_eq!(early["order"]["status"], "pending", "{early}");
    let (status, report) = app.post("/api/payments/sync", json!({})).await;
    assert_eq!(status, 200, "{report}");
    assert_eq!(report["ordersReconciled"], 1);
    let (_, detail) = app.get(&format!("/api/payments/orders/{id}")).await;
    assert_eq!(detail["order"]["status"], "paid");
    assert!(detail["order"]["providerOrderId"].is_string());
    let (_, again) = app.post("/api/payments/sync", json!({})).await;
    assert_eq!(again["ordersReconciled"], 0, "nothing left to catch up");
}

/// The whole store (SPEC section 11): a sync brings every order of the store, made anywhere, with
/// its receipt number, items, amounts and receipt; a second sync reads only what changed; the
/// list searches and filters them, and names each bad parameter.
#[tokio::test]
async fn the_whole_stores_orders_are_synced_searched_and_filtered() {
    let app = SandboxApp::with_history().await;
    let (status, report) = app.post("/api/payments/sync", json!({})).await;
    assert_eq!(status, 200, "{report}");
    let (_, all) = app.get("/api/payments/orders?limit=100").await;
    let total = all["meta"]["totalItems"].as_u64().unwrap();
    assert!(total >= 1_500, "the sandbox's history: {total}");
    let orders = all["orders"].as_array().unwrap();
    let created: Vec<&str> = orders.iter().map(|o| o["createdAt"].as_str().unwrap()).collect();
    assert!(created.windows(2).all(|w| w[0] >= w[1]), "newest first");
    let first = &orders[0];
    assert_eq!(first["source"], "store");
    assert!(first["orderNumber"].is_i64() && first["orderId"] == format!("#{}", first["orderNumber"]), "{first}");
    assert!(first["receiptUrl"].as_str().unwrap().contains("/my-orders/"));
    assert_eq!(first["items"].as_array().unwrap().len(), 1);
    let (subtotal, discount, tax, sum) =
        (first["subtotal"].as_i64(), first["discountTotal"].as_i64(), first["tax"].as_i64(), first["total"].as_i64());
    assert_eq!(sum, Some(subtotal.unwrap() - discount.unwrap() + tax.unwrap()));
    assert!(orders.iter().all(|o| o["email"].as_str().is_some_and(|e| e.contains('@'))));

    // A second sync stops at the first page with nothing new: the sandbox's newest orders are
    // a minute old, within the slack left for the provider's clock, so one page more.
    let before = app.simulator().request_count();
    let (_, again) = app.post("/api/payments/sync", json!({})).await;
    assert!(again["ordersRead"].as_u64().unwrap() <= 200, "a page or two of orders: {again}");
    // Products and variants, three pages of subscriptions, a page or two of orders, customers,
    // invoices and discount redemptions, both ends of the licence keys, and the discounts.
    assert!(app.simulator().request_count() - before <= 15, "a handful of requests: {again}");
    let (_, same) = app.get("/api/payments/orders?limit=1").await;
    assert_eq!(same["meta"]["totalItems"], total, "nothing read twice");

    // Search: by e-mail, by the receipt's number.
    let email = first["email"].as_str().unwrap();
    let (_, theirs) = app.get(&format!("/api/payments/orders?search={}&limit=100", email.to_uppercase())).await;
    let theirs = theirs["orders"].as_array().unwrap();
    assert!(!theirs.is_empty() && theirs.iter().all(|o| o["email"] == email));
    let (_, by_number) = app.get(&format!("/api/payments/orders?search=%23{}", first["orderNumber"])).await;
    assert_eq!(by_number["orders"][0]["id"], first["id"]);

    // Filters: the provider's own status, ours, a customer, a product, days.
    let (_, refunded) = app.get("/api/payments/orders?status=refunded&limit=100").await;
    let refunded = refunded["orders"].as_array().unwrap();
    assert!(!refunded.is_empty());
    assert!(refunded.iter().all(|o| o["providerStatus"] == "refunded" && o["status"] == "paid"), "refunds were paid");
    let (_, failed) = app.get("/api/payments/orders?status=failed&limit=100").await;
    let providers: std::collections::BTreeSet<&str> =
        failed["orders"].as_array().unwrap().iter().filter_map(|o| o["providerStatus"].as_str()).collect();
    assert!(providers.iter().all(|p| ["failed", "fraudulent"].contains(p)) && !providers.is_empty());
    let customer = first["customerId"].as_str().unwrap();
    let (_, by_customer) = app.get(&format!("/api/payments/orders?customerId={customer}&limit=100")).await;
    assert!(by_customer["orders"].as_array().unwrap().iter().all(|o| o["customerId"] == customer));
    let product = first["productId"].as_str().unwrap();
    let (_, by_product) = app.get(&format!("/api/payments/orders?productId={product}&limit=100")).await;
    assert!(by_product["orders"].as_array().unwrap().iter().all(|o| o["productId"] == product));
    let day = &first["createdAt"].as_str().unwrap()[..10];
    let (_, that_day) = app.get(&format!("/api/payments/orders?from={day}&limit=100")).await;
    let that_day = that_day["orders"].as_array().unwrap();
    assert!(!that_day.is_empty() && that_day.iter().all(|o| o["createdAt"].as_str().unwrap() >= day));
    let (_, before_day) = app.get(&format!("/api/payments/orders?to={day}&limit=100")).await;
    assert!(before_day["orders"].as_array().unwrap().iter().all(|o| o["createdAt"].as_str().unwrap() < day));

    // Every bad parameter is named at once.
    let (status, bad) =
        app.get("/api/payments/orders?status=shipped&from=yesterday&to=2026-13-01&customerId=a%20b").await;
    assert_eq!(status, 400, "{bad}");
    assert_eq!(bad_fields(&bad), ["status", "customerId", "from", "to"]);
}

/// The Overview's money (SPEC section 11): the summary's figures are those of the cached orders
/// they come from (the days add up to the totals, refunds subtract, a euro order counts at its
/// own rate), a refund lowers the net at once, and a bad range names its field.
#[tokio::test]
async fn the_summary_adds_up_from_the_cached_orders() {
    let app = SandboxApp::with_history().await;
    let (status, report) = app.post("/api/payments/sync", json!({})).await;
    assert_eq!(status, 200, "{report}");
    // The whole history: 180 days before the sandbox started.
    let from = (chrono::Utc::now() - chrono::Duration::days(200)).format("%Y-%m-%d");
    let (status, body) = app.get(&format!("/api/payments/summary?from={from}")).await;
    assert_eq!(status, 200, "{body}");
    let summary = &body["summary"];
    let number = |v: &Value| v.as_i64().unwrap();
    let daily = summary["daily"].as_array().unwrap();
    assert_eq!(daily.iter().map(|d| number(&d["orders"])).sum::<i64>(), number(&summary["orders"]));
    assert_eq!(daily.iter().map(|d| number(&d["netRevenue"])).sum::<i64>(), number(&summary["netRevenue"]));
    assert_eq!(number(&summary["netRevenue"]), number(&summary["grossRevenue"]) - number(&summary["refunds"]));
    assert!(number(&summary["refunds"]) > 0 && summary["currency"] == "USD" && summary["stale"] == false);

    // The same figures from the orders themselves, page by page.
    let (mut orders, mut dollars, mut euros, mut dollar_refunds, mut page) = (0, 0, 0, 0, 1);
    loop {
        let (_, list) = app.get(&format!("/api/payments/orders?status=paid&limit=100&page={page}")).await;
        for o in list["orders"].as_array().unwrap() {
            orders += 1;
            match o["currency"].as_str() {
                Some("USD") => {
                    (dollars, dollar_refunds) =
                        (dollars + number(&o["total"]), dollar_refunds + number(&o["refundedAmount"]))
                }
                Some("EUR") => euros += number(&o["total"]),
                other => panic!("a currency the sandbox does not charge in: {other:?}"),
            }
        }
        if page >= number(&list["meta"]["totalPages"]) {
            break;
        }
        page += 1;
    }
    assert_eq!(orders, number(&summary["orders"]), "every paid order, no other");
    // Each euro order counts at its own rate, 1.05 to 1.11 dollars a euro in the sandbox.
    let from_euros = number(&summary["grossRevenue"]) - dollars;
    assert!(
        euros > 0 && from_euros >= euros * 105 / 100 - 100 && from_euros <= euros * 111 / 100 + 100,
        "{from_euros} from {euros}"
    );
    assert!(number(&summary["refunds"]) >= dollar_refunds);

    // The subscriptions: the seed's 245 across all seven statuses; MRR from the plans' prices.
    assert_eq!(number(&summary["activeSubscriptions"]), 175, "five live statuses of seven");
    assert!(number(&summary["pastDueSubscriptions"]) > 0 && number(&summary["mrr"]) > 0);

    // A refund lowers the net at once, by what was refunded.
    let (_, paid) = app.get("/api/payments/orders?status=paid&limit=100").await;
    let whole =
        paid["orders"].as_array().unwrap().iter().find(|o| o["currency"] == "USD" && o["refundedAmount"] == 0).unwrap();
    let path = format!("/api/payments/orders/{}/refund", whole["id"].as_str().unwrap());
    let (status, refunded) = app.post(&path, json!({"amount": 500})).await;
    assert_eq!(status, 200, "{refunded}");
    let (_, after) = app.get(&format!("/api/payments/summary?from={from}")).await;
    assert_eq!(number(&after["summary"]["netRevenue"]), number(&summary["netRevenue"]) - 500);

    // A bad range names its field.
    let (status, bad) = app.get("/api/payments/summary?from=2026-02-01&to=2026-01-01").await;
    assert_eq!((status, bad_fields(&bad)), (400, vec!["from".to_string()]));
    let (status, bad) = app.get("/api/payments/summary?from=yesterday").await;
    assert_eq!((status, bad_fields(&bad)), (400, vec!["from".to_string()]));
}

#[tokio::test]
async fn customers_are_synced_searched_and_shown_with_what_they_bought() {
    let app = SandboxApp::start().await;
    let (status, report) = app.post("/api/payments/sync", json!({})).await;
    assert_eq!(status, 200, "{report}");
    let (status, all) = app.get("/api/payments/customers?limit=100").await;
    assert_eq!(status, 200, "{all}");
    assert!(all["meta"]["totalItems"].as_u64().unwrap() >= 400, "every customer: {}", all["meta"]);
    let customers = all["customers"].as_array().unwrap();
    let created: Vec<&str> = customers.iter().map(|c| c["createdAt"].as_str().unwrap()).collect();
    assert!(created.windows(2).all(|w| w[0] >= w[1]), "newest first");
    assert!(customers.iter().all(|c| c["currency"] == "USD" && c["portalUrl"].is_null()), "links are never kept");

    // Search: part of the e-mail in another case; part of the name.
    let buyer = customers.iter().find(|c| c["totalRevenue"].as_i64() > Some(0)).expect("a customer who paid");
    let email = buyer["email"].as_str().unwrap();
    let (_, found) = app.get(&format!("/api/payments/customers?search={}", email.to_uppercase())).await;
    assert_eq!(found["customers"][0]["id"], buyer["id"], "{found}");
    assert_eq!(found["meta"]["totalItems"], 1);
    let last_name = buyer["name"].as_str().unwrap().rsplit(' ').next().unwrap().to_lowercase();
    let (_, by_name) = app.get(&format!("/api/payments/customers?search={last_name}&limit=100")).await;
    let by_name = by_name["customers"].as_array().unwrap();
    assert!(by_name.iter().any(|c| c["id"] == buyer["id"]));
    assert!(by_name.iter().all(|c| c["name"].as_str().unwrap().to_lowercase().contains(&last_name)
        || c["email"].as_str().unwrap().contains(&last_name)));
    let (_, unsubscribed) = app.get("/api/payments/customers?status=unsubscribed&limit=100").await;
    let unsubscribed = unsubscribed["customers"].as_array().unwrap();
    assert!(!unsubscribed.is_empty() && unsubscribed.iter().all(|c| c["status"] == "unsubscribed"));

    // A customer's page: the provider's figures now, the portal link, and what they bought.
    let id = buyer["id"].as_str().unwrap();
    let (status, page) = app.get(&format!("/api/payments/customers/{id}")).await;
    assert_eq!(status, 200, "{page}");
    let customer = &page["customer"];
    assert_eq!((customer["stale"].as_bool(), customer["email"].as_str()), (Some(false), Some(email)));
    assert!(customer["portalUrl"].as_str().unwrap().contains("/billing"), "{customer}");
    let orders = customer["orders"].as_array().unwrap();
    assert!(!orders.is_empty() && orders.iter().all(|o| o["customerId"] == id));
    assert_eq!(customer["orderCount"].as_u64(), Some(orders.len() as u64));
    assert!(customer["subscriptions"].as_array().unwrap().iter().all(|s| s["customerId"] == id));
    // The provider's revenue is what their paid orders brought in, less refunds, in dollars: the
    // same sum from our cache, for a customer who paid in dollars only.
    let mut checked = 0;
    for c in customers.iter().filter(|c| c["totalRevenue"].as_i64() > Some(0)).take(40) {
        let (_, page) = app.get(&format!("/api/payments/customers/{}", c["id"].as_str().unwrap())).await;
        let page = &page["customer"];
        let orders = page["orders"].as_array().unwrap();
        if page["orderCount"].as_u64() != Some(orders.len() as u64) || orders.iter().any(|o| o["currency"] != "USD") {
            continue;
        }
        let paid = orders.iter().filter(|o| o["status"] == "paid");
        let net: i64 = paid.map(|o| o["total"].as_i64().unwrap() - o["refundedAmount"].as_i64().unwrap()).sum();
        assert_eq!(page["totalRevenue"].as_i64(), Some(net), "{page}");
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} customers paid in dollars alone");

    // Refusals name the field; an unknown customer is 404.
    let (status, bad) = app.get("/api/payments/customers?status=happy&limit=101").await;
    assert_eq!(status, 400, "{bad}");
    let named: Vec<&str> =
        bad["error"]["details"]["fields"].as_array().unwrap().iter().map(|f| f["field"].as_str().unwrap()).collect();
    assert_eq!(named, ["limit", "status"]);
    let (status, _) = app.get("/api/payments/customers/999999").await;
    assert_eq!(status, 404);
    let (status, bad) = app.get("/api/payments/customers/not%20an%20id").await;
    assert_eq!((status, bad["error"]["details"]["fields"][0]["field"].as_str()), (400, Some("id")), "{bad}");

    // A sync with nothing new reads the newest page of customers, not all of them.
    let before = app.simulator().request_count();
    let (_, again) = app.post("/api/payments/sync", json!({})).await;
    assert_eq!(again["customersRead"], 100, "{again}");
    // Products and variants, three pages of subscriptions, a page or two of orders, customers,
    // invoices and discount redemptions, both ends of the licence keys, and the discounts.
    assert!(app.simulator().request_count() - before <= 15, "a handful of requests: {again}");

    // With the provider down, the page is the cached customer, marked stale, without a link.
    app.simulator().set_faults(Faults { error_rate: 1.0, ..Default::default() });
    let (status, cached) = app.get(&format!("/api/payments/customers/{id}")).await;
    assert_eq!(status, 200, "{cached}");
    assert_eq!((cached["customer"]["stale"].as_bool(), cached["customer"]["portalUrl"].is_null()), (Some(true), true));
    assert_eq!(cached["customer"]["totalRevenue"], customer["totalRevenue"]);
}

#[tokio::test]
async fn subscriptions_show_price_payment_and_the_providers_statuses() {
    let app = SandboxApp::start().await;
    let (_, all) = app.get("/api/payments/subscriptions?limit=100").await;
    let subs = all["subscriptions"].as_array().unwrap();
    assert!(
        subs.iter().all(|s| s["price"].as_i64().is_some_and(|p| p > 0) && s["interval"].is_string()),
        "{}",
        subs[0]
    );
    assert!(subs.iter().all(|s| s["updatePaymentMethodUrl"].is_null()), "links are never kept");
    let paypal = subs.iter().find(|s| s["paymentProcessor"] == "paypal").expect("a PayPal subscription");
    assert!(paypal["cardBrand"].is_null() && paypal["cardLastFour"].is_null());
    let card = subs.iter().find(|s| s["paymentProcessor"] == "stripe").expect("a card");
    assert_eq!((card["cardBrand"].as_str(), card["cardLastFour"].as_str()), (Some("visa"), Some("4242")));

    // Each provider status filters on its own; `active` is every live one.
    let mut live = 0;
    for status in ["on_trial", "active", "paused", "past_due", "unpaid", "cancelled", "expired"] {
        let (code, body) = app.get(&format!("/api/payments/subscriptions?status={status}&limit=100")).await;
        assert_eq!(code, 200, "{body}");
        let listed = body["subscriptions"].as_array().unwrap();
        assert!(!listed.is_empty(), "{status}");
        if status == "active" {
            assert!(listed.iter().all(|s| s["status"] == "active"));
        } else {
            assert!(listed.iter().all(|s| s["providerStatus"] == status), "{status}");
        }
        if ["on_trial", "paused", "past_due", "unpaid"].contains(&status) {
            live += body["meta"]["totalItems"].as_u64().unwrap();
        }
    }
    let (_, active) = app.get("/api/payments/subscriptions?status=active&limit=1").await;
    assert!(active["meta"]["totalItems"].as_u64().unwrap() > live, "the live ones and the provider's active ones");

    // Search by name or e-mail, any case; by product; together.
    let email = subs[0]["customerEmail"].as_str().unwrap();
    let (_, found) = app.get(&format!("/api/payments/subscriptions?search={}&limit=100", email.to_uppercase())).await;
    let found = found["subscriptions"].as_array().unwrap();
    assert!(!found.is_empty() && found.iter().all(|s| s["customerEmail"] == email));
    let product = subs[0]["productId"].as_str().unwrap();
    let (_, of_product) =
        app.get(&format!("/api/payments/subscriptions?productId={product}&status=past_due&limit=100")).await;
    assert!(of_product["subscriptions"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s["productId"] == product && s["providerStatus"] == "past_due"));

    // One subscription, fresh: with the links the customer needs.
    let id = first_with(&app, "past_due").await;
    let (status, one) = app.get(&format!("/api/payments/subscriptions/{id}")).await;
    assert_eq!(status, 200, "{one}");
    assert_eq!(one["stale"], false);
    assert!(one["subscription"]["updatePaymentMethodUrl"].as_str().unwrap().contains("/payment-details"), "{one}");
    assert!(one["subscription"]["portalUrl"].is_string() && one["subscription"]["price"].is_i64());
    let (status, _) = app.get("/api/payments/subscriptions/999999").await;
    assert_eq!(status, 404);
    let (status, bad) = app.get("/api/payments/subscriptions?status=trialing").await;
    assert_eq!((status, bad["error"]["details"]["fields"][0]["field"].as_str()), (400, Some("status")));

    // Offline: the cached subscription, without links.
    app.simulator().set_faults(Faults { error_rate: 1.0, ..Default::default() });
    let (status, cached) = app.get(&format!("/api/payments/subscriptions/{id}")).await;
    assert_eq!((status, cached["stale"].as_bool()), (200, Some(true)), "{cached}");
    assert!(cached["subscription"]["updatePaymentMethodUrl"].is_null());
}

#[tokio::test]
async fn licence_keys_are_synced_searched_and_shown_whole_only_on_request() {
    let app = SandboxApp::start().await;
    let (status, report) = app.post("/api/payments/sync", json!({})).await;
    assert_eq!(status, 200, "{report}");
    let (status, all) = app.get("/api/payments/license-keys?limit=100").await;
    assert_eq!(status, 200, "{all}");
    let keys = all["licenseKeys"].as_array().unwrap();
    assert!(keys.len() >= 5 && all["meta"]["totalItems"].as_u64() == Some(keys.len() as u64), "{all}");
    let created: Vec<&str> = keys.iter().map(|k| k["createdAt"].as_str().unwrap()).collect();
    assert!(created.windows(2).all(|w| w[0] >= w[1]), "newest first");
    assert!(keys.iter().all(|k| k["keyShort"].as_str().unwrap().starts_with("XXXX-") && k.get("key").is_none()));
    assert!(keys.iter().all(|k| k["productName"].is_string()), "the product's name joined from the cache");
    let statuses: std::collections::BTreeSet<&str> = keys.iter().map(|k| k["status"].as_str().unwrap()).collect();
    assert!(statuses.contains("active") && statuses.contains("disabled"), "{statuses:?}");

    // Search by e-mail (any case), by the short form, and by a whole key; filter by status,
    // customer and our order.
    let key = keys.iter().find(|k| k["status"] == "active").unwrap();
    let id = key["id"].as_str().unwrap();
    let email = key["customerEmail"].as_str().unwrap();
    let ids = |body: &Value| -> Vec<String> {
        body["licenseKeys"].as_array().unwrap().iter().map(|k| k["id"].as_str().unwrap().to_string()).collect()
    };
    let (_, by_email) = app.get(&format!("/api/payments/license-keys?search={}", email.to_uppercase())).await;
    assert!(ids(&by_email).contains(&id.to_string()), "{by_email}");
    let short = key["keyShort"].as_str().unwrap();
    let (_, by_short) = app.get(&format!("/api/payments/license-keys?search={short}")).await;
    assert_eq!(ids(&by_short), [id]);
    let (_, disabled) = app.get("/api/payments/license-keys?status=disabled&limit=100").await;
    assert!(disabled["licenseKeys"].as_array().unwrap().iter().all(|k| k["status"] == "disabled"));
    let customer = key["customerId"].as_str().unwrap();
    let (_, theirs) = app.get(&format!("/api/payments/license-keys?customerId={customer}&limit=100")).await;
    assert!(theirs["licenseKeys"].as_array().unwrap().iter().all(|k| k["customerId"] == customer));
    let order = key["orderId"].as_str().expect("the order is cached");
    let (_, of_order) = app.get(&format!("/api/payments/license-keys?orderId={order}")).await;
    assert_eq!(ids(&of_order), [id]);
    let (_, page) = app.get(&format!("/api/payments/customers/{customer}")).await;
    assert!(page["customer"]["licenseKeys"].as_array().unwrap().iter().any(|k| k["id"] == id), "{page}");

    // The whole key and the machines, on request: read from the provider, and audited.
    let (status, detail) = app.get(&format!("/api/payments/license-keys/{id}")).await;
    assert_eq!(status, 200, "{detail}");
    let whole = detail["licenseKey"]["key"].as_str().unwrap();
    assert!(whole.ends_with(&short[5..]), "{detail}");
    let machines = detail["licenseKey"]["instances"].as_array().unwrap();
    assert_eq!(machines.len() as i64, key["activationUsage"].as_i64().unwrap());
    assert!(machines.iter().all(|m| m["name"].is_string() && m["identifier"].is_string()));
    let (_, by_whole) = app.get(&format!("/api/payments/license-keys?search={whole}")).await;
    assert_eq!(ids(&by_whole), [id], "a whole key pasted in finds its key");
    let entries = app.core.audit.list(50, None).await.unwrap();
    assert!(
        entries.iter().any(|e| e.action == "payments.license_key_reveal" && e.target.as_deref() == Some(id)),
        "{entries:?}"
    );
    let stored = stored_text(app.data_dir()).await;
    assert!(!stored.contains(whole), "the whole key is never kept");

    for bad in ["status=lost", "orderId=a%20b", "limit=0"] {
        let (status, body) = app.get(&format!("/api/payments/license-keys?{bad}")).await;
        assert_eq!(status, 400, "{bad}: {body}");
    }
    let (status, body) = app.get("/api/payments/license-keys/987654").await;
    assert_eq!((status, body["error"]["code"].as_str()), (404, Some("not_found")), "{body}");
}

#[tokio::test]
async fn admins_disable_enable_and_limit_a_licence_key_and_the_provider_tells_of_each() {
    let app = SandboxApp::start().await;
    app.post("/api/payments/sync", json!({})).await;
    let (_, active) = app.get("/api/payments/license-keys?status=active").await;
    let id = active["licenseKeys"][0]["id"].as_str().unwrap().to_string();
    let path = format!("/api/payments/license-keys/{id}");
    let patch = |body: Value| app.send(reqwest::Method::PATCH, &path, Some(body));

    let (status, body) = patch(json!({"disabled": true})).await;
    assert_eq!((status, body["licenseKey"]["status"].as_str()), (200, Some("disabled")), "{body}");
    assert_eq!(body["licenseKey"]["disabled"], true, "{body}");
    assert_eq!(app.simulator().license_key(&id).unwrap().0, "disabled");
    let (status, body) = patch(json!({"disabled": true})).await;
    assert_eq!((status, body["error"]["code"].as_str()), (409, Some("conflict")), "{body}");
    assert!(body["error"]["message"].as_str().unwrap().contains("already disabled"), "{body}");
    let (status, body) = patch(json!({"disabled": false})).await;
    assert_eq!(status, 200, "{body}");
    assert_ne!(body["licenseKey"]["status"], "disabled");
    let (status, _) = patch(json!({"disabled": false})).await;
    assert_eq!(status, 409, "enabling a key that is not disabled");

    let (status, body) = patch(json!({"activationLimit": 7, "expiresAt": "2030-01-01"})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["licenseKey"]["activationLimit"], 7);
    assert_eq!(body["licenseKey"]["expiresAt"], "2030-01-01T00:00:00Z");
    let (status, body) = patch(json!({"unlimitedActivations": true, "neverExpires": true})).await;
    assert_eq!(status, 200, "{body}");
    assert!(body["licenseKey"]["activationLimit"].is_null() && body["licenseKey"]["expiresAt"].is_null(), "{body}");
    assert_eq!(app.simulator().license_key(&id).unwrap().1, None, "unlimited at the provider");

    for (bad, field) in [
        (json!({}), "disabled"),
        (json!({"activationLimit": 0}), "activationLimit"),
        (json!({"activationLimit": 3, "unlimitedActivations": true}), "unlimitedActivations"),
        (json!({"expiresAt": "soon"}), "expiresAt"),
        (json!({"expiresAt": "2030-01-01", "neverExpires": true}), "neverExpires"),
    ] {
        let (status, body) = patch(bad.clone()).await;
        assert_eq!((status, bad_fields(&body)), (400, vec![field.to_string()]), "{bad}: {body}");
    }
    let (status, _) =
        app.send(reqwest::Method::PATCH, "/api/payments/license-keys/987654", Some(json!({"disabled": true}))).await;
    assert_eq!(status, 404);

    // Each change came back as license_key_updated, applied to the cache.
    let log = app
        .eventually("/api/payments/webhooks?limit=50", |b| {
            let events = b["events"].as_array().cloned().unwrap_or_default();
            events.iter().filter(|e| e["eventName"] == "license_key_updated" && e["appliedAt"].is_string()).count() == 4
        })
        .await;
    let updated = log["events"].as_array().unwrap().iter().filter(|e| e["eventName"] == "license_key_updated").count();
    assert_eq!(updated, 4, "{log}");
    let entries = app.core.audit.list(50, None).await.unwrap();
    let audited =
        entries.iter().filter(|e| e.action == "payments.license_key_update" && e.outcome == "success").count();
    assert_eq!(audited, 4, "{entries:?}");

    // Staff read keys, but may not change them.
    let token = app.staff_token().await;
    let change = client().patch(app.base.clone() + &path).bearer_auth(&token).json(&json!({"disabled": true}));
    assert_eq!(change.send().await.unwrap().status(), 403);
    let read = client().get(app.base.clone() + "/api/payments/license-keys").bearer_auth(&token);
    assert_eq!(read.send().await.unwrap().status(), 200);
}

#[tokio::test]
async fn a_paid_order_of_a_product_that_sells_licence_keys_brings_its_key() {
    let app = SandboxApp::start().await;
    let (status, created) =
        app.post("/api/payments/orders", json!({"productId": "13", "email": "buyer@example.com"})).await;
    assert_eq!(status, 201, "{created}");
    let order = created["order"]["id"].as_str().unwrap().to_string();
    let checkout = created["order"]["checkoutUrl"].as_str().unwrap().to_string();
    client().post(checkout_action(&checkout, "pay")).send().await.unwrap();
    let keys = app
        .eventually(&format!("/api/payments/license-keys?orderId={order}"), |b| {
            b["licenseKeys"].as_array().is_some_and(|k| k.len() == 1)
        })
        .await;
    let key = &keys["licenseKeys"][0];
    assert_eq!((key["status"].as_str(), key["activationUsage"].as_i64()), (Some("inactive"), Some(0)), "{keys}");
    assert_eq!(key["customerEmail"], "buyer@example.com");
    assert!(key["expiresAt"].is_string(), "a three-month licence: {key}");
    // The license_key_created delivery carried the whole key; nothing kept it.
    let (_, detail) = app.get(&format!("/api/payments/license-keys/{}", key["id"].as_str().unwrap())).await;
    let whole = detail["licenseKey"]["key"].as_str().unwrap();
    let (_, log) = app.get("/api/payments/webhooks?limit=20").await;
    assert!(log["events"].as_array().unwrap().iter().any(|e| e["eventName"] == "license_key_created"), "{log}");
    assert!(!stored_text(app.data_dir()).await.contains(whole), "the whole key is not in the data dir");
}

#[tokio::test]
async fn discounts_are_synced_with_their_redemptions_and_made_and_deleted_by_admins() {
    let app = SandboxApp::start().await;
    let (_, report) = app.post("/api/payments/sync", json!({})).await;
    assert!(report["discountsRead"].as_u64().unwrap() >= 8, "{report}");
    let (status, list) = app.get("/api/payments/discounts?limit=100").await;
    assert_eq!(status, 200, "{list}");
    let discounts = list["discounts"].as_array().unwrap();
    let codes: Vec<&str> = discounts.iter().map(|d| d["code"].as_str().unwrap()).collect();
    assert!(codes.contains(&"LAUNCH10") && codes.contains(&"TEAM50"), "{codes:?}");
    assert!(!codes.contains(&"HERBST10"), "another store's discount is not this store's");
    assert_eq!(list["currency"], "USD");
    // The seeded orders that took a discount redeemed one of them (one in eight of the hundred).
    let used: u64 = discounts.iter().map(|d| d["redemptionCount"].as_u64().unwrap()).sum();
    assert!(used >= 5, "{list}");
    let most = discounts.iter().max_by_key(|d| d["redemptionCount"].as_u64()).unwrap();
    let latest = &most["redemptions"][0];
    assert!(latest["orderId"].is_string() && latest["customerEmail"].is_string(), "joined with its order: {latest}");
    assert!(latest["amount"].as_i64().unwrap() > 0);
    let team = discounts.iter().find(|d| d["code"] == "TEAM50").unwrap();
    assert!(!team["variantIds"].as_array().unwrap().is_empty(), "its variants came with include=variants: {team}");
    assert_eq!(team["maxRedemptions"], 10);
    let (_, found) = app.get("/api/payments/discounts?search=friends").await;
    assert_eq!(found["discounts"].as_array().unwrap().len(), 1, "{found}");

    // Refusals, each on its field; nothing made.
    let good = json!({"name": "Summer", "code": "SUMMER30", "amount": 30, "amountType": "percent"});
    let with = |change: Value| {
        let mut body = good.clone();
        body.as_object_mut().unwrap().extend(change.as_object().unwrap().clone());
        body
    };
    for (bad, field, says) in [
        (with(json!({"code": "summer30"})), "code", "capital letters"),
        (with(json!({"code": "LAUNCH10"})), "code", "already the code of"),
        (with(json!({"amount": 150})), "amount", "1 to 100"),
        (with(json!({"amountType": "fixed", "amount": 5000, "variantIds": ["110"]})), "amount", "more than the price"),
        (with(json!({"duration": "repeating"})), "durationInMonths", "required"),
        (with(json!({"durationInMonths": 3})), "durationInMonths", "only a repeating"),
        (with(json!({"expiresAt": "2020-01-01"})), "expiresAt", "past"),
        (with(json!({"startsAt": "2031-01-01", "expiresAt": "2030-01-01"})), "expiresAt", "after the start"),
        (with(json!({"variantIds": ["999999"]})), "variantIds", "is not one of this store's"),
        (with(json!({"name": "  "})), "name", "blank"),
    ] {
        let (status, body) = app.post("/api/payments/discounts", bad.clone()).await;
        assert_eq!((status, bad_fields(&body)), (400, vec![field.to_string()]), "{bad}: {body}");
        let message = body["error"]["details"]["fields"][0]["message"].as_str().unwrap();
        assert!(message.contains(says), "{bad}: {message}");
    }
    let token = app.staff_token().await;
    let as_staff = client().post(app.base.clone() + "/api/payments/discounts").bearer_auth(&token).json(&good);
    assert_eq!(as_staff.send().await.unwrap().status(), 403);

    // Made at the provider, limited as asked, and in the list at once.
    let body = with(json!({"duration": "repeating", "durationInMonths": 6, "maxRedemptions": 50,
                           "expiresAt": "2030-06-30", "variantIds": ["110"]}));
    let (status, made) = app.post("/api/payments/discounts", body).await;
    assert_eq!(status, 201, "{made}");
    let made = &made["discount"];
    assert_eq!((made["code"].as_str(), made["durationInMonths"].as_i64()), (Some("SUMMER30"), Some(6)), "{made}");
    assert_eq!((made["maxRedemptions"].as_i64(), made["expiresAt"].as_str()), (Some(50), Some("2030-06-30T00:00:00Z")));
    let id = made["id"].as_str().unwrap().to_string();
    // A sync reads it back from the provider, limits and all.
    app.post("/api/payments/sync", json!({})).await;
    let (_, list) = app.get("/api/payments/discounts?search=SUMMER30").await;
    assert_eq!(list["discounts"][0]["variantIds"], json!(["110"]), "{list}");

    let path = format!("/api/payments/discounts/{id}");
    let as_staff = client().delete(app.base.clone() + &path).bearer_auth(&token);
    assert_eq!(as_staff.send().await.unwrap().status(), 403);
    let (status, _) = app.send(reqwest::Method::DELETE, &path, None).await;
    assert_eq!(status, 204);
    let (status, body) = app.send(reqwest::Method::DELETE, &path, None).await;
    assert_eq!((status, body["error"]["code"].as_str()), (404, Some("not_found")), "{body}");
    let (_, list) = app.get("/api/payments/discounts?search=SUMMER30").await;
    assert_eq!(list["discounts"].as_array().unwrap().len(), 0, "{list}");
    let entries = app.core.audit.list(50, None).await.unwrap();
    let made = entries.iter().filter(|e| e.action == "payments.discount_create" && e.outcome == "success").count();
    let deleted = entries.iter().filter(|e| e.action == "payments.discount_delete" && e.outcome == "success").count();
    assert_eq!((made, deleted), (1, 1), "{entries:?}");
}

#[tokio::test]
async fn an_order_with_a_discount_code_is_charged_less_and_redeems_it() {
    let app = SandboxApp::start().await;
    for (code, says) in
        [("NOPE123", "no discount"), ("EARLYBIRD30", "expired"), ("YEARLY2027", "draft"), ("TEAM50", "before")]
    {
        let body = json!({"productId": "11", "email": "buyer@example.com", "discountCode": code});
        let (status, refused) = app.post("/api/payments/orders", body).await;
        assert_eq!((status, bad_fields(&refused)), (400, vec!["discountCode".to_string()]), "{code}: {refused}");
        assert!(refused["error"]["details"]["fields"][0]["message"].as_str().unwrap().contains(says), "{refused}");
    }
    let body = json!({"productId": "11", "email": "buyer@example.com", "discountCode": "launch10"});
    let (status, created) = app.post("/api/payments/orders", body).await;
    assert_eq!(status, 201, "{created}");
    let id = created["order"]["id"].as_str().unwrap().to_string();
    let checkout = created["order"]["checkoutUrl"].as_str().unwrap().to_string();
    let page = client().get(&checkout).send().await.unwrap().text().await.unwrap();
    assert!(page.contains("Discount LAUNCH10") && page.contains("$29.70"), "the checkout shows the reduced total");
    client().post(checkout_action(&checkout, "pay")).send().await.unwrap();
    let order = app.eventually(&format!("/api/payments/orders/{id}"), |b| b["order"]["status"] == "paid").await;
    let order = &order["order"];
    assert_eq!((order["subtotal"].as_i64(), order["discountTotal"].as_i64()), (Some(3300), Some(330)), "{order}");
    assert_eq!(order["total"], 2970, "{order}");
    // The provider recorded the redemption; the next sync shows it against our order.
    app.post("/api/payments/sync", json!({})).await;
    let (_, list) = app.get("/api/payments/discounts?search=LAUNCH10").await;
    let latest = &list["discounts"][0]["redemptions"][0];
    assert_eq!((latest["orderId"].as_str(), latest["amount"].as_i64()), (Some(id.as_str()), Some(330)), "{list}");
}

#[tokio::test]
async fn a_renewal_failed_in_the_sandbox_arrives_as_the_provider_tells_it() {
    let app = SandboxApp::start().await;
    let sandbox = app.simulator().base_url().to_string();
    let failed: Value = client()
        .post(format!("{sandbox}/__sandbox/renewal-failed"))
        .json(&json!({}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = failed["subscriptionId"].as_str().expect("an active subscription failed its renewal").to_string();
    let invoices = app
        .eventually(&format!("/api/payments/subscriptions/{id}/invoices"), |b| {
            b["invoices"][0]["id"] == failed["invoiceId"] && b["invoices"][0]["status"] == "pending"
        })
        .await;
    assert_eq!(invoices["invoices"][0]["billingReason"], "renewal", "{invoices}");
    let (_, subscription) = app.get(&format!("/api/payments/subscriptions/{id}")).await;
    assert_eq!(subscription["subscription"]["providerStatus"], "past_due", "{subscription}");
    let (_, log) = app.get("/api/payments/webhooks?limit=10").await;
    let names: Vec<&str> = log["events"].as_array().unwrap().iter().filter_map(|e| e["eventName"].as_str()).collect();
    assert!(names.contains(&"subscription_payment_failed") && names.contains(&"subscription_updated"), "{names:?}");
    let missing = client().post(format!("{sandbox}/__sandbox/renewal-failed")).json(&json!({"subscriptionId": "0"}));
    assert_eq!(missing.send().await.unwrap().status(), 404);
}
