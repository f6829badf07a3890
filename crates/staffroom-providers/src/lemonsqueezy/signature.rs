//! `X-Signature`: the lowercase hex HMAC-SHA256 of the raw body with the signing secret.

use hmac::{Hmac, Mac};
use sha2::Sha256;

use staffroom_base::secrets::Secret;

/// Whether `header` is the signature of `body` under `secret`, compared in constant time.
pub fn verify(secret: &Secret, body: &[u8], header: Option<&str>) -> bool {
    let Some(header) = header else { return false };
    let Ok(expected) = hex::decode(header.trim()) else { return false };
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.expose().as_bytes()).expect("HMAC takes any key length");
    mac.update(body);
    mac.verify_slice(&expected).is_ok()
}

/// The signature of `body` under `secret` (what the provider, and our sandbox, send).
pub fn sign(secret: &Secret, body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.expose().as_bytes()).expect("HMAC takes any key length");
    mac.update(body);
    hex::encode(mac.finalize().into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn known_vector() {
        // RFC 4231 test case 2.
        let secret = Secret::new("Jefe");
        let sig = sign(&secret, b"what do ya want for nothing?");
        assert_eq!(sig, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
        assert!(verify(&secret, b"what do ya want for nothing?", Some(&sig)));
        assert!(verify(&secret, b"what do ya want for nothing?", Some(&sig.to_uppercase())));
    }

    #[test]
    fn wrong_missing_or_malformed_signatures_fail() {
        let secret = Secret::new("whsec_test");
        let sig = sign(&secret, b"{}");
        assert!(!verify(&secret, b"{} ", Some(&sig)));
        assert!(!verify(&Secret::new("other"), b"{}", Some(&sig)));
        assert!(!verify(&secret, b"{}", None));
        assert!(!verify(&secret, b"{}", Some("")));
        assert!(!verify(&secret, b"{}", Some("zz")));
        assert!(!verify(&secret, b"{}", Some(&sig[..62])));
    }

    proptest! {
        #[test]
        fn only_the_right_signature_verifies(body in prop::collection::vec(any::<u8>(), 0..512), header in "\\PC{0,80}") {
            let secret = Secret::new("whsec_prop");
            prop_assert!(verify(&secret, &body, Some(&sign(&secret, &body))));
            if header != sign(&secret, &body) && header.to_lowercase() != sign(&secret, &body) {
                prop_assert!(!verify(&secret, &body, Some(&header)));
            }
        }
    }
}
