//! Staffroom's core: staff auth, the payment and document services, the SQLite store, secrets,
//! the sandbox simulators, and the HTTP service. The desktop shell and `staffroom serve` are two
//! thin doors onto the same [`Core`].

// serde_json's `json!` recurses once per field: the simulators write whole provider objects in one.
#![recursion_limit = "256"]

pub mod api;
pub mod audit;
pub mod auth;
pub mod bindings;
pub mod config;
pub mod core;
pub mod data_dir;
pub mod docs;
pub mod error;
pub mod events;
pub mod http;
pub mod logging;
pub mod payments;
pub mod provider;
pub mod sandbox;
pub mod secrets;
pub mod settings;
pub mod store;
mod text_enum;
pub mod time;
pub mod webhooks;

pub use crate::core::Core;
pub use crate::error::{Error, ErrorCode, Result};
