//! How the Google connection stands (SPEC section 13): the OAuth client, the sign-in, whose
//! account it is, and whether its token carries the scopes Staffroom needs, with problems as
//! sentences and their fix.

use serde::Serialize;

use crate::DocService;
use staffroom_base::connection::{ConnectionState, Problem};
use staffroom_base::error::{ErrorCode, Result};
use staffroom_providers::google::oauth::SCOPES;

/// The signed-in Google account.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
pub struct GoogleAccount {
    pub email: String,
}

/// How the Google connection stands.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct GoogleConnection {
    pub state: ConnectionState,
    pub account: Option<GoogleAccount>,
    /// The scopes Google granted the sign-in.
    pub scopes: Vec<String>,
    /// The scopes Staffroom needs that it lacks.
    pub missing_scopes: Vec<String>,
    pub problems: Vec<Problem>,
}

/// Where an admin creates the OAuth client.
pub const CREATE_CLIENT_AT: &str = "https://console.cloud.google.com/apis/credentials";

impl DocService {
    /// How the Google connection stands, as Google answers now.
    pub async fn connection(&self) -> Result<GoogleConnection> {
        let mut view = GoogleConnection {
            state: ConnectionState::NotConfigured,
            account: None,
            scopes: Vec::new(),
            missing_scopes: Vec::new(),
            problems: Vec::new(),
        };
        let status = self.client.auth().status().await?;
        if !status.signed_in {
            view.problems.push(if status.can_sign_in {
                Problem::new(
                    "google_signed_out",
                    "Staffroom is not signed in to Google, so documents cannot be listed or edited",
                    "Sign in with Google in Settings",
                )
            } else {
                Problem::new(
                    "google_client_missing",
                    "No Google OAuth client is set, so nobody can sign in to Google",
                    format!("Create an OAuth client (application type: Desktop app) at {CREATE_CLIENT_AT}, with the Google Drive and Google Docs APIs enabled, and enter its id and secret in Settings → Connections"),
                )
            });
            return Ok(view);
        }
        let scopes = match self.client.granted_scopes().await {
            Ok(scopes) => scopes,
            Err(err) => {
                view.state = ConnectionState::of(&err);
                view.problems.push(match view.state {
                    ConnectionState::Refused => Problem::new(
                        "google_refused",
                        "Google refuses Staffroom's sign-in (it was revoked, or it expired)",
                        "Sign in with Google again in Settings",
                    ),
                    _ => Problem::new(
                        "google_unreachable",
                        format!("Google could not be reached: {}", err.message),
                        "Check this server's internet connection",
                    ),
                });
                return Ok(view);
            }
        };
        view.state = ConnectionState::Connected;
        view.missing_scopes =
            SCOPES.iter().filter(|s| !scopes.iter().any(|g| g == *s)).map(|s| s.to_string()).collect();
        view.scopes = scopes;
        if !view.missing_scopes.is_empty() {
            view.problems.push(Problem::new(
                "scopes_missing",
                format!(
                    "Google's sign-in lacks {}: {}",
                    view.missing_scopes.join(" and "),
                    "without it documents cannot be listed (drive) or edited (documents)"
                ),
                "Sign in with Google again in Settings, and tick every box Google asks about",
            ));
        }
        // Whose it is: Drive says, when the token may read Drive.
        match self.client.account_email().await {
            Ok(email) => view.account = email.map(|email| GoogleAccount { email }),
            Err(err) if err.code == ErrorCode::Forbidden || err.code == ErrorCode::Unauthorized => {}
            Err(err) => tracing::debug!(%err, "could not read whose Google account it is"),
        }
        Ok(view)
    }
}
