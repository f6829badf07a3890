//! Discounts and their redemptions (`/v1/discounts`, `/v1/discount-redemptions`): seeded to
//! match the seeded orders that carry a discount, made and deleted through the API, and honoured
//! by checkouts (`checkout_data.discount_code`): the order a discounted checkout makes carries
//! the discount and a redemption. Each behaviour's source is in `docs/PROVIDERS.md`.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{json, Value};

use super::seed::{self, Order, Product, HISTORY_DAYS, OTHER_STORE_ID, STORE_ID};
use super::{
    document, filter, jsonapi_error, not_found, now_stamp, page_body, related_missing, relationships, unprocessable,
    Sim,
};

/// A discount code of a store.
#[derive(Debug, Clone)]
pub struct Discount {
    pub id: u64,
    pub store_id: u64,
    pub name: String,
    pub code: String,
    pub amount: i64,
    pub amount_type: String,
    pub duration: String,
    pub duration_in_months: i64,
    pub starts_at: Option<String>,
    pub expires_at: Option<String>,
    /// `None`: no limit (`is_limited_redemptions` false, `max_redemptions` 0).
    pub max_redemptions: Option<i64>,
    /// Empty: every product (`is_limited_to_products` false).
    pub variant_ids: Vec<u64>,
    pub status: String,
    pub created_at: String,
    pub updated_at: String,
}

/// A discount applied to an order.
#[derive(Debug, Clone)]
pub struct Redemption {
    pub id: u64,
    pub discount_id: u64,
    pub order_id: u64,
    pub discount_name: String,
    pub discount_code: String,
    pub discount_amount: i64,
    pub discount_amount_type: String,
    /// Cents taken off, in the order's currency.
    pub amount: i64,
    pub created_at: String,
}

impl Discount {
    /// Whether a checkout of `variant` in `store` at `now` may take it.
    fn applies(&self, store: u64, variant: u64, now: i64, used: usize) -> bool {
        let at = |t: &Option<String>| t.as_deref().and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok());
        self.store_id == store
            && self.status == "published"
            && at(&self.starts_at).is_none_or(|s| s.timestamp() <= now)
            && at(&self.expires_at).is_none_or(|e| e.timestamp() > now)
            && self.max_redemptions.is_none_or(|max| (used as i64) < max)
            && (self.variant_ids.is_empty() || self.variant_ids.contains(&variant))
    }

    /// What it takes off `price`: a percentage rounded to the cent, or a fixed amount, never
    /// more than the price.
    pub fn off(&self, price: i64) -> i64 {
        let off = if self.amount_type == "percent" { (price * self.amount + 50) / 100 } else { self.amount };
        off.min(price)
    }
}

