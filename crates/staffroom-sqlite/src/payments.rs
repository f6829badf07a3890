//! SQLite's SQL of the payment cache (products, subscriptions, the sync state) and the orders.

use crate::filter::Where;
use crate::Sql as _;
use rusqlite::{params, Connection, OptionalExtension, Row};

use super::Sqlite;
use staffroom_core::error::Result;
use staffroom_core::payments::model::{format_money, OrderDto, OrderSource, ProductDto, SubscriptionDto, VariantDto};
use staffroom_core::payments::store::{
    items_from_json, items_to_json, order_label, subtotal_of, CheckoutTerms, DaySales, OrderQuery, OrderRecord,
    PaymentStore, SalesSpan, SubscriptionFigures, SubscriptionQuery, SyncState,
};

// ---- products -------------------------------------------------------------------------------

fn product_from_row(row: &Row<'_>) -> rusqlite::Result<ProductDto> {
    let price: i64 = row.get(3)?;
    let currency: String = row.get(4)?;
    Ok(ProductDto {
        id: row.get(0)?,
        name: row.get(1)?,
        slug: row.get(2)?,
        price,
        price_formatted: format_money(price, &currency),
        currency,
        status: crate::get_enum(row, 5)?,
        created_at: row.get(6)?,
        updated_at: row.get(7)?,
        variants: None,
    })
}

const PRODUCT_COLUMNS: &str = "id, name, slug, price, currency, status, created_at, updated_at";

