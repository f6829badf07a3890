//! The team store's half of copying a desktop into a team (`staffroom migrate`): the tables the
//! desktop's store read, written in one transaction by the columns they name, into a team
//! database that has no data yet, with each value as its column's type takes it.

use tokio_postgres::types::{ToSql, Type};
use tokio_postgres::Transaction;

use staffroom_core::error::{Error, ErrorCode, Result};
use staffroom_core::store::transfer::{Cell, DesktopData, TableRows};

use crate::{Postgres, Sql as _};

impl Postgres {
    /// Writes `copy` into this (empty) team database, once: refused when any table it copies
    /// already has rows, or when the database holds the other mode's data. How many rows of
    /// each table were written.
    pub async fn import(&self, copy: DesktopData) -> Result<Vec<(String, u64)>> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.sql()?;
        let names: Vec<&str> = copy.tables.iter().map(|t| t.table.as_str()).collect();
        // One copy at a time, and none into a team that already has data.
        if !names.is_empty() {
            tx.execute(&format!("LOCK TABLE {} IN EXCLUSIVE MODE", names.join(", ")), &[]).await.sql()?;
        }
        let target_mode: Option<String> =
            tx.query_opt("SELECT value FROM meta WHERE key = 'data_mode'", &[]).await.sql()?.map(|row| row.get(0));
        match target_mode {
            Some(target) if target != copy.mode => {
                return Err(Error::new(
                    ErrorCode::Conflict,
                    format!("the data dir holds {} data and the team's database is {target}: a sandbox's data (with its public demo account) never enters a real team, nor the other way round", copy.mode),
                ));
            }
            Some(_) => {}
            None => {
                tx.execute("INSERT INTO meta (key, value) VALUES ('data_mode', $1)", &[&copy.mode]).await.sql()?;
            }
        }
        // A team served before the copy has tried to sync (with nothing to sync into): its sync
        // state gives way to the desktop's. Any other row means the team has data of its own.
        for table in names.iter().filter(|t| **t != "sync_state") {
            let rows: i64 = tx.query_one(&format!("SELECT COUNT(*) FROM {table}"), &[]).await.sql()?.get(0);
            if rows > 0 {
                return Err(Error::new(
                    ErrorCode::Conflict,
                    format!("the team's database is not empty ({table} has {rows} rows): migrate copies a data dir into a new database only, once"),
                ));
            }
        }
        if names.contains(&"sync_state") {
            tx.execute("DELETE FROM sync_state", &[]).await.sql()?;
        }
        let mut copied = Vec::new();
        for table in &copy.tables {
            copied.push((table.table.clone(), write(&tx, table).await?));
        }
        // The next order continues the desktop's numbering (orders take theirs from a sequence).
        tx.execute(
            "SELECT setval('order_numbers', GREATEST((SELECT MAX(number) FROM orders), 1), (SELECT MAX(number) FROM orders) IS NOT NULL)",
            &[],
        )
        .await
        .sql()?;
        for (key, value) in &copy.settings {
            tx.execute(
                "INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = $2",
                &[key, value],
            )
            .await
            .sql()?;
        }
        tx.commit().await.sql()?;
        Ok(copied)
    }
}

/// Writes one table's rows; the ids of an identity column are kept, and its sequence moved on
/// past them.
async fn write(tx: &Transaction<'_>, table: &TableRows) -> Result<u64> {
    let identities: Vec<String> = tx
        .query(
            "SELECT column_name FROM information_schema.columns \
             WHERE table_schema = current_schema() AND table_name = $1 AND is_identity = 'YES'",
            &[&table.table],
        )
        .await
        .sql()?
        .iter()
        .map(|row| row.get(0))
        .collect();
    let overriding = if identities.is_empty() { "" } else { "OVERRIDING SYSTEM VALUE" };
    let columns = table.columns.join(", ");
    let placeholders: Vec<String> = (1..=table.columns.len()).map(|n| format!("${n}")).collect();
    let insert = tx
        .prepare(&format!("INSERT INTO {} ({columns}) {overriding} VALUES ({})", table.table, placeholders.join(", ")))
        .await
        .map_err(|e| Error::internal("migrate", format!("{} cannot take the desktop's columns: {e}", table.table)))?;
    for row in &table.rows {
        let values = row
            .iter()
            .zip(insert.params())
            .map(|(cell, ty)| to_pg(cell, ty, &table.table))
            .collect::<Result<Vec<_>>>()?;
        let params: Vec<&(dyn ToSql + Sync)> = values.iter().map(|v| v.as_ref() as &(dyn ToSql + Sync)).collect();
        tx.execute(&insert, &params).await.sql()?;
    }
    for column in identities {
        let table = &table.table;
        tx.execute(
            &format!("SELECT setval(pg_get_serial_sequence('{table}', '{column}'), GREATEST((SELECT MAX({column}) FROM {table}), 1), (SELECT MAX({column}) FROM {table}) IS NOT NULL)"),
            &[],
        )
        .await
        .sql()?;
    }
    Ok(table.rows.len() as u64)
}

/// A value read from SQLite, as the PostgreSQL column `ty` takes it (SQLite's 0/1 becomes a
/// boolean).
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
