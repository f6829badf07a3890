//! Refunding an order (`POST /api/payments/orders/{id}/refund`) and a subscription's invoice
//! (`POST /api/payments/invoices/{id}/refund`), over HTTP against the sandbox's Lemon Squeezy:
//! admins only, paid ones only, in full or in part, never twice when the answer is lost,
//! audited, and followed by the provider's webhook.

mod common;

use common::*;
use serde_json::{json, Value};
use staffroom::sandbox::lemonsqueezy::Faults;

/// A new order of product `product`, paid at the sandbox checkout: its id and its body.
async fn paid_order(app: &SandboxApp, product: &str) -> (String, Value) {
    let (status, created) =
        app.post("/api/payments/orders", json!({"productId": product, "email": "buyer@example.com"})).await;
    assert_eq!(status, 201, "{created}");
    let id = created["order"]["id"].as_str().unwrap().to_string();
    let checkout = created["order"]["checkoutUrl"].as_str().unwrap().to_string();
    client().post(checkout_action(&checkout, "pay")).send().await.unwrap();
    let order = app.eventually(&format!("/api/payments/orders/{id}"), |b| b["order"]["status"] == "paid").await;
    assert_eq!(order["order"]["status"], "paid", "{order}");
    (id, order["order"].clone())
}

#[tokio::test]
async fn an_admin_refunds_a_paid_order_in_part_then_in_full() {
    let app = SandboxApp::start().await;
    let (id, order) = paid_order(&app, "11").await;
    let total = order["total"].as_i64().unwrap();
    let path = format!("/api/payments/orders/{id}/refund");
    let refund = |body: Value| app.post(&path, body);

    // More than the order: refused naming the amount, nothing refunded.
    let (status, body) = refund(json!({"amount": total + 1})).await;
    assert_eq!((status, bad_fields(&body)), (400, vec!["amount".to_string()]), "{body}");

    let (status, body) = refund(json!({"amount": 500})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["order"]["refundedAmount"], 500, "{body}");
    assert!(body["order"]["refundedAt"].is_string(), "{body}");
    assert_eq!(body["order"]["status"], "paid", "a partly refunded order stays paid");

    // Without an amount, what is left; then nothing is left.
    let (status, body) = refund(json!({})).await;
    assert_eq!((status, body["order"]["refundedAmount"].as_i64()), (200, Some(total)), "{body}");
    let (status, body) = refund(json!({})).await;
    assert_eq!((status, body["error"]["code"].as_str()), (409, Some("conflict")), "{body}");

    // The provider tells of each refund with order_refunded, applied to the order.
    let order = app
        .eventually(&format!("/api/payments/orders/{id}"), |b| {
            b["order"]["events"].as_array().unwrap().iter().filter(|e| e["eventName"] == "order_refunded").count() == 2
        })
        .await;
    let refunded_events =
        order["order"]["events"].as_array().unwrap().iter().filter(|e| e["eventName"] == "order_refunded").count();
    assert_eq!(refunded_events, 2, "{order}");
    assert_eq!(order["order"]["refundedAmount"], total);

    // Audited, each with its amount.
    let entries = app.core.audit.list(50, None).await.unwrap();
    let refunds: Vec<_> =
        entries.iter().filter(|e| e.action == "payments.order_refund" && e.outcome == "success").collect();
    assert_eq!(refunds.len(), 2, "{entries:?}");
    // The refusals too: more than the order, and nothing left.
    let refused: Vec<&str> = entries
        .iter()
        .filter(|e| e.action == "payments.order_refund" && e.outcome != "success")
        .map(|e| e.outcome.as_str())
        .collect();
    assert_eq!(refused, ["failure: conflict", "failure: invalid_request"], "{entries:?}");

    // The log is found by action and person over HTTP, and each refund says how much of what.
    let (status, log) = app.get(&format!("/api/audit?action=payments.order_refund&actor={}", refunds[0].actor)).await;
    assert_eq!(status, 200, "{log}");
    let log = log.as_array().unwrap();
    assert!(log.len() >= 2 && log.iter().all(|e| e["action"] == "payments.order_refund"), "{log:?}");
    let log: Vec<&serde_json::Value> = log.iter().filter(|e| e["outcome"] == "success").collect();
    let detail: serde_json::Value = serde_json::from_str(log[0]["detail"].as_str().unwrap()).unwrap();
    assert!(detail["amount"].as_i64().unwrap() > 0 && detail["currency"].is_string(), "{detail}");
    assert!(detail["order"].as_str().unwrap().starts_with("SR-"), "{detail}");
    let (_, nobody) = app.get("/api/audit?actor=nobody@example.com").await;
    assert_eq!(nobody.as_array().map(Vec::len), Some(0));
    let (status, bad) = app.get("/api/audit?action=payments.everything&from=yesterday").await;
    assert_eq!(status, 400, "{bad}");
    let named: Vec<&str> =
        bad["error"]["details"]["fields"].as_array().unwrap().iter().map(|f| f["field"].as_str().unwrap()).collect();
    assert_eq!(named, ["action", "from"]);
}