/// Replaces the cached catalogue with a complete one from the provider.
pub fn replace_products(
    conn: &mut Connection,
    products: &[ProductDto],
    variants: &[(String, VariantDto, i64)],
    now: &str,
) -> Result<()> {
    let tx = conn.transaction().sql()?;
    tx.execute("DELETE FROM variants", []).sql()?;
    tx.execute("DELETE FROM products", []).sql()?;
    {
        let mut insert = tx
            .prepare(
                "INSERT INTO products (id, name, slug, price, currency, status, created_at, updated_at, synced_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )
            .sql()?;
        for p in products {
            insert
                .execute(params![
                    p.id,
                    p.name,
                    p.slug,
                    p.price,
                    p.currency,
                    p.status.as_str(),
                    p.created_at,
                    p.updated_at,
                    now
                ])
                .sql()?;
        }
        let mut insert = tx.prepare(
            "INSERT INTO variants (id, product_id, name, price, status, is_subscription, sort, billing_interval, interval_count)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        ).sql()?;
        for (product_id, v, sort) in variants {
            insert
                .execute(params![
                    v.id,
                    product_id,
                    v.name,
                    v.price,
                    v.status,
                    v.is_subscription as i64,
                    sort,
                    v.interval,
                    v.interval_count
                ])
                .sql()?;
        }
    }
    tx.commit().sql()?;
    Ok(())
}

/// Upserts one product with its variants (from a detail fetch).
pub fn upsert_product(conn: &mut Connection, product: &ProductDto, now: &str) -> Result<()> {
    let tx = conn.transaction().sql()?;
    tx.execute(
        "INSERT INTO products (id, name, slug, price, currency, status, created_at, updated_at, synced_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
         ON CONFLICT(id) DO UPDATE SET name=?2, slug=?3, price=?4, currency=?5, status=?6, created_at=?7, updated_at=?8, synced_at=?9",
        params![product.id, product.name, product.slug, product.price, product.currency, product.status.as_str(), product.created_at, product.updated_at, now],
    ).sql()?;
    if let Some(variants) = &product.variants {
        tx.execute("DELETE FROM variants WHERE product_id = ?1", [&product.id]).sql()?;
        for (sort, v) in variants.iter().enumerate() {
            tx.execute(
                "INSERT INTO variants (id, product_id, name, price, status, is_subscription, sort, billing_interval, interval_count)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
                 ON CONFLICT(id) DO UPDATE SET product_id=?2, name=?3, price=?4, status=?5, is_subscription=?6, sort=?7,
                    billing_interval=?8, interval_count=?9",
                params![v.id, product.id, v.name, v.price, v.status, v.is_subscription as i64, sort as i64, v.interval, v.interval_count],
            ).sql()?;
        }
    }
    tx.commit().sql()?;
    Ok(())
}

/// A page of cached products (by name), and how many match.
pub fn list_products(
    conn: &Connection,
    status: Option<&str>,
    search: Option<&str>,
    page: u32,
    limit: u32,
) -> Result<(Vec<ProductDto>, u64)> {
    // The search is a literal substring of the name: LIKE's wildcards in it are escaped.
    let pattern = search.map(|s| format!("%{}%", s.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_")));
    const FILTER: &str = "(?1 IS NULL OR status = ?1) AND (?2 IS NULL OR name LIKE ?2 ESCAPE '\\')";
    let total: i64 = conn
        .query_row(&format!("SELECT COUNT(*) FROM products WHERE {FILTER}"), params![status, pattern], |r| r.get(0))
        .sql()?;
    let mut stmt = conn
        .prepare(&format!("SELECT {PRODUCT_COLUMNS} FROM products WHERE {FILTER} ORDER BY name, id LIMIT ?3 OFFSET ?4"))
        .sql()?;
    let offset = (page as i64 - 1) * limit as i64;
    let rows = stmt
        .query_map(params![status, pattern, limit, offset], product_from_row)
        .sql()?
        .collect::<rusqlite::Result<Vec<_>>>()
        .sql()?;
    Ok((rows, total as u64))
}

/// One cached product with its variants.
pub fn get_product(conn: &Connection, id: &str) -> Result<Option<ProductDto>> {
    let product = conn
        .query_row(&format!("SELECT {PRODUCT_COLUMNS} FROM products WHERE id = ?1"), [id], product_from_row)
        .optional()
        .sql()?;
    let Some(mut product) = product else { return Ok(None) };
    let mut stmt = conn
        .prepare(
            "SELECT id, name, price, status, is_subscription, billing_interval, interval_count FROM variants
             WHERE product_id = ?1 ORDER BY sort, id",
        )
        .sql()?;
    let variants = stmt
        .query_map([id], |row| {
            Ok(VariantDto {
                id: row.get(0)?,
                name: row.get(1)?,
                price: row.get(2)?,
                status: row.get(3)?,
                is_subscription: row.get::<_, i64>(4)? == 1,
                interval: row.get(5)?,
                interval_count: row.get(6)?,
            })
        })
        .sql()?
        .collect::<rusqlite::Result<Vec<_>>>()
        .sql()?;
    product.variants = Some(variants);
    Ok(Some(product))
}

// ---- subscriptions --------------------------------------------------------------------------

const SUBSCRIPTION_COLUMNS: &str = "s.id, s.customer_id, s.status, s.provider_status, s.product_id, s.variant_id, s.renews_at, s.ends_at, s.created_at, s.updated_at, s.product_name, s.variant_name, s.user_name, s.user_email, s.pause_mode, s.pause_resumes_at, p.status, p.at, v.price, v.billing_interval, v.interval_count, s.payment_processor, s.card_brand, s.card_last_four, pr.currency";
/// A subscription with its latest payment and its plan (the variant: price and interval).
const SUBSCRIPTION_FROM: &str = "subscriptions s LEFT JOIN subscription_payments p ON p.subscription_id = s.id
    LEFT JOIN variants v ON v.id = s.variant_id LEFT JOIN products pr ON pr.id = s.product_id";

fn subscription_from_row(row: &Row<'_>) -> rusqlite::Result<SubscriptionDto> {
    Ok(SubscriptionDto {
        id: row.get(0)?,
        customer_id: row.get(1)?,
        status: crate::get_enum(row, 2)?,
        provider_status: row.get(3)?,
        product_id: row.get(4)?,
        variant_id: row.get(5)?,
        renews_at: row.get::<_, Option<String>>(6)?.unwrap_or_default(),
        ends_at: row.get(7)?,
        created_at: row.get(8)?,
        updated_at: row.get(9)?,
        product_name: row.get(10)?,
        variant_name: row.get(11)?,
        customer_name: row.get(12)?,
        customer_email: row.get(13)?,
        pause_mode: row.get(14)?,
        pause_resumes_at: row.get(15)?,
        last_payment_status: row.get(16)?,
        last_payment_at: row.get(17)?,
        price: row.get(18)?,
        interval: row.get(19)?,
        interval_count: row.get(20)?,
        payment_processor: row.get(21)?,
        card_brand: row.get(22)?,
        card_last_four: row.get(23)?,
        currency: row.get(24)?,
        update_payment_method_url: None,
        portal_url: None,
    })
}

/// Writes a subscription as the provider describes it now (keeping our payment notes).
pub fn upsert_subscription(conn: &Connection, s: &SubscriptionDto, now: &str) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO subscriptions (id, customer_id, status, provider_status, product_id, variant_id, renews_at, ends_at, created_at,
                updated_at, product_name, variant_name, user_name, user_email, pause_mode, pause_resumes_at, synced_at,
                payment_processor, card_brand, card_last_four)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)
         ON CONFLICT(id) DO UPDATE SET customer_id=?2, status=?3, provider_status=?4, product_id=?5, variant_id=?6, renews_at=?7,
                ends_at=?8, created_at=?9, updated_at=?10, product_name=?11, variant_name=?12, user_name=?13, user_email=?14,
                pause_mode=?15, pause_resumes_at=?16, synced_at=?17, payment_processor=?18, card_brand=?19, card_last_four=?20",
    ).sql()?
    .execute(params![
        s.id, s.customer_id, s.status.as_str(), s.provider_status, s.product_id, s.variant_id, s.renews_at, s.ends_at, s.created_at,
        s.updated_at, s.product_name, s.variant_name, s.customer_name, s.customer_email, s.pause_mode, s.pause_resumes_at, now,
        s.payment_processor, s.card_brand, s.card_last_four
    ]).sql()?;
    Ok(())
}

/// Stores a complete list from the provider and drops subscriptions it no longer has.
pub fn replace_subscriptions(conn: &mut Connection, subs: &[SubscriptionDto], now: &str, since: &str) -> Result<()> {
    let tx = conn.transaction().sql()?;
    let newer = newer_subscriptions(&tx, since)?;
    for s in subs.iter().filter(|s| !newer.contains(&s.id)) {
        upsert_subscription(&tx, s, now)?;
    }
    tx.execute("DELETE FROM subscriptions WHERE synced_at < ?1", [since]).sql()?;
    tx.commit().sql()?;
    Ok(())
}

/// The subscriptions a webhook wrote since `since`, while a sync was reading the provider's
/// pages: what the sync read of them is older, and they are not gone.
fn newer_subscriptions(conn: &Connection, since: &str) -> Result<std::collections::HashSet<String>> {
    let mut stmt = conn.prepare("SELECT id FROM subscriptions WHERE synced_at >= ?1").sql()?;
    let ids = stmt.query_map([since], |row| row.get(0)).sql()?.collect::<std::result::Result<_, _>>().sql()?;
    Ok(ids)
}

/// A page of cached subscriptions, newest first, with exact filters.
pub fn list_subscriptions(conn: &Connection, query: &SubscriptionQuery) -> Result<(Vec<SubscriptionDto>, u64)> {
    let filter = "(?1 IS NULL OR s.customer_id = ?1) AND (?2 IS NULL OR s.status = ?2)
         AND (?3 IS NULL OR s.provider_status = ?3) AND (?4 IS NULL OR s.product_id = ?4)
         AND (?5 IS NULL OR s.user_email LIKE ?5 ESCAPE '\\' OR s.user_name LIKE ?5 ESCAPE '\\')";
    let (limit, offset) = (query.limit as i64, (query.page as i64 - 1) * query.limit as i64);
    let values: [&dyn rusqlite::ToSql; 7] = [
        &query.customer_id,
        &query.status.map(|s| s.as_str()),
        &query.provider_status,
        &query.product_id,
        &query.search,
        &limit,
        &offset,
    ];
    let total: i64 = conn
        .query_row(&format!("SELECT COUNT(*) FROM subscriptions s WHERE {filter}"), &values[..5], |r| r.get(0))
        .sql()?;
    let mut stmt = conn
        .prepare_cached(&format!(
            "SELECT {SUBSCRIPTION_COLUMNS} FROM {SUBSCRIPTION_FROM} WHERE {filter}
         ORDER BY s.created_at DESC, s.id DESC LIMIT ?6 OFFSET ?7"
        ))
        .sql()?;
    let rows = stmt.query_map(&values[..], subscription_from_row).sql()?.collect::<rusqlite::Result<Vec<_>>>().sql()?;
    Ok((rows, total as u64))
}

/// One cached subscription.
pub fn get_subscription(conn: &Connection, id: &str) -> Result<Option<SubscriptionDto>> {
    Ok(conn
        .query_row(
            &format!("SELECT {SUBSCRIPTION_COLUMNS} FROM {SUBSCRIPTION_FROM} WHERE s.id = ?1"),
            [id],
            subscription_from_row,
        )
        .optional()
        .sql()?)
}

/// Notes a subscription's latest payment (from `subscription_payment_*` events); an older one
/// than already noted changes nothing. Returns whether it was the latest.
pub fn note_payment(conn: &Connection, subscription_id: &str, status: &str, at: &str) -> Result<bool> {
    Ok(conn
        .execute(
            "INSERT INTO subscription_payments (subscription_id, status, at) VALUES (?1, ?2, ?3)
         ON CONFLICT(subscription_id) DO UPDATE SET status = ?2, at = ?3 WHERE at <= ?3",
            params![subscription_id, status, at],
        )
        .sql()?
        > 0)
}

// ---- orders ---------------------------------------------------------------------------------

const ORDER_COLUMNS: &str = "id, number, status, total, currency, checkout_url, created_at, email, name, product_id, variant_id, customer_id, provider_order_id, paid_at, refunded_at, updated_at, provider_status, provider_updated_at, checkout_id, billing_address, metadata, created_by, store_id, subtotal, test_mode, review, refunded_amount, source, order_number, items, discount_total, tax, receipt_url, currency_rate";

fn order_from_row(row: &Row<'_>) -> rusqlite::Result<OrderRecord> {
    Ok(OrderRecord {
        dto: OrderDto {
            id: row.get(0)?,
            order_id: order_label(row.get(1)?, row.get(28)?),
            status: crate::get_enum(row, 2)?,
            total: row.get(3)?,
            currency: row.get(4)?,
            checkout_url: row.get::<_, Option<String>>(5)?.unwrap_or_default(),
            created_at: row.get(6)?,
            email: row.get(7)?,
            name: row.get(8)?,
            product_id: row.get(9)?,
            variant_id: row.get(10)?,
            customer_id: row.get(11)?,
            provider_order_id: row.get(12)?,
            paid_at: row.get(13)?,
            refunded_at: row.get(14)?,
            updated_at: row.get(15)?,
            review: row.get(25)?,
            refunded_amount: row.get(26)?,
            source: crate::get_enum(row, 27)?,
            provider_status: row.get(16)?,
            order_number: row.get(28)?,
            items: items_from_json(&row.get::<_, String>(29)?),
            subtotal: subtotal_of(row.get(3)?, row.get(30)?, row.get(31)?),
            discount_total: row.get(30)?,
            tax: row.get(31)?,
            receipt_url: row.get(32)?,
            events: None,
        },
        provider_updated_at: row.get(17)?,
        currency_rate: row.get(33)?,
        checkout_id: row.get(18)?,
        billing_address: row.get(19)?,
        metadata: row.get(20)?,
        created_by: row.get(21)?,
        expected: match (
            row.get::<_, Option<String>>(22)?,
            row.get::<_, Option<i64>>(23)?,
            row.get::<_, Option<bool>>(24)?,
        ) {
            (Some(store_id), Some(subtotal), Some(test_mode)) => Some(CheckoutTerms { store_id, subtotal, test_mode }),
            _ => None,
        },
    })
}

/// Inserts an order; one made here takes the next number, which is returned.
pub fn insert_order(conn: &mut Connection, order: &OrderRecord) -> Result<Option<i64>> {
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate).sql()?;
    let number = insert_order_in(&tx, order)?;
    tx.commit().sql()?;
    Ok(number)
}

