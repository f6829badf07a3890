//! `staffroom sandbox-providers`: both simulators alone, under one address, for the replicas of
//! a sandbox team server to share (SPEC section 10). One simulated provider for the whole fleet,
//! as with the real one: its rate limit is the fleet's, and it sees whether two replicas ever
//! sync at once (`maxListsAtOnce` in `/lemonsqueezy/__sandbox/stats`).

use axum::Router;

use super::google::{GoogleSimOptions, GoogleSimulator};
use super::lemonsqueezy::{PaymentSimulator, SimulatorOptions};
use staffroom_secret::Secret;

use crate::Result;

/// Where each simulator answers, below the shared address.
pub const PAYMENTS_PREFIX: &str = "/lemonsqueezy";
pub const GOOGLE_PREFIX: &str = "/google";

/// Both simulators, answering below one base URL.
pub struct SharedProviders {
    pub payments: PaymentSimulator,
    pub google: GoogleSimulator,
}

impl SharedProviders {
    /// Both simulators, seeded as `serve --sandbox` seeds its own, answering below `base_url`
    /// (the URL replicas reach them at), with the router to serve there.
    pub fn build(base_url: &str) -> Result<(Self, Router)> {
        let base = base_url.trim_end_matches('/');
        let (payments, payments_routes) =
            PaymentSimulator::build(SimulatorOptions::default(), format!("{base}{PAYMENTS_PREFIX}"))?;
        let (google, google_routes) =
            GoogleSimulator::build(GoogleSimOptions::default(), format!("{base}{GOOGLE_PREFIX}"));
        let router = Router::new().nest(PAYMENTS_PREFIX, payments_routes).nest(GOOGLE_PREFIX, google_routes);
        Ok((SharedProviders { payments, google }, router))
    }

    /// Sends the payment simulator's webhooks (when a checkout is paid) to `url`, signed with
    /// `secret`: the load balancer's `/api/payments/webhooks`, so any replica may receive them.
    pub fn send_webhooks_to(&self, url: String, secret: Secret) {
        self.payments.set_webhook_target(url, secret);
    }

    /// What every replica needs in its environment to use these simulators in real mode: the
    /// endpoint overrides and the simulated credentials (which guard nothing), as `NAME=value`.
    pub fn replica_environment(&self, webhook_secret: &Secret) -> Vec<(&'static str, String)> {
        let google = self.google.base_url().to_string();
        let (client_id, client_secret) = self.google.client();
        let issued = self.google.issue_token();
        let token = serde_json::json!({
            "access_token": issued["access_token"],
            "refresh_token": issued["refresh_token"],
            "expires_at": issued["expires_in"].as_i64().map(|s| chrono::Utc::now().timestamp() + s),
        });
        vec![
            ("STAFFROOM_LEMONSQUEEZY_API_URL", self.payments.api_url()),
            ("STAFFROOM_LEMONSQUEEZY_API_KEY", self.payments.api_key().expose().to_string()),
            ("STAFFROOM_LEMONSQUEEZY_STORE_ID", self.payments.store_id()),
            ("STAFFROOM_WEBHOOK_SECRET", webhook_secret.expose().to_string()),
            ("STAFFROOM_GOOGLE_DRIVE_API_URL", format!("{google}/drive/v3")),
            ("STAFFROOM_GOOGLE_DOCS_API_URL", format!("{google}/v1")),
            ("STAFFROOM_GOOGLE_OAUTH_URL", google),
            ("STAFFROOM_GOOGLE_CLIENT_ID", client_id),
            ("STAFFROOM_GOOGLE_CLIENT_SECRET", client_secret),
            ("STAFFROOM_GOOGLE_TOKEN", token.to_string()),
        ]
    }
}
