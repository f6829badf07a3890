//! PostgreSQL's SQL of the payment cache (products, subscriptions, the sync state) and the
//! orders; order numbers come from the `order_numbers` sequence.

use crate::filter::Where;
use crate::Sql as _;
use deadpool_postgres::GenericClient;
use tokio_postgres::Row;

use super::Postgres;
use staffroom_core::error::Result;
use staffroom_core::payments::model::{format_money, OrderDto, ProductDto, SubscriptionDto, VariantDto};
use staffroom_core::payments::store::{
    items_from_json, items_to_json, order_label, subtotal_of, CheckoutTerms, DaySales, OrderQuery, OrderRecord,
    PaymentStore, SalesSpan, SubscriptionFigures, SubscriptionQuery, SyncState,
};

const PRODUCT_COLUMNS: &str = "id, name, slug, price, currency, status, created_at, updated_at";

fn product_of(row: &Row) -> ProductDto {
    let price: i64 = row.get(3);
    let currency: String = row.get(4);
    ProductDto {
        id: row.get(0),
        name: row.get(1),
        slug: row.get(2),
        price,
        price_formatted: format_money(price, &currency),
        currency,
        status: crate::get_enum(row, 5),
        created_at: row.get(6),
        updated_at: row.get(7),
        variants: None,
    }
}

const INSERT_PRODUCT: &str =
    "INSERT INTO products (id, name, slug, price, currency, status, created_at, updated_at, synced_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (id) DO UPDATE SET name = $2, slug = $3, price = $4, currency = $5, status = $6, created_at = $7,
         updated_at = $8, synced_at = $9";

const INSERT_VARIANT: &str =
    "INSERT INTO variants (id, product_id, name, price, status, is_subscription, sort, billing_interval, interval_count)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (id) DO UPDATE SET product_id = $2, name = $3, price = $4, status = $5, is_subscription = $6, sort = $7,
        billing_interval = $8, interval_count = $9";

async fn put_product(db: &impl GenericClient, p: &ProductDto, now: &str) -> Result<()> {
    db.execute(
        INSERT_PRODUCT,
        &[&p.id, &p.name, &p.slug, &p.price, &p.currency, &p.status.as_str(), &p.created_at, &p.updated_at, &now],
    )
    .await
    .sql()?;
    Ok(())
}

async fn put_variant(db: &impl GenericClient, product_id: &str, v: &VariantDto, sort: i64) -> Result<()> {
    let values: [&(dyn tokio_postgres::types::ToSql + Sync); 9] =
        [&v.id, &product_id, &v.name, &v.price, &v.status, &v.is_subscription, &sort, &v.interval, &v.interval_count];
    db.execute(INSERT_VARIANT, &values).await.sql()?;
    Ok(())
}

pub async fn replace_products(
    db: &mut deadpool_postgres::Object,
    products: &[ProductDto],
    variants: &[(String, VariantDto, i64)],
    now: &str,
) -> Result<()> {
    let tx = db.transaction().await.sql()?;
    tx.execute("DELETE FROM variants", &[]).await.sql()?;
    tx.execute("DELETE FROM products", &[]).await.sql()?;
    for product in products {
        put_product(&tx, product, now).await?;
    }
    for (product_id, variant, sort) in variants {
        put_variant(&tx, product_id, variant, *sort).await?;
    }
    tx.commit().await.sql()?;
    Ok(())
}

pub async fn upsert_product(db: &mut deadpool_postgres::Object, product: &ProductDto, now: &str) -> Result<()> {
    let tx = db.transaction().await.sql()?;
    put_product(&tx, product, now).await?;
    if let Some(variants) = &product.variants {
        tx.execute("DELETE FROM variants WHERE product_id = $1", &[&product.id]).await.sql()?;
        for (sort, variant) in variants.iter().enumerate() {
            put_variant(&tx, &product.id, variant, sort as i64).await?;
        }
    }
    tx.commit().await.sql()?;
    Ok(())
}

