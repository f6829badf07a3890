//! PostgreSQL's SQL of the `meta` table: settings and marks, one text value per key.

use super::Postgres;
use crate::Sql as _;
use staffroom_core::error::Result;
use staffroom_core::store::MetaStore;

#[async_trait::async_trait]
impl MetaStore for Postgres {
    async fn set_meta(&self, key: &'static str, value: String) -> Result<()> {
        self.client()
            .await?
            .execute(
                "INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = $2",
                &[&key, &value],
            )
            .await
            .sql()?;
        Ok(())
    }

    async fn meta(&self, key: &'static str) -> Result<Option<String>> {
        let row = self.client().await?.query_opt("SELECT value FROM meta WHERE key = $1", &[&key]).await.sql()?;
        Ok(row.map(|row| row.get(0)))
    }

    async fn meta_insert_if_absent(&self, key: &'static str, value: String) -> Result<String> {
        let client = self.client().await?;
        client
            .execute("INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING", &[&key, &value])
            .await
            .sql()?;
        Ok(client.query_one("SELECT value FROM meta WHERE key = $1", &[&key]).await.sql()?.get(0))
    }
}
