//! Google sign-in against the simulator, tokens in the real kernel keyring: the loopback flow
//! with PKCE from start to stored token, refresh (on expiry and on a 401), revocation on
//! sign-out; a wrong `state` or verifier is refused.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use staffroom::docs::client::GoogleEndpoints;
use staffroom::docs::client::{GoogleClient, GoogleClientOptions};
use staffroom::docs::oauth::{GoogleAuth, StoredToken, TOKEN_SECRET};
use staffroom::sandbox::google::{GoogleFaults, GoogleSimOptions, GoogleSimulator};
use staffroom::secrets::{KeyringStore, Secret, Secrets};

/// A browser that does not follow redirects, so the test sees where Google sends it.
fn browser() -> reqwest::Client {
    reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap()
}

async fn setup(lifetime: Duration) -> (GoogleSimulator, Secrets, GoogleAuth, GoogleEndpoints) {
    let sim = GoogleSimulator::start(GoogleSimOptions { access_token_lifetime: lifetime, ..Default::default() })
        .await
        .unwrap();
    let namespace = format!("test-oauth-{}", uuid::Uuid::new_v4().simple());
    let secrets = Secrets::new(Arc::new(KeyringStore::keyutils(&namespace).expect("the kernel keyring")));
    let (id, secret) = sim.client();
    secrets.set("google_client_id", &Secret::new(id)).unwrap();
    secrets.set("google_client_secret", &Secret::new(secret)).unwrap();
    let endpoints: GoogleEndpoints = staffroom::sandbox::google_endpoints(&sim);
    let auth = GoogleAuth::new(secrets.clone(), endpoints.clone(), true).unwrap();
    (sim, secrets, auth, endpoints)
}

fn query(url: &str) -> std::collections::HashMap<String, String> {
    url::Url::parse(url).unwrap().query_pairs().into_owned().collect()
}

/// Plays the user in the browser: opens the consent page, clicks Allow (or Cancel), and follows
/// the redirect to the app's loopback listener. Returns the redirect URL.
async fn consent(sim: &GoogleSimulator, auth_url: &str, allow: bool) -> String {
    let page = browser().get(auth_url).send().await.unwrap();
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    let id = if allow { "allow" } else { "deny" };
    let start = html.find(&format!("id=\"{id}\" href=\"")).unwrap() + format!("id=\"{id}\" href=\"").len();
    let href = html[start..].split('"').next().unwrap().replace("&amp;", "&");
    let approved = browser().get(format!("{}{href}", sim.base_url())).send().await.unwrap();
    assert!(approved.status().is_redirection());
    approved.headers()["location"].to_str().unwrap().to_string()
}