/// [`insert_order`] inside a write transaction the caller holds (which makes the next number
/// safe to take).
pub fn insert_order_in(tx: &Connection, order: &OrderRecord) -> Result<Option<i64>> {
    let number: Option<i64> = match order.dto.source {
        OrderSource::Staffroom => {
            Some(tx.query_row("SELECT COALESCE(MAX(number), 0) + 1 FROM orders", [], |r| r.get(0)).sql()?)
        }
        OrderSource::Store => None,
    };
    let o = &order.dto;
    tx.execute(
        &format!("INSERT INTO orders ({ORDER_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33, ?34)"),
        params![
            o.id, number, o.status.as_str(), o.total, o.currency, o.checkout_url, o.created_at, o.email, o.name, o.product_id, o.variant_id,
            o.customer_id, o.provider_order_id, o.paid_at, o.refunded_at, o.updated_at, o.provider_status,
            order.provider_updated_at, order.checkout_id, order.billing_address, order.metadata, order.created_by,
            order.expected.as_ref().map(|e| &e.store_id), order.expected.as_ref().map(|e| e.subtotal),
            order.expected.as_ref().map(|e| e.test_mode), o.review, o.refunded_amount, o.source.as_str(), o.order_number,
            items_to_json(&o.items), o.discount_total, o.tax, o.receipt_url, order.currency_rate
        ],
    ).sql()?;
    Ok(number)
}

