//! The document service (SPEC section 5): list, read, create, edit and share Google Docs, the
//! editor's save through the planner with conflict rebase, drafts of unsaved edits, and the last
//! read revision of each document kept for offline reading. Both doors call these functions.

pub mod connection;
pub mod edits;
pub mod requests;
pub mod store;
pub mod templates;
pub mod validate;

// Google's document model and the batchUpdate planner, from the crate that speaks to the providers.
pub use staffroom_providers::google::{client, lists, model, oauth, planner, tables};

use std::collections::HashMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::json;

use self::client::GoogleClient;
use self::model::{Document, DocumentList, DocumentSummary, PatchResult, PermissionList};
use self::oauth::GoogleAuth;
use self::planner::{EditBlock, Rebased};
use self::store::{DocStore, Draft};
use staffroom_auth::audit::Audit;
use staffroom_auth::Actor;
use staffroom_base::error::{Error, ErrorCode, Result};

/// What the document area asks of a database: its cache, drafts and kept lists.
pub trait DocsStore: DocStore + Send + Sync {}

impl<T: DocStore + Send + Sync + ?Sized> DocsStore for T {}

/// A handle on the database, as the document area sees it.
pub type DocsDb = Arc<dyn DocsStore>;

/// `GET /documents/:id`: the document, and whether it came from the offline copy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct DocumentEnvelope {
    pub document: Document,
    /// Google could not be reached: this is the copy read at `fetchedAt`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub stale: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub fetched_at: Option<String>,
}

/// What the editor window opens with.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct EditorView {
    pub document: Document,
    pub blocks: Vec<EditBlock>,
    /// Google could not be reached: this is the offline copy.
    pub stale: bool,
    pub draft: Option<Draft>,
    /// Why the document opens read-only, when it does (Google gives this user view or comment
    /// access only).
    pub read_only_reason: Option<String>,
    /// The paragraph styles the editor offers.
    pub styles: Vec<model::NamedStyle>,
}

/// The editor's save: edited blocks against the revision they were made on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct SaveEdits {
    pub base_revision_id: String,
    pub blocks: Vec<EditBlock>,
    /// The tab edited (Docs' `tabId`); the first without one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub tab_id: Option<String>,
}

/// What a save did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(tag = "outcome", rename_all = "camelCase")]
pub enum SaveOutcome {
    /// Written (or nothing to write): the document as it is now, and its blocks (for the editor
    /// to go on from it, its undo history kept).
    #[serde(rename_all = "camelCase")]
    Saved { document: Document, blocks: Vec<EditBlock>, requests: usize },
    /// Someone changed the document first: the newer revision, and the edits carried onto it
    /// (with the stretches that could not merge). Nothing was written.
    #[serde(rename_all = "camelCase")]
    Conflict { document: Document, rebased: Rebased },
}

/// The document service; clones share the client, the per-file permission locks and the feed
/// of saved documents.
#[derive(Clone)]
pub struct DocService {
    db: DocsDb,
    client: GoogleClient,
    audit: Audit,
    permission_locks: Arc<std::sync::Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>>,
    saved: tokio::sync::broadcast::Sender<String>,
}

/// Every read whose indexes may be written back asks for suggestions inline (the discovery
/// document: "changes must be based on a document with SUGGESTIONS_INLINE").
const INLINE: &str = "SUGGESTIONS_INLINE";
/// What Google shows users who may not see suggestions (viewers): without them.
const FOR_CURRENT_ACCESS: &str = "DEFAULT_FOR_CURRENT_ACCESS";

/// Where the copy (and a user's draft) of one tab of a document is kept: the first tab under the
/// document's id, another under `id/tabId` (neither kind of id holds a `/`). The first tab's
/// `tabId`, named or not, is the first tab.
fn kept_as(id: &str, tab: Option<&str>) -> String {
    match tab.filter(|&t| t != model::FIRST_TAB_ID) {
        Some(tab) => format!("{id}/{tab}"),
        None => id.to_string(),
    }
}

fn user_id(actor: &Actor) -> String {
    match actor {
        Actor::Staff(who) => who.user_id.clone(),
        other => other.audit_name().to_string(),
    }
}

impl DocService {
    pub fn new(db: impl Into<DocsDb>, client: GoogleClient, audit: Audit) -> Self {
        let db = db.into();
        let (saved, _) = tokio::sync::broadcast::channel(64);
        DocService { db, client, audit, permission_locks: Default::default(), saved }
    }

