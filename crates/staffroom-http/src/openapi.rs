//! The OpenAPI 3.1 document, generated from the route and DTO annotations.

use axum::Json;
use utoipa::openapi::path::{HttpMethod, Operation, OperationBuilder, ParameterBuilder, ParameterIn};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::schema::Schema;
use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityRequirement, SecurityScheme};
use utoipa::openapi::{ContentBuilder, RefOr, Required, Response, ResponseBuilder};
use utoipa::{Modify, OpenApi};

use staffroom_core::api::{self, Access, Method, OpEntry, Route};
use staffroom_core::payments::exports::{exports, ExportEntry};
use staffroom_core::templates::{DocumentExportRequest, DOCUMENT_EXPORT_PATH};

struct BearerScheme;

impl Modify for BearerScheme {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme("bearer", SecurityScheme::Http(Http::new(HttpAuthScheme::Bearer)));
    }
}

/// Adds every operation that has a route, from its declaration and its types.
struct Operations;

impl Modify for Operations {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        for entry in api::operations() {
            let Some(route) = entry.spec.route else { continue };
            let schemas = (entry.types.schemas)();
            for (name, schema) in &schemas.components {
                components.schemas.entry(name.clone()).or_insert_with(|| schema.clone());
            }
            let operation = operation(entry, &route, schemas.request, schemas.response);
            openapi.paths.add_path_operation(route.path, vec![http_method(route.method)], operation);
        }
        for export in exports() {
            openapi.paths.add_path_operation(export.path(), vec![HttpMethod::Get], export_operation(export));
        }
        let mut named = Vec::new();
        <DocumentExportRequest as utoipa::ToSchema>::schemas(&mut named);
        for (name, schema) in named {
            components.schemas.entry(name).or_insert(schema);
        }
        openapi.paths.add_path_operation(DOCUMENT_EXPORT_PATH, vec![HttpMethod::Get], document_export_operation());
    }
}

/// A document's export: its id and format from the request's declaration, the file as its answer.
fn document_export_operation() -> Operation {
    use utoipa::PartialSchema;
    let mut builder = OperationBuilder::new()
        .operation_id(Some("export_document"))
        .summary(Some("A document as a PDF, DOCX or text file (Drive's export)"))
        .tag("docs")
        .security(SecurityRequirement::new("bearer", Vec::<String>::new()));
    if let RefOr::T(Schema::Object(object)) = DocumentExportRequest::schema() {
        for (name, schema) in &object.properties {
            let place = if name == "id" { ParameterIn::Path } else { ParameterIn::Query };
            let required = if name == "id" { Required::True } else { Required::False };
            builder = builder.parameter(
                ParameterBuilder::new()
                    .name(name)
                    .parameter_in(place)
                    .required(required)
                    .schema(Some(schema.clone()))
                    .build(),
            );
        }
    }
    let binary = || {
        ContentBuilder::new()
            .schema(Some(
                utoipa::openapi::ObjectBuilder::new()
                    .schema_type(utoipa::openapi::Type::String)
                    .content_media_type("application/octet-stream"),
            ))
            .build()
    };
    let mut answer = ResponseBuilder::new().description("The file, named after the document (`Content-Disposition`)");
    for (_, content_type, _) in staffroom_core::docs::templates::EXPORT_FORMATS {
        answer = answer.content(*content_type, binary());
    }
    builder
        .response("200", answer.build())
        .response("404", Response::new("not_found: no such document, or it is not shared with this account"))
        .build()
}

/// A list's CSV export: its list's filters (without paging) as query parameters, a file as its
/// answer.
fn export_operation(export: &ExportEntry) -> Operation {
    let list = export.list_entry();
    let route = list.spec.route.expect("a list has a route");
    let schemas = (list.types.schemas)();
    let mut operation = self::operation(list, &route, schemas.request, None);
    operation.operation_id = Some(export.name());
    operation.summary =
        Some(format!("Every {} the list's filters match, as a CSV file", export.list.replace('-', " ")));
    if let Some(parameters) = &mut operation.parameters {
        parameters.retain(|p| p.name != "page" && p.name != "limit");
    }
    let file = ContentBuilder::new()
        .schema(Some(utoipa::openapi::ObjectBuilder::new().schema_type(utoipa::openapi::Type::String)))
        .build();
    let answer = ResponseBuilder::new()
        .description("RFC 4180 CSV, UTF-8, CRLF: a header row, then every matching row in the list's order")
        .header(
            "Content-Disposition",
            utoipa::openapi::HeaderBuilder::new()
                .schema(utoipa::openapi::ObjectBuilder::new().schema_type(utoipa::openapi::Type::String))
                .description(Some("attachment; filename=\"<list>-<YYYY-MM-DD>.csv\""))
                .build(),
        )
        .header(
            "X-Total-Count",
            utoipa::openapi::HeaderBuilder::new()
                .schema(utoipa::openapi::ObjectBuilder::new().schema_type(utoipa::openapi::Type::Integer))
                .description(Some("How many rows the file holds: those that matched when the export started"))
                .build(),
        )
        .content("text/csv; charset=utf-8", file)
        .build();
    operation.responses.responses.insert("200".to_string(), answer.into());
    operation
}

