//! The simulator's OAuth 2.0 endpoints for installed apps: a consent page (authorize), the token
//! endpoint (authorization code with PKCE S256 checked; refresh), revocation, and `tokeninfo`
//! (what a token may do), with Google's error bodies (`{"error","error_description"}`). Each
//! token carries the scopes it was granted, and the API checks them.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Form, Json, Router};
use base64::Engine as _;
use serde_json::{json, Value};
use sha2::Digest as _;

use super::Sim;

/// The scopes Staffroom asks for.
pub const SCOPES: &[&str] = &[DOCUMENTS, DRIVE];
/// See, edit, create and delete Google Docs documents.
pub const DOCUMENTS: &str = "https://www.googleapis.com/auth/documents";
/// See, edit, create and delete Drive files.
pub const DRIVE: &str = "https://www.googleapis.com/auth/drive";

struct Pending {
    redirect_uri: String,
    state: Option<String>,
    challenge: String,
    scope: String,
}

struct Grant {
    redirect_uri: String,
    challenge: String,
    scope: String,
    issued: Instant,
}

pub(super) struct OAuthState {
    pub client_id: String,
    pub client_secret: String,
    pending: HashMap<String, Pending>,
    codes: HashMap<String, Grant>,
    /// Live access tokens: when they expire, and their scopes (space-separated).
    access: HashMap<String, (Instant, String)>,
    /// Live refresh tokens: their scopes, and the access tokens issued from them.
    refresh: HashMap<String, (String, Vec<String>)>,
    lifetime: Duration,
}

fn random_token(prefix: &str) -> String {
    format!("{prefix}{}", base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(rand::random::<[u8; 24]>()))
}

impl OAuthState {
    pub fn new(lifetime: Duration) -> Self {
        OAuthState {
            // Shaped as Google's are: the project number, a dash, a random part, the domain.
            client_id: "100000000001-sandbox0staffroom0simulator.apps.googleusercontent.com".into(),
            client_secret: random_token("GOCSPX-"),
            pending: HashMap::new(),
            codes: HashMap::new(),
            access: HashMap::new(),
            refresh: HashMap::new(),
            lifetime,
        }
    }

    pub fn access_is_live(&self, token: &str) -> bool {
        self.live(token).is_some()
    }

    /// A live access token's scopes and the seconds it has left.
    fn live(&self, token: &str) -> Option<(&str, u64)> {
        let (expiry, scope) = self.access.get(token)?;
        let left = expiry.checked_duration_since(Instant::now())?;
        Some((scope.as_str(), left.as_secs()))
    }

    /// Whether the live `token` was granted `scope` (a full scope URL).
    pub fn grants(&self, token: &str, scope: &str) -> bool {
        self.live(token).is_some_and(|(scopes, _)| scopes.split(' ').any(|s| s == scope))
    }

    /// A new access token (and refresh token when `with_refresh`) for `scope`, as the token
    /// endpoint answers.
    pub fn issue(&mut self, with_refresh: bool, scope: &str) -> Value {
        let access = random_token("ya29.sbx-");
        self.access.insert(access.clone(), (Instant::now() + self.lifetime, scope.to_string()));
        let mut answer = json!({
            "access_token": access,
            "expires_in": self.lifetime.as_secs(),
            "scope": scope,
            "token_type": "Bearer",
        });
        if with_refresh {
            let refresh = random_token("1//sbx-");
            self.refresh.insert(refresh.clone(), (scope.to_string(), vec![access]));
            answer["refresh_token"] = json!(refresh);
        }
        answer
    }
}

pub(super) fn routes() -> Router<Arc<Sim>> {
    Router::new()
        .route("/o/oauth2/v2/auth", get(authorize))
        .route("/o/oauth2/v2/approve", get(approve))
        .route("/token", post(token))
        .route("/revoke", post(revoke))
        .route("/tokeninfo", get(tokeninfo).post(tokeninfo_form))
}

fn oauth_error(status: StatusCode, error: &str, description: &str) -> Response {
    (status, Json(json!({"error": error, "error_description": description}))).into_response()
}

