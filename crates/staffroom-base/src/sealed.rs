//! Secrets a team server keeps in its database: only those that change at run time (Google's
//! token set, SPEC section 10), sealed with the team's `data_key`. XChaCha20-Poly1305 (an AEAD),
//! a random 24-byte nonce for every seal, and the secret's name as associated data, so a sealed
//! value copied under another name does not open.

use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use rand::RngCore as _;
use sha2::Digest as _;

use crate::error::{Error, Result};
use crate::secrets::Secret;

const NONCE_LEN: usize = 24;

/// Seals and opens with one `data_key`.
#[derive(Clone)]
pub struct Sealer {
    cipher: XChaCha20Poly1305,
}

impl std::fmt::Debug for Sealer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Sealer([redacted])")
    }
}

impl Sealer {
    /// A sealer for `data_key` (base64url, 256 bits or more, as `secrets generate` makes it).
    /// The cipher's key is derived from it under a label of its own, so it is never the same
    /// bytes as any other use of the secret.
    pub fn new(data_key: &Secret) -> Result<Sealer> {
        use base64::Engine as _;
        let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(data_key.expose())
            .ok()
            .filter(|bytes| bytes.len() >= 32)
            .ok_or_else(|| Error::internal("data_key", "data_key is not base64url of 256 bits or more"))?;
        let key = sha2::Sha256::new().chain_update(b"staffroom data_key sealing v1\0").chain_update(&bytes).finalize();
        Ok(Sealer { cipher: XChaCha20Poly1305::new(&key) })
    }

    /// The nonce, then the ciphertext with its tag.
    pub fn seal(&self, name: &str, plain: &[u8]) -> Vec<u8> {
        let mut nonce = [0u8; NONCE_LEN];
        rand::rng().fill_bytes(&mut nonce);
        let sealed = self
            .cipher
            .encrypt(XNonce::from_slice(&nonce), Payload { msg: plain, aad: name.as_bytes() })
            .expect("XChaCha20-Poly1305 seals any length a token set has");
        [nonce.as_slice(), &sealed].concat()
    }

    /// What [`seal`](Self::seal) sealed under `name`, or an error if it was sealed with another
    /// key, under another name, or changed.
    pub fn open(&self, name: &str, sealed: &[u8]) -> Result<Vec<u8>> {
        let refused = || {
            Error::internal(
                "sealed secret",
                format!("the stored {name} does not open with this data_key: every replica needs the team's data_key"),
            )
        };
        if sealed.len() < NONCE_LEN {
            return Err(refused());
        }
        let (nonce, body) = sealed.split_at(NONCE_LEN);
        self.cipher
            .decrypt(XNonce::from_slice(nonce), Payload { msg: body, aad: name.as_bytes() })
            .map_err(|_| refused())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sealer() -> Sealer {
        Sealer::new(&crate::secrets::keys::generate_key()).unwrap()
    }

    #[test]
    fn what_is_sealed_opens_only_with_its_key_and_name() {
        let sealer = sealer();
        let sealed = sealer.seal("google_token", b"{\"access_token\":\"ya29.secret\"}");
        assert!(!sealed.windows(11).any(|w| w == b"ya29.secret"), "not in the clear");
        assert_eq!(sealer.open("google_token", &sealed).unwrap(), b"{\"access_token\":\"ya29.secret\"}");
        assert_ne!(
            sealer.seal("google_token", b"same"),
            sealer.seal("google_token", b"same"),
            "a fresh nonce each time"
        );
        assert!(sealer.open("other_name", &sealed).is_err(), "bound to its name");
        assert!(super::tests::sealer().open("google_token", &sealed).is_err(), "bound to its key");
        let mut changed = sealed.clone();
        *changed.last_mut().unwrap() ^= 1;
        assert!(sealer.open("google_token", &changed).is_err(), "changed: refused");
        assert!(sealer.open("google_token", &sealed[..10]).is_err(), "too short: refused, no panic");
    }

    #[test]
    fn a_key_that_is_not_one_is_refused() {
        assert!(Sealer::new(&Secret::new("short")).is_err());
        assert!(Sealer::new(&Secret::new("not base64url!")).is_err());
    }

    proptest::proptest! {
        #[test]
        fn any_value_round_trips(plain in proptest::collection::vec(proptest::num::u8::ANY, 0..4096), name in "[a-z_]{1,20}") {
            let sealer = sealer();
            proptest::prop_assert_eq!(sealer.open(&name, &sealer.seal(&name, &plain)).unwrap(), plain);
        }

        #[test]
        fn any_bytes_open_to_an_error_or_nothing_else(junk in proptest::collection::vec(proptest::num::u8::ANY, 0..200)) {
            proptest::prop_assert!(sealer().open("google_token", &junk).is_err());
        }
    }
}