/// The seeded discounts, and a redemption for each seeded order that carries a discount (by
/// the percentage it took off). Besides those in use: a fixed welcome discount nobody used
/// yet, an expired one, a draft, and a scheduled one limited to "Team" variants and ten uses.
pub fn seed(orders: &[Order], products: &[Product], until: i64) -> (Vec<Discount>, Vec<Redemption>) {
    let made = seed::stamp(until - (HISTORY_DAYS + 30) * 86_400);
    let discount = |id: u64, store: u64, name: &str, code: &str, (amount, kind): (i64, &str)| Discount {
        id,
        store_id: store,
        name: name.into(),
        code: code.into(),
        amount,
        amount_type: kind.into(),
        duration: "once".into(),
        duration_in_months: 1,
        starts_at: None,
        expires_at: None,
        max_redemptions: None,
        variant_ids: Vec::new(),
        status: "published".into(),
        created_at: made.clone(),
        updated_at: made.clone(),
    };
    let team: Vec<u64> = products
        .iter()
        .filter(|p| p.store_id == STORE_ID)
        .flat_map(|p| p.variants.iter().filter(|v| v.name == "Team").map(|v| v.id))
        .collect();
    let discounts = vec![
        discount(1, STORE_ID, "Launch week", "LAUNCH10", (10, "percent")),
        Discount {
            duration: "repeating".into(),
            duration_in_months: 3,
            ..discount(2, STORE_ID, "Spring sale", "SPRING15", (15, "percent"))
        },
        Discount {
            max_redemptions: Some(400),
            ..discount(3, STORE_ID, "Friends of the shop", "FRIENDS20", (20, "percent"))
        },
        Discount { duration: "forever".into(), ..discount(4, STORE_ID, "Loyal customers", "LOYAL25", (25, "percent")) },
        discount(5, STORE_ID, "Welcome, $5 off", "WELCOME5", (500, "fixed")),
        Discount {
            starts_at: Some(seed::stamp(until - (HISTORY_DAYS + 60) * 86_400)),
            expires_at: Some(seed::stamp(until - (HISTORY_DAYS + 20) * 86_400)),
            ..discount(6, STORE_ID, "Early bird", "EARLYBIRD30", (30, "percent"))
        },
        Discount { status: "draft".into(), ..discount(7, STORE_ID, "Next year's plan", "YEARLY2027", (20, "percent")) },
        Discount {
            starts_at: Some(seed::stamp(until + 14 * 86_400)),
            max_redemptions: Some(10),
            variant_ids: team,
            ..discount(8, STORE_ID, "Teams, half price", "TEAM50", (50, "percent"))
        },
        discount(9, OTHER_STORE_ID, "Herbst", "HERBST10", (10, "percent")),
    ];
    let by_percent = |store: u64, percent: i64| {
        discounts
            .iter()
            .find(|d| d.store_id == store && d.amount_type == "percent" && d.amount == percent)
            .or_else(|| discounts.iter().find(|d| d.store_id == store && d.status == "published"))
    };
    let redemptions = orders
        .iter()
        .filter(|o| o.discount_total > 0 && o.subtotal > 0)
        .filter_map(|o| by_percent(o.store_id, (o.discount_total * 100 + o.subtotal / 2) / o.subtotal).map(|d| (o, d)))
        .enumerate()
        .map(|(n, (o, d))| redemption(n as u64 + 1, d, o))
        .collect();
    (discounts, redemptions)
}

/// The redemption of `discount` by `order`.
pub fn redemption(id: u64, discount: &Discount, order: &Order) -> Redemption {
    Redemption {
        id,
        discount_id: discount.id,
        order_id: order.id,
        discount_name: discount.name.clone(),
        discount_code: discount.code.clone(),
        discount_amount: discount.amount,
        discount_amount_type: discount.amount_type.clone(),
        amount: order.discount_total,
        created_at: order.created_at.clone(),
    }
}

/// The discount a checkout's `discount_code` names, if it may take it now (codes compare
/// without regard to case, as customers type them).
pub fn for_checkout<'a>(
    discounts: &'a [Discount],
    redemptions: &[Redemption],
    code: Option<&str>,
    store: u64,
    variant: u64,
) -> Option<&'a Discount> {
    let code = code.filter(|c| !c.is_empty())?;
    let now = chrono::Utc::now().timestamp();
    discounts.iter().find(|d| {
        let used = redemptions.iter().filter(|r| r.discount_id == d.id).count();
        d.code.eq_ignore_ascii_case(code) && d.applies(store, variant, now, used)
    })
}

pub(super) fn routes() -> Router<Arc<Sim>> {
    Router::new()
        .route("/v1/discounts", get(list).post(create))
        .route("/v1/discounts/{id}", get(one).delete(delete))
        .route("/v1/discount-redemptions", get(list_redemptions))
        .route("/v1/discount-redemptions/{id}", get(one_redemption))
}

/// A discount with the documented object's attributes (the SDK's tests see a `test_mode` too,
/// which the docs do not list and Staffroom does not read); its variants' ids when
/// `include=variants` asked for them.
pub(super) fn json(base: &str, d: &Discount, with_variants: bool) -> Value {
    let id = d.id.to_string();
    let mut relationships = relationships(base, "discounts", &id, &["store", "variants", "discount-redemptions"]);
    if with_variants {
        let linkage: Vec<Value> =
            d.variant_ids.iter().map(|v| json!({"type": "variants", "id": v.to_string()})).collect();
        relationships["variants"]["data"] = Value::Array(linkage);
    }
    json!({
        "type": "discounts", "id": id,
        "attributes": {
            "store_id": d.store_id, "name": d.name, "code": d.code, "amount": d.amount, "amount_type": d.amount_type,
            "is_limited_to_products": !d.variant_ids.is_empty(),
            "is_limited_redemptions": d.max_redemptions.is_some(), "max_redemptions": d.max_redemptions.unwrap_or(0),
            "starts_at": d.starts_at, "expires_at": d.expires_at, "duration": d.duration,
            "duration_in_months": d.duration_in_months, "status": d.status,
            "status_formatted": super::capitalise(&d.status), "created_at": d.created_at, "updated_at": d.updated_at
        },
        "relationships": relationships,
        "links": {"self": format!("{base}/v1/discounts/{id}")}
    })
}

