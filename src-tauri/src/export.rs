//! Files the user saves (SPEC section 14): a list's CSV export, and a document as PDF, DOCX or
//! text ("Download PDF").
//!
//! "Export CSV" on a list: the OS's save dialog asks where, then the list's
//! export (this computer's core, or the team server's `GET …/export`) is written there a page at
//! a time, with its progress sent to the window (`export-progress`). The file is written beside
//! its place under a temporary name and moved there only when whole, so a failure half-way
//! leaves no half a file where the user looks, and never replaces a file they had.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures_util::StreamExt;
use serde::Serialize;
use serde_json::Value;
use staffroom::api::{Access, Fields, Input, OpSpec, Request, MAIN};
use staffroom_macros::request;
use staffroom::auth::THIS_COMPUTER;
use staffroom::payments::exports::{self, ExportEntry};
use staffroom::{Error, Result};
use tauri::{AppHandle, Emitter, Runtime};
use tokio::io::AsyncWriteExt;

use crate::ops::{Context, DesktopOperation};

/// Asks where to save a file of this name (`None`: the user cancelled). The OS's dialog, unless
/// tests script one.
pub type SavePicker = Arc<dyn Fn(&str) -> Option<PathBuf> + Send + Sync>;

/// A list to export and its filters.
#[request(only = "is not a field of an export")]
#[derive(Debug, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(export_to = "desktop/")]
pub struct ExportCsvRequest {
    /// `orders`, `customers`, `subscriptions` or `license-keys`.
    #[field(with = export_list)]
    #[schema(schema_with = export_lists)]
    pub list: String,
    /// The list's filters, as its list operation takes them (without paging).
    #[field(with = export_filters)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable, type = "Record<string, string | number | boolean>")]
    #[schema(value_type = Option<Object>)]
    pub filters: Option<serde_json::Map<String, Value>>,
}

/// The lists there are exports of (the export registry's, which the schema lists too).
fn export_names() -> Vec<&'static str> {
    exports::exports().iter().map(|e| e.list).collect()
}

fn export_lists() -> utoipa::openapi::schema::Object {
    use utoipa::openapi::schema::{ObjectBuilder, Type};
    ObjectBuilder::new().schema_type(Type::String).enum_values(Some(export_names())).build()
}

fn export_list(fields: &mut Fields) -> String {
    if fields.value("list").is_none() {
        fields.problem("list", "is required");
    }
    fields.choice("list", &export_names()).unwrap_or_default().to_string()
}

fn export_filters(fields: &mut Fields) -> Option<serde_json::Map<String, Value>> {
    match fields.value("filters") {
        None => None,
        Some(Value::Object(filters)) => Some(filters.clone()),
        Some(_) => {
            fields.problem("filters", "must be an object of the list's filters");
            None
        }
    }
}

/// Where an export was saved, and how many rows it holds.
#[derive(Debug, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[ts(export_to = "desktop/")]
pub struct ExportCsvResult {
    /// The file, or none when the user cancelled the dialog.
    pub path: Option<String>,
    pub rows: u64,
}

/// How far an export is, sent to the windows as `export-progress`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExportProgressEvent {
    pub list: String,
    pub rows: u64,
    pub total: u64,
}

pub struct ExportCsv;
impl DesktopOperation for ExportCsv {
    const SPEC: OpSpec =
        OpSpec::new("export_csv", "desktop", "Saves a list's rows for its filters as a CSV file the user picks")
            .access(Access::Staff)
            .windows(MAIN);
    type Request = ExportCsvRequest;
    type Response = ExportCsvResult;
    async fn run<R: Runtime>(cx: &Context<'_, R>, request: ExportCsvRequest) -> Result<ExportCsvResult> {
        let entry = exports::find(&request.list).expect("checked against the exports");
        let input: Input = request.filters.unwrap_or_default();
        // Bad filters are refused before the dialog asks where to save.
        entry.check_filters(&input)?;
        let today = today();
        let suggested = format!("{}-{today}.csv", entry.list);
        let Some(path) = pick(cx, "Export CSV", &suggested).await? else {
            return Ok(ExportCsvResult { path: None, rows: 0 });
        };
        let rows = save(cx, entry, input, &path).await?;
        tracing::info!(list = entry.list, rows, "a list was exported");
        Ok(ExportCsvResult { path: Some(path.display().to_string()), rows })
    }
}

