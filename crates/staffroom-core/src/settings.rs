//! The admins' operations on the whole Staffroom: what Settings shows, the provider credentials,
//! and the audit log with how long it is kept.

use serde::Serialize;
use staffroom_macros::request;

use crate::api::{Access, Caller, Fields, NoInput, OpSpec, Operation, Route};
use serde_json::Value;
use crate::audit::AuditEntry;
use crate::audit::AuditRetention;
use crate::docs::oauth::GoogleStatus;
use crate::error::Result;
use crate::secrets::Secret;
use crate::Core;

/// Where one secret comes from (never its value).
#[derive(Debug, Clone, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SecretInfo {
    pub name: String,
    pub about: String,
    /// e.g. "not set", "keyring (kernel keyring)", "environment (STAFFROOM_…)".
    pub source: String,
}

/// What Settings shows.
#[derive(Debug, Clone, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SettingsView {
    pub sandbox: bool,
    pub data_dir: String,
    /// The credentials an admin may set; the app's own (the token key, a remembered sign-in) are
    /// not among them.
    pub secrets: Vec<SecretInfo>,
    pub google: GoogleStatus,
    /// In the sandbox, where the two simulators listen (each has `/__sandbox/faults`, to try the
    /// app with a provider slow, failing or out of reach).
    pub simulators: Option<Simulators>,
}

/// The sandbox's simulators, by root URL.
#[derive(Debug, Clone, Serialize, ts_rs::TS, utoipa::ToSchema)]
pub struct Simulators {
    pub payments: String,
    pub google: String,
}

/// Secrets Staffroom keeps for itself, or a team server's operator gives every replica, which
/// Settings neither shows nor sets.
const OWN_SECRETS: &[&str] = &[
    "jwt_key",
    "data_key",
    "webhook_secret_previous",
    crate::auth::REMEMBERED_SESSION,
    crate::auth::REMEMBERED_TEAM_SESSION,
];

/// The secrets an admin may set.
fn settable() -> impl Iterator<Item = &'static str> {
    crate::secrets::KNOWN_SECRETS.iter().map(|(name, _)| *name).filter(|name| !OWN_SECRETS.contains(name))
}

/// The schema of a secret's name: one of those an admin may set.
fn settable_secret_names() -> utoipa::openapi::schema::Object {
    utoipa::openapi::schema::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::String)
        .enum_values(Some(settable()))
        .build()
}

/// A secret's name, one of [`settable`] (its schema lists them).
fn secret_name(fields: &mut Fields) -> String {
    let name = fields.required_string("name").unwrap_or_default().to_string();
    if fields.value("name").is_some_and(Value::is_string) && !settable().any(|settable| settable == name) {
        let problem = if OWN_SECRETS.contains(&name.as_str()) {
            "is kept by Staffroom itself".to_string()
        } else {
            format!("must be one of {}", settable().collect::<Vec<_>>().join(", "))
        };
        fields.problem("name", problem);
    }
    name
}

/// `PUT /api/settings/secrets/{name}`: a credential's new value.
#[request]
#[derive(Debug, Clone, Serialize, ts_rs::TS, utoipa::ToSchema)]
pub struct SecretRequest {
    /// One of the names Settings lists.
    #[field(with = secret_name)]
    #[schema(schema_with = settable_secret_names)]
    pub name: String,
    /// Not blank; kept in the OS keyring, never shown again.
    #[field(
        // A character other than white space (Unicode's, as `trim` takes it: JSON Schema's and
        // Rust's `\\s` differ, so the characters are named).
        pattern = "[^\\t-\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]",
        min_length = 1,
        message = "must not be empty",
        trim
    )]
    #[schema(value_type = String, format = Password)]
    #[serde(serialize_with = "crate::secrets::serialize_exposed")]
    #[ts(type = "string")]
    pub value: Secret,
}

