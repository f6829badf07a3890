//! Staff access tokens: JWT HS256 with a 256-bit key from the keyring, the algorithm pinned, the
//! claims and `typ` of SPEC section 3. A token proves who and which session; whether the session
//! is still live is the session store's question.

use base64::Engine as _;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};

use staffroom_base::error::{Error, Result};
use staffroom_base::secrets::Secret;

/// `iss` and `aud` of every staff token.
pub const ISSUER: &str = "staffroom";
/// The `typ` header of staff access tokens (RFC 8725 explicit typing; RFC 9068's name).
pub const TOKEN_TYPE: &str = "at+jwt";
/// The `typ` header of resume tokens: only `POST /api/auth/resume` takes them, so an access
/// token can never resume a session and a resume token can never call anything else.
pub const RESUME_TOKEN_TYPE: &str = "staffroom-resume+jwt";
/// Tokens longer than this are refused before any parsing.
const MAX_TOKEN_LEN: usize = 4096;
/// Clock skew tolerated on `exp` and `nbf`.
const LEEWAY_SECS: u64 = 5;

/// The claims of a staff access token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claims {
    pub iss: String,
    pub aud: String,
    /// The user id.
    pub sub: String,
    /// The session id.
    pub sid: String,
    pub email: String,
    pub name: String,
    pub role: String,
    pub iat: i64,
    pub nbf: i64,
    pub exp: i64,
    /// The token's own id: the session accepts only its current one.
    pub jti: String,
}

/// Signs and verifies staff tokens with one key.
#[derive(Clone)]
pub struct TokenKeys {
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
}

impl std::fmt::Debug for TokenKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenKeys([redacted])")
    }
}

pub use staffroom_base::secrets::keys::{generate_key, is_key};

/// A fingerprint of a signing key, which the team's database keeps so that a replica given
/// another key is refused: SHA-256 of the key under a label of its own, so it reveals nothing
/// usable (the key is 256 random bits).
pub fn fingerprint(secret: &Secret) -> String {
    use sha2::Digest as _;
    let digest =
        sha2::Sha256::new().chain_update(b"staffroom jwt_key fingerprint\0").chain_update(secret.expose()).finalize();
    hex::encode(digest)
}

impl TokenKeys {
    /// Keys from the stored form of [`generate_key`]; anything shorter than 256 bits is refused.
    pub fn from_secret(secret: &Secret) -> Result<Self> {
        let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(secret.expose())
            .map_err(|_| Error::internal("token key", "the stored token signing key is not base64url"))?;
        if bytes.len() < 32 {
            return Err(Error::internal("token key", "the stored token signing key is shorter than 256 bits"));
        }
        let mut validation = Validation::new(Algorithm::HS256);
        validation.algorithms = vec![Algorithm::HS256];
        validation.set_issuer(&[ISSUER]);
        validation.set_audience(&[ISSUER]);
        validation.set_required_spec_claims(&["exp", "nbf", "iat", "iss", "aud", "sub", "jti"]);
        validation.validate_exp = true;
        validation.validate_nbf = true;
        validation.leeway = LEEWAY_SECS;
        Ok(TokenKeys {
            encoding: EncodingKey::from_secret(&bytes),
            decoding: DecodingKey::from_secret(&bytes),
            validation,
        })
    }

    /// Signs `claims` as an access token.
    pub fn sign(&self, claims: &Claims) -> Result<String> {
        self.encode(claims, TOKEN_TYPE)
    }

    /// Signs `claims` as a resume token.
    pub fn sign_resume(&self, claims: &Claims) -> Result<String> {
        self.encode(claims, RESUME_TOKEN_TYPE)
    }

    fn encode(&self, claims: &Claims, typ: &str) -> Result<String> {
        let mut header = Header::new(Algorithm::HS256);
        header.typ = Some(typ.into());
        jsonwebtoken::encode(&header, claims, &self.encoding).map_err(|e| Error::internal("token sign", e))
    }

    /// Verifies an access token's signature, algorithm, `typ`, `iss`, `aud`, `exp` and `nbf`,
    /// and returns the claims.
    pub fn verify(&self, token: &str) -> Result<Claims> {
        self.decode(token, TOKEN_TYPE)
    }

    /// Verifies a resume token as [`verify`](Self::verify) does an access token (an expired one
    /// is refused too); whether it is still its session's current one is the caller's question.
    pub fn verify_resume(&self, token: &str) -> Result<Claims> {
        self.decode(token, RESUME_TOKEN_TYPE)
    }

