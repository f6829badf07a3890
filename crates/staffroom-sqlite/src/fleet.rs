//! A database no replica shares: every fleet-wide lock is this process's alone, and there are no
//! sealed secrets (a desktop keeps its secrets in the OS keyring).

use super::Sqlite;
use staffroom_core::error::{Error, ErrorCode, Result};
use staffroom_core::store::{FleetLock, FleetStore};

fn not_shared() -> Error {
    Error::new(ErrorCode::Internal, "sealed secrets are kept only in a team's database")
}

#[async_trait::async_trait]
impl FleetStore for Sqlite {
    fn is_shared(&self) -> bool {
        false
    }

    async fn take_fleet_lock(&self, _key: i64, _wait: bool) -> Result<Option<FleetLock>> {
        Ok(Some(FleetLock::alone()))
    }

    async fn sealed_secret(&self, _name: &str) -> Result<Option<Vec<u8>>> {
        Err(not_shared())
    }

    async fn put_sealed_secret(&self, _name: &str, _sealed: &[u8]) -> Result<()> {
        Err(not_shared())
    }

    async fn delete_sealed_secret(&self, _name: &str) -> Result<()> {
        Err(not_shared())
    }
}
