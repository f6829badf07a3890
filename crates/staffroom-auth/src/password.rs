//! Password hashing (argon2id with OWASP's parameters, behind a cap on concurrent hashes) and the
//! password policy applied whenever a password is set.

use std::sync::Arc;
use std::time::Duration;

use argon2::password_hash::rand_core::{OsRng, RngCore as _};
use argon2::password_hash::{Output, PasswordHash, PasswordHasher as _, PasswordVerifier as _, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};
use tokio::sync::Semaphore;

use staffroom_base::error::{Error, Result};
use staffroom_base::secrets::Secret;

/// The parameters of every new hash: OWASP's m=19456 KiB, t=2, p=1 (the crate's defaults).
fn current_params() -> Params {
    Params::new(Params::DEFAULT_M_COST, Params::DEFAULT_T_COST, Params::DEFAULT_P_COST, None)
        .expect("OWASP argon2 parameters are valid")
}

fn argon2() -> Argon2<'static> {
    Argon2::new(Algorithm::Argon2id, Version::V0x13, current_params())
}

/// How long a login may wait for a free hashing slot before it is told the server is busy.
const MAX_QUEUE_WAIT: Duration = Duration::from_secs(10);

/// The outcome of checking a password against a stored hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verified {
    /// The password matches.
    pub matches: bool,
    /// The hash uses other parameters than today's and should be replaced.
    pub needs_upgrade: bool,
}

/// Hashes and verifies passwords on the blocking pool, at most `permits` at a time, so that
/// logins never take every core away from the rest of the app.
#[derive(Clone)]
pub struct PasswordHasher {
    slots: Arc<Semaphore>,
    /// A hash verified when the email is unknown, so that every failure costs the same time.
    dummy_hash: Arc<str>,
}

impl PasswordHasher {
    /// A hasher allowing `permits` concurrent hashes.
    pub fn new(permits: usize) -> Self {
        PasswordHasher { slots: Arc::new(Semaphore::new(permits.max(1))), dummy_hash: dummy_phc().into() }
    }

    async fn run<T: Send + 'static>(&self, work: impl FnOnce() -> T + Send + 'static) -> Result<T> {
        let permit = tokio::time::timeout(MAX_QUEUE_WAIT, self.slots.clone().acquire_owned())
            .await
            .map_err(|_| Error::rate_limited("Too many sign-ins at once; try again in a moment", MAX_QUEUE_WAIT))?
            .map_err(|e| Error::internal("hash slots", e))?;
        let out = tokio::task::spawn_blocking(move || {
            let out = work();
            drop(permit);
            out
        })
        .await?;
        Ok(out)
    }

    /// A new PHC string for `password`.
    pub async fn hash(&self, password: &Secret) -> Result<String> {
        let password = password.clone();
        self.run(move || hash_now(password.expose())).await?
    }

    /// Checks `password` against `phc`, or against the dummy hash when there is no account, so
    /// that unknown emails take as long as wrong passwords.
    pub async fn verify(&self, password: &Secret, phc: Option<&str>) -> Result<Verified> {
        let password = password.clone();
        let known = phc.is_some();
        let phc = phc.map(str::to_owned).unwrap_or_else(|| self.dummy_hash.to_string());
        let verified = self.run(move || verify_now(password.expose(), &phc)).await?;
        Ok(Verified { matches: known && verified.matches, needs_upgrade: verified.needs_upgrade })
    }
}

/// A PHC string with today's parameters, a random salt and a random output: verifying any
/// password against it costs what verifying a real hash costs, and never matches. Made without
/// hashing: a hash of a random password cost every start of the app an argon2 run (19 MiB, about
/// 15 ms of a core while the window opened).
fn dummy_phc() -> String {
    let salt = SaltString::generate(&mut OsRng);
    let mut output = [0u8; 32];
    OsRng.fill_bytes(&mut output);
    let output = Output::new(&output).expect("32 bytes is a valid output length");
    let params = current_params();
    format!(
        "$argon2id$v=19$m={},t={},p={}${}${output}",
        params.m_cost(),
        params.t_cost(),
        params.p_cost(),
        salt.as_str()
    )
}

/// Hashes on the current thread (the CLI, and inside the blocking pool).
pub fn hash_now(password: &str) -> Result<String> {
    let salt = SaltString::generate(&mut OsRng);
    argon2()
        .hash_password(password.as_bytes(), &salt)
        .map(|hash| hash.to_string())
        .map_err(|e| Error::internal("password hash", e))
}

fn verify_now(password: &str, phc: &str) -> Verified {
    let Ok(parsed) = PasswordHash::new(phc) else {
        tracing::warn!("a stored password hash is not a valid PHC string");
        return Verified { matches: false, needs_upgrade: false };
    };
    let needs_upgrade = parsed.algorithm.as_str() != "argon2id"
        || Params::try_from(&parsed)
            .map(|p| {
                let now = current_params();
                (p.m_cost(), p.t_cost(), p.p_cost()) != (now.m_cost(), now.t_cost(), now.p_cost())
            })
            .unwrap_or(true);
    // Verify with the parameters stored in the hash itself, whatever they are.
    let matches = Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok();
    Verified { matches, needs_upgrade }
}

/// Shortest and longest password accepted when a password is set (NIST SP 800-63B-4: 15 for
/// single-factor passwords; at least 64 must be allowed).
pub const MIN_PASSWORD_CHARS: usize = 15;
/// See [`MIN_PASSWORD_CHARS`].
pub const MAX_PASSWORD_CHARS: usize = 128;

