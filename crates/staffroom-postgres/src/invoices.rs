//! PostgreSQL's SQL of the subscriptions' invoices.

use crate::Sql as _;
use deadpool_postgres::GenericClient;
use tokio_postgres::Row;

use super::Postgres;
use staffroom_core::error::Result;
use staffroom_core::payments::model::InvoiceDto;
use staffroom_core::payments::store::{InvoiceQuery, InvoiceStore};

const INVOICE_COLUMNS: &str = "id, subscription_id, customer_id, billing_reason, status, total, refunded_amount, \
                               currency, card_brand, card_last_four, invoice_url, created_at, updated_at";

fn invoice_of(row: &Row) -> InvoiceDto {
    InvoiceDto {
        id: row.get(0),
        subscription_id: row.get(1),
        customer_id: row.get(2),
        billing_reason: row.get(3),
        status: row.get(4),
        total: row.get(5),
        refunded_amount: row.get(6),
        currency: row.get(7),
        card_brand: row.get(8),
        card_last_four: row.get(9),
        invoice_url: row.get(10),
        created_at: row.get(11),
        updated_at: row.get(12),
    }
}

/// Writes one invoice, inside the caller's transaction; one kept newer stays as it is, and of two
/// told at the same time, the one with more refunded (refunds only grow). Whether it was written.
pub async fn upsert_invoice(db: &impl GenericClient, i: &InvoiceDto, now: &str) -> Result<bool> {
    let upsert = db
        .prepare_cached(
            "INSERT INTO invoices (id, subscription_id, customer_id, billing_reason, status, total, refunded_amount,
                                   currency, card_brand, card_last_four, invoice_url, created_at, updated_at, synced_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
             ON CONFLICT (id) DO UPDATE SET subscription_id = $2, customer_id = $3, billing_reason = $4, status = $5,
                    total = $6, refunded_amount = $7, currency = $8, card_brand = $9, card_last_four = $10,
                    invoice_url = coalesce($11, invoices.invoice_url), created_at = $12, updated_at = $13,
                    synced_at = $14
             WHERE invoices.updated_at < $13 OR (invoices.updated_at = $13 AND invoices.refunded_amount <= $7)",
        )
        .await
        .sql()?;
    let written = db
        .execute(
            &upsert,
            &[
                &i.id,
                &i.subscription_id,
                &i.customer_id,
                &i.billing_reason,
                &i.status,
                &i.total,
                &i.refunded_amount,
                &i.currency,
                &i.card_brand,
                &i.card_last_four,
                &i.invoice_url,
                &i.created_at,
                &i.updated_at,
                &now,
            ],
        )
        .await
        .sql()?;
    Ok(written > 0)
}

/// The invoices of one subscription or one customer, newest first (ids in byte order, as SQLite
/// compares them), and how many there are.
pub async fn list_invoices(db: &impl GenericClient, query: &InvoiceQuery) -> Result<(Vec<InvoiceDto>, u64)> {
    let (column, id, limit) = match query {
        InvoiceQuery::Subscription { id, limit } => ("subscription_id", id, i64::from(*limit)),
        InvoiceQuery::Customer { id, limit } => ("customer_id", id, i64::from(*limit)),
    };
    let count = db.prepare_cached(&format!("SELECT COUNT(*) FROM invoices WHERE {column} = $1")).await.sql()?;
    let total: i64 = db.query_one(&count, &[id]).await.sql()?.get(0);
    let page = db
        .prepare_cached(&format!(
            "SELECT {INVOICE_COLUMNS} FROM invoices WHERE {column} = $1
             ORDER BY created_at DESC, id COLLATE \"C\" DESC LIMIT $2"
        ))
        .await
        .sql()?;
    let rows = db.query(&page, &[id, &limit]).await.sql()?;
    Ok((rows.iter().map(invoice_of).collect(), total as u64))
}

/// One invoice.
pub async fn get_invoice(db: &impl GenericClient, id: &str) -> Result<Option<InvoiceDto>> {
    let sql = db.prepare_cached(&format!("SELECT {INVOICE_COLUMNS} FROM invoices WHERE id = $1")).await.sql()?;
    Ok(db.query_opt(&sql, &[&id]).await.sql()?.as_ref().map(invoice_of))
}

#[async_trait::async_trait]
impl InvoiceStore for Postgres {
    async fn upsert_invoices(&self, invoices: Vec<InvoiceDto>, now: String) -> Result<()> {
        let mut db = self.client().await?;
        let tx = db.transaction().await.sql()?;
        for invoice in &invoices {
            upsert_invoice(&tx, invoice, &now).await?;
        }
        tx.commit().await.sql()?;
        Ok(())
    }

    async fn list_invoices(&self, query: InvoiceQuery) -> Result<(Vec<InvoiceDto>, u64)> {
        list_invoices(&self.client().await?, &query).await
    }

    async fn invoice(&self, id: String) -> Result<Option<InvoiceDto>> {
        get_invoice(&self.client().await?, &id).await
    }
}
