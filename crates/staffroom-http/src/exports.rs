//! The answers that are files. `GET /api/docs/documents/{id}/export`: a document as PDF, DOCX or
//! text, through Drive's export. `GET /api/payments/{list}/export`: a list's rows as a CSV file (SPEC section 14), streamed a
//! page at a time as the export reads them. The caller, the filters and the first page are
//! checked before the answer starts, so a refusal is the error object; a failure later ends the
//! body early (the chunked answer is then incomplete, which a client sees), and is logged.

use axum::body::Body;
use axum::extract::{RawPathParams, RawQuery, State};
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use crate::extract::{query_params, ClientAddress};
use crate::ops::bearer;
use crate::ApiError;
use staffroom_core::api::{Input, OpTypes, Route};
use staffroom_core::error::{Error, Result};
use staffroom_core::payments::export::CsvExport;
use staffroom_core::payments::exports::{exports, ExportEntry};
use staffroom_core::templates::{export_document, DOCUMENT_EXPORT_PATH};
use staffroom_core::Core;

/// How many rows the file will hold (those that matched when it started), for a progress bar.
pub const TOTAL_ROWS: &str = "x-total-count";

/// A route for each list's export.
pub fn routes() -> Router<Core> {
    let mut router = Router::new();
    for entry in exports() {
        let handler = move |State(core): State<Core>,
                            ClientAddress(address): ClientAddress,
                            RawQuery(query): RawQuery,
                            headers: HeaderMap| async move {
            match start(&core, entry, &address, query, &headers).await {
                Ok(export) => answer(export),
                Err(error) => ApiError(error).into_response(),
            }
        };
        router = router.route(&entry.path(), get(handler));
    }
    router.route(DOCUMENT_EXPORT_PATH, get(document))
}

/// `GET /api/docs/documents/{id}/export`: the document as a PDF, DOCX or text file.
async fn document(
    State(core): State<Core>,
    ClientAddress(address): ClientAddress,
    path: Result<RawPathParams, axum::extract::rejection::RawPathParamsRejection>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    let exported = async {
        let path = path.map_err(|_| Error::invalid_field("path", "is not valid percent-encoded UTF-8"))?;
        let types = OpTypes::of::<staffroom_core::templates::DocumentExportRequest, ()>();
        let input = crate::ops::input(&Route::get(DOCUMENT_EXPORT_PATH), &types, path, query, &[])?;
        export_document(&core, bearer(&headers), &address, input).await
    }
    .await;
    match exported {
        Ok(file) => {
            let mut response = file.bytes.into_response();
            let headers = response.headers_mut();
            headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(file.content_type));
            headers.insert(header::CONTENT_DISPOSITION, attachment(&file.file_name));
            response
        }
        Err(error) => ApiError(error).into_response(),
    }
}

/// `attachment` with the file's name: ASCII in `filename` (others as `_`), and the whole name in
/// `filename*` (RFC 6266, RFC 8187), which browsers and download tools prefer.
fn attachment(name: &str) -> HeaderValue {
    let ascii: String = name.chars().map(|c| if c.is_ascii_graphic() || c == ' ' { c } else { '_' }).collect();
    let encoded: String = url::form_urlencoded::byte_serialize(name.as_bytes()).collect::<String>().replace('+', "%20");
    HeaderValue::from_str(&format!(
        "attachment; filename=\"{}\"; filename*=UTF-8''{encoded}",
        ascii.replace(['"', '\\'], "_")
    ))
    .unwrap_or_else(|_| HeaderValue::from_static("attachment"))
}

async fn start(
    core: &Core,
    entry: &ExportEntry,
    address: &str,
    query: Option<String>,
    headers: &HeaderMap,
) -> Result<CsvExport> {
    let input: Input = entry.list_entry().types.text_input(query_params(query)?);
    entry.start(core, bearer(headers), address, input).await
}

fn answer(export: CsvExport) -> Response {
    let disposition = format!("attachment; filename=\"{}\"", export.file_name());
    let total = export.progress().total;
    let chunks = futures::stream::unfold(Some(export), |export| async move {
        let mut export = export?;
        match export.next_chunk().await {
            Ok(Some(chunk)) => Some((Ok::<_, std::io::Error>(chunk), Some(export))),
            Ok(None) => None,
            Err(error) => {
                tracing::error!(list = export.name(), message = %error.message, "an export failed part-way");
                Some((Err(std::io::Error::other(error.message)), None))
            }
        }
    });
    let mut response = Body::from_stream(chunks).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/csv; charset=utf-8"));
    headers.insert(TOTAL_ROWS, HeaderValue::from(total));
    if let Ok(value) = HeaderValue::from_str(&disposition) {
        headers.insert(header::CONTENT_DISPOSITION, value);
    }
    response
}
