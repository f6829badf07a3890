//! `Core`: every service, built once from a `Config`, shared by all doors.

use std::sync::Arc;

use crate::audit::Audit;
use crate::auth::{token, AuthService};
use crate::config::Config;
use crate::docs::client::GoogleClient;
use crate::docs::oauth::GoogleAuth;
use crate::docs::DocService;
use crate::error::{Error, Result};
use crate::events::{EventHub, EventKind};
use crate::payments::apply::PaymentsApplier;
use crate::payments::client::LemonSqueezyClient;
use crate::payments::PaymentService;
use crate::sandbox::Simulators;
use crate::secrets::vault::{NoDataKey, SealedVault};
use crate::secrets::{Secret, Secrets};
use crate::store::Db;
use crate::webhooks::{EventApplier, WebhookReceiver};

/// The id of this installation, which namespaces its keyring entries.
const INSTALL_ID_KEY: &str = "install_id";
/// The `meta` key of the team's JWT key fingerprint (SPEC section 10).
const JWT_FINGERPRINT_KEY: &str = "jwt_key_fingerprint";

/// The secret store of this installation (a sandbox keeps its secrets apart: nothing it makes can
/// stand in for a real one).
fn open_secrets(backend: crate::secrets::SecretBackend, sandbox: bool, install_id: &str) -> Result<Secrets> {
    let namespace = if sandbox { format!("sandbox-{install_id}") } else { install_id.to_string() };
    let store = backend.open(&namespace).map_err(|e| Error::new(crate::ErrorCode::Internal, e.to_string()))?;
    Ok(Secrets::new(store))
}

/// The JWT key of a team server (PostgreSQL), checked; `None` on SQLite, whose key is made on
/// first use and kept in the keyring as before. Every replica of a real team reads `jwt_key` and
/// `data_key` from its own secret store or environment and never makes them: without them a
/// replica refuses to start, naming the command that makes a pair, and one whose `jwt_key` does
/// not match the fingerprint the database keeps refuses too (its tokens would not verify on the
/// others). A sandbox team database keeps generated keys of its own, which guard nothing, for
/// replicas given none. A CLI command signs no token: it never needs the key, and gets a
/// throwaway one when there is none.
async fn team_keys(db: &Db, config: &Config, secrets: &Secrets) -> Result<Option<TeamKeys>> {
    if !db.is_shared() {
        return Ok(None);
    }
    let (mut jwt, mut data) = (secrets.read("jwt_key").await?, secrets.read("data_key").await?);
    if config.sandbox {
        // Keys given to a sandbox replica win, as they do on SQLite; the fingerprint below keeps
        // every replica on the same one.
        if jwt.is_none() {
            let kept = db.meta_insert_if_absent("sandbox_jwt_key", token::generate_key().expose().to_string()).await?;
            jwt = Some(Secret::new(kept));
        }
        if data.is_none() {
            let kept = db.meta_insert_if_absent("sandbox_data_key", token::generate_key().expose().to_string()).await?;
            data = Some(Secret::new(kept));
        }
    }
    let (jwt, data) = match (jwt, data) {
        (Some(jwt), Some(data)) => (jwt, data),
        (_, data) if !config.long_running => return Ok(Some(TeamKeys { jwt: token::generate_key(), data })),
        (jwt, _) => {
            let missing = if jwt.is_none() { "jwt_key" } else { "data_key" };
            return Err(Error::new(
                crate::ErrorCode::InvalidRequest,
                format!(
                    "a team server replica needs {missing} (and every replica the same jwt_key and data_key), from its secret store or STAFFROOM_{}[_FILE]; make a pair with `staffroom secrets generate`",
                    missing.to_uppercase()
                ),
            ));
        }
    };
    for (name, key) in [("jwt_key", &jwt), ("data_key", &data)] {
        if !token::is_key(key) {
            return Err(Error::new(
                crate::ErrorCode::InvalidRequest,
                format!("{name} is not a key `staffroom secrets generate` makes (base64url of 32 bytes or more)"),
            ));
        }
    }
    if config.long_running {
        let fingerprint = token::fingerprint(&jwt);
        let kept = db.meta_insert_if_absent(JWT_FINGERPRINT_KEY, fingerprint.clone()).await?;
        if kept != fingerprint {
            return Err(Error::new(
                crate::ErrorCode::InvalidRequest,
                "this replica's jwt_key is not the team's: the database was first served with another one; give every replica the same jwt_key",
            ));
        }
    }
    Ok(Some(TeamKeys { jwt, data: Some(data) }))
}

