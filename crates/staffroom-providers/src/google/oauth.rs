//! Google sign-in for an installed app (SPEC section 5): the system browser, a loopback redirect
//! on 127.0.0.1 with a random port, PKCE S256, `state` checked, tokens in the keyring, refresh on
//! expiry or on a 401, revocation on sign-out. A pasted access token (no refresh) works too.

use std::sync::Arc;
use std::time::Duration;

use oauth2::basic::BasicClient;
use oauth2::{
    AuthType, AuthUrl, AuthorizationCode, ClientId, ClientSecret, CsrfToken, EndpointNotSet, EndpointSet,
    PkceCodeChallenge, PkceCodeVerifier, RedirectUrl, RefreshToken, Scope, TokenResponse, TokenUrl,
};
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::client::GoogleEndpoints;
use staffroom_base::error::{Error, ErrorCode, Result};
use staffroom_base::sealed::Sealer;
use staffroom_base::secrets::{Secret, Secrets};
use staffroom_base::store::FleetStore;

/// The provider's name in error details.
pub const PROVIDER: &str = "google";
/// The keyring entry holding the token set (JSON) or a pasted access token.
pub const TOKEN_SECRET: &str = "google_token";
/// The scopes Staffroom asks for (listing needs `drive`; editing `documents`).
pub const SCOPES: &[&str] = &["https://www.googleapis.com/auth/documents", "https://www.googleapis.com/auth/drive"];
/// Refresh this long before the access token expires.
const EARLY_REFRESH_SECS: i64 = 60;

/// The token set kept in the keyring.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredToken {
    pub access_token: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// Unix seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<i64>,
}

impl std::fmt::Debug for StoredToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoredToken")
            .field("access_token", &"[redacted]")
            .field("refresh_token", &self.refresh_token.as_ref().map(|_| "[redacted]"))
            .field("expires_at", &self.expires_at)
            .finish()
    }
}

impl StoredToken {
    /// Reads the keyring value: the JSON token set, or a bare pasted access token.
    pub fn parse(raw: &str) -> StoredToken {
        serde_json::from_str(raw).unwrap_or_else(|_| StoredToken {
            access_token: raw.trim().to_string(),
            refresh_token: None,
            expires_at: None,
        })
    }

    fn from_response(answer: &impl TokenResponse, previous_refresh: Option<String>) -> StoredToken {
        StoredToken {
            access_token: answer.access_token().secret().clone(),
            refresh_token: answer.refresh_token().map(|r| r.secret().clone()).or(previous_refresh),
            expires_at: answer.expires_in().map(|d| staffroom_base::time::now_unix() + d.as_secs() as i64),
        }
    }
}

/// Whether Staffroom is signed in to Google, for Settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct GoogleStatus {
    pub signed_in: bool,
    /// `oauth` (a token set that refreshes itself) or `pasted` (an access token alone).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub kind: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub expires_at: Option<String>,
    /// Whether a client id is configured, so that sign-in can start.
    pub can_sign_in: bool,
}

/// Where the token set is kept: this computer's secret store, or, on a team server, its database
/// sealed with `data_key`, where every replica finds it.
#[derive(Clone)]
pub enum TokenVault {
    SecretStore,
    Sealed {
        db: Arc<dyn FleetStore + Send + Sync>,
        sealer: Sealer,
    },
    /// A team server's database, reached without `data_key` (a CLI command given none): the
    /// token set can be neither read nor kept.
    NoDataKey,
}

impl std::fmt::Debug for TokenVault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TokenVault::SecretStore => "TokenVault::SecretStore",
            TokenVault::Sealed { .. } => "TokenVault::Sealed",
            TokenVault::NoDataKey => "TokenVault::NoDataKey",
        })
    }
}

fn no_data_key() -> Error {
    Error::new(
        ErrorCode::InvalidRequest,
        "a team server keeps Google's tokens sealed with data_key: give this command the team's data_key (STAFFROOM_DATA_KEY or its _FILE)",
    )
}

