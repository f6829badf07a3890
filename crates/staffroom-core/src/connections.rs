//! Going live (SPEC section 13): the admins' operations that connect a real store and a real
//! Google account, and how both connections stand. The areas do the work (the payment area's
//! `connect`, the document area's `connection`); here they are offered, with the receiver told
//! of a new signing secret and the sync started after a store is connected.

use std::time::Duration;

use serde::Serialize;
use staffroom_macros::request;

use crate::api::{Access, Caller, NoInput, OpSpec, Operation, Route};
use crate::audit::{failure, AuditAction};
use crate::docs::connection::GoogleConnection;
use crate::error::Result;
use crate::payments::connect::{KeyCheck, LemonSqueezyConnection, WebhookRegistration};
use crate::secrets::Secret;
use crate::Core;

/// How long connecting a store waits for its first sync before it answers (the sync goes on
/// after that, its progress on the live events).
const FIRST_SYNC_WAIT: Duration = Duration::from_secs(60);
/// `POST /api/settings/lemonsqueezy/check`: a key to try; nothing is stored.
#[request(only = "is not a field of this request")]
#[derive(Debug, Clone, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KeyCheckRequest {
    /// A Lemon Squeezy API key (Lemon Squeezy → Settings → API).
    #[field(
        // Printable ASCII without spaces (a key goes in an HTTP header; Lemon Squeezy's are JWTs
        // of about 1 KB), spaces around it aside, as a copy and paste may bring them.
        pattern = "^[ \\t\\r\\n]*[!-~]+[ \\t\\r\\n]*$",
        max_length = 8192,
        message = "must be the credential as copied: at most 8,192 printable characters, without spaces",
        trim
    )]
    #[schema(value_type = String, format = Password)]
    #[serde(serialize_with = "crate::secrets::serialize_exposed")]
    #[ts(type = "string")]
    pub api_key: Secret,
}

/// `PUT /api/settings/lemonsqueezy`: the key and the store to connect.
#[request(only = "is not a field of this request")]
#[derive(Debug, Clone, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ConnectStoreRequest {
    /// A Lemon Squeezy API key; kept in the secret store, never shown again.
    #[field(
        // Printable ASCII without spaces (a key goes in an HTTP header; Lemon Squeezy's are JWTs
        // of about 1 KB), spaces around it aside, as a copy and paste may bring them.
        pattern = "^[ \\t\\r\\n]*[!-~]+[ \\t\\r\\n]*$",
        max_length = 8192,
        message = "must be the credential as copied: at most 8,192 printable characters, without spaces",
        trim
    )]
    #[schema(value_type = String, format = Password)]
    #[serde(serialize_with = "crate::secrets::serialize_exposed")]
    #[ts(type = "string")]
    pub api_key: Secret,
    /// One of the stores the key sees (`stores[].id` of the check).
    #[field(pattern = "^[0-9]{1,20}$", message = "must be a store id (digits)")]
    pub store_id: String,
}

/// `POST /api/settings/lemonsqueezy/webhook`: where the receiver is reached from the internet.
#[request(only = "is not a field of this request")]
#[derive(Debug, Clone, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct WebhookUrlRequest {
    /// `https://…/api/payments/webhooks`: a team server's public name, or a tunnel's.
    #[field(
        // No spaces or control characters: JSON Schema's and Rust's `\\s` differ, so they are named.
        pattern = "^https?://[^\\x00-\\x20\\x7f-\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000/?#@]{1,255}(/[^\\x00-\\x20\\x7f-\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000?#]{0,1700})?/api/payments/webhooks$",
        message = "must be a URL such as https://staffroom.example.com/api/payments/webhooks"
    )]
    pub url: String,
}

/// `PUT /api/settings/google/client`: the OAuth client staff sign in to Google with.
#[request(only = "is not a field of this request")]
#[derive(Debug, Clone, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GoogleClientRequest {
    /// `….apps.googleusercontent.com`, from Google Cloud Console → APIs & Services → Credentials.
    #[field(
        pattern = "^[A-Za-z0-9._-]{1,200}\\.apps\\.googleusercontent\\.com$",
        message = "must be an OAuth client id, ending in .apps.googleusercontent.com"
    )]
    pub client_id: String,
    /// The client's secret; kept in the secret store, never shown again.
    #[field(
        // Printable ASCII without spaces (a key goes in an HTTP header; Lemon Squeezy's are JWTs
        // of about 1 KB), spaces around it aside, as a copy and paste may bring them.
        pattern = "^[ \\t\\r\\n]*[!-~]+[ \\t\\r\\n]*$",
        max_length = 8192,
        message = "must be the credential as copied: at most 8,192 printable characters, without spaces",
        trim
    )]
    #[schema(value_type = String, format = Password)]
    #[serde(serialize_with = "crate::secrets::serialize_exposed")]
    #[ts(type = "string")]
    pub client_secret: Secret,
}