/// One order by our id.
pub fn get_order(conn: &Connection, id: &str) -> Result<Option<OrderRecord>> {
    Ok(conn
        .query_row(&format!("SELECT {ORDER_COLUMNS} FROM orders WHERE id = ?1"), [id], order_from_row)
        .optional()
        .sql()?)
}

/// One order by the provider's order id.
pub fn find_order_by_provider_id(conn: &Connection, provider_id: &str) -> Result<Option<OrderRecord>> {
    Ok(conn
        .query_row(
            &format!("SELECT {ORDER_COLUMNS} FROM orders WHERE provider_order_id = ?1"),
            [provider_id],
            order_from_row,
        )
        .optional()
        .sql()?)
}

/// A page of the orders `query` asks for, newest first (by when they were made).
pub fn list_orders(conn: &Connection, query: &OrderQuery) -> Result<(Vec<OrderDto>, u64)> {
    // Only the conditions asked for, so that SQLite can use an index for each (a `?n IS NULL OR`
    // form would have it test every row).
    let mut w = Where::default();
    if let Some(search) = &query.search {
        let mut either = vec![if search.text.chars().count() >= 3 {
            // The trigram index finds a part of three characters or more, in any case; read once,
            // its rows are values for both the count and the page.
            let rows: Vec<rusqlite::types::Value> = conn
                .prepare_cached("SELECT rowid FROM orders_text WHERE orders_text MATCH ?1")
                .sql()?
                .query_map([trigram_phrase(&search.text)], |row| row.get::<_, i64>(0))
                .sql()?
                .map(|rowid| rowid.map(rusqlite::types::Value::from))
                .collect::<rusqlite::Result<_>>()
                .sql()?;
            w.bind("rowid IN rarray(?)", std::rc::Rc::new(rows))
        } else {
            w.bind("(email LIKE ? ESCAPE '\\' OR name LIKE ? ESCAPE '\\')", search.pattern.clone())
        }];
        either.extend(search.order_number.map(|n| w.bind("order_number = ?", n)));
        either.extend(search.reference.map(|n| w.bind("number = ?", n)));
        w.and(format!("({})", either.join(" OR ")));
    }
    let equal = [
        ("status", query.status.map(|s| s.as_str().to_string())),
        ("provider_status", query.provider_status.map(str::to_string)),
        ("customer_id", query.customer_id.clone()),
        ("product_id", query.product_id.clone()),
    ];
    for (column, value) in equal {
        if let Some(value) = value {
            let condition = w.bind(&format!("{column} = ?"), value);
            w.and(condition);
        }
    }
    if let Some(from) = &query.from {
        let condition = w.bind("created_at >= ?", from.clone());
        w.and(condition);
    }
    if let Some(to) = &query.to {
        let condition = w.bind("created_at < ?", to.clone());
        w.and(condition);
    }
    let filter = w.sql();
    let given: Vec<&dyn rusqlite::ToSql> = w.values.iter().map(|v| v.as_ref()).collect();
    let total: i64 = conn
        .prepare_cached(&format!("SELECT COUNT(*) FROM orders WHERE {filter}"))
        .sql()?
        .query_row(&given[..], |r| r.get(0))
        .sql()?;
    let (limit, offset) = (query.limit as i64, (query.page as i64 - 1) * query.limit as i64);
    let mut page = given.clone();
    page.extend([&limit as &dyn rusqlite::ToSql, &offset]);
    let (limit_at, offset_at) = (page.len() - 1, page.len());
    let mut stmt = conn
        .prepare_cached(&format!(
            "SELECT {ORDER_COLUMNS} FROM orders WHERE {filter}
             ORDER BY created_at DESC, number DESC LIMIT ?{limit_at} OFFSET ?{offset_at}"
        ))
        .sql()?;
    let rows = stmt
        .query_map(&page[..], order_from_row)
        .sql()?
        .map(|r| r.map(|o| o.dto))
        .collect::<rusqlite::Result<Vec<_>>>()
        .sql()?;
    Ok((rows, total as u64))
}