/// Checks a new password: length in characters, not a common password, not trivially guessable.
/// `context` holds the account's email and name, which must not make up the password either.
/// Returns the reason to show when the password is refused.
pub fn check_policy(password: &str, context: &[&str]) -> std::result::Result<(), String> {
    let chars = password.chars().count();
    if chars < MIN_PASSWORD_CHARS {
        return Err(format!("must be at least {MIN_PASSWORD_CHARS} characters long"));
    }
    if chars > MAX_PASSWORD_CHARS {
        return Err(format!("must be at most {MAX_PASSWORD_CHARS} characters long"));
    }
    if is_common_password(password) {
        return Err("is one of the most common passwords; choose another".into());
    }
    let estimate = zxcvbn::zxcvbn(password, context);
    // Score 4 means at least 10^10 guesses: ordinary passphrases of 15+ characters reach it easily,
    // "Company2026!!!"-style passwords do not.
    if (estimate.score() as u8) < 4 {
        let why = estimate
            .feedback()
            .and_then(|f| f.warning())
            .map(|w| w.to_string())
            .unwrap_or_else(|| "it follows a pattern that is easy to guess".into());
        return Err(format!("is too easy to guess: {why}"));
    }
    Ok(())
}

/// Whether `password` (ignoring case) is on zxcvbn's list of common passwords: the 30,000 most
/// frequent passwords of public breach corpora, maintained with the library.
pub fn is_common_password(password: &str) -> bool {
    let estimate = zxcvbn::zxcvbn(password, &[]);
    match estimate.sequence() {
        [only] if only.i == 0 && only.j + 1 == password.chars().count() => match &only.pattern {
            zxcvbn::matching::patterns::MatchPattern::Dictionary(d) => {
                // The passwords list is the library's default dictionary type.
                d.dictionary_name == Default::default() && !d.l33t && !d.reversed
            }
            _ => false,
        },
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_hashes_use_owasp_argon2id_parameters() {
        let phc = hash_now("correct horse battery staple").unwrap();
        assert!(phc.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{phc}");
        let verified = verify_now("correct horse battery staple", &phc);
        assert_eq!(verified, Verified { matches: true, needs_upgrade: false });
        assert!(!verify_now("correct horse battery stapler", &phc).matches);
    }

    #[test]
    fn weaker_hashes_verify_and_ask_for_an_upgrade() {
        let weak = Argon2::new(Algorithm::Argon2id, Version::V0x13, Params::new(4096, 1, 1, None).unwrap());
        let salt = SaltString::generate(&mut OsRng);
        let phc = weak.hash_password(b"an old but fine passphrase", &salt).unwrap().to_string();
        assert_eq!(verify_now("an old but fine passphrase", &phc), Verified { matches: true, needs_upgrade: true });
        let argon2i = Argon2::new(Algorithm::Argon2i, Version::V0x13, current_params());
        let phc = argon2i.hash_password(b"another passphrase", &salt).unwrap().to_string();
        assert_eq!(verify_now("another passphrase", &phc), Verified { matches: true, needs_upgrade: true });
    }

    #[test]
    fn the_dummy_hash_is_verified_like_a_real_one_and_never_matches() {
        let dummy = dummy_phc();
        let real = hash_now("a passphrase").unwrap();
        // The same algorithm and parameters as today's hashes, so verifying it costs the same.
        let prefix = |phc: &str| phc.split('$').take(4).collect::<Vec<_>>().join("$");
        assert_eq!(prefix(&dummy), prefix(&real));
        assert!(PasswordHash::new(&dummy).is_ok(), "{dummy}");
        assert_eq!(verify_now("a passphrase", &dummy), Verified { matches: false, needs_upgrade: false });
        assert_ne!(dummy_phc(), dummy, "each hasher's is its own");
    }

    #[test]
    fn garbage_hashes_never_match() {
        assert!(!verify_now("anything", "not a phc string").matches);
        assert!(!verify_now("anything", "").matches);
    }

    #[tokio::test]
    async fn unknown_accounts_never_match_even_with_the_dummy_password() {
        let hasher = PasswordHasher::new(1);
        let verified = hasher.verify(&Secret::new("whatever it is"), None).await.unwrap();
        assert!(!verified.matches);
    }

    #[test]
    fn policy_length_counts_characters_not_bytes() {
        assert!(check_policy("short", &[]).unwrap_err().contains("at least 15"));
        assert!(check_policy(&"é".repeat(14), &[]).is_err());
        assert!(check_policy(&"x".repeat(129), &[]).unwrap_err().contains("at most 128"));
        assert!(check_policy("ünïcödé kängürü jümps", &[]).is_ok());
        assert!(check_policy("violet-lantern-harbour-42", &[]).is_ok());
    }

    #[test]
    fn common_passwords_are_recognised() {
        for common in ["password", "123456", "qwerty", "dragon", "iloveyou", "trustno1", "PassWord", "sunshine"] {
            assert!(is_common_password(common), "{common} should be common");
        }
        for rare in ["violet-lantern-harbour-42", "zq8#Lm2!pW", "ünïcödé kängürü"] {
            assert!(!is_common_password(rare), "{rare} should not be common");
        }
    }

    #[test]
    fn guessable_long_passwords_are_refused() {
        for weak in ["aaaaaaaaaaaaaaaaaaaa", "123456789012345678", "abcdefghijklmnopqrs", "passwordpassword"] {
            assert!(check_policy(weak, &[]).is_err(), "{weak} should be refused");
        }
        let refused = check_policy("alice.smith@example.com", &["alice.smith@example.com"]);
        assert!(refused.is_err());
    }
}
