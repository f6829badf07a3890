//! Logs: human-readable lines on stderr, JSON lines in daily files (`<data dir>/logs` for the CLI).
//! Filter with `STAFFROOM_LOG` (e.g. `debug`, `staffroom=trace`). Secrets never reach a log: they
//! travel as `Secret`, which prints as `[redacted]`, and requests are logged by path only. Other
//! crates log at `info` at most, whatever the filter says: below it they write what they carry
//! (tokio-postgres every statement's parameters, so password hashes and delivery bodies; HTTP
//! crates headers and frames).

use std::path::Path;

use crate::log_files::LogFiles;
pub use crate::log_files::WorkerGuard;
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;
use tracing_subscriber::{fmt, EnvFilter};

/// The environment variable holding the log filter.
pub const LOG_ENV: &str = "STAFFROOM_LOG";
fn filter(default: &str) -> EnvFilter {
    EnvFilter::try_from_env(LOG_ENV).unwrap_or_else(|_| EnvFilter::new(default))
}

/// The most detail each crate may log: ours all of it, every other crate `info` at most.
fn detail_allowed() -> Targets {
    Targets::new()
        .with_target("staffroom", LevelFilter::TRACE)
        .with_target("staffroom_desktop", LevelFilter::TRACE)
        .with_default(LevelFilter::INFO)
}

fn stderr_layer<S>() -> impl tracing_subscriber::Layer<S>
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    fmt::layer().with_writer(std::io::stderr).with_target(false).compact()
}

/// Warnings and errors on stderr only, for one-shot commands: the cause of a failure (a refused
/// connection, say) shows beside the error the command prints, without the routine lines.
pub fn init_for_command() {
    let _ = tracing_subscriber::registry().with(filter("warn")).with(detail_allowed()).with(stderr_layer()).try_init();
}

/// Starts logging to stderr and, when `log_dir` is given, to JSON files in it (the CLI uses
/// `<data dir>/logs`, the desktop app its platform log dir). Keep the guard alive for as long as
/// the process logs: dropping it flushes the file writer.
pub fn init(log_dir: Option<&Path>) -> Option<WorkerGuard> {
    let (files, guard) = match log_dir.and_then(LogFiles::open) {
        Some((writer, guard)) => (Some(fmt::layer().json().with_writer(writer).with_current_span(true)), Some(guard)),
        None => (None, None),
    };
    // A second init (tests, embedded use) keeps the first subscriber.
    let _ = tracing_subscriber::registry()
        .with(filter("info"))
        .with(detail_allowed())
        .with(stderr_layer())
        .with(files)
        .try_init();
    guard
}
