//! The sandbox: built-in simulators of both providers on loopback, seeded data (both in the
//! `staffroom-sandbox` crate), and the demo staff account, so the whole app runs offline with no
//! accounts (SPEC section 6).

pub use staffroom_sandbox::{google, lemonsqueezy, shared};

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

/// Where the Google simulator's endpoints are, as the Google client is given them.
pub fn google_endpoints(google: &google::GoogleSimulator) -> crate::docs::client::GoogleEndpoints {
    let at = google.endpoints();
    crate::docs::client::GoogleEndpoints {
        drive_url: at.drive_url,
        docs_url: at.docs_url,
        auth_url: at.auth_url,
        token_url: at.token_url,
        revoke_url: at.revoke_url,
    }
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
