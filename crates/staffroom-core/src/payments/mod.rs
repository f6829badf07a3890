//! The payment area (the `staffroom-payments` crate: Lemon Squeezy through the cache, the
//! webhook receiver), and what the core adds: its operations.

pub use staffroom_payments::*;

pub mod exports;
pub mod ops;
