//! A simulator of the Lemon Squeezy API v1 on loopback: the same JSON:API shapes, pagination,
//! filters, error bodies and 300 requests/minute limit, over seeded data; fault switches for
//! tests; and a checkout page whose Pay button sends signed webhooks to the app's receiver.

pub mod account;
mod checkout;
mod discounts;
pub mod seed;
mod triggers;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{Path, Query, Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use self::seed::{Customer, Invoice, LicenseKey, Order, Product, Subscription, Variant};
use staffroom_secret::Secret;

use crate::Result;

/// How the simulator misbehaves, for tests of the client's resilience.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Faults {
    /// Added to every API answer.
    pub latency_ms: u64,
    /// Share of API requests answered 500 (0.0 to 1.0).
    pub error_rate: f64,
    /// The next this-many API requests are answered 429.
    pub burst_429: u32,
    /// API requests hang (until the client gives up).
    pub timeout: bool,
    /// Every API request is answered 401, as if the key were revoked.
    pub reject_key: bool,
    /// The next this-many creates and refunds (`POST /checkouts`, `POST /orders/:id/refund`)
    /// are carried out, then answered 500, as when the provider fails after committing: the
    /// answer is lost, the change is made.
    pub fail_after_commit: u32,
    /// How the checkout page's webhooks carry `meta.webhook_id` (undocumented by Lemon
    /// Squeezy, so the simulator can send each shape a provider could).
    pub webhook_ids: WebhookIds,
    /// Deliveries are sent (and the webhooks' `last_sent_at` stamped) but never arrive, as when
    /// the tunnel or proxy in front of the receiver is gone.
    pub lost_deliveries: bool,
}

/// Shapes `meta.webhook_id` could take: Lemon Squeezy sends a UUID there but does not say
/// what it identifies.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WebhookIds {
    /// One id for every event of one purchase (order_created and subscription_created share it).
    #[default]
    PerPurchase,
    /// A new id for every delivery.
    PerDelivery,
    /// The same id for everything this endpoint receives.
    PerEndpoint,
    /// No `webhook_id` at all (the documented payloads have none).
    Absent,
}

/// Sizes and limits of a simulator.
#[derive(Debug, Clone)]
pub struct SimulatorOptions {
    pub products: u64,
    /// Customers with subscriptions among them.
    pub customers: u64,
    pub subscriptions: u64,
    /// The store's past orders, and the customers who placed only those (SPEC section 11).
    pub orders: u64,
    pub order_customers: u64,
    /// When the order history ends (unix seconds; now when `None`): the sandbox passes its
    /// first start, so the history is the same on every run.
    pub history_until: Option<i64>,
    /// The provider allows 300 requests per this window (60 s; tests may shrink it).
    pub rate_window: Duration,
}

impl Default for SimulatorOptions {
    fn default() -> Self {
        SimulatorOptions {
            products: 30,
            customers: 60,
            subscriptions: 245,
            orders: 1_600,
            order_customers: 400,
            history_until: None,
            rate_window: Duration::from_secs(60),
        }
    }
}

/// The id of a webhook registered from outside the API (`set_webhook_target`): far above those
/// the API gives.
const DASHBOARD_WEBHOOK: u64 = 900_000;

/// Requests the provider allows per window.
pub const RATE_LIMIT: usize = 300;

#[derive(Debug, Clone)]
struct Checkout {
    id: String,
    store_id: u64,
    variant_id: u64,
    email: String,
    name: String,
    country: Option<String>,
    custom: Map<String, Value>,
    /// `checkout_data` as the request sent it (returned as the API returns it).
    data: Value,
    status: &'static str,
    created_at: String,
    /// Creation order, for "newest first" within one second.
    seq: u64,
}

struct Data {
    products: Vec<Product>,
    customers: Vec<Customer>,
    subscriptions: Vec<Subscription>,
    orders: Vec<Order>,
    invoices: Vec<Invoice>,
    license_keys: Vec<LicenseKey>,
    discounts: Vec<discounts::Discount>,
    redemptions: Vec<discounts::Redemption>,
    checkouts: HashMap<String, Checkout>,
    webhooks: Vec<account::Webhook>,
}

struct Sim {
    base: String,
    api_key: String,
    data: Mutex<Data>,
    faults: Mutex<Faults>,
    rng: Mutex<seed::Rng>,
    /// When each API request arrived (kept for one window, for the limit and for tests).
    arrivals: Mutex<Vec<Instant>>,
    total_requests: Mutex<u64>,
    /// Every change asked of the API (`PATCH /v1/subscriptions/7`), in order: what tests read to
    /// know that nothing was sent.
    writes: Mutex<Vec<String>>,
    /// The most requests seen in one window so far.
    max_in_window: Mutex<usize>,
    /// List requests being answered now, and the most ever answered at once: a client that
    /// syncs one list at a time never has two in flight, so two means two syncs overlapped.
    lists_in_flight: Arc<Mutex<(usize, usize)>>,
    rate_window: Duration,
    /// The endpoint-wide `webhook_id` (for [`WebhookIds::PerEndpoint`]).
    endpoint_webhook_id: String,
    http: reqwest::Client,
}

/// A running simulator; it stops when the last handle is dropped... or with the process.
#[derive(Clone)]
pub struct PaymentSimulator {
    sim: Arc<Sim>,
    shutdown: Arc<tokio::sync::Notify>,
}

