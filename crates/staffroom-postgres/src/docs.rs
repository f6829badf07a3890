//! PostgreSQL's SQL of the document cache (the last revision read of each document), the drafts
//! of unsaved edits, and the kept list answers.

use crate::Sql as _;
use deadpool_postgres::GenericClient;

use super::Postgres;
use staffroom_core::docs::model::Document;
use staffroom_core::docs::planner::EditBlock;
use staffroom_core::docs::store::{from_json, to_json, CachedDocument, DocStore, Draft, KEPT_LISTS};
use staffroom_core::error::Result;

pub async fn put_cached(db: &impl GenericClient, document: &Document, now: &str) -> Result<()> {
    db.execute(
        "INSERT INTO doc_cache (document_id, name, revision_id, document_json, fetched_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (document_id) DO UPDATE SET name = excluded.name, revision_id = excluded.revision_id,
             document_json = excluded.document_json, fetched_at = excluded.fetched_at",
        &[&document.id, &document.name, &document.revision_id.as_deref().unwrap_or(""), &to_json(document)?, &now],
    )
    .await
    .sql()?;
    Ok(())
}

pub async fn delete_cached(db: &impl GenericClient, id: &str) -> Result<()> {
    db.execute("DELETE FROM doc_cache WHERE document_id = $1", &[&id]).await.sql()?;
    Ok(())
}

pub async fn get_cached(db: &impl GenericClient, id: &str) -> Result<Option<CachedDocument>> {
    let row =
        db.query_opt("SELECT document_json, fetched_at FROM doc_cache WHERE document_id = $1", &[&id]).await.sql()?;
    row.map(|row| Ok(CachedDocument { document: from_json(row.get(0))?, fetched_at: row.get(1) })).transpose()
}

pub async fn put_draft(
    db: &impl GenericClient,
    user_id: &str,
    base: &Document,
    blocks: &[EditBlock],
    now: &str,
) -> Result<()> {
    db.execute(
        "INSERT INTO doc_drafts (user_id, document_id, base_revision_id, base_json, blocks_json, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (user_id, document_id) DO UPDATE SET base_revision_id = excluded.base_revision_id,
             base_json = excluded.base_json, blocks_json = excluded.blocks_json, updated_at = excluded.updated_at",
        &[&user_id, &base.id, &base.revision_id.as_deref().unwrap_or(""), &to_json(base)?, &to_json(&blocks)?, &now],
    )
    .await
    .sql()?;
    Ok(())
}

pub async fn get_draft(db: &impl GenericClient, user_id: &str, document_id: &str) -> Result<Option<(Draft, Document)>> {
    let row = db
        .query_opt(
            "SELECT base_revision_id, base_json, blocks_json, updated_at FROM doc_drafts
             WHERE user_id = $1 AND document_id = $2",
            &[&user_id, &document_id],
        )
        .await
        .sql()?;
    row.map(|row| {
        let draft = Draft {
            document_id: document_id.to_string(),
            base_revision_id: row.get(0),
            blocks: from_json(row.get(2))?,
            updated_at: row.get(3),
        };
        Ok((draft, from_json(row.get(1))?))
    })
    .transpose()
}

pub async fn delete_draft(db: &impl GenericClient, user_id: &str, document_id: &str) -> Result<bool> {
    Ok(db
        .execute("DELETE FROM doc_drafts WHERE user_id = $1 AND document_id = $2", &[&user_id, &document_id])
        .await
        .sql()?
        > 0)
}

pub async fn put_cached_list(db: &impl GenericClient, key: &str, list_json: &str, now: &str) -> Result<()> {
    db.execute(
        "INSERT INTO doc_list_cache (list_key, list_json, fetched_at) VALUES ($1, $2, $3)
         ON CONFLICT (list_key) DO UPDATE SET list_json = excluded.list_json, fetched_at = excluded.fetched_at",
        &[&key, &list_json, &now],
    )
    .await
    .sql()?;
    db.execute(
        "DELETE FROM doc_list_cache WHERE list_key NOT IN
             (SELECT list_key FROM doc_list_cache ORDER BY fetched_at DESC LIMIT $1)",
        &[&i64::from(KEPT_LISTS)],
    )
    .await
    .sql()?;
    Ok(())
}

pub async fn get_cached_list(db: &impl GenericClient, key: &str) -> Result<Option<(String, String)>> {
    let row =
        db.query_opt("SELECT list_json, fetched_at FROM doc_list_cache WHERE list_key = $1", &[&key]).await.sql()?;
    Ok(row.map(|row| (row.get(0), row.get(1))))
}

#[async_trait::async_trait]
impl DocStore for Postgres {
    async fn keep_document(&self, document: Document, now: String) -> Result<()> {
        put_cached(&self.client().await?, &document, &now).await
    }

    async fn forget_document(&self, id: String) -> Result<()> {
        delete_cached(&self.client().await?, &id).await
    }

    async fn cached_document(&self, id: String) -> Result<Option<CachedDocument>> {
        get_cached(&self.client().await?, &id).await
    }

    async fn keep_draft(&self, user: String, base: Document, blocks: Vec<EditBlock>, now: String) -> Result<()> {
        put_draft(&self.client().await?, &user, &base, &blocks, &now).await
    }

    async fn draft(&self, user: String, document_id: String) -> Result<Option<(Draft, Document)>> {
        get_draft(&self.client().await?, &user, &document_id).await
    }

    async fn drop_draft(&self, user: String, document_id: String) -> Result<bool> {
        delete_draft(&self.client().await?, &user, &document_id).await
    }

    async fn keep_list(&self, key: String, list_json: String, now: String) -> Result<()> {
        put_cached_list(&self.client().await?, &key, &list_json, &now).await
    }

    async fn cached_list(&self, key: String) -> Result<Option<(String, String)>> {
        get_cached_list(&self.client().await?, &key).await
    }
}
