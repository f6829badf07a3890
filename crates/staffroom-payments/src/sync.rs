//! When and how visibly the payments cache syncs: one sync at a time, an interval an admin can
//! change while the app runs (kept in SQLite, so it survives a restart), and progress sent to
//! whoever listens (the desktop's windows), so a long sync shows how far it has got.

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use tokio::sync::{broadcast, watch, Mutex, MutexGuard};

use crate::PaymentsDb;
use staffroom_base::error::{Error, ErrorCode, Result};

/// The shortest interval between background syncs: the provider allows 300 requests a minute,
/// and a sync of a large store takes dozens.
pub const MIN_INTERVAL: Duration = Duration::from_secs(60);
/// The longest: a day.
pub const MAX_INTERVAL: Duration = Duration::from_secs(24 * 60 * 60);
/// The `meta` key that keeps an interval an admin chose.
const INTERVAL_SETTING: &str = "payments_sync_interval_secs";

/// What a running sync is reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum SyncStep {
    Products,
    Variants,
    Subscriptions,
    /// Pending orders whose webhook may have been missed, one buyer at a time.
    Pending,
    /// The store's orders, page by page.
    Orders,
    Customers,
    /// The subscriptions' invoices, page by page.
    Invoices,
    /// The store's licence keys.
    LicenseKeys,
    /// The store's discounts and their redemptions.
    Discounts,
    /// The sync has ended (see `error`).
    Done,
}

/// How far a running sync has got: one message per page read, and a last one with `Done`.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct SyncProgress {
    pub step: SyncStep,
    /// Pages (or, for pending orders, buyers) done in this step.
    pub done: u32,
    /// How many there are, when the provider says.
    pub total: Option<u32>,
    /// Why the sync failed, on the `Done` message of a failed one.
    pub error: Option<SyncFailure>,
}

/// A failed sync's error, as the UI shows it: a sentence and its code.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
pub struct SyncFailure {
    pub code: ErrorCode,
    pub message: String,
}

/// One cached resource's last sync.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ResourceSync {
    /// `products`, `subscriptions`, `orders` or `customers`.
    pub resource: String,
    /// The last complete, successful sync.
    pub synced_at: Option<String>,
    pub attempted_at: Option<String>,
    /// Why the last attempt failed, if it did.
    pub error: Option<String>,
}

/// The sync as Settings shows it (`GET /api/payments/sync`).
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct SyncStatus {
    pub running: bool,
    /// Seconds between background syncs.
    pub interval_secs: u64,
    pub resources: Vec<ResourceSync>,
}

/// Validates an interval between background syncs.
pub fn validate_interval(secs: u64) -> Result<Duration> {
    let interval = Duration::from_secs(secs);
    if !(MIN_INTERVAL..=MAX_INTERVAL).contains(&interval) {
        return Err(Error::invalid_field(
            "intervalSecs",
            format!("must be from {} to {} seconds", MIN_INTERVAL.as_secs(), MAX_INTERVAL.as_secs()),
        ));
    }
    Ok(interval)
}

/// The schedule, the one-at-a-time lock and the progress channel, shared by every clone of the
/// payment service.
#[derive(Clone)]
pub(crate) struct SyncControl {
    inner: Arc<Inner>,
}

struct Inner {
    running: Mutex<()>,
    /// Whole syncs made by this process so far (ended or failed).
    whole_syncs: std::sync::atomic::AtomicU64,
    interval: watch::Sender<Duration>,
    progress: broadcast::Sender<SyncProgress>,
}

impl SyncControl {
    /// A schedule of `interval` until one is loaded or set.
    pub fn new(interval: Duration) -> Self {
        let (interval, _) = watch::channel(interval);
        // Progress is for the screen: a listener that falls behind skips to the newest.
        let (progress, _) = broadcast::channel(64);
        SyncControl {
            inner: Arc::new(Inner { running: Mutex::new(()), whole_syncs: Default::default(), interval, progress }),
        }
    }

    /// Takes the interval an admin chose earlier, if there is one.
    pub async fn load_interval(&self, db: &PaymentsDb) -> Result<()> {
        let stored = db.meta(INTERVAL_SETTING).await?.and_then(|v| v.parse::<u64>().ok());
        if let Some(interval) = stored.and_then(|secs| validate_interval(secs).ok()) {
            self.inner.interval.send_replace(interval);
        }
        Ok(())
    }

