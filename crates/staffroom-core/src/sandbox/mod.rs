//! The sandbox as the core sees it: simulators of both providers on loopback, which the wiring
//! starts (it links them, from the `staffroom-sandbox` crate: a build without a sandbox has
//! none) and hands over as [`Simulators`], and the demo staff account, so the whole app runs
//! offline with no accounts (SPEC section 6).

use crate::auth::store::Role;
use crate::auth::{Actor, NewUser};
use crate::error::Result;
use crate::secrets::Secret;
use crate::Core;

/// The demo account's email, shown on the login screen in sandbox mode only.
pub const DEMO_EMAIL: &str = "demo@staffroom.test";
/// The demo account's password, shown on the login screen in sandbox mode only.
pub const DEMO_PASSWORD: &str = "sandbox-demo-passphrase";
/// The demo account's name.
pub const DEMO_NAME: &str = "Demo Admin";

/// The credentials the login screen shows in sandbox mode.
#[derive(Debug, Clone, serde::Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DemoCredentials {
    pub email: &'static str,
    pub password: &'static str,
}

/// The demo credentials, in sandbox mode only.
pub fn demo_credentials(core: &Core) -> Option<DemoCredentials> {
    core.config.sandbox.then_some(DemoCredentials { email: DEMO_EMAIL, password: DEMO_PASSWORD })
}

/// The providers' simulators a sandbox runs, as the core uses them. The configuration the core
/// starts with already points the clients at them.
pub trait Simulators: Send + Sync + 'static {
    /// What the sandbox is signed in with from the start: the simulators' own credentials.
    fn credentials(&self) -> SandboxCredentials;

    /// Where the payment simulator listens (Settings shows it).
    fn payments_url(&self) -> String;

    /// Where the Google simulator listens.
    fn google_url(&self) -> String;

    /// The simulators themselves, for the wiring (and tests) that know their type.
    fn as_any(&self) -> &dyn std::any::Any;
}

/// The credentials both simulators accept.
pub struct SandboxCredentials {
    pub lemonsqueezy_api_key: Secret,
    pub lemonsqueezy_store_id: String,
    pub google_client_id: String,
    pub google_client_secret: String,
    /// A Google token, as if the browser step had run.
    pub google_token: crate::docs::oauth::StoredToken,
    /// The simulated Drive's folder of templates, chosen from the start as an admin would.
    pub templates_folder_id: String,
}

/// Creates the demo admin if it does not exist yet.
pub async fn ensure_demo_account(core: &Core) -> Result<()> {
    let new = NewUser {
        email: DEMO_EMAIL.into(),
        name: DEMO_NAME.into(),
        role: Role::Admin,
        password: Secret::new(DEMO_PASSWORD),
    };
    if core.auth.has_user(DEMO_EMAIL).await? {
        return Ok(());
    }
    core.auth.add_user(&Actor::System, new).await.map(|_| ())
}
