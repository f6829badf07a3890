//! The account behind a key, its stores, and the stores' webhooks (`/v1/users/me`,
//! `/v1/stores`, `/v1/webhooks`): what an admin's app reads and writes to connect a store and to
//! register where deliveries go. Deliveries go to every webhook of the purchase's store that
//! takes the event, each signed with its own secret, and stamp its `last_sent_at`. The secret is
//! never returned. Each behaviour's source is in `docs/PROVIDERS.md`.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{json, Value};
use staffroom_secret::Secret;

use super::seed::{self, OTHER_STORE_ID, STORE_ID};
use super::{document, filter, jsonapi_error, not_found, now_stamp, page_body, related_missing, Sim, JSONAPI};

/// Every event a webhook may take (the JS SDK's `Events` of webhooks; `affiliate_activated`
/// came later and is taken too).
pub const EVENTS: &[&str] = &[
    "order_created",
    "order_refunded",
    "subscription_created",
    "subscription_updated",
    "subscription_cancelled",
    "subscription_resumed",
    "subscription_expired",
    "subscription_paused",
    "subscription_unpaused",
    "subscription_payment_success",
    "subscription_payment_failed",
    "subscription_payment_recovered",
    "subscription_payment_refunded",
    "license_key_created",
    "license_key_updated",
    "affiliate_activated",
];

/// The account's owner, as `GET /v1/users/me` answers.
pub const OWNER_NAME: &str = "Sandbox Owner";
pub const OWNER_EMAIL: &str = "owner@staffroom.test";

