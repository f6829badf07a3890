//! Staff accounts and the audit log (the `staffroom-auth` crate), and what the core adds: their
//! operations, and the desktop's remembered session.

pub use staffroom_auth::*;

pub mod ops;
mod remember;