    /// The id of every document saved with changes from now on (the desktop's document list
    /// shows the new modified time).
    pub fn subscribe_saved(&self) -> tokio::sync::broadcast::Receiver<String> {
        self.saved.subscribe()
    }

    /// Google sign-in.
    pub fn auth(&self) -> &GoogleAuth {
        self.client.auth()
    }

    /// Starts Google sign-in (admins): the page to open in the system browser, and the wait.
    pub async fn begin_sign_in(&self, actor: &Actor) -> Result<oauth::PendingSignIn> {
        actor.require_admin()?;
        self.auth().begin_sign_in().await
    }

    /// Waits for the browser to come back (up to `timeout`) and stores the tokens; audited.
    pub async fn finish_sign_in(
        &self,
        actor: &Actor,
        pending: oauth::PendingSignIn,
        timeout: std::time::Duration,
    ) -> Result<oauth::GoogleStatus> {
        let outcome = pending.finish(timeout).await;
        let result = if outcome.is_ok() { "success" } else { "failure" };
        self.audit
            .record(actor.audit_name(), staffroom_auth::audit::AuditAction::GoogleSignIn, None, result, None)
            .await;
        outcome?;
        self.auth().status().await
    }

    /// Finishes a sign-in whose browser step ran elsewhere (an admin's desktop signing in its
    /// team server): exchanges the code and keeps the tokens; audited.
    pub async fn exchange_code(&self, actor: &Actor, code: &oauth::BrowserCode) -> Result<oauth::GoogleStatus> {
        actor.require_admin()?;
        let outcome = self.auth().exchange_code(code).await;
        let result = if outcome.is_ok() { "success" } else { "failure" };
        self.audit
            .record(actor.audit_name(), staffroom_auth::audit::AuditAction::GoogleSignIn, None, result, None)
            .await;
        outcome?;
        self.auth().status().await
    }

    /// Signs out of Google (admins): revokes and forgets the tokens; audited.
    pub async fn sign_out(&self, actor: &Actor) -> Result<oauth::GoogleStatus> {
        actor.require_admin()?;
        self.auth().sign_out().await?;
        self.audit
            .record(actor.audit_name(), staffroom_auth::audit::AuditAction::GoogleSignOut, None, "success", None)
            .await;
        self.auth().status().await
    }

    /// What the editor window opens with: the document (the offline copy when Google is out of
    /// reach), its blocks as the planner sees them, and the unsaved draft if one was kept.
    pub async fn open_for_editing(&self, actor: &Actor, id: &str, tab: Option<&str>) -> Result<EditorView> {
        let read = self.read(id, None, tab).await?;
        let draft = self.draft(actor, id, read.document.tab_id.as_deref()).await?;
        let read_only_reason = (!read.document.can_edit).then(|| {
            if read.document.suggestions_view_mode.as_deref() == Some("PREVIEW_WITHOUT_SUGGESTIONS") {
                "Google gives you view access only: the document is shown without its pending suggestions, and cannot be edited here."
            } else {
                "Google gives you comment or view access only: the document cannot be edited here."
            }
            .to_string()
        });
        Ok(EditorView {
            styles: model::named_styles_of(&read.document),
            blocks: planner::editable_blocks(&read.document),
            document: read.document,
            stale: read.stale.unwrap_or(false),
            draft,
            read_only_reason,
        })
    }

    /// `GET /documents`.
    pub async fn list(&self, query: &requests::ListDocumentsRequest) -> Result<DocumentList> {
        let q = validate::drive_query(query.folder_id.as_deref(), query.search.as_deref());
        let order = query.order_by.unwrap_or(requests::DocumentOrder::ModifiedTime).as_str();
        let order_by = format!("{order} desc");
        let page_size = query.page_size.unwrap_or(20);
        let key = json!(["documents", query.folder_id, order, page_size, query.page_token, query.search]);
        let fresh = async {
            let files = self.client.list_files(&q, &order_by, page_size, query.page_token.as_deref()).await?;
            let next_page_token = files.next_page_token.filter(|t| !t.is_empty());
            Ok(DocumentList { documents: files.files, next_page_token, stale: None, fetched_at: None })
        };
        let (mut list, fetched_at) = self.read_through(key.to_string(), fresh).await?;
        if fetched_at.is_some() {
            (list.stale, list.fetched_at) = (Some(true), fetched_at);
        }
        Ok(list)
    }

