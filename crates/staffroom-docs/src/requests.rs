//! What staff send the document operations (lists, reads, creates, edits, shares, the editor's
//! saves and drafts, Google's sign-in), each request with its bounds, and the envelopes of what
//! they get back; the operations themselves are declared in the core.

use serde::Serialize;
use serde_json::Value;
use staffroom_macros::request;

use crate::model::{DocumentSummary, Permission};
use crate::oauth;
use crate::edits::EditRequest;
use crate::validate::{self, CreateDocument};
use crate::SaveEdits;
use staffroom_base::error::Result;
use staffroom_base::request::{search, Fields, Input, Request};
use staffroom_base::secrets::Secret;

/// A Google document id, checked.
fn document_id(fields: &mut Fields) -> String {
    let id = fields.required_string("id");
    if id.is_some_and(|id| !validate::is_drive_id(id)) {
        fields.problem("id", "must be a Google document id (letters, digits, - or _)");
    }
    id.unwrap_or_default().to_string()
}

/// How a document list is ordered (always newest first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS, utoipa::ToSchema)]
pub enum DocumentOrder {
    #[serde(rename = "modifiedTime")]
    ModifiedTime,
    #[serde(rename = "createdTime")]
    CreatedTime,
}

impl DocumentOrder {
    pub fn as_str(self) -> &'static str {
        match self {
            DocumentOrder::ModifiedTime => "modifiedTime",
            DocumentOrder::CreatedTime => "createdTime",
        }
    }
}

/// `GET /api/docs/documents`.
#[request(only = "is not a parameter; use folderId, pageSize, pageToken, orderBy")]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListDocumentsRequest {
    /// Only documents in this Drive folder.
    #[field(pattern = "^[A-Za-z0-9_-]{1,200}$", message = "must be a Drive folder id (letters, digits, - or _)")]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub folder_id: Option<String>,
    /// Default 20.
    #[field(min = 1, max = 100)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub page_size: Option<u32>,
    /// `nextPageToken` of the page before.
    #[field(
        pattern = "^[^\\x00-\\x20\\x7f-\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]+$",
        min_length = 1,
        max_length = 2048,
        message = "must be a nextPageToken from an earlier page"
    )]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub page_token: Option<String>,
    /// Default `modifiedTime`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    #[field(with = order_by)]
    pub order_by: Option<DocumentOrder>,
    /// Words the name starts with, any case (Drive's `name contains`).
    #[schema(max_length = 100, pattern = "^[^\\x00-\\x1f\\x7f-\\x9f]*$")]
    #[field(with = search)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub search: Option<String>,
}

/// A list's `pageToken`: a `nextPageToken` from an earlier page.
/// A list's `orderBy`.
fn order_by(fields: &mut Fields) -> Option<DocumentOrder> {
    match fields.value("orderBy").map(|v| v.as_str()) {
        None => None,
        Some(Some("modifiedTime")) => Some(DocumentOrder::ModifiedTime),
        Some(Some("createdTime")) => Some(DocumentOrder::CreatedTime),
        Some(_) => {
            fields.problem("orderBy", "must be modifiedTime or createdTime");
            None
        }
    }
}

/// What Google shows of suggested changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum SuggestionsViewMode {
    DefaultForCurrentAccess,
    SuggestionsInline,
    PreviewSuggestionsAccepted,
    PreviewWithoutSuggestions,
}

impl SuggestionsViewMode {
    pub const NAMES: &'static [&'static str] = &[
        "DEFAULT_FOR_CURRENT_ACCESS",
        "SUGGESTIONS_INLINE",
        "PREVIEW_SUGGESTIONS_ACCEPTED",
        "PREVIEW_WITHOUT_SUGGESTIONS",
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            SuggestionsViewMode::DefaultForCurrentAccess => Self::NAMES[0],
            SuggestionsViewMode::SuggestionsInline => Self::NAMES[1],
            SuggestionsViewMode::PreviewSuggestionsAccepted => Self::NAMES[2],
            SuggestionsViewMode::PreviewWithoutSuggestions => Self::NAMES[3],
        }
    }

    fn parse(name: &str) -> Option<Self> {
        [
            SuggestionsViewMode::DefaultForCurrentAccess,
            SuggestionsViewMode::SuggestionsInline,
            SuggestionsViewMode::PreviewSuggestionsAccepted,
            SuggestionsViewMode::PreviewWithoutSuggestions,
        ]
        .into_iter()
        .find(|mode| mode.as_str() == name)
    }
}

