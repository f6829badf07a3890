//! Simulators of both providers over HTTP on loopback: Lemon Squeezy ([`lemonsqueezy`]) and
//! Google's Drive, Docs and OAuth ([`google`]), seeded with the data real accounts have, each
//! behaviour sourced in `docs/PROVIDERS.md`. The app's real clients talk to them, in the sandbox
//! and in the tests; they know nothing of Staffroom's own code.

// serde_json's `json!` recurses once per field: the simulators write whole provider objects in one.
#![recursion_limit = "256"]

pub mod google;
pub mod lemonsqueezy;
pub mod shared;

/// Why a simulator could not start (its listener, or its HTTP client for webhooks).
pub type Result<T, E = std::io::Error> = std::result::Result<T, E>;
