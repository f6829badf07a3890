//! Growing up (SPEC section 10): one desktop's data dir copied into a team's PostgreSQL database,
//! once. Accounts, the payment cache and orders, the webhook inbox, the settings and the audit
//! log go across in one transaction; sessions, sign-in locks and document caches stay behind
//! (staff sign in again). A non-empty target is refused, and the sandbox-or-real mark goes with
//! the data: a sandbox dir (with its public demo account) goes only into a sandbox database.

use rusqlite::types::ValueRef;
use tokio_postgres::types::{ToSql, Type};

use staffroom_core::error::{Error, ErrorCode, Result};
use staffroom_core::store::MetaStore as _;
use staffroom_postgres::{Postgres, Sql as _};
use staffroom_sqlite::{Sql as _, Sqlite};

/// The tables copied, in an order that keeps references whole, with their columns.
const TABLES: &[(&str, &str)] = &[
    ("users", "id, email, name, role, password_hash, disabled, created_at, updated_at, password_changed_at"),
    ("audit_log", "id, at, actor, action, target, outcome, detail"),
    ("products", "id, name, slug, price, currency, status, description, created_at, updated_at, synced_at"),
    ("variants", "id, product_id, name, price, status, is_subscription, sort"),
    (
        "subscriptions",
        "id, customer_id, provider_status, status, product_id, variant_id, order_id, user_name, user_email, product_name, variant_name, pause_mode, pause_resumes_at, renews_at, ends_at, created_at, updated_at, synced_at",
    ),
    ("subscription_payments", "subscription_id, status, at"),
    (
        "orders",
        "id, number, status, product_id, variant_id, customer_id, email, name, billing_address, metadata, total, currency, checkout_id, checkout_url, provider_order_id, provider_status, paid_at, refunded_at, created_by, created_at, updated_at, provider_updated_at, store_id, subtotal, test_mode, review, refunded_amount, source, order_number, items, discount_total, tax, receipt_url, currency_rate",
    ),
    (
        "invoices",
        "id, subscription_id, customer_id, billing_reason, status, total, refunded_amount, currency, card_brand, card_last_four, invoice_url, created_at, updated_at, synced_at",
    ),
    (
        "license_keys",
        "id, key_short, status, disabled, activation_limit, activation_usage, expires_at, provider_order_id, customer_id, user_name, user_email, product_id, created_at, updated_at, synced_at",
    ),
    (
        "discounts",
        "id, name, code, amount, amount_type, duration, duration_in_months, starts_at, expires_at, max_redemptions, variant_ids, status, created_at, updated_at, synced_at",
    ),
    ("discount_redemptions", "id, discount_id, provider_order_id, amount, created_at"),
    ("sync_state", "resource, synced_at, attempted_at, error"),
    (
        "webhook_events",
        "id, dedupe_key, webhook_id, event_name, resource_type, resource_id, body, verified, received_at, applied_at, outcome, order_id, subscription_id",
    ),
];

/// Tables whose ids PostgreSQL generates: copied with their ids, then their sequences moved on.
const IDENTITY_TABLES: &[&str] = &["audit_log", "webhook_events"];

/// The settings that travel (the install id, the mode mark and the keys are the target's own).
const SETTINGS: &[&str] = &["audit_retention_days", "payments_sync_interval_secs"];