    /// Every Drive folder, in My Drive and shared drives, by name, for the folder filter; the last list read
    /// while Google is out of reach.
    pub async fn folders(&self) -> Result<Vec<model::Folder>> {
        Ok(self.read_through(json!(["folders"]).to_string(), self.client.list_folders()).await?.0)
    }

    /// Reads a list from Google and keeps the answer under `key`; while Google is out of reach,
    /// the answer kept last, with when it was read.
    async fn read_through<T>(
        &self,
        key: String,
        fresh: impl std::future::Future<Output = Result<T>>,
    ) -> Result<(T, Option<String>)>
    where
        T: Serialize + serde::de::DeserializeOwned,
    {
        match fresh.await {
            Ok(list) => {
                let json = serde_json::to_string(&list).map_err(|e| Error::internal("serialize", e))?;
                let now = staffroom_base::time::now_rfc3339();
                self.db.keep_list(key, json, now).await?;
                Ok((list, None))
            }
            Err(error) if error.is_provider_unreachable() => {
                let Some((json, fetched_at)) = self.db.cached_list(key).await? else {
                    return Err(error);
                };
                tracing::info!("serving a document list kept from {fetched_at}");
                let list = serde_json::from_str(&json).map_err(|e| Error::internal("stored document list", e))?;
                Ok((list, Some(fetched_at)))
            }
            Err(error) => Err(error),
        }
    }

    /// `GET /documents/:id`, read with `SUGGESTIONS_INLINE` unless asked otherwise; a user who may
    /// not see suggestions (Google answers 403 to that mode) gets the view of their access
    /// instead. Reads in the default mode are kept for offline reading; when Google is out of
    /// reach, the kept copy is served. A refusal of access is never answered from the copy, and
    /// drops it.
    pub async fn get(&self, id: &str, mode: Option<requests::SuggestionsViewMode>) -> Result<DocumentEnvelope> {
        self.read(id, mode, None).await
    }

    /// [`Self::get`] of one tab's content (the first's without `tab`); each tab's copy is kept
    /// apart.
    async fn read(&self, id: &str, mode: Option<requests::SuggestionsViewMode>, tab: Option<&str>) -> Result<DocumentEnvelope> {
        let id = validate::document_id(id)?;
        let asked = mode.map(requests::SuggestionsViewMode::as_str);
        let read = match asked {
            Some(mode) => self.client.get_document_tab(&id, mode, tab).await,
            None => match self.client.get_document_tab(&id, INLINE, tab).await {
                Err(error) if error.code == ErrorCode::Forbidden => {
                    tracing::info!(document = %id, "suggestions are hidden from this user; reading their view instead");
                    self.client.get_document_tab(&id, FOR_CURRENT_ACCESS, tab).await
                }
                other => other,
            },
        };
        match read {
            Ok(document) => {
                if asked.is_none() {
                    self.cache(&document).await?;
                }
                Ok(DocumentEnvelope { document, stale: None, fetched_at: None })
            }
            Err(error) if error.is_provider_unreachable() => {
                let cached = self.cached(&id, tab).await?;
                match cached {
                    Some(cached) => {
                        tracing::info!(document = %cached.document.id, "serving the offline copy of a document");
                        Ok(DocumentEnvelope {
                            document: cached.document,
                            stale: Some(true),
                            fetched_at: Some(cached.fetched_at),
                        })
                    }
                    None => Err(error),
                }
            }
            Err(error) => {
                // A tab the document does not have (`details.tabId`) says nothing of the document.
                let no_such_tab = error.details.as_ref().is_some_and(|d| d.get("tabId").is_some());
                if matches!(error.code, ErrorCode::Forbidden | ErrorCode::NotFound) && !no_such_tab {
                    // Access was taken away (or the document is gone): the copy must not outlive it.
                    self.forget_copies(&id).await?;
                }
                Err(error)
            }
        }
    }

