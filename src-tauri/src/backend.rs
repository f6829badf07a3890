//! How the desktop reaches the core's operations: through one small trait, so that the same
//! commands work whether the core runs in this process (today) or on a team server, with the
//! tokens kept here in Rust either way.

use staffroom::api::{self, Answer, BoxFuture, Input, OpEntry};
use staffroom::auth::THIS_COMPUTER;
use staffroom::{Core, Result};

/// Runs core operations for the desktop.
pub trait Backend: Send + Sync {
    /// Calls `operation` as the holder of `token` with `input`, and answers as the core does.
    fn call<'a>(
        &'a self,
        operation: &'static OpEntry,
        token: Option<&'a str>,
        input: Input,
    ) -> BoxFuture<'a, Result<Answer>>;
}

/// The core in this process.
pub struct InProcess {
    core: Core,
}

impl InProcess {
    pub fn new(core: Core) -> Self {
        InProcess { core }
    }
}

impl Backend for InProcess {
    fn call<'a>(
        &'a self,
        operation: &'static OpEntry,
        token: Option<&'a str>,
        input: Input,
    ) -> BoxFuture<'a, Result<Answer>> {
        Box::pin(api::dispatch(&self.core, operation, token, THIS_COMPUTER, input))
    }
}