    fn decode(&self, token: &str, typ: &str) -> Result<Claims> {
        let validation = &self.validation;
        let refused = || Error::unauthorized("The sign-in token is invalid or has expired; sign in again");
        if token.is_empty()
            || token.len() > MAX_TOKEN_LEN
            || !token.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.')
        {
            return Err(refused());
        }
        let data = jsonwebtoken::decode::<Claims>(token, &self.decoding, validation).map_err(|e| {
            tracing::debug!(reason = %e, "token refused");
            refused()
        })?;
        if data.header.typ.as_deref() != Some(typ) {
            return Err(refused());
        }
        Ok(data.claims)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claims(now: i64) -> Claims {
        Claims {
            iss: ISSUER.into(),
            aud: ISSUER.into(),
            sub: "u1".into(),
            sid: "s1".into(),
            email: "a@example.com".into(),
            name: "A".into(),
            role: "staff".into(),
            iat: now,
            nbf: now,
            exp: now + 900,
            jti: "t1".into(),
        }
    }

    fn forge(header: &str, claims: &serde_json::Value, key: &[u8]) -> String {
        use hmac::Mac as _;
        let b64 = |b: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(b);
        let signing_input = format!("{}.{}", b64(header.as_bytes()), b64(claims.to_string().as_bytes()));
        let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(key).unwrap();
        mac.update(signing_input.as_bytes());
        format!("{signing_input}.{}", b64(&mac.finalize().into_bytes()))
    }

    #[test]
    fn round_trip_with_typ_and_pinned_algorithm() {
        let keys = TokenKeys::from_secret(&generate_key()).unwrap();
        let now = staffroom_base::time::now_unix();
        let token = keys.sign(&claims(now)).unwrap();
        let header = jsonwebtoken::decode_header(&token).unwrap();
        assert_eq!(header.alg, Algorithm::HS256);
        assert_eq!(header.typ.as_deref(), Some("at+jwt"));
        assert_eq!(keys.verify(&token).unwrap(), claims(now));
    }

    #[test]
    fn refuses_forgeries_and_wrong_claims() {
        let secret = generate_key();
        let raw = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(secret.expose()).unwrap();
        let keys = TokenKeys::from_secret(&secret).unwrap();
        let now = staffroom_base::time::now_unix();
        let good = serde_json::to_value(claims(now)).unwrap();
        let hs = r#"{"alg":"HS256","typ":"at+jwt"}"#;
        assert!(keys.verify(&forge(hs, &good, &raw)).is_ok(), "the forge helper itself must be right");

        let b64 = |b: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(b);
        let none = format!("{}.{}.", b64(br#"{"alg":"none","typ":"at+jwt"}"#), b64(good.to_string().as_bytes()));
        let mut wrong_aud = good.clone();
        wrong_aud["aud"] = "someone-else".into();
        let mut expired = good.clone();
        expired["exp"] = (now - 60).into();
        let mut not_yet = good.clone();
        not_yet["nbf"] = (now + 600).into();
        let mut string_exp = good.clone();
        string_exp["exp"] = "9999999999".into();
        let cases = [
            ("alg none", none),
            ("wrong key", forge(hs, &good, &[7u8; 32])),
            ("wrong typ", forge(r#"{"alg":"HS256","typ":"JWT"}"#, &good, &raw)),
            ("no typ", forge(r#"{"alg":"HS256"}"#, &good, &raw)),
            ("HS512", forge(r#"{"alg":"HS512","typ":"at+jwt"}"#, &good, &raw)),
            ("wrong audience", forge(hs, &wrong_aud, &raw)),
            ("expired", forge(hs, &expired, &raw)),
            ("not yet valid", forge(hs, &not_yet, &raw)),
            ("exp as string", forge(hs, &string_exp, &raw)),
            ("garbage", "not.a.token".into()),
            ("empty", String::new()),
        ];
        for (name, token) in cases {
            let err = keys.verify(&token).expect_err(name);
            assert_eq!(err.code, staffroom_base::error::ErrorCode::Unauthorized, "{name}");
        }
    }

    #[test]
    fn access_and_resume_tokens_are_never_taken_for_each_other() {
        let keys = TokenKeys::from_secret(&generate_key()).unwrap();
        let now = staffroom_base::time::now_unix();
        let access = keys.sign(&claims(now)).unwrap();
        let resume = keys.sign_resume(&claims(now)).unwrap();
        assert_eq!(keys.verify_resume(&resume).unwrap(), claims(now));
        assert!(keys.verify(&resume).is_err(), "a resume token used as an access token");
        assert!(keys.verify_resume(&access).is_err(), "an access token used to resume");
        let mut expired = claims(now);
        expired.exp = now - 60;
        assert!(keys.verify_resume(&keys.sign_resume(&expired).unwrap()).is_err(), "an expired resume token");
    }

    #[test]
    fn short_keys_are_refused() {
        let short = Secret::new(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode([1u8; 16]));
        assert!(TokenKeys::from_secret(&short).is_err());
    }
}