/// The literal-substring pattern of a search, LIKE's wildcards escaped.
fn like_pattern(search: Option<&str>) -> Option<String> {
    search.map(|s| format!("%{}%", s.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_")))
}

pub async fn list_products(
    db: &impl GenericClient,
    status: Option<&str>,
    search: Option<&str>,
    page: u32,
    limit: u32,
) -> Result<(Vec<ProductDto>, u64)> {
    let pattern = like_pattern(search);
    // Byte order, as SQLite compares, whatever the database's collation.
    const FILTER: &str = "($1::TEXT IS NULL OR status = $1) AND ($2::TEXT IS NULL OR name LIKE $2 ESCAPE '\\')";
    let total: i64 = db
        .query_one(&format!("SELECT COUNT(*) FROM products WHERE {FILTER}"), &[&status, &pattern])
        .await
        .sql()?
        .get(0);
    let offset = (i64::from(page) - 1) * i64::from(limit);
    let rows = db
        .query(
            &format!(
                "SELECT {PRODUCT_COLUMNS} FROM products WHERE {FILTER} ORDER BY name COLLATE \"C\", id COLLATE \"C\"
                 LIMIT $3 OFFSET $4"
            ),
            &[&status, &pattern, &i64::from(limit), &offset],
        )
        .await
        .sql()?;
    Ok((rows.iter().map(product_of).collect(), total as u64))
}

pub async fn get_product(db: &impl GenericClient, id: &str) -> Result<Option<ProductDto>> {
    let row = db.query_opt(&format!("SELECT {PRODUCT_COLUMNS} FROM products WHERE id = $1"), &[&id]).await.sql()?;
    let Some(mut product) = row.as_ref().map(product_of) else { return Ok(None) };
    let variants = db
        .query(
            "SELECT id, name, price, status, is_subscription, billing_interval, interval_count FROM variants WHERE product_id = $1
             ORDER BY sort, id COLLATE \"C\"",
            &[&id],
        )
        .await
        .sql()?;
    product.variants = Some(
        variants
            .iter()
            .map(|row| VariantDto {
                id: row.get(0),
                name: row.get(1),
                price: row.get(2),
                status: row.get(3),
                is_subscription: row.get(4),
                interval: row.get(5),
                interval_count: row.get(6),
            })
            .collect(),
    );
    Ok(Some(product))
}

const SUBSCRIPTION_COLUMNS: &str = "s.id, s.customer_id, s.status, s.provider_status, s.product_id, s.variant_id, s.renews_at, s.ends_at, s.created_at, s.updated_at, s.product_name, s.variant_name, s.user_name, s.user_email, s.pause_mode, s.pause_resumes_at, p.status, p.at, v.price, v.billing_interval, v.interval_count, s.payment_processor, s.card_brand, s.card_last_four, pr.currency";
/// A subscription with its latest payment and its plan (the variant: price and interval).
const SUBSCRIPTION_FROM: &str = "subscriptions s LEFT JOIN subscription_payments p ON p.subscription_id = s.id
    LEFT JOIN variants v ON v.id = s.variant_id LEFT JOIN products pr ON pr.id = s.product_id";

fn subscription_of(row: &Row) -> SubscriptionDto {
    SubscriptionDto {
        id: row.get(0),
        customer_id: row.get(1),
        status: crate::get_enum(row, 2),
        provider_status: row.get(3),
        product_id: row.get(4),
        variant_id: row.get(5),
        renews_at: row.get::<_, Option<String>>(6).unwrap_or_default(),
        ends_at: row.get(7),
        created_at: row.get(8),
        updated_at: row.get(9),
        product_name: row.get(10),
        variant_name: row.get(11),
        customer_name: row.get(12),
        customer_email: row.get(13),
        pause_mode: row.get(14),
        pause_resumes_at: row.get(15),
        last_payment_status: row.get(16),
        last_payment_at: row.get(17),
        price: row.get(18),
        interval: row.get(19),
        interval_count: row.get(20),
        payment_processor: row.get(21),
        card_brand: row.get(22),
        card_last_four: row.get(23),
        currency: row.get(24),
        update_payment_method_url: None,
        portal_url: None,
    }
}

pub async fn upsert_subscription(db: &impl GenericClient, s: &SubscriptionDto, now: &str) -> Result<()> {
    let sql = db
        .prepare_cached(
            "INSERT INTO subscriptions (id, customer_id, status, provider_status, product_id, variant_id, renews_at, ends_at,
                created_at, updated_at, product_name, variant_name, user_name, user_email, pause_mode, pause_resumes_at,
                synced_at, payment_processor, card_brand, card_last_four)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20)
         ON CONFLICT (id) DO UPDATE SET customer_id = $2, status = $3, provider_status = $4, product_id = $5,
                variant_id = $6, renews_at = $7, ends_at = $8, created_at = $9, updated_at = $10, product_name = $11,
                variant_name = $12, user_name = $13, user_email = $14, pause_mode = $15, pause_resumes_at = $16,
                synced_at = $17, payment_processor = $18, card_brand = $19, card_last_four = $20",
        )
        .await.sql()?;
    db.execute(
        &sql,
        &[
            &s.id,
            &s.customer_id,
            &s.status.as_str(),
            &s.provider_status,
            &s.product_id,
            &s.variant_id,
            &s.renews_at,
            &s.ends_at,
            &s.created_at,
            &s.updated_at,
            &s.product_name,
            &s.variant_name,
            &s.customer_name,
            &s.customer_email,
            &s.pause_mode,
            &s.pause_resumes_at,
            &now,
            &s.payment_processor,
            &s.card_brand,
            &s.card_last_four,
        ],
    )
    .await
    .sql()?;
    Ok(())
}

