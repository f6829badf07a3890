//! SQLite's SQL of the store's licence keys.

use crate::Sql as _;
use rusqlite::{params, Connection, OptionalExtension, Row, ToSql};

use super::Sqlite;
use staffroom_core::error::Result;
use staffroom_core::payments::model::LicenseKeyDto;
use staffroom_core::payments::store::{LicenseKeyQuery, LicenseKeyStore};

/// A key with our order's id and the product's name, when they are cached.
const KEY_FROM: &str = "SELECT k.id, k.key_short, k.status, k.activation_limit, k.activation_usage, k.expires_at, o.id,
        k.provider_order_id, k.customer_id, k.user_name, k.user_email, k.product_id, p.name, k.created_at, k.updated_at,
        k.disabled
     FROM license_keys k
     LEFT JOIN orders o ON o.provider_order_id = k.provider_order_id
     LEFT JOIN products p ON p.id = k.product_id";

fn key_from_row(row: &Row<'_>) -> rusqlite::Result<LicenseKeyDto> {
    Ok(LicenseKeyDto {
        id: row.get(0)?,
        key_short: row.get(1)?,
        status: row.get(2)?,
        activation_limit: row.get(3)?,
        activation_usage: row.get(4)?,
        expires_at: row.get(5)?,
        order_id: row.get(6)?,
        provider_order_id: row.get(7)?,
        customer_id: row.get(8)?,
        customer_name: row.get(9)?,
        customer_email: row.get(10)?,
        product_id: row.get(11)?,
        product_name: row.get(12)?,
        created_at: row.get(13)?,
        updated_at: row.get(14)?,
        disabled: row.get(15)?,
    })
}

/// Writes one key, inside the caller's transaction; one kept newer stays as it is. Whether it
/// was written.
pub fn upsert_license_key(conn: &Connection, k: &LicenseKeyDto, now: &str) -> Result<bool> {
    let written = conn
        .prepare_cached(
        "INSERT INTO license_keys (id, key_short, status, activation_limit, activation_usage, expires_at, provider_order_id,
                                   customer_id, user_name, user_email, product_id, created_at, updated_at, synced_at, disabled)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)
         ON CONFLICT(id) DO UPDATE SET key_short = ?2, status = ?3, activation_limit = ?4, activation_usage = ?5,
                expires_at = ?6, provider_order_id = ?7, customer_id = ?8, user_name = ?9, user_email = ?10,
                product_id = ?11, created_at = ?12, updated_at = ?13, synced_at = ?14, disabled = ?15
         WHERE license_keys.updated_at <= ?13",
    )
    .sql()?
    .execute(params![
        k.id,
        k.key_short,
        k.status,
        k.activation_limit,
        k.activation_usage,
        k.expires_at,
        k.provider_order_id,
        k.customer_id,
        k.customer_name,
        k.customer_email,
        k.product_id,
        k.created_at,
        k.updated_at,
        now,
        k.disabled
    ])
    .sql()?;
    Ok(written > 0)
}

/// A page of keys, newest first, and how many match (only the conditions asked for are in the
/// SQL, as the orders' list does).
pub fn list_license_keys(conn: &Connection, query: &LicenseKeyQuery) -> Result<(Vec<LicenseKeyDto>, u64)> {
    let mut conditions = Vec::new();
    let mut values: Vec<&dyn ToSql> = Vec::new();
    if let Some(order) = &query.order_id {
        values.push(order);
        conditions.push(format!("o.id = ?{}", values.len()));
    }
    if let Some(customer) = &query.customer_id {
        values.push(customer);
        conditions.push(format!("k.customer_id = ?{}", values.len()));
    }
    if let Some(status) = &query.status {
        values.push(status);
        let s = values.len();
        // A key disabled by hand is disabled, whatever status the provider also reports.
        if status == "disabled" {
            conditions.push(format!("(k.status = ?{s} OR k.disabled)"));
        } else {
            values.push(&query.now);
            let now = values.len();
            conditions.push(match status.as_str() {
                "expired" => format!(
                    "NOT k.disabled AND (k.status = ?{s} OR (k.status IN ('active', 'inactive') AND k.expires_at <= ?{now}))"
                ),
                _ => format!("NOT k.disabled AND k.status = ?{s} AND (k.expires_at IS NULL OR k.expires_at > ?{now})"),
            });
        }
    }
    if let Some((email, key)) = &query.search {
        values.push(email);
        values.push(key);
        let (e, k) = (values.len() - 1, values.len());
        conditions.push(format!("(k.user_email LIKE ?{e} ESCAPE '\\' OR k.key_short LIKE ?{k} ESCAPE '\\')"));
    }
    let filter = if conditions.is_empty() { "TRUE".to_string() } else { conditions.join(" AND ") };
    let count_sql = format!(
        "SELECT COUNT(*) FROM license_keys k LEFT JOIN orders o ON o.provider_order_id = k.provider_order_id WHERE {filter}"
    );
    let total: i64 = conn.prepare_cached(&count_sql).sql()?.query_row(&values[..], |r| r.get(0)).sql()?;
    let (limit, offset) = (i64::from(query.limit), (i64::from(query.page) - 1) * i64::from(query.limit));
    let n = values.len();
    values.push(&limit);
    values.push(&offset);
    let sql =
        format!("{KEY_FROM} WHERE {filter} ORDER BY k.created_at DESC, k.id DESC LIMIT ?{} OFFSET ?{}", n + 1, n + 2);
    let mut stmt = conn.prepare_cached(&sql).sql()?;
    let rows = stmt.query_map(&values[..], key_from_row).sql()?.collect::<rusqlite::Result<Vec<_>>>().sql()?;
    Ok((rows, total as u64))
}

/// One key.
pub fn get_license_key(conn: &Connection, id: &str) -> Result<Option<LicenseKeyDto>> {
    let sql = format!("{KEY_FROM} WHERE k.id = ?1");
    Ok(conn.query_row(&sql, [id], key_from_row).optional().sql()?)
}

#[async_trait::async_trait]
impl LicenseKeyStore for Sqlite {
    async fn upsert_license_keys(&self, keys: Vec<LicenseKeyDto>, now: String) -> Result<()> {
        self.write(move |conn| {
            let tx = conn.transaction().sql()?;
            for key in &keys {
                upsert_license_key(&tx, key, &now)?;
            }
            tx.commit().sql()?;
            Ok(())
        })
        .await
    }

    async fn list_license_keys(&self, query: LicenseKeyQuery) -> Result<(Vec<LicenseKeyDto>, u64)> {
        self.call(move |conn| list_license_keys(conn, &query)).await
    }

    async fn license_key(&self, id: String) -> Result<Option<LicenseKeyDto>> {
        self.call(move |conn| get_license_key(conn, &id)).await
    }
}