/// `text` as one FTS5 phrase (its double quotes doubled): with the trigram tokenizer, the rows
/// that contain it anywhere.
fn trigram_phrase(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "\"\""))
}

/// Paid orders made in the span, by UTC day, in `currency` (another currency at the order's own
/// rate): whole days from the roll-up the triggers of migration 0012 keep, the ends from the
/// orders with the same sums.
pub fn daily_sales(conn: &Connection, span: &SalesSpan, currency: &str) -> Result<Vec<DaySales>> {
    const IN_CURRENCY: &str = "CASE WHEN currency = :currency OR currency_rate IS NULL THEN total
             ELSE CAST(ROUND(total * CAST(currency_rate AS REAL)) AS INTEGER) END,
        CASE WHEN currency = :currency OR currency_rate IS NULL THEN refunded_amount
             ELSE CAST(ROUND(refunded_amount * CAST(currency_rate AS REAL)) AS INTEGER) END";
    let sql = format!(
        "SELECT day, SUM(n), SUM(gross), SUM(refunds) FROM (
            SELECT day, orders AS n,
                   CASE WHEN currency = :currency THEN gross ELSE converted_gross END AS gross,
                   CASE WHEN currency = :currency THEN refunds ELSE converted_refunds END AS refunds
            FROM sales_by_day WHERE day >= :first_day AND day < :end_day AND orders > 0
            UNION ALL
            SELECT substr(created_at, 1, 10), 1, {IN_CURRENCY}
            FROM orders WHERE status = 'paid' AND created_at >= :from AND created_at < :head_end
            UNION ALL
            SELECT substr(created_at, 1, 10), 1, {IN_CURRENCY}
            FROM orders WHERE status = 'paid' AND created_at >= :tail_start AND created_at < :to
         ) GROUP BY day ORDER BY day"
    );
    let mut stmt = conn.prepare_cached(&sql).sql()?;
    let rows = stmt
        .query_map(
            rusqlite::named_params! {
                ":currency": currency, ":from": span.from, ":head_end": span.head_end,
                ":first_day": span.first_day, ":end_day": span.end_day,
                ":tail_start": span.tail_start, ":to": span.to,
            },
            |row| Ok(DaySales { date: row.get(0)?, orders: row.get(1)?, gross: row.get(2)?, refunds: row.get(3)? }),
        )
        .sql()?
        .collect::<rusqlite::Result<Vec<_>>>()
        .sql()?;
    Ok(rows)
}