pub async fn replace_subscriptions(
    db: &mut deadpool_postgres::Object,
    subs: &[SubscriptionDto],
    now: &str,
    since: &str,
) -> Result<()> {
    let tx = db.transaction().await.sql()?;
    // Rows a webhook wrote while the sync read the pages are newer than what it read (see the
    // SQLite store); the lock keeps a webhook from writing one between this read and the delete.
    tx.execute("LOCK TABLE subscriptions IN SHARE ROW EXCLUSIVE MODE", &[]).await.sql()?;
    let newer: std::collections::HashSet<String> = tx
        .query("SELECT id FROM subscriptions WHERE synced_at >= $1", &[&since])
        .await
        .sql()?
        .iter()
        .map(|row| row.get(0))
        .collect();
    for subscription in subs.iter().filter(|s| !newer.contains(&s.id)) {
        upsert_subscription(&tx, subscription, now).await?;
    }
    tx.execute("DELETE FROM subscriptions WHERE synced_at < $1", &[&since]).await.sql()?;
    tx.commit().await.sql()?;
    Ok(())
}

pub async fn list_subscriptions(
    db: &impl GenericClient,
    query: &SubscriptionQuery,
) -> Result<(Vec<SubscriptionDto>, u64)> {
    let mut w = Where::default();
    w.and_if("s.customer_id = ?", query.customer_id.clone());
    w.and_if("s.status = ?", query.status.map(|s| s.as_str().to_string()));
    w.and_if("s.provider_status = ?", query.provider_status.map(str::to_string));
    w.and_if("s.product_id = ?", query.product_id.clone());
    w.and_if("(s.user_email ILIKE ? OR s.user_name ILIKE ?)", query.search.clone());
    let filter = w.sql();
    let mut params = w.values();
    let total: i64 =
        db.query_one(&format!("SELECT COUNT(*) FROM subscriptions s WHERE {filter}"), &params).await.sql()?.get(0);
    let (limit, offset) = (i64::from(query.limit), (i64::from(query.page) - 1) * i64::from(query.limit));
    params.extend([&limit as &(dyn tokio_postgres::types::ToSql + Sync), &offset]);
    let (limit_at, offset_at) = (params.len() - 1, params.len());
    // Byte order for ids, as SQLite compares; the indexes are in the same order, so a page is
    // read from an index rather than sorting every row. The page first, then its payments: not
    // a join for every row skipped.
    let order = "s.created_at DESC, s.id COLLATE \"C\" DESC";
    let sql = format!(
        "SELECT {SUBSCRIPTION_COLUMNS}
         FROM (SELECT * FROM subscriptions s WHERE {filter} ORDER BY {order} LIMIT ${limit_at} OFFSET ${offset_at}) s
         LEFT JOIN subscription_payments p ON p.subscription_id = s.id
         LEFT JOIN variants v ON v.id = s.variant_id LEFT JOIN products pr ON pr.id = s.product_id
         ORDER BY {order}"
    );
    let rows = db.query(&db.prepare_cached(&sql).await.sql()?, &params).await.sql()?;
    Ok((rows.iter().map(subscription_of).collect(), total as u64))
}