/// `GET /api/docs/documents/{id}`.
#[request(only = "is not a parameter; use suggestionsViewMode")]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReadDocumentRequest {
    #[field(pattern = "^[A-Za-z0-9_-]{1,200}$", message = "must be a Google document id (letters, digits, - or _)")]
    pub id: String,
    /// Default: suggestions inline, or the reader's own view when Google hides suggestions from them.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    #[field(choice)]
    pub suggestions_view_mode: Option<SuggestionsViewMode>,
}

/// A request naming one tab of a document (its first without `tabId`): what the editor opens,
/// and the draft it keeps.
#[request]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TabRequest {
    #[field(pattern = "^[A-Za-z0-9_-]{1,200}$", message = "must be a Google document id (letters, digits, - or _)")]
    pub id: String,
    /// Docs' `tabId` of the tab (`t.0` is the first), from the document's `tabsOutline`.
    #[field(pattern = "^t\\.[A-Za-z0-9_-]{1,64}$", message = "must be a tab id of the document (t. then letters or digits)")]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub tab_id: Option<String>,
}

/// Hand-written, not `#[request]`: the body's validator (`docs::validate`) names every bad field.
impl Request for CreateDocument {
    fn from_input(input: &Input) -> Result<Self> {
        validate::create_document(&Value::Object(input.clone()))
    }
}

/// `{document}`: the new document's summary.
#[derive(Debug, Clone, Serialize, ts_rs::TS, utoipa::ToSchema)]
pub struct SummaryEnvelope {
    pub document: DocumentSummary,
}

/// `PATCH /api/docs/documents/{id}`: Docs edit requests, checked and rebuilt.
#[request(only = "is not a field of this request")]
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PatchDocumentRequest {
    #[field(pattern = "^[A-Za-z0-9_-]{1,200}$", message = "must be a Google document id (letters, digits, - or _)")]
    pub id: String,
    /// 1 to 1,000 of `insertText`, `deleteContentRange`, `updateParagraphStyle`, `updateTextStyle`,
    /// `createParagraphBullets`, `deleteParagraphBullets`, `insertTable`, `insertTableRow`,
    /// `insertTableColumn`, `deleteTableRow`, `deleteTableColumn`.
    #[field(items, min_items = 1, max_items = 1000)]
    #[schema(inline)]
    #[ts(type = "Array<Record<string, unknown>>")]
    pub requests: Vec<EditRequest>,
    /// The revision the edits were made on; refused with `conflict` when it is not the latest.
    #[field(
        pattern = "^[^\\x00-\\x1f\\x7f-\\x9f]*$",
        min_length = 1,
        max_length = 512,
        message = "must be a revisionId read from the document"
    )]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub required_revision_id: Option<String>,
}

impl PatchDocumentRequest {
    /// The requests as Docs' `batchUpdate` takes them.
    pub fn google_requests(&self) -> Vec<Value> {
        self.requests.iter().map(EditRequest::to_google).collect()
    }
}

/// `POST /api/docs/documents/{id}/permissions`.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ShareRequest {
    #[schema(pattern = "^[A-Za-z0-9_-]{1,200}$")]
    pub id: String,
    /// 1 to 50 entries, added one at a time.
    #[schema(value_type = Vec<validate::NewPermission>, min_items = 1, max_items = 50)]
    #[ts(as = "Vec<validate::NewPermission>")]
    pub permissions: Vec<Permission>,
    /// Whether Google e-mails the people added.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub send_notification_email: Option<bool>,
}

/// Hand-written, not `#[request]`: each permission is checked by `docs::validate`.
impl Request for ShareRequest {
    fn from_input(input: &Input) -> Result<Self> {
        let mut fields = Fields::new(input);
        let id = document_id(&mut fields);
        let share = fields.take(validate::share(&fields.without(&["id"])))?;
        fields.finish(|| {
            let share = share.expect("checked");
            ShareRequest { id, permissions: share.permissions, send_notification_email: share.send_notification_email }
        })
    }
}