/// The subscriptions' figures; the monthly revenue of a plan billed every N days, weeks, months
/// or years is its price spread over the months that covers.
pub fn subscription_figures(conn: &Connection, from: &str, to: &str) -> Result<SubscriptionFigures> {
    conn.query_row(
        "SELECT
            COALESCE(SUM(s.provider_status IN ('on_trial', 'active', 'paused', 'past_due', 'unpaid')), 0),
            COALESCE(SUM(s.created_at >= ?1 AND s.created_at < ?2), 0),
            COALESCE(SUM(s.provider_status = 'cancelled' AND s.updated_at >= ?1 AND s.updated_at < ?2), 0),
            COALESCE(SUM(s.provider_status IN ('past_due', 'unpaid')), 0),
            COALESCE(SUM(CASE WHEN s.provider_status IN ('active', 'past_due') THEN
                CASE v.billing_interval
                    WHEN 'month' THEN v.price / COALESCE(v.interval_count, 1)
                    WHEN 'year' THEN v.price / (12 * COALESCE(v.interval_count, 1))
                    WHEN 'week' THEN v.price * 52 / (12 * COALESCE(v.interval_count, 1))
                    WHEN 'day' THEN v.price * 365 / (12 * COALESCE(v.interval_count, 1))
                    ELSE 0 END
                ELSE 0 END), 0)
         FROM subscriptions s LEFT JOIN variants v ON v.id = s.variant_id",
        params![from, to],
        |row| {
            Ok(SubscriptionFigures {
                active: row.get(0)?,
                new: row.get(1)?,
                cancelled: row.get(2)?,
                past_due: row.get(3)?,
                mrr: row.get(4)?,
            })
        },
    )
    .sql()
}

