//! The document area's operations: lists, reads, creates, edits and shares over Google Docs and
//! Drive, the editor's saves and drafts, and the Google sign-in's state.

pub use staffroom_docs::requests::*;

use super::model::{DocumentList, Folder, PatchResult, PermissionList};
use super::oauth::{self, GoogleStatus};
use super::store::Draft;
use super::validate::CreateDocument;
use super::{DocumentEnvelope, EditorView, SaveOutcome};
use crate::api::{Access, Caller, NoInput, OpSpec, Operation, Route, EDITOR, NO_WINDOW};
use crate::error::{Error, Result};
use crate::Core;

const NOT_FOUND: &[(u16, &str)] = &[(404, "not_found: no such document (or no such tab of it), or it is not shared with this account")];
const STALE: &[(u16, &str)] = &[
    (404, "not_found: no such document (or no such tab of it), or it is not shared with this account"),
    (409, "conflict: the document changed since the edits were made (details.currentRevisionId)"),
];

pub struct ListDocuments;
impl Operation for ListDocuments {
    const SPEC: OpSpec = OpSpec::new("list_documents", "docs", "One page of Google documents, newest first")
        .route(Route::get("/api/docs/documents"));
    type Request = ListDocumentsRequest;
    type Response = DocumentList;
    async fn run(core: &Core, _: &Caller, request: ListDocumentsRequest) -> Result<DocumentList> {
        core.docs.list(&request).await
    }
}

pub struct ListFolders;
impl Operation for ListFolders {
    const SPEC: OpSpec = OpSpec::new("list_folders", "docs", "Every Drive folder, by name, for the folder filter")
        .route(Route::get("/api/docs/folders"));
    type Request = NoInput;
    type Response = Vec<Folder>;
    async fn run(core: &Core, _: &Caller, _: NoInput) -> Result<Vec<Folder>> {
        core.docs.folders().await
    }
}

pub struct ReadDocument;
impl Operation for ReadDocument {
    const SPEC: OpSpec =
        OpSpec::new("read_document", "docs", "A document, from the offline copy when Google is out of reach")
            .route(Route::get("/api/docs/documents/{id}"))
            .errors(NOT_FOUND);
    type Request = ReadDocumentRequest;
    type Response = DocumentEnvelope;
    async fn run(core: &Core, _: &Caller, request: ReadDocumentRequest) -> Result<DocumentEnvelope> {
        core.docs.get(&request.id, request.suggestions_view_mode).await
    }
}

pub struct CreateDocumentOp;
impl Operation for CreateDocumentOp {
    const SPEC: OpSpec =
        OpSpec::new("create_document", "docs", "A Google document, with its first text and who it is shared with")
            .route(Route::post("/api/docs/documents").status(201))
            .errors(&[(404, "not_found: no such folder, or it is not shared with this account")]);
    type Request = CreateDocument;
    type Response = SummaryEnvelope;
    async fn run(core: &Core, caller: &Caller, request: CreateDocument) -> Result<SummaryEnvelope> {
        Ok(SummaryEnvelope { document: core.docs.create(&caller.actor()?, request).await? })
    }
}

pub struct PatchDocument;
impl Operation for PatchDocument {
    const SPEC: OpSpec = OpSpec::new("patch_document", "docs", "Docs edit requests, sent as one batch")
        .route(Route::patch("/api/docs/documents/{id}"))
        .windows(NO_WINDOW)
        .errors(STALE);
    type Request = PatchDocumentRequest;
    type Response = PatchResult;
    async fn run(core: &Core, caller: &Caller, request: PatchDocumentRequest) -> Result<PatchResult> {
        core.docs.patch(&caller.actor()?, &request).await
    }
}

pub struct ShareDocument;
impl Operation for ShareDocument {
    const SPEC: OpSpec = OpSpec::new("share_document", "docs", "Shares a document, one permission at a time")
        .route(Route::post("/api/docs/documents/{id}/permissions"))
        .errors(NOT_FOUND);
    type Request = ShareRequest;
    type Response = PermissionList;
    async fn run(core: &Core, caller: &Caller, request: ShareRequest) -> Result<PermissionList> {
        core.docs.share(&caller.actor()?, &request).await
    }
}

pub struct EditorDocument;
impl Operation for EditorDocument {
    const SPEC: OpSpec = OpSpec::new(
        "editor_document",
        "docs",
        "What the editor opens with: the document, its blocks, the unsaved draft, and why it is read-only when it is",
    )
    .route(Route::get("/api/docs/documents/{id}/editor"))
    .windows(EDITOR)
    .errors(NOT_FOUND);
    type Request = TabRequest;
    type Response = EditorView;
    async fn run(core: &Core, caller: &Caller, request: TabRequest) -> Result<EditorView> {
        core.docs.open_for_editing(&caller.actor()?, &request.id, request.tab_id.as_deref()).await
    }
}

