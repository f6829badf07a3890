//! Keys Staffroom makes itself: the JWT key, a team's `data_key`, a sandbox's signing secret.

use base64::Engine as _;
use rand::RngCore as _;

use super::Secret;

/// A new random 256-bit signing key, as stored in the keyring (base64url).
pub fn generate_key() -> Secret {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    Secret::new(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}

/// Whether `secret` is a key as [`generate_key`] makes them (base64url of 256 bits or more).
pub fn is_key(secret: &Secret) -> bool {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(secret.expose()).is_ok_and(|bytes| bytes.len() >= 32)
}