impl PaymentSimulator {
    /// Starts a simulator on 127.0.0.1 with a random port.
    pub async fn start(options: SimulatorOptions) -> Result<Self> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let base = format!("http://{}", listener.local_addr()?);
        let (simulator, app) = Self::build(options, base)?;
        let stop = simulator.shutdown.clone();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).with_graceful_shutdown(async move { stop.notified().await }).await;
        });
        Ok(simulator)
    }

    /// A simulator whose routes answer at `base` (where the caller serves the router, as
    /// `staffroom sandbox-providers` does beside the Google simulator).
    pub fn build(options: SimulatorOptions, base: String) -> Result<(Self, Router)> {
        let products = seed::products(options.products);
        let mut customers = seed::customers(options.customers + options.order_customers);
        let subscribers = &customers[..options.customers as usize];
        let mut subscriptions = seed::subscriptions(options.subscriptions, &products, subscribers);
        let until = options.history_until.unwrap_or_else(|| chrono::Utc::now().timestamp());
        let invoices = seed::invoices(&mut subscriptions, &products, &customers, until);
        let orders = seed::history(options.orders, until, &products, &customers);
        let license_keys = seed::license_keys(&orders, until);
        let (discounts, redemptions) = discounts::seed(&orders, &products, until);
        seed::date_customers(&mut customers, &orders, &subscriptions);
        let last = |ids: &mut dyn Iterator<Item = u64>| ids.max().unwrap_or(0);
        let (their_customers, their_subscriptions) = seed::other_store_subscribers(
            &products,
            last(&mut customers.iter().map(|c| c.id)),
            last(&mut subscriptions.iter().map(|s| s.id)),
        );
        customers.extend(their_customers);
        subscriptions.extend(their_subscriptions);
        let sim = Arc::new(Sim {
            base: base.clone(),
            api_key: format!("sandbox_{}", uuid::Uuid::new_v4().simple()),
            data: Mutex::new(Data {
                products,
                customers,
                subscriptions,
                orders,
                invoices,
                license_keys,
                discounts,
                redemptions,
                checkouts: HashMap::new(),
                webhooks: Vec::new(),
            }),
            faults: Mutex::new(Faults::default()),
            rng: Mutex::new(seed::Rng::new(99)),
            arrivals: Mutex::new(Vec::new()),
            total_requests: Mutex::new(0),
            writes: Mutex::new(Vec::new()),
            max_in_window: Mutex::new(0),
            lists_in_flight: Arc::new(Mutex::new((0, 0))),
            rate_window: options.rate_window,
            endpoint_webhook_id: uuid::Uuid::new_v4().to_string(),
            http: reqwest::Client::builder().timeout(Duration::from_secs(10)).build().map_err(std::io::Error::other)?,
        });
        let api = Router::new()
            .route("/v1/stores/{id}", get(store))
            .route("/v1/products", get(list_products))
            .route("/v1/products/{id}", get(one_product))
            .route("/v1/variants", get(list_variants))
            .route("/v1/variants/{id}", get(one_variant))
            .route("/v1/customers", get(list_customers))
            .route("/v1/customers/{id}", get(one_customer))
            .route("/v1/subscriptions", get(list_subscriptions))
            .route(
                "/v1/subscriptions/{id}",
                get(one_subscription).patch(patch_subscription).delete(cancel_subscription),
            )
            .route("/v1/orders", get(list_orders))
            .route("/v1/orders/{id}", get(one_order))
            .route("/v1/orders/{id}/refund", post(refund_order))
            .route("/v1/subscription-invoices", get(list_invoices))
            .route("/v1/subscription-invoices/{id}", get(one_invoice))
            .route("/v1/subscription-invoices/{id}/refund", post(refund_invoice))
            .route("/v1/license-keys", get(list_license_keys))
            .route("/v1/license-keys/{id}", get(one_license_key).patch(patch_license_key))
            .route("/v1/license-key-instances", get(list_instances))
            .route("/v1/license-key-instances/{id}", get(one_instance))
            .route("/v1/order-items", get(list_order_items))
            .route("/v1/order-items/{id}", get(one_order_item))
            .route("/v1/checkouts", post(create_checkout).get(list_checkouts))
            .route("/v1/checkouts/{id}", get(one_checkout))
            .merge(discounts::routes())
            .merge(account::routes())
            .fallback(|| async { jsonapi_error(StatusCode::NOT_FOUND, "Not Found", "No such endpoint") })
            .layer(axum::middleware::from_fn_with_state(sim.clone(), gate));
        let app = Router::new()
            .merge(api)
            .route("/__sandbox/faults", post(set_faults).get(get_faults))
            .route("/__sandbox/stats", get(stats))
            .route("/__sandbox/renewal-failed", post(triggers::renewal_failed))
            .merge(checkout::routes())
            .with_state(sim.clone());
        Ok((PaymentSimulator { sim, shutdown: Arc::new(tokio::sync::Notify::new()) }, app))
    }

    /// The API base URL (`http://127.0.0.1:PORT/v1`).
    pub fn api_url(&self) -> String {
        format!("{}/v1", self.sim.base)
    }

    /// The server's root URL.
    pub fn base_url(&self) -> &str {
        &self.sim.base
    }

    /// The API key the simulator accepts.
    pub fn api_key(&self) -> Secret {
        Secret::new(self.sim.api_key.clone())
    }

    /// The simulated store's id.
    pub fn store_id(&self) -> String {
        seed::STORE_ID.to_string()
    }

    /// Sets the fault switches.
    pub fn set_faults(&self, faults: Faults) {
        *self.sim.faults.lock().unwrap() = faults;
    }

    /// Registers a webhook of the store for every event, as an admin would in the dashboard: the
    /// checkout page's Pay then sends its deliveries to `url`, signed with `secret` (replacing a
    /// webhook registered this way before).
    pub fn set_webhook_target(&self, url: String, secret: Secret) {
        let mut data = self.sim.data.lock().unwrap();
        let now = now_stamp();
        data.webhooks.retain(|w| !(w.store_id == seed::STORE_ID && w.id == DASHBOARD_WEBHOOK));
        data.webhooks.push(account::Webhook {
            id: DASHBOARD_WEBHOOK,
            store_id: seed::STORE_ID,
            url,
            events: account::EVENTS.iter().map(|e| e.to_string()).collect(),
            secret,
            test_mode: true,
            last_sent_at: None,
            created_at: now.clone(),
            updated_at: now,
        });
    }

    /// The store's webhooks as registered (with their secrets), for tests.
    pub fn webhooks(&self) -> Vec<account::Webhook> {
        self.sim.data.lock().unwrap().webhooks.clone()
    }

    /// Every change asked of the API so far (`DELETE /v1/subscriptions/7`), in order.
    pub fn writes(&self) -> Vec<String> {
        self.sim.writes.lock().unwrap().clone()
    }

    /// How many API requests arrived so far.
    pub fn request_count(&self) -> u64 {
        *self.sim.total_requests.lock().unwrap()
    }

    /// The most API requests seen in any one rate window so far (from the arrival log).
    pub fn max_in_any_window(&self) -> usize {
        *self.sim.max_in_window.lock().unwrap()
    }

    /// The most list requests ever answered at once: more than one means two syncs overlapped.
    pub fn max_lists_at_once(&self) -> usize {
        self.sim.lists_in_flight.lock().unwrap().1
    }

    /// How many cents of provider order `id` have been refunded, for tests.
    pub fn refunded_amount(&self, id: &str) -> Option<i64> {
        self.sim.data.lock().unwrap().orders.iter().find(|o| o.id.to_string() == id).map(|o| o.refunded_amount)
    }

    /// A licence key's status and activation limit, for tests.
    pub fn license_key(&self, id: &str) -> Option<(String, Option<i64>)> {
        let data = self.sim.data.lock().unwrap();
        let now = chrono::Utc::now().timestamp();
        data.license_keys
            .iter()
            .find(|k| k.id.to_string() == id)
            .map(|k| (k.status(now).to_string(), k.activation_limit))
    }

    /// A subscription invoice's status and refunded cents, for tests.
    pub fn invoice(&self, id: &str) -> Option<(String, i64)> {
        let data = self.sim.data.lock().unwrap();
        data.invoices.iter().find(|i| i.id.to_string() == id).map(|i| (i.status.to_string(), i.refunded_amount))
    }

    /// A subscription's provider status, for tests.
    pub fn subscription_status(&self, id: u64) -> Option<String> {
        let data = self.sim.data.lock().unwrap();
        data.subscriptions.iter().find(|s| s.id == id).map(|s| s.status.to_string())
    }

    /// How many checkouts exist, for tests.
    pub fn checkout_count(&self) -> usize {
        self.sim.data.lock().unwrap().checkouts.len()
    }

    /// The API's JSON of one resource of each kind the clients read, for the contract suite.
    pub fn sample_resources(&self) -> Vec<Value> {
        let data = self.sim.data.lock().unwrap();
        let base = &self.sim.base;
        let product = &data.products[0];
        let mut samples = vec![
            product_json(base, product),
            variant_json(base, &product.variants[0]),
            customer_json(base, &data.customers[0], customer_figures(&data).get(&data.customers[0].id)),
            subscription_json(base, &data.subscriptions[0]),
            seed::store_json(base, seed::STORE_ID).expect("our store exists"),
        ];
        // A seeded order and the newest (a checkout's, when a test paid one), with an item.
        samples.extend([data.orders.first(), data.orders.last()].into_iter().flatten().map(|o| order_json(base, o)));
        samples.extend(data.orders.first().map(|o| order_item_json(base, o)));
        samples.extend(data.checkouts.values().take(1).map(|c| checkout_json(base, c)));
        // A licence key, one of its machines, a paid invoice and a refunded one.
        let now = chrono::Utc::now().timestamp();
        samples
            .extend(data.license_keys.iter().find(|k| !k.instances.is_empty()).map(|k| license_key_json(base, k, now)));
        samples.extend(data.license_keys.iter().find_map(|k| Some(instance_json(base, k.id, k.instances.first()?))));
        samples.extend(data.invoices.iter().find(|i| i.status == "paid").map(|i| invoice_json(base, i)));
        samples.extend(data.invoices.iter().find(|i| i.status == "refunded").map(|i| invoice_json(base, i)));
        // A discount limited to variants (with them included) and a redemption.
        samples
            .extend(data.discounts.iter().find(|d| !d.variant_ids.is_empty()).map(|d| discounts::json(base, d, true)));
        samples.extend(data.redemptions.first().map(|r| discounts::redemption_json(base, r)));
        // The account's owner, and a webhook of the store.
        samples.push(account::user_json(base));
        samples.extend(data.webhooks.iter().find(|w| w.id != DASHBOARD_WEBHOOK).map(|w| account::json(base, w)));
        samples
    }

    /// Stops the server.
    pub fn stop(&self) {
        self.shutdown.notify_one();
    }
}

// ---------------------------------------------------------------------------------------------
// The gate every API request passes: faults, the rate limit, the key.

fn jsonapi_error(status: StatusCode, title: &str, detail: &str) -> Response {
    let body = json!({
        "jsonapi": {"version": "1.0"},
        "errors": [{"status": status.as_u16().to_string(), "title": title, "detail": detail}]
    });
    (status, [("content-type", "application/vnd.api+json")], Json(body)).into_response()
}

/// The API requires the JSON:API media type in both `Accept` and `Content-Type` (its "Requests"
/// page); JSON:API answers 406 for an `Accept` without it and 415 for a body of another type.
fn media_type_refusal(headers: &HeaderMap, has_body: bool) -> Option<Response> {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or("");
    let accepts = header("accept").split(',').any(|t| t.trim() == JSONAPI);
    if !accepts {
        return Some(jsonapi_error(
            StatusCode::NOT_ACCEPTABLE,
            "Not Acceptable",
            "The Accept header must be application/vnd.api+json.",
        ));
    }
    if has_body && header("content-type").trim() != JSONAPI {
        return Some(jsonapi_error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Unsupported Media Type",
            "The Content-Type header must be application/vnd.api+json.",
        ));
    }
    None
}

