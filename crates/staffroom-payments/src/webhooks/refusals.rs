//! Refused deliveries, counted rather than recorded one by one: a flood of forged deliveries must
//! not become a flood of stored events, of events sent to every desktop, or of log lines. An admin
//! must still see that deliveries are being refused (a misconfigured signing secret looks exactly
//! like a forgery), so at most one summary a minute goes to the live feed and to the log.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;

use super::FeedItem;

/// The shortest time between two summaries.
pub const SUMMARY_EVERY: Duration = Duration::from_secs(60);

/// Why a delivery was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Refusal {
    /// The `X-Signature` header does not match the body.
    BadSignature,
    /// No `X-Signature` header: not Lemon Squeezy (a scanner, a mistyped URL).
    Unsigned,
    /// No usable signing secret is set, so nothing can be verified.
    NoSecret,
}

impl Refusal {
    fn describe(self) -> &'static str {
        match self {
            Refusal::BadSignature => "bad signature",
            Refusal::Unsigned => "no signature",
            Refusal::NoSecret => "no usable signing secret is set",
        }
    }
}

/// The refusals since the last summary, and when that was.
#[derive(Clone)]
pub struct Refusals {
    state: Arc<Mutex<State>>,
    feed: super::Feed,
    /// When a summary last counted a bad signature (RFC 3339): a secret that differs between
    /// the provider and here looks exactly like this, and Connections says so.
    bad_signature_at: Arc<tokio::sync::watch::Sender<Option<String>>>,
}

#[derive(Default)]
struct State {
    counts: BTreeMap<Refusal, u64>,
    last_summary: Option<Instant>,
    summary_scheduled: bool,
}

impl Refusals {
    /// Summaries go to `feed` (kind `refused`, the sentence as its outcome).
    pub fn new(feed: super::Feed) -> Refusals {
        Refusals { state: Arc::default(), feed, bad_signature_at: Arc::new(tokio::sync::watch::channel(None).0) }
    }

    /// When a summary last counted a bad signature, as it changes (at most once a minute).
    pub fn bad_signatures(&self) -> tokio::sync::watch::Receiver<Option<String>> {
        self.bad_signature_at.subscribe()
    }

    /// Counts one refusal. The first after a quiet minute is reported at once; later ones wait
    /// for the minute to end and are reported together.
    pub fn count(&self, why: Refusal) {
        let mut state = self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        *state.counts.entry(why).or_default() += 1;
        let next = state.last_summary.map(|at| at + SUMMARY_EVERY);
        match next {
            Some(next) if next > Instant::now() => {
                if !state.summary_scheduled {
                    state.summary_scheduled = true;
                    let refusals = self.clone();
                    tokio::spawn(async move {
                        tokio::time::sleep_until(next).await;
                        let mut state = refusals.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                        state.summary_scheduled = false;
                        refusals.report(&mut state);
                    });
                }
            }
            _ => self.report(&mut state),
        }
    }

    fn report(&self, state: &mut State) {
        let counts = std::mem::take(&mut state.counts);
        let Some(sentence) = summary(&counts, state.last_summary.is_some()) else { return };
        state.last_summary = Some(Instant::now());
        tracing::warn!(summary = %sentence, "webhook deliveries refused");
        let mut item = FeedItem::new("refused", false);
        if counts.contains_key(&Refusal::BadSignature) {
            self.bad_signature_at.send_replace(Some(item.at.clone()));
        }
        item.outcome = Some(sentence);
        let _ = self.feed.send(Arc::new(item));
    }
}

/// "37 deliveries refused in the last minute: bad signature", or `None` when there were none.
fn summary(counts: &BTreeMap<Refusal, u64>, after_a_summary: bool) -> Option<String> {
    let total: u64 = counts.values().sum();
    if total == 0 {
        return None;
    }
    let what = if total == 1 { "1 delivery refused".to_string() } else { format!("{total} deliveries refused") };
    let when = if after_a_summary { " in the last minute" } else { "" };
    let why = match counts.len() {
        1 => counts.keys().map(|why| why.describe().to_string()).collect::<String>(),
        _ => counts.iter().map(|(why, n)| format!("{} ({n})", why.describe())).collect::<Vec<_>>().join(", "),
    };
    Some(format!("{what}{when}: {why}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries_name_the_count_and_the_reasons() {
        let mut counts = BTreeMap::new();
        assert_eq!(summary(&counts, false), None);
        counts.insert(Refusal::BadSignature, 1);
        assert_eq!(summary(&counts, false).unwrap(), "1 delivery refused: bad signature");
        counts.insert(Refusal::BadSignature, 37);
        assert_eq!(summary(&counts, true).unwrap(), "37 deliveries refused in the last minute: bad signature");
        counts.insert(Refusal::NoSecret, 2);
        assert_eq!(
            summary(&counts, true).unwrap(),
            "39 deliveries refused in the last minute: bad signature (37), no usable signing secret is set (2)"
        );
    }

    /// A flood makes one summary at once and one when the minute is over, nothing in between.
    #[tokio::test(start_paused = true)]
    async fn a_flood_makes_at_most_one_summary_a_minute() {
        let (feed, mut items) = tokio::sync::broadcast::channel(64);
        let refusals = Refusals::new(feed);
        for _ in 0..1_000 {
            refusals.count(Refusal::BadSignature);
        }
        let first = items.try_recv().unwrap();
        assert_eq!(first.outcome.as_deref(), Some("1 delivery refused: bad signature"));
        assert_eq!(refusals.bad_signatures().borrow().as_deref(), Some(first.at.as_str()));
        tokio::time::sleep(SUMMARY_EVERY - Duration::from_secs(1)).await;
        assert!(items.try_recv().is_err(), "a second summary within the minute");
        tokio::time::sleep(Duration::from_secs(2)).await;
        let second = items.try_recv().unwrap();
        assert_eq!(refusals.bad_signatures().borrow().as_deref(), Some(second.at.as_str()));
        assert_eq!(second.kind, "refused");
        assert_eq!(second.outcome.as_deref(), Some("999 deliveries refused in the last minute: bad signature"));
        assert!(items.try_recv().is_err());
    }
}