/// A team server's keys: the JWT key, and `data_key` (which a CLI command may lack).
struct TeamKeys {
    jwt: Secret,
    data: Option<Secret>,
}

/// The services of one running Staffroom.
#[derive(Clone)]
pub struct Core {
    pub config: Arc<Config>,
    pub db: Db,
    pub secrets: Secrets,
    pub audit: Audit,
    pub auth: AuthService,
    /// The webhook receiver, when this core receives webhooks (`config.long_running`).
    pub webhooks: Option<WebhookReceiver>,
    pub payments: PaymentService,
    pub docs: DocService,
    /// Both providers' simulators, in sandbox mode.
    pub simulators: Option<Arc<dyn Simulators>>,
    /// The live events of `GET /api/events`, when this core serves them (`config.long_running`).
    pub events: Option<EventHub>,
}

impl Core {
    /// Opens the secrets and builds the services on `db`, which the wiring opened and whose mode
    /// (sandbox or real) it settled into `config.sandbox` (`staffroom::open`); in the sandbox,
    /// over `simulators`, which the wiring started and pointed `config` at. Blocking work (the
    /// keyring) runs off the async threads.
    pub async fn start(config: Config, db: Db, simulators: Option<Arc<dyn Simulators>>) -> Result<Core> {
        let install_id = db.meta_insert_if_absent(INSTALL_ID_KEY, uuid::Uuid::new_v4().simple().to_string()).await?;
        let secrets = {
            let (backend, sandbox) = (config.secret_backend, config.sandbox);
            tokio::task::spawn_blocking(move || open_secrets(backend, sandbox, &install_id)).await??
        };
        let keys = team_keys(&db, &config, &secrets).await?;
        let mut core = tokio::task::spawn_blocking(move || Core::open_blocking(config, db, secrets, keys)).await??;
        if let Some(simulators) = &simulators {
            // Signed in to both simulated providers from the start, as if an admin had connected
            // them and the browser step had run.
            let given = simulators.credentials();
            core.secrets.set_override("lemonsqueezy_api_key", given.lemonsqueezy_api_key);
            core.secrets.set_override("lemonsqueezy_store_id", Secret::new(given.lemonsqueezy_store_id));
            if !matches!(core.secrets.read("webhook_secret").await, Ok(Some(_))) {
                // The sandbox signs its own deliveries with a secret made for this run.
                core.secrets.set_override("webhook_secret", crate::secrets::keys::generate_webhook_secret());
            }
            core.secrets.set_override("google_client_id", Secret::new(given.google_client_id));
            core.secrets.set_override("google_client_secret", Secret::new(given.google_client_secret));
            core.docs.auth().use_token(given.google_token).await;
            let templates = crate::docs::templates::TEMPLATES_FOLDER;
            core.db.meta_insert_if_absent(templates, given.templates_folder_id).await?;
        }
        core.simulators = simulators;
        if core.config.long_running {
            core.audit.prune_daily();
            let applier: Arc<dyn EventApplier> = Arc::new(PaymentsApplier::new(core.db.clone()));
            core.webhooks = Some(WebhookReceiver::start(&core.db, core.secrets.clone(), applier).await?);
            core.payments.start_background_sync(core.config.payments.first_sync_after).await?;
            let events = EventHub::start(&*core.db, &core.config.data_dir).await?;
            // What the services announce, stored and sent to every stream.
            if let Some(webhooks) = &core.webhooks {
                events.relay(EventKind::Webhook, webhooks.subscribe());
            }
            events.relay(EventKind::SyncProgress, core.payments.subscribe_sync());
            events.relay(EventKind::DocumentSaved, core.docs.subscribe_saved());
            core.events = Some(events);
        }
        Ok(core)
    }

    /// Registers the sandbox store's webhook at this core's receiver at `base_url`, through
    /// the simulated provider's API as an admin's registration goes, with the sandbox's secret.
    pub async fn connect_sandbox_webhooks(&self, base_url: &str) -> Result<()> {
        if self.simulators.is_some() {
            let secret = self
                .secrets
                .read("webhook_secret")
                .await?
                .ok_or_else(|| Error::internal("sandbox", "no webhook secret"))?;
            let url = format!("{base_url}{}", crate::payments::connect::WEBHOOK_PATH);
            self.payments.register_webhook_with(&url, Some(secret)).await?;
            if let Some(receiver) = &self.webhooks {
                receiver.reload_secret().await?;
            }
        }
        Ok(())
    }