/// The subscriptions of `ids` that are cached, by id.
pub async fn get_subscriptions(
    db: &impl GenericClient,
    ids: &[String],
) -> Result<std::collections::HashMap<String, SubscriptionDto>> {
    // Planned afresh each time, not a cached statement: PostgreSQL's generic plan for `= ANY($1)`
    // is made once the statement has run five times, from the table's size then. Made while the
    // table was small, it scans the whole table as the table grows, until the next ANALYZE
    // (measured: up to 96 ms a group, where a fresh plan uses the primary key).
    let sql = format!("SELECT {SUBSCRIPTION_COLUMNS} FROM {SUBSCRIPTION_FROM} WHERE s.id = ANY($1)");
    let rows = db.query(&sql, &[&ids]).await.sql()?;
    Ok(rows.iter().map(subscription_of).map(|s| (s.id.clone(), s)).collect())
}

pub async fn get_subscription(db: &impl GenericClient, id: &str) -> Result<Option<SubscriptionDto>> {
    let sql = format!("SELECT {SUBSCRIPTION_COLUMNS} FROM {SUBSCRIPTION_FROM} WHERE s.id = $1");
    Ok(db.query_opt(&db.prepare_cached(&sql).await.sql()?, &[&id]).await.sql()?.as_ref().map(subscription_of))
}

pub async fn note_payment(db: &impl GenericClient, subscription_id: &str, status: &str, at: &str) -> Result<bool> {
    Ok(db
        .execute(
            "INSERT INTO subscription_payments (subscription_id, status, at) VALUES ($1, $2, $3)
             ON CONFLICT (subscription_id) DO UPDATE SET status = $2, at = $3 WHERE subscription_payments.at <= $3",
            &[&subscription_id, &status, &at],
        )
        .await
        .sql()?
        > 0)
}

const ORDER_COLUMNS: &str = "id, number, status, total, currency, checkout_url, created_at, email, name, product_id, variant_id, customer_id, provider_order_id, paid_at, refunded_at, updated_at, provider_status, provider_updated_at, checkout_id, billing_address, metadata, created_by, store_id, subtotal, test_mode, review, refunded_amount, source, order_number, items, discount_total, tax, receipt_url, currency_rate";

fn order_of(row: &Row) -> OrderRecord {
    OrderRecord {
        dto: OrderDto {
            id: row.get(0),
            order_id: order_label(row.get(1), row.get(28)),
            status: crate::get_enum(row, 2),
            total: row.get(3),
            currency: row.get(4),
            checkout_url: row.get::<_, Option<String>>(5).unwrap_or_default(),
            created_at: row.get(6),
            email: row.get(7),
            name: row.get(8),
            product_id: row.get(9),
            variant_id: row.get(10),
            customer_id: row.get(11),
            provider_order_id: row.get(12),
            paid_at: row.get(13),
            refunded_at: row.get(14),
            updated_at: row.get(15),
            review: row.get(25),
            refunded_amount: row.get(26),
            source: crate::get_enum(row, 27),
            provider_status: row.get(16),
            order_number: row.get(28),
            items: items_from_json(row.get(29)),
            subtotal: subtotal_of(row.get(3), row.get(30), row.get(31)),
            discount_total: row.get(30),
            tax: row.get(31),
            receipt_url: row.get(32),
            events: None,
        },
        provider_updated_at: row.get(17),
        currency_rate: row.get(33),
        checkout_id: row.get(18),
        billing_address: row.get(19),
        metadata: row.get(20),
        created_by: row.get(21),
        expected: match (
            row.get::<_, Option<String>>(22),
            row.get::<_, Option<i64>>(23),
            row.get::<_, Option<bool>>(24),
        ) {
            (Some(store_id), Some(subtotal), Some(test_mode)) => Some(CheckoutTerms { store_id, subtotal, test_mode }),
            _ => None,
        },
    }
}