    /// `POST /documents`: create in the folder, insert the content, add each permission. Each step
    /// is safe to retry: the file's id is chosen first (`files.generateIds`), so a create sent
    /// twice makes one document, and the content goes in against the new document's revision, so
    /// it lands once. A failure after the create names the created document.
    pub async fn create(&self, actor: &Actor, input: validate::CreateDocument) -> Result<DocumentSummary> {
        let id = self.client.generate_id().await?;
        let created = self.client.create_document(&id, &input.name, input.folder_id.as_deref()).await?;
        let id = created.id.clone();
        let finish = async {
            if let Some(content) = &input.content {
                self.insert_once(&id, &content.replace("\r\n", "\n"))
                    .await
                    .map_err(|e| after_create(e, &id, "adding its content"))?;
            }
            if !input.permissions.is_empty() {
                self.add_permissions(&id, &input.permissions, input.send_notification_email)
                    .await
                    .map_err(|e| after_create(e, &id, "sharing it"))?;
            }
            Ok::<_, Error>(())
        };
        let outcome = finish.await;
        let detail = json!({"name": input.name, "folderId": input.folder_id, "permissions": input.permissions.len()});
        self.audit
            .record(
                actor.audit_name(),
                staffroom_auth::audit::AuditAction::DocumentCreate,
                Some(&id),
                if outcome.is_ok() { "success" } else { "partial" },
                Some(detail),
            )
            .await;
        outcome.map(|_| created)
    }

    /// Inserts the first text of a new document exactly once. The insert requires the revision
    /// the document has now; when its answer is lost (a time-out, a 5xx, or a replay refused
    /// because the revision moved on), the document is read to learn whether the text is in.
    async fn insert_once(&self, id: &str, text: &str) -> Result<()> {
        let fresh = self.client.get_document(id, INLINE).await?;
        let revision = fresh.editable_revision()?.to_string();
        let insert = json!({"insertText": {"location": {"index": 1}, "text": text}});
        match self.client.batch_update(id, &[insert], Some(&revision)).await {
            Ok(_) => Ok(()),
            Err(error) if matches!(error.code, ErrorCode::Conflict | ErrorCode::IntegrationError) => {
                let now = self.client.get_document(id, INLINE).await?;
                if now.revision_id.as_deref() != Some(revision.as_str()) && planner::body_text(&now).starts_with(text) {
                    tracing::info!(document = id, "the first text had landed although its answer was lost");
                    Ok(())
                } else {
                    Err(error)
                }
            }
            Err(error) => Err(error),
        }
    }

    /// `PATCH /documents/:id`: every request checked, then one batchUpdate.
    pub async fn patch(&self, actor: &Actor, patch: &requests::PatchDocumentRequest) -> Result<PatchResult> {
        let id = validate::document_id(&patch.id)?;
        let answer = self.client.batch_update(&id, &patch.google_requests(), patch.required_revision_id.as_deref()).await;
        let answer = match answer {
            Ok(answer) => answer,
            Err(error) if error.code == ErrorCode::Conflict => return Err(self.conflict(&id).await),
            Err(error) => return Err(error),
        };
        let revision_id = answer.write_control.and_then(|w| w.required_revision_id).unwrap_or_default();
        self.audit
            .record(
                actor.audit_name(),
                staffroom_auth::audit::AuditAction::DocumentEdit,
                Some(&id),
                "success",
                Some(json!({"requests": patch.requests.len()})),
            )
            .await;
        Ok(PatchResult { document_id: id, revision_id, replies: answer.replies })
    }

    /// A 409 naming the document's current revision.
    async fn conflict(&self, id: &str) -> Error {
        let current = self.client.get_document(id, INLINE).await.ok().and_then(|d| d.revision_id);
        Error::conflict("The document changed since it was read; reload it and apply the edits again", current)
    }

    /// `POST /documents/:id/permissions`.
    pub async fn share(&self, actor: &Actor, share: &requests::ShareRequest) -> Result<PermissionList> {
        let id = validate::document_id(&share.id)?;
        let outcome = self.add_permissions(&id, &share.permissions, share.send_notification_email).await;
        let detail = json!({
            "permissions": share.permissions.iter().map(|p| json!({"role": p.role, "type": p.kind, "emailAddress": p.email_address, "domain": p.domain})).collect::<Vec<_>>()
        });
        self.audit
            .record(
                actor.audit_name(),
                staffroom_auth::audit::AuditAction::DocumentShare,
                Some(&id),
                if outcome.is_ok() { "success" } else { "failure" },
                Some(detail),
            )
            .await;
        outcome.map(|permissions| PermissionList { permissions })
    }

