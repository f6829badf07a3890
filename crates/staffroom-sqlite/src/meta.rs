//! SQLite's SQL of the `meta` table: settings and marks, one text value per key.

use crate::Sql as _;
use rusqlite::OptionalExtension;

use super::Sqlite;
use staffroom_core::error::Result;
use staffroom_core::store::MetaStore;

#[async_trait::async_trait]
impl MetaStore for Sqlite {
    async fn set_meta(&self, key: &'static str, value: String) -> Result<()> {
        self.write(move |conn| {
            conn.execute(
                "INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = ?2",
                [key, value.as_str()],
            )
            .sql()?;
            Ok(())
        })
        .await
    }

    async fn meta(&self, key: &'static str) -> Result<Option<String>> {
        self.call(move |conn| {
            Ok(conn.query_row("SELECT value FROM meta WHERE key = ?1", [key], |row| row.get(0)).optional().sql()?)
        })
        .await
    }

    async fn meta_insert_if_absent(&self, key: &'static str, value: String) -> Result<String> {
        self.write(move |conn| {
            conn.execute(
                "INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO NOTHING",
                [key, value.as_str()],
            )
            .sql()?;
            Ok(conn.query_row("SELECT value FROM meta WHERE key = ?1", [key], |row| row.get(0)).sql()?)
        })
        .await
    }
}
