//! PostgreSQL's SQL of the store's customers.

use crate::filter::Where;
use crate::Sql as _;
use deadpool_postgres::GenericClient;
use tokio_postgres::Row;

use super::Postgres;
use staffroom_core::error::Result;
use staffroom_core::payments::model::CustomerDto;
use staffroom_core::payments::store::{CustomerQuery, CustomerStore};

const CUSTOMER_COLUMNS: &str = "id, name, email, status, country, total_revenue, mrr, created_at, updated_at";

fn customer_of(row: &Row) -> CustomerDto {
    CustomerDto {
        id: row.get(0),
        name: row.get(1),
        email: row.get(2),
        status: row.get(3),
        country: row.get(4),
        total_revenue: row.get(5),
        mrr: row.get(6),
        created_at: row.get(7),
        updated_at: row.get(8),
        currency: "USD".into(),
        portal_url: None,
    }
}

/// Writes customers; one kept newer than what was read stays as it is.
pub async fn upsert_customers(db: &mut deadpool_postgres::Object, customers: &[CustomerDto], now: &str) -> Result<()> {
    let tx = db.transaction().await.sql()?;
    let upsert = tx
        .prepare_cached(
            "INSERT INTO customers (id, name, email, status, country, total_revenue, mrr, created_at, updated_at, synced_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
             ON CONFLICT (id) DO UPDATE SET name = $2, email = $3, status = $4, country = $5, total_revenue = $6,
                    mrr = $7, created_at = $8, updated_at = $9, synced_at = $10
             WHERE customers.updated_at <= $9",
        )
        .await
        .sql()?;
    for c in customers {
        tx.execute(
            &upsert,
            &[
                &c.id,
                &c.name,
                &c.email,
                &c.status,
                &c.country,
                &c.total_revenue,
                &c.mrr,
                &c.created_at,
                &c.updated_at,
                &now,
            ],
        )
        .await
        .sql()?;
    }
    tx.commit().await.sql()?;
    Ok(())
}

/// A page of customers, newest first (ids in byte order, as SQLite compares them).
pub async fn list_customers(db: &impl GenericClient, query: &CustomerQuery) -> Result<(Vec<CustomerDto>, u64)> {
    let mut w = Where::default();
    w.and_if("(email ILIKE ? OR name ILIKE ?)", query.search.clone());
    w.and_if("status = ?", query.status.map(|s| s.as_str().to_string()));
    let filter = w.sql();
    let mut values = w.values();
    // Planned afresh each time, as the orders' list is (see `payments::list_orders`).
    let total: i64 =
        db.query_one(&format!("SELECT COUNT(*) FROM customers WHERE {filter}"), &values).await.sql()?.get(0);
    let (limit, offset) = (i64::from(query.limit), (i64::from(query.page) - 1) * i64::from(query.limit));
    values.extend([&limit as &(dyn tokio_postgres::types::ToSql + Sync), &offset]);
    let (limit_at, offset_at) = (w.count() + 1, w.count() + 2);
    let page = format!(
        "SELECT {CUSTOMER_COLUMNS} FROM customers WHERE {filter}
         ORDER BY created_at DESC, id COLLATE \"C\" DESC LIMIT ${limit_at} OFFSET ${offset_at}"
    );
    let rows = db.query(&page, &values).await.sql()?;
    Ok((rows.iter().map(customer_of).collect(), total as u64))
}

/// One customer.
pub async fn get_customer(db: &impl GenericClient, id: &str) -> Result<Option<CustomerDto>> {
    let sql = db.prepare_cached(&format!("SELECT {CUSTOMER_COLUMNS} FROM customers WHERE id = $1")).await.sql()?;
    Ok(db.query_opt(&sql, &[&id]).await.sql()?.as_ref().map(customer_of))
}

/// The customers with an order or a subscription changed at `since` or after, and after the
/// customer was last read.
pub async fn customers_touched_since(db: &impl GenericClient, since: &str) -> Result<Vec<String>> {
    let sql = db
        .prepare_cached(
            "SELECT o.customer_id FROM orders o LEFT JOIN customers c ON c.id = o.customer_id
             WHERE o.provider_updated_at >= $1 AND o.customer_id IS NOT NULL AND o.customer_id <> ''
               AND (c.id IS NULL OR c.updated_at < o.provider_updated_at)
             UNION
             SELECT s.customer_id FROM subscriptions s LEFT JOIN customers c ON c.id = s.customer_id
             WHERE s.updated_at >= $1 AND s.customer_id <> '' AND (c.id IS NULL OR c.updated_at < s.updated_at)",
        )
        .await
        .sql()?;
    Ok(db.query(&sql, &[&since]).await.sql()?.iter().map(|row| row.get(0)).collect())
}

#[async_trait::async_trait]
impl CustomerStore for Postgres {
    async fn upsert_customers(&self, customers: Vec<CustomerDto>, now: String) -> Result<()> {
        upsert_customers(&mut self.client().await?, &customers, &now).await
    }

    async fn list_customers(&self, query: CustomerQuery) -> Result<(Vec<CustomerDto>, u64)> {
        list_customers(&self.client().await?, &query).await
    }

    async fn customer(&self, id: String) -> Result<Option<CustomerDto>> {
        get_customer(&self.client().await?, &id).await
    }

    async fn customers_touched_since(&self, since: String) -> Result<Vec<String>> {
        customers_touched_since(&self.client().await?, &since).await
    }
}