    /// Adds permissions one at a time, holding the file's lock: Google keeps only the last of
    /// concurrent changes to one file.
    async fn add_permissions(
        &self,
        id: &str,
        permissions: &[model::Permission],
        notify: Option<bool>,
    ) -> Result<Vec<model::Permission>> {
        let lock = self.permission_locks.lock().unwrap().entry(id.to_string()).or_default().clone();
        let _held = lock.lock().await;
        let mut added = Vec::with_capacity(permissions.len());
        for permission in permissions {
            match self.client.create_permission(id, permission, notify).await {
                Ok(p) => added.push(p),
                Err(mut error) => {
                    let mut details = error.details.take().unwrap_or_else(|| json!({}));
                    details["added"] = json!(added);
                    error.details = Some(details);
                    return Err(error);
                }
            }
        }
        Ok(added)
    }

    /// The editor's save: plans the minimal batchUpdate against the base revision and sends it
    /// with `requiredRevisionId`. If Google refuses that revision, the document is read again:
    /// when only its revision id changed (ids expire after 24 hours, and change for internal
    /// reasons), the same edits are planned against the fresh read and sent once more; when its
    /// content changed, nothing is written, and the edits are rebased onto the newer revision and
    /// returned (and kept as the draft) for the user to review.
    pub async fn save(&self, actor: &Actor, id: &str, edits: SaveEdits) -> Result<SaveOutcome> {
        let id = validate::document_id(id)?;
        let tab = edits.tab_id.as_deref();
        let mut base = self.base_document(actor, &id, &edits.base_revision_id, tab).await?;
        let mut requests = planner::plan(&base, &edits.blocks)?;
        let mut revision = edits.base_revision_id.clone();
        let mut retried = false;
        while !requests.is_empty() {
            match self.client.batch_update(&id, &requests, Some(&revision)).await {
                Ok(_) => break,
                Err(error) if error.code == ErrorCode::Conflict => {
                    let newer = self.client.get_document_tab(&id, INLINE, tab).await?;
                    let fresh_revision = newer.editable_revision()?.to_string();
                    if !retried && base.body == newer.body {
                        tracing::info!(document = %id, "the revision id moved on without a change; saving against the fresh one");
                        self.cache(&newer).await?;
                        // Same body, same indexes: the edits plan against it unchanged.
                        requests = planner::plan(&newer, &edits.blocks)?;
                        (base, revision, retried) = (newer, fresh_revision, true);
                        continue;
                    }
                    let rebased = planner::rebase(&base, &edits.blocks, &newer)?;
                    self.cache(&newer).await?;
                    self.put_draft(actor, &newer, &rebased.blocks).await?;
                    self.audit
                        .record(
                            actor.audit_name(),
                            staffroom_auth::audit::AuditAction::DocumentEdit,
                            Some(&id),
                            "conflict",
                            Some(json!({"conflicts": rebased.conflicts.len()})),
                        )
                        .await;
                    return Ok(SaveOutcome::Conflict { document: newer, rebased });
                }
                Err(error) => return Err(error),
            }
        }
        if !requests.is_empty() {
            self.audit
                .record(
                    actor.audit_name(),
                    staffroom_auth::audit::AuditAction::DocumentEdit,
                    Some(&id),
                    "success",
                    Some(json!({"requests": requests.len()})),
                )
                .await;
        }
        let document = self.client.get_document_tab(&id, INLINE, tab).await?;
        self.cache(&document).await?;
        self.db.drop_draft(user_id(actor), kept_as(&id, tab)).await?;
        if !requests.is_empty() {
            // Nobody listening is fine.
            let _ = self.saved.send(id);
        }
        let blocks = planner::editable_blocks(&document);
        Ok(SaveOutcome::Saved { document, blocks, requests: requests.len() })
    }

    /// The tab's content at `revision`: from the draft, the offline copy, or Google if still
    /// current.
    async fn base_document(&self, actor: &Actor, id: &str, revision: &str, tab: Option<&str>) -> Result<Document> {
        let draft = self.stored_draft(actor, id, tab).await?;
        if let Some((_, base)) = draft.filter(|(d, _)| d.base_revision_id == revision) {
            return Ok(base);
        }
        if let Some(cached) = self.cached(id, tab).await? {
            if cached.document.revision_id.as_deref() == Some(revision) {
                return Ok(cached.document);
            }
        }
        let current = self.client.get_document_tab(id, INLINE, tab).await?;
        let current_revision = current.editable_revision()?.to_string();
        if current_revision == revision {
            return Ok(current);
        }
        Err(Error::conflict(
            "The edits were made on a revision this app no longer has; reload the document",
            Some(current_revision),
        ))
    }