enum TokenState {
    /// Not read from the keyring yet.
    Unloaded,
    Loaded(StoredToken),
    /// Signed out in this run: an override (the sandbox's) must not sign us back in.
    SignedOut,
}

type Client = BasicClient<EndpointSet, EndpointNotSet, EndpointNotSet, EndpointNotSet, EndpointSet>;

/// Google credentials: clones share the token and its lock, so one refresh serves every caller.
#[derive(Clone)]
pub struct GoogleAuth {
    secrets: Secrets,
    endpoints: GoogleEndpoints,
    http: reqwest::Client,
    state: Arc<tokio::sync::Mutex<TokenState>>,
    /// Whether new tokens are written to the keyring (not in the sandbox, whose simulator
    /// forgets them when the app stops).
    persist: bool,
    vault: TokenVault,
}

fn unauthorized(message: &str) -> Error {
    Error::new(ErrorCode::Unauthorized, message).with_details(serde_json::json!({ "provider": PROVIDER }))
}

impl GoogleAuth {
    pub fn new(secrets: Secrets, endpoints: GoogleEndpoints, persist: bool) -> Result<Self> {
        let http = reqwest::Client::builder()
            // The token endpoint must never redirect us (the oauth2 crate's advice).
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(Duration::from_secs(5))
            .timeout(Duration::from_secs(20))
            .build()
            .map_err(|e| Error::internal("http client", e))?;
        Ok(GoogleAuth {
            secrets,
            endpoints,
            http,
            state: Arc::new(tokio::sync::Mutex::new(TokenState::Unloaded)),
            persist,
            vault: TokenVault::SecretStore,
        })
    }

    /// Keeps the token set in `vault` instead of the secret store.
    pub fn with_vault(mut self, vault: TokenVault) -> Self {
        self.vault = vault;
        self
    }

    /// Whether the token set is kept sealed in a team's database.
    pub fn is_sealed(&self) -> bool {
        matches!(self.vault, TokenVault::Sealed { .. })
    }

    async fn read_token(&self) -> Result<Option<Secret>> {
        match &self.vault {
            TokenVault::SecretStore => self.secret(TOKEN_SECRET).await,
            TokenVault::Sealed { db, sealer } => {
                // A token given to this replica's environment (a pasted one) wins, as everywhere.
                if let Some((token, _)) = Secrets::from_environment(TOKEN_SECRET)? {
                    return Ok(Some(token));
                }
                match db.sealed_secret(TOKEN_SECRET).await? {
                    Some(sealed) => {
                        let plain = sealer.open(TOKEN_SECRET, &sealed)?;
                        let text = String::from_utf8(plain).map_err(|e| Error::internal("sealed token", e))?;
                        Ok(Some(Secret::new(text)))
                    }
                    None => Ok(None),
                }
            }
            TokenVault::NoDataKey => Ok(Secrets::from_environment(TOKEN_SECRET)?.map(|(token, _)| token)),
        }
    }

    async fn write_token(&self, value: Secret) -> Result<()> {
        match &self.vault {
            TokenVault::SecretStore => self.secrets.write(TOKEN_SECRET, value).await,
            TokenVault::Sealed { db, sealer } => {
                db.put_sealed_secret(TOKEN_SECRET, &sealer.seal(TOKEN_SECRET, value.expose().as_bytes())).await
            }
            TokenVault::NoDataKey => Err(no_data_key()),
        }
    }

    async fn remove_token(&self) -> Result<()> {
        match &self.vault {
            TokenVault::SecretStore => self.secrets.remove(TOKEN_SECRET).await,
            TokenVault::Sealed { db, .. } => db.delete_sealed_secret(TOKEN_SECRET).await,
            TokenVault::NoDataKey => Err(no_data_key()),
        }
    }