const JSONAPI: &str = "application/vnd.api+json";

/// Counts one list request in flight while it lives (the gate's whole answer, latency included).
struct ListInFlight(Arc<Mutex<(usize, usize)>>);

impl ListInFlight {
    /// Counts `request` when it reads a list (`GET /v1/{resource}`, no id).
    fn of(sim: &Sim, request: &Request) -> Option<ListInFlight> {
        let path = request.uri().path().trim_end_matches('/');
        let is_list = request.method() == axum::http::Method::GET
            && path.strip_prefix("/v1/").is_some_and(|resource| !resource.is_empty() && !resource.contains('/'));
        if !is_list {
            return None;
        }
        let mut counts = sim.lists_in_flight.lock().unwrap();
        counts.0 += 1;
        counts.1 = counts.1.max(counts.0);
        Some(ListInFlight(sim.lists_in_flight.clone()))
    }
}

impl Drop for ListInFlight {
    fn drop(&mut self) {
        self.0.lock().unwrap().0 -= 1;
    }
}

async fn gate(State(sim): State<Arc<Sim>>, headers: HeaderMap, request: Request, next: Next) -> Response {
    let now = Instant::now();
    let _in_flight = ListInFlight::of(&sim, &request);
    let in_window = {
        let mut arrivals = sim.arrivals.lock().unwrap();
        arrivals.retain(|t| now.duration_since(*t) < sim.rate_window);
        arrivals.push(now);
        arrivals.len()
    };
    {
        *sim.total_requests.lock().unwrap() += 1;
        let mut max = sim.max_in_window.lock().unwrap();
        *max = (*max).max(in_window);
    }
    let faults = sim.faults.lock().unwrap().clone();
    if faults.timeout {
        tokio::time::sleep(Duration::from_secs(300)).await;
    }
    if faults.latency_ms > 0 {
        tokio::time::sleep(Duration::from_millis(faults.latency_ms)).await;
    }
    if faults.burst_429 > 0 {
        sim.faults.lock().unwrap().burst_429 -= 1;
        return jsonapi_error(StatusCode::TOO_MANY_REQUESTS, "Too Many Requests", "Rate limit exceeded (burst)");
    }
    if in_window > RATE_LIMIT {
        return jsonapi_error(
            StatusCode::TOO_MANY_REQUESTS,
            "Too Many Requests",
            "Rate limit of 300 requests per minute exceeded",
        );
    }
    if faults.error_rate > 0.0 && sim.rng.lock().unwrap().unit() < faults.error_rate {
        return jsonapi_error(StatusCode::INTERNAL_SERVER_ERROR, "Internal Server Error", "Simulated failure");
    }
    let authorized = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .is_some_and(|key| key == sim.api_key);
    if faults.reject_key || !authorized {
        return jsonapi_error(StatusCode::UNAUTHORIZED, "Unauthorized", "Unauthenticated.");
    }
    let has_body = matches!(*request.method(), axum::http::Method::POST | axum::http::Method::PATCH);
    if let Some(refusal) = media_type_refusal(&headers, has_body) {
        return refusal;
    }
    if request.method() != axum::http::Method::GET {
        sim.writes.lock().unwrap().push(format!("{} {}", request.method(), request.uri().path()));
    }
    let mut response = next.run(request).await;
    let remaining = RATE_LIMIT.saturating_sub(in_window);
    response.headers_mut().insert("x-ratelimit-limit", RATE_LIMIT.into());
    response.headers_mut().insert("x-ratelimit-remaining", remaining.into());
    response
}

async fn set_faults(State(sim): State<Arc<Sim>>, Json(faults): Json<Faults>) -> Json<Faults> {
    *sim.faults.lock().unwrap() = faults.clone();
    Json(faults)
}

async fn get_faults(State(sim): State<Arc<Sim>>) -> Json<Faults> {
    Json(sim.faults.lock().unwrap().clone())
}

async fn stats(State(sim): State<Arc<Sim>>) -> Json<Value> {
    Json(json!({
        "requests": *sim.total_requests.lock().unwrap(),
        "writes": sim.writes.lock().unwrap().clone(),
        "maxInWindow": *sim.max_in_window.lock().unwrap(),
        "maxListsAtOnce": sim.lists_in_flight.lock().unwrap().1,
    }))
}

// ---------------------------------------------------------------------------------------------
// JSON:API documents.

type Params = Query<HashMap<String, String>>;

fn document(data: Value) -> Response {
    (StatusCode::OK, [("content-type", JSONAPI)], Json(json!({"jsonapi": {"version": "1.0"}, "data": data})))
        .into_response()
}

/// One page of `items`, with `meta.page` in camelCase and `links` like the real API. Only the
/// page's own items are rendered: a list of 10,000 rendered whole for every page of 100 made a
/// full sync wait on the simulator rather than on the rate limit.
fn page<T>(
    sim: &Sim,
    path: &str,
    params: &HashMap<String, String>,
    items: Vec<T>,
    render: impl Fn(T) -> Value,
) -> Response {
    jsonapi_response(StatusCode::OK, page_body(sim, path, params, items, render))
}

/// A JSON:API document answered with `status`.
fn jsonapi_response(status: StatusCode, body: Value) -> Response {
    (status, [("content-type", JSONAPI)], Json(body)).into_response()
}

/// The document of one page of a list (see [`page`]), for a caller that adds to it.
fn page_body<T>(
    sim: &Sim,
    path: &str,
    params: &HashMap<String, String>,
    items: Vec<T>,
    render: impl Fn(T) -> Value,
) -> Value {
    let number = params.get("page[number]").and_then(|v| v.parse::<usize>().ok()).filter(|n| *n >= 1).unwrap_or(1);
    let size =
        params.get("page[size]").and_then(|v| v.parse::<usize>().ok()).filter(|n| *n >= 1).unwrap_or(10).min(100);
    let total = items.len();
    let last = total.div_ceil(size).max(1);
    let from = (number - 1) * size;
    let data: Vec<Value> = items.into_iter().skip(from).take(size).map(render).collect();
    let mut filters: Vec<(String, String)> =
        params.iter().filter(|(k, _)| k.starts_with("filter[")).map(|(k, v)| (k.clone(), v.clone())).collect();
    filters.sort();
    let link = |n: usize| {
        let mut url = url::Url::parse(&format!("{}/v1/{path}", sim.base)).expect("simulator URLs are valid");
        {
            let mut q = url.query_pairs_mut();
            for (k, v) in &filters {
                q.append_pair(k, v);
            }
            // What the list included, every page includes.
            if let Some(include) = params.get("include") {
                q.append_pair("include", include);
            }
            q.append_pair("page[number]", &n.to_string());
            q.append_pair("page[size]", &size.to_string());
        }
        url.to_string()
    };
    let mut links = json!({"first": link(1), "last": link(last)});
    if number < last {
        links["next"] = link(number + 1).into();
    }
    if number > 1 {
        links["prev"] = link(number - 1).into();
    }
    let shown = data.len();
    json!({
        "jsonapi": {"version": "1.0"},
        "meta": {"page": {
            "currentPage": number, "from": if shown > 0 { from + 1 } else { 0 }, "lastPage": last,
            "perPage": size, "to": from + shown, "total": total
        }},
        "links": links,
        "data": data
    })
}

/// A request naming a related resource (`pointer`, e.g. `/data/relationships/store`) that does
/// not exist, or is another store's.
fn related_missing(pointer: &str) -> Response {
    let body = json!({"jsonapi": {"version": "1.0"}, "errors": [{
        "status": "404", "title": "Not Found", "detail": "The related resource does not exist.",
        "source": {"pointer": pointer}
    }]});
    jsonapi_response(StatusCode::NOT_FOUND, body)
}

fn not_found() -> Response {
    jsonapi_error(StatusCode::NOT_FOUND, "Not Found", "The requested resource does not exist.")
}

/// JSON:API relationship links of a resource, as the API writes them.
fn relationships(base: &str, kind: &str, id: &str, names: &[&str]) -> Value {
    let map: Map<String, Value> = names
        .iter()
        .map(|name| {
            let links = json!({"links": {
                "related": format!("{base}/v1/{kind}/{id}/{name}"),
                "self": format!("{base}/v1/{kind}/{id}/relationships/{name}")
            }});
            (name.to_string(), links)
        })
        .collect();
    Value::Object(map)
}

