//! The sandbox checkout page: Pay or Decline. Pay creates the order (and, for a subscription
//! product, the subscription and its first invoice; for one that sells licence keys, a key) and
//! sends signed `order_created` (and `subscription_created`, `subscription_payment_success`,
//! `license_key_created`) webhooks to the app's receiver, retrying like the provider does, so the whole loop works
//! offline.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use serde_json::{json, Map, Value};

use super::seed::{Invoice, LicenseKey, Order, Subscription, Variant};
use staffroom_secret::Secret;

use super::{
    invoice_json, license_key_json, now_stamp, order_json, subscription_json, Checkout, Data, Sim, WebhookIds,
};

pub(super) fn routes() -> Router<Arc<Sim>> {
    Router::new()
        .route("/checkout/custom/{id}", get(page))
        .route("/checkout/custom/{id}/pay", post(pay))
        .route("/checkout/custom/{id}/decline", post(decline))
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

fn shell(title: &str, body: &str) -> Html<String> {
    Html(format!(
        r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>{title}</title><style>
body{{font-family:system-ui,sans-serif;background:#f6f7f9;color:#1c2430;display:grid;place-items:center;min-height:100vh;margin:0}}
main{{background:#fff;border:1px solid #d9dee5;border-radius:12px;padding:28px;max-width:420px;width:100%}}
.badge{{font-size:11px;text-transform:uppercase;background:#fff6e0;border:1px solid #f2b84b;border-radius:99px;padding:1px 8px}}
button{{font:inherit;padding:9px 16px;border-radius:6px;border:1px solid #d9dee5;cursor:pointer;margin-right:8px}}
#pay{{background:#2f5d8a;border-color:#2f5d8a;color:#fff;font-weight:600}} .total{{font-size:24px;font-weight:600}}
</style></head><body><main><p><span class="badge">Sandbox checkout</span></p>{body}</main></body></html>"#
    ))
}

async fn page(State(sim): State<Arc<Sim>>, Path(id): Path<String>) -> Response {
    let data = sim.data.lock().unwrap();
    let Some(checkout) = data.checkouts.get(&id) else {
        return (StatusCode::NOT_FOUND, shell("Checkout not found", "<h1>Checkout not found</h1>")).into_response();
    };
    let variant = data.products.iter().flat_map(|p| p.variants.iter()).find(|v| v.id == checkout.variant_id);
    let product = variant.and_then(|v| data.products.iter().find(|p| p.id == v.product_id));
    let (Some(variant), Some(product)) = (variant, product) else {
        return (StatusCode::NOT_FOUND, shell("Checkout not found", "<h1>Checkout not found</h1>")).into_response();
    };
    let currency = super::seed::store_currency(product.store_id);
    let code = checkout.data["discount_code"].as_str();
    let discount =
        super::discounts::for_checkout(&data.discounts, &data.redemptions, code, checkout.store_id, variant.id);
    let (price, discount_line) = match (discount, code) {
        (Some(d), _) => {
            let off = d.off(variant.price);
            let line = format!(
                r#"<p id="discount">Discount {}: −{}</p>"#,
                escape(&d.code),
                super::format_money(off, currency)
            );
            (variant.price - off, line)
        }
        (None, Some(code)) if !code.is_empty() => (
            variant.price,
            format!(r#"<p id="discount">The code {} does not apply to this checkout.</p>"#, escape(code)),
        ),
        _ => (variant.price, String::new()),
    };
    let body = match checkout.status {
        "open" => format!(
            r#"<h1>{} — {}</h1>{discount_line}<p class="total">{}</p><p>For {} &lt;{}&gt;</p>
<p>This is a simulated payment: no money moves.</p>
<form method="post" action="/checkout/custom/{id}/pay" style="display:inline"><button id="pay" type="submit">Pay</button></form>
<form method="post" action="/checkout/custom/{id}/decline" style="display:inline"><button id="decline" type="submit">Decline</button></form>"#,
            escape(&product.name),
            escape(&variant.name),
            super::format_money(price, currency),
            escape(&checkout.name),
            escape(&checkout.email),
        ),
        status => format!("<h1 id=\"result\">This checkout is {status}</h1>"),
    };
    shell("Sandbox checkout", &body).into_response()
}

async fn pay(State(sim): State<Arc<Sim>>, Path(id): Path<String>) -> Response {
    finish(sim, id, true).await
}

async fn decline(State(sim): State<Arc<Sim>>, Path(id): Path<String>) -> Response {
    finish(sim, id, false).await
}

async fn finish(sim: Arc<Sim>, id: String, paid: bool) -> Response {
    let deliveries = {
        let mut data = sim.data.lock().unwrap();
        let Some(checkout) = data.checkouts.get(&id).cloned() else {
            return (StatusCode::NOT_FOUND, shell("Checkout not found", "<h1>Checkout not found</h1>")).into_response();
        };
        if checkout.status != "open" {
            return shell("Sandbox checkout", &format!("<h1 id=\"result\">This checkout is {}</h1>", checkout.status))
                .into_response();
        }
        let variant =
            data.products.iter().flat_map(|p| p.variants.iter()).find(|v| v.id == checkout.variant_id).cloned();
        let Some(variant) = variant else { return StatusCode::NOT_FOUND.into_response() };
        let product_name =
            data.products.iter().find(|p| p.id == variant.product_id).map(|p| p.name.clone()).unwrap_or_default();
        let customer_id = customer_of(&mut data, &checkout);
        // The next id of the account, and the next number of the checkout's store.
        let order_id = data.orders.iter().map(|o| o.id).max().unwrap_or(9000) + 1;
        let number =
            data.orders.iter().filter(|o| o.store_id == checkout.store_id).map(|o| o.order_number).max().unwrap_or(0)
                + 1;
        let code = checkout.data["discount_code"].as_str();
        let discount =
            super::discounts::for_checkout(&data.discounts, &data.redemptions, code, checkout.store_id, variant.id)
                .cloned();
        let off = discount.as_ref().map_or(0, |d| d.off(variant.price));
        let order = order_of(&checkout, &variant, &product_name, customer_id, (order_id, number), paid, off);
        // A paid order that took a discount redeemed it.
        if let Some(discount) = discount.filter(|_| paid) {
            let id = data.redemptions.iter().map(|r| r.id).max().unwrap_or(0) + 1;
            data.redemptions.push(super::discounts::redemption(id, &discount, &order));
        }
        let mut deliveries = vec![("order_created", order_json(&sim.base, &order))];
        // A product that sells licence keys sends its key alongside the order.
        if let Some((limit, months)) = super::seed::licence_terms(variant.product_id, &variant.name).filter(|_| paid) {
            let key = licence_key_of(&data, &order, limit, months);
            deliveries.push(("license_key_created", license_key_json(&sim.base, &key, chrono::Utc::now().timestamp())));
            data.license_keys.push(key);
        }
        data.orders.push(order);
        if paid && variant.is_subscription {
            let id = data.subscriptions.iter().map(|s| s.id).max().unwrap_or(0) + 1;
            let made = (order_id, data.orders.last().map(|o| o.created_at.clone()).unwrap_or_default());
            let subscription = subscription_of(&checkout, &variant, product_name, customer_id, made, id);
            // Its first payment is its first invoice, told as Lemon Squeezy tells a payment.
            let invoice = first_invoice(data.orders.last().expect("pushed above"), &subscription);
            deliveries.push(("subscription_created", subscription_json(&sim.base, &subscription)));
            deliveries.push(("subscription_payment_success", invoice_json(&sim.base, &invoice)));
            data.subscriptions.push(subscription);
            data.invoices.push(invoice);
        }
        data.checkouts.get_mut(&id).expect("checked above").status = if paid { "paid" } else { "declined" };
        deliveries.into_iter().map(|(event, resource)| (event, resource, checkout.custom.clone())).collect::<Vec<_>>()
    };
    send_webhooks(&sim, deliveries);
    let message = if paid { "Payment complete" } else { "Payment declined" };
    shell(message, &format!("<h1 id=\"result\">{message}</h1><p>You can close this page and return to Staffroom.</p>"))
        .into_response()
}

/// The store's customer with the checkout's e-mail, made if there is none yet.
fn customer_of(data: &mut Data, checkout: &Checkout) -> u64 {
    if let Some(customer) = data.customers.iter().find(|c| c.email == checkout.email) {
        return customer.id;
    }
    let id = data.customers.iter().map(|c| c.id).max().unwrap_or(1000) + 1;
    data.customers.push(super::seed::Customer {
        id,
        store_id: checkout.store_id,
        name: checkout.name.clone(),
        email: checkout.email.clone(),
        country: checkout.country.clone().unwrap_or_else(|| "GB".into()),
        status: "subscribed",
        created_at: now_stamp(),
    });
    id
}

/// The order a finished checkout makes: paid or failed, with `discount` cents off. The merchant
/// of record adds the buyer's VAT on top of the discounted price.
fn order_of(
    checkout: &Checkout,
    variant: &Variant,
    product_name: &str,
    customer_id: u64,
    (id, order_number): (u64, u64),
    paid: bool,
    discount: i64,
) -> Order {
    let now = now_stamp();
    let (tax_name, tax_rate, basis_points) = super::seed::tax_for(checkout.country.as_deref());
    let tax = ((variant.price - discount) * basis_points + 5_000) / 10_000;
    Order {
        id,
        store_id: checkout.store_id,
        identifier: uuid::Uuid::new_v4().to_string(),
        order_number,
        customer_id,
        user_name: checkout.name.clone(),
        user_email: checkout.email.clone(),
        status: if paid { "paid" } else { "failed" },
        currency: super::seed::store_currency(checkout.store_id).to_string(),
        currency_rate: super::seed::usd_rate(super::seed::store_currency(checkout.store_id)),
        subtotal: variant.price,
        discount_total: discount,
        tax,
        total: variant.price - discount + tax,
        tax_name,
        tax_rate,
        refunded_amount: 0,
        refunded_at: None,
        product_id: variant.product_id,
        variant_id: variant.id,
        product_name: product_name.to_string(),
        variant_name: variant.name.clone(),
        created_at: now.clone(),
        updated_at: now,
        custom: checkout.custom.clone(),
    }
}

/// The subscription a paid checkout of a subscription variant starts, made with its order
/// `(id, created_at)`.
fn subscription_of(
    checkout: &Checkout,
    variant: &Variant,
    product_name: String,
    customer_id: u64,
    (order_id, now): (u64, String),
    id: u64,
) -> Subscription {
    let renews = chrono::Utc::now().timestamp() + if variant.interval == Some("year") { 365 } else { 30 } * 86_400;
    Subscription {
        id,
        store_id: checkout.store_id,
        payment_processor: "stripe",
        customer_id: Some(customer_id),
        order_id,
        product_id: variant.product_id,
        variant_id: variant.id,
        product_name,
        variant_name: variant.name.clone(),
        user_name: checkout.name.clone(),
        user_email: checkout.email.clone(),
        status: "active",
        pause: None,
        trial_ends_at: None,
        renews_at: super::seed::stamp(renews),
        ends_at: None,
        created_at: now.clone(),
        updated_at: now,
        confirm_change_url: None,
    }
}

/// The licence key a paid order of a product that sells them comes with: a new key, on no
/// machine yet.
fn licence_key_of(data: &Data, order: &Order, limit: i64, months: Option<u32>) -> LicenseKey {
    let created = chrono::Utc::now().timestamp();
    LicenseKey {
        id: data.license_keys.iter().map(|k| k.id).max().unwrap_or(3_000) + 1,
        store_id: order.store_id,
        customer_id: order.customer_id,
        order_id: order.id,
        order_item_id: order.id + 100_000_000,
        product_id: order.product_id,
        user_name: order.user_name.clone(),
        user_email: order.user_email.clone(),
        key: uuid::Uuid::new_v4().to_string().to_uppercase(),
        activation_limit: Some(limit),
        disabled: false,
        expires_at: months.map(|m| super::seed::stamp(super::seed::period_start(created, Some("month"), m))),
        instances: Vec::new(),
        created_at: order.created_at.clone(),
        updated_at: order.created_at.clone(),
    }
}

/// The first invoice of a subscription a checkout started: what its order charged.
fn first_invoice(order: &Order, subscription: &Subscription) -> Invoice {
    Invoice {
        id: subscription.id * 1_000 + 1,
        store_id: subscription.store_id,
        subscription_id: subscription.id,
        customer_id: subscription.customer_id,
        user_name: subscription.user_name.clone(),
        user_email: subscription.user_email.clone(),
        billing_reason: "initial",
        status: "paid",
        card_brand: Some("visa"),
        card_last_four: Some("4242"),
        currency: order.currency.clone(),
        subtotal: order.subtotal,
        tax: order.tax,
        total: order.total,
        refunded_amount: 0,
        refunded_at: None,
        created_at: order.created_at.clone(),
        updated_at: order.created_at.clone(),
    }
}

/// Sends signed deliveries of `(event, resource, custom data)` to every webhook of the
/// resource's store that takes the event, in order, each retried as Lemon Squeezy does (sooner,
/// for tests), with `webhook_id`s shaped as the faults ask.
pub(super) fn send_webhooks(sim: &Sim, deliveries: Vec<(&'static str, Value, Map<String, Value>)>) {
    let faults = sim.faults.lock().unwrap().clone();
    let purchase_id = uuid::Uuid::new_v4().to_string();
    let endpoint_id = sim.endpoint_webhook_id.clone();
    let mut sends = Vec::new();
    for (event, resource, custom) in deliveries {
        let store = resource["attributes"]["store_id"].as_u64().unwrap_or(super::seed::STORE_ID);
        let targets = super::account::targets(sim, store, event);
        if targets.is_empty() {
            tracing::warn!(event, store, "the sandbox has a webhook to send, but no webhook of the store takes it");
        }
        let mut meta = json!({"event_name": event, "custom_data": Value::Object(custom), "test_mode": true});
        let webhook_id = match faults.webhook_ids {
            WebhookIds::PerPurchase => Some(purchase_id.clone()),
            WebhookIds::PerDelivery => Some(uuid::Uuid::new_v4().to_string()),
            WebhookIds::PerEndpoint => Some(endpoint_id.clone()),
            WebhookIds::Absent => None,
        };
        if let Some(id) = webhook_id {
            meta["webhook_id"] = json!(id);
        }
        let body = serde_json::to_vec(&json!({"meta": meta, "data": resource})).expect("JSON always serializes");
        for (url, secret) in targets {
            sends.push((url, secret, event, body.clone()));
        }
    }
    if faults.lost_deliveries {
        return tracing::info!(count = sends.len(), "sandbox deliveries sent into the void (lost_deliveries)");
    }
    let http = sim.http.clone();
    tokio::spawn(async move {
        for (url, secret, event, body) in sends {
            deliver(&http, &url, &secret, event, body).await;
        }
    });
}

/// The provider's signature of a delivery: the hex HMAC-SHA256 of its body with the signing
/// secret (`X-Signature`). Written here again rather than borrowed from the receiver's check, so
/// that the simulator is a second, independent reading of the provider's documentation.
fn sign(secret: &Secret, body: &[u8]) -> String {
    use hmac::Mac as _;
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(secret.expose().as_bytes()).expect("any key length");
    mac.update(body);
    hex::encode(mac.finalize().into_bytes())
}

/// Sends one delivery until it is answered 200, retrying three more times with growing waits
/// like the provider.
async fn deliver(http: &reqwest::Client, url: &str, secret: &Secret, event: &str, body: Vec<u8>) {
    let signature = sign(secret, &body);
    for (attempt, wait) in [0u64, 1, 3, 9].into_iter().enumerate() {
        tokio::time::sleep(Duration::from_secs(wait)).await;
        let sent = http
            .post(url)
            .header("content-type", "application/json")
            .header("x-event-name", event)
            .header("x-signature", &signature)
            .body(body.clone())
            .send()
            .await;
        match sent {
            Ok(response) if response.status() == StatusCode::OK => return,
            Ok(response) => {
                tracing::warn!(attempt, status = response.status().as_u16(), event, "sandbox webhook refused")
            }
            Err(err) => tracing::warn!(attempt, %err, event, "sandbox webhook not delivered"),
        }
    }
}
