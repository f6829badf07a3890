//! The sign-in throttle's policy, decided here once for both stores. An attempt is counted
//! (reserved) before its password is hashed, in one transaction of the store, so however many
//! guesses arrive at once only [`ATTEMPTS_BEFORE_LOCK`] per account and address reach the hasher
//! before a lock. A lock refuses the account at that address only; [`ACCOUNT_CEILING`] failures
//! within an hour, from any addresses, lock the account everywhere until an admin unlocks it.
//! The stores keep the counts and call these functions inside their transactions.

pub use crate::store::Reservation;

/// Attempts per account and address before a lock.
pub const ATTEMPTS_BEFORE_LOCK: i64 = 5;
/// Failures per account within [`CEILING_WINDOW_SECS`], from any addresses, that lock it until
/// an admin unlocks it.
pub const ACCOUNT_CEILING: i64 = 20;
/// The window of the account ceiling.
pub const CEILING_WINDOW_SECS: i64 = 3600;
/// How long the `Retry-After` of an account lock says (it lasts until an admin unlocks it).
pub(crate) const ACCOUNT_LOCK_RETRY_SECS: u64 = 3600;
/// How long an address nobody has tried is remembered, so random guesses cannot fill the disk.
pub const FORGET_AFTER_SECS: i64 = 24 * 3600;

/// What the store holds about one account at one address when an attempt arrives.
#[derive(Debug, Clone, Copy)]
pub struct AttemptCount {
    /// The account is locked everywhere.
    pub account_locked: bool,
    /// Attempts reserved since the address's last lock (some may still be in flight).
    pub attempts: i64,
    /// Locks of this account at this address so far.
    pub locks: i64,
    /// Until when the address's current lock lasts (Unix seconds; 0 for none).
    pub locked_until: i64,
}

/// The throttle's key: one account (whatever its case) at one address.
pub fn key(email: &str, address: &str) -> String {
    format!("{} {address}", email.to_lowercase())
}

/// The wait of the `lock`th lock (1-based): 30 s, doubling, at most an hour.
pub fn lock_secs(lock: i64) -> i64 {
    let doublings = (lock - 1).clamp(0, 20) as u32;
    (30i64 << doublings).min(3600)
}

/// Whether an attempt may go now: `Go`, or refused with the wait to say.
pub fn decide(count: AttemptCount, now: i64) -> Reservation {
    let refused_for = if count.account_locked {
        Some(ACCOUNT_LOCK_RETRY_SECS)
    } else if count.locked_until > now {
        Some((count.locked_until - now) as u64)
    } else if count.attempts >= ATTEMPTS_BEFORE_LOCK {
        // The allowed attempts are in flight: the lock they will set is the wait.
        Some(lock_secs(count.locks + 1) as u64)
    } else {
        None
    };
    match refused_for {
        Some(retry_after) => Reservation::Refused { retry_after: retry_after.max(1) },
        None => Reservation::Go,
    }
}

/// The lock a failure sets, given the address's failures (this one included) and locks so far:
/// `(lock number, locked until)`, or none yet.
pub fn lock_after_failure(failures: i64, locks: i64, now: i64) -> Option<(i64, i64)> {
    (failures >= ATTEMPTS_BEFORE_LOCK).then(|| (locks + 1, now + lock_secs(locks + 1)))
}

/// Whether the account's failures within the window lock it everywhere.
pub fn locks_account(account_failures: i64) -> bool {
    account_failures >= ACCOUNT_CEILING
}

/// The audit detail of a lock's refusals so far.
pub fn refusal_detail(address: &str, refused: i64, account_locked: bool) -> serde_json::Value {
    serde_json::json!({ "address": address, "refused": refused, "accountLocked": account_locked })
}

/// The audit entry of an address's first refusal under a lock (later ones update its detail).
pub fn refusal_entry<'a>(email: &'a str, detail: serde_json::Value) -> crate::audit::NewAuditEntry<'a> {
    crate::audit::NewAuditEntry {
        actor: "anonymous",
        action: crate::audit::AuditAction::SignIn,
        target: Some(email),
        outcome: "throttled",
        detail: Some(detail),
    }
}

/// The audit entry of an account locked by the ceiling.
pub fn account_lock_entry(email: &str, failures: i64, window_start: i64) -> crate::audit::NewAuditEntry<'_> {
    crate::audit::NewAuditEntry {
        actor: "system",
        action: crate::audit::AuditAction::AccountLocked,
        target: Some(email),
        outcome: "locked until an admin unlocks it",
        detail: Some(serde_json::json!({ "failures": failures, "since": window_start })),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locks_grow_from_thirty_seconds_to_an_hour() {
        assert_eq!(lock_secs(1), 30);
        assert_eq!(lock_secs(2), 60);
        assert_eq!(lock_secs(8), 3600);
        assert_eq!(lock_secs(1000), 3600);
    }

    #[test]
    fn a_decision_follows_the_account_then_the_address_then_the_count() {
        let count = AttemptCount { account_locked: false, attempts: 0, locks: 0, locked_until: 0 };
        assert_eq!(decide(count, 100), Reservation::Go);
        let account = AttemptCount { account_locked: true, ..count };
        assert_eq!(decide(account, 100), Reservation::Refused { retry_after: 3600 });
        let address = AttemptCount { locked_until: 130, ..count };
        assert_eq!(decide(address, 100), Reservation::Refused { retry_after: 30 });
        let in_flight = AttemptCount { attempts: ATTEMPTS_BEFORE_LOCK, locks: 1, ..count };
        assert_eq!(decide(in_flight, 100), Reservation::Refused { retry_after: 60 });
        assert_eq!(lock_after_failure(4, 0, 100), None);
        assert_eq!(lock_after_failure(5, 1, 100), Some((2, 160)));
        assert!(!locks_account(ACCOUNT_CEILING - 1) && locks_account(ACCOUNT_CEILING));
    }
}