pub(super) fn redemption_json(base: &str, r: &Redemption) -> Value {
    let id = r.id.to_string();
    json!({
        "type": "discount-redemptions", "id": id,
        "attributes": {
            "discount_id": r.discount_id, "order_id": r.order_id, "discount_name": r.discount_name,
            "discount_code": r.discount_code, "discount_amount": r.discount_amount,
            "discount_amount_type": r.discount_amount_type, "amount": r.amount,
            "created_at": r.created_at, "updated_at": r.created_at
        },
        "relationships": relationships(base, "discount-redemptions", &id, &["discount", "order"]),
        "links": {"self": format!("{base}/v1/discount-redemptions/{id}")}
    })
}

/// Whether `include` asks for the variants (the only inclusion the simulator renders).
fn includes_variants(params: &HashMap<String, String>) -> bool {
    params.get("include").is_some_and(|i| i.split(',').any(|name| name.trim() == "variants"))
}

/// The variants `discounts` name, as the top-level `included` of a compound document.
fn included_variants(sim: &Sim, discounts: &[&Discount]) -> Value {
    let data = sim.data.lock().unwrap();
    let mut wanted: Vec<u64> = discounts.iter().flat_map(|d| d.variant_ids.iter().copied()).collect();
    wanted.sort_unstable();
    wanted.dedup();
    let variants = data.products.iter().flat_map(|p| p.variants.iter()).filter(|v| wanted.contains(&v.id));
    Value::Array(variants.map(|v| super::variant_json(&sim.base, v)).collect())
}

/// `GET /v1/discounts`, filtered by `store_id`, oldest first (its links say `sort=createdAt`).
async fn list(State(sim): State<Arc<Sim>>, Query(params): Query<HashMap<String, String>>) -> Response {
    let with_variants = includes_variants(&params);
    let discounts: Vec<Discount> = {
        let data = sim.data.lock().unwrap();
        let mut discounts: Vec<Discount> = data
            .discounts
            .iter()
            .filter(|d| filter(&params, "store_id").is_none_or(|s| d.store_id.to_string() == s))
            .cloned()
            .collect();
        discounts.sort_by_key(|d| (d.created_at.clone(), d.id));
        discounts
    };
    let mut body =
        page_body(&sim, "discounts", &params, discounts.iter().collect(), |d| json(&sim.base, d, with_variants));
    if with_variants {
        let shown: Vec<&Discount> = body["data"]
            .as_array()
            .map(|items| {
                items
                    .iter()
                    .filter_map(|i| discounts.iter().find(|d| Some(d.id.to_string().as_str()) == i["id"].as_str()))
                    .collect()
            })
            .unwrap_or_default();
        body["included"] = included_variants(&sim, &shown);
    }
    super::jsonapi_response(StatusCode::OK, body)
}

async fn one(
    State(sim): State<Arc<Sim>>,
    Path(id): Path<String>,
    Query(params): Query<HashMap<String, String>>,
) -> Response {
    let found = sim.data.lock().unwrap().discounts.iter().find(|d| d.id.to_string() == id).cloned();
    let Some(discount) = found else { return not_found() };
    if !includes_variants(&params) {
        return document(json(&sim.base, &discount, false));
    }
    let body = json!({
        "jsonapi": {"version": "1.0"}, "links": {"self": format!("{}/v1/discounts/{id}", sim.base)},
        "data": json(&sim.base, &discount, true), "included": included_variants(&sim, &[&discount])
    });
    super::jsonapi_response(StatusCode::OK, body)
}

