//! Staffroom, wired: the core ([`staffroom_core`], re-exported here whole) on the store its
//! configuration names ([`open`]), the HTTP door ([`http`]), logging, and the copy of a data dir
//! into a team's database ([`store::migrate`]). The CLI and `staffroom serve` (`src/main.rs`) and
//! the desktop shell (`src-tauri`) build on this crate.

mod log_files;
mod open;

pub mod logging;
#[cfg(feature = "sandbox")]
pub mod sandbox;
pub mod store;

pub use staffroom_core::*;
pub use staffroom_http as http;

pub use crate::open::open;