/// `GET /api/audit`: the newest entries first.
#[request]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, ts_rs::TS, utoipa::ToSchema)]
pub struct AuditLogRequest {
    /// Default 50.
    #[field(min = 1, max = 200)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub limit: Option<u32>,
    /// Only entries older than the entry with this id (the next page).
    #[field(min = 1, max = 2147483647)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub before: Option<u32>,
    /// Only what this person did: their e-mail (or `cli`, `system`).
    #[field(pattern = "^[^\\x00-\\x1f]{1,254}$", message = "must be an e-mail address (at most 254 characters)")]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub actor: Option<String>,
    /// Only this action.
    #[field(choice)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub action: Option<crate::audit::AuditAction>,
    /// Made at or after: an RFC 3339 time, or a date (its 00:00 UTC).
    #[field(rule = crate::payments::validate::INSTANT)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub from: Option<String>,
    /// Made before: an RFC 3339 time, or a date (its 00:00 UTC).
    #[field(rule = crate::payments::validate::INSTANT)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub to: Option<String>,
}

pub struct GetSettings;
impl Operation for GetSettings {
    const SPEC: OpSpec =
        OpSpec::new("settings", "settings", "What Settings shows: mode, data dir, credentials' sources, Google")
            .route(Route::get("/api/settings"))
            .access(Access::Admin);
    type Request = NoInput;
    type Response = SettingsView;
    async fn run(core: &Core, _: &Caller, _: NoInput) -> Result<SettingsView> {
        let secrets = core
            .secret_sources()
            .await?
            .into_iter()
            .filter(|(name, _, _)| !OWN_SECRETS.contains(name))
            .map(|(name, about, source)| SecretInfo {
                name: name.into(),
                about: about.into(),
                source: source.to_string(),
            })
            .collect();
        let simulators = core
            .simulators
            .as_ref()
            .map(|simulators| Simulators { payments: simulators.payments_url(), google: simulators.google_url() });
        Ok(SettingsView {
            sandbox: core.config.sandbox,
            data_dir: core.config.data_dir.display().to_string(),
            secrets,
            google: core.docs.auth().status().await?,
            simulators,
        })
    }
}

pub struct SetSecret;
impl Operation for SetSecret {
    const SPEC: OpSpec = OpSpec::new("set_secret", "settings", "Stores a provider credential in the OS keyring")
        .route(Route::put("/api/settings/secrets/{name}").status(204))
        .access(Access::Admin);
    type Request = SecretRequest;
    type Response = ();
    async fn run(core: &Core, caller: &Caller, request: SecretRequest) -> Result<()> {
        core.set_secret(&caller.actor()?, &request.name, request.value).await
    }
}

pub struct AuditLog;
impl Operation for AuditLog {
    const SPEC: OpSpec = OpSpec::new("audit_log", "settings", "The audit log, newest first")
        .route(Route::get("/api/audit"))
        .access(Access::Admin);
    type Request = AuditLogRequest;
    type Response = Vec<AuditEntry>;
    async fn run(core: &Core, _: &Caller, request: AuditLogRequest) -> Result<Vec<AuditEntry>> {
        let instant = |at: &Option<String>| at.as_deref().and_then(crate::payments::validate::instant);
        let query = crate::audit::AuditQuery {
            limit: request.limit.unwrap_or(50),
            before: request.before.map(i64::from),
            actor: request.actor.as_deref().map(|a| a.trim().to_lowercase()),
            action: request.action.map(crate::audit::AuditAction::as_str),
            from: instant(&request.from),
            to: instant(&request.to),
        };
        core.audit.search(query).await
    }
}

pub struct GetAuditRetention;
impl Operation for GetAuditRetention {
    const SPEC: OpSpec = OpSpec::new("audit_retention", "settings", "How many days audit entries are kept")
        .route(Route::get("/api/audit/retention"))
        .access(Access::Admin);
    type Request = NoInput;
    type Response = AuditRetention;
    async fn run(core: &Core, _: &Caller, _: NoInput) -> Result<AuditRetention> {
        core.audit.retention().await
    }
}

pub struct SetAuditRetention;
impl Operation for SetAuditRetention {
    const SPEC: OpSpec =
        OpSpec::new("set_audit_retention", "settings", "Changes how many days audit entries are kept, and prunes")
            .route(Route::put("/api/audit/retention"))
            .access(Access::Admin);
    type Request = AuditRetention;
    type Response = AuditRetention;
    async fn run(core: &Core, caller: &Caller, request: AuditRetention) -> Result<AuditRetention> {
        core.audit.set_retention(&caller.actor()?, request.days).await
    }
}
