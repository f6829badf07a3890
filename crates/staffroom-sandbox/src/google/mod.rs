//! A simulator of Google Drive v3, Docs v1 and Google's OAuth endpoints on loopback: Drive list
//! (real `q` parsing, `orderBy`, page tokens, partial responses, shared drives only for callers
//! that ask for them), `generateIds`, create (with a generated id) and permissions; Docs get and
//! batchUpdate with true index semantics (see [`doc`]), suggestions view modes, and revision ids
//! that expire; authorize, token (PKCE checked) and revoke. The signed-in user owns most files,
//! but some are only shared with them to view or comment, with the refusals Google gives such
//! users. Error bodies are Google's. Fault switches for tests.

pub mod doc;
mod files;
mod oauth;
pub use oauth::{DOCUMENTS, DRIVE};
pub mod query;
pub mod seed;
pub(crate) mod shape;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{Path, Query as QueryParams, Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::middleware::Next;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use chrono::{Duration as ChronoDuration, SecondsFormat, TimeZone, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use self::doc::SimDoc;
use crate::Result;

/// Google Docs' MIME type.
pub const DOC_MIME: &str = "application/vnd.google-apps.document";
/// Drive folders' MIME type.
pub const FOLDER_MIME: &str = "application/vnd.google-apps.folder";

/// How the simulator misbehaves, for tests of the client's resilience.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct GoogleFaults {
    /// Added to every API answer.
    pub latency_ms: u64,
    /// Added to each permission change (to show they run one at a time per file).
    pub permission_latency_ms: u64,
    /// Share of API requests answered 500 backendError (0.0 to 1.0).
    pub error_rate: f64,
    /// The next this-many API requests are refused as over the rate limit (403
    /// userRateLimitExceeded and 429 rateLimitExceeded, alternating).
    pub rate_limit_burst: u32,
    /// API requests hang (until the client gives up).
    pub timeout: bool,
    /// The next this-many API requests are answered 401, as if the access token had expired.
    pub reject_token: u32,
    /// Permission changes fail with 403 (a Workspace sharing policy).
    pub sharing_blocked: bool,
    /// The next this-many creates and writes (`files.create`, `documents.batchUpdate`) are
    /// carried out, then answered 500, as when Google fails after committing.
    pub fail_after_commit: u32,
    /// How long a revision id stays valid (Google guarantees 24 hours); tests shorten it.
    pub revision_lifetime_secs: Option<u64>,
}

/// Sizes and limits of a simulator.
#[derive(Debug, Clone)]
pub struct GoogleSimOptions {
    pub documents: usize,
    /// One more document, of about 1 MB, for benchmarks (`seed::large_document`).
    pub large_document: bool,
    /// Folders beyond the seeded ones (to show that folder lists read every page).
    pub extra_folders: usize,
    /// Life of the access tokens the token endpoint issues.
    pub access_token_lifetime: Duration,
    /// Docs allows 60 writes per user per this window.
    pub write_window: Duration,
}

impl Default for GoogleSimOptions {
    fn default() -> Self {
        GoogleSimOptions {
            documents: 30,
            large_document: false,
            extra_folders: 0,
            access_token_lifetime: Duration::from_secs(3599),
            write_window: Duration::from_secs(60),
        }
    }
}

/// Docs writes allowed per user per window.
pub const WRITES_PER_WINDOW: usize = 60;

/// Google's guarantee for a revision id's life.
const REVISION_LIFETIME: Duration = Duration::from_secs(24 * 3600);

/// What the signed-in user may do with a file, from most to least.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Access {
    /// Not shared with them at all.
    None,
    Reader,
    Commenter,
    Writer,
    Owner,
}

#[derive(Debug, Clone)]
struct SimFile {
    id: String,
    name: String,
    mime_type: String,
    parents: Vec<String>,
    created: String,
    modified: String,
    trashed: bool,
    owner: String,
    permissions: Vec<Value>,
    version: u64,
    /// The signed-in user's access.
    access: Access,
    /// The shared drive holding the file, if any.
    drive_id: Option<String>,
}

struct Data {
    files: Vec<SimFile>,
    docs: HashMap<String, SimDoc>,
    next_id: u64,
    /// Ids `files.generateIds` handed out and no create has used yet.
    generated_ids: std::collections::HashSet<String>,
    /// Every revision id issued: the document, the revision it names, and when it was issued.
    revisions: HashMap<String, (String, u64, Instant)>,
}

impl Data {
    /// A fresh id for the document's current revision (ids name a revision for one user and
    /// expire; a changed id does not always mean changed content).
    fn issue_revision(&mut self, doc_id: &str) -> String {
        let Some(doc) = self.docs.get_mut(doc_id) else { return String::new() };
        let token = new_revision_id();
        doc.revision_id = token.clone();
        self.revisions.insert(token.clone(), (doc_id.to_string(), doc.serial, Instant::now()));
        token
    }

    /// The document's current revision id, issued anew once half its life has passed, so that
    /// a fresh read always gives a usable one.
    fn current_revision(&mut self, doc_id: &str, lifetime: Duration) -> String {
        let current = self.docs.get(doc_id).map(|d| d.revision_id.clone()).unwrap_or_default();
        match self.revisions.get(&current) {
            Some((_, _, issued)) if issued.elapsed() < lifetime / 2 => current,
            _ => self.issue_revision(doc_id),
        }
    }
}

struct Sim {
    base: String,
    data: Mutex<Data>,
    oauth: Mutex<oauth::OAuthState>,
    faults: Mutex<GoogleFaults>,
    writes: Mutex<Vec<Instant>>,
    write_window: Duration,
    requests: Mutex<u64>,
    /// Permission changes in flight per file, and the most ever seen at once on one file.
    permission_inflight: Mutex<(HashMap<String, usize>, usize)>,
    /// The latest API exchanges, for tests that check shapes against the discovery documents.
    exchanges: Mutex<std::collections::VecDeque<Exchange>>,
}

impl Sim {
    fn revision_lifetime(&self) -> Duration {
        self.faults.lock().unwrap().revision_lifetime_secs.map(Duration::from_secs).unwrap_or(REVISION_LIFETIME)
    }

    /// Whether this write fails after being carried out (the `fail_after_commit` fault).
    fn fails_after_commit(&self) -> bool {
        let mut faults = self.faults.lock().unwrap();
        let fail = faults.fail_after_commit > 0;
        faults.fail_after_commit = faults.fail_after_commit.saturating_sub(1);
        fail
    }
}

/// The answer of a write that was carried out and then failed.
fn failed_after_commit() -> Response {
    google_error(
        StatusCode::INTERNAL_SERVER_ERROR,
        "backendError",
        "Internal error encountered.",
        Some("INTERNAL"),
        None,
    )
}

/// One API request and its answer, as the simulator saw them.
#[derive(Debug, Clone)]
pub struct Exchange {
    pub method: String,
    pub path: String,
    pub query: HashMap<String, String>,
    pub request: Option<Value>,
    pub status: u16,
    pub response: Option<Value>,
}

/// How many exchanges are kept.
const EXCHANGES_KEPT: usize = 1000;

/// Where each of the simulator's Google endpoints is (the app's `GoogleEndpoints` is made from
/// it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoints {
    pub drive_url: String,
    pub docs_url: String,
    pub auth_url: String,
    pub token_url: String,
    pub revoke_url: String,
    pub tokeninfo_url: String,
}

/// The signed-in user's Google id (`sub` of `tokeninfo`).
pub const SANDBOX_USER_ID: &str = "108530000000000000001";

/// A running Google simulator.
#[derive(Clone)]
pub struct GoogleSimulator {
    sim: Arc<Sim>,
    shutdown: Arc<tokio::sync::Notify>,
}

