//! `Core`: every service, built once from a `Config`, shared by all doors.

use std::sync::Arc;

use crate::audit::Audit;
use crate::auth::{token, AuthService};
use crate::config::Config;
use crate::error::{Error, Result};
use crate::secrets::{Secret, Secrets};
use crate::store::Db;
use crate::webhooks::{EventApplier, KeepOnly, WebhookReceiver};

/// The id of this installation, which namespaces its keyring entries.
const INSTALL_ID_KEY: &str = "install_id";

/// The services of one running Staffroom.
#[derive(Clone)]
pub struct Core {
    pub config: Arc<Config>,
    pub db: Db,
    pub secrets: Secrets,
    pub audit: Audit,
    pub auth: AuthService,
    /// The webhook receiver, when this core receives webhooks (`config.receive_webhooks`).
    pub webhooks: Option<WebhookReceiver>,
}

impl Core {
    /// Opens the data dir (creating it), the database, the secrets, and builds the services.
    /// Blocking work (migrations, keyring) runs off the async threads.
    pub async fn open(config: Config) -> Result<Core> {
        let mut core = tokio::task::spawn_blocking(move || Core::open_blocking(config)).await??;
        if core.config.sandbox && core.secrets.get("webhook_secret").map_err(Error::from)?.is_none() {
            // The sandbox signs its own deliveries with a secret made for this run.
            core.secrets.set_override("webhook_secret", crate::auth::token::generate_key());
        }
        if core.config.receive_webhooks {
            let applier: Arc<dyn EventApplier> = Arc::new(KeepOnly);
            core.webhooks = Some(WebhookReceiver::start(&core.db, core.secrets.clone(), applier).await?);
        }
        Ok(core)
    }

    fn open_blocking(config: Config) -> Result<Core> {
        std::fs::create_dir_all(&config.data_dir).map_err(|e| {
            Error::new(
                crate::ErrorCode::Internal,
                format!("cannot create the data dir {}: {e}", config.data_dir.display()),
            )
        })?;
        let db = Db::open(&config.data_dir).map_err(|e| Error::new(crate::ErrorCode::Internal, e.to_string()))?;
        let install_id = db.meta_or_insert_blocking(INSTALL_ID_KEY, || uuid::Uuid::new_v4().simple().to_string())?;
        let store = config
            .secret_backend
            .open(&install_id)
            .map_err(|e| Error::new(crate::ErrorCode::Internal, e.to_string()))?;
        let secrets = Secrets::new(store);
        let key = secrets
            .get_or_create("jwt_key", token::generate_key)
            .map_err(|e| Error::new(crate::ErrorCode::Internal, e.to_string()))?;
        let keys = token::TokenKeys::from_secret(&key)?;
        let audit = Audit::new(db.clone());
        let auth = AuthService::new(db.clone(), keys, config.session, config.max_concurrent_hashes, audit.clone());
        Ok(Core { config: Arc::new(config), db, secrets, audit, auth, webhooks: None })
    }

    /// Stores a secret (admin action from Settings or the CLI), with an audit entry.
    pub async fn set_secret(&self, actor: &crate::auth::Actor, name: &str, value: Secret) -> Result<()> {
        actor.require_admin()?;
        crate::secrets::validate_name(name).map_err(|e| Error::invalid_field("name", e.to_string()))?;
        let secrets = self.secrets.clone();
        let owned = name.to_string();
        tokio::task::spawn_blocking(move || secrets.set(&owned, &value)).await?.map_err(Error::from)?;
        self.audit.record(actor.audit_name(), "settings.secret_set", Some(name), "success", None).await;
        if let (Some(webhooks), "webhook_secret") = (&self.webhooks, name) {
            webhooks.reload_secret().await?;
        }
        Ok(())
    }
}