/// `GET /api/settings/connections`.
#[derive(Debug, Clone, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Connections {
    pub lemon_squeezy: LemonSqueezyConnection,
    pub google: GoogleConnection,
}

impl Connections {
    /// Whether anything is wrong: a connection not `connected`, or a problem.
    pub fn healthy(&self) -> bool {
        use staffroom_base::connection::ConnectionState::Connected;
        self.lemon_squeezy.state == Connected
            && self.google.state == Connected
            && self.lemon_squeezy.problems.is_empty()
            && self.google.problems.is_empty()
    }
}

impl Connections {
    /// Both connections as `staffroom doctor` prints them: a line of state each, what is
    /// known, then each problem with its fix.
    pub fn report(&self) -> String {
        use std::fmt::Write as _;
        let state = |s: staffroom_base::connection::ConnectionState| match s {
            staffroom_base::connection::ConnectionState::Connected => "connected",
            staffroom_base::connection::ConnectionState::NotConfigured => "not configured",
            staffroom_base::connection::ConnectionState::Refused => "refused",
            staffroom_base::connection::ConnectionState::Unreachable => "unreachable",
        };
        let never = |at: &Option<String>| at.clone().unwrap_or_else(|| "never".into());
        let mut out = String::new();
        let ls = &self.lemon_squeezy;
        let _ = writeln!(out, "Lemon Squeezy: {}", state(ls.state));
        if let Some(account) = &ls.account {
            let _ = writeln!(out, "  account: {} <{}>", account.name, account.email);
        }
        if let Some(store) = &ls.store {
            let mode = if store.test_mode { "test mode" } else { "live" };
            let _ = writeln!(out, "  store: {} ({}, {}, {mode})", store.id, store.name, store.currency);
        }
        match &ls.webhook {
            Some(webhook) => {
                let _ = writeln!(
                    out,
                    "  webhook: {} at {}, last sent {}",
                    webhook.id,
                    webhook.url,
                    never(&webhook.last_sent_at)
                );
            }
            None if ls.state == staffroom_base::connection::ConnectionState::Connected => {
                let _ = writeln!(out, "  webhook: none");
            }
            None => {}
        }
        let _ = writeln!(
            out,
            "  last delivery here: {}; last sync: {}",
            never(&ls.last_delivery_at),
            never(&ls.last_sync_at)
        );
        let google = &self.google;
        let _ = writeln!(out, "Google: {}", state(google.state));
        if let Some(account) = &google.account {
            let _ = writeln!(out, "  account: {}", account.email);
        }
        if !google.scopes.is_empty() {
            let _ = writeln!(out, "  scopes: {}", google.scopes.join(" "));
        }
        for problem in ls.problems.iter().chain(&google.problems) {
            let _ = writeln!(out, "problem: {}.\n  fix: {}.", problem.message, problem.fix);
        }
        if self.healthy() {
            let _ = writeln!(out, "No problems.");
        }
        out
    }
}

/// `PUT /api/settings/lemonsqueezy`'s answer.
#[derive(Debug, Clone, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StoreConnected {
    pub lemon_squeezy: LemonSqueezyConnection,
}

/// `PUT /api/settings/google/client`'s answer.
#[derive(Debug, Clone, Serialize, ts_rs::TS, utoipa::ToSchema)]
pub struct GoogleClientSet {
    pub google: GoogleConnection,
}

impl Core {
    /// How both connections stand.
    pub async fn connections(&self) -> Result<Connections> {
        let (lemon_squeezy, google) = tokio::join!(self.payments.connection(), self.docs.connection());
        Ok(Connections { lemon_squeezy: lemon_squeezy?, google: google? })
    }

    /// Connects the store, then syncs it (answering after at most a minute; the sync goes on).
    pub async fn connect_store(
        &self,
        actor: &crate::auth::Actor,
        key: Secret,
        store_id: &str,
    ) -> Result<LemonSqueezyConnection> {
        self.payments.connect(actor, key, store_id).await?;
        let payments = self.payments.clone();
        let sync = tokio::spawn(async move { payments.sync_all().await });
        match tokio::time::timeout(FIRST_SYNC_WAIT, sync).await {
            Ok(Ok(Err(err))) => tracing::warn!(%err, "the first sync of the connected store failed"),
            Ok(_) => {}
            Err(_) => tracing::info!("the first sync of the connected store goes on in the background"),
        }
        self.payments.connection().await
    }

