//! The Drive v3 and Docs v1 client: bearer token from [`GoogleAuth`] (refreshed once on a 401),
//! the shared retry policy with Google's backoff on rate limits (403/429 by reason) and server
//! errors, creates that are safe to retry (ids from `files.generateIds`), a client-side limit
//! below Docs' 60 writes per minute, time-outs, and Google's error bodies mapped to Staffroom's
//! codes by status and reason, never by message text. HTTPS only, except on loopback.

use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use super::model::{BatchUpdateResponse, Document, DocumentSummary, FileList, Folder, Permission, DOC_MIME};
use super::oauth::{GoogleAuth, PROVIDER};
use crate::retry::{check_base_url, Answer, Attempt, Replay, Retries, RetryPolicy, TooLarge};
use staffroom_base::error::{Error, ErrorCode, Result};

/// Where Google's endpoints are (the sandbox points them at its simulator).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoogleEndpoints {
    pub drive_url: String,
    pub docs_url: String,
    pub auth_url: String,
    pub token_url: String,
    pub revoke_url: String,
    /// What a token may do (its scopes), for the connection's check.
    pub tokeninfo_url: String,
}

impl Default for GoogleEndpoints {
    fn default() -> Self {
        GoogleEndpoints {
            drive_url: "https://www.googleapis.com/drive/v3".into(),
            docs_url: "https://docs.googleapis.com/v1".into(),
            auth_url: "https://accounts.google.com/o/oauth2/v2/auth".into(),
            token_url: "https://oauth2.googleapis.com/token".into(),
            revoke_url: "https://oauth2.googleapis.com/revoke".into(),
            tokeninfo_url: "https://oauth2.googleapis.com/tokeninfo".into(),
        }
    }
}

/// Time-outs, retries and the write limit.
#[derive(Debug, Clone, Copy)]
pub struct GoogleClientOptions {
    pub connect_timeout: Duration,
    pub request_timeout: Duration,
    /// Google's algorithm: 2^n seconds plus up to a second at random, capped.
    pub retry: RetryPolicy,
    /// Docs writes per minute (Google allows 60 per user; stay below).
    pub writes_per_minute: u32,
}

impl Default for GoogleClientOptions {
    fn default() -> Self {
        GoogleClientOptions {
            connect_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(20),
            retry: RetryPolicy {
                max_attempts: 5,
                max_total: Duration::from_secs(30),
                backoff_base: Duration::from_secs(1),
                max_wait: Duration::from_secs(32),
            },
            writes_per_minute: 50,
        }
    }
}

/// Drive fields of a document summary (nested in `files(...)` for lists, as Drive requires).
const SUMMARY_FIELDS: &str =
    "id,name,mimeType,createdTime,modifiedTime,webViewLink,thumbnailLink,capabilities(canEdit,canShare)";
const PERMISSION_FIELDS: &str = "id,type,role,emailAddress,domain";
/// Folders are read a page of this many at a time, every page.
const FOLDER_PAGE: u32 = 1000;
/// More folders than this are not offered in the filter (a guard against a runaway listing).
const MAX_FOLDERS: usize = 10_000;

/// How one request may be sent: through the write limiter or not, replayed or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Call {
    write: bool,
    replay: Replay,
    /// The request carries `writeControl.requiredRevisionId`: a precondition failure is a
    /// revision conflict.
    with_revision: bool,
}

const READ: Call = Call { write: false, replay: Replay::Safe, with_revision: false };

/// A Google API client; clones share the connection pool, the token and the write limiter.
#[derive(Clone)]
pub struct GoogleClient {
    http: reqwest::Client,
    drive: url::Url,
    docs: url::Url,
    tokeninfo: url::Url,
    auth: GoogleAuth,
    writes: Arc<DefaultDirectRateLimiter>,
    options: GoogleClientOptions,
}

fn with_slash(mut url: url::Url) -> url::Url {
    if !url.path().ends_with('/') {
        url.set_path(&format!("{}/", url.path()));
    }
    url
}