/// Inserts an order with the next number of the sequence; returns the number.
/// Inserts an order; one made here takes the next number, which is returned.
pub async fn insert_order(db: &impl GenericClient, order: &OrderRecord) -> Result<Option<i64>> {
    let o = &order.dto;
    let expected = order.expected.as_ref();
    let row = db
        .query_one(
            &format!(
                "INSERT INTO orders ({ORDER_COLUMNS}) VALUES ($1,
                 CASE WHEN $27::TEXT = 'staffroom' THEN nextval('order_numbers') END, $2, $3, $4, $5, $6, $7, $8, $9,
                 $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29,
                 $30, $31, $32, $33) RETURNING number"
            ),
            &[
                &o.id,
                &o.status.as_str(),
                &o.total,
                &o.currency,
                &o.checkout_url,
                &o.created_at,
                &o.email,
                &o.name,
                &o.product_id,
                &o.variant_id,
                &o.customer_id,
                &o.provider_order_id,
                &o.paid_at,
                &o.refunded_at,
                &o.updated_at,
                &o.provider_status,
                &order.provider_updated_at,
                &order.checkout_id,
                &order.billing_address,
                &order.metadata,
                &order.created_by,
                &expected.map(|e| e.store_id.as_str()),
                &expected.map(|e| e.subtotal),
                &expected.map(|e| e.test_mode),
                &o.review,
                &o.refunded_amount,
                &o.source.as_str(),
                &o.order_number,
                &items_to_json(&o.items),
                &o.discount_total,
                &o.tax,
                &o.receipt_url,
                &order.currency_rate,
            ],
        )
        .await
        .sql()?;
    Ok(row.get(0))
}

pub async fn get_order(db: &impl GenericClient, id: &str) -> Result<Option<OrderRecord>> {
    let sql = format!("SELECT {ORDER_COLUMNS} FROM orders WHERE id = $1");
    Ok(db.query_opt(&db.prepare_cached(&sql).await.sql()?, &[&id]).await.sql()?.as_ref().map(order_of))
}

pub async fn find_order_by_provider_id(db: &impl GenericClient, provider_id: &str) -> Result<Option<OrderRecord>> {
    let sql = format!("SELECT {ORDER_COLUMNS} FROM orders WHERE provider_order_id = $1");
    Ok(db.query_opt(&db.prepare_cached(&sql).await.sql()?, &[&provider_id]).await.sql()?.as_ref().map(order_of))
}

