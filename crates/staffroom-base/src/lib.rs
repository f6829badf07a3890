//! What every part of Staffroom shares: the one error type and its codes, secrets and the stores
//! that keep them, enums that are stored and sent as fixed words, and time in the spec's shapes.

pub mod error;
pub mod secrets;
pub mod text_enum;
pub mod time;

pub use crate::error::{Error, ErrorCode, FieldError, Result};
pub use crate::text_enum::TextEnum;