    /// Keeps a new interval and reschedules the background sync at once.
    pub async fn set_interval(&self, db: &PaymentsDb, interval: Duration) -> Result<()> {
        db.set_meta(INTERVAL_SETTING, interval.as_secs().to_string()).await?;
        self.inner.interval.send_replace(interval);
        Ok(())
    }

    pub fn interval(&self) -> Duration {
        *self.inner.interval.borrow()
    }

    /// Follows changes of the interval (the background loop).
    pub fn watch_interval(&self) -> watch::Receiver<Duration> {
        self.inner.interval.subscribe()
    }

    /// Waits for any running sync to end, then holds the lock while this one runs.
    pub async fn exclusive(&self) -> MutexGuard<'_, ()> {
        self.inner.running.lock().await
    }

    /// The lock if no sync runs now.
    pub fn try_exclusive(&self) -> Option<MutexGuard<'_, ()>> {
        self.inner.running.try_lock().ok()
    }

    /// How many whole syncs this process has made: one more once a sync has read everything.
    pub fn whole_syncs(&self) -> u64 {
        self.inner.whole_syncs.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Counts a whole sync, ended or failed.
    pub fn count_whole_sync(&self) {
        self.inner.whole_syncs.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }

    pub fn is_running(&self) -> bool {
        self.inner.running.try_lock().is_err()
    }

    pub fn subscribe(&self) -> broadcast::Receiver<SyncProgress> {
        self.inner.progress.subscribe()
    }

    /// A reporter that sends this sync's progress to the listeners.
    pub fn reporter(&self) -> SyncReporter {
        SyncReporter { progress: Some(self.inner.progress.clone()) }
    }
}

/// Sends a sync's progress, or nothing (a catalogue read on demand is not a sync to show).
#[derive(Clone, Default)]
pub(crate) struct SyncReporter {
    progress: Option<broadcast::Sender<SyncProgress>>,
}

impl SyncReporter {
    /// Reports nothing.
    pub fn silent() -> Self {
        SyncReporter::default()
    }

    /// `done` of `total` pages (or buyers) of `step` are read.
    pub fn step(&self, step: SyncStep, done: u32, total: Option<u32>) {
        self.send(SyncProgress { step, done, total, error: None });
    }

    /// The sync has ended, with its error if it failed.
    pub fn finished(&self, outcome: std::result::Result<(), &Error>) {
        let error = outcome.err().map(|e| SyncFailure { code: e.code, message: e.message.clone() });
        self.send(SyncProgress { step: SyncStep::Done, done: 0, total: None, error });
    }

    fn send(&self, progress: SyncProgress) {
        if let Some(sender) = &self.progress {
            // No listener (headless, or no window yet) is not an error.
            let _ = sender.send(progress);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_outside_a_minute_to_a_day_are_refused_naming_the_field() {
        assert_eq!(validate_interval(60).unwrap(), Duration::from_secs(60));
        assert_eq!(validate_interval(86_400).unwrap(), Duration::from_secs(86_400));
        for bad in [0, 59, 86_401, u64::MAX] {
            let err = validate_interval(bad).unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidRequest);
            assert!(err.object().to_string().contains("intervalSecs"), "{}", err.object());
        }
    }

    #[tokio::test]
    async fn progress_reaches_listeners_and_the_lock_shows_a_running_sync() {
        let control = SyncControl::new(Duration::from_secs(300));
        let mut listener = control.subscribe();
        let guard = control.exclusive().await;
        assert!(control.is_running());
        let reporter = control.reporter();
        reporter.step(SyncStep::Products, 1, Some(3));
        reporter.finished(Ok(()));
        drop(guard);
        assert!(!control.is_running());
        assert_eq!(
            listener.recv().await.unwrap(),
            SyncProgress { step: SyncStep::Products, done: 1, total: Some(3), error: None }
        );
        assert_eq!(listener.recv().await.unwrap().step, SyncStep::Done);
        // A silent reporter sends nothing.
        SyncReporter::silent().step(SyncStep::Variants, 1, None);
        assert!(listener.try_recv().is_err());
    }
}
