//! SQLite's SQL of the store's discounts and their redemptions.

use crate::Sql as _;
use rusqlite::{params, Connection, OptionalExtension, Row, ToSql};

use super::Sqlite;
use staffroom_core::error::Result;
use staffroom_core::payments::model::{DiscountDto, DiscountRedemptionDto};
use staffroom_core::payments::store::{DiscountQuery, DiscountStore};

/// How many of a discount's latest redemptions it is shown with.
const LATEST: i64 = 20;

const DISCOUNT_FROM: &str = "SELECT d.id, d.name, d.code, d.amount, d.amount_type, d.duration, d.duration_in_months,
        d.starts_at, d.expires_at, d.max_redemptions, d.variant_ids, d.status, d.created_at, d.updated_at,
        (SELECT COUNT(*) FROM discount_redemptions r WHERE r.discount_id = d.id)
     FROM discounts d";

fn discount_from_row(row: &Row<'_>) -> rusqlite::Result<DiscountDto> {
    let variant_ids: String = row.get(10)?;
    Ok(DiscountDto {
        id: row.get(0)?,
        name: row.get(1)?,
        code: row.get(2)?,
        amount: row.get(3)?,
        amount_type: row.get(4)?,
        duration: row.get(5)?,
        duration_in_months: row.get(6)?,
        starts_at: row.get(7)?,
        expires_at: row.get(8)?,
        max_redemptions: row.get(9)?,
        variant_ids: serde_json::from_str(&variant_ids).unwrap_or_default(),
        status: row.get(11)?,
        created_at: row.get(12)?,
        updated_at: row.get(13)?,
        redemption_count: row.get::<_, i64>(14)? as u64,
        redemptions: Vec::new(),
    })
}

fn upsert_discount(conn: &Connection, d: &DiscountDto, now: &str) -> Result<()> {
    let variant_ids = serde_json::to_string(&d.variant_ids).expect("strings serialize");
    conn.prepare_cached(
        "INSERT INTO discounts (id, name, code, amount, amount_type, duration, duration_in_months, starts_at, expires_at,
                                max_redemptions, variant_ids, status, created_at, updated_at, synced_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)
         ON CONFLICT(id) DO UPDATE SET name = ?2, code = ?3, amount = ?4, amount_type = ?5, duration = ?6,
                duration_in_months = ?7, starts_at = ?8, expires_at = ?9, max_redemptions = ?10, variant_ids = ?11,
                status = ?12, created_at = ?13, updated_at = ?14, synced_at = ?15",
    )
    .sql()?
    .execute(params![
        d.id,
        d.name,
        d.code,
        d.amount,
        d.amount_type,
        d.duration,
        d.duration_in_months,
        d.starts_at,
        d.expires_at,
        d.max_redemptions,
        variant_ids,
        d.status,
        d.created_at,
        d.updated_at,
        now
    ])
    .sql()?;
    Ok(())
}

/// The latest redemptions of each of `discounts`, with our order's id, number and buyer.
fn attach_redemptions(conn: &Connection, discounts: &mut [DiscountDto]) -> Result<()> {
    let mut stmt = conn
        .prepare_cached(
            "SELECT r.id, r.discount_id, r.provider_order_id, o.id, o.order_number, o.email, r.amount, o.currency, r.created_at
             FROM discount_redemptions r
             LEFT JOIN orders o ON o.provider_order_id = r.provider_order_id
             WHERE r.discount_id = ?1
             ORDER BY r.created_at DESC, r.id DESC LIMIT ?2",
        )
        .sql()?;
    for discount in discounts {
        discount.redemptions = stmt
            .query_map(params![discount.id, LATEST], |row| {
                Ok(DiscountRedemptionDto {
                    id: row.get(0)?,
                    discount_id: row.get(1)?,
                    provider_order_id: row.get(2)?,
                    order_id: row.get(3)?,
                    order_number: row.get(4)?,
                    customer_email: row.get(5)?,
                    amount: row.get(6)?,
                    currency: row.get(7)?,
                    created_at: row.get(8)?,
                })
            })
            .sql()?
            .collect::<rusqlite::Result<Vec<_>>>()
            .sql()?;
    }
    Ok(())
}