fn rfc3339(t: chrono::DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

fn new_revision_id() -> String {
    format!("ALm37B{}", hex::encode(rand::random::<[u8; 12]>()))
}

impl GoogleSimulator {
    /// Starts a simulator on 127.0.0.1 with a random port.
    pub async fn start(options: GoogleSimOptions) -> Result<Self> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let base = format!("http://{}", listener.local_addr()?);
        let (simulator, app) = Self::build(options, base);
        let stop = simulator.shutdown.clone();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).with_graceful_shutdown(async move { stop.notified().await }).await;
        });
        Ok(simulator)
    }

    /// A simulator whose routes answer at `base` (where the caller serves the router, as
    /// `staffroom sandbox-providers` does beside the payment simulator).
    ///
    /// Over 80 lines on purpose: the seeded drive and the route table each read best as one
    /// list, beside each other, where a reader checks them against Google's.
    pub fn build(options: GoogleSimOptions, base: String) -> (Self, Router) {
        let epoch = Utc.with_ymd_and_hms(2026, 1, 5, 9, 0, 0).unwrap();
        let folder = |id: String, name: String, minute: i64, drive: Option<&str>, parent: &str| {
            let t = rfc3339(epoch + ChronoDuration::minutes(minute));
            SimFile {
                id,
                name,
                mime_type: FOLDER_MIME.into(),
                parents: vec![parent.to_string()],
                created: t.clone(),
                modified: t,
                trashed: false,
                owner: seed::OWNER_EMAIL.into(),
                permissions: vec![owner_permission(seed::OWNER_EMAIL)],
                version: 1,
                access: Access::Owner,
                drive_id: drive.map(str::to_string),
            }
        };
        let mut files = Vec::new();
        for (n, (id, name)) in seed::FOLDERS.iter().enumerate() {
            files.push(folder(id.to_string(), name.to_string(), n as i64, None, "root"));
        }
        let (drive_id, drive_folder, _) = seed::SHARED_DRIVE;
        files.push(folder(drive_folder.0.into(), drive_folder.1.into(), 10, Some(drive_id), drive_id));
        for n in 0..options.extra_folders {
            files.push(folder(format!("fld_extra{n:05}"), format!("Archive {n:05}"), 20 + n as i64, None, "root"));
        }
        let mut docs = HashMap::new();
        // The templates, older than every other document, so that lists by time end with them.
        let (templates_id, templates_name) = seed::TEMPLATES_FOLDER;
        files.push(folder(templates_id.into(), templates_name.into(), 5, None, "root"));
        for (k, (id, name, doc)) in seed::templates().into_iter().enumerate() {
            let made = rfc3339(epoch - ChronoDuration::days(30) + ChronoDuration::hours(k as i64));
            files.push(SimFile {
                id: id.clone(),
                name,
                mime_type: DOC_MIME.into(),
                parents: vec![templates_id.into()],
                created: made.clone(),
                modified: made,
                trashed: false,
                owner: seed::OWNER_EMAIL.into(),
                permissions: vec![owner_permission(seed::OWNER_EMAIL)],
                version: 1,
                access: Access::Owner,
                drive_id: None,
            });
            docs.insert(id, doc);
        }
        let mut seeded = seed::documents(options.documents);
        if options.large_document {
            let doc = seed::large_document(&seed::document_id(seeded.len()));
            let title = seed::LARGE_DOCUMENT_TITLE.to_string();
            let folder = seed::FOLDERS[0].0;
            seeded.push(seed::SeedDoc { title, folder, doc, access: Access::Owner, modified_after_hours: 1 });
        }
        let count = seeded.len();
        for (n, seeded) in seeded.into_iter().enumerate() {
            let created = epoch + ChronoDuration::hours(6 * n as i64 + 1);
            let modified = created + ChronoDuration::hours(seeded.modified_after_hours);
            let doc = seeded.doc;
            let (owner, permissions) = match seeded.access {
                Access::Owner => (seed::OWNER_EMAIL, vec![owner_permission(seed::OWNER_EMAIL)]),
                access => {
                    let role = match access {
                        Access::Writer => "writer",
                        Access::Commenter => "commenter",
                        _ => "reader",
                    };
                    let shared = json!({"kind": "drive#permission", "id": permission_id("user", seed::OWNER_EMAIL),
                        "type": "user", "role": role, "emailAddress": seed::OWNER_EMAIL, "displayName": "owner"});
                    (seed::COLLEAGUE_EMAIL, vec![owner_permission(seed::COLLEAGUE_EMAIL), shared])
                }
            };
            files.push(SimFile {
                id: doc.id.clone(),
                name: seeded.title,
                mime_type: DOC_MIME.into(),
                parents: vec![seeded.folder.to_string()],
                created: rfc3339(created),
                modified: rfc3339(modified),
                // Two trashed documents, which lists must not show.
                trashed: n < options.documents && n >= options.documents.saturating_sub(2) && options.documents > 10,
                owner: owner.into(),
                permissions,
                version: 1,
                access: seeded.access,
                drive_id: (seeded.folder == drive_folder.0).then(|| drive_id.to_string()),
            });
            docs.insert(doc.id.clone(), doc);
        }
        debug_assert_eq!(docs.len(), count + seed::templates().len());
        let mut data = Data { files, docs, next_id: 1, generated_ids: Default::default(), revisions: HashMap::new() };
        let ids: Vec<String> = data.docs.keys().cloned().collect();
        for id in ids {
            data.issue_revision(&id);
        }
        let sim = Arc::new(Sim {
            base: base.clone(),
            data: Mutex::new(data),
            oauth: Mutex::new(oauth::OAuthState::new(options.access_token_lifetime)),
            faults: Mutex::new(GoogleFaults::default()),
            writes: Mutex::new(Vec::new()),
            write_window: options.write_window,
            requests: Mutex::new(0),
            permission_inflight: Mutex::new((HashMap::new(), 0)),
            exchanges: Mutex::new(std::collections::VecDeque::new()),
        });
        let api = Router::new()
            .route("/drive/v3/files", get(list_files).post(create_file))
            .route("/drive/v3/files/generateIds", get(generate_ids))
            .route("/drive/v3/files/{id}", get(get_file))
            .route("/drive/v3/files/{id}/copy", post(files::copy_file))
            .route("/drive/v3/files/{id}/export", get(files::export_file))
            .route("/drive/v3/files/{id}/permissions", post(create_permission).get(list_permissions))
            .route("/drive/v3/about", get(about))
            .route("/v1/documents/{id}", get(get_document).post(batch_update))
            .fallback(|| async {
                google_error(StatusCode::NOT_FOUND, "notFound", "Method not found.", Some("NOT_FOUND"), None)
            })
            .layer(axum::middleware::from_fn_with_state(sim.clone(), gate));
        let app = Router::new()
            .merge(api)
            .merge(oauth::routes())
            .route("/document/d/{id}/edit", get(view_page))
            .route("/__sandbox/faults", post(set_faults).get(get_faults))
            .route("/__sandbox/stats", get(stats))
            .route("/__sandbox/documents/{id}", get(inspect_document).post(collaborator_edit))
            .route("/__sandbox/access", post(set_access_route))
            .with_state(sim.clone());
        (GoogleSimulator { sim, shutdown: Arc::new(tokio::sync::Notify::new()) }, app)
    }

    /// The server's root URL.
    pub fn base_url(&self) -> &str {
        &self.sim.base
    }

    /// Where each Google endpoint of the simulator is.
    pub fn endpoints(&self) -> Endpoints {
        let base = &self.sim.base;
        Endpoints {
            drive_url: format!("{base}/drive/v3"),
            docs_url: format!("{base}/v1"),
            auth_url: format!("{base}/o/oauth2/v2/auth"),
            token_url: format!("{base}/token"),
            revoke_url: format!("{base}/revoke"),
            tokeninfo_url: format!("{base}/tokeninfo"),
        }
    }

    /// The OAuth client the simulator knows: (client id, client secret).
    pub fn client(&self) -> (String, String) {
        let oauth = self.sim.oauth.lock().unwrap();
        (oauth.client_id.clone(), oauth.client_secret.clone())
    }

    /// Issues a token set as the token endpoint would, without the browser step: the sandbox is
    /// signed in to Google from the start. Returns the token endpoint's JSON answer.
    pub fn issue_token(&self) -> Value {
        self.sim.oauth.lock().unwrap().issue(true, &oauth::SCOPES.join(" "))
    }

    /// Issues a token set granted only `scopes` (full scope URLs), as a consent that asked for
    /// less (another app's client, an admin's restriction) would; for tests.
    pub fn issue_token_with_scopes(&self, scopes: &[&str]) -> Value {
        self.sim.oauth.lock().unwrap().issue(true, &scopes.join(" "))
    }

    /// Sets the fault switches.
    pub fn set_faults(&self, faults: GoogleFaults) {
        *self.sim.faults.lock().unwrap() = faults;
    }

    /// How many API requests arrived so far.
    pub fn request_count(&self) -> u64 {
        *self.sim.requests.lock().unwrap()
    }

    /// The latest API exchanges (oldest first).
    pub fn exchanges(&self) -> Vec<Exchange> {
        self.sim.exchanges.lock().unwrap().iter().cloned().collect()
    }

    /// The most permission changes ever in flight at once on one file.
    pub fn max_concurrent_permission_changes(&self) -> usize {
        self.sim.permission_inflight.lock().unwrap().1
    }

    /// A document as `documents.get` would return it, for tests.
    pub fn document_json(&self, id: &str) -> Option<Value> {
        self.sim.data.lock().unwrap().docs.get(id).map(|d| d.to_json("SUGGESTIONS_INLINE"))
    }

    /// A document as `documents.get` with `includeTabsContent=true` would return it, for tests.
    pub fn document_json_with_tabs(&self, id: &str) -> Option<Value> {
        self.sim.data.lock().unwrap().docs.get(id).map(|d| d.to_json_with_tabs("SUGGESTIONS_INLINE"))
    }

    /// Adds `doc` as a document of the signed-in user's in My Drive, named `name`, for tests: how
    /// a document fetched from the real API ([`SimDoc::from_google`]) opens in the sandbox. Its id.
    pub fn add_document(&self, name: &str, doc: SimDoc) -> String {
        let mut data = self.sim.data.lock().unwrap();
        let id = doc.id.clone();
        data.files.push(SimFile::made_now(id.clone(), name.into(), DOC_MIME, vec!["root".into()], None));
        data.docs.insert(id.clone(), doc);
        data.issue_revision(&id);
        id
    }

    /// Applies requests as a collaborator would (a concurrent edit), for tests.
    pub fn edit_as_collaborator(&self, id: &str, requests: &[Value]) -> std::result::Result<String, String> {
        let mut data = self.sim.data.lock().unwrap();
        let doc = data.docs.get_mut(id).ok_or("no such document")?;
        doc.batch_update(requests).map_err(|e| e.0)?;
        doc.serial += 1;
        Ok(data.issue_revision(id))
    }

    /// Changes what the signed-in user may do with a file (as its owner would in Drive's
    /// sharing dialog), for tests.
    pub fn set_access(&self, id: &str, access: Access) -> bool {
        set_access(&self.sim, id, access)
    }

    /// How many files there are (live or trashed), for tests.
    pub fn file_count(&self) -> usize {
        self.sim.data.lock().unwrap().files.len()
    }

    /// How many live files are called `name`, for tests.
    pub fn files_named(&self, name: &str) -> usize {
        self.sim.data.lock().unwrap().files.iter().filter(|f| f.name == name && !f.trashed).count()
    }

    /// The file ids of a folder's live documents, for tests.
    pub fn documents_in(&self, folder: &str) -> Vec<String> {
        let data = self.sim.data.lock().unwrap();
        data.files
            .iter()
            .filter(|f| f.parents.iter().any(|p| p == folder) && !f.trashed)
            .map(|f| f.id.clone())
            .collect()
    }

    /// A file's permissions, for tests.
    pub fn permissions(&self, id: &str) -> Vec<Value> {
        let data = self.sim.data.lock().unwrap();
        data.files.iter().find(|f| f.id == id).map(|f| f.permissions.clone()).unwrap_or_default()
    }

    /// Stops the server.
    pub fn stop(&self) {
        self.shutdown.notify_one();
    }
}

