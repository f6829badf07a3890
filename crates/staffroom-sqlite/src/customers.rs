//! SQLite's SQL of the store's customers.

use crate::Sql as _;
use rusqlite::{params, Connection, OptionalExtension, Row};

use super::Sqlite;
use staffroom_core::error::Result;
use staffroom_core::payments::model::CustomerDto;
use staffroom_core::payments::store::{CustomerQuery, CustomerStore};

const CUSTOMER_COLUMNS: &str = "id, name, email, status, country, total_revenue, mrr, created_at, updated_at";

fn customer_from_row(row: &Row<'_>) -> rusqlite::Result<CustomerDto> {
    Ok(CustomerDto {
        id: row.get(0)?,
        name: row.get(1)?,
        email: row.get(2)?,
        status: row.get(3)?,
        country: row.get(4)?,
        total_revenue: row.get(5)?,
        mrr: row.get(6)?,
        created_at: row.get(7)?,
        updated_at: row.get(8)?,
        currency: "USD".into(),
        portal_url: None,
    })
}

/// Writes customers; one kept newer than what was read stays as it is.
pub fn upsert_customers(conn: &mut Connection, customers: &[CustomerDto], now: &str) -> Result<()> {
    let tx = conn.transaction().sql()?;
    {
        let mut upsert = tx
            .prepare_cached(
                "INSERT INTO customers (id, name, email, status, country, total_revenue, mrr, created_at, updated_at, synced_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
                 ON CONFLICT(id) DO UPDATE SET name = ?2, email = ?3, status = ?4, country = ?5, total_revenue = ?6,
                        mrr = ?7, created_at = ?8, updated_at = ?9, synced_at = ?10
                 WHERE customers.updated_at <= ?9",
            )
            .sql()?;
        for c in customers {
            upsert
                .execute(params![
                    c.id,
                    c.name,
                    c.email,
                    c.status,
                    c.country,
                    c.total_revenue,
                    c.mrr,
                    c.created_at,
                    c.updated_at,
                    now
                ])
                .sql()?;
        }
    }
    tx.commit().sql()?;
    Ok(())
}

/// A page of customers, newest first.
pub fn list_customers(conn: &Connection, query: &CustomerQuery) -> Result<(Vec<CustomerDto>, u64)> {
    let filter =
        "(?1 IS NULL OR email LIKE ?1 ESCAPE '\\' OR name LIKE ?1 ESCAPE '\\') AND (?2 IS NULL OR status = ?2)";
    let (limit, offset) = (query.limit as i64, (query.page as i64 - 1) * query.limit as i64);
    let values: [&dyn rusqlite::ToSql; 4] = [&query.search, &query.status.map(|s| s.as_str()), &limit, &offset];
    let total: i64 =
        conn.query_row(&format!("SELECT COUNT(*) FROM customers WHERE {filter}"), &values[..2], |r| r.get(0)).sql()?;
    let mut stmt = conn
        .prepare_cached(&format!(
            "SELECT {CUSTOMER_COLUMNS} FROM customers WHERE {filter} ORDER BY created_at DESC, id DESC LIMIT ?3 OFFSET ?4"
        ))
        .sql()?;
    let rows = stmt.query_map(&values[..], customer_from_row).sql()?.collect::<rusqlite::Result<Vec<_>>>().sql()?;
    Ok((rows, total as u64))
}

/// One customer.
pub fn get_customer(conn: &Connection, id: &str) -> Result<Option<CustomerDto>> {
    let sql = format!("SELECT {CUSTOMER_COLUMNS} FROM customers WHERE id = ?1");
    Ok(conn.query_row(&sql, [id], customer_from_row).optional().sql()?)
}

/// The customers with an order or a subscription changed at `since` or after, and after the
/// customer was last read.
pub fn customers_touched_since(conn: &Connection, since: &str) -> Result<Vec<String>> {
    let mut stmt = conn
        .prepare_cached(
            "SELECT o.customer_id FROM orders o LEFT JOIN customers c ON c.id = o.customer_id
             WHERE o.provider_updated_at >= ?1 AND o.customer_id IS NOT NULL AND o.customer_id <> ''
               AND (c.id IS NULL OR c.updated_at < o.provider_updated_at)
             UNION
             SELECT s.customer_id FROM subscriptions s LEFT JOIN customers c ON c.id = s.customer_id
             WHERE s.updated_at >= ?1 AND s.customer_id <> '' AND (c.id IS NULL OR c.updated_at < s.updated_at)",
        )
        .sql()?;
    let ids = stmt.query_map([since], |row| row.get(0)).sql()?.collect::<rusqlite::Result<Vec<String>>>().sql()?;
    Ok(ids)
}

#[async_trait::async_trait]
impl CustomerStore for Sqlite {
    async fn upsert_customers(&self, customers: Vec<CustomerDto>, now: String) -> Result<()> {
        self.write(move |conn| upsert_customers(conn, &customers, &now)).await
    }

    async fn list_customers(&self, query: CustomerQuery) -> Result<(Vec<CustomerDto>, u64)> {
        self.call(move |conn| list_customers(conn, &query)).await
    }

    async fn customer(&self, id: String) -> Result<Option<CustomerDto>> {
        self.call(move |conn| get_customer(conn, &id)).await
    }

    async fn customers_touched_since(&self, since: String) -> Result<Vec<String>> {
        self.call(move |conn| customers_touched_since(conn, &since)).await
    }
}