impl GoogleClient {
    pub fn new(endpoints: &GoogleEndpoints, auth: GoogleAuth, options: GoogleClientOptions) -> Result<Self> {
        let drive = with_slash(check_base_url(&endpoints.drive_url)?);
        let docs = with_slash(check_base_url(&endpoints.docs_url)?);
        let tokeninfo = check_base_url(&endpoints.tokeninfo_url)?;
        let http = reqwest::Client::builder()
            .connect_timeout(options.connect_timeout)
            .timeout(options.request_timeout)
            .user_agent(concat!("Staffroom/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| Error::internal("http client", e))?;
        let per_minute = options.writes_per_minute.max(1);
        let quota = Quota::with_period(Duration::from_secs(60) / per_minute)
            .expect("a positive period")
            .allow_burst(NonZeroU32::new(per_minute.min(10)).expect("positive"));
        Ok(GoogleClient { http, drive, docs, tokeninfo, auth, writes: Arc::new(RateLimiter::direct(quota)), options })
    }

    pub fn auth(&self) -> &GoogleAuth {
        &self.auth
    }

    fn drive_url(&self, path: &str) -> Result<url::Url> {
        self.drive.join(path).map_err(|e| Error::internal("drive url", e))
    }

    fn docs_url(&self, path: &str) -> Result<url::Url> {
        self.docs.join(path).map_err(|e| Error::internal("docs url", e))
    }

    /// Sends one request with the shared retries, the token refresh on a 401, and error mapping;
    /// its JSON answer.
    async fn send(&self, method: Method, url: url::Url, body: Option<&Value>, call: Call) -> Result<Value> {
        let (status, answer) = self.send_for_bytes(method, url, body, call, None).await?;
        if answer.is_empty() {
            return Ok(Value::Null);
        }
        serde_json::from_slice(&answer)
            .map_err(|_| Error::integration(PROVIDER, Some(status), "Google answered with a body that is not JSON"))
    }

    /// [`send`](Self::send), answering the success's status and bytes as they came (a file).
    /// With a `cap`, an answer of more bytes than that is not read further: [`TooLarge`].
    async fn send_for_bytes(
        &self,
        method: Method,
        url: url::Url,
        body: Option<&Value>,
        call: Call,
        cap: Option<usize>,
    ) -> Result<(u16, Vec<u8>)> {
        let mut token = self.auth.access_token().await?;
        let mut refreshed = false;
        let mut retries = Retries::start(self.options.retry, call.replay);
        loop {
            if call.write {
                self.writes.until_ready().await;
            }
            let mut request = self.http.request(method.clone(), url.clone()).bearer_auth(&token);
            if let Some(body) = body {
                request = request.json(body);
            }
            let outcome = match cap {
                None => Attempt::send(request).await,
                Some(cap) => match Attempt::send_at_most(request, cap).await {
                    Ok(outcome) => outcome,
                    Err(TooLarge) => {
                        tracing::warn!(path = url.path(), cap, "Google's answer is larger than Staffroom reads");
                        return Err(too_large_to_export());
                    }
                },
            };
            if let Attempt::Answered(StatusCode::UNAUTHORIZED, _, _) = &outcome {
                if !refreshed {
                    // Refresh once; a second 401 means the sign-in itself is gone. A 401 means
                    // the request was not acted on, so sending it again is safe.
                    refreshed = true;
                    token = self.auth.refresh_after_rejection(&token).await?;
                    continue;
                }
            }
            let answer = match &outcome {
                Attempt::Answered(status, body, _) => classify(*status, &parse_error_body(body)),
                _ => Answer::Final,
            };
            let Some(wait) = retries.next_wait(&outcome, answer) else {
                return finish_bytes(method.as_str(), url.path(), outcome, call.with_revision);
            };
            tracing::debug!(
                attempt = retries.attempts(),
                wait_ms = wait.as_millis() as u64,
                path = url.path(),
                "retrying a Google request"
            );
            tokio::time::sleep(wait).await;
        }
    }

    /// Drive `files.list` of Google Docs matching `q`, in My Drive and every shared drive.
    pub async fn list_files(
        &self,
        q: &str,
        order_by: &str,
        page_size: u32,
        page_token: Option<&str>,
    ) -> Result<FileList> {
        let mut url = self.drive_url("files")?;
        {
            let mut query = url.query_pairs_mut();
            query.append_pair("q", q);
            query.append_pair("orderBy", order_by);
            query.append_pair("pageSize", &page_size.to_string());
            query.append_pair("fields", &format!("nextPageToken,files({SUMMARY_FIELDS})"));
            all_drives(&mut query);
            if let Some(token) = page_token {
                query.append_pair("pageToken", token);
            }
        }
        let value = self.send(Method::GET, url, None, READ).await.map_err(|e| blame(e, "pageToken"))?;
        parse(value, "a file list")
    }

    /// Every folder the user can see, in My Drive and every shared drive, sorted by name: all
    /// pages, not only the first.
    pub async fn list_folders(&self) -> Result<Vec<Folder>> {
        let mut folders: Vec<Folder> = Vec::new();
        let mut page_token: Option<String> = None;
        loop {
            let mut url = self.drive_url("files")?;
            {
                let mut query = url.query_pairs_mut();
                query
                    .append_pair("q", "mimeType = 'application/vnd.google-apps.folder' and trashed = false")
                    .append_pair("orderBy", "name")
                    .append_pair("pageSize", &FOLDER_PAGE.to_string())
                    .append_pair("fields", "nextPageToken,files(id,name)");
                all_drives(&mut query);
                if let Some(token) = &page_token {
                    query.append_pair("pageToken", token);
                }
            }
            let page: FolderPage = parse(self.send(Method::GET, url, None, READ).await?, "a folder list")?;
            folders.extend(page.files);
            match page.next_page_token.filter(|t| !t.is_empty()) {
                Some(next) if folders.len() < MAX_FOLDERS => page_token = Some(next),
                _ => break,
            }
        }
        // Pages are each sorted; shared drives' folders interleave with My Drive's.
        folders.sort_by(|a, b| a.name.to_lowercase().cmp(&b.name.to_lowercase()).then(a.id.cmp(&b.id)));
        Ok(folders)
    }

    /// Drive `files.generateIds`: one id a create may use, so that a create sent twice makes
    /// one file.
    pub async fn generate_id(&self) -> Result<String> {
        let mut url = self.drive_url("files/generateIds")?;
        url.query_pairs_mut().append_pair("count", "1").append_pair("space", "drive").append_pair("type", "files");
        let ids: GeneratedIds = parse(self.send(Method::GET, url, None, READ).await?, "a list of generated ids")?;
        ids.ids
            .into_iter()
            .next()
            .filter(|id| !id.is_empty())
            .ok_or_else(|| Error::integration(PROVIDER, None, "Google answered files.generateIds without an id"))
    }

    /// Drive `files.create` of an empty Google Doc with the id `id` (from
    /// [`generate_id`](Self::generate_id)) in `folder` (My Drive's root when `None`). Retried
    /// freely: a repeat finds the file made by the first attempt.
    pub async fn create_document(&self, id: &str, name: &str, folder: Option<&str>) -> Result<DocumentSummary> {
        let mut url = self.drive_url("files")?;
        url.query_pairs_mut().append_pair("fields", SUMMARY_FIELDS).append_pair("supportsAllDrives", "true");
        let mut body = json!({ "id": id, "name": name, "mimeType": DOC_MIME });
        if let Some(folder) = folder {
            body["parents"] = json!([folder]);
        }
        self.create_once(url, &body, id, "files.create").await
    }

    /// Sends a create of the file `id` (`files.create`, `files.copy`), an id from
    /// [`generate_id`](Self::generate_id), so it is retried freely: a 409 means an earlier
    /// attempt made it (its answer was lost), and that file is the one asked for.
    async fn create_once(&self, url: url::Url, body: &Value, id: &str, method: &str) -> Result<DocumentSummary> {
        match self
            .send(Method::POST, url, Some(body), Call { write: false, replay: Replay::Safe, with_revision: false })
            .await
        {
            Ok(value) => parse(value, "a created file"),
            Err(error) if error.code == ErrorCode::Conflict => {
                tracing::info!(file = id, method, "found the file made by an earlier attempt");
                self.get_file(id).await
            }
            Err(error) => Err(blame(error, "folderId")),
        }
    }

    /// The scopes Google granted the signed-in token (`tokeninfo`, as Google's OAuth guide
    /// documents it). A token Google does not know is refreshed once; still unknown, the
    /// sign-in is gone (`unauthorized`).
    pub async fn granted_scopes(&self) -> Result<Vec<String>> {
        let mut token = self.auth.access_token().await?;
        let mut refreshed = false;
        loop {
            let mut url = self.tokeninfo.clone();
            url.query_pairs_mut().append_pair("access_token", &token);
            let answer = self.http.get(url).send().await.map_err(|e| {
                // The URL carries the token: never in the log.
                tracing::warn!(error = %e.without_url(), "Google's tokeninfo unreachable");
                Error::integration(PROVIDER, None, "Google could not be reached")
            })?;
            let status = answer.status();
            let body: Value = answer.json().await.unwrap_or(Value::Null);
            match status {
                StatusCode::OK => {
                    let scope = body["scope"].as_str().unwrap_or_default();
                    return Ok(scope.split_whitespace().map(str::to_string).collect());
                }
                // `invalid_token`: expired or revoked.
                StatusCode::BAD_REQUEST | StatusCode::UNAUTHORIZED if !refreshed => {
                    refreshed = true;
                    token = self.auth.refresh_after_rejection(&token).await?;
                }
                StatusCode::BAD_REQUEST | StatusCode::UNAUTHORIZED => {
                    return Err(Error::new(ErrorCode::Unauthorized, "Google refuses Staffroom's sign-in")
                        .with_details(json!({ "provider": PROVIDER })))
                }
                other => {
                    return Err(Error::integration(
                        PROVIDER,
                        Some(other.as_u16()),
                        format!("Google's tokeninfo failed ({})", other.as_u16()),
                    ))
                }
            }
        }
    }

    /// The signed-in Google account's e-mail address (Drive `about.get`).
    pub async fn account_email(&self) -> Result<Option<String>> {
        let mut url = self.drive_url("about")?;
        url.query_pairs_mut().append_pair("fields", "user(emailAddress)");
        let about = self.send(Method::GET, url, None, READ).await?;
        Ok(about["user"]["emailAddress"].as_str().map(str::to_string))
    }

    /// Drive `files.get` of a document's summary.
    pub async fn get_file(&self, id: &str) -> Result<DocumentSummary> {
        let mut url = self.drive_url(&format!("files/{}", encode(id)))?;
        url.query_pairs_mut().append_pair("fields", SUMMARY_FIELDS).append_pair("supportsAllDrives", "true");
        parse(self.send(Method::GET, url, None, READ).await?, "a file")
    }

    /// Drive `permissions.create`. Granting the same role to the same grantee twice grants it
    /// once, so it is retried.
    pub async fn create_permission(
        &self,
        file_id: &str,
        permission: &Permission,
        notify: Option<bool>,
    ) -> Result<Permission> {
        let mut url = self.drive_url(&format!("files/{}/permissions", encode(file_id)))?;
        {
            let mut query = url.query_pairs_mut();
            query.append_pair("fields", PERMISSION_FIELDS).append_pair("supportsAllDrives", "true");
            if permission.role == "owner" {
                // Required as an acknowledgement; the notification cannot be turned off.
                query.append_pair("transferOwnership", "true");
            } else if let (Some(notify), "user" | "group") = (notify, permission.kind.as_str()) {
                query.append_pair("sendNotificationEmail", if notify { "true" } else { "false" });
            }
        }
        let mut body = json!({ "role": permission.role, "type": permission.kind });
        if let Some(email) = &permission.email_address {
            body["emailAddress"] = json!(email);
        }
        if let Some(domain) = &permission.domain {
            body["domain"] = json!(domain);
        }
        let value = self.send(Method::POST, url, Some(&body), READ).await.map_err(|e| blame(e, "permissions"))?;
        parse(value, "a permission")
    }

    /// Drive `files.copy` of `source_id` to a new file with the id `id` (from
    /// [`generate_id`](Self::generate_id), which Drive documents for creates and copies) named
    /// `name`, in `folder` (the source's folders when `None`). Retried freely: a repeat finds the
    /// copy made by the first attempt.
    pub async fn copy_file(
        &self,
        source_id: &str,
        id: &str,
        name: &str,
        folder: Option<&str>,
    ) -> Result<DocumentSummary> {
        let mut url = self.drive_url(&format!("files/{}/copy", encode(source_id)))?;
        url.query_pairs_mut().append_pair("fields", SUMMARY_FIELDS).append_pair("supportsAllDrives", "true");
        let mut body = json!({ "id": id, "name": name });
        if let Some(folder) = folder {
            body["parents"] = json!([folder]);
        }
        self.create_once(url, &body, id, "files.copy").await
    }

    /// Drive `files.export`: a Google document as a file of `mime_type`, its bytes as Drive
    /// answers them (not JSON). Drive exports at most 10 MB (`exportSizeLimitExceeded`), and no
    /// more than a little over that is read; either is a refusal naming `id`. A format Drive
    /// cannot export the file to is a refusal naming `format`.
    pub async fn export_file(&self, id: &str, mime_type: &str) -> Result<Vec<u8>> {
        let mut url = self.drive_url(&format!("files/{}/export", encode(id)))?;
        url.query_pairs_mut().append_pair("mimeType", mime_type);
        match self.send_for_bytes(Method::GET, url, None, READ, Some(EXPORT_READ_LIMIT)).await {
            Ok((_, bytes)) => Ok(bytes),
            Err(error) => Err(export_refusal(error)),
        }
    }

    /// One Docs batchUpdate of `replaceAllText` for each (text, replacement), matching case; how
    /// many times each was replaced.
    pub async fn replace_all_text(&self, id: &str, replacements: &[(String, String)]) -> Result<Vec<u32>> {
        let requests: Vec<Value> = replacements
            .iter()
            .map(|(text, with)| {
                json!({"replaceAllText": {"containsText": {"text": text, "matchCase": true}, "replaceText": with}})
            })
            .collect();
        let answer = self.batch_update(id, &requests, None).await?;
        Ok(answer
            .replies
            .iter()
            .map(|reply| reply["replaceAllText"]["occurrencesChanged"].as_u64().unwrap_or(0) as u32)
            .collect())
    }

    /// Docs `documents.get` with every tab (`includeTabsContent=true`): the first tab's content
    /// and the outline of all of them (see [`Document::from_tabbed`]).
    pub async fn get_document(&self, id: &str, view_mode: &str) -> Result<Document> {
        self.get_document_tab(id, view_mode, None).await
    }

    /// [`Self::get_document`] with the content of the tab `tab` names (the first without one);
    /// 404 when the document has no such tab.
    pub async fn get_document_tab(&self, id: &str, view_mode: &str, tab: Option<&str>) -> Result<Document> {
        let mut url = self.docs_url(&format!("documents/{}", encode(id)))?;
        url.query_pairs_mut().append_pair("suggestionsViewMode", view_mode).append_pair("includeTabsContent", "true");
        let value = self.send(Method::GET, url, None, READ).await?;
        let document = Document::from_tabbed(value, tab).map_err(|e| {
            Error::integration(PROVIDER, None, format!("Google answered with an unexpected document ({e})"))
        })?;
        let document = document.ok_or_else(|| {
            let mut missing = Error::not_found(format!("The document has no tab {}", tab.unwrap_or_default()));
            missing.details = Some(serde_json::json!({"tabId": tab}));
            missing
        })?;
        Ok(document.with_access())
    }

    /// Docs `documents.batchUpdate`, with `writeControl.requiredRevisionId` when given. With a
    /// required revision a replay cannot apply twice (the revision has moved on), so it is
    /// retried; without one it is sent once, and the caller reads the document to learn more.
    pub async fn batch_update(
        &self,
        id: &str,
        requests: &[Value],
        required_revision: Option<&str>,
    ) -> Result<BatchUpdateResponse> {
        let url = self.docs_url(&format!("documents/{}:batchUpdate", encode(id)))?;
        let mut body = json!({ "requests": requests });
        if let Some(revision) = required_revision {
            body["writeControl"] = json!({ "requiredRevisionId": revision });
        }
        let call = Call {
            write: true,
            replay: if required_revision.is_some() { Replay::Safe } else { Replay::Unsafe },
            with_revision: required_revision.is_some(),
        };
        let value = self.send(Method::POST, url, Some(&body), call).await.map_err(|e| blame(e, "requests"))?;
        parse(value, "a batch update answer")
    }
}

/// Drive's limit on an exported file ("the exported content is limited to 10 MB", `files.export`
/// in the discovery document), and what is read of an export at most: a little over it.
const EXPORT_LIMIT: usize = 10 * 1024 * 1024;
const EXPORT_READ_LIMIT: usize = EXPORT_LIMIT + 256 * 1024;

fn too_large_to_export() -> Error {
    Error::invalid_field(
        "id",
        "names a document too large to export: Google exports at most 10 MB (download it from Google Docs instead)",
    )
}

/// What a refused `files.export` means: too large (`exportSizeLimitExceeded`) names the
/// document, anything else Google refuses as asked (a conversion it does not support, 400
/// `badRequest`) names the format.
fn export_refusal(error: Error) -> Error {
    if has_reason(&error, "exportSizeLimitExceeded") {
        too_large_to_export()
    } else {
        blame(error, "format")
    }
}

/// Whether Google gave `reason` for the refusal `error` carries.
fn has_reason(error: &Error, reason: &str) -> bool {
    let Some(details) = &error.details else { return false };
    details["reason"] == reason || details["reasons"].as_array().is_some_and(|r| r.iter().any(|x| x == reason))
}

/// Every list reaches shared drives too (Drive needs all three to include their files).
fn all_drives(query: &mut url::form_urlencoded::Serializer<'_, url::UrlQuery<'_>>) {
    query.append_pair("corpora", "allDrives");
    query.append_pair("supportsAllDrives", "true");
    query.append_pair("includeItemsFromAllDrives", "true");
}

#[derive(Debug, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct FolderPage {
    files: Vec<Folder>,
    next_page_token: Option<String>,
}

#[derive(Debug, Default, serde::Deserialize)]
#[serde(default)]
struct GeneratedIds {
    ids: Vec<String>,
}

/// A path segment, percent-encoded (ids are validated, this is defence in depth).
fn encode(segment: &str) -> String {
    url::form_urlencoded::byte_serialize(segment.as_bytes()).collect()
}

/// An `invalid_request` from Google names `field` as the cause.
fn blame(mut error: Error, field: &str) -> Error {
    if error.code == ErrorCode::InvalidRequest {
        if let Some(details) = error.details.as_mut() {
            if let Some(fields) = details.get_mut("fields").and_then(Value::as_array_mut) {
                for f in fields {
                    if f["field"] == "google" {
                        f["field"] = json!(field);
                    }
                }
            }
        }
    }
    error
}

fn parse<T: serde::de::DeserializeOwned>(value: Value, what: &str) -> Result<T> {
    serde_json::from_value(value)
        .map_err(|e| Error::integration(PROVIDER, None, format!("Google answered with an unexpected {what} ({e})")))
}

/// Google's error body: message, reasons (from `errors[]` and `details[]`), and `status`.
#[derive(Debug, Default, PartialEq)]
pub struct GoogleErrorBody {
    pub message: Option<String>,
    pub reasons: Vec<String>,
    pub status: Option<String>,
}

impl GoogleErrorBody {
    fn has_reason(&self, any_of: &[&str]) -> bool {
        self.reasons.iter().any(|r| any_of.contains(&r.as_str()))
    }
}

pub fn parse_error_body(body: &[u8]) -> GoogleErrorBody {
    let Ok(value) = serde_json::from_slice::<Value>(body) else { return GoogleErrorBody::default() };
    let error = &value["error"];
    let mut reasons: Vec<String> = Vec::new();
    for list in ["errors", "details"] {
        for item in error[list].as_array().into_iter().flatten() {
            if let Some(reason) = item["reason"].as_str() {
                reasons.push(reason.to_string());
            }
        }
    }
    GoogleErrorBody {
        message: error["message"].as_str().map(str::to_string),
        reasons,
        status: error["status"].as_str().map(str::to_string),
    }
}

/// Reasons of Google's rate limits (retried with backoff).
const RATE_REASONS: &[&str] =
    &["userRateLimitExceeded", "rateLimitExceeded", "sharingRateLimitExceeded", "RATE_LIMIT_EXCEEDED"];
/// Reasons meaning the sign-in lacks a scope: only signing in again helps.
const SCOPE_REASONS: &[&str] = &["insufficientPermissions", "ACCESS_TOKEN_SCOPE_INSUFFICIENT", "authError"];
/// Reasons of a sharing request Google refuses as asked: the request must change.
const SHARING_REASONS: &[&str] = &[
    "consentRequiredForOwnershipTransfer",
    "pendingOwnerWriterRequired",
    "ownershipChangeAcrossDomainNotPermitted",
    "cannotShareTeamDriveWithNonGoogleAccounts",
    "invalidSharingRequest",
];

fn is_rate_limited(status: StatusCode, body: &GoogleErrorBody) -> bool {
    status == StatusCode::TOO_MANY_REQUESTS || (status == StatusCode::FORBIDDEN && body.has_reason(RATE_REASONS))
}

fn classify(status: StatusCode, body: &GoogleErrorBody) -> Answer {
    if is_rate_limited(status, body) {
        Answer::RateLimited
    } else if matches!(status.as_u16(), 500 | 502 | 503 | 504) {
        Answer::ServerError
    } else {
        Answer::Final
    }
}

/// The message for a refused sharing request: what the user can do instead.
fn sharing_message(body: &GoogleErrorBody, google_says: &str) -> String {
    if body.has_reason(&["consentRequiredForOwnershipTransfer"]) {
        "Google does not let this account hand ownership to that person directly (personal Google accounts need the new owner to accept): share the document as an editor instead".into()
    } else {
        format!("Google refused the sharing request: {google_says}")
    }
}

/// The error Staffroom makes of a refusal Google answered with `status` and `body` (the request
/// carried a required revision when `with_revision`).
pub fn refusal(status: u16, body: &[u8], with_revision: bool) -> Error {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_GATEWAY);
    match finish("", "", Attempt::Answered(status, body.to_vec(), None), with_revision) {
        Err(error) => error,
        Ok(_) => Error::integration(PROVIDER, Some(status.as_u16()), "Google answered a success, not a refusal"),
    }
}

