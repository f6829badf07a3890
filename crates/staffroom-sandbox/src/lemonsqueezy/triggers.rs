//! What the sandbox can be asked to make happen, as a store's life would (`/__sandbox/…`, beside
//! the fault switches; not part of Lemon Squeezy's API): a renewal whose card is declined. The
//! provider then tells of it as it does of a real one, with `subscription_payment_failed` (the
//! invoice) and `subscription_updated` (the subscription, now `past_due`).

use std::sync::Arc;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Map};

use super::seed::{Invoice, STORE_ID};
use super::{checkout, invoice_json, now_stamp, subscription_json, Sim};

/// Whose renewal fails: a subscription's id, or the store's newest active one.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct RenewalFailure {
    subscription_id: Option<String>,
}

/// `POST /__sandbox/renewal-failed`: the subscription's next renewal is declined. Answers the
/// subscription's and the invoice's ids.
pub(super) async fn renewal_failed(State(sim): State<Arc<Sim>>, body: Option<Json<RenewalFailure>>) -> Response {
    let wanted = body.and_then(|Json(b)| b.subscription_id);
    let (subscription, invoice) = {
        let mut data = sim.data.lock().unwrap();
        let found = data.subscriptions.iter().filter(|s| s.store_id == STORE_ID).rev().find(|s| match &wanted {
            Some(id) => s.id.to_string() == *id,
            None => s.status == "active",
        });
        let Some(subscription) = found else {
            let why = json!({"error": "no such subscription, or none active, to fail a renewal of"});
            return (StatusCode::NOT_FOUND, Json(why)).into_response();
        };
        let id = subscription.id;
        let last = data.invoices.iter().filter(|i| i.subscription_id == id).max_by_key(|i| i.id).cloned();
        let Some(last) = last else {
            let why = json!({"error": "the subscription has no invoice to renew"});
            return (StatusCode::CONFLICT, Json(why)).into_response();
        };
        let now = now_stamp();
        let subscription = data.subscriptions.iter_mut().find(|s| s.id == id).expect("found above");
        subscription.status = "past_due";
        subscription.updated_at = now.clone();
        let subscription = subscription.clone();
        let invoice = Invoice {
            id: last.id + 1,
            billing_reason: "renewal",
            status: "pending",
            refunded_amount: 0,
            refunded_at: None,
            created_at: now.clone(),
            updated_at: now,
            ..last
        };
        data.invoices.push(invoice.clone());
        (subscription, invoice)
    };
    let answer = json!({"subscriptionId": subscription.id.to_string(), "invoiceId": invoice.id.to_string()});
    checkout::send_webhooks(
        &sim,
        vec![
            ("subscription_payment_failed", invoice_json(&sim.base, &invoice), Map::new()),
            ("subscription_updated", subscription_json(&sim.base, &subscription), Map::new()),
        ],
    );
    (StatusCode::OK, Json(answer)).into_response()
}