/// Local orders still pending that were created after `since`, oldest first.
pub fn pending_orders(conn: &Connection, since: &str) -> Result<Vec<OrderRecord>> {
    let mut stmt = conn
        .prepare(&format!(
            "SELECT {ORDER_COLUMNS} FROM orders WHERE status = 'pending' AND created_at >= ?1 ORDER BY number"
        ))
        .sql()?;
    let rows = stmt.query_map([since], order_from_row).sql()?.collect::<rusqlite::Result<Vec<_>>>().sql()?;
    Ok(rows)
}

/// Applies the provider's view of an order to the local record.
pub fn update_order_from_provider(conn: &Connection, order: &OrderRecord) -> Result<()> {
    let o = &order.dto;
    conn.execute(
        "UPDATE orders SET status = ?2, provider_order_id = ?3, provider_status = ?4, provider_updated_at = ?5, paid_at = ?6,
                refunded_at = ?7, customer_id = ?8, updated_at = ?9, total = ?10, currency = ?11, review = ?12,
                refunded_amount = ?13, order_number = ?14, items = ?15, discount_total = ?16, tax = ?17,
                receipt_url = ?18, currency_rate = ?19 WHERE id = ?1",
        params![
            o.id, o.status.as_str(), o.provider_order_id, o.provider_status, order.provider_updated_at, o.paid_at, o.refunded_at,
            o.customer_id, o.updated_at, o.total, o.currency, o.review, o.refunded_amount, o.order_number,
            items_to_json(&o.items), o.discount_total, o.tax, o.receipt_url, order.currency_rate
        ],
    ).sql()?;
    Ok(())
}

// ---- sync state -----------------------------------------------------------------------------

/// The sync state of `resource`.
pub fn sync_state(conn: &Connection, resource: &str) -> Result<SyncState> {
    Ok(conn
        .query_row("SELECT synced_at, attempted_at, error FROM sync_state WHERE resource = ?1", [resource], |row| {
            Ok(SyncState { synced_at: row.get(0)?, attempted_at: row.get(1)?, error: row.get(2)? })
        })
        .optional()
        .sql()?
        .unwrap_or_default())
}

