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

/// A new webhook signing secret: 40 characters (base64url of 240 random bits), the most Lemon
/// Squeezy takes (its API documents 6 to 40).
pub fn generate_webhook_secret() -> Secret {
    let mut bytes = [0u8; 30];
    rand::rng().fill_bytes(&mut bytes);
    Secret::new(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}
