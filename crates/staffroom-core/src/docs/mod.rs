//! The document area (the `staffroom-docs` crate: Google Drive and Docs, the editor's saves and
//! drafts), and what the core adds: its operations.

pub use staffroom_docs::*;

pub mod ops;
