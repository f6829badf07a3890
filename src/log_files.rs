//! The log files' writer: JSON lines in daily files, written by background threads so the app
//! never waits on the disk for a routine line. Two queues share one file: routine lines (info and
//! below) may be dropped when a burst outruns the disk, and are counted; warnings and errors are
//! never dropped (their writer waits for room), and the next one written after a loss says how
//! many routine lines were lost.

use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tracing::{Level, Metadata};
use tracing_appender::non_blocking::{ErrorCounter, NonBlocking, NonBlockingBuilder};
use tracing_subscriber::fmt::MakeWriter;

/// How many daily log files are kept.
const KEEP_FILES: usize = 14;
/// Lines each queue holds for its writer thread. Every slot is allocated up front (the default,
/// 128,000 lines, was 4 MB of the desktop's memory).
const QUEUED_LINES: usize = 4096;

/// Keep alive for as long as the process logs: dropping it flushes both queues.
pub struct WorkerGuard {
    _routine: tracing_appender::non_blocking::WorkerGuard,
    _warnings: tracing_appender::non_blocking::WorkerGuard,
}

/// Where each line goes, by its level.
#[derive(Clone)]
pub struct LogFiles {
    routine: NonBlocking,
    warnings: NonBlocking,
    dropped: ErrorCounter,
    /// How many dropped lines have been told of already.
    told: Arc<AtomicUsize>,
}

/// One file, shared by both writer threads; each write is a whole line.
struct SharedFile(Arc<Mutex<Box<dyn Write + Send>>>);

impl Write for SharedFile {
    fn write(&mut self, line: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).write(line)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).flush()
    }
}

impl LogFiles {
    /// Daily files in `dir` (made if missing), or `None` with a warning on stderr.
    pub fn open(dir: &Path) -> Option<(LogFiles, WorkerGuard)> {
        // The appender prunes old files as it starts, and says "Error reading the log directory"
        // on a first start when there is no directory yet: made first, a first start says nothing.
        let warn = |e: &dyn std::fmt::Display| eprintln!("warning: cannot write logs in {}: {e}", dir.display());
        if let Err(e) = std::fs::create_dir_all(dir) {
            warn(&e);
            return None;
        }
        let appender = tracing_appender::rolling::Builder::new()
            .rotation(tracing_appender::rolling::Rotation::DAILY)
            .filename_prefix("staffroom")
            .filename_suffix("log")
            .max_log_files(KEEP_FILES)
            .build(dir)
            .map_err(|e| warn(&e))
            .ok()?;
        Some(LogFiles::over(appender, QUEUED_LINES))
    }

    /// Both queues writing to `file`.
    fn over(file: impl Write + Send + 'static, queued_lines: usize) -> (LogFiles, WorkerGuard) {
        let file: Arc<Mutex<Box<dyn Write + Send>>> = Arc::new(Mutex::new(Box::new(file)));
        let queue = || NonBlockingBuilder::default().buffered_lines_limit(queued_lines);
        let (routine, routine_guard) = queue().lossy(true).finish(SharedFile(file.clone()));
        let (warnings, warnings_guard) = queue().lossy(false).finish(SharedFile(file));
        let dropped = routine.error_counter();
        let files = LogFiles { routine, warnings, dropped, told: Arc::default() };
        (files, WorkerGuard { _routine: routine_guard, _warnings: warnings_guard })
    }

    /// Tells, once, of routine lines dropped since the last time: a warning line of its own.
    fn tell_of_drops(&self) {
        let dropped = self.dropped.dropped_lines();
        let told = self.told.load(Ordering::Relaxed);
        if dropped > told && self.told.compare_exchange(told, dropped, Ordering::Relaxed, Ordering::Relaxed).is_ok() {
            let line = serde_json::json!({
                "timestamp": staffroom_core::time::now_rfc3339(),
                "level": "WARN",
                "fields": {
                    "message": format!("{} routine log lines were dropped: they came faster than the disk took them", dropped - told),
                    "dropped": dropped - told,
                },
                "target": "staffroom::log_files",
            });
            // One write, one message to the writer thread: the other thread cannot come between
            // the line and its end.
            let _ = self.warnings.clone().write_all(format!("{line}\n").as_bytes());
        }
    }
}

impl<'a> MakeWriter<'a> for LogFiles {
    type Writer = NonBlocking;

    fn make_writer(&'a self) -> NonBlocking {
        self.routine.clone()
    }

    fn make_writer_for(&'a self, meta: &Metadata<'_>) -> NonBlocking {
        if *meta.level() <= Level::WARN {
            self.tell_of_drops();
            self.warnings.clone()
        } else {
            self.routine.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A disk that takes a millisecond a line.
    struct SlowDisk(Arc<Mutex<Vec<u8>>>);

    impl Write for SlowDisk {
        fn write(&mut self, line: &[u8]) -> std::io::Result<usize> {
            std::thread::sleep(std::time::Duration::from_millis(1));
            self.0.lock().unwrap().extend_from_slice(line);
            Ok(line.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// A burst of routine lines faster than the disk takes them, past the queue (16 lines
    /// here), loses some of them, never a warning, and the warnings after a loss say how many
    /// were lost.
    #[test]
    fn warnings_are_never_dropped_and_say_how_many_routine_lines_were() {
        let disk = Arc::new(Mutex::new(Vec::new()));
        let (files, guard) = LogFiles::over(SlowDisk(disk.clone()), 16);
        let subscriber = tracing_subscriber::fmt().json().with_writer(files).finish();
        tracing::subscriber::with_default(subscriber, || {
            for n in 0..20_000 {
                tracing::info!(n, "a routine line with some words in it to fill the queue");
                if n % 400 == 0 {
                    tracing::warn!(n, "a warning in the burst");
                }
            }
            tracing::warn!("after the burst");
        });
        drop(guard);
        let written = String::from_utf8(disk.lock().unwrap().clone()).unwrap();
        let warnings = written.lines().filter(|l| l.contains("a warning in the burst")).count();
        assert_eq!(warnings, 50, "every warning is written");
        assert!(written.contains("after the burst"));
        let routine = written.lines().filter(|l| l.contains("a routine line")).count();
        assert!(routine < 20_000, "a burst of 20,000 lines through a queue of 16 lost none: nothing was tried");
        let told: usize = written
            .lines()
            .filter(|l| l.contains("routine log lines were dropped"))
            .map(|l| {
                serde_json::from_str::<serde_json::Value>(l).unwrap()["fields"]["dropped"].as_u64().unwrap() as usize
            })
            .sum();
        assert_eq!(told, 20_000 - routine, "the warnings tell of every dropped line");
    }
}
