//! What only a database shared by replicas does: fleet-wide locks (advisory locks held by an open
//! transaction) and the team's sealed secrets.

use super::Postgres;
use crate::Sql as _;
use staffroom_core::error::{Error, Result};
use staffroom_core::store::{FleetLock, FleetStore};

impl Postgres {
    /// Takes the fleet-wide lock `key` (waiting for it with `wait`, else `None` when another
    /// replica holds it), held until the returned guard is dropped, or this process dies: a
    /// transaction kept open on a connection of the pool holds it.
    pub async fn fleet_lock(&self, key: i64, wait: bool) -> Result<Option<FleetLock>> {
        let (locked, answer) = tokio::sync::oneshot::channel::<Result<bool>>();
        let (release, released) = tokio::sync::oneshot::channel::<()>();
        let pool = self.pool.clone();
        tokio::spawn(async move {
            let mut client = match pool.get().await.sql() {
                Ok(client) => client,
                Err(err) => return drop(locked.send(Err(err))),
            };
            let tx = match client.transaction().await.sql() {
                Ok(tx) => tx,
                Err(err) => return drop(locked.send(Err(err))),
            };
            let got = if wait {
                tx.execute("SELECT pg_advisory_xact_lock($1)", &[&key]).await.map(|_| true)
            } else {
                tx.query_one("SELECT pg_try_advisory_xact_lock($1)", &[&key]).await.map(|row| row.get(0))
            };
            let held = matches!(got, Ok(true));
            if locked.send(got.sql()).is_ok() && held {
                // Until the guard is dropped (its sender with it).
                let _ = released.await;
            }
            let _ = tx.rollback().await;
        });
        match answer.await {
            Ok(Ok(true)) => Ok(Some(FleetLock::held_until_dropped(release))),
            Ok(Ok(false)) => Ok(None),
            Ok(Err(err)) => Err(err),
            Err(_) => Err(Error::internal("fleet lock", "the lock's task ended")),
        }
    }

    /// A sealed secret's stored bytes.
    pub async fn sealed(&self, name: &str) -> Result<Option<Vec<u8>>> {
        let row = self
            .client()
            .await?
            .query_opt("SELECT sealed FROM sealed_secrets WHERE name = $1", &[&name])
            .await
            .sql()?;
        Ok(row.map(|row| row.get(0)))
    }

    /// Keeps a sealed secret, replacing the one before.
    pub async fn put_sealed(&self, name: &str, sealed: &[u8]) -> Result<()> {
        self.client()
            .await?
            .execute(
                "INSERT INTO sealed_secrets (name, sealed, updated_at) VALUES ($1, $2, $3)
                 ON CONFLICT (name) DO UPDATE SET sealed = $2, updated_at = $3",
                &[&name, &sealed, &staffroom_core::time::now_rfc3339()],
            )
            .await
            .sql()?;
        Ok(())
    }

    /// Forgets a sealed secret.
    pub async fn delete_sealed(&self, name: &str) -> Result<()> {
        self.client().await?.execute("DELETE FROM sealed_secrets WHERE name = $1", &[&name]).await.sql()?;
        Ok(())
    }
}

#[async_trait::async_trait]
impl FleetStore for Postgres {
    fn is_shared(&self) -> bool {
        true
    }

    async fn take_fleet_lock(&self, key: i64, wait: bool) -> Result<Option<FleetLock>> {
        self.fleet_lock(key, wait).await
    }

    async fn sealed_secret(&self, name: &str) -> Result<Option<Vec<u8>>> {
        self.sealed(name).await
    }

    async fn put_sealed_secret(&self, name: &str, sealed: &[u8]) -> Result<()> {
        self.put_sealed(name, sealed).await
    }

    async fn delete_sealed_secret(&self, name: &str) -> Result<()> {
        self.delete_sealed(name).await
    }
}