/// A page of the orders `query` asks for, newest first (by when they were made).
pub async fn list_orders(db: &impl GenericClient, query: &OrderQuery) -> Result<(Vec<OrderDto>, u64)> {
    let mut w = Where::default();
    if let Some(search) = &query.search {
        // Who bought: the few thousand distinct buyers (migration 0014), read once; then their
        // orders through an index, and a number by its own. With a number the three are a union:
        // an `OR` of them would read every order (and the union alone is slower for a surname).
        let matching = "SELECT email, name FROM order_buyers WHERE search_text LIKE lower($1)";
        let buyers = db.query(&db.prepare_cached(matching).await.sql()?, &[&search.pattern]).await.sql()?;
        let (emails, names): (Vec<String>, Vec<String>) = buyers.iter().map(|row| (row.get(0), row.get(1))).unzip();
        if emails.is_empty() && search.order_number.is_none() && search.reference.is_none() {
            return Ok((Vec::new(), 0));
        }
        let (emails, names) = (w.bind("?", emails), w.bind("?", names));
        let by_buyer =
            format!("(email, COALESCE(name, '')) IN (SELECT * FROM unnest({emails}::text[], {names}::text[]))");
        if search.order_number.is_none() && search.reference.is_none() {
            w.and(by_buyer);
        } else {
            let mut either = vec![format!("SELECT id FROM orders WHERE {by_buyer}")];
            either.extend(search.order_number.map(|n| w.bind("SELECT id FROM orders WHERE order_number = ?", n)));
            either.extend(search.reference.map(|n| w.bind("SELECT id FROM orders WHERE number = ?", n)));
            w.and(format!("id IN ({})", either.join(" UNION ALL ")));
        }
    }
    w.and_if("status = ?", query.status.map(|s| s.as_str().to_string()));
    w.and_if("provider_status = ?", query.provider_status.map(str::to_string));
    w.and_if("customer_id = ?", query.customer_id.clone());
    w.and_if("product_id = ?", query.product_id.clone());
    w.and_if("created_at >= ?", query.from.clone());
    w.and_if("created_at < ?", query.to.clone());
    let filter = w.sql();
    let values = w.values();
    let (limit, offset) = (i64::from(query.limit), (i64::from(query.page) - 1) * i64::from(query.limit));
    let mut page_values = values.clone();
    page_values.extend([&limit as &(dyn tokio_postgres::types::ToSql + Sync), &offset]);
    let (limit_at, offset_at) = (w.count() + 1, w.count() + 2);
    let count = format!("SELECT COUNT(*) FROM orders WHERE {filter}");
    let page = format!(
        "SELECT {ORDER_COLUMNS} FROM orders WHERE {filter}
         ORDER BY created_at DESC, number DESC LIMIT ${limit_at} OFFSET ${offset_at}"
    );
    // Both at once, pipelined on the one connection.
    let (total, rows) = if query.search.is_some() {
        // The buyers are values now, so any plan is a good one: cached statements save planning.
        let (count, page) = futures::try_join!(db.prepare_cached(&count), db.prepare_cached(&page)).sql()?;
        futures::try_join!(db.query_one(&count, &values), db.query(&page, &page_values)).sql()?
    } else {
        // Planned afresh each time, not cached: after five runs PostgreSQL may keep a generic plan
        // made without the values (for the search text it once walked the newest-first index
        // and filtered every row: 124 ms for a rare e-mail, 2 ms planned with it).
        futures::try_join!(db.query_one(&count, &values), db.query(&page, &page_values)).sql()?
    };
    let total: i64 = total.get(0);
    Ok((rows.iter().map(|row| order_of(row).dto).collect(), total as u64))
}

/// Paid orders made in the span, by UTC day, in `currency` (another currency at the order's own
/// rate): whole days from the roll-up the trigger of migration 0013 keeps, the ends from the
/// orders with the same sums.
pub async fn daily_sales(db: &impl GenericClient, span: &SalesSpan, currency: &str) -> Result<Vec<DaySales>> {
    const IN_CURRENCY: &str = "CASE WHEN currency = $1 THEN total ELSE converted_amount(total, currency_rate) END,
        CASE WHEN currency = $1 THEN refunded_amount ELSE converted_amount(refunded_amount, currency_rate) END";
    let sql = format!(
        "SELECT day, SUM(n)::BIGINT, SUM(gross)::BIGINT, SUM(refunds)::BIGINT FROM (
            SELECT day, orders AS n,
                   CASE WHEN currency = $1 THEN gross ELSE converted_gross END AS gross,
                   CASE WHEN currency = $1 THEN refunds ELSE converted_refunds END AS refunds
            FROM sales_by_day WHERE day >= $4 AND day < $5 AND orders > 0
            UNION ALL
            SELECT substr(created_at, 1, 10), 1, {IN_CURRENCY}
            FROM orders WHERE status = 'paid' AND created_at >= $2 AND created_at < $3
            UNION ALL
            SELECT substr(created_at, 1, 10), 1, {IN_CURRENCY}
            FROM orders WHERE status = 'paid' AND created_at >= $6 AND created_at < $7
         ) AS sales GROUP BY day ORDER BY day"
    );
    let values: [&(dyn tokio_postgres::types::ToSql + Sync); 7] =
        [&currency, &span.from, &span.head_end, &span.first_day, &span.end_day, &span.tail_start, &span.to];
    let rows = db.query(&db.prepare_cached(&sql).await.sql()?, &values).await.sql()?;
    Ok(rows
        .iter()
        .map(|row| DaySales { date: row.get(0), orders: row.get(1), gross: row.get(2), refunds: row.get(3) })
        .collect())
}

