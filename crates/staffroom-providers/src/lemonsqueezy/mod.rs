//! Lemon Squeezy: the API client, its JSON:API documents, the objects Staffroom reads from them,
//! and the webhook payloads with their signatures.

pub mod client;
pub mod jsonapi;
pub mod model;
pub mod payload;
pub mod signature;