/// Records a sync attempt: `error` is `None` when it succeeded.
pub fn record_sync(conn: &Connection, resource: &str, at: &str, error: Option<&str>) -> Result<()> {
    conn.execute(
        "INSERT INTO sync_state (resource, synced_at, attempted_at, error) VALUES (?1, CASE WHEN ?3 IS NULL THEN ?2 END, ?2, ?3)
         ON CONFLICT(resource) DO UPDATE SET synced_at = CASE WHEN ?3 IS NULL THEN ?2 ELSE synced_at END, attempted_at = ?2, error = ?3",
        params![resource, at, error],
    ).sql()?;
    Ok(())
}

#[async_trait::async_trait]
impl PaymentStore for Sqlite {
    async fn sync_state(&self, resource: &'static str) -> Result<SyncState> {
        self.call(move |conn| sync_state(conn, resource)).await
    }

    async fn record_sync(&self, resource: &'static str, at: String, error: Option<String>) -> Result<()> {
        self.write(move |conn| record_sync(conn, resource, &at, error.as_deref())).await
    }

    async fn replace_products(
        &self,
        products: Vec<ProductDto>,
        variants: Vec<(String, VariantDto, i64)>,
        now: String,
    ) -> Result<()> {
        self.write(move |conn| replace_products(conn, &products, &variants, &now)).await
    }

    async fn upsert_product(&self, product: ProductDto, now: String) -> Result<()> {
        self.write(move |conn| upsert_product(conn, &product, &now)).await
    }

    async fn list_products(
        &self,
        status: Option<&'static str>,
        search: Option<String>,
        page: u32,
        limit: u32,
    ) -> Result<(Vec<ProductDto>, u64)> {
        self.call(move |conn| list_products(conn, status, search.as_deref(), page, limit)).await
    }

    async fn product(&self, id: String) -> Result<Option<ProductDto>> {
        self.call(move |conn| get_product(conn, &id)).await
    }

    async fn replace_subscriptions(
        &self,
        subscriptions: Vec<SubscriptionDto>,
        now: String,
        since: String,
    ) -> Result<()> {
        self.write(move |conn| replace_subscriptions(conn, &subscriptions, &now, &since)).await
    }

    async fn upsert_subscription(&self, subscription: SubscriptionDto, now: String) -> Result<()> {
        self.write(move |conn| upsert_subscription(conn, &subscription, &now)).await
    }

    async fn list_subscriptions(&self, query: SubscriptionQuery) -> Result<(Vec<SubscriptionDto>, u64)> {
        self.call(move |conn| list_subscriptions(conn, &query)).await
    }

    async fn subscription(&self, id: String) -> Result<Option<SubscriptionDto>> {
        self.call(move |conn| get_subscription(conn, &id)).await
    }

    async fn insert_order(&self, order: OrderRecord) -> Result<Option<i64>> {
        self.write(move |conn| insert_order(conn, &order)).await
    }

    async fn order(&self, id: String) -> Result<Option<OrderRecord>> {
        self.call(move |conn| get_order(conn, &id)).await
    }

    async fn order_by_provider_id(&self, provider_id: String) -> Result<Option<OrderRecord>> {
        self.call(move |conn| find_order_by_provider_id(conn, &provider_id)).await
    }

    async fn list_orders(&self, query: OrderQuery) -> Result<(Vec<OrderDto>, u64)> {
        self.call(move |conn| list_orders(conn, &query)).await
    }

    async fn daily_sales(&self, span: SalesSpan, currency: String) -> Result<Vec<DaySales>> {
        self.call(move |conn| daily_sales(conn, &span, &currency)).await
    }

    async fn subscription_figures(&self, from: String, to: String) -> Result<SubscriptionFigures> {
        self.call(move |conn| subscription_figures(conn, &from, &to)).await
    }

    async fn pending_orders(&self, since: String) -> Result<Vec<OrderRecord>> {
        self.call(move |conn| pending_orders(conn, &since)).await
    }

    async fn update_order_from_provider(&self, order: OrderRecord) -> Result<()> {
        self.write(move |conn| update_order_from_provider(conn, &order)).await
    }
}
