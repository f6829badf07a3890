//! The embedded store's half of copying a desktop into a team (`staffroom migrate`): every table
//! of data, read whole by the columns SQLite names, in an order that keeps references whole.

use rusqlite::types::ValueRef;
use rusqlite::Connection;

use staffroom_core::error::Result;
use staffroom_core::store::transfer::{Cell, TableRows};

use crate::{Sql as _, Sqlite};

/// Tables this store keeps for itself, from the others: totals kept in step by triggers (a copy
/// of their rows would count twice where the target keeps its own) and a retired table.
const DERIVED: &[&str] = &["sales_by_day", "login_throttle"];

impl Sqlite {
    /// Every table of data but those in `leave`, with all their rows.
    pub async fn export(&self, leave: &'static [&'static str]) -> Result<Vec<TableRows>> {
        self.call(move |conn| {
            let tables = data_tables(conn)?;
            let ordered =
                referenced_first(conn, tables.into_iter().filter(|t| !leave.contains(&t.as_str())).collect())?;
            ordered.into_iter().map(|table| read(conn, table)).collect()
        })
        .await
    }
}

/// The tables that hold data: not SQLite's own, not a full-text index or its shadow tables,
/// not one of [`DERIVED`].
fn data_tables(conn: &Connection) -> Result<Vec<String>> {
    let mut statement = conn.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name").sql()?;
    let all: Vec<(String, String)> = statement
        .query_map([], |row| Ok((row.get(0)?, row.get::<_, Option<String>>(1)?.unwrap_or_default())))
        .sql()?
        .collect::<rusqlite::Result<_>>()
        .sql()?;
    let indexes: Vec<&str> = all
        .iter()
        .filter(|(_, sql)| sql.to_uppercase().starts_with("CREATE VIRTUAL TABLE"))
        .map(|(name, _)| name.as_str())
        .collect();
    Ok(all
        .iter()
        .map(|(name, _)| name)
        .filter(|name| !name.starts_with("sqlite_") && !DERIVED.contains(&name.as_str()))
        .filter(|name| !indexes.iter().any(|index| *name == index || name.starts_with(&format!("{index}_"))))
        .cloned()
        .collect())
}

/// `tables` with each after those of them it references (its foreign keys).
fn referenced_first(conn: &Connection, tables: Vec<String>) -> Result<Vec<String>> {
    let mut references = Vec::new();
    for table in &tables {
        let mut statement = conn.prepare(&format!("SELECT \"table\" FROM pragma_foreign_key_list('{table}')")).sql()?;
        let named: Vec<String> =
            statement.query_map([], |row| row.get(0)).sql()?.collect::<rusqlite::Result<_>>().sql()?;
        references.push(named.into_iter().filter(|r| r != table && tables.contains(r)).collect::<Vec<_>>());
    }
    let mut ordered: Vec<String> = Vec::new();
    let mut left: Vec<(String, Vec<String>)> = tables.into_iter().zip(references).collect();
    while !left.is_empty() {
        let (ready, waiting): (Vec<_>, Vec<_>) =
            left.into_iter().partition(|(_, refs)| refs.iter().all(|r| ordered.contains(r)));
        if ready.is_empty() {
            // References in a circle: the rest in any order (there are none in Staffroom's schema).
            ordered.extend(waiting.into_iter().map(|(table, _)| table));
            break;
        }
        ordered.extend(ready.into_iter().map(|(table, _)| table));
        left = waiting;
    }
    Ok(ordered)
}

fn read(conn: &Connection, table: String) -> Result<TableRows> {
    let mut statement = conn.prepare(&format!("SELECT * FROM \"{table}\" ORDER BY 1")).sql()?;
    let columns: Vec<String> = statement.column_names().into_iter().map(str::to_string).collect();
    let width = columns.len();
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
        .sql()?
        .collect::<rusqlite::Result<Vec<_>>>()
        .sql()?;
    Ok(TableRows { table, columns, rows })
}
