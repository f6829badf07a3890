//! The sandbox (SPEC section 6): both providers' simulators, started on loopback for a core that
//! runs in the sandbox, and the demo account. Only a build with the `sandbox` feature (the
//! default of the CLI and the desktop app) links the simulators: without it, `staffroom serve`
//! and the app have none, and a sandbox data dir is refused.

use std::sync::Arc;

use staffroom_core::config::Config;
use staffroom_core::docs::client::GoogleEndpoints;
use staffroom_core::docs::oauth::StoredToken;
use staffroom_core::store::Db;
use staffroom_core::{Core, Error, Result};

pub use staffroom_core::sandbox::*;
pub use staffroom_sandbox::{google, lemonsqueezy, shared};

use self::google::{GoogleSimOptions, GoogleSimulator};
use self::lemonsqueezy::{PaymentSimulator, SimulatorOptions};

/// The `meta` key of when this sandbox first started (unix seconds): its store's history ends there.
const FIRST_START_KEY: &str = "sandbox_first_start";

/// Both simulators of one sandbox.
pub struct SandboxSimulators {
    pub payments: PaymentSimulator,
    pub google: GoogleSimulator,
}

impl Simulators for SandboxSimulators {
    fn credentials(&self) -> SandboxCredentials {
        let (google_client_id, google_client_secret) = self.google.client();
        let answer = self.google.issue_token();
        SandboxCredentials {
            lemonsqueezy_api_key: self.payments.api_key(),
            lemonsqueezy_store_id: self.payments.store_id(),
            google_client_id,
            google_client_secret,
            google_token: StoredToken {
                access_token: answer["access_token"].as_str().unwrap_or_default().to_string(),
                refresh_token: answer["refresh_token"].as_str().map(str::to_string),
                expires_at: answer["expires_in"].as_i64().map(|s| staffroom_core::time::now_unix() + s),
            },
            templates_folder_id: google::seed::TEMPLATES_FOLDER.0.to_string(),
        }
    }

    fn payments_url(&self) -> String {
        self.payments.base_url().to_string()
    }

    fn google_url(&self) -> String {
        self.google.base_url().to_string()
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// Starts both simulators for a sandbox on `db` and points `config` at them. The store's
/// history ends at the sandbox's first start, so it is the same on every run.
pub async fn start(config: &mut Config, db: &Db) -> Result<Arc<SandboxSimulators>> {
    let first_start = db.meta_insert_if_absent(FIRST_START_KEY, staffroom_core::time::now_unix().to_string()).await?;
    let options = SimulatorOptions {
        products: config.sandbox_products,
        orders: config.sandbox_orders,
        history_until: first_start.parse().ok(),
        ..Default::default()
    };
    let payments = PaymentSimulator::start(options).await.map_err(|e| Error::internal("payment simulator", e))?;
    config.payments.base_url = payments.api_url();
    let google_options = GoogleSimOptions { large_document: config.sandbox_large_document, ..Default::default() };
    let google = GoogleSimulator::start(google_options).await.map_err(|e| Error::internal("Google simulator", e))?;
    config.docs.endpoints = google_endpoints(&google);
    Ok(Arc::new(SandboxSimulators { payments, google }))
}

/// The simulators `core` runs on, when it runs in the sandbox.
pub fn simulators(core: &Core) -> Option<&SandboxSimulators> {
    core.simulators.as_ref()?.as_any().downcast_ref()
}

/// Where the Google simulator's endpoints are, as the Google client is given them.
pub fn google_endpoints(google: &GoogleSimulator) -> GoogleEndpoints {
    let at = google.endpoints();
    GoogleEndpoints {
        drive_url: at.drive_url,
        docs_url: at.docs_url,
        auth_url: at.auth_url,
        token_url: at.token_url,
        revoke_url: at.revoke_url,
        tokeninfo_url: at.tokeninfo_url,
    }
}
