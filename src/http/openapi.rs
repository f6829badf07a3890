//! The OpenAPI 3.1 document, generated from the route and DTO annotations.

use axum::Json;
use utoipa::openapi::path::Operation;
use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};
use utoipa::openapi::Response;
use utoipa::{Modify, OpenApi};

struct BearerScheme;

impl Modify for BearerScheme {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme("bearer", SecurityScheme::Http(Http::new(HttpAuthScheme::Bearer)));
    }
}

/// Adds the answers that come from the layers every route shares (the browser guard, the extractors,
/// the sign-in check, the provider clients) to each operation that does not name them itself, so
/// that the document lists every status a client can meet.
struct SharedErrors;

impl Modify for SharedErrors {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        for (path, item) in openapi.paths.paths.iter_mut() {
            let operations = [
                ("GET", &mut item.get),
                ("PUT", &mut item.put),
                ("POST", &mut item.post),
                ("PATCH", &mut item.patch),
                ("DELETE", &mut item.delete),
            ];
            for (method, operation) in operations {
                if let Some(operation) = operation {
                    add_shared_errors(path, method, operation);
                }
            }
        }
    }
}

fn add_shared_errors(path: &str, method: &str, operation: &mut Operation) {
    let has_body = operation.request_body.is_some();
    let has_input = has_body || operation.parameters.as_ref().is_some_and(|p| !p.is_empty());
    let signed_in = operation.security.as_ref().is_some_and(|s| !s.is_empty());
    let mut shared: Vec<(&str, &str)> =
        vec![("421", "misdirected_request: the Host header names a site this service does not answer for")];
    if has_input {
        shared.push(("400", "invalid_request: a malformed path, query or body"));
    }
    if signed_in {
        shared.push(("401", "unauthorized: missing, invalid, expired or revoked token"));
    }
    if has_body {
        shared.push(("413", "payload_too_large"));
        shared.push(("415", "unsupported_media_type: the body must be application/json"));
    }
    if reaches_provider(path, method) {
        shared.push(("403", "forbidden: the provider refused this account or this resource"));
        shared.push(("502", "integration_error: the provider failed or answered what we cannot use"));
        shared.push(("504", "integration_error: the provider did not answer in time"));
    }
    for (status, description) in shared {
        operation.responses.responses.entry(status.to_owned()).or_insert_with(|| Response::new(description).into());
    }
}

/// Operations that call Lemon Squeezy or Google, rather than only the local cache and drafts.
fn reaches_provider(path: &str, method: &str) -> bool {
    // Keeping a draft checks it against the document's revision, which may mean reading it.
    let local = (path.ends_with("/draft") && method != "PUT")
        || path == "/api/payments/webhooks"
        || (path == "/api/payments/sync" && method != "POST");
    (path.starts_with("/api/payments/") || path.starts_with("/api/docs/")) && !local
}

#[derive(OpenApi)]
#[openapi(
    info(title = "Staffroom", description = "Staff auth, payments and documents: the headless door onto the Staffroom core."),
    paths(super::health, super::auth_routes::login, super::auth_routes::refresh, super::auth_routes::logout, super::auth_routes::me, super::webhook_routes::receive, super::webhook_routes::list,
        super::payments_routes::list_products, super::payments_routes::get_product, super::payments_routes::create_order,
        super::payments_routes::list_orders, super::payments_routes::get_order, super::payments_routes::list_subscriptions,
        super::payments_routes::act_on_subscription, super::payments_routes::sync,
        super::payments_routes::sync_status, super::payments_routes::set_sync_interval,
        super::docs_routes::list, super::docs_routes::read, super::docs_routes::create, super::docs_routes::patch,
        super::docs_routes::share, super::docs_routes::save, super::docs_routes::draft, super::docs_routes::put_draft,
        super::docs_routes::discard_draft),
    components(schemas(crate::error::ErrorCode, crate::error::FieldError)),
    modifiers(&BearerScheme, &SharedErrors)
)]
struct CoreApi;

/// The whole document.
pub fn document() -> utoipa::openapi::OpenApi {
    CoreApi::openapi()
}

pub(crate) async fn serve_document() -> Json<utoipa::openapi::OpenApi> {
    Json(document())
}