#[tokio::test]
async fn only_a_paid_order_is_refunded_and_only_by_an_admin() {
    let app = SandboxApp::start().await;
    let (status, created) =
        app.post("/api/payments/orders", json!({"productId": "11", "email": "buyer@example.com"})).await;
    assert_eq!(status, 201, "{created}");
    let pending = created["order"]["id"].as_str().unwrap();
    let (status, body) = app.post(&format!("/api/payments/orders/{pending}/refund"), json!({})).await;
    assert_eq!((status, body["error"]["code"].as_str()), (409, Some("conflict")), "{body}");
    assert!(body["error"]["message"].as_str().unwrap().contains("Only a paid order can be refunded"), "{body}");

    let (status, body) = app.post("/api/payments/orders/6f1c1f2e-0000-4000-8000-000000000000/refund", json!({})).await;
    assert_eq!((status, body["error"]["code"].as_str()), (404, Some("not_found")), "{body}");
    for bad in [json!({"amount": 0}), json!({"amount": "ten"}), json!({"amount": -5})] {
        let (status, body) = app.post(&format!("/api/payments/orders/{pending}/refund"), bad.clone()).await;
        assert_eq!((status, bad_fields(&body)), (400, vec!["amount".to_string()]), "{bad}: {body}");
    }

    let (id, _) = paid_order(&app, "11").await;
    let token = app.staff_token().await;
    let response = client()
        .post(format!("{}/api/payments/orders/{id}/refund", app.base))
        .bearer_auth(&token)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 403);
    let provider_id = app.get(&format!("/api/payments/orders/{id}")).await.1["order"]["providerOrderId"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(app.simulator().refunded_amount(&provider_id), Some(0), "nothing was refunded");
}

#[tokio::test]
async fn a_refund_whose_answer_is_lost_happens_once() {
    let app = SandboxApp::start().await;
    let (id, order) = paid_order(&app, "11").await;
    let provider_id = order["providerOrderId"].as_str().unwrap().to_string();
    app.simulator().set_faults(Faults { fail_after_commit: 1, ..Faults::default() });
    let (status, body) = app.post(&format!("/api/payments/orders/{id}/refund"), json!({"amount": 300})).await;
    assert_eq!(status, 200, "the order shows the refund happened: {body}");
    assert_eq!(body["order"]["refundedAmount"], 300);
    assert_eq!(app.simulator().refunded_amount(&provider_id), Some(300), "refunded once, not twice");
}

/// The sandbox's invoices after a sync: the first subscription (of those `status` lists) with an
/// invoice that `wanted` picks, and that invoice.
async fn synced_invoice(app: &SandboxApp, status: &str, wanted: impl Fn(&Value) -> bool) -> (String, Value) {
    let (code, report) = app.post("/api/payments/sync", json!({})).await;
    assert_eq!(code, 200, "{report}");
    assert!(report["invoicesRead"].as_u64().unwrap() > 0, "{report}");
    let (_, subs) = app.get(&format!("/api/payments/subscriptions?status={status}&limit=100")).await;
    for sub in subs["subscriptions"].as_array().unwrap() {
        let id = sub["id"].as_str().unwrap();
        let (code, list) = app.get(&format!("/api/payments/subscriptions/{id}/invoices")).await;
        assert_eq!(code, 200, "{list}");
        if let Some(invoice) = list["invoices"].as_array().unwrap().iter().find(|i| wanted(i)) {
            return (id.to_string(), invoice.clone());
        }
    }
    panic!("no {status} subscription has the invoice wanted");
}

