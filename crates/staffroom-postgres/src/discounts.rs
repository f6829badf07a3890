//! PostgreSQL's SQL of the store's discounts and their redemptions.

use crate::filter::Where;
use crate::Sql as _;
use deadpool_postgres::GenericClient;
use tokio_postgres::Row;

use super::Postgres;
use staffroom_core::error::Result;
use staffroom_core::payments::model::{DiscountDto, DiscountRedemptionDto};
use staffroom_core::payments::store::{DiscountQuery, DiscountStore};

/// How many of a discount's latest redemptions it is shown with.
const LATEST: i64 = 20;

const DISCOUNT_FROM: &str = "SELECT d.id, d.name, d.code, d.amount, d.amount_type, d.duration, d.duration_in_months,
        d.starts_at, d.expires_at, d.max_redemptions, d.variant_ids, d.status, d.created_at, d.updated_at,
        (SELECT COUNT(*) FROM discount_redemptions r WHERE r.discount_id = d.id)
     FROM discounts d";

fn discount_of(row: &Row) -> DiscountDto {
    let variant_ids: String = row.get(10);
    DiscountDto {
        id: row.get(0),
        name: row.get(1),
        code: row.get(2),
        amount: row.get(3),
        amount_type: row.get(4),
        duration: row.get(5),
        duration_in_months: row.get(6),
        starts_at: row.get(7),
        expires_at: row.get(8),
        max_redemptions: row.get(9),
        variant_ids: serde_json::from_str(&variant_ids).unwrap_or_default(),
        status: row.get(11),
        created_at: row.get(12),
        updated_at: row.get(13),
        redemption_count: row.get::<_, i64>(14) as u64,
        redemptions: Vec::new(),
    }
}

async fn upsert_discount(db: &impl GenericClient, d: &DiscountDto, now: &str) -> Result<()> {
    let variant_ids = serde_json::to_string(&d.variant_ids).expect("strings serialize");
    let upsert = db
        .prepare_cached(
            "INSERT INTO discounts (id, name, code, amount, amount_type, duration, duration_in_months, starts_at,
                                    expires_at, max_redemptions, variant_ids, status, created_at, updated_at, synced_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
             ON CONFLICT (id) DO UPDATE SET name = $2, code = $3, amount = $4, amount_type = $5, duration = $6,
                    duration_in_months = $7, starts_at = $8, expires_at = $9, max_redemptions = $10,
                    variant_ids = $11, status = $12, created_at = $13, updated_at = $14, synced_at = $15",
        )
        .await
        .sql()?;
    db.execute(
        &upsert,
        &[
            &d.id,
            &d.name,
            &d.code,
            &d.amount,
            &d.amount_type,
            &d.duration,
            &d.duration_in_months,
            &d.starts_at,
            &d.expires_at,
            &d.max_redemptions,
            &variant_ids,
            &d.status,
            &d.created_at,
            &d.updated_at,
            &now,
        ],
    )
    .await
    .sql()?;
    Ok(())
}

/// The latest redemptions of each of `discounts`, with our order's id, number and buyer.
async fn attach_redemptions(db: &impl GenericClient, discounts: &mut [DiscountDto]) -> Result<()> {
    let select = db
        .prepare_cached(
            "SELECT r.id, r.discount_id, r.provider_order_id, o.id, o.order_number, o.email, r.amount, o.currency,
                    r.created_at
             FROM discount_redemptions r
             LEFT JOIN orders o ON o.provider_order_id = r.provider_order_id
             WHERE r.discount_id = $1
             ORDER BY r.created_at DESC, r.id COLLATE \"C\" DESC LIMIT $2",
        )
        .await
        .sql()?;
    for discount in discounts {
        let rows = db.query(&select, &[&discount.id, &LATEST]).await.sql()?;
        discount.redemptions = rows
            .iter()
            .map(|row| DiscountRedemptionDto {
                id: row.get(0),
                discount_id: row.get(1),
                provider_order_id: row.get(2),
                order_id: row.get(3),
                order_number: row.get(4),
                customer_email: row.get(5),
                amount: row.get(6),
                currency: row.get(7),
                created_at: row.get(8),
            })
            .collect();
    }
    Ok(())
}

