//! The Lemon Squeezy contract: fixtures written from the provider's documented example objects
//! (`tests/contract/lemonsqueezy/`, each citing its source in the README there) must decode the
//! way the client reads them, and the simulator must answer with the same objects field for
//! field: every documented attribute, nested field and relationship, with the documented JSON
//! types, and nothing the documentation does not have.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use serde_json::{json, Map, Value};
use staffroom::payments::jsonapi::{Document, Resource};
use staffroom::payments::model;
use staffroom::sandbox::lemonsqueezy::{PaymentSimulator, SimulatorOptions};
use staffroom::webhooks::payload;

fn fixture(name: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/contract/lemonsqueezy").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The resource object of a fixture: a whole document's `data` (its first item for a list), a
/// webhook's `data`, or a bare resource as the refund page documents it.
fn resource_object(fixture: &Value) -> &Value {
    match fixture.get("data") {
        Some(Value::Array(items)) => &items[0],
        Some(data) => data,
        None => fixture,
    }
}

fn resource(fixture: &Value) -> Resource {
    Resource::from_value(resource_object(fixture)).expect("a documented resource decodes")
}

#[test]
fn documented_objects_decode_as_the_client_reads_them() {
    // Documents, lists and their pagination meta.
    for name in ["product.json", "variant.json", "order.json", "subscription.json", "checkout.json", "store.json"] {
        let doc: Document = serde_json::from_value(fixture(name)).unwrap();
        doc.resource().unwrap_or_else(|e| panic!("{name}: {e:?}"));
    }
    for name in ["product-list.json", "variant-list.json"] {
        let doc: Document = serde_json::from_value(fixture(name)).unwrap();
        assert!(!doc.resources().unwrap().is_empty(), "{name}");
        assert_eq!(doc.last_page(), Some(1), "{name}: meta.page.lastPage");
        assert_eq!(doc.next_link(), None, "{name}: no links.next on the last page");
    }

    let product = model::product_from(&resource(&fixture("product.json")), "USD");
    assert_eq!((product.id.as_str(), product.status.as_str()), ("1", "published"));
    assert!(product.price > 0 && product.created_at.ends_with('Z'), "{product:?}");

    let (product_id, variant, _) = model::variant_from(&resource(&fixture("variant.json")));
    assert_eq!(product_id, resource_object(&fixture("variant.json"))["attributes"]["product_id"].to_string());
    assert!(["pending", "draft", "published"].contains(&variant.status.as_str()));

    let subscription = model::subscription_from(&resource(&fixture("subscription.json")));
    assert_eq!((subscription.status.as_str(), subscription.provider_status.as_str()), ("active", "active"));
    assert_eq!(subscription.renews_at, "2022-11-12T00:00:00Z", "microseconds normalised to RFC 3339");
    assert_eq!(subscription.ends_at, None);
    assert_eq!(
        (subscription.card_brand.as_deref(), subscription.card_last_four.as_deref()),
        (Some("visa"), Some("4242"))
    );
    assert!(subscription.update_payment_method_url.as_deref().is_some_and(|u| u.starts_with("https://")));

    let invoice = model::invoice_from(&resource(&fixture("subscription-invoice.json")));
    assert_eq!(
        (invoice.id.as_str(), invoice.subscription_id.as_str(), invoice.customer_id.as_str()),
        ("1", "1", "1"),
        "integer foreign keys read as ids"
    );
    assert_eq!((invoice.billing_reason.as_str(), invoice.status.as_str()), ("initial", "paid"));
    assert_eq!((invoice.total, invoice.refunded_amount, invoice.currency.as_str()), (999, 0, "USD"));
    assert_eq!((invoice.card_brand.as_deref(), invoice.card_last_four.as_deref()), (Some("visa"), Some("4242")));
    assert!(invoice.invoice_url.is_some() && invoice.created_at == "2023-01-18T12:16:24Z", "{invoice:?}");
    let refunded = model::invoice_from(&resource(&fixture("subscription-invoice-refunded.json")));
    assert_eq!((refunded.status.as_str(), refunded.refunded_amount), ("refunded", 999));
    assert_eq!(
        model::invoice_status("partial_refunded"),
        "partial_refund",
        "the Laravel package's name, in the SPEC's"
    );

    let discount = model::discount_from(&resource(&fixture("discount.json")));
    assert_eq!((discount.code.as_str(), discount.amount, discount.amount_type.as_str()), ("10PERC", 10, "percent"));
    assert_eq!((discount.max_redemptions, discount.variant_ids.len()), (None, 0), "no limits: {discount:?}");
    assert_eq!(discount.created_at, "2021-05-24T14:15:06Z");
    let redemption = model::redemption_from(&resource(&fixture("discount-redemption.json")));
    assert_eq!((redemption.discount_id.as_str(), redemption.provider_order_id.as_str()), ("1", "1"));
    assert_eq!(redemption.amount, 999);

    let key = model::license_key_from(&resource(&fixture("license-key.json")));
    assert_eq!((key.key_short.as_str(), key.status.as_str()), ("XXXX-8f9c98a48abe", "inactive"));
    assert_eq!((key.activation_limit, key.activation_usage, key.expires_at.as_deref()), (Some(5), 0, None));
    assert_eq!((key.provider_order_id.as_str(), key.customer_id.as_str(), key.product_id.as_str()), ("1", "1", "1"));
    assert_eq!(key.customer_email, "johndoe@example.com");
    let machine = model::license_instance_from(&resource(&fixture("license-key-instance.json")));
    assert_eq!(
        (machine.name.as_str(), machine.identifier.as_str()),
        ("example.com", "f70a79fa-6054-433e-9c1b-6075344292e4")
    );
    assert_eq!(machine.created_at, "2022-11-14T11:45:39Z");

    let customer = model::customer_from(&resource(&fixture("customer.json")));
    assert_eq!(
        (customer.name.as_str(), customer.email.as_str(), customer.status.as_str()),
        ("John Doe", "johndoe@example.com", "subscribed")
    );
    assert_eq!(
        (customer.total_revenue, customer.mrr, customer.currency.as_str()),
        (84332, 1999, "USD"),
        "US cents, the provider's"
    );
    assert_eq!((customer.country.as_deref(), customer.created_at.as_str()), (Some("US"), "2022-12-01T13:01:07Z"));
    assert!(customer.portal_url.as_deref().is_some_and(|u| u.contains("/billing")));

    // Webhook bodies as Lemon Squeezy sends them: no webhook_id, no test_mode in `meta`.
    for (name, event, kind) in [
        ("webhook-order_created.json", "order_created", "orders"),
        ("webhook-subscription_created.json", "subscription_created", "subscriptions"),
    ] {
        let delivery = payload::parse(&fixture(name), Some(event)).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        assert_eq!((delivery.name.as_str(), delivery.resource_type.as_str()), (event, kind));
        assert_eq!(delivery.webhook_id, None);
        assert!(delivery.updated_at().is_some(), "{name}: the order rule needs updated_at");
    }
    // Custom data comes back as the caller sent it; a number stays usable as an id.
    let order = payload::parse(&fixture("webhook-order_created.json"), None).unwrap();
    assert_eq!(order.custom_data.unwrap()["customer_id"], 25);

    // Empty objects of a checkout come back as empty lists: they must not break decoding.
    let checkout = resource(&fixture("checkout.json"));
    assert_eq!(checkout.attributes["checkout_data"]["custom"], json!([]));
    assert!(checkout.str("url").is_some_and(|u| u.starts_with("https://")));

    // The one error body seen from the API decodes as a JSON:API error list.
    let error = fixture("error-404.json");
    assert_eq!(error["errors"][0]["detail"], "The related resource does not exist.");
}

/// Attribute names of each resource type, with their JSON types, over all fixtures of the type.
#[derive(Default)]
struct Shape {
    /// Name → the JSON kinds seen ("null" never counts: documented nulls take any type).
    attributes: BTreeMap<String, BTreeSet<&'static str>>,
    /// Nested object attributes (`urls`, `first_order_item`, `checkout_data`, …) → their keys.
    nested: BTreeMap<String, BTreeSet<String>>,
    relationships: BTreeSet<String>,
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_f64() => "number",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

impl Shape {
    fn add(&mut self, resource: &Value) {
        let attributes = resource["attributes"].as_object().expect("attributes");
        for (name, value) in attributes {
            let kinds = self.attributes.entry(name.clone()).or_default();
            if !value.is_null() {
                kinds.insert(kind(value));
            }
            if let Value::Object(inner) = value {
                self.nested.entry(name.clone()).or_default().extend(inner.keys().cloned());
            }
        }
        if let Some(relationships) = resource.get("relationships").and_then(Value::as_object) {
            self.relationships.extend(relationships.keys().cloned());
        }
    }
}

/// Where `actual` (the simulator's resource) differs from the documented `shape`.
fn differences(kind_name: &str, shape: &Shape, actual: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let attributes: &Map<String, Value> = actual["attributes"].as_object().expect("attributes");
    for name in shape.attributes.keys() {
        if !attributes.contains_key(name) {
            out.push(format!("{kind_name}: documented attribute {name} is missing"));
        }
    }
    for (name, value) in attributes {
        let Some(documented) = shape.attributes.get(name) else {
            out.push(format!("{kind_name}: attribute {name} is not documented"));
            continue;
        };
        if !value.is_null() && !documented.is_empty() && !documented.contains(kind(value)) {
            out.push(format!("{kind_name}.{name}: {} where the docs show {documented:?}", kind(value)));
        }
        if let (Value::Object(inner), Some(keys)) = (value, shape.nested.get(name)) {
            let got: BTreeSet<String> = inner.keys().cloned().collect();
            if &got != keys {
                out.push(format!("{kind_name}.{name}: fields {got:?}, documented {keys:?}"));
            }
        }
    }
    let relationships: BTreeSet<String> =
        actual.get("relationships").and_then(Value::as_object).map(|r| r.keys().cloned().collect()).unwrap_or_default();
    if !shape.relationships.is_empty() && relationships != shape.relationships {
        out.push(format!("{kind_name}: relationships {relationships:?}, documented {:?}", shape.relationships));
    }
    out
}

#[tokio::test]
async fn the_simulator_answers_with_the_documented_objects_field_for_field() {
    let mut shapes: BTreeMap<String, Shape> = BTreeMap::new();
    for name in [
        "product.json",
        "product-list.json",
        "variant.json",
        "variant-list.json",
        "order.json",
        "order-refund.json",
        "webhook-order_created.json",
        "subscription.json",
        "webhook-subscription_created.json",
        "checkout.json",
        "store.json",
        "customer.json",
        "order-item.json",
        "subscription-invoice.json",
        "subscription-invoice-refunded.json",
        "license-key.json",
        "license-key-instance.json",
        "discount.json",
        "discount-redemption.json",
        "user.json",
        "webhook.json",
    ] {
        let value = fixture(name);
        let object = resource_object(&value);
        let kind = object["type"].as_str().unwrap_or_else(|| panic!("{name}: a typed resource")).to_string();
        shapes.entry(kind).or_default().add(object);
    }

    // A simulator with an order in it: a checkout created and paid as a buyer would.
    let sim = PaymentSimulator::start(SimulatorOptions::default()).await.unwrap();
    let http = reqwest::Client::new();
    let created: Value = http
        .post(format!("{}/checkouts", sim.api_url()))
        .bearer_auth(sim.api_key().expose())
        .header("accept", "application/vnd.api+json")
        .header("content-type", "application/vnd.api+json")
        .body(
            json!({"data": {"type": "checkouts",
                "attributes": {"checkout_data": {"email": "ada@example.com", "name": "Ada", "billing_address": {"country": "GB"}, "custom": {"order_id": "o-1"}}},
                "relationships": {"store": {"data": {"type": "stores", "id": sim.store_id()}}, "variant": {"data": {"type": "variants", "id": "11"}}}}})
            .to_string(),
        )
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let checkout_id = created["data"]["id"].as_str().expect("a checkout").to_string();
    // And a webhook, made as Staffroom registers one.
    let webhook = http
        .post(format!("{}/webhooks", sim.api_url()))
        .bearer_auth(sim.api_key().expose())
        .header("accept", "application/vnd.api+json")
        .header("content-type", "application/vnd.api+json")
        .body(
            json!({"data": {"type": "webhooks",
                "attributes": {"url": "https://staffroom.example.com/api/payments/webhooks", "events": ["order_created"], "secret": "a signing secret"},
                "relationships": {"store": {"data": {"type": "stores", "id": sim.store_id()}}}}})
            .to_string(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(webhook.status(), 201);
    let paid = http.post(format!("{}/checkout/custom/{checkout_id}/pay", sim.base_url())).send().await.unwrap();
    assert!(paid.status().is_success());

    let mut problems = Vec::new();
    let mut covered = BTreeSet::new();
    for resource in sim.sample_resources() {
        let kind = resource["type"].as_str().unwrap().to_string();
        let shape = shapes.get(&kind).unwrap_or_else(|| panic!("no documented {kind} object"));
        problems.extend(differences(&kind, shape, &resource));
        covered.insert(kind);
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert_eq!(
        covered.into_iter().collect::<Vec<_>>(),
        [
            "checkouts",
            "customers",
            "discount-redemptions",
            "discounts",
            "license-key-instances",
            "license-keys",
            "order-items",
            "orders",
            "products",
            "stores",
            "subscription-invoices",
            "subscriptions",
            "users",
            "variants",
            "webhooks"
        ]
    );
}

#[test]
fn the_shape_check_catches_missing_extra_and_mistyped_fields() {
    let mut shape = Shape::default();
    shape.add(&json!({"attributes": {"a": 1, "b": null, "urls": {"x": "y"}}, "relationships": {"store": {}}}));
    let actual = json!({"attributes": {"a": "1", "c": true, "urls": {"z": 1}}, "relationships": {"store": {}}});
    let found = differences("things", &shape, &actual);
    assert_eq!(
        found,
        vec![
            "things: documented attribute b is missing",
            "things.a: string where the docs show {\"integer\"}",
            "things: attribute c is not documented",
            "things.urls: fields {\"z\"}, documented {\"x\"}",
        ]
    );
}

/// The simulator's store has a history (SPEC section 11), listed as the docs say: orders newest
/// first by `created_at`, filtered by store, e-mail and order number; order items by order,
/// product and variant; pages of at most 100.
#[tokio::test]
async fn the_simulator_lists_its_history_with_the_documented_filters() {
    let sim = PaymentSimulator::start(SimulatorOptions::default()).await.unwrap();
    let http = reqwest::Client::new();
    let get = |path: String| {
        let request = http
            .get(format!("{}/{path}", sim.api_url()))
            .bearer_auth(sim.api_key().expose().to_string())
            .header("accept", "application/vnd.api+json");
        async move { request.send().await.unwrap().json::<Value>().await.unwrap() }
    };
    let page = get(format!("orders?filter[store_id]={}&page[size]=500", sim.store_id())).await;
    let orders = page["data"].as_array().unwrap();
    assert_eq!(orders.len(), 100, "a page holds 100 at most");
    assert!(page["meta"]["page"]["total"].as_u64().unwrap() >= 1_500);
    let created: Vec<&str> = orders.iter().map(|o| o["attributes"]["created_at"].as_str().unwrap()).collect();
    assert!(created.windows(2).all(|w| w[0] >= w[1]), "newest first");
    assert!(orders.iter().all(|o| o["attributes"]["store_id"].to_string() == sim.store_id()));

    let newest = &orders[0]["attributes"];
    let number = newest["order_number"].as_u64().unwrap();
    let found = get(format!("orders?filter[store_id]={}&filter[order_number]={number}", sim.store_id())).await;
    assert_eq!(found["data"].as_array().unwrap().len(), 1);
    assert_eq!(found["data"][0]["id"], orders[0]["id"]);
    let email = newest["user_email"].as_str().unwrap();
    let theirs = get(format!("orders?filter[user_email]={email}&page[size]=100")).await;
    let theirs = theirs["data"].as_array().unwrap();
    assert!(!theirs.is_empty() && theirs.iter().all(|o| o["attributes"]["user_email"] == email));

    let order_id = orders[0]["id"].as_str().unwrap();
    let items = get(format!("order-items?filter[order_id]={order_id}")).await;
    let items = items["data"].as_array().unwrap();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["attributes"]["order_id"].to_string(), order_id);
    assert_eq!(items[0]["attributes"]["price"], newest["subtotal"]);
    assert_eq!(items[0]["id"].as_str().unwrap(), newest["first_order_item"]["id"].to_string());
    let one = get(format!("order-items/{}", items[0]["id"].as_str().unwrap())).await;
    assert_eq!(one["data"], items[0]);
    let variant = newest["first_order_item"]["variant_id"].to_string();
    let by_variant = get(format!("order-items?filter[variant_id]={variant}&page[size]=100")).await;
    let by_variant = by_variant["data"].as_array().unwrap();
    assert!(by_variant.iter().all(|i| i["attributes"]["variant_id"].to_string() == variant));
    let ids: Vec<u64> = by_variant.iter().map(|i| i["id"].as_str().unwrap().parse().unwrap()).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "order items are listed by id");
}

/// The simulator's webhooks as strict as the API: what a create lacks or gets wrong is a 422
/// naming the attribute, a list is by store, the secret never comes back, a delete answers 204.
#[tokio::test]
async fn the_simulators_webhooks_refuse_what_the_api_refuses() {
    let sim = PaymentSimulator::start(SimulatorOptions::default()).await.unwrap();
    let http = reqwest::Client::new();
    let send = |method: reqwest::Method, path: String, body: Option<Value>| {
        let mut request = http
            .request(method, format!("{}/{path}", sim.api_url()))
            .bearer_auth(sim.api_key().expose())
            .header("accept", "application/vnd.api+json")
            .header("content-type", "application/vnd.api+json");
        if let Some(body) = body {
            request = request.body(body.to_string());
        }
        async move {
            let answer = request.send().await.unwrap();
            (answer.status().as_u16(), answer.json::<Value>().await.unwrap_or(Value::Null))
        }
    };
    let create = |attributes: Value| {
        json!({"data": {"type": "webhooks", "attributes": attributes,
            "relationships": {"store": {"data": {"type": "stores", "id": sim.store_id()}}}}})
    };
    let url = "https://staffroom.example.com/api/payments/webhooks";
    for (attributes, pointer) in [
        (json!({"events": ["order_created"], "secret": "a-secret"}), "/data/attributes/url"),
        (json!({"url": url, "secret": "a-secret"}), "/data/attributes/events"),
        (json!({"url": url, "events": ["order_created"]}), "/data/attributes/secret"),
        (json!({"url": url, "events": ["order_paid"], "secret": "a-secret"}), "/data/attributes/events"),
        (json!({"url": url, "events": ["order_created"], "secret": "x".repeat(41)}), "/data/attributes/secret"),
        (json!({"url": url, "events": ["order_created"], "secret": "short"}), "/data/attributes/secret"),
        (json!({"url": "not a url", "events": ["order_created"], "secret": "a-secret"}), "/data/attributes/url"),
    ] {
        let (status, body) = send(reqwest::Method::POST, "webhooks".into(), Some(create(attributes.clone()))).await;
        assert_eq!(status, 422, "{attributes}: {body}");
        assert_eq!(body["errors"][0]["source"]["pointer"], pointer, "{attributes}: {body}");
    }
    let (status, made) = send(
        reqwest::Method::POST,
        "webhooks".into(),
        Some(create(json!({"url": url, "events": ["order_created"], "secret": "a-secret"}))),
    )
    .await;
    assert_eq!(status, 201, "{made}");
    assert!(made["data"]["attributes"].get("secret").is_none(), "{made}");
    assert_eq!(made["data"]["attributes"]["test_mode"], false);
    let id = made["data"]["id"].as_str().unwrap().to_string();
    let (_, ours) = send(reqwest::Method::GET, format!("webhooks?filter[store_id]={}", sim.store_id()), None).await;
    assert_eq!(ours["data"].as_array().unwrap().len(), 1);
    let (_, theirs) = send(reqwest::Method::GET, "webhooks?filter[store_id]=2".into(), None).await;
    assert_eq!(theirs["data"].as_array().unwrap().len(), 0);
    let patch =
        json!({"data": {"type": "webhooks", "id": id, "attributes": {"events": ["order_created", "order_refunded"]}}});
    let (status, patched) = send(reqwest::Method::PATCH, format!("webhooks/{id}"), Some(patch)).await;
    assert_eq!((status, patched["data"]["attributes"]["events"].as_array().unwrap().len()), (200, 2));
    let (status, _) = send(reqwest::Method::DELETE, format!("webhooks/{id}"), None).await;
    assert_eq!(status, 204);
    let (status, _) = send(reqwest::Method::GET, format!("webhooks/{id}"), None).await;
    assert_eq!(status, 404);
}
