//! The core's store traits and handle, and the two stores that implement them.

pub mod migrate;

pub use staffroom_core::store::*;
pub use staffroom_postgres as postgres;
pub use staffroom_sqlite as sqlite;
pub use staffroom_sqlite::{OpenError, Sqlite, DB_FILE};