/// The price a product shows: its first sellable variant's.
fn product_price(p: &Product) -> i64 {
    p.variants.iter().find(|v| seed::sellable(p, v)).map(|v| v.price).unwrap_or(0)
}

fn product_json(base: &str, p: &Product) -> Value {
    let prices: Vec<i64> = p.variants.iter().filter(|v| v.status == "published").map(|v| v.price).collect();
    let price = product_price(p);
    let currency = seed::store_currency(p.store_id);
    let (from, to) = if prices.len() > 1 {
        let (min, max) = (*prices.iter().min().unwrap(), *prices.iter().max().unwrap());
        (json!(min), json!(max))
    } else {
        (Value::Null, Value::Null)
    };
    let formatted = |v: &Value| v.as_i64().map(|c| json!(format_money(c, currency))).unwrap_or(Value::Null);
    let id = p.id.to_string();
    json!({
        "type": "products", "id": id,
        "attributes": {
            "store_id": p.store_id, "name": p.name, "slug": p.name.to_lowercase().replace(' ', "-"),
            "description": p.description, "status": p.status, "status_formatted": capitalise(p.status),
            "thumb_url": null, "large_thumb_url": null, "price": price, "price_formatted": format_money(price, currency),
            "from_price": from, "to_price": to, "from_price_formatted": formatted(&from), "to_price_formatted": formatted(&to),
            "pay_what_you_want": false, "buy_now_url": format!("{base}/checkout/buy/{}", p.id),
            "created_at": p.created_at, "updated_at": p.updated_at, "test_mode": true
        },
        "relationships": relationships(base, "products", &id, &["store", "variants"]),
        "links": {"self": format!("{base}/v1/products/{}", p.id)}
    })
}

fn variant_json(base: &str, v: &Variant) -> Value {
    let id = v.id.to_string();
    let terms = seed::licence_terms(v.product_id, &v.name);
    let months = terms.and_then(|(_, months)| months);
    json!({
        "type": "variants", "id": id,
        "attributes": {
            "product_id": v.product_id, "name": v.name, "slug": v.name.to_lowercase().replace(' ', "-"),
            "description": "", "links": [], "price": v.price, "is_subscription": v.is_subscription, "interval": v.interval,
            "interval_count": if v.is_subscription { json!(1) } else { Value::Null },
            "has_free_trial": false, "trial_interval": "day", "trial_interval_count": 30,
            "pay_what_you_want": false, "min_price": 0, "suggested_price": 0,
            "has_license_keys": terms.is_some(), "license_activation_limit": terms.map_or(5, |(limit, _)| limit),
            "is_license_limit_unlimited": false,
            "license_length_value": months.unwrap_or(1), "license_length_unit": if months.is_some() { "months" } else { "years" },
            "is_license_length_unlimited": terms.is_some() && months.is_none(),
            "sort": v.sort, "status": v.status, "status_formatted": capitalise(v.status), "test_mode": true,
            "created_at": seed::stamp(1_767_225_600), "updated_at": seed::stamp(1_767_225_600)
        },
        "relationships": relationships(base, "variants", &id, &["product", "files", "price-model"]),
        "links": {"self": format!("{base}/v1/variants/{}", v.id)}
    })
}

/// What the provider works out for a customer: their revenue so far and their monthly recurring
/// revenue (US cents), and when anything of theirs last changed.
#[derive(Default)]
struct CustomerFigures {
    total_revenue: i64,
    mrr: i64,
    updated_at: String,
}

/// Every customer's figures, from the orders and subscriptions as they are now: revenue is what
/// paid orders brought in less their refunds, in dollars at each order's rate; MRR is the
/// monthly price of each live, paying subscription.
fn customer_figures(data: &Data) -> HashMap<u64, CustomerFigures> {
    let mut figures: HashMap<u64, CustomerFigures> = HashMap::new();
    let touch = |figures: &mut HashMap<u64, CustomerFigures>, id: u64, at: &str| {
        let entry = figures.entry(id).or_default();
        if entry.updated_at.as_str() < at {
            entry.updated_at = at.to_string();
        }
    };
    for o in &data.orders {
        touch(&mut figures, o.customer_id, &o.updated_at);
        if matches!(o.status, "paid" | "refunded" | "partial_refund") {
            let usd = ((o.total - o.refunded_amount) as f64 * o.currency_rate).round() as i64;
            figures.entry(o.customer_id).or_default().total_revenue += usd;
        }
    }
    let variants: HashMap<u64, &Variant> = data.products.iter().flat_map(|p| &p.variants).map(|v| (v.id, v)).collect();
    for s in &data.subscriptions {
        let Some(customer) = s.customer_id else { continue };
        touch(&mut figures, customer, &s.updated_at);
        if matches!(s.status, "active" | "past_due") {
            let monthly = variants.get(&s.variant_id).map_or(0, |v| match v.interval {
                Some("year") => v.price / 12,
                Some("week") => v.price * 52 / 12,
                Some("day") => v.price * 365 / 12,
                _ => v.price,
            });
            figures.entry(customer).or_default().mrr += monthly;
        }
    }
    figures
}

fn customer_json(base: &str, c: &Customer, figures: Option<&CustomerFigures>) -> Value {
    let id = c.id.to_string();
    let (revenue, mrr) = figures.map_or((0, 0), |f| (f.total_revenue, f.mrr));
    let updated =
        figures.map(|f| f.updated_at.as_str()).filter(|at| *at > c.created_at.as_str()).unwrap_or(&c.created_at);
    json!({
        "type": "customers", "id": id,
        "attributes": {
            "store_id": c.store_id, "name": c.name, "email": c.email, "status": c.status, "city": null,
            "region": null, "country": c.country, "total_revenue_currency": revenue, "mrr": mrr,
            "status_formatted": capitalise(&c.status.replace('_', " ")), "country_formatted": c.country,
            "total_revenue_currency_formatted": format_money(revenue, "USD"), "mrr_formatted": format_money(mrr, "USD"),
            "urls": {"customer_portal": format!("{base}/billing?customer={}&signature=sandbox", c.id)},
            "created_at": c.created_at, "updated_at": updated, "test_mode": true
        },
        "relationships": relationships(base, "customers", &id, &["store", "orders", "subscriptions", "license-keys"]),
        "links": {"self": format!("{base}/v1/customers/{}", c.id)}
    })
}

fn subscription_json(base: &str, s: &Subscription) -> Value {
    let pause = s.pause.as_ref().map(|(mode, resumes)| json!({"mode": mode, "resumes_at": resumes}));
    let id = s.id.to_string();
    // Card details are empty for PayPal (the API says so of non-card payments).
    let (brand, last_four) =
        if s.payment_processor == "paypal" { (Value::Null, Value::Null) } else { (json!("visa"), json!("4242")) };
    json!({
        "type": "subscriptions", "id": id,
        "attributes": {
            "store_id": s.store_id, "customer_id": s.customer_id, "order_id": s.order_id, "order_item_id": s.order_id + 100_000,
            "product_id": s.product_id, "variant_id": s.variant_id, "product_name": s.product_name, "variant_name": s.variant_name,
            "user_name": s.user_name, "user_email": s.user_email, "status": s.status,
            "status_formatted": capitalise(&s.status.replace('_', " ")), "card_brand": brand, "card_last_four": last_four,
            "payment_processor": s.payment_processor,
            "pause": pause, "cancelled": s.status == "cancelled", "trial_ends_at": s.trial_ends_at, "billing_anchor": 1,
            "first_subscription_item": {"id": s.id + 200_000, "subscription_id": s.id, "price_id": s.variant_id + 300_000,
                                        "quantity": 1, "created_at": s.created_at, "updated_at": s.updated_at},
            "urls": {
                "update_payment_method": format!("{base}/subscription/{}/payment-details?signature=sandbox", s.id),
                "customer_portal": format!("{base}/billing?signature=sandbox"),
                "customer_portal_update_subscription": s.confirm_change_url,
            },
            "renews_at": s.renews_at, "ends_at": s.ends_at, "created_at": s.created_at, "updated_at": s.updated_at,
            "test_mode": true
        },
        "relationships": relationships(base, "subscriptions", &id, &["store", "customer", "order", "order-item", "product", "variant", "subscription-items", "subscription-invoices"]),
        "links": {"self": format!("{base}/v1/subscriptions/{}", s.id)}
    })
}