    async fn secret(&self, name: &'static str) -> Result<Option<Secret>> {
        self.secrets.read(name).await
    }

    async fn oauth_client(&self) -> Result<Client> {
        let id = self.secret("google_client_id").await?.ok_or_else(|| {
            Error::invalid_field(
                "google_client_id",
                "No Google OAuth client id is set; an admin must add it in Settings",
            )
        })?;
        let secret = self.secret("google_client_secret").await?;
        let bad = |e: url::ParseError| Error::internal("google endpoints", e);
        let mut client = BasicClient::new(ClientId::new(id.expose().to_string()))
            .set_auth_type(AuthType::RequestBody)
            .set_auth_uri(AuthUrl::new(self.endpoints.auth_url.clone()).map_err(bad)?)
            .set_token_uri(TokenUrl::new(self.endpoints.token_url.clone()).map_err(bad)?);
        if let Some(secret) = secret {
            // A desktop client's secret is not secret (Google's words), but the endpoint wants it.
            client = client.set_client_secret(ClientSecret::new(secret.expose().to_string()));
        }
        Ok(client)
    }

    async fn load(&self, state: &mut TokenState) -> Result<()> {
        // On a team server another replica may have signed in, refreshed or signed out since:
        // the database is the truth, so look every time (one small read).
        let look = matches!(state, TokenState::Unloaded) || self.is_sealed();
        if look {
            *state = match self.read_token().await? {
                Some(raw) => TokenState::Loaded(StoredToken::parse(raw.expose())),
                None => TokenState::SignedOut,
            };
        }
        Ok(())
    }

    async fn store(&self, token: &StoredToken) -> Result<()> {
        if !self.persist {
            return Ok(());
        }
        let value = Secret::new(serde_json::to_string(token).expect("serializes"));
        self.write_token(value).await
    }

    /// A live access token, refreshed first if it is about to expire.
    pub async fn access_token(&self) -> Result<String> {
        let mut state = self.state.lock().await;
        self.load(&mut state).await?;
        let TokenState::Loaded(token) = &*state else {
            return Err(unauthorized("Staffroom is not signed in to Google; sign in from Settings"));
        };
        let expiring = token.expires_at.is_some_and(|at| at - EARLY_REFRESH_SECS <= staffroom_base::time::now_unix());
        if expiring && token.refresh_token.is_some() {
            let fresh = self.refresh_locked(token).await?;
            let access = fresh.access_token.clone();
            *state = TokenState::Loaded(fresh);
            return Ok(access);
        }
        Ok(token.access_token.clone())
    }

    /// After Google refused `stale` with a 401: refresh once (unless another caller already did).
    pub async fn refresh_after_rejection(&self, stale: &str) -> Result<String> {
        let mut state = self.state.lock().await;
        self.load(&mut state).await?;
        let TokenState::Loaded(token) = &*state else {
            return Err(unauthorized("Staffroom is not signed in to Google; sign in from Settings"));
        };
        if token.access_token != stale {
            return Ok(token.access_token.clone());
        }
        if token.refresh_token.is_none() {
            return Err(unauthorized("Google refused the access token, which cannot be refreshed; sign in again"));
        }
        let fresh = self.refresh_locked(token).await?;
        let access = fresh.access_token.clone();
        *state = TokenState::Loaded(fresh);
        Ok(access)
    }

    async fn refresh_locked(&self, token: &StoredToken) -> Result<StoredToken> {
        let refresh = token.refresh_token.clone().expect("checked by callers");
        let client = self.oauth_client().await?;
        let answer = client
            .exchange_refresh_token(&RefreshToken::new(refresh.clone()))
            .request_async(&self.http)
            .await
            .map_err(|e| {
                tracing::warn!(error = %e, "Google token refresh failed");
                match e {
                    // Google answered: the refresh token is revoked, expired or invalid
                    // (`invalid_grant` and kin): only signing in again helps.
                    oauth2::RequestTokenError::ServerResponse(_) => {
                        unauthorized("Google refused to refresh the sign-in; sign in again from Settings")
                    }
                    // Google could not be reached or answered nonsense: the sign-in may be fine.
                    _ => Error::integration(PROVIDER, None, "Google could not be reached to refresh the sign-in"),
                }
            })?;
        let fresh = StoredToken::from_response(&answer, Some(refresh));
        self.store(&fresh).await?;
        tracing::info!("Google access token refreshed");
        Ok(fresh)
    }