pub struct SaveDocument;
impl Operation for SaveDocument {
    const SPEC: OpSpec = OpSpec::new(
        "save_document",
        "docs",
        "Saves the editor's blocks, or answers the newer revision with the edits carried onto it",
    )
    .route(Route::post("/api/docs/documents/{id}/save"))
    .windows(EDITOR)
    .errors(STALE);
    type Request = EditsRequest;
    type Response = SaveOutcome;
    async fn run(core: &Core, caller: &Caller, request: EditsRequest) -> Result<SaveOutcome> {
        let id = request.id.clone();
        core.docs.save(&caller.actor()?, &id, request.edits()).await
    }
}

pub struct GetDraft;
impl Operation for GetDraft {
    const SPEC: OpSpec = OpSpec::new("get_draft", "docs", "The caller's unsaved edits of a document")
        .route(Route::get("/api/docs/documents/{id}/draft"))
        .windows(NO_WINDOW)
        .errors(&[(404, "not_found: this document has no unsaved edits")]);
    type Request = TabRequest;
    type Response = Draft;
    async fn run(core: &Core, caller: &Caller, request: TabRequest) -> Result<Draft> {
        core.docs
            .draft(&caller.actor()?, &request.id, request.tab_id.as_deref())
            .await?
            .ok_or_else(|| Error::not_found("This document has no unsaved edits"))
    }
}

pub struct SaveDraft;
impl Operation for SaveDraft {
    const SPEC: OpSpec = OpSpec::new("save_draft", "docs", "Keeps the editor's unsaved edits")
        .route(Route::put("/api/docs/documents/{id}/draft"))
        .windows(EDITOR)
        .errors(STALE);
    type Request = EditsRequest;
    type Response = Draft;
    async fn run(core: &Core, caller: &Caller, request: EditsRequest) -> Result<Draft> {
        let id = request.id.clone();
        core.docs.save_draft(&caller.actor()?, &id, request.edits()).await
    }
}

pub struct DiscardDraft;
impl Operation for DiscardDraft {
    const SPEC: OpSpec = OpSpec::new("discard_draft", "docs", "Drops the caller's unsaved edits of a document")
        .route(Route::delete("/api/docs/documents/{id}/draft").status(204))
        .windows(EDITOR);
    type Request = TabRequest;
    type Response = ();
    async fn run(core: &Core, caller: &Caller, request: TabRequest) -> Result<()> {
        core.docs.discard_draft(&caller.actor()?, &request.id, request.tab_id.as_deref()).await
    }
}

pub struct GetGoogleStatus;
impl Operation for GetGoogleStatus {
    const SPEC: OpSpec =
        OpSpec::new("google_status", "docs", "Whether documents can work: Google's credentials and sign-in")
            .route(Route::get("/api/docs/google"));
    type Request = NoInput;
    type Response = GoogleStatus;
    async fn run(core: &Core, _: &Caller, _: NoInput) -> Result<GoogleStatus> {
        core.docs.auth().status().await
    }
}

pub struct GoogleSignOut;
impl Operation for GoogleSignOut {
    const SPEC: OpSpec = OpSpec::new("google_sign_out", "docs", "Signs out of Google: revokes and forgets the tokens")
        .route(Route::post("/api/docs/google/sign-out"))
        .access(Access::Admin);
    type Request = NoInput;
    type Response = GoogleStatus;
    async fn run(core: &Core, caller: &Caller, _: NoInput) -> Result<GoogleStatus> {
        core.docs.sign_out(&caller.actor()?).await
    }
}

const GOOGLE_REFUSALS: &[(u16, &str)] = &[
    (401, "unauthorized: Google refused the code or verifier (details.provider google)"),
    (502, "integration_error: Google could not be reached"),
];

pub struct GoogleAuthorization;
impl Operation for GoogleAuthorization {
    const SPEC: OpSpec = OpSpec::new(
        "google_authorization",
        "docs",
        "Google's consent page for a sign-in whose browser step runs on an admin's computer",
    )
    .route(Route::post("/api/docs/google/authorization"))
    .access(Access::Admin)
    .windows(NO_WINDOW);
    type Request = AuthorizationRequest;
    type Response = Authorization;
    async fn run(core: &Core, caller: &Caller, request: AuthorizationRequest) -> Result<Authorization> {
        caller.actor()?.require_admin()?;
        let url =
            core.docs.auth().authorization_url(&request.redirect_uri, &request.code_challenge, &request.state).await?;
        Ok(Authorization { url })
    }
}

pub struct GoogleExchangeCode;
impl Operation for GoogleExchangeCode {
    const SPEC: OpSpec = OpSpec::new(
        "google_exchange_code",
        "docs",
        "Finishes a Google sign-in: exchanges the code and verifier from the browser step and keeps the tokens",
    )
    .route(Route::post("/api/docs/google/code"))
    .access(Access::Admin)
    .windows(NO_WINDOW)
    .errors(GOOGLE_REFUSALS);
    type Request = CodeRequest;
    type Response = GoogleStatus;
    async fn run(core: &Core, caller: &Caller, request: CodeRequest) -> Result<GoogleStatus> {
        let code = oauth::BrowserCode {
            code: request.code,
            verifier: request.code_verifier,
            redirect_uri: request.redirect_uri,
        };
        core.docs.exchange_code(&caller.actor()?, &code).await
    }
}
