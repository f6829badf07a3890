//! The desktop app's own webhook receiver, switched on and off from Settings. The choice is kept
//! in the local store so the receiver comes back after a restart; in the sandbox it is always
//! on, so the sandbox checkout's Pay button reaches the app.

use serde::Serialize;
use serde_json::json;
use tokio::sync::Mutex;

use super::{start_webhook_receiver, ReceiverHandle};
use staffroom_core::auth::Actor;
use staffroom_core::error::Result;
use staffroom_core::Core;

/// The meta key remembering the receiver's port between runs ("" when off).
const PORT_SETTING: &str = "desktop_webhook_port";

/// The port used when an admin switches the receiver on without naming one.
pub const DEFAULT_PORT: u16 = 8787;

/// The receiver as Settings shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReceiverStatus {
    pub running: bool,
    /// Where Lemon Squeezy (through a tunnel) or the sandbox checkout delivers.
    pub url: Option<String>,
    /// Without a usable signing secret every delivery is refused.
    pub has_secret: bool,
    /// Why deliveries are refused, when they are.
    pub secret_problem: Option<String>,
}

/// Owns the running receiver, if any; one per app.
pub struct ReceiverControl {
    core: Core,
    running: Mutex<Option<ReceiverHandle>>,
}

impl ReceiverControl {
    /// Off until [`restore`](Self::restore) or [`set`](Self::set) starts it.
    pub fn new(core: Core) -> Self {
        ReceiverControl { core, running: Mutex::new(None) }
    }

    /// Where it listens, and whether deliveries can be verified.
    pub async fn status(&self) -> ReceiverStatus {
        let addr = self.running.lock().await.as_ref().map(|r| r.addr);
        ReceiverStatus {
            running: addr.is_some(),
            url: addr.map(|a| format!("http://{a}/api/payments/webhooks")),
            has_secret: self.core.webhooks.as_ref().is_some_and(|w| w.has_secret()),
            secret_problem: self.core.webhooks.as_ref().and_then(|w| w.secret_problem()),
        }
    }

    /// Starts the receiver if it was on when the app last ran (always, in the sandbox).
    pub async fn restore(&self) -> Result<ReceiverStatus> {
        let saved = self.core.db.meta(PORT_SETTING).await?;
        match saved.as_deref().map(str::parse::<u16>) {
            Some(Ok(port)) => self.start(port).await?,
            _ if self.core.config.sandbox => self.start(0).await?,
            _ => {}
        }
        Ok(self.status().await)
    }

    /// Switches the receiver on (on 127.0.0.1 at `port`, 0 for any free port) or off, remembers
    /// the choice and audits it. Admins only.
    pub async fn set(&self, actor: &Actor, enabled: bool, port: Option<u16>) -> Result<ReceiverStatus> {
        actor.require_admin()?;
        let port = enabled.then(|| port.unwrap_or(DEFAULT_PORT));
        let result = match port {
            Some(port) => self.start(port).await,
            None => {
                self.stop().await;
                Ok(())
            }
        };
        let outcome = match (&result, enabled) {
            (Err(_), _) => "failure",
            (Ok(()), true) => "on",
            (Ok(()), false) => "off",
        };
        let detail = Some(json!({ "port": port }));
        self.core
            .audit
            .record(actor.audit_name(), staffroom_core::audit::AuditAction::WebhookReceiver, None, outcome, detail)
            .await;
        result?;
        let saved = port.map(|p| p.to_string()).unwrap_or_default();
        self.core.db.set_meta(PORT_SETTING, saved).await?;
        Ok(self.status().await)
    }

    /// Stops the receiver (deliveries in flight finish); the saved choice is kept.
    pub async fn stop(&self) {
        if let Some(handle) = self.running.lock().await.take() {
            handle.stop();
        }
    }

    /// Listens on `port`; a receiver already running elsewhere stops only once the new one
    /// listens, so a port that cannot be had leaves things as they were.
    async fn start(&self, port: u16) -> Result<()> {
        let mut slot = self.running.lock().await;
        if slot.as_ref().is_some_and(|old| port == 0 || old.addr.port() == port) {
            return Ok(());
        }
        let handle = start_webhook_receiver(self.core.clone(), ([127, 0, 0, 1], port).into()).await?;
        self.core.connect_sandbox_webhooks(&format!("http://{}", handle.addr)).await?;
        tracing::info!(addr = %handle.addr, "webhook receiver listening");
        if let Some(old) = slot.replace(handle) {
            old.stop();
        }
        Ok(())
    }
}