/// How many rows of each table were copied.
pub type Copied = Vec<(&'static str, u64)>;

/// What the data dir holds: the mode it records, or the one the operator named for a dir that
/// records none; a contradiction, or neither, is refused.
fn source_mode(recorded: Option<String>, named: Option<&str>) -> Result<String> {
    match (recorded, named) {
        (Some(recorded), Some(named)) if recorded != named => Err(Error::invalid_field(
            "source-mode",
            format!("the data dir records that it holds {recorded} data, not {named}"),
        )),
        (Some(recorded), _) => Ok(recorded),
        (None, Some(named)) => Ok(named.to_string()),
        (None, None) => Err(Error::invalid_field(
            "source-mode",
            "the data dir does not record whether it holds sandbox or real data: name it with \
             --source-mode real (or sandbox), after checking that it has no sandbox demo account",
        )),
    }
}

/// Copies the data dir's database `source` into the team's database `target`. A data dir that does not
/// record whether it is a sandbox's (made before data dirs did) is copied only when the operator
/// says what it holds (`named_mode`, `real` or `sandbox`): a sandbox's public demo account must
/// never enter a real team by default.
pub async fn from_data_dir(source: &Sqlite, target: &Postgres, named_mode: Option<&str>) -> Result<Copied> {
    let source_mode = Some(source_mode(source.meta("data_mode").await?, named_mode)?);
    let mut client = target.client().await?;
    let tx = client.transaction().await.sql()?;
    // One copy at a time, and none into a team that already has data.
    tx.execute("LOCK TABLE users, orders, webhook_events, audit_log IN EXCLUSIVE MODE", &[]).await.sql()?;
    for table in ["users", "orders", "webhook_events", "audit_log", "products", "subscriptions"] {
        let rows: i64 = tx.query_one(&format!("SELECT COUNT(*) FROM {table}"), &[]).await.sql()?.get(0);
        if rows > 0 {
            return Err(Error::new(
                ErrorCode::Conflict,
                format!("the team's database is not empty ({table} has {rows} rows): migrate copies a data dir into a new database only, once"),
            ));
        }
    }
    let target_mode: Option<String> =
        tx.query_opt("SELECT value FROM meta WHERE key = 'data_mode'", &[]).await.sql()?.map(|row| row.get(0));
    match (source_mode.as_deref(), target_mode.as_deref()) {
        (Some(source), Some(target)) if source != target => {
            return Err(Error::new(
                ErrorCode::Conflict,
                format!("the data dir holds {source} data and the team's database is {target}: a sandbox's data (with its public demo account) never enters a real team, nor the other way round"),
            ));
        }
        (Some(source), None) => {
            tx.execute("INSERT INTO meta (key, value) VALUES ('data_mode', $1)", &[&source]).await.sql()?;
        }
        _ => {}
    }
    let mut copied = Vec::new();
    for (table, columns) in TABLES {
        let rows = read_rows(source, table, columns).await?;
        let count = rows.len() as u64;
        let overriding = if IDENTITY_TABLES.contains(table) { "OVERRIDING SYSTEM VALUE" } else { "" };
        let placeholders: Vec<String> = (1..=columns.split(',').count()).map(|n| format!("${n}")).collect();
        let insert = tx
            .prepare(&format!("INSERT INTO {table} ({columns}) {overriding} VALUES ({})", placeholders.join(", ")))
            .await
            .sql()?;
        for row in rows {
            let values = row
                .iter()
                .zip(insert.params())
                .map(|(value, ty)| to_pg(value, ty, table))
                .collect::<Result<Vec<_>>>()?;
            let params: Vec<&(dyn ToSql + Sync)> = values.iter().map(|v| v.as_ref() as &(dyn ToSql + Sync)).collect();
            tx.execute(&insert, &params).await.sql()?;
        }
        copied.push((*table, count));
    }
    for table in IDENTITY_TABLES {
        tx.execute(
            &format!("SELECT setval(pg_get_serial_sequence('{table}', 'id'), GREATEST((SELECT MAX(id) FROM {table}), 1), (SELECT MAX(id) FROM {table}) IS NOT NULL)"),
            &[],
        )
        .await.sql()?;
    }
    // The next order continues the desktop's numbering.
    tx.execute(
        "SELECT setval('order_numbers', GREATEST((SELECT MAX(number) FROM orders), 1), (SELECT MAX(number) FROM orders) IS NOT NULL)",
        &[],
    )
    .await.sql()?;
    for key in SETTINGS {
        if let Some(value) = source.meta(key).await? {
            tx.execute(
                "INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = $2",
                &[key, &value],
            )
            .await
            .sql()?;
        }
    }
    tx.commit().await.sql()?;
    Ok(copied)
}

/// A value read from SQLite, as it was stored.
enum Cell {
    Null,
    Integer(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
}

async fn read_rows(source: &Sqlite, table: &'static str, columns: &'static str) -> Result<Vec<Vec<Cell>>> {
    source
        .call(move |conn| {
            let mut statement = conn.prepare(&format!("SELECT {columns} FROM {table} ORDER BY rowid")).sql()?;
            let width = statement.column_count();
            let rows = statement
                .query_map([], |row| {
                    (0..width)
                        .map(|i| {
                            Ok(match row.get_ref(i)? {
                                ValueRef::Null => Cell::Null,
                                ValueRef::Integer(n) => Cell::Integer(n),
                                ValueRef::Real(x) => Cell::Real(x),
                                ValueRef::Text(t) => Cell::Text(String::from_utf8_lossy(t).into_owned()),
                                ValueRef::Blob(b) => Cell::Blob(b.to_vec()),
                            })
                        })
                        .collect::<rusqlite::Result<Vec<_>>>()
                })
                .sql()?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>().sql()?)
        })
        .await
}

/// A SQLite value as the PostgreSQL column `ty` takes it (SQLite's 0/1 becomes a boolean).
fn to_pg(cell: &Cell, ty: &Type, table: &str) -> Result<Box<dyn ToSql + Sync + Send>> {
    let mismatch = || Error::internal("migrate", format!("a value of {table} does not fit PostgreSQL's {ty}"));
    let column = [(Type::INT8, "integer"), (Type::BOOL, "boolean"), (Type::TEXT, "text"), (Type::BYTEA, "bytes")]
        .into_iter()
        .find_map(|(known, name)| (*ty == known).then_some(name))
        .ok_or_else(mismatch)?;
    Ok(match (column, cell) {
        ("integer", Cell::Null) => Box::new(None::<i64>),
        ("integer", Cell::Integer(n)) => Box::new(*n),
        ("boolean", Cell::Null) => Box::new(None::<bool>),
        ("boolean", Cell::Integer(n)) => Box::new(*n != 0),
        ("text", Cell::Null) => Box::new(None::<String>),
        ("text", Cell::Text(text)) => Box::new(text.clone()),
        ("text", Cell::Integer(n)) => Box::new(n.to_string()),
        ("text", Cell::Real(x)) => Box::new(x.to_string()),
        ("bytes", Cell::Null) => Box::new(None::<Vec<u8>>),
        ("bytes", Cell::Blob(bytes)) => Box::new(bytes.clone()),
        ("bytes", Cell::Text(text)) => Box::new(text.clone().into_bytes()),
        _ => return Err(mismatch()),
    })
}