/// The editor's save or draft: its blocks against the revision they were made on.
#[request]
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EditsRequest {
    #[field(pattern = "^[A-Za-z0-9_-]{1,200}$", message = "must be a Google document id (letters, digits, - or _)")]
    pub id: String,
    /// The revision the blocks were edited from (the editor view's `document.revisionId`).
    #[field(min_length = 1, message = "must be the revision the edits were made on")]
    pub base_revision_id: String,
    /// The document's blocks as the editor has them: paragraphs (text and style) and the fixed
    /// blocks it keeps as they are.
    #[field(with = blocks)]
    pub blocks: Vec<super::planner::EditBlock>,
    /// The tab the blocks are of (the editor view's `document.tabId`); the first without one.
    #[field(pattern = "^t\\.[A-Za-z0-9_-]{1,64}$", message = "must be a tab id of the document (t. then letters or digits)")]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub tab_id: Option<String>,
}

/// The editor's blocks, read whole by their own declaration (whose schema the OpenAPI document
/// carries).
fn blocks(fields: &mut Fields) -> Vec<super::planner::EditBlock> {
    match fields.value("blocks") {
        None => {
            fields.problem("blocks", "is required");
            Vec::new()
        }
        Some(value) => serde_json::from_value(value.clone()).unwrap_or_else(|e| {
            fields.problem("blocks", format!("must be the editor's blocks: {e}"));
            Vec::new()
        }),
    }
}

impl EditsRequest {
    /// The edits, as the document service saves them.
    pub fn edits(self) -> SaveEdits {
        SaveEdits { base_revision_id: self.base_revision_id, blocks: self.blocks, tab_id: self.tab_id }
    }
}

/// `POST /api/docs/google/authorization`: a browser step run elsewhere (an admin's desktop) asks
/// for the consent page that will come back to it.
#[request(only = "is not a field of an authorization request")]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AuthorizationRequest {
    /// The browser step's own loopback listener: `http://127.0.0.1:PORT/` or `http://[::1]:PORT/`
    /// (the full check is `oauth::is_loopback_redirect`).
    #[schema(
        max_length = 200,
        pattern = r"^http://(127\.0\.0\.1|\[::1\]):([1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])/$"
    )]
    #[field(check = oauth::is_loopback_redirect, message = "must be http://127.0.0.1:PORT/ or http://[::1]:PORT/ (this computer's own listener)")]
    pub redirect_uri: String,
    /// PKCE S256: the base64url SHA-256 of the verifier the browser step keeps.
    #[field(pattern = "^[A-Za-z0-9_-]{43}$", message = "must be a PKCE S256 challenge: 43 base64url characters")]
    pub code_challenge: String,
    /// Sent back with the code, so that the browser step knows the answer is its own.
    #[field(
        pattern = "^[A-Za-z0-9._~-]{16,128}$",
        message = "must be 16 to 128 letters, digits, '.', '_', '~' or '-'"
    )]
    pub state: String,
}

/// Google's consent page, to open in the browser.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize, ts_rs::TS, utoipa::ToSchema)]
pub struct Authorization {
    pub url: String,
}

/// `POST /api/docs/google/code`: what the browser brought back, for the server to exchange.
#[request(only = "is not a field of a code exchange")]
#[derive(Debug, Clone, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CodeRequest {
    /// The authorization code from the redirect.
    #[field(
        pattern = "^[\\x21-\\x7e]+$",
        min_length = 1,
        max_length = 2048,
        message = "must be 1 to 2048 printable characters without spaces"
    )]
    #[schema(value_type = String)]
    #[serde(serialize_with = "staffroom_base::secrets::serialize_exposed")]
    #[ts(type = "string")]
    pub code: Secret,
    /// The PKCE verifier whose challenge the consent page was given (RFC 7636: 43 to 128
    /// unreserved characters).
    #[field(
        pattern = "^[A-Za-z0-9._~-]{43,128}$",
        message = "must be a PKCE verifier: 43 to 128 letters, digits, '.', '_', '~' or '-'"
    )]
    #[schema(value_type = String)]
    #[serde(serialize_with = "staffroom_base::secrets::serialize_exposed")]
    #[ts(type = "string")]
    pub code_verifier: Secret,
    /// The redirect the code was sent to, exactly as in the authorization request.
    #[schema(
        max_length = 200,
        pattern = r"^http://(127\.0\.0\.1|\[::1\]):([1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])/$"
    )]
    #[field(check = oauth::is_loopback_redirect, message = "must be http://127.0.0.1:PORT/ or http://[::1]:PORT/ (this computer's own listener)")]
    pub redirect_uri: String,
}