/// `POST /v1/discounts`: `name`, `code` (3 to 256 capital letters and digits), `amount` and
/// `amount_type` (`percent` or `fixed`); `duration` (default `once`), `duration_in_months`
/// (default 1), `starts_at`, `expires_at`, `is_limited_redemptions` with `max_redemptions`,
/// `is_limited_to_products` with the `variants` relationship (variants sent without it do not
/// limit the discount); the `store` relationship. Answers 201 with the discount. A code already
/// in use is accepted, as the live API was seen to do.
async fn create(State(sim): State<Arc<Sim>>, body: axum::body::Bytes) -> Response {
    let Ok(body) = serde_json::from_slice::<Value>(&body) else {
        return jsonapi_error(StatusCode::BAD_REQUEST, "Bad Request", "The body is not JSON.");
    };
    if body["data"]["type"] != "discounts" {
        return unprocessable("data.type must be discounts");
    }
    let a = &body["data"]["attributes"];
    let refuse = |attribute: &str, detail: &str| {
        let body = json!({"jsonapi": {"version": "1.0"}, "errors": [{
            "status": "422", "title": "Unprocessable Entity", "detail": detail,
            "source": {"pointer": format!("/data/attributes/{attribute}")}
        }]});
        (StatusCode::UNPROCESSABLE_ENTITY, [("content-type", super::JSONAPI)], Json(body)).into_response()
    };
    let Some(name) = a["name"].as_str().filter(|n| !n.trim().is_empty()) else {
        return refuse("name", "The name field is required.");
    };
    let code = a["code"].as_str().unwrap_or_default();
    if !(3..=256).contains(&code.len()) || !code.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit()) {
        return refuse("code", "The code must be 3 to 256 uppercase letters and numbers.");
    }
    let Some(amount) = a["amount"].as_i64().filter(|n| *n >= 0) else {
        return refuse("amount", "The amount must be a whole number.");
    };
    let Some(amount_type) = a["amount_type"].as_str().filter(|t| matches!(*t, "percent" | "fixed")) else {
        return refuse("amount_type", "The amount type must be percent or fixed.");
    };
    let duration = match &a["duration"] {
        Value::Null => "once",
        Value::String(d) if matches!(d.as_str(), "once" | "repeating" | "forever") => d.as_str(),
        _ => return refuse("duration", "The duration must be once, repeating or forever."),
    };
    let duration_in_months = match &a["duration_in_months"] {
        Value::Null => 1,
        v => match v.as_i64().filter(|n| *n >= 1) {
            Some(n) => n,
            None => return refuse("duration_in_months", "The duration in months must be a positive whole number."),
        },
    };
    let mut times = [None, None];
    for (slot, attribute) in times.iter_mut().zip(["starts_at", "expires_at"]) {
        match &a[attribute] {
            Value::Null => {}
            Value::String(t) if chrono::DateTime::parse_from_rfc3339(t).is_ok() => *slot = Some(t.clone()),
            _ => return refuse(attribute, "The date must be an ISO 8601 date-time or null."),
        }
    }
    let max_redemptions = match a["is_limited_redemptions"].as_bool().unwrap_or(false) {
        false => None,
        true => match a["max_redemptions"].as_i64().filter(|n| *n >= 1) {
            Some(n) => Some(n),
            None => return refuse("max_redemptions", "The max redemptions must be a positive whole number."),
        },
    };
    let store: Option<u64> = body["data"]["relationships"]["store"]["data"]["id"].as_str().and_then(|v| v.parse().ok());
    let Some(store) = store.filter(|s| seed::store_json(&sim.base, *s).is_some()) else {
        return related_missing("/data/relationships/store");
    };
    let discount = {
        let mut data = sim.data.lock().unwrap();
        let mut variant_ids = Vec::new();
        if a["is_limited_to_products"].as_bool().unwrap_or(false) {
            let named = body["data"]["relationships"]["variants"]["data"].as_array().cloned().unwrap_or_default();
            for v in named {
                let id = v["id"].as_str().and_then(|id| id.parse::<u64>().ok());
                let known = data.products.iter().filter(|p| p.store_id == store).flat_map(|p| p.variants.iter());
                match id.filter(|id| known.clone().any(|k| k.id == *id)) {
                    Some(id) => variant_ids.push(id),
                    None => return related_missing("/data/relationships/variants"),
                }
            }
        }
        let now = now_stamp();
        let discount = Discount {
            // Never an id a deleted discount had: its redemptions still name it.
            id: data
                .discounts
                .iter()
                .map(|d| d.id)
                .chain(data.redemptions.iter().map(|r| r.discount_id))
                .max()
                .unwrap_or(0)
                + 1,
            store_id: store,
            name: name.to_string(),
            code: code.to_string(),
            amount,
            amount_type: amount_type.to_string(),
            duration: duration.to_string(),
            duration_in_months,
            starts_at: times[0].clone(),
            expires_at: times[1].clone(),
            max_redemptions,
            variant_ids,
            status: "published".into(),
            created_at: now.clone(),
            updated_at: now,
        };
        data.discounts.push(discount.clone());
        discount
    };
    let body = json!({"jsonapi": {"version": "1.0"}, "links": {"self": format!("{}/v1/discounts/{}", sim.base, discount.id)},
                      "data": json(&sim.base, &discount, false)});
    super::jsonapi_response(StatusCode::CREATED, body)
}