fn error_page(error: &str, description: &str) -> Response {
    (
        StatusCode::BAD_REQUEST,
        Html(format!(
            "<!doctype html><meta charset=utf-8><title>Error</title><h1>Error 400: {error}</h1><p>{description}</p>"
        )),
    )
        .into_response()
}

/// Loopback redirect URIs only: `http://127.0.0.1:PORT/…` or `http://[::1]:PORT/…`.
fn loopback_redirect(raw: &str) -> bool {
    url::Url::parse(raw).is_ok_and(|u| {
        let loopback = match u.host() {
            Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
            _ => false,
        };
        u.scheme() == "http" && loopback && u.port().is_some()
    })
}

async fn authorize(State(sim): State<Arc<Sim>>, Query(params): Query<HashMap<String, String>>) -> Response {
    let mut oauth = sim.oauth.lock().unwrap();
    if params.get("client_id") != Some(&oauth.client_id) {
        return error_page("invalid_client", "The OAuth client was not found.");
    }
    let Some(redirect_uri) = params.get("redirect_uri").filter(|r| loopback_redirect(r)) else {
        return error_page("redirect_uri_mismatch", "A desktop client must redirect to http://127.0.0.1:PORT.");
    };
    if params.get("response_type").map(String::as_str) != Some("code") {
        return error_page("invalid_request", "response_type must be code.");
    }
    let scope = params.get("scope").cloned().unwrap_or_default();
    if scope.split_whitespace().next().is_none() {
        return error_page("invalid_request", "Missing required parameter: scope");
    }
    // The simulator insists on PKCE S256 (Google only recommends it; Staffroom always sends it).
    let (Some(challenge), Some("S256")) =
        (params.get("code_challenge"), params.get("code_challenge_method").map(String::as_str))
    else {
        return error_page("invalid_request", "PKCE with code_challenge_method=S256 is required.");
    };
    let id = random_token("req-");
    oauth.pending.insert(
        id.clone(),
        Pending {
            redirect_uri: redirect_uri.clone(),
            state: params.get("state").cloned(),
            challenge: challenge.clone(),
            scope: scope.clone(),
        },
    );
    Html(format!(
        "<!doctype html><meta charset=utf-8><title>Sign in - Google Accounts (sandbox)</title>\
         <body style=\"font-family:sans-serif;max-width:32em;margin:3em auto\">\
         <h1>Staffroom wants to access your Google Account</h1>\
         <p>Signed in as <b>{owner}</b> (sandbox). Staffroom asks to see, edit, create and share your Google Docs and Drive files.</p>\
         <p><a id=\"allow\" href=\"/o/oauth2/v2/approve?request={id}&amp;decision=allow\">Allow</a> · \
         <a id=\"deny\" href=\"/o/oauth2/v2/approve?request={id}&amp;decision=deny\">Cancel</a></p></body>",
        owner = super::seed::OWNER_EMAIL,
    ))
    .into_response()
}

async fn approve(State(sim): State<Arc<Sim>>, Query(params): Query<HashMap<String, String>>) -> Response {
    let mut oauth = sim.oauth.lock().unwrap();
    let Some(pending) = params.get("request").and_then(|id| oauth.pending.remove(id)) else {
        return error_page("invalid_request", "This sign-in request has expired; start again from Staffroom.");
    };
    let mut target = url::Url::parse(&pending.redirect_uri).expect("checked on authorize");
    {
        let mut query = target.query_pairs_mut();
        if params.get("decision").map(String::as_str) == Some("allow") {
            let code = random_token("4/sbx-");
            query.append_pair("code", &code);
            query.append_pair("scope", &pending.scope);
            oauth.codes.insert(
                code,
                Grant {
                    redirect_uri: pending.redirect_uri.clone(),
                    challenge: pending.challenge.clone(),
                    scope: pending.scope.clone(),
                    issued: Instant::now(),
                },
            );
        } else {
            query.append_pair("error", "access_denied");
        }
        if let Some(state) = &pending.state {
            query.append_pair("state", state);
        }
    }
    Redirect::to(target.as_str()).into_response()
}