    /// Uses a pasted access token (the seed's SESSION_TOKEN); it is not refreshed.
    pub async fn use_pasted_token(&self, token: Secret) -> Result<()> {
        if token.expose().trim().is_empty() {
            return Err(Error::invalid_field("token", "must not be empty"));
        }
        let stored = StoredToken::parse(token.expose());
        self.write_token(token).await?;
        *self.state.lock().await = TokenState::Loaded(stored);
        Ok(())
    }

    /// Uses a token set obtained elsewhere (the sandbox's, issued at start).
    pub async fn use_token(&self, token: StoredToken) {
        *self.state.lock().await = TokenState::Loaded(token);
    }

    pub async fn status(&self) -> Result<GoogleStatus> {
        let mut state = self.state.lock().await;
        self.load(&mut state).await?;
        let can_sign_in = self.secret("google_client_id").await?.is_some();
        Ok(match &*state {
            TokenState::Loaded(token) => GoogleStatus {
                signed_in: true,
                kind: Some(if token.refresh_token.is_some() { "oauth" } else { "pasted" }.into()),
                expires_at: token.expires_at.map(staffroom_base::time::unix_to_rfc3339),
                can_sign_in,
            },
            _ => GoogleStatus { signed_in: false, kind: None, expires_at: None, can_sign_in },
        })
    }

    /// Signs out: revokes the token at Google (best effort: a network failure still signs out
    /// here) and forgets it.
    pub async fn sign_out(&self) -> Result<()> {
        let mut state = self.state.lock().await;
        self.load(&mut state).await?;
        if let TokenState::Loaded(token) = &*state {
            // Revoking the refresh token revokes its access tokens too. (A plain form POST, as
            // Google documents it: the oauth2 crate refuses a non-HTTPS revocation URL, which
            // the sandbox's loopback simulator is.)
            let revocable = token.refresh_token.as_ref().unwrap_or(&token.access_token);
            let answer = self.http.post(&self.endpoints.revoke_url).form(&[("token", revocable.as_str())]).send().await;
            match answer {
                Ok(r) if r.status().is_success() => tracing::info!("Google token revoked"),
                // 400 invalid_token: it was already dead.
                Ok(r) if r.status() == reqwest::StatusCode::BAD_REQUEST => {
                    tracing::info!("Google token was already revoked")
                }
                Ok(r) => tracing::warn!(status = r.status().as_u16(), "Google did not confirm the revocation"),
                Err(e) => tracing::warn!(error = %e, "Google could not be reached to revoke the token"),
            }
        }
        self.remove_token().await?;
        *state = TokenState::SignedOut;
        Ok(())
    }

    /// The consent page for a browser step that will come back to `redirect_uri` (a loopback
    /// address), with its PKCE S256 `code_challenge` and `state`. A team server builds it for
    /// a desktop's browser step, since only the server knows its client id and Google's address.
    pub async fn authorization_url(&self, redirect_uri: &str, code_challenge: &str, state: &str) -> Result<String> {
        let client = self
            .oauth_client()
            .await?
            .set_redirect_uri(RedirectUrl::new(redirect_uri.to_string()).map_err(|e| Error::internal("redirect", e))?);
        let state = state.to_string();
        let (url, _) = client
            .authorize_url(move || CsrfToken::new(state))
            .add_scopes(SCOPES.iter().map(|s| Scope::new(s.to_string())))
            // The challenge comes ready-made (the verifier stays with whoever runs the browser
            // step); the crate only builds one from a verifier.
            .add_extra_param("code_challenge", code_challenge)
            .add_extra_param("code_challenge_method", "S256")
            // A refresh token, and the consent screen again so that Google issues one.
            .add_extra_param("access_type", "offline")
            .add_extra_param("prompt", "consent")
            .url();
        Ok(url.to_string())
    }