/// Today's date, `YYYY-MM-DD`, as the server's file names write it.
fn today() -> String {
    staffroom::time::now_rfc3339().chars().take(10).collect()
}

/// The file the user picks, through the OS's save dialog (or the tests' picker).
async fn pick<R: Runtime>(cx: &Context<'_, R>, title: &str, suggested: &str) -> Result<Option<PathBuf>> {
    if let Some(picker) = cx.state.save_picker() {
        return Ok(picker(suggested));
    }
    use tauri_plugin_dialog::DialogExt;
    let (sender, receiver) = tokio::sync::oneshot::channel();
    cx.app.dialog().file().set_title(title).set_file_name(suggested).save_file(move |chosen| {
        let _ = sender.send(chosen.and_then(|file| file.into_path().ok()));
    });
    receiver.await.map_err(|_| Error::internal("the save dialog", "it closed without an answer"))
}

/// Writes the export to `path` (through a temporary file beside it) and answers how many rows.
async fn save<R: Runtime>(cx: &Context<'_, R>, entry: &ExportEntry, input: Input, path: &Path) -> Result<u64> {
    let part = part_of(path);
    let written = write(cx, entry, input, &part).await;
    match written {
        Ok(rows) => {
            tokio::fs::rename(&part, path).await.map_err(|e| cannot_write(path, e))?;
            Ok(rows)
        }
        Err(error) => {
            let _ = tokio::fs::remove_file(&part).await;
            Err(error)
        }
    }
}

async fn write<R: Runtime>(cx: &Context<'_, R>, entry: &ExportEntry, input: Input, part: &Path) -> Result<u64> {
    let token = cx.state.token().await;
    let mut chunks = match cx.state.team().await {
        None => {
            let export = entry.start(&cx.state.core, token.as_deref(), THIS_COMPUTER, input).await?;
            Chunks::Here(Box::new(export))
        }
        Some(server) => {
            let (total, body) = server.export(entry, token.as_deref(), input).await?;
            Chunks::Server { total, body: Box::pin(body) }
        }
    };
    let mut file = tokio::fs::File::create(part).await.map_err(|e| cannot_write(part, e))?;
    let mut rows = RowCounter::default();
    let total = chunks.total();
    while let Some(chunk) = chunks.next().await? {
        rows.count(&chunk);
        file.write_all(&chunk).await.map_err(|e| cannot_write(part, e))?;
        progress(cx.app, entry, rows.rows(), total);
    }
    file.sync_all().await.map_err(|e| cannot_write(part, e))?;
    Ok(rows.rows())
}

fn progress<R: Runtime>(app: &AppHandle<R>, entry: &ExportEntry, rows: u64, total: u64) {
    let event = ExportProgressEvent { list: entry.list.to_string(), rows, total: total.max(rows) };
    let _ = app.emit("export-progress", event);
}

/// Where a file is written until it is whole: beside it, its name and `.part`.
fn part_of(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".part");
    path.with_file_name(name)
}

fn cannot_write(path: &Path, error: std::io::Error) -> Error {
    Error::invalid_field("path", format!("could not be written ({}): {error}", path.display()))
}

/// Where an export's bytes come from.
enum Chunks {
    Here(Box<staffroom::payments::export::CsvExport>),
    Server { total: u64, body: std::pin::Pin<Box<dyn futures_util::Stream<Item = Result<bytes::Bytes>> + Send>> },
}

impl Chunks {
    fn total(&self) -> u64 {
        match self {
            Chunks::Here(export) => export.progress().total,
            Chunks::Server { total, .. } => *total,
        }
    }

    async fn next(&mut self) -> Result<Option<Vec<u8>>> {
        match self {
            Chunks::Here(export) => export.next_chunk().await,
            Chunks::Server { body, .. } => body.next().await.transpose().map(|chunk| chunk.map(|c| c.to_vec())),
        }
    }
}

/// Counts a CSV file's rows (after its header) as its bytes go by: a line end outside quotes
/// ends a row.
#[derive(Debug, Default)]
struct RowCounter {
    lines: u64,
    quoted: bool,
}

impl RowCounter {
    fn count(&mut self, chunk: &[u8]) {
        for byte in chunk {
            match byte {
                b'"' => self.quoted = !self.quoted,
                b'\n' if !self.quoted => self.lines += 1,
                _ => {}
            }
        }
    }