fn http_method(method: Method) -> HttpMethod {
    match method {
        Method::Get => HttpMethod::Get,
        Method::Post => HttpMethod::Post,
        Method::Put => HttpMethod::Put,
        Method::Patch => HttpMethod::Patch,
        Method::Delete => HttpMethod::Delete,
    }
}

/// One operation: its path parameters, then its other fields as query parameters (GET, DELETE)
/// or a JSON body, its success answer and what it may refuse with.
fn operation(entry: &OpEntry, route: &Route, request: api::SchemaRef, response: Option<api::SchemaRef>) -> Operation {
    let spec = &entry.spec;
    let mut builder = OperationBuilder::new().operation_id(Some(spec.name)).summary(Some(spec.summary)).tag(spec.tag);
    let (properties, required, additional) = match request {
        RefOr::T(Schema::Object(object)) => (object.properties, object.required, object.additional_properties),
        _ => Default::default(),
    };
    let path_params = route.path_params();
    let parameter = |name: &str, place: ParameterIn, schema: &api::SchemaRef, needed: bool| {
        ParameterBuilder::new()
            .name(name)
            .parameter_in(place)
            .required(if needed { Required::True } else { Required::False })
            .schema(Some(schema.clone()))
            .build()
    };
    for name in &path_params {
        if let Some(schema) = properties.get(*name) {
            builder = builder.parameter(parameter(name, ParameterIn::Path, schema, true));
        }
    }
    let rest: Vec<(&String, &api::SchemaRef)> =
        properties.iter().filter(|(name, _)| !path_params.contains(&name.as_str())).collect();
    if route.method.reads_query() {
        for (name, schema) in rest {
            builder = builder.parameter(parameter(name, ParameterIn::Query, schema, required.contains(name)));
        }
    } else if !rest.is_empty() {
        // A request that refuses fields it does not know says so (`additionalProperties: false`).
        let mut body = utoipa::openapi::schema::ObjectBuilder::new().additional_properties(additional.map(|a| *a));
        for (name, schema) in rest {
            body = body.property(name, schema.clone());
            if required.contains(name) {
                body = body.required(name);
            }
        }
        let body_required = required.iter().any(|name| !path_params.contains(&name.as_str()));
        builder = builder.request_body(Some(
            RequestBodyBuilder::new()
                .content("application/json", ContentBuilder::new().schema(Some(body.build())).build())
                .required(Some(if body_required { Required::True } else { Required::False }))
                .build(),
        ));
    }
    let answer = |description: &str| {
        let mut answer = ResponseBuilder::new().description(description);
        if let Some(schema) = &response {
            answer = answer.content("application/json", ContentBuilder::new().schema(Some(schema.clone())).build());
        }
        answer.build()
    };
    builder = builder.response(route.status.to_string(), answer(spec.summary));
    for (status, meaning) in spec.errors {
        let refusal = if *status < 300 { answer(meaning) } else { Response::new(*meaning) };
        builder = builder.response(status.to_string(), refusal);
    }
    if spec.access != Access::Public {
        builder = builder.security(SecurityRequirement::new("bearer", Vec::<String>::new()));
    }
    builder.build()
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
    let connecting = path == "/api/settings/connections"
        || path.starts_with("/api/settings/lemonsqueezy")
        || path == "/api/settings/google/client";
    ((path.starts_with("/api/payments/") || path.starts_with("/api/docs/")) && !local) || connecting
}

#[derive(OpenApi)]
#[openapi(
    info(title = "Staffroom", description = "Staff auth, payments and documents: the headless door onto the Staffroom core."),
    paths(super::health, super::events::events, super::webhook_routes::receive),
    components(schemas(staffroom_core::error::ErrorCode, staffroom_core::error::FieldError)),
    modifiers(&BearerScheme, &Operations, &SharedErrors)
)]
struct CoreApi;

/// The whole document.
pub fn document() -> utoipa::openapi::OpenApi {
    CoreApi::openapi()
}

pub(crate) async fn serve_document() -> Json<utoipa::openapi::OpenApi> {
    Json(document())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_operation_with_a_route_is_in_the_document_and_every_reference_resolves() {
        let document = serde_json::to_value(document()).unwrap();
        for entry in api::operations() {
            let Some(route) = entry.spec.route else { continue };
            let method = format!("{:?}", route.method).to_lowercase();
            let operation = &document["paths"][route.path][&method];
            assert_eq!(operation["operationId"], entry.spec.name, "{} {}", method, route.path);
            assert!(operation["responses"][route.status.to_string()].is_object(), "{}: its success", entry.spec.name);
            for name in route.path_params() {
                let declared = operation["parameters"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .any(|p| p["name"] == name && p["in"] == "path");
                assert!(declared, "{}: path parameter {name}", entry.spec.name);
            }
        }
        let text = document.to_string();
        let schemas = document["components"]["schemas"].as_object().unwrap();
        for reference in text.split("#/components/schemas/").skip(1) {
            let name: String = reference.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            assert!(schemas.contains_key(&name), "{name} is referred to but not in the document");
        }
    }
}
