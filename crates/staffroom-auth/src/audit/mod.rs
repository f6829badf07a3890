//! The audit log as services use it: one call per state-changing action.

pub mod store;

use serde_json::Value;

pub use self::store::AuditDb;
use staffroom_base::error::Result;
pub use store::{AuditEntry, AuditQuery, NewAuditEntry};

/// The meta key of the retention setting.
const RETENTION_KEY: &str = "audit_retention_days";
/// A year and a month: long enough for a yearly review.
pub const DEFAULT_RETENTION_DAYS: u32 = 400;
pub const MIN_RETENTION_DAYS: u32 = 30;
pub const MAX_RETENTION_DAYS: u32 = 3650;

staffroom_base::text_enum! {
    /// What an audit entry records: `area.action`.
    pub enum AuditAction {
        SignIn = "auth.sign_in",
        AccountLocked = "auth.account_locked",
        SignOut = "auth.sign_out",
        SessionEnded = "auth.session_ended",
        UserAdd = "users.add",
        UserDisable = "users.disable",
        UserEnable = "users.enable",
        UserSetPassword = "users.set_password",
        UserUnlock = "users.unlock",
        OrderCreate = "payments.order_create",
        OrderReview = "payments.order_review",
        OrderRefund = "payments.order_refund",
        InvoiceRefund = "payments.invoice_refund",
        DiscountCreate = "payments.discount_create",
        DiscountDelete = "payments.discount_delete",
        ListExport = "payments.export",
        LicenseKeyReveal = "payments.license_key_reveal",
        LicenseKeyUpdate = "payments.license_key_update",
        SubscriptionCancel = "payments.subscription_cancel",
        SubscriptionResume = "payments.subscription_resume",
        SubscriptionPause = "payments.subscription_pause",
        SubscriptionUnpause = "payments.subscription_unpause",
        SubscriptionChangePlan = "payments.subscription_change_plan",
        DocumentCreate = "docs.create",
        DocumentEdit = "docs.edit",
        DocumentShare = "docs.share",
        DocumentFromTemplate = "docs.from_template",
        DocumentExport = "docs.export",
        TemplatesFolder = "settings.templates_folder",
        SyncInterval = "settings.sync_interval",
        AuditRetention = "settings.audit_retention",
        SecretSet = "settings.secret_set",
        GoogleSignIn = "settings.google_sign_in",
        GoogleSignOut = "settings.google_sign_out",
        WebhookReceiver = "settings.webhook_receiver",
        LemonSqueezyCheck = "settings.lemonsqueezy_check",
        LemonSqueezyConnect = "settings.lemonsqueezy_connect",
        WebhookRegister = "settings.webhook_register",
        GoogleClientSet = "settings.google_client",
    }
}

/// The outcome an audit entry records for a refusal or a failure: `failure: <code>`.
pub fn failure(error: &staffroom_base::error::Error) -> String {
    format!("failure: {}", error.code.as_str())
}

/// How long audit entries are kept.
#[staffroom_macros::request]
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, utoipa::ToSchema, ts_rs::TS)]
pub struct AuditRetention {
    /// Entries older than this many days are deleted (30 to 3,650).
    #[field(min = 30, max = 3650)]
    pub days: u32,
}

/// Appends audit entries; a failure to write one is logged, never turned into a user error.
#[derive(Clone)]
pub struct Audit {
    db: AuditDb,
}

impl Audit {
    /// The audit log in `db`.
    pub fn new(db: impl Into<AuditDb>) -> Self {
        Audit { db: db.into() }
    }

    /// Records that `actor` did `action` to `target` with `outcome`.
    pub async fn record(
        &self,
        actor: &str,
        action: AuditAction,
        target: Option<&str>,
        outcome: &str,
        detail: Option<Value>,
    ) {
        let written = self.db.append_audit(NewAuditEntry { actor, action, target, outcome, detail }).await;
        if let Err(err) = written {
            tracing::error!(%err, "could not write an audit entry");
        }
    }

    /// How many days entries are kept (an admin setting).
    pub async fn retention(&self) -> Result<AuditRetention> {
        let days = self.db.meta(RETENTION_KEY).await?.and_then(|d| d.parse().ok()).unwrap_or(DEFAULT_RETENTION_DAYS);
        Ok(AuditRetention { days })
    }

    /// Changes how long entries are kept (admins; audited) and prunes at once.
    pub async fn set_retention(&self, actor: &crate::actor::Actor, days: u32) -> Result<AuditRetention> {
        actor.require_admin()?;
        if !(MIN_RETENTION_DAYS..=MAX_RETENTION_DAYS).contains(&days) {
            return Err(staffroom_base::Error::invalid_field(
                "days",
                format!("must be a whole number from {MIN_RETENTION_DAYS} to {MAX_RETENTION_DAYS}"),
            ));
        }
        self.db.set_meta(RETENTION_KEY, days.to_string()).await?;
        self.record(
            actor.audit_name(),
            AuditAction::AuditRetention,
            None,
            "success",
            Some(serde_json::json!({ "days": days })),
        )
        .await;
        self.prune().await?;
        Ok(AuditRetention { days })
    }

    /// Deletes entries older than the retention; how many went.
    pub async fn prune(&self) -> Result<usize> {
        let days = self.retention().await?.days;
        let cutoff = (chrono::Utc::now() - chrono::Duration::days(days as i64))
            .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        let pruned = self.db.prune_audit(cutoff).await?;
        if pruned > 0 {
            tracing::info!(pruned, days, "audit entries older than the retention were deleted");
        }
        Ok(pruned)
    }

    /// Prunes now and then daily, for a long-running core.
    pub fn prune_daily(&self) {
        let audit = self.clone();
        tokio::spawn(async move {
            let mut every = tokio::time::interval(std::time::Duration::from_secs(24 * 3600));
            loop {
                every.tick().await;
                if let Err(err) = audit.prune().await {
                    tracing::warn!(error = %err.message, "could not prune the audit log");
                }
            }
        });
    }

    /// The newest entries first.
    pub async fn list(&self, limit: u32, before: Option<i64>) -> Result<Vec<AuditEntry>> {
        self.search(AuditQuery { limit, before, ..Default::default() }).await
    }

    /// The newest entries `query` asks for first.
    pub async fn search(&self, query: AuditQuery) -> Result<Vec<AuditEntry>> {
        self.db.audit_entries(AuditQuery { limit: query.limit.clamp(1, 500), ..query }).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use staffroom_base::request::Request;

    /// The retention's bounds are stated once, on the request; they must be these constants.
    #[test]
    fn the_retention_bounds_are_the_constants() {
        let (min, max) = (MIN_RETENTION_DAYS, MAX_RETENTION_DAYS);
        for (days, allowed) in [(min - 1, false), (min, true), (max, true), (max + 1, false)] {
            let input = serde_json::json!({ "days": days });
            assert_eq!(AuditRetention::from_input(input.as_object().unwrap()).is_ok(), allowed, "{days} days");
        }
    }
}