fn order_json(base: &str, o: &Order) -> Value {
    let money = |cents: i64| format_money(cents, &o.currency);
    let usd = |cents: i64| (cents as f64 * o.currency_rate).round() as i64;
    let id = o.id.to_string();
    json!({
        "type": "orders", "id": id,
        "attributes": {
            "store_id": o.store_id, "customer_id": o.customer_id, "identifier": o.identifier, "order_number": o.order_number,
            "user_name": o.user_name, "user_email": o.user_email, "currency": o.currency, "currency_rate": format!("{:.8}", o.currency_rate),
            "subtotal": o.subtotal, "setup_fee": 0, "discount_total": o.discount_total, "tax": o.tax, "total": o.total,
            "refunded_amount": o.refunded_amount,
            "subtotal_usd": usd(o.subtotal), "setup_fee_usd": 0, "discount_total_usd": usd(o.discount_total),
            "tax_usd": usd(o.tax), "total_usd": usd(o.total), "refunded_amount_usd": usd(o.refunded_amount),
            "tax_name": o.tax_name, "tax_rate": o.tax_rate, "tax_inclusive": false,
            "status": o.status, "status_formatted": capitalise(&o.status.replace('_', " ")),
            "refunded": o.status == "refunded", "refunded_at": o.refunded_at,
            "subtotal_formatted": money(o.subtotal), "setup_fee_formatted": money(0),
            "discount_total_formatted": money(o.discount_total), "tax_formatted": money(o.tax),
            "total_formatted": money(o.total), "refunded_amount_formatted": money(o.refunded_amount),
            "first_order_item": first_order_item(o),
            "urls": {"receipt": format!("{base}/my-orders/{}?signature=sandbox", o.identifier)},
            "created_at": o.created_at, "updated_at": o.updated_at, "test_mode": true
        },
        "relationships": relationships(base, "orders", &id, &["store", "customer", "order-items", "subscriptions", "license-keys", "discount-redemptions"]),
        "links": {"self": format!("{base}/v1/orders/{}", o.id)}
    })
}

/// A subscription invoice as the API writes it (`/v1/subscription-invoices`; the data of
/// `subscription_payment_*` events), every attribute of the SDK's type.
fn invoice_json(base: &str, i: &Invoice) -> Value {
    let money = |cents: i64| format_money(cents, &i.currency);
    let id = i.id.to_string();
    json!({
        "type": "subscription-invoices", "id": id,
        "attributes": {
            "store_id": i.store_id, "subscription_id": i.subscription_id, "customer_id": i.customer_id,
            "user_name": i.user_name, "user_email": i.user_email, "billing_reason": i.billing_reason,
            "card_brand": i.card_brand, "card_last_four": i.card_last_four, "currency": i.currency,
            "currency_rate": "1.00000000", "status": i.status, "status_formatted": capitalise(&i.status.replace('_', " ")),
            "refunded": i.status == "refunded", "refunded_at": i.refunded_at,
            "subtotal": i.subtotal, "discount_total": 0, "tax": i.tax, "tax_inclusive": false, "total": i.total,
            "refunded_amount": i.refunded_amount,
            "subtotal_usd": i.subtotal, "discount_total_usd": 0, "tax_usd": i.tax, "total_usd": i.total,
            "refunded_amount_usd": i.refunded_amount,
            "subtotal_formatted": money(i.subtotal), "discount_total_formatted": money(0), "tax_formatted": money(i.tax),
            "total_formatted": money(i.total), "refunded_amount_formatted": money(i.refunded_amount),
            // A pending or void invoice has no invoice to download yet.
            "urls": {"invoice_url": matches!(i.status, "paid" | "refunded" | "partial_refund")
                .then(|| format!("{base}/my-orders/subscription-invoice/{}?signature=sandbox", i.id))},
            "created_at": i.created_at, "updated_at": i.updated_at, "test_mode": true
        },
        "relationships": relationships(base, "subscription-invoices", &id, &["store", "subscription", "customer"]),
        "links": {"self": format!("{base}/v1/subscription-invoices/{}", i.id)}
    })
}

/// A licence key as the API writes it (`/v1/license-keys`; the data of `license_key_*`
/// events), every attribute of the SDK's type, its status as of `now`.
fn license_key_json(base: &str, k: &LicenseKey, now: i64) -> Value {
    let id = k.id.to_string();
    let status = k.status(now);
    json!({
        "type": "license-keys", "id": id,
        "attributes": {
            "store_id": k.store_id, "customer_id": k.customer_id, "order_id": k.order_id, "order_item_id": k.order_item_id,
            "product_id": k.product_id, "user_name": k.user_name, "user_email": k.user_email, "key": k.key,
            "key_short": k.key_short(), "activation_limit": k.activation_limit, "instances_count": k.instances.len(),
            // An integer, as the docs' example writes it; no `test_mode`, as their attribute list has none.
            "disabled": u8::from(k.disabled), "status": status, "status_formatted": capitalise(status),
            "expires_at": k.expires_at, "created_at": k.created_at, "updated_at": k.updated_at
        },
        "relationships": relationships(base, "license-keys", &id, &["store", "customer", "order", "order-item", "product", "license-key-instances"]),
        "links": {"self": format!("{base}/v1/license-keys/{}", k.id)}
    })
}

/// One activation of a licence key, as `/v1/license-key-instances` writes it.
fn instance_json(base: &str, key_id: u64, i: &seed::Instance) -> Value {
    let id = i.id.to_string();
    json!({
        "type": "license-key-instances", "id": id,
        "attributes": {
            "license_key_id": key_id, "identifier": i.identifier, "name": i.name,
            "created_at": i.created_at, "updated_at": i.created_at
        },
        "relationships": relationships(base, "license-key-instances", &id, &["license-key"]),
        "links": {"self": format!("{base}/v1/license-key-instances/{}", i.id)}
    })
}

/// The id of an order's one item.
fn order_item_id(o: &Order) -> u64 {
    o.id + 100_000_000
}

/// `first_order_item` as the docs' order example writes it (no `quantity` there).
fn first_order_item(o: &Order) -> Value {
    json!({
        "id": order_item_id(o), "order_id": o.id, "product_id": o.product_id, "variant_id": o.variant_id,
        "product_name": o.product_name, "variant_name": o.variant_name, "price": o.subtotal,
        "created_at": o.created_at, "updated_at": o.updated_at, "deleted_at": null, "test_mode": true
    })
}

/// An order's item as `/v1/order-items` answers it (the docs' order item object).
fn order_item_json(base: &str, o: &Order) -> Value {
    let id = order_item_id(o).to_string();
    json!({
        "type": "order-items", "id": id,
        "attributes": {
            "order_id": o.id, "product_id": o.product_id, "variant_id": o.variant_id, "product_name": o.product_name,
            "variant_name": o.variant_name, "price": o.subtotal, "quantity": 1,
            "created_at": o.created_at, "updated_at": o.updated_at
        },
        "relationships": relationships(base, "order-items", &id, &["order", "product", "variant"]),
        "links": {"self": format!("{base}/v1/order-items/{id}")}
    })
}

/// An object the request sent, or `[]` when it sent none (the API returns empty objects of
/// `checkout_data` as arrays).
fn object_or_empty_list(value: &Value) -> Value {
    match value {
        Value::Object(map) if !map.is_empty() => value.clone(),
        _ => json!([]),
    }
}

fn checkout_json(base: &str, c: &Checkout) -> Value {
    let data = &c.data;
    let text = |key: &str| data.get(key).and_then(Value::as_str).unwrap_or("").to_string();
    json!({
        "type": "checkouts", "id": c.id,
        "attributes": {
            "store_id": c.store_id, "variant_id": c.variant_id, "custom_price": null,
            "product_options": {"name": "", "description": "", "media": [], "redirect_url": "", "receipt_button_text": "",
                                "receipt_link_url": "", "receipt_thank_you_note": "", "enabled_variants": []},
            "checkout_options": {"embed": false, "media": true, "logo": true, "desc": true, "discount": true,
                                 "skip_trial": false, "subscription_preview": true, "button_color": "#7047EB"},
            "checkout_data": {
                "email": text("email"), "name": text("name"),
                "billing_address": object_or_empty_list(&data["billing_address"]),
                "tax_number": text("tax_number"), "discount_code": text("discount_code"),
                "custom": object_or_empty_list(&data["custom"]), "variant_quantities": []
            },
            "expires_at": null, "created_at": c.created_at, "updated_at": c.created_at, "test_mode": true,
            "url": format!("{base}/checkout/custom/{}?signature=sandbox", c.id)
        },
        "relationships": relationships(base, "checkouts", &c.id, &["store", "variant"]),
        "links": {"self": format!("{base}/v1/checkouts/{}", c.id)}
    })
}

