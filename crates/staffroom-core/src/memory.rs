//! Memory the process has freed goes back to the system. glibc's allocator raises its threshold
//! for giving a large block a mapping of its own each time such a block is freed: after the first
//! password hash (argon2 takes 19 MiB and frees it at once), blocks that size come from the heap,
//! and once freed they still count as the app's memory. Opening the core (migrations, the
//! sandbox's seed) and a sync leave free pages inside the heap the same way. Measured at the
//! sign-in form after a first launch, the desktop app's own process: 148 → 124 MiB PSS
//! (docs/PERFORMANCE.md, "Feeling instant"). The desktop uses both; `serve` only trims after a
//! sync (a login there would otherwise map and fault in argon2's 19 MiB each time).

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Notify;

/// Keeps large blocks in mappings of their own, unmapped when freed. Call first thing in `main`,
/// before any thread allocates.
pub fn unmap_large_blocks_when_freed() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets an allocator parameter; setting the threshold fixes it (glibc then
    // stops adjusting it), which is the point.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, LARGE_BLOCK);
    }
}

/// glibc's own starting threshold, kept from then on.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const LARGE_BLOCK: libc::c_int = 128 * 1024;

/// Gives the free pages back once calls have stopped for a moment: each [`busy`](Self::busy)
/// puts the release off until `quiet` has passed without another. A window's clicks each free
/// what they read (a page of rows, a detail, their JSON); the desktop's process kept about 25 MiB
/// of that after a session through every list (docs/PERFORMANCE.md, "A fifth pass").
#[derive(Clone)]
pub struct ReleaseWhenQuiet {
    poke: Arc<Notify>,
}

impl ReleaseWhenQuiet {
    /// Starts watching, on the current Tokio runtime, to release the free pages.
    pub fn start(quiet: Duration) -> Self {
        Self::start_with(quiet, release_free_pages)
    }

    /// Starts watching to run `release` (a blocking call) once calls stop for `quiet`.
    pub fn start_with(quiet: Duration, release: fn()) -> Self {
        let poke = Arc::new(Notify::new());
        let watched = poke.clone();
        tokio::spawn(async move {
            loop {
                watched.notified().await;
                while tokio::time::timeout(quiet, watched.notified()).await.is_ok() {}
                let _ = tokio::task::spawn_blocking(release).await;
            }
        });
        ReleaseWhenQuiet { poke }
    }

    /// A call ran: the release waits for calls to stop again.
    pub fn busy(&self) {
        self.poke.notify_one();
    }
}

/// Returns the heap's free pages to the system: after a burst of work that freed much.
pub fn release_free_pages() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only gives free pages of the allocator's own arenas back to the system.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use super::ReleaseWhenQuiet;

    static RELEASES: AtomicUsize = AtomicUsize::new(0);

    fn count() {
        RELEASES.fetch_add(1, Ordering::SeqCst);
    }

    /// Lets the watcher and its blocking release run, with time stopped.
    async fn settle() {
        for _ in 0..20 {
            tokio::task::yield_now().await;
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }

    #[tokio::test(start_paused = true)]
    async fn the_release_waits_until_calls_have_stopped_for_the_quiet_time() {
        let quiet = ReleaseWhenQuiet::start_with(Duration::from_secs(2), count);
        settle().await;
        assert_eq!(RELEASES.load(Ordering::SeqCst), 0, "nothing to release before a call");
        // A call every second for five seconds: never quiet for two.
        for _ in 0..5 {
            quiet.busy();
            tokio::time::sleep(Duration::from_secs(1)).await;
            settle().await;
        }
        assert_eq!(RELEASES.load(Ordering::SeqCst), 0, "released while calls still came");
        tokio::time::sleep(Duration::from_millis(1_500)).await;
        settle().await;
        assert_eq!(RELEASES.load(Ordering::SeqCst), 1, "released once, two seconds after the last call");
        tokio::time::sleep(Duration::from_secs(10)).await;
        settle().await;
        assert_eq!(RELEASES.load(Ordering::SeqCst), 1, "nothing more to release without a call");
        quiet.busy();
        tokio::time::sleep(Duration::from_millis(2_100)).await;
        settle().await;
        assert_eq!(RELEASES.load(Ordering::SeqCst), 2, "the next call's release");
    }
}
