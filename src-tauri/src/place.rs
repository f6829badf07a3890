//! Where the login screen signs in: this computer, or a team server by its URL. The last choice
//! is remembered in the data dir (a URL is no secret), so the next launch offers it again.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The file in the data dir that remembers the choice.
const FILE: &str = "sign-in-place.json";

/// The login screen's choice.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SignInPlace {
    /// The team server last used or given with `--server`, kept even while "This computer" is
    /// chosen, so switching back does not mean typing it again.
    pub server: Option<String>,
    /// Whether the team server (rather than this computer) is the one chosen.
    pub use_server: bool,
}

impl SignInPlace {
    /// The choice remembered in `data_dir`; none (this computer) if there is none or it cannot be
    /// read: the login screen then simply asks again.
    pub fn load(data_dir: &Path) -> SignInPlace {
        match std::fs::read(path(data_dir)) {
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|err| {
                tracing::warn!(error = %err, "the remembered sign-in place is unreadable; asking again");
                SignInPlace::default()
            }),
            Err(_) => SignInPlace::default(),
        }
    }

    /// Remembers the choice: written beside, then renamed over, so a crash leaves the old one.
    pub fn save(&self, data_dir: &Path) -> std::io::Result<()> {
        let path = path(data_dir);
        let partial = path.with_extension("json.partial");
        std::fs::write(&partial, serde_json::to_vec_pretty(self)?)?;
        std::fs::rename(partial, path)
    }
}

fn path(data_dir: &Path) -> PathBuf {
    data_dir.join(FILE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembers_the_choice_and_forgives_a_damaged_file() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(SignInPlace::load(dir.path()), SignInPlace::default());
        let chosen = SignInPlace { server: Some("https://staff.example.com".into()), use_server: true };
        chosen.save(dir.path()).unwrap();
        assert_eq!(SignInPlace::load(dir.path()), chosen);
        std::fs::write(dir.path().join(FILE), b"{not json").unwrap();
        assert_eq!(SignInPlace::load(dir.path()), SignInPlace::default());
    }
}
