//! What every part of Staffroom shares: the one error type and its codes, secrets and the stores
//! that keep them, enums that are stored and sent as fixed words, and time in the spec's shapes.

// The #[request] attribute names what it writes by this crate's path, here too.
extern crate self as staffroom_base;

pub mod connection;
pub mod error;
pub mod memory;
pub mod request;
pub mod sealed;
pub mod secrets;
pub mod store;
pub mod text_enum;
pub mod time;

pub use crate::error::{Error, ErrorCode, FieldError, Result};
pub use crate::text_enum::TextEnum;