fn set_access(sim: &Sim, id: &str, access: Access) -> bool {
    let mut data = sim.data.lock().unwrap();
    match data.files.iter_mut().find(|f| f.id == id) {
        Some(file) => {
            file.access = access;
            true
        }
        None => false,
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct AccessChange {
    file_id: String,
    access: Access,
}

async fn set_access_route(State(sim): State<Arc<Sim>>, Json(change): Json<AccessChange>) -> Response {
    if set_access(&sim, &change.file_id, change.access) {
        StatusCode::NO_CONTENT.into_response()
    } else {
        file_not_found(&change.file_id)
    }
}

fn owner_permission(email: &str) -> Value {
    json!({"kind": "drive#permission", "id": permission_id("user", email), "type": "user", "role": "owner",
           "emailAddress": email, "displayName": email.split('@').next().unwrap_or(email)})
}

/// A permission id names the grantee, the same on every file.
fn permission_id(kind: &str, who: &str) -> String {
    if kind == "anyone" {
        return "anyoneWithLink".into();
    }
    use sha2::Digest;
    let digest = sha2::Sha256::digest(format!("{kind}:{}", who.to_lowercase()));
    let n = u64::from_be_bytes(digest[..8].try_into().unwrap());
    format!("{:020}", n)
}

// ---------------------------------------------------------------------------------------------
// Errors in Google's shape.

/// Google's error envelope: `{"error":{code,message,errors[{domain,reason,message,…}],status}}`.
pub fn google_error(
    status: StatusCode,
    reason: &str,
    message: &str,
    grpc_status: Option<&str>,
    location: Option<(&str, &str)>,
) -> Response {
    let mut item = json!({"domain": "global", "reason": reason, "message": message});
    if let Some((location_type, location)) = location {
        item["locationType"] = json!(location_type);
        item["location"] = json!(location);
    }
    let mut error = json!({"code": status.as_u16(), "message": message, "errors": [item]});
    if let Some(grpc) = grpc_status {
        error["status"] = json!(grpc);
    }
    (status, Json(json!({ "error": error }))).into_response()
}

fn invalid_param(param: &str, message: &str) -> Response {
    google_error(StatusCode::BAD_REQUEST, "invalid", message, None, Some(("parameter", param)))
}

fn file_not_found(id: &str) -> Response {
    google_error(
        StatusCode::NOT_FOUND,
        "notFound",
        &format!("File not found: {id}."),
        None,
        Some(("parameter", "fileId")),
    )
}

// ---------------------------------------------------------------------------------------------
// The gate every API request passes: faults, the access token.

async fn gate(State(sim): State<Arc<Sim>>, headers: HeaderMap, request: Request, next: Next) -> Response {
    *sim.requests.lock().unwrap() += 1;
    let faults = sim.faults.lock().unwrap().clone();
    if faults.timeout {
        tokio::time::sleep(Duration::from_secs(300)).await;
    }
    if faults.latency_ms > 0 {
        tokio::time::sleep(Duration::from_millis(faults.latency_ms)).await;
    }
    let token = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or_default()
        .to_string();
    let rejected = {
        let mut f = sim.faults.lock().unwrap();
        let reject = f.reject_token > 0;
        f.reject_token = f.reject_token.saturating_sub(1);
        reject
    };
    if rejected || !sim.oauth.lock().unwrap().access_is_live(&token) {
        return google_error(
            StatusCode::UNAUTHORIZED,
            "authError",
            "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
            Some("UNAUTHENTICATED"),
            Some(("header", "Authorization")),
        );
    }
    // Drive takes the `drive` scope; Docs takes `documents` or `drive` (the discovery
    // documents' scopes of each method Staffroom calls).
    let path = request.uri().path();
    let granted = |scope: &str| sim.oauth.lock().unwrap().grants(&token, scope);
    let allowed = if path.starts_with("/drive/") {
        granted(oauth::DRIVE)
    } else {
        granted(oauth::DOCUMENTS) || granted(oauth::DRIVE)
    };
    if !allowed {
        return google_error(
            StatusCode::FORBIDDEN,
            "insufficientPermissions",
            "Request had insufficient authentication scopes.",
            Some("PERMISSION_DENIED"),
            None,
        );
    }
    let burst = {
        let mut f = sim.faults.lock().unwrap();
        let burst = f.rate_limit_burst;
        f.rate_limit_burst = burst.saturating_sub(1);
        burst
    };
    if burst > 0 {
        return if burst % 2 == 0 {
            google_error(
                StatusCode::FORBIDDEN,
                "userRateLimitExceeded",
                "User rate limit exceeded.",
                Some("PERMISSION_DENIED"),
                None,
            )
        } else {
            google_error(
                StatusCode::TOO_MANY_REQUESTS,
                "rateLimitExceeded",
                "Rate limit exceeded.",
                Some("RESOURCE_EXHAUSTED"),
                None,
            )
        };
    }
    if faults.error_rate > 0.0 && rand::random::<f64>() < faults.error_rate {
        return google_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "backendError",
            "Internal error encountered.",
            Some("INTERNAL"),
            None,
        );
    }
    record(&sim, request, next).await
}

/// Runs the request and keeps a copy of both bodies.
async fn record(sim: &Sim, request: Request, next: Next) -> Response {
    let method = request.method().to_string();
    let path = request.uri().path().to_string();
    let query =
        url::form_urlencoded::parse(request.uri().query().unwrap_or_default().as_bytes()).into_owned().collect();
    let (parts, body) = request.into_parts();
    let bytes = axum::body::to_bytes(body, 64 << 20).await.unwrap_or_default();
    let request_json = serde_json::from_slice(&bytes).ok();
    let response = next.run(Request::from_parts(parts, axum::body::Body::from(bytes))).await;
    let (parts, body) = response.into_parts();
    let bytes = axum::body::to_bytes(body, 64 << 20).await.unwrap_or_default();
    let exchange = Exchange {
        method,
        path,
        query,
        request: request_json,
        status: parts.status.as_u16(),
        response: serde_json::from_slice(&bytes).ok(),
    };
    {
        let mut exchanges = sim.exchanges.lock().unwrap();
        if exchanges.len() == EXCHANGES_KEPT {
            exchanges.pop_front();
        }
        exchanges.push_back(exchange);
    }
    Response::from_parts(parts, axum::body::Body::from(bytes))
}

async fn set_faults(State(sim): State<Arc<Sim>>, Json(faults): Json<GoogleFaults>) -> Json<GoogleFaults> {
    *sim.faults.lock().unwrap() = faults.clone();
    Json(faults)
}

async fn get_faults(State(sim): State<Arc<Sim>>) -> Json<GoogleFaults> {
    Json(sim.faults.lock().unwrap().clone())
}

async fn stats(State(sim): State<Arc<Sim>>) -> Json<Value> {
    Json(json!({
        "requests": *sim.requests.lock().unwrap(),
        "maxConcurrentPermissionChanges": sim.permission_inflight.lock().unwrap().1,
    }))
}

/// What the simulator holds for a document, as `documents.get` shows it with suggestions inline,
/// without a token: how an end-to-end test checks what a save wrote.
async fn inspect_document(
    State(sim): State<Arc<Sim>>,
    Path(id): Path<String>,
    QueryParams(query): QueryParams<HashMap<String, String>>,
) -> Response {
    let tabs = query.get("includeTabsContent").is_some_and(|v| v == "true");
    match sim.data.lock().unwrap().docs.get(&id) {
        Some(doc) if tabs => Json(doc.to_json_with_tabs("SUGGESTIONS_INLINE")).into_response(),
        Some(doc) => Json(doc.to_json("SUGGESTIONS_INLINE")).into_response(),
        None => (StatusCode::NOT_FOUND, Json(json!({"error": "no such document"}))).into_response(),
    }
}

/// A collaborator's edit, made in Google Docs while Staffroom is not looking: `requests` applied
/// as `batchUpdate` applies them, a new revision issued, no quota counted. How an end-to-end test
/// makes a conflict.
async fn collaborator_edit(State(sim): State<Arc<Sim>>, Path(id): Path<String>, Json(body): Json<Value>) -> Response {
    let requests = body.get("requests").and_then(Value::as_array).cloned().unwrap_or_default();
    let mut data = sim.data.lock().unwrap();
    let Some(doc) = data.docs.get_mut(&id) else { return docs_not_found() };
    if let Err(doc::Invalid(message)) = doc.batch_update(&requests) {
        return docs_invalid(&message);
    }
    doc.serial += 1;
    let revision = data.issue_revision(&id);
    if let Some(file) = data.files.iter_mut().find(|f| f.id == id) {
        file.modified = rfc3339(Utc::now());
        file.version += 1;
    }
    Json(json!({"documentId": id, "writeControl": {"requiredRevisionId": revision}})).into_response()
}

// ---------------------------------------------------------------------------------------------
// Drive.

type Params = QueryParams<HashMap<String, String>>;

impl SimFile {
    /// A file of the signed-in user's, made now.
    fn made_now(id: String, name: String, mime: &str, parents: Vec<String>, drive_id: Option<String>) -> SimFile {
        let now = rfc3339(Utc::now());
        SimFile {
            id,
            name,
            mime_type: mime.into(),
            parents,
            created: now.clone(),
            modified: now,
            trashed: false,
            owner: seed::OWNER_EMAIL.into(),
            permissions: vec![owner_permission(seed::OWNER_EMAIL)],
            version: 1,
            access: Access::Owner,
            drive_id,
        }
    }

    fn to_json(&self, base: &str) -> Value {
        let mut v = json!({
            "kind": "drive#file",
            "id": self.id,
            "name": self.name,
            "mimeType": self.mime_type,
            "parents": self.parents,
            "createdTime": self.created,
            "modifiedTime": self.modified,
            "trashed": self.trashed,
            "version": self.version.to_string(),
            "owners": [{"kind": "drive#user", "displayName": self.owner.split('@').next().unwrap_or_default(), "emailAddress": self.owner}],
        });
        if let Some(drive) = &self.drive_id {
            v["driveId"] = json!(drive);
        }
        // What the signed-in user may do (File.capabilities in the discovery document): writers
        // edit and share, commenters comment, readers only read.
        v["capabilities"] = json!({
            "canEdit": self.access >= Access::Writer,
            "canModifyContent": self.access >= Access::Writer,
            "canComment": self.access >= Access::Commenter,
            "canShare": self.access >= Access::Writer,
            "canCopy": self.access >= Access::Reader,
        });
        if self.mime_type == DOC_MIME {
            v["webViewLink"] = json!(format!("{base}/document/d/{}/edit?usp=drivesdk", self.id));
        } else {
            v["webViewLink"] = json!(format!("{base}/drive/folders/{}", self.id));
        }
        v
    }
}

/// Fields a File resource has (the subset the simulator serves, from the discovery document).
fn known_file_field(path: &[&str]) -> bool {
    const FILE: &[&str] = &[
        "kind",
        "id",
        "name",
        "mimeType",
        "parents",
        "createdTime",
        "modifiedTime",
        "trashed",
        "version",
        "owners",
        "webViewLink",
        "thumbnailLink",
        "driveId",
        "description",
        "starred",
        "size",
    ];
    const USER: &[&str] = &["kind", "displayName", "emailAddress", "permissionId", "photoLink", "me"];
    const CAPABILITIES: &[&str] = &["canEdit", "canModifyContent", "canComment", "canShare", "canCopy"];
    match path {
        [f] => FILE.contains(f) || *f == "capabilities",
        ["owners", u] => USER.contains(u),
        ["capabilities", c] => CAPABILITIES.contains(c),
        _ => false,
    }
}

fn select_fields(
    value: Value,
    fields: Option<&String>,
    default: &[&str],
    known: &dyn Fn(&[&str]) -> bool,
) -> std::result::Result<Value, Response> {
    match fields {
        Some(raw) if raw.trim() == "*" => Ok(value),
        Some(raw) => {
            let selector = query::parse_fields(raw).map_err(|e| invalid_param("fields", &e))?;
            selector.select(&value, known, &mut Vec::new()).map_err(|e| invalid_param("fields", &e))
        }
        None => {
            let mut out = serde_json::Map::new();
            for key in default {
                if let Some(v) = value.get(*key) {
                    out.insert(key.to_string(), v.clone());
                }
            }
            Ok(Value::Object(out))
        }
    }
}

fn order_key(file: &SimFile, key: &str) -> (bool, String) {
    match key {
        "folder" => (file.mime_type != FOLDER_MIME, String::new()),
        "modifiedTime" => (false, file.modified.clone()),
        "createdTime" => (false, file.created.clone()),
        _ => (false, file.name.to_lowercase()),
    }
}

/// `GET /drive/v3/about`: who the token belongs to. Drive answers 400 without `fields` (this
/// method has no default fields); only `user` (and `kind`) are served.
async fn about(QueryParams(params): Params) -> Response {
    let Some(fields) = params.get("fields") else {
        return google_error(
            StatusCode::BAD_REQUEST,
            "required",
            "The 'fields' parameter is required for this method.",
            None,
            Some(("parameter", "fields")),
        );
    };
    let user = json!({
        "kind": "drive#user", "displayName": "Sandbox Owner", "me": true,
        "permissionId": "00000000000000000001", "emailAddress": seed::OWNER_EMAIL,
        "photoLink": "https://lh3.googleusercontent.test/a/sandbox-owner"
    });
    let about = json!({"kind": "drive#about", "user": user});
    let known = |path: &[&str]| match path {
        ["kind"] | ["user"] => true,
        ["user", f] => ["kind", "displayName", "emailAddress", "permissionId", "photoLink", "me"].contains(f),
        _ => false,
    };
    match select_fields(about, Some(fields), &[], &known) {
        Ok(selected) => Json(selected).into_response(),
        Err(refused) => refused,
    }
}

async fn list_files(State(sim): State<Arc<Sim>>, QueryParams(params): Params) -> Response {
    let query = match params.get("q").map(|q| query::parse(q)) {
        Some(Ok(q)) => Some(q),
        Some(Err(_)) => return invalid_param("q", "Invalid Value"),
        None => None,
    };
    let page_size = match params.get("pageSize").map(|s| s.parse::<usize>()) {
        None => 100,
        Some(Ok(n)) if n >= 1 => n.min(1000),
        Some(_) => return invalid_param("pageSize", "Invalid Value"),
    };
    let (order, (offset, fingerprint), scope) = match (sort_order(&params), page_position(&params), scope(&params)) {
        (Ok(order), Ok(position), Ok(scope)) => (order, position, scope),
        (Err(refused), _, _) | (_, Err(refused), _) | (_, _, Err(refused)) => return refused,
    };
    let data = sim.data.lock().unwrap();
    let mut files: Vec<&SimFile> = data
        .files
        .iter()
        .filter(|f| f.access != Access::None && scope.includes(f))
        .filter(|f| {
            let text = data.docs.get(&f.id).map(SimDoc::plain_text).unwrap_or_default();
            query.as_ref().is_none_or(|q| {
                q.matches(&query::FileView {
                    name: &f.name,
                    mime_type: &f.mime_type,
                    parents: &f.parents,
                    trashed: f.trashed,
                    created_time: &f.created,
                    modified_time: &f.modified,
                    full_text: &text,
                })
            })
        })
        .collect();
    files.sort_by(|a, b| {
        for (key, desc) in &order {
            let ordering = order_key(a, key).cmp(&order_key(b, key));
            let ordering = if *desc { ordering.reverse() } else { ordering };
            if ordering.is_ne() {
                return ordering;
            }
        }
        a.id.cmp(&b.id)
    });
    let total = files.len();
    let items: Vec<Value> = files.iter().skip(offset).take(page_size).map(|f| f.to_json(&sim.base)).collect();
    let mut body = json!({"kind": "drive#fileList", "incompleteSearch": false, "files": items});
    if offset + page_size < total {
        body["nextPageToken"] = json!(format!("{}~{fingerprint}", offset + page_size));
    }
    drop(data);
    match list_fields(body, params.get("fields")) {
        Ok(v) => Json(v).into_response(),
        Err(r) => r,
    }
}

/// `orderBy`: sort keys, each with `desc` or not; the simulator sorts by `name` by default.
fn sort_order(params: &HashMap<String, String>) -> Result<Vec<(String, bool)>, Response> {
    let mut order: Vec<(String, bool)> = Vec::new();
    for part in params.get("orderBy").map(String::as_str).unwrap_or("name").split(',') {
        let mut words = part.split_whitespace();
        let key = words.next().unwrap_or_default();
        let desc = match words.next() {
            None => false,
            Some("desc") => true,
            Some(_) => return Err(invalid_param("orderBy", "Invalid Value")),
        };
        if !["folder", "modifiedTime", "createdTime", "name", "name_natural"].contains(&key) || words.next().is_some() {
            return Err(invalid_param("orderBy", &format!("Invalid sort key: {key}")));
        }
        order.push((key.to_string(), desc));
    }
    Ok(order)
}

/// Where the page starts, and the fingerprint that binds a page token to its query and order:
/// a token is the offset and the fingerprint.
fn page_position(params: &HashMap<String, String>) -> Result<(usize, String), Response> {
    let fingerprint = {
        use sha2::Digest;
        let digest = sha2::Sha256::digest(format!("{:?}|{:?}", params.get("q"), params.get("orderBy")));
        hex::encode(&digest[..6])
    };
    let offset = match params.get("pageToken") {
        None => 0,
        Some(token) => match token.split_once('~').and_then(|(o, f)| Some((o.parse::<usize>().ok()?, f))) {
            Some((offset, f)) if f == fingerprint => offset,
            _ => return Err(invalid_param("pageToken", "Invalid Value")),
        },
    };
    Ok((offset, fingerprint))
}

/// Which drives a list covers (`corpora`, `driveId`): shared drives' items are listed only to
/// callers that say they handle them.
struct Scope {
    drive_id: Option<String>,
    shared_drives_too: bool,
}

impl Scope {
    fn includes(&self, file: &SimFile) -> bool {
        match (&file.drive_id, &self.drive_id) {
            (Some(file_drive), Some(asked)) => file_drive == asked,
            (Some(_), None) => self.shared_drives_too,
            (None, Some(_)) => false,
            (None, None) => true,
        }
    }
}

fn scope(params: &HashMap<String, String>) -> Result<Scope, Response> {
    let flag = |name: &str| params.get(name).is_some_and(|v| v == "true");
    let drive_id = params.get("driveId").cloned();
    let corpora = params.get("corpora").map(String::as_str).unwrap_or("user");
    if !["user", "domain", "drive", "allDrives"].contains(&corpora) {
        return Err(invalid_param("corpora", "Invalid Value"));
    }
    if (corpora == "drive") != drive_id.is_some() {
        return Err(invalid_param(
            "driveId",
            "The driveId parameter must be specified if and only if corpora is set to drive.",
        ));
    }
    if matches!(corpora, "drive" | "allDrives") && !flag("includeItemsFromAllDrives") {
        return Err(google_error(
            StatusCode::FORBIDDEN,
            "forbidden",
            "The includeItemsFromAllDrives parameter must be set to true when driveId is specified or corpora contains drive or allDrives.",
            None,
            Some(("parameter", "includeItemsFromAllDrives")),
        ));
    }
    let shared_drives_too = flag("includeItemsFromAllDrives") && flag("supportsAllDrives") && corpora != "user";
    Ok(Scope { drive_id, shared_drives_too })
}

/// A file list with only the `fields` asked for; without `fields`, each file's kind, id, name
/// and MIME type, as Drive answers.
fn list_fields(mut body: Value, fields: Option<&String>) -> Result<Value, Response> {
    let known = |path: &[&str]| match path {
        ["kind" | "nextPageToken" | "incompleteSearch" | "files"] => true,
        ["files", rest @ ..] => known_file_field(rest),
        _ => false,
    };
    match fields {
        None => {
            let files: Vec<Value> = body["files"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| json!({"kind": f["kind"], "id": f["id"], "name": f["name"], "mimeType": f["mimeType"]}))
                .collect();
            body["files"] = json!(files);
            Ok(body)
        }
        Some(_) => select_fields(body, fields, &[], &known),
    }
}

async fn get_file(State(sim): State<Arc<Sim>>, Path(id): Path<String>, QueryParams(params): Params) -> Response {
    let data = sim.data.lock().unwrap();
    let all_drives = params.get("supportsAllDrives").is_some_and(|v| v == "true");
    let visible = |f: &&SimFile| f.id == id && f.access != Access::None && (f.drive_id.is_none() || all_drives);
    let Some(file) = data.files.iter().find(visible) else { return file_not_found(&id) };
    match select_fields(
        file.to_json(&sim.base),
        params.get("fields"),
        &["kind", "id", "name", "mimeType"],
        &known_file_field,
    ) {
        Ok(v) => Json(v).into_response(),
        Err(r) => r,
    }
}

/// `files.generateIds`: ids a create may use, so that a create sent twice makes one file.
async fn generate_ids(State(sim): State<Arc<Sim>>, QueryParams(params): Params) -> Response {
    let count = match params.get("count").map(|c| c.parse::<usize>()) {
        None => 10,
        Some(Ok(n)) if (1..=1000).contains(&n) => n,
        Some(_) => return invalid_param("count", "Invalid Value"),
    };
    let space = params.get("space").map(String::as_str).unwrap_or("drive");
    if !["drive", "appDataFolder"].contains(&space) {
        return invalid_param("space", "Invalid Value");
    }
    let ids: Vec<String> = (0..count).map(|_| format!("1{}", hex::encode(rand::random::<[u8; 16]>()))).collect();
    sim.data.lock().unwrap().generated_ids.extend(ids.iter().cloned());
    Json(json!({"kind": "drive#generatedIds", "space": space, "ids": ids})).into_response()
}

async fn create_file(State(sim): State<Arc<Sim>>, QueryParams(params): Params, body: axum::body::Bytes) -> Response {
    let Ok(body) = serde_json::from_slice::<Value>(&body) else {
        return google_error(StatusCode::BAD_REQUEST, "parseError", "Parse Error", None, None);
    };
    let mime = body.get("mimeType").and_then(Value::as_str).unwrap_or("application/octet-stream");
    if mime != DOC_MIME && mime != FOLDER_MIME {
        return google_error(
            StatusCode::BAD_REQUEST,
            "badRequest",
            "The sandbox creates Google Docs and folders only.",
            None,
            Some(("other", "mimeType")),
        );
    }
    let parents = match parents_of(&body) {
        Ok(parents) => parents,
        Err(refused) => return refused,
    };
    let all_drives = params.get("supportsAllDrives").is_some_and(|v| v == "true");
    let mut data = sim.data.lock().unwrap();
    let untitled = if mime == DOC_MIME { "Untitled document" } else { "Untitled folder" };
    let file = match add_own_file(&mut data, &body, mime, parents, all_drives, untitled) {
        Ok(file) => file,
        Err(refused) => return refused,
    };
    if mime == DOC_MIME {
        data.docs.insert(file.id.clone(), SimDoc::new(file.id.clone(), file.name.clone(), String::new()));
        data.issue_revision(&file.id);
    }
    drop(data);
    answer_new_file(&sim, &file, &params)
}

/// The File fields the discovery document marks "Output only": a create or copy naming one is
/// refused (403 `fieldNotWritable`, "The resource body includes fields which are not directly
/// writable.", as seen for `files.copy` in taers232c/GAMADV-XTD#21).
const OUTPUT_ONLY_FILE_FIELDS: &[&str] = &[
    "capabilities",
    "driveId",
    "explicitlyTrashed",
    "exportLinks",
    "fileExtension",
    "fullFileExtension",
    "hasAugmentedPermissions",
    "hasThumbnail",
    "headRevisionId",
    "iconLink",
    "imageMediaMetadata",
    "isAppAuthorized",
    "kind",
    "lastModifyingUser",
    "md5Checksum",
    "modifiedByMe",
    "ownedByMe",
    "owners",
    "permissionIds",
    "permissions",
    "quotaBytesUsed",
    "resourceKey",
    "sha1Checksum",
    "sha256Checksum",
    "shared",
    "sharingUser",
    "size",
    "spaces",
    "teamDriveId",
    "thumbnailLink",
    "thumbnailVersion",
    "trashingUser",
    "version",
    "videoMediaMetadata",
    "viewedByMe",
    "webContentLink",
    "webViewLink",
];

/// Adds a file of the signed-in user's, made now (`files.create`, `files.copy`): named as the
/// body says or `untitled`, in `parents` (each a folder they may write to, one shared drive's
/// at most), with the id the body gives (one `files.generateIds` handed out) or a fresh one.
/// A body naming an output-only field is refused.
fn add_own_file(
    data: &mut Data,
    body: &Value,
    mime: &str,
    parents: Vec<String>,
    all_drives: bool,
    untitled: &str,
) -> Result<SimFile, Response> {
    let mut fields = body.as_object().into_iter().flat_map(|b| b.keys());
    if fields.any(|field| OUTPUT_ONLY_FILE_FIELDS.contains(&field.as_str())) {
        return Err(google_error(
            StatusCode::FORBIDDEN,
            "fieldNotWritable",
            "The resource body includes fields which are not directly writable.",
            None,
            None,
        ));
    }
    let drive_id = drive_of_parents(data, &parents, all_drives)?;
    let id = new_file_id(data, body.get("id"))?;
    let name = body.get("name").and_then(Value::as_str).filter(|s| !s.is_empty()).unwrap_or(untitled).to_string();
    let file = SimFile::made_now(id, name, mime, parents, drive_id);
    data.files.push(file.clone());
    Ok(file)
}

/// The answer to a file made (or, with the `fail_after_commit` fault, a failure after making it).
fn answer_new_file(sim: &Sim, file: &SimFile, params: &HashMap<String, String>) -> Response {
    if sim.fails_after_commit() {
        return failed_after_commit();
    }
    match select_fields(
        file.to_json(&sim.base),
        params.get("fields"),
        &["kind", "id", "name", "mimeType"],
        &known_file_field,
    ) {
        Ok(v) => Json(v).into_response(),
        Err(r) => r,
    }
}

/// A new file's parents: at most one (Drive allows no more), the user's root when none is given.
fn parents_of(body: &Value) -> Result<Vec<String>, Response> {
    match body.get("parents") {
        None => Ok(vec!["root".into()]),
        Some(Value::Array(items)) if items.len() <= 1 => {
            Ok(items.iter().filter_map(Value::as_str).map(str::to_string).collect())
        }
        Some(_) => Err(google_error(
            StatusCode::FORBIDDEN,
            "cannotAddParent",
            "Increasing the number of parents is not allowed.",
            None,
            None,
        )),
    }
}

/// The shared drive a new file lands in (that of its parent folder, if any); each parent must
/// be a folder the caller can see and write to.
fn drive_of_parents(data: &Data, parents: &[String], all_drives: bool) -> Result<Option<String>, Response> {
    let mut drive_id = None;
    for parent in parents.iter().filter(|p| *p != "root") {
        let folder = data.files.iter().find(|f| {
            f.id == *parent
                && f.mime_type == FOLDER_MIME
                && !f.trashed
                && f.access != Access::None
                && (f.drive_id.is_none() || all_drives)
        });
        let Some(folder) = folder else { return Err(file_not_found(parent)) };
        if folder.access < Access::Writer {
            return Err(insufficient_permissions(parent));
        }
        drive_id = folder.drive_id.clone();
    }
    Ok(drive_id)
}

/// A new file's id: a fresh one, or one the caller had from `files.generateIds` (once only).
fn new_file_id(data: &mut Data, asked: Option<&Value>) -> Result<String, Response> {
    match asked {
        None => {
            data.next_id += 1;
            Ok(format!("new{:04}{}", data.next_id, hex::encode(rand::random::<[u8; 8]>())))
        }
        Some(Value::String(id)) => {
            if data.files.iter().any(|f| f.id == *id) {
                return Err(google_error(
                    StatusCode::CONFLICT,
                    "duplicate",
                    "A file already exists with the provided ID.",
                    None,
                    Some(("other", "file.id")),
                ));
            }
            if !data.generated_ids.remove(id) {
                return Err(google_error(
                    StatusCode::BAD_REQUEST,
                    "invalid",
                    "The provided file ID is not usable.",
                    None,
                    Some(("other", "file.id")),
                ));
            }
            Ok(id.clone())
        }
        Some(_) => Err(invalid_param("id", "Invalid Value")),
    }
}

/// A personal Google account (not one of a Workspace organisation).
fn is_consumer_account(email: &str) -> bool {
    let domain = email.rsplit('@').next().unwrap_or_default().to_ascii_lowercase();
    domain == "gmail.com" || domain == "googlemail.com"
}

/// Drive's refusal to someone who may only view or comment.
fn insufficient_permissions(id: &str) -> Response {
    google_error(
        StatusCode::FORBIDDEN,
        "insufficientFilePermissions",
        &format!("The user does not have sufficient permissions for file {id}."),
        None,
        None,
    )
}

fn known_permission_field(path: &[&str]) -> bool {
    matches!(
        path,
        ["kind"
            | "id"
            | "type"
            | "role"
            | "emailAddress"
            | "domain"
            | "displayName"
            | "allowFileDiscovery"
            | "expirationTime"
            | "deleted"
            | "pendingOwner"]
    )
}

async fn list_permissions(State(sim): State<Arc<Sim>>, Path(id): Path<String>) -> Response {
    let data = sim.data.lock().unwrap();
    let Some(file) = data.files.iter().find(|f| f.id == id) else { return file_not_found(&id) };
    Json(json!({"kind": "drive#permissionList", "permissions": file.permissions})).into_response()
}

async fn create_permission(
    State(sim): State<Arc<Sim>>,
    Path(id): Path<String>,
    QueryParams(params): Params,
    body: axum::body::Bytes,
) -> Response {
    // Track overlap: Google applies only the last of concurrent changes to one file.
    {
        let mut inflight = sim.permission_inflight.lock().unwrap();
        let count = inflight.0.entry(id.clone()).or_insert(0);
        *count += 1;
        let now = *count;
        inflight.1 = inflight.1.max(now);
    }
    let delay = sim.faults.lock().unwrap().permission_latency_ms;
    if delay > 0 {
        tokio::time::sleep(Duration::from_millis(delay)).await;
    }
    let response = create_permission_now(&sim, &id, &params, &body);
    *sim.permission_inflight.lock().unwrap().0.entry(id).or_insert(1) -= 1;
    response
}

/// The refusals Drive gives a permission before looking at the file: an unknown type or role, a
/// missing or malformed e-mail address or domain, and the rules of ownership transfers.
fn check_permission(
    kind: &str,
    role: &str,
    email: Option<&str>,
    domain: Option<&str>,
    params: &HashMap<String, String>,
) -> Result<(), Response> {
    let bad = |reason: &str, message: &str, field: &str| {
        Err(google_error(StatusCode::BAD_REQUEST, reason, message, None, Some(("other", field))))
    };
    if !["user", "group", "domain", "anyone"].contains(&kind) {
        return bad("invalid", "Invalid permission type specified", "permission.type");
    }
    if !["owner", "organizer", "fileOrganizer", "writer", "commenter", "reader"].contains(&role) {
        return bad("invalid", "Invalid permission role specified", "permission.role");
    }
    let send_email = params.get("sendNotificationEmail").map(|v| v == "true");
    let transfer = params.get("transferOwnership").is_some_and(|v| v == "true");
    match kind {
        "user" | "group" => match email {
            Some(e) if e.contains('@') && !e.starts_with('@') && !e.ends_with('@') => {}
            Some(_) => return bad("invalid", "Invalid email address.", "permission.emailAddress"),
            None => {
                return bad("required", "The permission emailAddress field is required.", "permission.emailAddress")
            }
        },
        "domain" => {
            if domain.is_none_or(|d| !d.contains('.')) {
                return bad("required", "The permission domain field is required.", "permission.domain");
            }
        }
        _ => {}
    }
    if send_email.is_some() && !matches!(kind, "user" | "group") || (role == "owner" && send_email == Some(false)) {
        return Err(google_error(
            StatusCode::FORBIDDEN,
            "forbidden",
            "The sendNotificationEmail parameter is only applicable for permissions of type 'user' or 'group', and must not be disabled for ownership transfers.",
            None,
            Some(("parameter", "sendNotificationEmail")),
        ));
    }
    if role == "owner" && kind != "user" {
        return bad("invalid", "Only a user can own a file.", "permission.role");
    }
    if role == "owner" && !transfer {
        return Err(google_error(
            StatusCode::FORBIDDEN,
            "forbidden",
            "The transferOwnership parameter must be enabled when the permission role is 'owner'.",
            None,
            Some(("parameter", "transferOwnership")),
        ));
    }
    Ok(())
}

fn create_permission_now(sim: &Sim, id: &str, params: &HashMap<String, String>, body: &[u8]) -> Response {
    let Ok(body) = serde_json::from_slice::<Value>(body) else {
        return google_error(StatusCode::BAD_REQUEST, "parseError", "Parse Error", None, None);
    };
    let kind = body.get("type").and_then(Value::as_str).unwrap_or_default();
    let role = body.get("role").and_then(Value::as_str).unwrap_or_default();
    let email = body.get("emailAddress").and_then(Value::as_str);
    let domain = body.get("domain").and_then(Value::as_str);
    if let Err(refused) = check_permission(kind, role, email, domain, params) {
        return refused;
    }
    if sim.faults.lock().unwrap().sharing_blocked {
        return google_error(
            StatusCode::FORBIDDEN,
            "shareOutNotPermitted",
            "Bad Request. User message: \"Sharing outside the organization is not allowed.\"",
            None,
            None,
        );
    }
    let mut data = sim.data.lock().unwrap();
    let all_drives = params.get("supportsAllDrives").is_some_and(|v| v == "true");
    let visible = |f: &&mut SimFile| f.id == id && f.access != Access::None && (f.drive_id.is_none() || all_drives);
    let Some(file) = data.files.iter_mut().find(visible) else { return file_not_found(id) };
    // Writers may share; viewers and commenters may not, and only the owner hands ownership on.
    if file.access < Access::Writer || (role == "owner" && file.access != Access::Owner) {
        return insufficient_permissions(id);
    }
    if role == "owner" && email.is_some_and(is_consumer_account) {
        // Personal accounts take ownership only by accepting it (Drive's transfer guide).
        return google_error(
            StatusCode::FORBIDDEN,
            "consentRequiredForOwnershipTransfer",
            "Consent is required to transfer ownership of a file to another user.",
            None,
            None,
        );
    }
    let who = email.or(domain).unwrap_or("anyone");
    let pid = permission_id(kind, who);
    if role == "owner" {
        for p in file.permissions.iter_mut() {
            if p["role"] == "owner" {
                p["role"] = json!("writer");
            }
        }
        file.owner = who.to_string();
    }
    let mut permission = json!({"kind": "drive#permission", "id": pid, "type": kind, "role": role});
    if let Some(e) = email {
        permission["emailAddress"] = json!(e);
        permission["displayName"] = json!(e.split('@').next().unwrap_or(e));
    }
    if let Some(d) = domain {
        permission["domain"] = json!(d);
    }
    if let Some(allow) = body.get("allowFileDiscovery") {
        permission["allowFileDiscovery"] = allow.clone();
    }
    file.permissions.retain(|p| p["id"] != json!(pid));
    file.permissions.push(permission.clone());
    file.version += 1;
    match select_fields(permission, params.get("fields"), &["kind", "id", "type", "role"], &known_permission_field) {
        Ok(v) => Json(v).into_response(),
        Err(r) => r,
    }
}

// ---------------------------------------------------------------------------------------------
// Docs.

async fn get_document(State(sim): State<Arc<Sim>>, Path(id): Path<String>, QueryParams(params): Params) -> Response {
    let asked = params.get("suggestionsViewMode").map(String::as_str).unwrap_or("DEFAULT_FOR_CURRENT_ACCESS");
    if ![
        "DEFAULT_FOR_CURRENT_ACCESS",
        "SUGGESTIONS_INLINE",
        "PREVIEW_SUGGESTIONS_ACCEPTED",
        "PREVIEW_WITHOUT_SUGGESTIONS",
    ]
    .contains(&asked)
    {
        return google_error(
            StatusCode::BAD_REQUEST,
            "badRequest",
            &format!("Invalid value at 'suggestions_view_mode' (type.googleapis.com/google.apps.docs.v1.SuggestionsViewMode), \"{asked}\""),
            Some("INVALID_ARGUMENT"),
            None,
        );
    }
    let lifetime = sim.revision_lifetime();
    let mut data = sim.data.lock().unwrap();
    let access = match data.files.iter().find(|f| f.id == id && !f.trashed) {
        Some(file) if data.docs.contains_key(&id) => file.access,
        _ => return docs_not_found(),
    };
    // Viewers may not see suggestions: the modes that show them are refused, and the default
    // shows them the document without suggestions (discovery document, SuggestionsViewMode).
    let mode = match (asked, access) {
        (_, Access::None) => return permission_denied(),
        ("SUGGESTIONS_INLINE" | "PREVIEW_SUGGESTIONS_ACCEPTED", Access::Reader) => return permission_denied(),
        ("DEFAULT_FOR_CURRENT_ACCESS", Access::Reader) => "PREVIEW_WITHOUT_SUGGESTIONS",
        ("DEFAULT_FOR_CURRENT_ACCESS", _) => "SUGGESTIONS_INLINE",
        (mode, _) => mode,
    };
    // "Whether to populate the `Document.tabs` field instead of the text content fields".
    let with_tabs = match params.get("includeTabsContent").map(String::as_str) {
        None | Some("false") => false,
        Some("true") => true,
        Some(other) => {
            return google_error(
                StatusCode::BAD_REQUEST,
                "badRequest",
                &format!("Invalid value at 'include_tabs_content' (TYPE_BOOL), \"{other}\""),
                Some("INVALID_ARGUMENT"),
                None,
            )
        }
    };
    let revision = data.current_revision(&id, lifetime);
    let doc = &data.docs[&id];
    let mut json = if with_tabs { doc.to_json_with_tabs(mode) } else { doc.to_json(mode) };
    // "Only populated if the user has edit access to the document."
    if access >= Access::Writer {
        json["revisionId"] = json!(revision);
    } else if let Some(map) = json.as_object_mut() {
        map.remove("revisionId");
    }
    Json(json).into_response()
}

/// Docs' refusal of a document the caller may not read (or not in this way).
fn permission_denied() -> Response {
    (
        StatusCode::FORBIDDEN,
        Json(json!({"error": {"code": 403, "message": "The caller does not have permission", "status": "PERMISSION_DENIED"}})),
    )
        .into_response()
}

fn docs_not_found() -> Response {
    google_error(StatusCode::NOT_FOUND, "notFound", "Requested entity was not found.", Some("NOT_FOUND"), None)
}

fn docs_invalid(message: &str) -> Response {
    google_error(StatusCode::BAD_REQUEST, "badRequest", message, Some("INVALID_ARGUMENT"), None)
}

/// Counts one write against Docs' quota of 60 writes per minute per user, or refuses it.
fn count_write(sim: &Sim) -> std::result::Result<(), Response> {
    let now = Instant::now();
    let mut writes = sim.writes.lock().unwrap();
    writes.retain(|t| now.duration_since(*t) < sim.write_window);
    if writes.len() >= WRITES_PER_WINDOW {
        return Err(google_error(
            StatusCode::TOO_MANY_REQUESTS,
            "rateLimitExceeded",
            "Quota exceeded for quota metric 'Write requests' and limit 'Write requests per minute per user'.",
            Some("RESOURCE_EXHAUSTED"),
            None,
        ));
    }
    writes.push(now);
    Ok(())
}

/// A `requiredRevisionId` must name the document's latest revision, issued within its lifetime.
fn check_required_revision(
    data: &Data,
    id: &str,
    required: &str,
    lifetime: Duration,
) -> std::result::Result<(), Response> {
    let precondition = |message: String| {
        google_error(StatusCode::BAD_REQUEST, "failedPrecondition", &message, Some("FAILED_PRECONDITION"), None)
    };
    match data.revisions.get(required) {
        Some((doc, serial, _)) if doc != id || *serial != data.docs[id].serial => {
            Err(precondition(format!("The required revision ID '{required}' does not match the latest revision.")))
        }
        // Ids are "guaranteed to be valid for 24 hours" and name nothing after that.
        Some((_, _, issued)) if issued.elapsed() >= lifetime => {
            Err(precondition(format!("The revision ID '{required}' has expired; read the document again.")))
        }
        Some(_) => Ok(()),
        None => Err(precondition(format!("The required revision ID '{required}' is not a revision of this document."))),
    }
}

async fn batch_update(State(sim): State<Arc<Sim>>, Path(path): Path<String>, body: axum::body::Bytes) -> Response {
    let Some(id) = path.strip_suffix(":batchUpdate") else { return docs_not_found() };
    let Ok(body) = serde_json::from_slice::<Value>(&body) else {
        return docs_invalid("Invalid JSON payload received.");
    };
    if let Err(message) = shape::check_batch(&body) {
        return docs_invalid(&message);
    }
    if let Err(refused) = count_write(&sim) {
        return refused;
    }
    let Some(requests) = body.get("requests").and_then(Value::as_array) else {
        return docs_invalid("Must specify at least one request.");
    };
    if requests.is_empty() {
        return docs_invalid("Must specify at least one request.");
    }
    let control = body.get("writeControl");
    let required = control.and_then(|c| c.get("requiredRevisionId")).and_then(Value::as_str);
    let target = control.and_then(|c| c.get("targetRevisionId")).and_then(Value::as_str);
    if required.is_some() && target.is_some() {
        return docs_invalid("Only one of requiredRevisionId and targetRevisionId may be set.");
    }
    let lifetime = sim.revision_lifetime();
    let mut data = sim.data.lock().unwrap();
    let access = match data.files.iter().find(|f| f.id == id && !f.trashed) {
        Some(file) if data.docs.contains_key(id) => file.access,
        _ => return docs_not_found(),
    };
    if access < Access::Writer {
        return permission_denied();
    }
    if let Some(required) = required {
        if let Err(refused) = check_required_revision(&data, id, required, lifetime) {
            return refused;
        }
    }
    let doc = data.docs.get_mut(id).expect("checked above");
    match doc.batch_update(requests) {
        Ok(replies) => {
            doc.serial += 1;
            let revision = data.issue_revision(id);
            let now = rfc3339(Utc::now());
            if let Some(file) = data.files.iter_mut().find(|f| f.id == id) {
                file.modified = now;
                file.version += 1;
            }
            drop(data);
            if sim.fails_after_commit() {
                return failed_after_commit();
            }
            Json(json!({"documentId": id, "replies": replies, "writeControl": {"requiredRevisionId": revision}}))
                .into_response()
        }
        Err(doc::Invalid(message)) => docs_invalid(&message),
    }
}

/// A read-only page for the document's `webViewLink`.
async fn view_page(State(sim): State<Arc<Sim>>, Path(id): Path<String>) -> Response {
    let data = sim.data.lock().unwrap();
    let Some(doc) = data.docs.get(&id) else {
        return (StatusCode::NOT_FOUND, Html("<h1>Not found</h1>".to_string())).into_response();
    };
    let escape = |s: &str| s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
    let paragraphs: String =
        doc.plain_text().lines().map(|l| format!("<p>{}</p>", escape(l))).collect::<Vec<_>>().join("\n");
    Html(format!(
        "<!doctype html><meta charset=utf-8><title>{0}</title><body style=\"font-family:sans-serif;max-width:40em;margin:2em auto\"><p><small>Staffroom sandbox · Google Docs simulator</small></p><h1>{0}</h1>{1}</body>",
        escape(&doc.title),
        paragraphs
    ))
    .into_response()
}