fn finish(method: &str, path: &str, outcome: Attempt, with_revision: bool) -> Result<Value> {
    let (status, body) = finish_bytes(method, path, outcome, with_revision)?;
    if body.is_empty() {
        return Ok(Value::Null);
    }
    serde_json::from_slice(&body)
        .map_err(|_| Error::integration(PROVIDER, Some(status), "Google answered with a body that is not JSON"))
}

/// A success's status and body, or the error Staffroom makes of the refusal or failure.
fn finish_bytes(method: &str, path: &str, outcome: Attempt, with_revision: bool) -> Result<(u16, Vec<u8>)> {
    match outcome {
        Attempt::Answered(status, body, _) if status.is_success() => Ok((status.as_u16(), body)),
        Attempt::Answered(status, body, retry_after) => {
            let parsed = parse_error_body(&body);
            tracing::warn!(method, path, status = status.as_u16(), reasons = ?parsed.reasons, "Google refused a request");
            let message = parsed.message.clone().unwrap_or_else(|| format!("Google answered {}", status.as_u16()));
            let reason = parsed.reasons.first().map(String::as_str);
            let provider = json!({ "provider": PROVIDER, "status": status.as_u16(), "reasons": parsed.reasons });
            let precondition =
                parsed.status.as_deref() == Some("FAILED_PRECONDITION") || parsed.has_reason(&["failedPrecondition"]);
            Err(if is_rate_limited(status, &parsed) {
                Error::rate_limited(
                    "Google's rate limit was reached; try again shortly",
                    retry_after.unwrap_or(Duration::from_secs(30)),
                )
                .with_details(provider)
            } else if status == StatusCode::BAD_REQUEST && with_revision && precondition {
                // The required revision is not the latest (or no longer valid): a conflict.
                Error::conflict("The document changed since it was read; reload it and apply the edits again", None)
            } else {
                match status {
                    StatusCode::UNAUTHORIZED => Error::provider_unauthorized(PROVIDER),
                    StatusCode::FORBIDDEN if parsed.has_reason(SCOPE_REASONS) => Error::new(
                        ErrorCode::Unauthorized,
                        "Google did not grant Staffroom access to this; sign in again with the requested permissions",
                    )
                    .with_details(provider),
                    StatusCode::FORBIDDEN | StatusCode::BAD_REQUEST if parsed.has_reason(SHARING_REASONS) => {
                        Error::invalid_field("google", sharing_message(&parsed, &message))
                    }
                    StatusCode::FORBIDDEN => Error::provider_forbidden(
                        PROVIDER,
                        reason,
                        format!("Google does not allow this for your account: {message}"),
                    ),
                    StatusCode::NOT_FOUND => Error::not_found(message).with_details(provider),
                    // A create with an id that exists already (an earlier attempt made it).
                    StatusCode::CONFLICT => Error::new(ErrorCode::Conflict, message).with_details(provider),
                    StatusCode::BAD_REQUEST => {
                        Error::invalid_field("google", format!("Google refused the request: {message}"))
                    }
                    other => Error::integration(PROVIDER, Some(other.as_u16()), format!("Google failed: {message}"))
                        .with_details(provider),
                }
            })
        }
        Attempt::TimedOut => {
            tracing::warn!(method, path, "Google timed out");
            Err(Error::provider_timeout(PROVIDER))
        }
        Attempt::Failed(reason) | Attempt::Unsent(reason) => {
            tracing::warn!(method, path, %reason, "Google unreachable");
            Err(Error::integration(PROVIDER, None, "Google could not be reached"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answered(status: u16, body: &str) -> Attempt {
        Attempt::Answered(StatusCode::from_u16(status).unwrap(), body.as_bytes().to_vec(), None)
    }

    fn code(status: u16, body: &str, with_revision: bool) -> (u16, ErrorCode) {
        let err = finish("GET", "/", answered(status, body), with_revision).unwrap_err();
        (err.status(), err.code)
    }

    #[test]
    fn reads_reasons_from_errors_and_details() {
        let body = br#"{"error":{"code":403,"message":"m","errors":[{"reason":"userRateLimitExceeded"}],"details":[{"@type":"x","reason":"ACCESS_TOKEN_SCOPE_INSUFFICIENT"}]}}"#;
        let parsed = parse_error_body(body);
        assert_eq!(parsed.reasons, vec!["userRateLimitExceeded", "ACCESS_TOKEN_SCOPE_INSUFFICIENT"]);
        assert_eq!(classify(StatusCode::FORBIDDEN, &parsed), Answer::RateLimited);
        let daily = parse_error_body(br#"{"error":{"errors":[{"reason":"dailyLimitExceeded"}]}}"#);
        assert_eq!(classify(StatusCode::FORBIDDEN, &daily), Answer::Final);
        assert_eq!(classify(StatusCode::SERVICE_UNAVAILABLE, &GoogleErrorBody::default()), Answer::ServerError);
    }

    #[test]
    fn maps_google_errors_to_our_codes() {
        // A stale revision is recognised by its status, whatever the message says.
        let stale = r#"{"error":{"code":400,"message":"Revision mismatch.","status":"FAILED_PRECONDITION"}}"#;
        assert_eq!(code(400, stale, true), (409, ErrorCode::Conflict));
        assert_eq!(code(400, stale, false), (400, ErrorCode::InvalidRequest), "no revision was sent");
        let missing = r#"{"error":{"code":404,"message":"File not found: x.","errors":[{"reason":"notFound"}]}}"#;
        assert_eq!(code(404, missing, false).0, 404);
        assert_eq!(code(429, "{}", false).0, 429);
        assert_eq!(code(401, "{}", false).0, 401);
        let scope = r#"{"error":{"code":403,"errors":[{"reason":"insufficientPermissions"}]}}"#;
        assert_eq!(code(403, scope, false).0, 401);
        let denied =
            r#"{"error":{"code":403,"message":"The caller does not have permission","status":"PERMISSION_DENIED"}}"#;
        assert_eq!(code(403, denied, false), (403, ErrorCode::Forbidden));
        let policy = r#"{"error":{"code":403,"message":"no","errors":[{"reason":"shareOutNotPermitted"}]}}"#;
        assert_eq!(code(403, policy, false), (403, ErrorCode::Forbidden));
        let consent = r#"{"error":{"code":403,"errors":[{"reason":"consentRequiredForOwnershipTransfer"}]}}"#;
        assert_eq!(code(403, consent, false), (400, ErrorCode::InvalidRequest));
        assert_eq!(code(400, r#"{"error":{"message":"bad index"}}"#, false).0, 400);
        assert_eq!(
            code(409, r#"{"error":{"code":409,"errors":[{"reason":"duplicate"}]}}"#, false).1,
            ErrorCode::Conflict
        );
        assert_eq!(code(503, "<html>", false).0, 502);
        assert_eq!(finish("GET", "/", Attempt::TimedOut, false).unwrap_err().status(), 504);
        assert_eq!(finish("GET", "/", answered(200, "nope"), false).unwrap_err().code, ErrorCode::IntegrationError);
    }

    fn blamed(error: &Error) -> Value {
        error.details.as_ref().expect("details")["fields"][0]["field"].clone()
    }

    #[test]
    fn export_refusals_name_the_document_or_the_format() {
        // Drive's body for an export over its limit (googleapis/google-api-ruby-client#906).
        let too_large = r#"{"error":{"errors":[{"domain":"global","reason":"exportSizeLimitExceeded","message":"This file is too large to be exported."}],"code":403,"message":"This file is too large to be exported."}}"#;
        let error = export_refusal(refusal(403, too_large.as_bytes(), false));
        assert_eq!((error.code, blamed(&error)), (ErrorCode::InvalidRequest, json!("id")));
        assert!(error.message.contains("too large to export"), "{}", error.message);
        let conversion = r#"{"error":{"errors":[{"domain":"global","reason":"badRequest","message":"The requested conversion is not supported.","locationType":"parameter","location":"mimeType"}],"code":400,"message":"The requested conversion is not supported."}}"#;
        let error = export_refusal(refusal(400, conversion.as_bytes(), false));
        assert_eq!((error.code, blamed(&error)), (ErrorCode::InvalidRequest, json!("format")));
        let folder = r#"{"error":{"errors":[{"domain":"global","reason":"fileNotExportable","message":"Export only supports Docs Editors files."}],"code":403,"message":"Export only supports Docs Editors files."}}"#;
        assert_eq!(export_refusal(refusal(403, folder.as_bytes(), false)).code, ErrorCode::Forbidden);
    }

    /// A server on loopback answering every request with `parts`, written one after the other.
    async fn answering(parts: Vec<Vec<u8>>) -> GoogleClient {
        use staffroom_base::secrets::{MemoryStore, Secrets};
        use tokio::io::{AsyncReadExt, AsyncWriteExt};

        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let parts = parts.clone();
                tokio::spawn(async move {
                    let (mut head, mut buffer) = (Vec::new(), [0u8; 1024]);
                    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                        match socket.read(&mut buffer).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => head.extend_from_slice(&buffer[..n]),
                        }
                    }
                    for part in parts {
                        if socket.write_all(&part).await.is_err() {
                            return;
                        }
                    }
                    let _ = socket.shutdown().await;
                });
            }
        });
        let endpoints = GoogleEndpoints {
            drive_url: format!("{base}/drive/v3"),
            docs_url: format!("{base}/v1"),
            ..GoogleEndpoints::default()
        };
        let auth = GoogleAuth::new(Secrets::new(Arc::new(MemoryStore::default())), endpoints.clone(), false).unwrap();
        auth.use_token(crate::google::oauth::StoredToken {
            access_token: "token".into(),
            refresh_token: None,
            expires_at: None,
        })
        .await;
        GoogleClient::new(&endpoints, auth, GoogleClientOptions::default()).unwrap()
    }

    #[tokio::test]
    async fn an_export_is_read_as_bytes_and_no_further_than_a_little_over_drives_limit() {
        let pdf = b"%PDF-1.7 not JSON".to_vec();
        let head = format!("HTTP/1.1 200 OK\r\nContent-Type: application/pdf\r\nContent-Length: {}\r\n\r\n", pdf.len());
        let client = answering(vec![head.into_bytes(), pdf.clone()]).await;
        assert_eq!(client.export_file("doc1", "application/pdf").await.unwrap(), pdf);

        // Over the limit by its length, and (no length given) by the bytes that come.
        let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n", EXPORT_READ_LIMIT + 1);
        let client = answering(vec![head.into_bytes(), vec![b'x'; EXPORT_READ_LIMIT + 1]]).await;
        let error = client.export_file("doc1", "application/pdf").await.unwrap_err();
        assert_eq!((error.code, blamed(&error)), (ErrorCode::InvalidRequest, json!("id")));
        let chunk = [format!("{:x}\r\n", 1 << 20).into_bytes(), vec![b'x'; 1 << 20], b"\r\n".to_vec()].concat();
        let mut parts = vec![b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec()];
        parts.extend(std::iter::repeat_n(chunk, 12));
        parts.push(b"0\r\n\r\n".to_vec());
        let client = answering(parts).await;
        let error = client.export_file("doc1", "application/pdf").await.unwrap_err();
        assert_eq!((error.code, blamed(&error)), (ErrorCode::InvalidRequest, json!("id")));
    }
}
