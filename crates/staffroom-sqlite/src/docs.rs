//! SQLite's SQL of the document cache (the last revision read of each document), the drafts of
//! unsaved edits, and the kept list answers.

use crate::Sql as _;
use rusqlite::{params, Connection, OptionalExtension};

use super::Sqlite;
use staffroom_core::docs::model::Document;
use staffroom_core::docs::planner::EditBlock;
use staffroom_core::docs::store::{from_json, to_json, CachedDocument, DocStore, Draft, KEPT_LISTS};
use staffroom_core::error::Result;

pub fn put_cached(conn: &Connection, document: &Document, now: &str) -> Result<()> {
    conn.execute(
        "INSERT INTO doc_cache (document_id, name, revision_id, document_json, fetched_at) VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (document_id) DO UPDATE SET name = excluded.name, revision_id = excluded.revision_id,
             document_json = excluded.document_json, fetched_at = excluded.fetched_at",
        // A read-only copy has no revision (Google gives none to viewers): kept as "".
        params![document.id, document.name, document.revision_id.as_deref().unwrap_or(""), to_json(document)?, now],
    )
    .sql()?;
    Ok(())
}

/// Forgets the offline copy of a document (its reader lost access, or it is gone).
pub fn delete_cached(conn: &Connection, id: &str) -> Result<()> {
    conn.execute("DELETE FROM doc_cache WHERE document_id = ?1", [id]).sql()?;
    Ok(())
}

pub fn get_cached(conn: &Connection, id: &str) -> Result<Option<CachedDocument>> {
    let row: Option<(String, String)> = conn
        .query_row("SELECT document_json, fetched_at FROM doc_cache WHERE document_id = ?1", [id], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })
        .optional()
        .sql()?;
    row.map(|(json, fetched_at)| Ok(CachedDocument { document: from_json(&json)?, fetched_at })).transpose()
}

pub fn put_draft(conn: &Connection, user_id: &str, base: &Document, blocks: &[EditBlock], now: &str) -> Result<()> {
    conn.execute(
        "INSERT INTO doc_drafts (user_id, document_id, base_revision_id, base_json, blocks_json, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT (user_id, document_id) DO UPDATE SET base_revision_id = excluded.base_revision_id,
             base_json = excluded.base_json, blocks_json = excluded.blocks_json, updated_at = excluded.updated_at",
        params![user_id, base.id, base.revision_id.as_deref().unwrap_or(""), to_json(base)?, to_json(&blocks)?, now],
    )
    .sql()?;
    Ok(())
}

/// A draft and the document it was made against.
pub fn get_draft(conn: &Connection, user_id: &str, document_id: &str) -> Result<Option<(Draft, Document)>> {
    let row: Option<(String, String, String, String)> = conn
        .query_row(
            "SELECT base_revision_id, base_json, blocks_json, updated_at FROM doc_drafts
             WHERE user_id = ?1 AND document_id = ?2",
            params![user_id, document_id],
            |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?)),
        )
        .optional()
        .sql()?;
    row.map(|(base_revision_id, base, blocks, updated_at)| {
        Ok((
            Draft { document_id: document_id.to_string(), base_revision_id, blocks: from_json(&blocks)?, updated_at },
            from_json(&base)?,
        ))
    })
    .transpose()
}

pub fn delete_draft(conn: &Connection, user_id: &str, document_id: &str) -> Result<bool> {
    Ok(conn
        .execute("DELETE FROM doc_drafts WHERE user_id = ?1 AND document_id = ?2", params![user_id, document_id])
        .sql()?
        > 0)
}

/// Keeps a list answer (JSON) under `key`, forgetting the oldest beyond [`KEPT_LISTS`].
pub fn put_cached_list(conn: &Connection, key: &str, list_json: &str, now: &str) -> Result<()> {
    conn.execute(
        "INSERT INTO doc_list_cache (list_key, list_json, fetched_at) VALUES (?1, ?2, ?3)
         ON CONFLICT (list_key) DO UPDATE SET list_json = excluded.list_json, fetched_at = excluded.fetched_at",
        params![key, list_json, now],
    )
    .sql()?;
    conn.execute(
        "DELETE FROM doc_list_cache WHERE list_key NOT IN
             (SELECT list_key FROM doc_list_cache ORDER BY fetched_at DESC LIMIT ?1)",
        [KEPT_LISTS],
    )
    .sql()?;
    Ok(())
}

/// A kept list answer (JSON) and when it was read.
pub fn get_cached_list(conn: &Connection, key: &str) -> Result<Option<(String, String)>> {
    Ok(conn
        .query_row("SELECT list_json, fetched_at FROM doc_list_cache WHERE list_key = ?1", [key], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })
        .optional()
        .sql()?)
}

#[async_trait::async_trait]
impl DocStore for Sqlite {
    async fn keep_document(&self, document: Document, now: String) -> Result<()> {
        self.write(move |conn| put_cached(conn, &document, &now)).await
    }

    async fn forget_document(&self, id: String) -> Result<()> {
        self.write(move |conn| delete_cached(conn, &id)).await
    }

    async fn cached_document(&self, id: String) -> Result<Option<CachedDocument>> {
        self.call(move |conn| get_cached(conn, &id)).await
    }

    async fn keep_draft(&self, user: String, base: Document, blocks: Vec<EditBlock>, now: String) -> Result<()> {
        self.write(move |conn| put_draft(conn, &user, &base, &blocks, &now)).await
    }

    async fn draft(&self, user: String, document_id: String) -> Result<Option<(Draft, Document)>> {
        self.call(move |conn| get_draft(conn, &user, &document_id)).await
    }

    async fn drop_draft(&self, user: String, document_id: String) -> Result<bool> {
        self.write(move |conn| delete_draft(conn, &user, &document_id)).await
    }

    async fn keep_list(&self, key: String, list_json: String, now: String) -> Result<()> {
        self.write(move |conn| put_cached_list(conn, &key, &list_json, &now)).await
    }

    async fn cached_list(&self, key: String) -> Result<Option<(String, String)>> {
        self.call(move |conn| get_cached_list(conn, &key)).await
    }
}
