//! What the document service asks of a store, and its records: the offline copy of each document
//! (the last revision read), each user's draft of unsaved edits, and the kept list answers.

use super::model::Document;
use super::planner::EditBlock;
use staffroom_base::error::{Error, Result};

/// A cached document and when it was read.
#[derive(Debug, Clone, PartialEq)]
pub struct CachedDocument {
    pub document: Document,
    pub fetched_at: String,
}

/// A draft of unsaved edits.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct Draft {
    pub document_id: String,
    pub base_revision_id: String,
    pub blocks: Vec<EditBlock>,
    pub updated_at: String,
}

pub fn to_json<T: serde::Serialize>(value: &T) -> Result<String> {
    serde_json::to_string(value).map_err(|e| Error::internal("serialize", e))
}

pub fn from_json<T: serde::de::DeserializeOwned>(raw: &str) -> Result<T> {
    serde_json::from_str(raw).map_err(|e| Error::internal("stored document", e))
}

/// How many list answers are kept for offline reading (the most recently read).
pub const KEPT_LISTS: u32 = 200;

/// The document service's units of work.
#[async_trait::async_trait]
pub trait DocStore {
    /// Keeps `document` as its offline copy.
    async fn keep_document(&self, document: Document, now: String) -> Result<()>;

    /// Forgets a document's offline copy.
    async fn forget_document(&self, id: String) -> Result<()>;

    /// A document's offline copy.
    async fn cached_document(&self, id: String) -> Result<Option<CachedDocument>>;

    /// Keeps `user`'s draft of `base`.
    async fn keep_draft(&self, user: String, base: Document, blocks: Vec<EditBlock>, now: String) -> Result<()>;

    /// `user`'s draft of a document and the document it was made against.
    async fn draft(&self, user: String, document_id: String) -> Result<Option<(Draft, Document)>>;

    /// Drops `user`'s draft of a document; whether there was one.
    async fn drop_draft(&self, user: String, document_id: String) -> Result<bool>;

    /// Keeps a list answer (JSON) under `key`, forgetting the oldest beyond [`KEPT_LISTS`].
    async fn keep_list(&self, key: String, list_json: String, now: String) -> Result<()>;

    /// A kept list answer (JSON) and when it was read.
    async fn cached_list(&self, key: String) -> Result<Option<(String, String)>>;
}