/// Money as the API formats it (`$9.99`, `€18.59`).
fn format_money(cents: i64, currency: &str) -> String {
    let symbol = match currency {
        "EUR" => "€",
        "GBP" => "£",
        _ => "$",
    };
    format!("{symbol}{}.{:02}", cents / 100, cents % 100)
}

fn capitalise(s: &str) -> String {
    let mut chars = s.chars();
    chars.next().map(|c| c.to_uppercase().collect::<String>() + chars.as_str()).unwrap_or_default()
}

fn filter<'a>(params: &'a HashMap<String, String>, name: &str) -> Option<&'a str> {
    params.get(&format!("filter[{name}]")).map(String::as_str)
}

// ---------------------------------------------------------------------------------------------
// Handlers.

async fn store(State(sim): State<Arc<Sim>>, Path(id): Path<String>) -> Response {
    match id.parse().ok().and_then(|id| seed::store_json(&sim.base, id)) {
        Some(store) => document(store),
        None => not_found(),
    }
}

async fn list_products(State(sim): State<Arc<Sim>>, Query(params): Params) -> Response {
    let data = sim.data.lock().unwrap();
    let mut products: Vec<&Product> = data.products.iter().collect();
    // Without the filter, every store of the account.
    if let Some(store) = filter(&params, "store_id") {
        products.retain(|p| p.store_id.to_string() == store);
    }
    products.sort_by(|a, b| a.name.cmp(&b.name));
    page(&sim, "products", &params, products, |p| product_json(&sim.base, p))
}

async fn one_product(State(sim): State<Arc<Sim>>, Path(id): Path<String>) -> Response {
    let data = sim.data.lock().unwrap();
    match data.products.iter().find(|p| p.id.to_string() == id) {
        Some(p) => document(product_json(&sim.base, p)),
        None => not_found(),
    }
}

async fn list_variants(State(sim): State<Arc<Sim>>, Query(params): Params) -> Response {
    let data = sim.data.lock().unwrap();
    let mut variants: Vec<&Variant> = data.products.iter().flat_map(|p| p.variants.iter()).collect();
    if let Some(product) = filter(&params, "product_id") {
        variants.retain(|v| v.product_id.to_string() == product);
    }
    if let Some(status) = filter(&params, "status") {
        variants.retain(|v| v.status == status);
    }
    page(&sim, "variants", &params, variants, |v| variant_json(&sim.base, v))
}

async fn one_variant(State(sim): State<Arc<Sim>>, Path(id): Path<String>) -> Response {
    let data = sim.data.lock().unwrap();
    match data.products.iter().flat_map(|p| p.variants.iter()).find(|v| v.id.to_string() == id) {
        Some(v) => document(variant_json(&sim.base, v)),
        None => not_found(),
    }
}

async fn list_customers(State(sim): State<Arc<Sim>>, Query(params): Params) -> Response {
    let data = sim.data.lock().unwrap();
    let mut customers: Vec<&Customer> = data.customers.iter().collect();
    if let Some(email) = filter(&params, "email") {
        customers.retain(|c| c.email == email);
    }
    if let Some(store) = filter(&params, "store_id") {
        customers.retain(|c| c.store_id.to_string() == store);
    }
    // Newest first, as orders are.
    customers.sort_by(|a, b| b.created_at.cmp(&a.created_at).then(b.id.cmp(&a.id)));
    let figures = customer_figures(&data);
    page(&sim, "customers", &params, customers, |c| customer_json(&sim.base, c, figures.get(&c.id)))
}

async fn one_customer(State(sim): State<Arc<Sim>>, Path(id): Path<String>) -> Response {
    let data = sim.data.lock().unwrap();
    match data.customers.iter().find(|c| c.id.to_string() == id) {
        Some(c) => document(customer_json(&sim.base, c, customer_figures(&data).get(&c.id))),
        None => not_found(),
    }
}

async fn list_subscriptions(State(sim): State<Arc<Sim>>, Query(params): Params) -> Response {
    let data = sim.data.lock().unwrap();
    let mut subs: Vec<&Subscription> = data.subscriptions.iter().collect();
    type Keep = fn(&Subscription, &str) -> bool;
    let filters: [(&str, Keep); 6] = [
        ("status", |s, v| s.status == v),
        ("product_id", |s, v| s.product_id.to_string() == v),
        ("variant_id", |s, v| s.variant_id.to_string() == v),
        ("order_id", |s, v| s.order_id.to_string() == v),
        ("user_email", |s, v| s.user_email == v),
        ("store_id", |s, v| s.store_id.to_string() == v),
    ];
    for (name, keep) in filters {
        if let Some(value) = filter(&params, name) {
            subs.retain(|s| keep(s, value));
        }
    }
    // Newest first, like the real API (`sort=-createdAt`).
    subs.sort_by(|a, b| b.created_at.cmp(&a.created_at).then(b.id.cmp(&a.id)));
    page(&sim, "subscriptions", &params, subs, |s| subscription_json(&sim.base, s))
}

async fn one_subscription(State(sim): State<Arc<Sim>>, Path(id): Path<String>) -> Response {
    let data = sim.data.lock().unwrap();
    match data.subscriptions.iter().find(|s| s.id.to_string() == id) {
        Some(s) => document(subscription_json(&sim.base, s)),
        None => not_found(),
    }
}

fn now_stamp() -> String {
    seed::stamp(chrono::Utc::now().timestamp())
}

fn unprocessable(detail: &str) -> Response {
    jsonapi_error(StatusCode::UNPROCESSABLE_ENTITY, "Unprocessable Entity", detail)
}

async fn patch_subscription(State(sim): State<Arc<Sim>>, Path(id): Path<String>, body: axum::body::Bytes) -> Response {
    let Ok(body) = serde_json::from_slice::<Value>(&body) else {
        return jsonapi_error(StatusCode::BAD_REQUEST, "Bad Request", "The body is not JSON.");
    };
    let attributes = body["data"]["attributes"].as_object().cloned().unwrap_or_default();
    if body["data"]["type"] != "subscriptions" || body["data"]["id"] != id.as_str() {
        return unprocessable("data.type must be subscriptions and data.id must match the URL");
    }
    let mut data = sim.data.lock().unwrap();
    let variant = match attributes.get("variant_id") {
        Some(v) => match v
            .as_u64()
            .and_then(|vid| data.products.iter().flat_map(|p| p.variants.iter()).find(|x| x.id == vid))
        {
            Some(variant) if variant.is_subscription => {
                Some((variant.clone(), data.products.iter().find(|p| p.id == variant.product_id).unwrap().name.clone()))
            }
            _ => return unprocessable("The variant_id must be a subscription variant of this store."),
        },
        None => None,
    };
    let Some(sub) = data.subscriptions.iter_mut().find(|s| s.id.to_string() == id) else { return not_found() };
    if sub.payment_processor == "paypal" {
        // "For PayPal subscriptions the update endpoint does not modify the subscription":
        // the customer confirms at the URL it populates instead.
        sub.confirm_change_url = Some(format!("{}/billing/{}/update?signature=sandbox", sim.base, sub.id));
        return document(subscription_json(&sim.base, sub));
    }
    if let Some(cancelled) = attributes.get("cancelled").and_then(Value::as_bool) {
        if cancelled {
            if sub.status == "expired" {
                return unprocessable("An expired subscription cannot be cancelled.");
            }
            sub.status = "cancelled";
            sub.ends_at = Some(sub.renews_at.clone());
        } else {
            if sub.status != "cancelled" {
                return unprocessable("Only a cancelled subscription can be resumed.");
            }
            sub.status = "active";
            sub.ends_at = None;
        }
    }
    if let Some(pause) = attributes.get("pause") {
        match pause {
            Value::Null => {
                if sub.status == "paused" {
                    sub.status = "active";
                }
                sub.pause = None;
            }
            Value::Object(p) => {
                let mode = p.get("mode").and_then(Value::as_str).unwrap_or("");
                if mode != "void" && mode != "free" {
                    return unprocessable("pause.mode must be void or free.");
                }
                if matches!(sub.status, "cancelled" | "expired") {
                    return unprocessable("A cancelled or expired subscription cannot be paused.");
                }
                sub.status = "paused";
                sub.pause = Some((mode.to_string(), p.get("resumes_at").and_then(Value::as_str).map(str::to_string)));
            }
            _ => return unprocessable("pause must be an object or null."),
        }
    }
    if let Some((variant, product_name)) = variant {
        if sub.status == "expired" {
            return unprocessable("An expired subscription cannot change plan.");
        }
        sub.variant_id = variant.id;
        sub.product_id = variant.product_id;
        sub.variant_name = variant.name;
        sub.product_name = product_name;
    }
    sub.updated_at = now_stamp();
    document(subscription_json(&sim.base, sub))
}

