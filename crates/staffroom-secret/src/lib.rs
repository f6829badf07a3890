//! [`Secret`]: the one type every part of Staffroom carries a credential in, the core and the
//! simulators alike, so that none can print one by accident.

use std::fmt;

use zeroize::Zeroizing;

/// A secret value. It never shows itself in `Debug`, `Display` or logs, and is wiped on drop.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(Zeroizing<String>);

impl Secret {
    /// Wraps a value.
    pub fn new(value: impl Into<String>) -> Self {
        Secret(Zeroizing::new(value.into()))
    }

    /// The value itself: call only where it is about to be used.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

/// A value read straight into a secret (a request's password or key, as `#[request]` reads it).
impl From<String> for Secret {
    fn from(value: String) -> Self {
        Secret(Zeroizing::new(value))
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret([redacted])")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

/// Serializes a secret's value: only for a request that carries it to where it is used (a
/// password sent to the team server that checks it).
pub fn serialize_exposed<S: serde::Serializer>(secret: &Secret, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(secret.expose())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_never_prints_itself() {
        let secret = Secret::new("hunter2-and-more");
        assert_eq!(format!("{secret} {secret:?}"), "[redacted] Secret([redacted])");
        assert_eq!(secret.expose(), "hunter2-and-more");
    }
}