    fn open_blocking(config: Config, db: Db, mut secrets: Secrets, team_keys: Option<TeamKeys>) -> Result<Core> {
        if let (true, Some(keys), false) = (db.is_shared(), &team_keys, config.sandbox) {
            // What an admin connects on one replica, every replica reads: the team's vault.
            secrets = secrets.with_vault(match &keys.data {
                Some(data) => Arc::new(SealedVault::new(db.fleet(), crate::store::sealed::Sealer::new(data)?)),
                None => Arc::new(NoDataKey),
            });
        }
        let key = match &team_keys {
            Some(keys) => keys.jwt.clone(),
            None => secrets
                .get_or_create("jwt_key", token::generate_key)
                .map_err(|e| Error::new(crate::ErrorCode::Internal, e.to_string()))?,
        };
        let keys = token::TokenKeys::from_secret(&key)?;
        let audit = Audit::new(db.clone());
        let auth = AuthService::new(db.clone(), keys, config.session, config.max_concurrent_hashes, audit.clone());
        let client = LemonSqueezyClient::new(&config.payments.base_url, secrets.clone(), config.payments.client)?;
        let payments =
            PaymentService::new(db.clone(), client, secrets.clone(), audit.clone(), config.payments.sync_interval);
        // The sandbox's Google tokens die with its simulator: they never go to the keyring.
        let mut google_auth = GoogleAuth::new(secrets.clone(), config.docs.endpoints.clone(), !config.sandbox)?;
        if let (true, Some(keys), false) = (db.is_shared(), &team_keys, config.sandbox) {
            // A team server's Google sign-in is the team's: sealed in its database for every
            // replica (the sandbox's tokens die with its simulators, as on a desktop).
            google_auth = google_auth.with_vault(match &keys.data {
                Some(data) => crate::docs::oauth::TokenVault::Sealed {
                    db: db.fleet(),
                    sealer: crate::store::sealed::Sealer::new(data)?,
                },
                None => crate::docs::oauth::TokenVault::NoDataKey,
            });
        }
        let google = GoogleClient::new(&config.docs.endpoints, google_auth, config.docs.client)?;
        let docs = DocService::new(db.clone(), google, audit.clone());
        Ok(Core {
            config: Arc::new(config),
            db,
            secrets,
            audit,
            auth,
            webhooks: None,
            payments,
            docs,
            simulators: None,
            events: None,
        })
    }

    /// Every known secret and where its value comes from (never the value).
    pub async fn secret_sources(&self) -> Result<Vec<(&'static str, &'static str, crate::secrets::SecretSource)>> {
        use crate::secrets::{SecretError, SecretSource};
        // A team server keeps Google's tokens sealed in its database, not in a secret store.
        let token = crate::docs::oauth::TOKEN_SECRET;
        let mut sources = Vec::new();
        for (name, about) in crate::secrets::KNOWN_SECRETS {
            let source = match *name {
                // The sandbox's Google sign-in lives in this process only, never the keyring.
                name if name == token && self.config.sandbox => SecretSource::Sandbox,
                name if name == token && self.docs.auth().is_sealed() => {
                    match crate::secrets::Secrets::from_environment(token) {
                        Ok(Some((_, source))) => source,
                        Err(SecretError::Empty { from, .. }) => {
                            SecretSource::Unusable { reason: format!("{from} is empty") }
                        }
                        _ if self.docs.auth().status().await?.signed_in => SecretSource::Database,
                        _ => SecretSource::Missing,
                    }
                }
                name => self.secrets.source_of(name).await?,
            };
            sources.push((*name, *about, source));
        }
        Ok(sources)
    }

    /// Stores a secret (admin action from Settings or the CLI), with an audit entry.
    pub async fn set_secret(&self, actor: &crate::auth::Actor, name: &str, value: Secret) -> Result<()> {
        actor.require_admin()?;
        crate::secrets::validate_name(name).map_err(|e| Error::invalid_field("name", e.to_string()))?;
        if [crate::auth::REMEMBERED_SESSION, crate::auth::REMEMBERED_TEAM_SESSION].contains(&name) {
            return Err(Error::invalid_field("name", "is kept by the desktop app itself (\"keep me signed in\")"));
        }
        if self.secrets.is_overridden(name) {
            // The simulated providers' credentials: nothing typed here could be theirs.
            return Err(Error::invalid_field("name", "is the sandbox's own, made by its simulated providers"));
        }
        self.secrets.write(name, value).await?;
        self.audit.record(actor.audit_name(), crate::audit::AuditAction::SecretSet, Some(name), "success", None).await;
        if let (Some(webhooks), "webhook_secret") = (&self.webhooks, name) {
            webhooks.reload_secret().await?;
        }
        Ok(())
    }
}