    /// Exchanges an authorization code (with its PKCE verifier and the redirect it was sent to)
    /// for a token set, and keeps it.
    pub async fn exchange_code(&self, code: &BrowserCode) -> Result<()> {
        let client = self
            .oauth_client()
            .await?
            .set_redirect_uri(RedirectUrl::new(code.redirect_uri.clone()).map_err(|e| Error::internal("redirect", e))?);
        let answer = client
            .exchange_code(AuthorizationCode::new(code.code.expose().to_string()))
            .set_pkce_verifier(PkceCodeVerifier::new(code.verifier.expose().to_string()))
            .request_async(&self.http)
            .await
            .map_err(|e| {
                tracing::warn!(error = %e, "Google code exchange failed");
                match e {
                    oauth2::RequestTokenError::ServerResponse(_) => {
                        unauthorized("Google refused the sign-in code; try again")
                    }
                    _ => Error::integration(PROVIDER, None, "Google could not be reached to finish the sign-in"),
                }
            })?;
        let token = StoredToken::from_response(&answer, None);
        self.store(&token).await?;
        *self.state.lock().await = TokenState::Loaded(token);
        tracing::info!("signed in to Google");
        Ok(())
    }

    /// Starts the browser sign-in: listens on 127.0.0.1 with a random port and returns the URL
    /// to open in the system browser. [`PendingSignIn::finish`] waits for the redirect.
    pub async fn begin_sign_in(&self) -> Result<PendingSignIn> {
        let step = BrowserStep::start().await?;
        let url = self.authorization_url(&step.redirect_uri, &step.code_challenge, &step.state).await?;
        Ok(PendingSignIn { auth: self.clone(), step, url })
    }
}

/// A sign-in waiting for the browser to come back.
pub struct PendingSignIn {
    auth: GoogleAuth,
    step: BrowserStep,
    /// The consent page to open in the system browser.
    pub url: String,
}

impl PendingSignIn {
    /// Waits (up to `timeout`) for the redirect, checks `state`, exchanges the code with the
    /// PKCE verifier and stores the tokens.
    pub async fn finish(self, timeout: Duration) -> Result<()> {
        let code = self.step.finish(timeout).await?;
        self.auth.exchange_code(&code).await
    }
}

/// What the browser brought back: the code, with what its exchange needs.
#[derive(Debug)]
pub struct BrowserCode {
    pub code: Secret,
    pub verifier: Secret,
    pub redirect_uri: String,
}

/// The browser's half of an installed app's sign-in (RFC 8252): a listener on 127.0.0.1 with a
/// random port, a PKCE S256 pair and a random `state`. The desktop runs it both for itself and
/// for its team server, which then exchanges the code.
pub struct BrowserStep {
    listener: tokio::net::TcpListener,
    verifier: PkceCodeVerifier,
    /// Where the browser is sent back to: `http://127.0.0.1:PORT/`.
    pub redirect_uri: String,
    pub code_challenge: String,
    pub state: String,
}

const DONE_PAGE: &str = "<!doctype html><meta charset=utf-8><title>Staffroom</title><body style=\"font-family:sans-serif;margin:3em\"><h1>Signed in to Google</h1><p>You can close this tab and return to Staffroom.</p>";