    /// Keeps `document` as this app's copy of it, read elsewhere (a desktop signed in to a team
    /// server keeps its drafts here, and a draft's base must be a revision this app has).
    pub async fn keep_copy(&self, document: &Document) -> Result<()> {
        self.cache(document).await
    }

    async fn cache(&self, document: &Document) -> Result<()> {
        let mut kept = document.clone();
        kept.id = kept_as(&document.id, document.tab_id.as_deref());
        self.db.keep_document(kept, staffroom_base::time::now_rfc3339()).await
    }

    /// The kept copy of a document's tab.
    async fn cached(&self, id: &str, tab: Option<&str>) -> Result<Option<store::CachedDocument>> {
        let mut cached = self.db.cached_document(kept_as(id, tab)).await?;
        if let Some(cached) = &mut cached {
            cached.document.id = id.to_string();
        }
        Ok(cached)
    }

    /// Forgets the kept copies of a document: its first tab's and each other tab's it outlines.
    async fn forget_copies(&self, id: &str) -> Result<()> {
        let tabs = self.db.cached_document(id.to_string()).await?.and_then(|c| c.document.tabs_outline);
        for tab in tabs.iter().flatten() {
            self.db.forget_document(kept_as(id, Some(&tab.id))).await?;
        }
        self.db.forget_document(id.to_string()).await
    }

    async fn put_draft(&self, actor: &Actor, base: &Document, blocks: &[EditBlock]) -> Result<()> {
        let mut kept = base.clone();
        kept.id = kept_as(&base.id, base.tab_id.as_deref());
        self.db.keep_draft(user_id(actor), kept, blocks.to_vec(), staffroom_base::time::now_rfc3339()).await
    }

    /// `user`'s draft of a document's tab and the content it was made against.
    async fn stored_draft(&self, actor: &Actor, id: &str, tab: Option<&str>) -> Result<Option<(Draft, Document)>> {
        let mut kept = self.db.draft(user_id(actor), kept_as(id, tab)).await?;
        if let Some((draft, base)) = &mut kept {
            (draft.document_id, base.id) = (id.to_string(), id.to_string());
        }
        Ok(kept)
    }

    /// Keeps unsaved edits (the editor calls this every few seconds). The base revision must be
    /// one this app has read.
    pub async fn save_draft(&self, actor: &Actor, id: &str, edits: SaveEdits) -> Result<Draft> {
        let id = validate::document_id(id)?;
        let tab = edits.tab_id.as_deref();
        let base = self.base_document(actor, &id, &edits.base_revision_id, tab).await?;
        planner::plan(&base, &edits.blocks)?;
        self.put_draft(actor, &base, &edits.blocks).await?;
        Ok(self.draft(actor, &id, tab).await?.expect("just written"))
    }

    /// The unsaved edits of a document's tab (its first without `tab`), if any.
    pub async fn draft(&self, actor: &Actor, id: &str, tab: Option<&str>) -> Result<Option<Draft>> {
        let kept = self.stored_draft(actor, &validate::document_id(id)?, tab).await?;
        Ok(kept.map(|(mut draft, base)| {
            draft.blocks = planner::carried_forward(&base, std::mem::take(&mut draft.blocks));
            draft
        }))
    }

    /// Drops the unsaved edits of a document's tab.
    pub async fn discard_draft(&self, actor: &Actor, id: &str, tab: Option<&str>) -> Result<()> {
        self.db.drop_draft(user_id(actor), kept_as(&validate::document_id(id)?, tab)).await.map(drop)
    }
}

/// An error after the document was created: it keeps its code and names the document.
fn after_create(mut error: Error, id: &str, step: &str) -> Error {
    error.message = format!("The document was created (id {id}) but {step} failed: {}", error.message);
    let mut details = error.details.take().unwrap_or_else(|| json!({}));
    details["documentId"] = json!(id);
    error.details = Some(details);
    error
}
