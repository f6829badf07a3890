//! SQLite's SQL of the subscriptions' invoices.

use crate::Sql as _;
use rusqlite::{params, Connection, OptionalExtension, Row};

use super::Sqlite;
use staffroom_core::error::Result;
use staffroom_core::payments::model::InvoiceDto;
use staffroom_core::payments::store::{InvoiceQuery, InvoiceStore};

const INVOICE_COLUMNS: &str = "id, subscription_id, customer_id, billing_reason, status, total, refunded_amount, \
                               currency, card_brand, card_last_four, invoice_url, created_at, updated_at";

fn invoice_from_row(row: &Row<'_>) -> rusqlite::Result<InvoiceDto> {
    Ok(InvoiceDto {
        id: row.get(0)?,
        subscription_id: row.get(1)?,
        customer_id: row.get(2)?,
        billing_reason: row.get(3)?,
        status: row.get(4)?,
        total: row.get(5)?,
        refunded_amount: row.get(6)?,
        currency: row.get(7)?,
        card_brand: row.get(8)?,
        card_last_four: row.get(9)?,
        invoice_url: row.get(10)?,
        created_at: row.get(11)?,
        updated_at: row.get(12)?,
    })
}

/// Writes one invoice, inside the caller's transaction; one kept newer stays as it is, and of two
/// told at the same time, the one with more refunded (refunds only grow). Whether it was written.
pub fn upsert_invoice(conn: &Connection, i: &InvoiceDto, now: &str) -> Result<bool> {
    let written = conn
        .prepare_cached(
            "INSERT INTO invoices (id, subscription_id, customer_id, billing_reason, status, total, refunded_amount,
                               currency, card_brand, card_last_four, invoice_url, created_at, updated_at, synced_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)
         ON CONFLICT(id) DO UPDATE SET subscription_id = ?2, customer_id = ?3, billing_reason = ?4, status = ?5,
                total = ?6, refunded_amount = ?7, currency = ?8, card_brand = ?9, card_last_four = ?10,
                invoice_url = coalesce(?11, invoice_url), created_at = ?12, updated_at = ?13, synced_at = ?14
         WHERE invoices.updated_at < ?13 OR (invoices.updated_at = ?13 AND invoices.refunded_amount <= ?7)",
        )
        .sql()?
        .execute(params![
            i.id,
            i.subscription_id,
            i.customer_id,
            i.billing_reason,
            i.status,
            i.total,
            i.refunded_amount,
            i.currency,
            i.card_brand,
            i.card_last_four,
            i.invoice_url,
            i.created_at,
            i.updated_at,
            now
        ])
        .sql()?;
    Ok(written > 0)
}

/// The invoices of one subscription or one customer, newest first, and how many there are.
pub fn list_invoices(conn: &Connection, query: &InvoiceQuery) -> Result<(Vec<InvoiceDto>, u64)> {
    let (column, id, limit) = match query {
        InvoiceQuery::Subscription { id, limit } => ("subscription_id", id, limit),
        InvoiceQuery::Customer { id, limit } => ("customer_id", id, limit),
    };
    let total: i64 = conn
        .prepare_cached(&format!("SELECT COUNT(*) FROM invoices WHERE {column} = ?1"))
        .sql()?
        .query_row([id], |r| r.get(0))
        .sql()?;
    let mut stmt = conn
        .prepare_cached(&format!(
            "SELECT {INVOICE_COLUMNS} FROM invoices WHERE {column} = ?1 ORDER BY created_at DESC, id DESC LIMIT ?2"
        ))
        .sql()?;
    let rows = stmt
        .query_map(params![id, i64::from(*limit)], invoice_from_row)
        .sql()?
        .collect::<rusqlite::Result<Vec<_>>>()
        .sql()?;
    Ok((rows, total as u64))
}

/// One invoice.
pub fn get_invoice(conn: &Connection, id: &str) -> Result<Option<InvoiceDto>> {
    let sql = format!("SELECT {INVOICE_COLUMNS} FROM invoices WHERE id = ?1");
    Ok(conn.query_row(&sql, [id], invoice_from_row).optional().sql()?)
}

#[async_trait::async_trait]
impl InvoiceStore for Sqlite {
    async fn upsert_invoices(&self, invoices: Vec<InvoiceDto>, now: String) -> Result<()> {
        self.write(move |conn| {
            let tx = conn.transaction().sql()?;
            for invoice in &invoices {
                upsert_invoice(&tx, invoice, &now)?;
            }
            tx.commit().sql()?;
            Ok(())
        })
        .await
    }

    async fn list_invoices(&self, query: InvoiceQuery) -> Result<(Vec<InvoiceDto>, u64)> {
        self.call(move |conn| list_invoices(conn, &query)).await
    }

    async fn invoice(&self, id: String) -> Result<Option<InvoiceDto>> {
        self.call(move |conn| get_invoice(conn, &id)).await
    }
}