/// The subscriptions' figures; the monthly revenue of a plan billed every N days, weeks, months
/// or years is its price spread over the months that covers.
pub async fn subscription_figures(db: &impl GenericClient, from: &str, to: &str) -> Result<SubscriptionFigures> {
    let sql = "SELECT
            COUNT(*) FILTER (WHERE s.provider_status IN ('on_trial', 'active', 'paused', 'past_due', 'unpaid')),
            COUNT(*) FILTER (WHERE s.created_at >= $1 AND s.created_at < $2),
            COUNT(*) FILTER (WHERE s.provider_status = 'cancelled' AND s.updated_at >= $1 AND s.updated_at < $2),
            COUNT(*) FILTER (WHERE s.provider_status IN ('past_due', 'unpaid')),
            COALESCE(SUM(CASE v.billing_interval
                    WHEN 'month' THEN v.price / COALESCE(v.interval_count, 1)
                    WHEN 'year' THEN v.price / (12 * COALESCE(v.interval_count, 1))
                    WHEN 'week' THEN v.price * 52 / (12 * COALESCE(v.interval_count, 1))
                    WHEN 'day' THEN v.price * 365 / (12 * COALESCE(v.interval_count, 1))
                    ELSE 0 END) FILTER (WHERE s.provider_status IN ('active', 'past_due')), 0)::BIGINT
         FROM subscriptions s LEFT JOIN variants v ON v.id = s.variant_id";
    let row = db.query_one(&db.prepare_cached(sql).await.sql()?, &[&from, &to]).await.sql()?;
    Ok(SubscriptionFigures {
        active: row.get(0),
        new: row.get(1),
        cancelled: row.get(2),
        past_due: row.get(3),
        mrr: row.get(4),
    })
}

pub async fn pending_orders(db: &impl GenericClient, since: &str) -> Result<Vec<OrderRecord>> {
    let sql =
        format!("SELECT {ORDER_COLUMNS} FROM orders WHERE status = 'pending' AND created_at >= $1 ORDER BY number");
    Ok(db.query(&sql, &[&since]).await.sql()?.iter().map(order_of).collect())
}

pub async fn update_order_from_provider(db: &impl GenericClient, order: &OrderRecord) -> Result<()> {
    let o = &order.dto;
    db.execute(
        "UPDATE orders SET status = $2, provider_order_id = $3, provider_status = $4, provider_updated_at = $5,
                paid_at = $6, refunded_at = $7, customer_id = $8, updated_at = $9, total = $10, currency = $11,
                review = $12, refunded_amount = $13, order_number = $14, items = $15, discount_total = $16,
                tax = $17, receipt_url = $18, currency_rate = $19 WHERE id = $1",
        &[
            &o.id,
            &o.status.as_str(),
            &o.provider_order_id,
            &o.provider_status,
            &order.provider_updated_at,
            &o.paid_at,
            &o.refunded_at,
            &o.customer_id,
            &o.updated_at,
            &o.total,
            &o.currency,
            &o.review,
            &o.refunded_amount,
            &o.order_number,
            &items_to_json(&o.items),
            &o.discount_total,
            &o.tax,
            &o.receipt_url,
            &order.currency_rate,
        ],
    )
    .await
    .sql()?;
    Ok(())
}

pub async fn sync_state(db: &impl GenericClient, resource: &str) -> Result<SyncState> {
    let row = db
        .query_opt("SELECT synced_at, attempted_at, error FROM sync_state WHERE resource = $1", &[&resource])
        .await
        .sql()?;
    Ok(row
        .map(|row| SyncState { synced_at: row.get(0), attempted_at: row.get(1), error: row.get(2) })
        .unwrap_or_default())
}