async fn list_discounts(db: &impl GenericClient, query: &DiscountQuery) -> Result<(Vec<DiscountDto>, u64)> {
    let mut w = Where::default();
    if let Some(pattern) = query.search.clone() {
        let code = w.bind("d.code ILIKE ?", pattern.clone());
        let name = w.bind("d.name ILIKE ?", pattern);
        w.and(format!("({code} OR {name})"));
    }
    let filter = w.sql();
    let mut values = w.values();
    let total: i64 =
        db.query_one(&format!("SELECT COUNT(*) FROM discounts d WHERE {filter}"), &values).await.sql()?.get(0);
    let (limit, offset) = (i64::from(query.limit), (i64::from(query.page) - 1) * i64::from(query.limit));
    values.extend([&limit as &(dyn tokio_postgres::types::ToSql + Sync), &offset]);
    let page = format!(
        "{DISCOUNT_FROM} WHERE {filter} ORDER BY d.created_at DESC, d.id COLLATE \"C\" DESC LIMIT ${} OFFSET ${}",
        w.count() + 1,
        w.count() + 2
    );
    let mut rows: Vec<DiscountDto> = db.query(&page, &values).await.sql()?.iter().map(discount_of).collect();
    attach_redemptions(db, &mut rows).await?;
    Ok((rows, total as u64))
}

#[async_trait::async_trait]
impl DiscountStore for Postgres {
    async fn replace_discounts(&self, discounts: Vec<DiscountDto>, started: String, now: String) -> Result<()> {
        let mut db = self.client().await?;
        let tx = db.transaction().await.sql()?;
        tx.execute("DELETE FROM discounts WHERE synced_at < $1", &[&started]).await.sql()?;
        for discount in &discounts {
            upsert_discount(&tx, discount, &now).await?;
        }
        tx.commit().await.sql()?;
        Ok(())
    }

    async fn upsert_discount(&self, discount: DiscountDto, now: String) -> Result<()> {
        upsert_discount(&self.client().await?, &discount, &now).await
    }

    async fn delete_discount(&self, id: String) -> Result<()> {
        self.client().await?.execute("DELETE FROM discounts WHERE id = $1", &[&id]).await.sql()?;
        Ok(())
    }

    async fn insert_redemptions(&self, redemptions: Vec<DiscountRedemptionDto>) -> Result<()> {
        let mut db = self.client().await?;
        let tx = db.transaction().await.sql()?;
        let insert = tx
            .prepare_cached(
                "INSERT INTO discount_redemptions (id, discount_id, provider_order_id, amount, created_at)
                 VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING",
            )
            .await
            .sql()?;
        for r in &redemptions {
            tx.execute(&insert, &[&r.id, &r.discount_id, &r.provider_order_id, &r.amount, &r.created_at])
                .await
                .sql()?;
        }
        tx.commit().await.sql()?;
        Ok(())
    }

    async fn list_discounts(&self, query: DiscountQuery) -> Result<(Vec<DiscountDto>, u64)> {
        list_discounts(&self.client().await?, &query).await
    }

    async fn discount(&self, id: String) -> Result<Option<DiscountDto>> {
        let db = self.client().await?;
        let select = db.prepare_cached(&format!("{DISCOUNT_FROM} WHERE d.id = $1")).await.sql()?;
        let Some(mut found) = db.query_opt(&select, &[&id]).await.sql()?.as_ref().map(discount_of) else {
            return Ok(None);
        };
        attach_redemptions(&db, std::slice::from_mut(&mut found)).await?;
        Ok(Some(found))
    }
}