impl BrowserStep {
    pub async fn start() -> Result<BrowserStep> {
        let listener =
            tokio::net::TcpListener::bind("127.0.0.1:0").await.map_err(|e| Error::internal("sign-in listener", e))?;
        let port = listener.local_addr().map_err(|e| Error::internal("sign-in listener", e))?.port();
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        Ok(BrowserStep {
            listener,
            verifier,
            redirect_uri: format!("http://127.0.0.1:{port}/"),
            code_challenge: challenge.as_str().to_string(),
            state: CsrfToken::new_random().secret().clone(),
        })
    }

    /// Waits (up to `timeout`) for the redirect and checks that it answers this step's `state`.
    pub async fn finish(self, timeout: Duration) -> Result<BrowserCode> {
        let query = tokio::time::timeout(timeout, wait_for_redirect(&self.listener))
            .await
            .map_err(|_| Error::invalid_field("google", "The Google sign-in was not completed in time; try again"))??;
        let params: std::collections::HashMap<String, String> =
            url::form_urlencoded::parse(query.as_bytes()).into_owned().collect();
        let returned_state = params.get("state").map(String::as_str).unwrap_or_default();
        if !bool::from(subtle::ConstantTimeEq::ct_eq(returned_state.as_bytes(), self.state.as_bytes())) {
            return Err(Error::invalid_field("state", "The sign-in answer did not match this sign-in; try again"));
        }
        if let Some(error) = params.get("error") {
            return Err(Error::invalid_field("google", format!("Google sign-in was refused ({error})")));
        }
        let code = params.get("code").ok_or_else(|| Error::invalid_field("code", "Google sent no code"))?;
        Ok(BrowserCode {
            code: Secret::new(code.clone()),
            verifier: Secret::new(self.verifier.secret().clone()),
            redirect_uri: self.redirect_uri,
        })
    }
}

/// RFC 7636's unreserved characters, of which PKCE verifiers (and our `state`) are made.
fn unreserved(value: &str) -> bool {
    value.bytes().all(|b| b.is_ascii_alphanumeric() || b"-._~".contains(&b))
}

/// A browser step's own listener, as [`BrowserStep`] makes it: `http://127.0.0.1:PORT/` or
/// `http://[::1]:PORT/`, nothing more (no name to resolve, no path, query or fragment), so that
/// a code can only ever be sent back to the computer that asked for it.
pub fn is_loopback_redirect(raw: &str) -> bool {
    url::Url::parse(raw).is_ok_and(|u| {
        let host = match u.host() {
            Some(url::Host::Ipv4(ip)) if ip == std::net::Ipv4Addr::LOCALHOST => "127.0.0.1",
            Some(url::Host::Ipv6(ip)) if ip == std::net::Ipv6Addr::LOCALHOST => "[::1]",
            _ => return false,
        };
        // Exactly the text a listener makes (the parser would accept `http://127.1:8080/` or
        // a port with leading zeros, and drops a written `:80`, so the text is compared).
        let port = u.port_or_known_default().unwrap_or(0);
        u.scheme() == "http" && port > 0 && raw == format!("http://{host}:{port}/")
    })
}