fn list_discounts(conn: &Connection, query: &DiscountQuery) -> Result<(Vec<DiscountDto>, u64)> {
    let mut values: Vec<&dyn ToSql> = Vec::new();
    let filter = match &query.search {
        Some(pattern) => {
            values.push(pattern);
            "d.code LIKE ?1 ESCAPE '\\' OR d.name LIKE ?1 ESCAPE '\\'"
        }
        None => "TRUE",
    };
    let count_sql = format!("SELECT COUNT(*) FROM discounts d WHERE {filter}");
    let total: i64 = conn.prepare_cached(&count_sql).sql()?.query_row(&values[..], |r| r.get(0)).sql()?;
    let (limit, offset) = (i64::from(query.limit), (i64::from(query.page) - 1) * i64::from(query.limit));
    let n = values.len();
    values.push(&limit);
    values.push(&offset);
    let sql = format!(
        "{DISCOUNT_FROM} WHERE {filter} ORDER BY d.created_at DESC, d.id DESC LIMIT ?{} OFFSET ?{}",
        n + 1,
        n + 2
    );
    let mut stmt = conn.prepare_cached(&sql).sql()?;
    let mut rows = stmt.query_map(&values[..], discount_from_row).sql()?.collect::<rusqlite::Result<Vec<_>>>().sql()?;
    attach_redemptions(conn, &mut rows)?;
    Ok((rows, total as u64))
}

#[async_trait::async_trait]
impl DiscountStore for Sqlite {
    async fn replace_discounts(&self, discounts: Vec<DiscountDto>, started: String, now: String) -> Result<()> {
        self.write(move |conn| {
            let tx = conn.transaction().sql()?;
            tx.execute("DELETE FROM discounts WHERE synced_at < ?1", [&started]).sql()?;
            for discount in &discounts {
                upsert_discount(&tx, discount, &now)?;
            }
            tx.commit().sql()?;
            Ok(())
        })
        .await
    }

    async fn upsert_discount(&self, discount: DiscountDto, now: String) -> Result<()> {
        self.write(move |conn| upsert_discount(conn, &discount, &now)).await
    }

    async fn delete_discount(&self, id: String) -> Result<()> {
        self.write(move |conn| conn.execute("DELETE FROM discounts WHERE id = ?1", [id]).sql().map(|_| ())).await
    }

    async fn insert_redemptions(&self, redemptions: Vec<DiscountRedemptionDto>) -> Result<()> {
        self.write(move |conn| {
            let tx = conn.transaction().sql()?;
            {
                let mut stmt = tx
                    .prepare_cached(
                        "INSERT INTO discount_redemptions (id, discount_id, provider_order_id, amount, created_at)
                         VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT(id) DO NOTHING",
                    )
                    .sql()?;
                for r in &redemptions {
                    stmt.execute(params![r.id, r.discount_id, r.provider_order_id, r.amount, r.created_at]).sql()?;
                }
            }
            tx.commit().sql()?;
            Ok(())
        })
        .await
    }

    async fn list_discounts(&self, query: DiscountQuery) -> Result<(Vec<DiscountDto>, u64)> {
        self.call(move |conn| list_discounts(conn, &query)).await
    }

    async fn discount(&self, id: String) -> Result<Option<DiscountDto>> {
        self.call(move |conn| {
            let sql = format!("{DISCOUNT_FROM} WHERE d.id = ?1");
            let Some(mut found) = conn.query_row(&sql, [&id], discount_from_row).optional().sql()? else {
                return Ok(None);
            };
            attach_redemptions(conn, std::slice::from_mut(&mut found))?;
            Ok(Some(found))
        })
        .await
    }
}