    fn rows(&self) -> u64 {
        self.lines.saturating_sub(1)
    }
}

#[cfg(test)]
mod tests {
    use super::RowCounter;

    #[test]
    fn rows_are_counted_across_chunks_and_quoted_line_ends() {
        let file = b"a,b\r\n\"Zo\xc3\xab\r\nMartin\",1\r\n\"x\"\"\",2\r\n";
        for cut in 0..file.len() {
            let mut counter = RowCounter::default();
            counter.count(&file[..cut]);
            counter.count(&file[cut..]);
            assert_eq!(counter.rows(), 2, "cut at {cut}");
        }
    }
}

/// A document to download, and as what.
#[derive(Debug, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[ts(export_to = "desktop/")]
pub struct DownloadDocumentRequest {
    #[schema(pattern = "^[A-Za-z0-9_-]{1,200}$")]
    pub id: String,
    /// `pdf` (the default), `docx` or `txt`.
    #[schema(value_type = Option<staffroom::templates::ExportFormat>)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub format: Option<String>,
    /// The document's name, for the file's suggested name.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub name: Option<String>,
}

/// The core's request decides what an id and a format may be; this adds the name.
impl Request for DownloadDocumentRequest {
    fn from_input(input: &Input) -> Result<Self> {
        let mut fields = Fields::new(input);
        fields.only(&["id", "format", "name"], "is not a field of a download");
        let name = fields.string("name").map(str::to_owned);
        let core_input: Input =
            input.iter().filter(|(k, _)| k.as_str() != "name").map(|(k, v)| (k.clone(), v.clone())).collect();
        let checked = fields.take(staffroom::templates::DocumentExportRequest::from_input(&core_input))?;
        fields.finish(|| {
            let checked = checked.expect("checked");
            DownloadDocumentRequest { id: checked.id, format: checked.format.map(|f| f.as_str().to_string()), name }
        })
    }
}

/// Where a download was saved.
#[derive(Debug, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[ts(export_to = "desktop/")]
pub struct DownloadResult {
    /// The file, or none when the user cancelled the dialog.
    pub path: Option<String>,
    pub bytes: u64,
}

pub struct DownloadDocument;
impl DesktopOperation for DownloadDocument {
    const SPEC: OpSpec =
        OpSpec::new("download_document", "desktop", "Saves a document as a PDF, DOCX or text file the user picks")
            .access(Access::Staff)
            .windows(staffroom::api::MAIN_AND_EDITOR);
    type Request = DownloadDocumentRequest;
    type Response = DownloadResult;
    async fn run<R: Runtime>(cx: &Context<'_, R>, request: DownloadDocumentRequest) -> Result<DownloadResult> {
        let format = request.format.unwrap_or_else(|| "pdf".into());
        let stem = staffroom::docs::templates::file_name_of(request.name.as_deref().unwrap_or("Document"));
        let Some(path) = pick(cx, "Download", &format!("{stem}.{format}")).await? else {
            return Ok(DownloadResult { path: None, bytes: 0 });
        };
        let mut input = Input::new();
        input.insert("id".into(), Value::String(request.id.clone()));
        input.insert("format".into(), Value::String(format));
        let token = cx.state.token().await;
        let bytes = match cx.state.team().await {
            None => {
                staffroom::templates::export_document(&cx.state.core, token.as_deref(), THIS_COMPUTER, input)
                    .await?
                    .bytes
            }
            Some(server) => {
                let path = staffroom::templates::DOCUMENT_EXPORT_PATH.replace("{id}", &request.id);
                input.remove("id");
                let response = server.file(&path, input, token.as_deref()).await?;
                let bytes = response.bytes().await.map_err(|e| server.unreachable(&e))?;
                bytes.to_vec()
            }
        };
        let part = part_of(&path);
        let written = async {
            tokio::fs::write(&part, &bytes).await?;
            tokio::fs::rename(&part, &path).await
        }
        .await;
        if let Err(error) = written {
            let _ = tokio::fs::remove_file(&part).await;
            return Err(cannot_write(&path, error));
        }
        Ok(DownloadResult { path: Some(path.display().to_string()), bytes: bytes.len() as u64 })
    }
}
