//! "Keep me signed in": the desktop's remembered session resumes across restarts only within
//! the session's own limits, and never after signing out. Real SQLite files, the memory keyring.

use std::time::Duration;

use staffroom::auth::{AuthResponse, REMEMBERED_SESSION};
use staffroom::secrets::{Secret, SecretBackend};
use staffroom::{Core, Error};

async fn core_with(dir: &std::path::Path, access_token: Duration, idle: Duration) -> Core {
    let mut config = staffroom::config::Config::new(dir);
    config.secret_backend = SecretBackend::Memory;
    config.session.access_token = access_token;
    config.session.idle = idle;
    let core = staffroom::open(config).await.unwrap();
    core.auth
        .create_first_admin("ada@example.com".into(), "Ada".into(), Secret::new("a long passphrase 1"))
        .await
        .unwrap();
    core
}

async fn sign_in(core: &Core) -> AuthResponse {
    let account = staffroom::auth::LoginInput {
        email: "ada@example.com".into(),
        password: staffroom::secrets::Secret::new("a long passphrase 1"),
    };
    core.auth.login(account, staffroom::auth::THIS_COMPUTER).await.map_err(Error::from).unwrap()
}

fn remembered(core: &Core) -> Option<String> {
    core.secrets.get(REMEMBERED_SESSION).unwrap().map(|s| s.expose().to_string())
}

#[tokio::test]
async fn a_remembered_session_resumes_after_its_token_expired_and_stays_current() {
    let dir = tempfile::tempdir().unwrap();
    let core = core_with(dir.path(), Duration::from_secs(1), Duration::from_secs(60)).await;
    assert!(core.resume_remembered_session().await.unwrap().is_none(), "nothing remembered yet");

    let signed_in = sign_in(&core).await;
    let token = signed_in.token.clone();
    let session = core.auth.authenticate(&token).await.unwrap().session_id;
    core.remember_session(Some(&signed_in.resume_token)).await.unwrap();
    assert!(core.has_remembered_session().await.unwrap());
    // Past the access token's life and the verifier's leeway (whole seconds, so up to a second
    // more than their sum), the token alone is refused...
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        match core.auth.authenticate(&token).await {
            Err(err) => break assert_eq!(err.code.as_str(), "unauthorized"),
            Ok(_) if tokio::time::Instant::now() < deadline => tokio::time::sleep(Duration::from_millis(250)).await,
            Ok(_) => panic!("the expired access token was still accepted after 20 s"),
        }
    }

    // ...and it cannot resume the session either (a stolen token is good for its 15 minutes)...
    assert_eq!(core.auth.resume(&token).await.unwrap_err().code.as_str(), "unauthorized");
    // ...but the session is live, so the app resumes it with its resume token, and remembers the
    // fresh one in turn.
    let resumed = core.resume_remembered_session().await.unwrap().expect("the session resumes");
    assert_eq!(resumed.user.email, "ada@example.com");
    // The same session goes on (its limits still count from the first sign-in), not a new one.
    assert_eq!(core.auth.authenticate(&resumed.token).await.unwrap().session_id, session);
    assert_eq!(remembered(&core).as_deref(), Some(resumed.resume_token.as_str()));
}

/// A resume token that was already used is a copy: using it again ends the whole session, and
/// the audit log says why.
#[tokio::test]
async fn a_retired_resume_token_ends_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let core = core_with(dir.path(), Duration::from_secs(600), Duration::from_secs(600)).await;
    let signed_in = sign_in(&core).await;
    let resumed = core.auth.resume(&signed_in.resume_token).await.unwrap();
    assert!(core.auth.authenticate(&resumed.token).await.is_ok());
    let err = core.auth.resume(&signed_in.resume_token).await.unwrap_err();
    assert_eq!(err.code.as_str(), "unauthorized");
    for token in [&resumed.token, &signed_in.token] {
        assert_eq!(core.auth.authenticate(token).await.unwrap_err().code.as_str(), "unauthorized");
    }
    assert!(core.auth.resume(&resumed.resume_token).await.is_err(), "the session ended for every token");
}

#[tokio::test]
async fn signing_out_or_an_idle_session_ends_what_is_remembered() {
    let dir = tempfile::tempdir().unwrap();
    let core = core_with(dir.path(), Duration::from_secs(600), Duration::from_secs(1)).await;

    // Signed out: the session is dead, so the remembered token resumes nothing and is forgotten.
    let signed_in = sign_in(&core).await;
    core.remember_session(Some(&signed_in.resume_token)).await.unwrap();
    core.auth.logout(&signed_in.token).await.unwrap();
    assert!(core.resume_remembered_session().await.unwrap().is_none());
    assert_eq!(remembered(&core), None);

    // Idle past the limit while the app was closed: the same.
    let signed_in = sign_in(&core).await;
    core.remember_session(Some(&signed_in.resume_token)).await.unwrap();
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    assert!(core.resume_remembered_session().await.unwrap().is_none());
    assert_eq!(remembered(&core), None);
}

#[tokio::test]
async fn a_forged_or_garbled_remembered_token_resumes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let core = core_with(dir.path(), Duration::from_secs(600), Duration::from_secs(600)).await;
    let signed_in = sign_in(&core).await;
    let (head, _) = signed_in.resume_token.rsplit_once('.').unwrap();
    // An access token is no resume token either.
    for bad in [format!("{head}.AAAA"), signed_in.token, "not a token".to_string(), "x".to_string()] {
        core.remember_session(Some(&bad)).await.unwrap();
        assert!(core.resume_remembered_session().await.unwrap().is_none(), "{bad}");
        assert_eq!(remembered(&core), None);
    }
}