/// A webhook of a store.
#[derive(Debug, Clone)]
pub struct Webhook {
    pub id: u64,
    pub store_id: u64,
    pub url: String,
    pub events: Vec<String>,
    pub secret: Secret,
    pub test_mode: bool,
    pub last_sent_at: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

pub(super) fn routes() -> Router<Arc<Sim>> {
    Router::new()
        .route("/v1/users/me", get(me))
        .route("/v1/stores", get(stores))
        .route("/v1/webhooks", get(list).post(create))
        .route("/v1/webhooks/{id}", get(one).patch(update).delete(delete))
}

/// `GET /v1/users/me`: the key's owner, and whether the key is a test-mode one (`meta`).
async fn me(State(sim): State<Arc<Sim>>) -> Response {
    let body = json!({
        "jsonapi": {"version": "1.0"},
        "meta": {"test_mode": true},
        "links": {"self": format!("{}/v1/users/1", sim.base)},
        "data": user_json(&sim.base),
    });
    super::jsonapi_response(StatusCode::OK, body)
}

/// The account's owner, as the user object of `GET /v1/users/me` (its times in camel case, as
/// the API reference prints them).
pub(super) fn user_json(base: &str) -> Value {
    json!({
        "type": "users", "id": "1",
        "attributes": {
            "name": OWNER_NAME, "email": OWNER_EMAIL, "color": "#898FA9",
            "avatar_url": format!("{base}/avatars/owner.png"), "has_custom_avatar": false,
            "createdAt": seed::stamp(1_735_689_600), "updatedAt": seed::stamp(1_767_225_600)
        },
        "links": {"self": format!("{base}/v1/users/1")}
    })
}

/// `GET /v1/stores`: every store of the account (no filters).
async fn stores(State(sim): State<Arc<Sim>>, Query(params): Query<HashMap<String, String>>) -> Response {
    let stores: Vec<u64> = vec![STORE_ID, OTHER_STORE_ID];
    let body = page_body(&sim, "stores", &params, stores, |id| seed::store_json(&sim.base, id).expect("a store"));
    super::jsonapi_response(StatusCode::OK, body)
}

pub(super) fn json(base: &str, w: &Webhook) -> Value {
    json!({
        "type": "webhooks", "id": w.id.to_string(),
        "attributes": {
            "store_id": w.store_id, "url": w.url, "events": w.events, "last_sent_at": w.last_sent_at,
            "created_at": w.created_at, "updated_at": w.updated_at, "test_mode": w.test_mode
        },
        "relationships": super::relationships(base, "webhooks", &w.id.to_string(), &["store"]),
        "links": {"self": format!("{base}/v1/webhooks/{}", w.id)}
    })
}

/// `GET /v1/webhooks`, filtered by `store_id`.
async fn list(State(sim): State<Arc<Sim>>, Query(params): Query<HashMap<String, String>>) -> Response {
    let webhooks: Vec<Webhook> = {
        let data = sim.data.lock().unwrap();
        let store = filter(&params, "store_id");
        data.webhooks.iter().filter(|w| store.is_none_or(|s| w.store_id.to_string() == s)).cloned().collect()
    };
    let body = page_body(&sim, "webhooks", &params, webhooks, |w| json(&sim.base, &w));
    super::jsonapi_response(StatusCode::OK, body)
}

async fn one(State(sim): State<Arc<Sim>>, Path(id): Path<String>) -> Response {
    let data = sim.data.lock().unwrap();
    match data.webhooks.iter().find(|w| w.id.to_string() == id) {
        Some(w) => document(json(&sim.base, w)),
        None => not_found(),
    }
}

/// A 422 naming the attribute at fault, as the API points at it.
fn refuse(attribute: &str, detail: &str) -> Response {
    let body = json!({"jsonapi": {"version": "1.0"}, "errors": [{
        "status": "422", "title": "Unprocessable Entity", "detail": detail,
        "source": {"pointer": format!("/data/attributes/{attribute}")}
    }]});
    (StatusCode::UNPROCESSABLE_ENTITY, [("content-type", JSONAPI)], Json(body)).into_response()
}

/// The attributes a create or an update may set, each checked: `Ok(None)` when absent.
fn url_of(value: &Value) -> Result<Option<String>, Response> {
    match value {
        Value::Null => Ok(None),
        Value::String(url) if url::Url::parse(url).is_ok_and(|u| matches!(u.scheme(), "http" | "https")) => {
            Ok(Some(url.clone()))
        }
        _ => Err(refuse("url", "The url must be a valid URL.")),
    }
}

fn events_of(value: &Value) -> Result<Option<Vec<String>>, Response> {
    match value {
        Value::Null => Ok(None),
        Value::Array(events) if !events.is_empty() => events
            .iter()
            .map(|e| match e.as_str() {
                Some(name) if EVENTS.contains(&name) => Ok(name.to_string()),
                _ => Err(refuse("events", "The selected events are invalid.")),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        _ => Err(refuse("events", "The events field must be an array of event names.")),
    }
}

fn secret_of(value: &Value) -> Result<Option<Secret>, Response> {
    match value {
        Value::Null => Ok(None),
        Value::String(secret) if (6..=40).contains(&secret.chars().count()) => Ok(Some(Secret::new(secret.clone()))),
        _ => Err(refuse("secret", "The secret must be between 6 and 40 characters.")),
    }
}

/// `POST /v1/webhooks`: `url`, `events` and `secret` required, `test_mode` optional, and the
/// store as a relationship (one of the account's).
async fn create(State(sim): State<Arc<Sim>>, body: axum::body::Bytes) -> Response {
    let Ok(body) = serde_json::from_slice::<Value>(&body) else {
        return jsonapi_error(StatusCode::BAD_REQUEST, "Bad Request", "The body is not JSON.");
    };
    if body["data"]["type"] != "webhooks" {
        return super::unprocessable("data.type must be webhooks");
    }
    let a = &body["data"]["attributes"];
    let (url, events, secret) = match (url_of(&a["url"]), events_of(&a["events"]), secret_of(&a["secret"])) {
        (Err(refused), _, _) | (_, Err(refused), _) | (_, _, Err(refused)) => return refused,
        (Ok(None), _, _) => return refuse("url", "The url field is required."),
        (_, Ok(None), _) => return refuse("events", "The events field is required."),
        (_, _, Ok(None)) => return refuse("secret", "The secret field is required."),
        (Ok(Some(url)), Ok(Some(events)), Ok(Some(secret))) => (url, events, secret),
    };
    let test_mode = match &a["test_mode"] {
        Value::Null => false,
        Value::Bool(b) => *b,
        _ => return refuse("test_mode", "The test mode field must be true or false."),
    };
    let store: Option<u64> = body["data"]["relationships"]["store"]["data"]["id"].as_str().and_then(|v| v.parse().ok());
    let Some(store) = store.filter(|s| seed::store_json(&sim.base, *s).is_some()) else {
        return related_missing("/data/relationships/store");
    };
    let webhook = {
        let mut data = sim.data.lock().unwrap();
        let now = now_stamp();
        let webhook = Webhook {
            id: data.webhooks.iter().map(|w| w.id).max().unwrap_or(0) + 1,
            store_id: store,
            url,
            events,
            secret,
            test_mode,
            last_sent_at: None,
            created_at: now.clone(),
            updated_at: now,
        };
        data.webhooks.push(webhook.clone());
        webhook
    };
    let body = json!({"jsonapi": {"version": "1.0"}, "links": {"self": format!("{}/v1/webhooks/{}", sim.base, webhook.id)},
                      "data": json(&sim.base, &webhook)});
    super::jsonapi_response(StatusCode::CREATED, body)
}

/// `PATCH /v1/webhooks/:id`: `url`, `events` and `secret`, each optional.
async fn update(State(sim): State<Arc<Sim>>, Path(id): Path<String>, body: axum::body::Bytes) -> Response {
    let Ok(body) = serde_json::from_slice::<Value>(&body) else {
        return jsonapi_error(StatusCode::BAD_REQUEST, "Bad Request", "The body is not JSON.");
    };
    if body["data"]["type"] != "webhooks" || body["data"]["id"] != id.as_str() {
        return jsonapi_error(StatusCode::CONFLICT, "Conflict", "data.type must be webhooks and data.id the URL's id.");
    }
    let a = &body["data"]["attributes"];
    let (url, events, secret) = match (url_of(&a["url"]), events_of(&a["events"]), secret_of(&a["secret"])) {
        (Err(refused), _, _) | (_, Err(refused), _) | (_, _, Err(refused)) => return refused,
        (Ok(url), Ok(events), Ok(secret)) => (url, events, secret),
    };
    let mut data = sim.data.lock().unwrap();
    let Some(webhook) = data.webhooks.iter_mut().find(|w| w.id.to_string() == id) else { return not_found() };
    if let Some(url) = url {
        webhook.url = url;
    }
    if let Some(events) = events {
        webhook.events = events;
    }
    if let Some(secret) = secret {
        webhook.secret = secret;
    }
    webhook.updated_at = now_stamp();
    document(json(&sim.base, webhook))
}

/// `DELETE /v1/webhooks/:id`: 204 No Content.
async fn delete(State(sim): State<Arc<Sim>>, Path(id): Path<String>) -> Response {
    let mut data = sim.data.lock().unwrap();
    let before = data.webhooks.len();
    data.webhooks.retain(|w| w.id.to_string() != id);
    if data.webhooks.len() == before {
        return not_found();
    }
    StatusCode::NO_CONTENT.into_response()
}

/// Where a delivery of `event` for `store` goes: every webhook of the store that takes it, in
/// the key's mode (the simulator's key is a test-mode one), each stamped as sent now.
pub(super) fn targets(sim: &Sim, store: u64, event: &str) -> Vec<(String, Secret)> {
    let mut data = sim.data.lock().unwrap();
    let now = now_stamp();
    data.webhooks
        .iter_mut()
        .filter(|w| w.store_id == store && w.test_mode && w.events.iter().any(|e| e == event))
        .map(|w| {
            w.last_sent_at = Some(now.clone());
            (w.url.clone(), w.secret.clone())
        })
        .collect()
}