#[tokio::test]
async fn an_admin_refunds_a_renewal_in_part_then_in_full_and_the_provider_tells_of_each() {
    let app = SandboxApp::start().await;
    let (subscription, invoice) =
        synced_invoice(&app, "active", |i| i["billingReason"] == "renewal" && i["status"] == "paid").await;
    let (id, total) = (invoice["id"].as_str().unwrap().to_string(), invoice["total"].as_i64().unwrap());
    assert!(invoice["invoiceUrl"].is_string() && invoice["currency"] == "USD", "{invoice}");
    let path = format!("/api/payments/invoices/{id}/refund");

    let (status, body) = app.post(&path, json!({"amount": total + 1})).await;
    assert_eq!((status, bad_fields(&body)), (400, vec!["amount".to_string()]), "{body}");
    assert!(body["error"]["details"]["fields"][0]["message"].as_str().unwrap().contains("what is left"), "{body}");

    let (status, body) = app.post(&path, json!({"amount": 500})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        (body["invoice"]["refundedAmount"].as_i64(), body["invoice"]["status"].as_str()),
        (Some(500), Some("partial_refund"))
    );
    let (status, body) = app.post(&path, json!({})).await;
    assert_eq!((status, body["invoice"]["refundedAmount"].as_i64()), (200, Some(total)), "{body}");
    assert_eq!(body["invoice"]["status"], "refunded");
    assert_eq!(app.simulator().invoice(&id), Some(("refunded".to_string(), total)));
    let (status, body) = app.post(&path, json!({})).await;
    assert_eq!((status, body["error"]["code"].as_str()), (409, Some("conflict")), "{body}");

    // The provider's subscription_payment_refunded events reach the log and name the subscription.
    let log = app
        .eventually("/api/payments/webhooks?limit=50", |b| {
            let events = b["events"].as_array().cloned().unwrap_or_default();
            let applied = |e: &&Value| e["eventName"] == "subscription_payment_refunded" && e["appliedAt"].is_string();
            events.iter().filter(applied).count() == 2
        })
        .await;
    let refunded: Vec<&Value> = log["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["eventName"] == "subscription_payment_refunded")
        .collect();
    assert_eq!(refunded.len(), 2, "{log}");
    assert!(refunded.iter().all(|e| e["subscriptionId"] == subscription.as_str()), "{log}");

    // A refund is not a payment: the subscription's latest payment is as it was.
    let (_, sub) = app.get(&format!("/api/payments/subscriptions/{subscription}")).await;
    let last = sub["subscription"]["lastPaymentStatus"].as_str();
    assert!(!matches!(last, Some("refunded" | "partial_refund")), "{sub}");

    // The subscription's list shows the refund, and so does its customer's page.
    let (_, list) = app.get(&format!("/api/payments/subscriptions/{subscription}/invoices")).await;
    let shown = list["invoices"].as_array().unwrap().iter().find(|i| i["id"] == id.as_str()).unwrap().clone();
    assert_eq!((shown["status"].as_str(), shown["refundedAmount"].as_i64()), (Some("refunded"), Some(total)));
    let customer = invoice["customerId"].as_str().unwrap();
    let (_, page) = app.get(&format!("/api/payments/customers/{customer}")).await;
    let theirs = page["customer"]["invoices"].as_array().unwrap();
    assert!(theirs.iter().any(|i| i["id"] == id.as_str() && i["status"] == "refunded"), "{page}");
    assert!(page["customer"]["invoiceCount"].as_u64().unwrap() >= theirs.len() as u64, "{page}");

    let entries = app.core.audit.list(50, None).await.unwrap();
    let audited = entries.iter().filter(|e| e.action == "payments.invoice_refund" && e.outcome == "success").count();
    assert_eq!(audited, 2, "{entries:?}");
}

#[tokio::test]
async fn only_a_paid_invoice_is_refunded_and_only_by_an_admin() {
    let app = SandboxApp::start().await;
    // A past-due subscription owes its latest renewal: that invoice is not paid.
    let (_, owed) = synced_invoice(&app, "past_due", |i| i["status"] == "pending").await;
    let owed = owed["id"].as_str().unwrap().to_string();
    let (status, body) = app.post(&format!("/api/payments/invoices/{owed}/refund"), json!({})).await;
    assert_eq!((status, body["error"]["code"].as_str()), (409, Some("conflict")), "{body}");
    assert!(body["error"]["message"].as_str().unwrap().contains("Only a paid invoice"), "{body}");
    assert_eq!(app.simulator().invoice(&owed), Some(("pending".to_string(), 0)));

    let (status, body) = app.post("/api/payments/invoices/424242/refund", json!({})).await;
    assert_eq!((status, body["error"]["code"].as_str()), (404, Some("not_found")), "{body}");
    let (status, body) = app.get("/api/payments/subscriptions/424242/invoices").await;
    assert_eq!((status, body["error"]["code"].as_str()), (404, Some("not_found")), "{body}");
    for bad in [json!({"amount": 0}), json!({"amount": "ten"}), json!({"amount": -5})] {
        let (status, body) = app.post(&format!("/api/payments/invoices/{owed}/refund"), bad.clone()).await;
        assert_eq!((status, bad_fields(&body)), (400, vec!["amount".to_string()]), "{bad}: {body}");
    }

    let (_, paid) = synced_invoice(&app, "active", |i| i["status"] == "paid").await;
    let paid = paid["id"].as_str().unwrap().to_string();
    let token = app.staff_token().await;
    let refund = client().post(format!("{}/api/payments/invoices/{paid}/refund", app.base)).bearer_auth(&token);
    assert_eq!(refund.json(&json!({})).send().await.unwrap().status(), 403);
    // Staff read invoices all the same.
    let list = client().get(format!("{}/api/payments/subscriptions/2/invoices", app.base)).bearer_auth(&token);
    assert_eq!(list.send().await.unwrap().status(), 200);
    assert_eq!(app.simulator().invoice(&paid), Some(("paid".to_string(), 0)), "nothing was refunded");
}

#[tokio::test]
async fn an_invoice_refund_whose_answer_is_lost_happens_once() {
    let app = SandboxApp::start().await;
    let (_, invoice) = synced_invoice(&app, "active", |i| i["status"] == "paid").await;
    let id = invoice["id"].as_str().unwrap().to_string();
    app.simulator().set_faults(Faults { fail_after_commit: 1, ..Faults::default() });
    let (status, body) = app.post(&format!("/api/payments/invoices/{id}/refund"), json!({"amount": 300})).await;
    assert_eq!(status, 200, "the invoice shows the refund happened: {body}");
    assert_eq!(body["invoice"]["refundedAmount"], 300);
    assert_eq!(app.simulator().invoice(&id), Some(("partial_refund".to_string(), 300)), "refunded once");
}