pub async fn record_sync(db: &impl GenericClient, resource: &str, at: &str, error: Option<&str>) -> Result<()> {
    db.execute(
        "INSERT INTO sync_state (resource, synced_at, attempted_at, error)
         VALUES ($1, CASE WHEN $3::TEXT IS NULL THEN $2 END, $2, $3)
         ON CONFLICT (resource) DO UPDATE SET synced_at = CASE WHEN $3::TEXT IS NULL THEN $2 ELSE sync_state.synced_at END,
             attempted_at = $2, error = $3",
        &[&resource, &at, &error],
    )
    .await.sql()?;
    Ok(())
}

#[async_trait::async_trait]
impl PaymentStore for Postgres {
    async fn sync_state(&self, resource: &'static str) -> Result<SyncState> {
        sync_state(&self.client().await?, resource).await
    }

    async fn record_sync(&self, resource: &'static str, at: String, error: Option<String>) -> Result<()> {
        record_sync(&self.client().await?, resource, &at, error.as_deref()).await
    }

    async fn replace_products(
        &self,
        products: Vec<ProductDto>,
        variants: Vec<(String, VariantDto, i64)>,
        now: String,
    ) -> Result<()> {
        replace_products(&mut self.client().await?, &products, &variants, &now).await
    }

    async fn upsert_product(&self, product: ProductDto, now: String) -> Result<()> {
        upsert_product(&mut self.client().await?, &product, &now).await
    }

    async fn list_products(
        &self,
        status: Option<&'static str>,
        search: Option<String>,
        page: u32,
        limit: u32,
    ) -> Result<(Vec<ProductDto>, u64)> {
        list_products(&self.client().await?, status, search.as_deref(), page, limit).await
    }

    async fn product(&self, id: String) -> Result<Option<ProductDto>> {
        get_product(&self.client().await?, &id).await
    }

    async fn replace_subscriptions(
        &self,
        subscriptions: Vec<SubscriptionDto>,
        now: String,
        since: String,
    ) -> Result<()> {
        replace_subscriptions(&mut self.client().await?, &subscriptions, &now, &since).await
    }

    async fn upsert_subscription(&self, subscription: SubscriptionDto, now: String) -> Result<()> {
        upsert_subscription(&self.client().await?, &subscription, &now).await
    }

    async fn list_subscriptions(&self, query: SubscriptionQuery) -> Result<(Vec<SubscriptionDto>, u64)> {
        list_subscriptions(&self.client().await?, &query).await
    }

    async fn subscription(&self, id: String) -> Result<Option<SubscriptionDto>> {
        get_subscription(&self.client().await?, &id).await
    }

    async fn insert_order(&self, order: OrderRecord) -> Result<Option<i64>> {
        insert_order(&self.client().await?, &order).await
    }

    async fn order(&self, id: String) -> Result<Option<OrderRecord>> {
        get_order(&self.client().await?, &id).await
    }

    async fn order_by_provider_id(&self, provider_id: String) -> Result<Option<OrderRecord>> {
        find_order_by_provider_id(&self.client().await?, &provider_id).await
    }

    async fn list_orders(&self, query: OrderQuery) -> Result<(Vec<OrderDto>, u64)> {
        list_orders(&self.client().await?, &query).await
    }

    async fn daily_sales(&self, span: SalesSpan, currency: String) -> Result<Vec<DaySales>> {
        daily_sales(&self.client().await?, &span, &currency).await
    }

    async fn subscription_figures(&self, from: String, to: String) -> Result<SubscriptionFigures> {
        subscription_figures(&self.client().await?, &from, &to).await
    }

    async fn pending_orders(&self, since: String) -> Result<Vec<OrderRecord>> {
        pending_orders(&self.client().await?, &since).await
    }

    async fn update_order_from_provider(&self, order: OrderRecord) -> Result<()> {
        update_order_from_provider(&self.client().await?, &order).await
    }
}