    /// Registers the webhook at `url` and has the receiver verify with its new secret.
    pub async fn register_webhook(&self, actor: &crate::auth::Actor, url: &str) -> Result<WebhookRegistration> {
        let webhook = self.payments.register_webhook(actor, url).await?;
        if let Some(receiver) = &self.webhooks {
            receiver.reload_secret().await?;
        }
        Ok(WebhookRegistration { webhook })
    }

    /// Keeps the Google OAuth client; audited.
    pub async fn set_google_client(
        &self,
        actor: &crate::auth::Actor,
        id: &str,
        secret: Secret,
    ) -> Result<GoogleConnection> {
        actor.require_admin()?;
        let kept = async {
            self.secrets.write("google_client_id", Secret::new(id)).await?;
            self.secrets.write("google_client_secret", secret).await
        }
        .await;
        let outcome = kept.as_ref().map(|_| "success".to_string()).unwrap_or_else(failure);
        self.audit.record(actor.audit_name(), AuditAction::GoogleClientSet, Some(id), &outcome, None).await;
        kept?;
        self.docs.connection().await
    }
}

pub struct CheckLemonSqueezyKey;
impl Operation for CheckLemonSqueezyKey {
    const SPEC: OpSpec = OpSpec::new(
        "check_lemonsqueezy_key",
        "settings",
        "Asks Lemon Squeezy whom a key belongs to, its mode and the stores it sees; stores nothing",
    )
    .route(Route::post("/api/settings/lemonsqueezy/check"))
    .access(Access::Admin);
    type Request = KeyCheckRequest;
    type Response = KeyCheck;
    async fn run(core: &Core, caller: &Caller, request: KeyCheckRequest) -> Result<KeyCheck> {
        let actor = caller.actor()?;
        actor.require_admin()?;
        let checked = core.payments.check_key(&request.api_key).await;
        let outcome = checked.as_ref().map(|_| "success".to_string()).unwrap_or_else(failure);
        core.audit.record(actor.audit_name(), AuditAction::LemonSqueezyCheck, None, &outcome, None).await;
        checked
    }
}

pub struct ConnectLemonSqueezy;
impl Operation for ConnectLemonSqueezy {
    const SPEC: OpSpec = OpSpec::new(
        "connect_lemonsqueezy",
        "settings",
        "Checks a key and a store with Lemon Squeezy, keeps them, and syncs the store",
    )
    .route(Route::put("/api/settings/lemonsqueezy"))
    .access(Access::Admin);
    type Request = ConnectStoreRequest;
    type Response = StoreConnected;
    async fn run(core: &Core, caller: &Caller, request: ConnectStoreRequest) -> Result<StoreConnected> {
        let lemon_squeezy = core.connect_store(&caller.actor()?, request.api_key, &request.store_id).await?;
        Ok(StoreConnected { lemon_squeezy })
    }
}

pub struct RegisterWebhook;
impl Operation for RegisterWebhook {
    const SPEC: OpSpec = OpSpec::new(
        "register_webhook",
        "settings",
        "Creates or updates the store's webhook at Lemon Squeezy with a new signing secret",
    )
    .route(Route::post("/api/settings/lemonsqueezy/webhook"))
    .access(Access::Admin);
    type Request = WebhookUrlRequest;
    type Response = WebhookRegistration;
    async fn run(core: &Core, caller: &Caller, request: WebhookUrlRequest) -> Result<WebhookRegistration> {
        core.register_webhook(&caller.actor()?, &request.url).await
    }
}

pub struct GetConnections;
impl Operation for GetConnections {
    const SPEC: OpSpec = OpSpec::new(
        "connections",
        "settings",
        "How the Lemon Squeezy and Google connections stand, with their problems and fixes",
    )
    .route(Route::get("/api/settings/connections"))
    .access(Access::Admin);
    type Request = NoInput;
    type Response = Connections;
    async fn run(core: &Core, _: &Caller, _: NoInput) -> Result<Connections> {
        core.connections().await
    }
}

pub struct SetGoogleClient;
impl Operation for SetGoogleClient {
    const SPEC: OpSpec =
        OpSpec::new("set_google_client", "settings", "Keeps the Google OAuth client staff sign in with")
            .route(Route::put("/api/settings/google/client"))
            .access(Access::Admin);
    type Request = GoogleClientRequest;
    type Response = GoogleClientSet;
    async fn run(core: &Core, caller: &Caller, request: GoogleClientRequest) -> Result<GoogleClientSet> {
        let google = core.set_google_client(&caller.actor()?, &request.client_id, request.client_secret).await?;
        Ok(GoogleClientSet { google })
    }
}