async fn cancel_subscription(State(sim): State<Arc<Sim>>, Path(id): Path<String>) -> Response {
    let mut data = sim.data.lock().unwrap();
    let Some(sub) = data.subscriptions.iter_mut().find(|s| s.id.to_string() == id) else { return not_found() };
    if sub.status == "expired" {
        return unprocessable("An expired subscription cannot be cancelled.");
    }
    sub.status = "cancelled";
    sub.ends_at = Some(sub.renews_at.clone());
    sub.updated_at = now_stamp();
    document(subscription_json(&sim.base, sub))
}

async fn list_orders(State(sim): State<Arc<Sim>>, Query(params): Params) -> Response {
    let data = sim.data.lock().unwrap();
    let mut orders: Vec<&Order> = data.orders.iter().collect();
    if let Some(email) = filter(&params, "user_email") {
        orders.retain(|o| o.user_email == email);
    }
    if let Some(store) = filter(&params, "store_id") {
        orders.retain(|o| o.store_id.to_string() == store);
    }
    if let Some(number) = filter(&params, "order_number") {
        orders.retain(|o| o.order_number.to_string() == number);
    }
    // Newest first, as the API lists (by `created_at`, descending).
    orders.sort_by(|a, b| b.created_at.cmp(&a.created_at).then(b.id.cmp(&a.id)));
    page(&sim, "orders", &params, orders, |o| order_json(&sim.base, o))
}

/// `GET /v1/order-items`: each order's item (the simulator's orders have one), filtered by
/// order, product and variant.
async fn list_order_items(State(sim): State<Arc<Sim>>, Query(params): Params) -> Response {
    let data = sim.data.lock().unwrap();
    let mut orders: Vec<&Order> = data.orders.iter().collect();
    for (name, field) in [("order_id", 0), ("product_id", 1), ("variant_id", 2)] {
        if let Some(wanted) = filter(&params, name) {
            orders.retain(|o| [o.id, o.product_id, o.variant_id][field].to_string() == wanted);
        }
    }
    orders.sort_by(|a, b| order_item_id(a).cmp(&order_item_id(b)));
    page(&sim, "order-items", &params, orders, |o| order_item_json(&sim.base, o))
}

async fn one_order_item(State(sim): State<Arc<Sim>>, Path(id): Path<String>) -> Response {
    let data = sim.data.lock().unwrap();
    match data.orders.iter().find(|o| order_item_id(o).to_string() == id) {
        Some(o) => document(order_item_json(&sim.base, o)),
        None => not_found(),
    }
}

async fn one_order(State(sim): State<Arc<Sim>>, Path(id): Path<String>) -> Response {
    let data = sim.data.lock().unwrap();
    match data.orders.iter().find(|o| o.id.to_string() == id) {
        Some(o) => document(order_json(&sim.base, o)),
        None => not_found(),
    }
}

/// Whether this answer is to fail after its change was made (the `failAfterCommit` fault), as a
/// lost answer looks to the client.
fn fails_after_commit(sim: &Sim) -> bool {
    let mut faults = sim.faults.lock().unwrap();
    let fail = faults.fail_after_commit > 0;
    faults.fail_after_commit = faults.fail_after_commit.saturating_sub(1);
    fail
}

/// `POST /v1/orders/:id/refund`: refunds `attributes.amount` cents, or all that is left, of a
/// paid order; answers the order, and sends `order_refunded` (for full and partial refunds).
async fn refund_order(State(sim): State<Arc<Sim>>, Path(id): Path<String>, body: axum::body::Bytes) -> Response {
    let Ok(body) = serde_json::from_slice::<Value>(&body) else {
        return jsonapi_error(StatusCode::BAD_REQUEST, "Bad Request", "The body is not JSON.");
    };
    if body["data"]["type"] != "orders" || body["data"]["id"].as_str() != Some(id.as_str()) {
        return unprocessable("data.type must be orders and data.id the order's id");
    }
    let amount = &body["data"]["attributes"]["amount"];
    if !amount.is_null() && amount.as_i64().is_none_or(|a| a < 1) {
        return unprocessable("The amount must be a positive integer.");
    }
    let (order, custom) = {
        let mut data = sim.data.lock().unwrap();
        let Some(order) = data.orders.iter_mut().find(|o| o.id.to_string() == id) else { return not_found() };
        if !matches!(order.status, "paid" | "partial_refund") {
            return unprocessable("This order cannot be refunded.");
        }
        let refundable = order.total - order.refunded_amount;
        let amount = amount.as_i64().unwrap_or(refundable);
        if amount > refundable {
            return unprocessable("The refund amount is greater than the amount that can be refunded.");
        }
        let now = now_stamp();
        order.refunded_amount += amount;
        order.status = if order.refunded_amount == order.total { "refunded" } else { "partial_refund" };
        order.refunded_at = Some(now.clone());
        order.updated_at = now;
        (order_json(&sim.base, order), order.custom.clone())
    };
    checkout::send_webhooks(&sim, vec![("order_refunded", order.clone(), custom)]);
    if fails_after_commit(&sim) {
        return jsonapi_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Internal Server Error",
            "Simulated failure after the refund",
        );
    }
    document(order)
}

/// `GET /v1/subscription-invoices`, newest first, with the documented filters (`store_id`,
/// `status`, `refunded`, `subscription_id`).
async fn list_invoices(State(sim): State<Arc<Sim>>, Query(params): Params) -> Response {
    let data = sim.data.lock().unwrap();
    let mut invoices: Vec<&Invoice> = data.invoices.iter().collect();
    type Keep = fn(&Invoice, &str) -> bool;
    let filters: [(&str, Keep); 4] = [
        ("store_id", |i, v| i.store_id.to_string() == v),
        ("status", |i, v| i.status == v),
        ("refunded", |i, v| (i.status == "refunded").to_string() == v),
        ("subscription_id", |i, v| i.subscription_id.to_string() == v),
    ];
    for (name, keep) in filters {
        if let Some(value) = filter(&params, name) {
            invoices.retain(|i| keep(i, value));
        }
    }
    invoices.sort_by(|a, b| b.created_at.cmp(&a.created_at).then(b.id.cmp(&a.id)));
    page(&sim, "subscription-invoices", &params, invoices, |i| invoice_json(&sim.base, i))
}

async fn one_invoice(State(sim): State<Arc<Sim>>, Path(id): Path<String>) -> Response {
    let data = sim.data.lock().unwrap();
    match data.invoices.iter().find(|i| i.id.to_string() == id) {
        Some(i) => document(invoice_json(&sim.base, i)),
        None => not_found(),
    }
}

/// `POST /v1/subscription-invoices/:id/refund`: as the order refund, for a paid invoice (full or
/// in part); answers the invoice and sends `subscription_payment_refunded`.
async fn refund_invoice(State(sim): State<Arc<Sim>>, Path(id): Path<String>, body: axum::body::Bytes) -> Response {
    let Ok(body) = serde_json::from_slice::<Value>(&body) else {
        return jsonapi_error(StatusCode::BAD_REQUEST, "Bad Request", "The body is not JSON.");
    };
    if body["data"]["type"] != "subscription-invoices" || body["data"]["id"].as_str() != Some(id.as_str()) {
        return unprocessable("data.type must be subscription-invoices and data.id the invoice's id");
    }
    let amount = &body["data"]["attributes"]["amount"];
    if !amount.is_null() && amount.as_i64().is_none_or(|a| a < 1) {
        return unprocessable("The amount must be a positive integer.");
    }
    let invoice = {
        let mut data = sim.data.lock().unwrap();
        let Some(invoice) = data.invoices.iter_mut().find(|i| i.id.to_string() == id) else { return not_found() };
        if !matches!(invoice.status, "paid" | "partial_refund") {
            return unprocessable("This invoice cannot be refunded.");
        }
        let refundable = invoice.total - invoice.refunded_amount;
        let amount = amount.as_i64().unwrap_or(refundable);
        if amount > refundable {
            return unprocessable("The refund amount is greater than the amount that can be refunded.");
        }
        let now = now_stamp();
        invoice.refunded_amount += amount;
        invoice.status = if invoice.refunded_amount == invoice.total { "refunded" } else { "partial_refund" };
        invoice.refunded_at = Some(now.clone());
        invoice.updated_at = now;
        invoice_json(&sim.base, invoice)
    };
    checkout::send_webhooks(&sim, vec![("subscription_payment_refunded", invoice.clone(), Map::new())]);
    if fails_after_commit(&sim) {
        return jsonapi_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Internal Server Error",
            "Simulated failure after the refund",
        );
    }
    document(invoice)
}

