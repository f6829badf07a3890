//! Staffroom's core: the declarations of every operation, the services behind them (staff auth,
//! payments, webhooks, documents, events, audit), the store traits they ask of a database, and
//! the sandbox's demo account. It holds no SQL and serves no HTTP: the stores
//! (`staffroom-sqlite`, `staffroom-postgres`) implement its traits, and the doors (the HTTP
//! service, the desktop commands) call its [`Core`].

pub mod api;
pub mod auth;
pub mod bindings;
pub mod config;
pub mod connections;
pub mod core;
pub mod data_dir;
pub mod docs;
pub mod events;
pub mod payments;
pub mod sandbox;
pub mod settings;
pub mod store;
pub mod templates;

// What every crate shares, where the core's own code has always found it.
pub use staffroom_auth::audit;
pub use staffroom_base::{error, memory, secrets, text_enum, time};
pub use staffroom_payments::webhooks;

pub use crate::core::Core;
pub use crate::error::{Error, ErrorCode, Result};