/// A PKCE S256 challenge: base64url (no padding) of a SHA-256, 43 characters.
pub fn is_pkce_challenge(value: &str) -> bool {
    value.len() == 43 && value.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// A PKCE verifier (RFC 7636 section 4.1): 43 to 128 unreserved characters.
pub fn is_pkce_verifier(value: &str) -> bool {
    (43..=128).contains(&value.len()) && unreserved(value)
}

/// The `state` a browser step sends: 16 to 128 unreserved characters.
pub fn is_state(value: &str) -> bool {
    (16..=128).contains(&value.len()) && unreserved(value)
}

/// An authorization code: 1 to 2048 printable ASCII characters without spaces (Google's look
/// like `4/0AX4Xf…`).
pub fn is_code(value: &str) -> bool {
    (1..=2048).contains(&value.len()) && value.bytes().all(|b| b.is_ascii_graphic())
}

/// Accepts connections until one is a `GET` of the redirect path with a query; answers it with
/// a page the user can close. Returns the query string.
async fn wait_for_redirect(listener: &tokio::net::TcpListener) -> Result<String> {
    loop {
        let (mut stream, _) = listener.accept().await.map_err(|e| Error::internal("sign-in listener", e))?;
        let mut buffer = vec![0u8; 8192];
        let mut read = 0;
        // Read the request head (bounded; the browser sends a small GET).
        while read < buffer.len() {
            match tokio::time::timeout(Duration::from_secs(5), stream.read(&mut buffer[read..])).await {
                Ok(Ok(0)) | Err(_) | Ok(Err(_)) => break,
                Ok(Ok(n)) => {
                    read += n;
                    if buffer[..read].windows(4).any(|w| w == b"\r\n\r\n") {
                        break;
                    }
                }
            }
        }
        let head = String::from_utf8_lossy(&buffer[..read]);
        let target = head.lines().next().and_then(|line| {
            let mut parts = line.split_whitespace();
            (parts.next() == Some("GET")).then(|| parts.next()).flatten()
        });
        let query = target.and_then(|t| t.split_once('?')).map(|(_, q)| q.to_string());
        let (status, body) = match &query {
            Some(_) => ("200 OK", DONE_PAGE),
            None => ("404 Not Found", "Not found"),
        };
        let response = format!(
            "HTTP/1.1 {status}\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        let _ = stream.write_all(response.as_bytes()).await;
        let _ = stream.shutdown().await;
        if let Some(query) = query {
            return Ok(query);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_this_computers_own_listener_is_a_redirect() {
        for good in ["http://127.0.0.1:8080/", "http://[::1]:1/", "http://127.0.0.1:65535/", "http://127.0.0.1:80/"] {
            assert!(is_loopback_redirect(good), "{good}");
        }
        for bad in [
            "https://127.0.0.1:8080/",
            "http://localhost:8080/",
            "http://127.0.0.2:8080/",
            "http://127.1:8080/",
            "http://127.0.0.1/",
            "http://127.0.0.1:0/",
            "http://127.0.0.1:8080/cb",
            "http://127.0.0.1:8080/?x=1",
            "http://127.0.0.1:8080/#x",
            "http://user@127.0.0.1:8080/",
            "http://evil.example:8080/",
            "http://127.0.0.1:08080/",
            "",
        ] {
            assert!(!is_loopback_redirect(bad), "{bad}");
        }
    }

    #[test]
    fn a_browser_step_makes_what_the_server_accepts() {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let step = rt.block_on(BrowserStep::start()).unwrap();
        assert!(is_loopback_redirect(&step.redirect_uri), "{}", step.redirect_uri);
        assert!(is_pkce_challenge(&step.code_challenge));
        assert!(is_state(&step.state), "{}", step.state);
        assert!(is_pkce_verifier(step.verifier.secret()));
    }

    proptest::proptest! {
        #[test]
        fn the_checks_never_panic_and_refuse_whitespace(value in "\\PC{0,300}") {
            let checks = [is_loopback_redirect(&value), is_pkce_challenge(&value), is_pkce_verifier(&value), is_state(&value), is_code(&value)];
            if value.chars().any(char::is_whitespace) {
                proptest::prop_assert!(checks.iter().all(|ok| !ok));
            }
        }

        #[test]
        fn any_unreserved_verifier_of_rfc_length_is_accepted(value in "[A-Za-z0-9._~-]{43,128}") {
            proptest::prop_assert!(is_pkce_verifier(&value));
        }
    }

    #[test]
    fn a_pasted_token_is_a_bare_access_token() {
        assert_eq!(StoredToken::parse(" ya29.abc \n").access_token, "ya29.abc");
        let set = StoredToken { access_token: "a".into(), refresh_token: Some("r".into()), expires_at: Some(5) };
        assert_eq!(StoredToken::parse(&serde_json::to_string(&set).unwrap()), set);
    }
}