/// `GET /v1/license-keys` with the documented filters (`store_id`, `order_id`, `order_item_id`,
/// `product_id`, `status`), "ordered by id in descending order" as the docs say (their links say
/// `sort=id`; the client reads both ends, so either order serves it).
async fn list_license_keys(State(sim): State<Arc<Sim>>, Query(params): Params) -> Response {
    let data = sim.data.lock().unwrap();
    let now = chrono::Utc::now().timestamp();
    let mut keys: Vec<&LicenseKey> = data.license_keys.iter().collect();
    for name in ["store_id", "order_id", "order_item_id", "product_id", "status"] {
        if let Some(value) = filter(&params, name) {
            keys.retain(|k| {
                let field = match name {
                    "store_id" => k.store_id.to_string(),
                    "order_id" => k.order_id.to_string(),
                    "order_item_id" => k.order_item_id.to_string(),
                    "product_id" => k.product_id.to_string(),
                    _ => k.status(now).to_string(),
                };
                field == value
            });
        }
    }
    keys.sort_by_key(|k| std::cmp::Reverse(k.id));
    page(&sim, "license-keys", &params, keys, |k| license_key_json(&sim.base, k, now))
}

async fn one_license_key(State(sim): State<Arc<Sim>>, Path(id): Path<String>) -> Response {
    let data = sim.data.lock().unwrap();
    match data.license_keys.iter().find(|k| k.id.to_string() == id) {
        Some(k) => document(license_key_json(&sim.base, k, chrono::Utc::now().timestamp())),
        None => not_found(),
    }
}

/// `PATCH /v1/license-keys/:id`: `activation_limit` (a positive integer, or null for unlimited),
/// `expires_at` (ISO 8601, or null for never) and `disabled`; answers the key and sends
/// `license_key_updated`.
async fn patch_license_key(State(sim): State<Arc<Sim>>, Path(id): Path<String>, body: axum::body::Bytes) -> Response {
    let Ok(body) = serde_json::from_slice::<Value>(&body) else {
        return jsonapi_error(StatusCode::BAD_REQUEST, "Bad Request", "The body is not JSON.");
    };
    if body["data"]["type"] != "license-keys" || body["data"]["id"].as_str() != Some(id.as_str()) {
        return unprocessable("data.type must be license-keys and data.id the key's id");
    }
    let attributes = body["data"]["attributes"].as_object().cloned().unwrap_or_default();
    let limit = match attributes.get("activation_limit") {
        None => None,
        Some(Value::Null) => Some(None),
        Some(v) => match v.as_i64().filter(|n| *n >= 1) {
            Some(n) => Some(Some(n)),
            None => return unprocessable("The activation limit must be a positive integer or null."),
        },
    };
    let expires = match attributes.get("expires_at") {
        None => None,
        Some(Value::Null) => Some(None),
        Some(Value::String(at)) if chrono::DateTime::parse_from_rfc3339(at).is_ok() => Some(Some(at.clone())),
        Some(_) => return unprocessable("The expires at must be an ISO 8601 date-time or null."),
    };
    let disabled = match attributes.get("disabled") {
        None => None,
        Some(Value::Bool(b)) => Some(*b),
        Some(_) => return unprocessable("The disabled field must be true or false."),
    };
    let key = {
        let mut data = sim.data.lock().unwrap();
        let Some(key) = data.license_keys.iter_mut().find(|k| k.id.to_string() == id) else { return not_found() };
        if let Some(limit) = limit {
            key.activation_limit = limit;
        }
        if let Some(expires) = expires {
            key.expires_at = expires;
        }
        if let Some(disabled) = disabled {
            key.disabled = disabled;
        }
        key.updated_at = now_stamp();
        license_key_json(&sim.base, key, chrono::Utc::now().timestamp())
    };
    checkout::send_webhooks(&sim, vec![("license_key_updated", key.clone(), Map::new())]);
    document(key)
}

/// `GET /v1/license-key-instances`, filtered by `license_key_id`.
async fn list_instances(State(sim): State<Arc<Sim>>, Query(params): Params) -> Response {
    let data = sim.data.lock().unwrap();
    let wanted = filter(&params, "license_key_id");
    let instances: Vec<(u64, &seed::Instance)> = data
        .license_keys
        .iter()
        .filter(|k| wanted.is_none_or(|id| k.id.to_string() == id))
        .flat_map(|k| k.instances.iter().map(move |i| (k.id, i)))
        .collect();
    page(&sim, "license-key-instances", &params, instances, |(key, i)| instance_json(&sim.base, key, i))
}

async fn one_instance(State(sim): State<Arc<Sim>>, Path(id): Path<String>) -> Response {
    let data = sim.data.lock().unwrap();
    let found =
        data.license_keys.iter().find_map(|k| Some((k.id, k.instances.iter().find(|i| i.id.to_string() == id)?)));
    match found {
        Some((key, i)) => document(instance_json(&sim.base, key, i)),
        None => not_found(),
    }
}

async fn create_checkout(State(sim): State<Arc<Sim>>, body: axum::body::Bytes) -> Response {
    let Ok(body) = serde_json::from_slice::<Value>(&body) else {
        return jsonapi_error(StatusCode::BAD_REQUEST, "Bad Request", "The body is not JSON.");
    };
    if body["data"]["type"] != "checkouts" {
        return unprocessable("data.type must be checkouts");
    }
    let store: Option<u64> = body["data"]["relationships"]["store"]["data"]["id"].as_str().and_then(|v| v.parse().ok());
    let Some(store) = store.filter(|s| seed::store_json(&sim.base, *s).is_some()) else {
        return related_missing("/data/relationships/store");
    };
    let variant_id =
        body["data"]["relationships"]["variant"]["data"]["id"].as_str().and_then(|v| v.parse::<u64>().ok());
    let mut data = sim.data.lock().unwrap();
    // A variant of another store is as unknown to this store as a missing one.
    let variant = variant_id.and_then(|vid| {
        data.products.iter().filter(|p| p.store_id == store).flat_map(|p| p.variants.iter()).find(|v| v.id == vid)
    });
    let Some(variant) = variant.cloned() else { return related_missing("/data/relationships/variant") };
    let checkout_data = body["data"]["attributes"]["checkout_data"].clone();
    let checkout = Checkout {
        id: uuid::Uuid::new_v4().to_string(),
        store_id: store,
        variant_id: variant.id,
        email: checkout_data["email"].as_str().unwrap_or("").to_string(),
        name: checkout_data["name"].as_str().unwrap_or("").to_string(),
        country: checkout_data["billing_address"]["country"].as_str().map(str::to_string),
        custom: checkout_data["custom"].as_object().cloned().unwrap_or_default(),
        data: checkout_data,
        status: "open",
        created_at: now_stamp(),
        seq: data.checkouts.len() as u64,
    };
    let json = checkout_json(&sim.base, &checkout);
    data.checkouts.insert(checkout.id.clone(), checkout);
    drop(data);
    if fails_after_commit(&sim) {
        return jsonapi_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Internal Server Error",
            "Simulated failure after the checkout was made",
        );
    }
    (StatusCode::CREATED, [("content-type", JSONAPI)], Json(json!({"jsonapi": {"version": "1.0"}, "data": json})))
        .into_response()
}

/// `GET /v1/checkouts`: newest first, filtered by store and variant.
async fn list_checkouts(State(sim): State<Arc<Sim>>, Query(params): Params) -> Response {
    let data = sim.data.lock().unwrap();
    let mut checkouts: Vec<&Checkout> = data.checkouts.values().collect();
    if let Some(store) = filter(&params, "store_id") {
        checkouts.retain(|c| c.store_id.to_string() == store);
    }
    if let Some(variant) = filter(&params, "variant_id") {
        checkouts.retain(|c| c.variant_id.to_string() == variant);
    }
    checkouts.sort_by(|a, b| b.seq.cmp(&a.seq));
    page(&sim, "checkouts", &params, checkouts, |c| checkout_json(&sim.base, c))
}

async fn one_checkout(State(sim): State<Arc<Sim>>, Path(id): Path<String>) -> Response {
    let data = sim.data.lock().unwrap();
    match data.checkouts.get(&id) {
        Some(c) => document(checkout_json(&sim.base, c)),
        None => not_found(),
    }
}
