//! PostgreSQL's SQL of the store's licence keys.

use crate::filter::Where;
use crate::Sql as _;
use deadpool_postgres::GenericClient;
use tokio_postgres::Row;

use super::Postgres;
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

fn key_of(row: &Row) -> LicenseKeyDto {
    LicenseKeyDto {
        id: row.get(0),
        key_short: row.get(1),
        status: row.get(2),
        activation_limit: row.get(3),
        activation_usage: row.get(4),
        expires_at: row.get(5),
        order_id: row.get(6),
        provider_order_id: row.get(7),
        customer_id: row.get(8),
        customer_name: row.get(9),
        customer_email: row.get(10),
        product_id: row.get(11),
        product_name: row.get(12),
        created_at: row.get(13),
        updated_at: row.get(14),
        disabled: row.get(15),
    }
}

/// Writes one key, inside the caller's transaction; one kept newer stays as it is. Whether it
/// was written.
pub async fn upsert_license_key(db: &impl GenericClient, k: &LicenseKeyDto, now: &str) -> Result<bool> {
    let upsert = db
        .prepare_cached(
            "INSERT INTO license_keys (id, key_short, status, activation_limit, activation_usage, expires_at,
                                       provider_order_id, customer_id, user_name, user_email, product_id, created_at,
                                       updated_at, synced_at, disabled)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
             ON CONFLICT (id) DO UPDATE SET key_short = $2, status = $3, activation_limit = $4, activation_usage = $5,
                    expires_at = $6, provider_order_id = $7, customer_id = $8, user_name = $9, user_email = $10,
                    product_id = $11, created_at = $12, updated_at = $13, synced_at = $14, disabled = $15
             WHERE license_keys.updated_at <= $13",
        )
        .await
        .sql()?;
    let written = db
        .execute(
            &upsert,
            &[
                &k.id,
                &k.key_short,
                &k.status,
                &k.activation_limit,
                &k.activation_usage,
                &k.expires_at,
                &k.provider_order_id,
                &k.customer_id,
                &k.customer_name,
                &k.customer_email,
                &k.product_id,
                &k.created_at,
                &k.updated_at,
                &now,
                &k.disabled,
            ],
        )
        .await
        .sql()?;
    Ok(written > 0)
}

/// A page of keys, newest first (ids in byte order, as SQLite compares them), and how many match.
pub async fn list_license_keys(db: &impl GenericClient, query: &LicenseKeyQuery) -> Result<(Vec<LicenseKeyDto>, u64)> {
    let mut w = Where::default();
    w.and_if("o.id = ?", query.order_id.clone());
    w.and_if("k.customer_id = ?", query.customer_id.clone());
    // A key disabled by hand is disabled, whatever status the provider also reports.
    match query.status.as_deref() {
        Some("disabled") => {
            let stored = w.bind("k.status = ?", "disabled".to_string());
            w.and(format!("({stored} OR k.disabled)"));
        }
        Some("expired") => {
            let stored = w.bind("k.status = ?", "expired".to_string());
            let passed = w.bind("k.expires_at <= ?", query.now.clone());
            w.and(format!("NOT k.disabled AND ({stored} OR (k.status IN ('active', 'inactive') AND {passed}))"));
        }
        Some(status) => {
            let stored = w.bind("k.status = ?", status.to_string());
            let passed = w.bind("k.expires_at > ?", query.now.clone());
            w.and(format!("NOT k.disabled AND {stored} AND (k.expires_at IS NULL OR {passed})"));
        }
        None => {}
    }
    if let Some((email, key)) = query.search.clone() {
        let email = w.bind("k.user_email ILIKE ?", email);
        let key = w.bind("k.key_short ILIKE ?", key);
        w.and(format!("({email} OR {key})"));
    }
    let filter = w.sql();
    let mut values = w.values();
    let count = format!(
        "SELECT COUNT(*) FROM license_keys k LEFT JOIN orders o ON o.provider_order_id = k.provider_order_id WHERE {filter}"
    );
    let total: i64 = db.query_one(&count, &values).await.sql()?.get(0);
    let (limit, offset) = (i64::from(query.limit), (i64::from(query.page) - 1) * i64::from(query.limit));
    values.extend([&limit as &(dyn tokio_postgres::types::ToSql + Sync), &offset]);
    let page = format!(
        "{KEY_FROM} WHERE {filter} ORDER BY k.created_at DESC, k.id COLLATE \"C\" DESC LIMIT ${} OFFSET ${}",
        w.count() + 1,
        w.count() + 2
    );
    let rows = db.query(&page, &values).await.sql()?;
    Ok((rows.iter().map(key_of).collect(), total as u64))
}

/// One key.
pub async fn get_license_key(db: &impl GenericClient, id: &str) -> Result<Option<LicenseKeyDto>> {
    let sql = db.prepare_cached(&format!("{KEY_FROM} WHERE k.id = $1")).await.sql()?;
    Ok(db.query_opt(&sql, &[&id]).await.sql()?.as_ref().map(key_of))
}

#[async_trait::async_trait]
impl LicenseKeyStore for Postgres {
    async fn upsert_license_keys(&self, keys: Vec<LicenseKeyDto>, now: String) -> Result<()> {
        let mut db = self.client().await?;
        let tx = db.transaction().await.sql()?;
        for key in &keys {
            upsert_license_key(&tx, key, &now).await?;
        }
        tx.commit().await.sql()?;
        Ok(())
    }

    async fn list_license_keys(&self, query: LicenseKeyQuery) -> Result<(Vec<LicenseKeyDto>, u64)> {
        list_license_keys(&self.client().await?, &query).await
    }

    async fn license_key(&self, id: String) -> Result<Option<LicenseKeyDto>> {
        get_license_key(&self.client().await?, &id).await
    }
}