async fn token(State(sim): State<Arc<Sim>>, Form(form): Form<HashMap<String, String>>) -> Response {
    let mut oauth = sim.oauth.lock().unwrap();
    if form.get("client_id") != Some(&oauth.client_id) || form.get("client_secret") != Some(&oauth.client_secret) {
        return oauth_error(StatusCode::UNAUTHORIZED, "invalid_client", "Unauthorized");
    }
    match form.get("grant_type").map(String::as_str) {
        Some("authorization_code") => {
            let Some(grant) = form.get("code").and_then(|c| oauth.codes.remove(c)) else {
                return oauth_error(StatusCode::BAD_REQUEST, "invalid_grant", "Malformed auth code.");
            };
            if grant.issued.elapsed() > Duration::from_secs(600) {
                return oauth_error(StatusCode::BAD_REQUEST, "invalid_grant", "Bad Request");
            }
            if form.get("redirect_uri") != Some(&grant.redirect_uri) {
                return oauth_error(StatusCode::BAD_REQUEST, "redirect_uri_mismatch", "Bad Request");
            }
            let Some(verifier) = form.get("code_verifier") else {
                return oauth_error(StatusCode::BAD_REQUEST, "invalid_grant", "Missing code verifier.");
            };
            let computed =
                base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(verifier.as_bytes()));
            if computed != grant.challenge {
                return oauth_error(StatusCode::BAD_REQUEST, "invalid_grant", "Invalid code verifier.");
            }
            Json(oauth.issue(true, &grant.scope)).into_response()
        }
        Some("refresh_token") => {
            let Some(refresh) = form.get("refresh_token").filter(|r| oauth.refresh.contains_key(*r)).cloned() else {
                return oauth_error(StatusCode::BAD_REQUEST, "invalid_grant", "Token has been expired or revoked.");
            };
            let scope = oauth.refresh[&refresh].0.clone();
            let answer = oauth.issue(false, &scope);
            let access = answer["access_token"].as_str().unwrap_or_default().to_string();
            oauth.refresh.get_mut(&refresh).expect("checked").1.push(access);
            Json(answer).into_response()
        }
        _ => oauth_error(StatusCode::BAD_REQUEST, "unsupported_grant_type", "Invalid grant_type."),
    }
}

async fn revoke(
    State(sim): State<Arc<Sim>>,
    Query(query): Query<HashMap<String, String>>,
    body: axum::body::Bytes,
) -> Response {
    let form: HashMap<String, String> = url::form_urlencoded::parse(&body).into_owned().collect();
    let Some(token) = query.get("token").or(form.get("token")).cloned() else {
        return oauth_error(StatusCode::BAD_REQUEST, "invalid_request", "Missing required parameter: token");
    };
    let mut oauth = sim.oauth.lock().unwrap();
    if let Some((_, issued)) = oauth.refresh.remove(&token) {
        for access in issued {
            oauth.access.remove(&access);
        }
        return StatusCode::OK.into_response();
    }
    if oauth.access.remove(&token).is_some() {
        return StatusCode::OK.into_response();
    }
    oauth_error(StatusCode::BAD_REQUEST, "invalid_token", "Token expired or revoked")
}

/// `GET /tokeninfo?access_token=…` (and the same as a form): what a live token may do, as
/// Google answers (`aud`, `scope`, `exp`, `expires_in`; an e-mail only with the `email` scope,
/// which Staffroom does not ask for); a dead or unknown one is 400 `invalid_token`.
async fn tokeninfo(State(sim): State<Arc<Sim>>, Query(query): Query<HashMap<String, String>>) -> Response {
    describe_token(&sim, query.get("access_token"))
}

async fn tokeninfo_form(State(sim): State<Arc<Sim>>, Form(form): Form<HashMap<String, String>>) -> Response {
    describe_token(&sim, form.get("access_token"))
}

fn describe_token(sim: &Sim, token: Option<&String>) -> Response {
    let oauth = sim.oauth.lock().unwrap();
    let Some((scope, left)) = token.and_then(|t| oauth.live(t)) else {
        return oauth_error(StatusCode::BAD_REQUEST, "invalid_token", "Invalid Value");
    };
    let exp = chrono::Utc::now().timestamp() + left as i64;
    Json(json!({
        "azp": oauth.client_id, "aud": oauth.client_id, "sub": super::SANDBOX_USER_ID,
        "scope": scope, "exp": exp.to_string(), "expires_in": left.to_string(), "access_type": "offline"
    }))
    .into_response()
}