/// `DELETE /v1/discounts/:id`: 204 No Content.
async fn delete(State(sim): State<Arc<Sim>>, Path(id): Path<String>) -> Response {
    let mut data = sim.data.lock().unwrap();
    let before = data.discounts.len();
    data.discounts.retain(|d| d.id.to_string() != id);
    if data.discounts.len() == before {
        return not_found();
    }
    StatusCode::NO_CONTENT.into_response()
}

/// `GET /v1/discount-redemptions`, filtered by `discount_id` and `order_id`, newest first.
async fn list_redemptions(State(sim): State<Arc<Sim>>, Query(params): Query<HashMap<String, String>>) -> Response {
    let mut redemptions: Vec<Redemption> = {
        let data = sim.data.lock().unwrap();
        data.redemptions
            .iter()
            .filter(|r| filter(&params, "discount_id").is_none_or(|d| r.discount_id.to_string() == d))
            .filter(|r| filter(&params, "order_id").is_none_or(|o| r.order_id.to_string() == o))
            .cloned()
            .collect()
    };
    redemptions.sort_by(|a, b| b.created_at.cmp(&a.created_at).then(b.id.cmp(&a.id)));
    let body = page_body(&sim, "discount-redemptions", &params, redemptions.iter().collect(), |r| {
        redemption_json(&sim.base, r)
    });
    super::jsonapi_response(StatusCode::OK, body)
}

async fn one_redemption(State(sim): State<Arc<Sim>>, Path(id): Path<String>) -> Response {
    let data = sim.data.lock().unwrap();
    match data.redemptions.iter().find(|r| r.id.to_string() == id) {
        Some(r) => document(redemption_json(&sim.base, r)),
        None => not_found(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_redemptions_match_the_orders_that_carry_a_discount() {
        let (products, customers) = (seed::products(30), seed::customers(460));
        let orders = seed::history(1_600, 1_795_000_000, &products, &customers);
        let (discounts, redemptions) = seed(&orders, &products, 1_795_000_000);
        let discounted = orders.iter().filter(|o| o.discount_total > 0).count();
        assert!(discounted > 100, "{discounted}");
        assert_eq!(redemptions.len(), discounted);
        for r in &redemptions {
            let order = orders.iter().find(|o| o.id == r.order_id).unwrap();
            let discount = discounts.iter().find(|d| d.id == r.discount_id).unwrap();
            assert_eq!(order.store_id, discount.store_id, "a redemption stays in its store");
            assert_eq!(r.amount, order.discount_total);
        }
        // Every kind a real store has: fixed and percent, limits, dates, a draft, limited to variants.
        assert!(discounts.iter().any(|d| d.amount_type == "fixed"));
        assert!(discounts.iter().any(|d| d.status == "draft"));
        assert!(discounts.iter().any(|d| d.expires_at.is_some() && d.max_redemptions.is_none()));
        assert!(discounts.iter().any(|d| !d.variant_ids.is_empty() && d.max_redemptions == Some(10)));
    }

    #[test]
    fn a_discount_takes_off_no_more_than_the_price() {
        let (products, _) = (seed::products(30), ());
        let (discounts, _) = seed(&[], &products, 1_795_000_000);
        let launch = discounts.iter().find(|d| d.code == "LAUNCH10").unwrap();
        assert_eq!(launch.off(3_300), 330);
        assert_eq!(launch.off(999), 100);
        let welcome = discounts.iter().find(|d| d.code == "WELCOME5").unwrap();
        assert_eq!((welcome.off(3_300), welcome.off(300)), (500, 300));
        let now = 1_795_000_000;
        assert!(!discounts.iter().find(|d| d.code == "EARLYBIRD30").unwrap().applies(STORE_ID, 1, now, 0), "expired");
        assert!(!discounts.iter().find(|d| d.code == "YEARLY2027").unwrap().applies(STORE_ID, 1, now, 0), "draft");
        assert!(!launch.applies(OTHER_STORE_ID, 1, now, 0), "another store's");
    }
}
