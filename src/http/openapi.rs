//! The OpenAPI 3.1 document, generated from the route and DTO annotations.

use axum::Json;
use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};
use utoipa::{Modify, OpenApi};

struct BearerScheme;

impl Modify for BearerScheme {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme("bearer", SecurityScheme::Http(Http::new(HttpAuthScheme::Bearer)));
    }
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
    modifiers(&BearerScheme)
)]
struct CoreApi;

/// The whole document.
pub fn document() -> utoipa::openapi::OpenApi {
    CoreApi::openapi()
}

pub(crate) async fn serve_document() -> Json<utoipa::openapi::OpenApi> {
    Json(document())
}