#[tokio::test]
async fn the_loopback_flow_with_pkce_stores_refreshes_and_revokes() {
    let (sim, secrets, auth, endpoints) = setup(Duration::from_secs(3599)).await;
    assert!(!auth.status().await.unwrap().signed_in);

    let pending = auth.begin_sign_in().await.unwrap();
    let params = query(&pending.url);
    assert_eq!(params["code_challenge_method"], "S256");
    assert_eq!(params["code_challenge"].len(), 43, "base64url of a SHA-256");
    assert!(params["state"].len() >= 16);
    assert!(params["redirect_uri"].starts_with("http://127.0.0.1:"));
    assert!(params["scope"].contains("auth/documents") && params["scope"].contains("auth/drive"));
    assert_eq!(params["access_type"], "offline");

    let url = pending.url.clone();
    let sim_for_browser = sim.clone();
    let user = tokio::spawn(async move {
        let redirect = consent(&sim_for_browser, &url, true).await;
        assert!(redirect.starts_with("http://127.0.0.1:"));
        let landing = reqwest::get(&redirect).await.unwrap();
        assert_eq!(landing.status(), 200);
        assert!(landing.text().await.unwrap().contains("You can close this tab"));
    });
    pending.finish(Duration::from_secs(10)).await.unwrap();
    user.await.unwrap();

    // Stored in the keyring: a token set that refreshes itself.
    let stored = StoredToken::parse(secrets.get(TOKEN_SECRET).unwrap().unwrap().expose());
    let refresh = stored.refresh_token.clone().expect("a refresh token");
    assert!(stored.expires_at.unwrap() > staffroom::time::now_unix() + 3000);
    let status = auth.status().await.unwrap();
    assert_eq!((status.signed_in, status.kind.as_deref()), (true, Some("oauth")));

    // The token works against the API.
    let client = GoogleClient::new(&endpoints, auth.clone(), {
        let mut options = GoogleClientOptions::default();
        options.retry.backoff_base = Duration::from_millis(20);
        options
    })
    .unwrap();
    let q = "mimeType = 'application/vnd.google-apps.document' and trashed = false";
    assert_eq!(client.list_files(q, "modifiedTime desc", 5, None).await.unwrap().files.len(), 5);

    // A 401 (the token revoked or expired early) refreshes once, transparently, and the new
    // token replaces the old one in the keyring.
    sim.set_faults(GoogleFaults { reject_token: 1, ..Default::default() });
    client.list_files(q, "modifiedTime desc", 5, None).await.unwrap();
    let after = StoredToken::parse(secrets.get(TOKEN_SECRET).unwrap().unwrap().expose());
    assert_ne!(after.access_token, stored.access_token);
    assert_eq!(after.refresh_token.as_deref(), Some(refresh.as_str()), "Google sends no new refresh token");

    // Sign-out revokes at Google and forgets the token here.
    auth.sign_out().await.unwrap();
    assert!(secrets.get(TOKEN_SECRET).unwrap().is_none());
    assert!(!auth.status().await.unwrap().signed_in);
    let reuse = reqwest::Client::new()
        .post(&endpoints.token_url)
        .form(&[
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh.as_str()),
            ("client_id", &sim.client().0),
            ("client_secret", &sim.client().1),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(reuse.status(), 400);
    assert_eq!(reuse.json::<Value>().await.unwrap()["error"], "invalid_grant");
    let api = reqwest::Client::new()
        .get(format!("{}/files", endpoints.drive_url))
        .bearer_auth(&after.access_token)
        .send()
        .await
        .unwrap();
    assert_eq!(api.status(), 401, "the access token died with its refresh token");
    let err = client.list_files(q, "modifiedTime desc", 5, None).await.unwrap_err();
    assert_eq!(err.status(), 401);
    secrets.delete("google_client_id").unwrap();
    secrets.delete("google_client_secret").unwrap();
}

#[tokio::test]
async fn an_expiring_token_is_refreshed_before_use() {
    // Tokens that live less than the one-minute margin are refreshed on every use.
    let (_sim, secrets, auth, _) = setup(Duration::from_secs(30)).await;
    let pending = auth.begin_sign_in().await.unwrap();
    let (url, sim) = (pending.url.clone(), _sim.clone());
    let user = tokio::spawn(async move {
        let redirect = consent(&sim, &url, true).await;
        reqwest::get(&redirect).await.unwrap();
    });
    pending.finish(Duration::from_secs(10)).await.unwrap();
    user.await.unwrap();
    let first = StoredToken::parse(secrets.get(TOKEN_SECRET).unwrap().unwrap().expose()).access_token;
    let used = auth.access_token().await.unwrap();
    assert_ne!(used, first);
    assert_eq!(StoredToken::parse(secrets.get(TOKEN_SECRET).unwrap().unwrap().expose()).access_token, used);
    auth.sign_out().await.unwrap();
    secrets.delete("google_client_id").unwrap();
    secrets.delete("google_client_secret").unwrap();
}

#[tokio::test]
async fn a_wrong_state_or_a_refused_consent_stores_nothing() {
    let (sim, secrets, auth, _) = setup(Duration::from_secs(3599)).await;
    // Someone else's redirect (a forged state) is refused.
    let pending = auth.begin_sign_in().await.unwrap();
    let redirect_uri = query(&pending.url)["redirect_uri"].clone();
    let forger = tokio::spawn(async move {
        reqwest::get(format!("{redirect_uri}?code=4%2Fforged&state=not-the-state")).await.unwrap();
    });
    let err = pending.finish(Duration::from_secs(10)).await.unwrap_err();
    forger.await.unwrap();
    assert_eq!(err.details.unwrap()["fields"][0]["field"], "state");
    // The user clicks Cancel.
    let pending = auth.begin_sign_in().await.unwrap();
    let (url, browser_sim) = (pending.url.clone(), sim.clone());
    let user = tokio::spawn(async move {
        let redirect = consent(&browser_sim, &url, false).await;
        assert!(redirect.contains("error=access_denied"));
        reqwest::get(&redirect).await.unwrap();
    });
    let err = pending.finish(Duration::from_secs(10)).await.unwrap_err();
    user.await.unwrap();
    assert!(err.message.contains("access_denied"), "{}", err.message);
    assert!(secrets.get(TOKEN_SECRET).unwrap().is_none());
    secrets.delete("google_client_id").unwrap();
    secrets.delete("google_client_secret").unwrap();
}

#[tokio::test]
async fn the_token_endpoint_checks_the_pkce_verifier() {
    let (sim, secrets, _, endpoints) = setup(Duration::from_secs(3599)).await;
    let (client_id, client_secret) = sim.client();
    let verifier = "a-verifier-that-is-long-enough-for-pkce-0123456789abcdef";
    let challenge = {
        use base64::Engine as _;
        use sha2::Digest as _;
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(verifier))
    };
    let redirect = "http://127.0.0.1:9/callback";
    let authorize = |challenge: Option<&str>| {
        let mut url = url::Url::parse(&endpoints.auth_url).unwrap();
        url.query_pairs_mut()
            .append_pair("client_id", &client_id)
            .append_pair("redirect_uri", redirect)
            .append_pair("response_type", "code")
            .append_pair("scope", "https://www.googleapis.com/auth/drive")
            .append_pair("state", "s");
        if let Some(c) = challenge {
            url.query_pairs_mut().append_pair("code_challenge", c).append_pair("code_challenge_method", "S256");
        }
        url.to_string()
    };
    // Without PKCE the simulator refuses to start.
    assert_eq!(browser().get(authorize(None)).send().await.unwrap().status(), 400);
    let exchange = |code: String, verifier: &'static str| {
        let (id, secret, token_url) = (client_id.clone(), client_secret.clone(), endpoints.token_url.clone());
        async move {
            let answer = reqwest::Client::new()
                .post(token_url)
                .form(&[
                    ("grant_type", "authorization_code"),
                    ("code", &code),
                    ("code_verifier", verifier),
                    ("redirect_uri", redirect),
                    ("client_id", &id),
                    ("client_secret", &secret),
                ])
                .send()
                .await
                .unwrap();
            (answer.status().as_u16(), answer.json::<Value>().await.unwrap())
        }
    };
    let code = query(&consent(&sim, &authorize(Some(&challenge)), true).await)["code"].clone();
    let (status, body) = exchange(code.clone(), "the-wrong-verifier-0123456789abcdef-0123456789").await;
    assert_eq!((status, body["error"].as_str()), (400, Some("invalid_grant")));
    // A code is single-use: even the right verifier cannot revive it.
    assert_eq!(exchange(code, verifier).await.0, 400);
    let code = query(&consent(&sim, &authorize(Some(&challenge)), true).await)["code"].clone();
    let (status, body) = exchange(code, verifier).await;
    assert_eq!(status, 200, "{body}");
    assert!(body["refresh_token"].is_string() && body["access_token"].is_string());
    secrets.delete("google_client_id").unwrap();
    secrets.delete("google_client_secret").unwrap();
}
