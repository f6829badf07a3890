//! Every sign-in, failure and account change leaves an audit entry.

use staffroom::auth::{Actor, LoginInput, NewUser};
mod common;

use common::memory_core;
use staffroom::auth::store::Role;
use staffroom::secrets::Secret;

#[tokio::test]
async fn sign_ins_failures_and_account_changes_are_audited() {
    let dir = tempfile::tempdir().unwrap();
    let core = memory_core(dir.path()).await;
    assert!(core.auth.needs_first_admin().await.unwrap());
    core.auth
        .create_first_admin("ada@example.com".into(), "Ada".into(), Secret::new("analytical-engine-notes-1843"))
        .await
        .unwrap();
    assert!(!core.auth.needs_first_admin().await.unwrap());
    let again = core
        .auth
        .create_first_admin("eve@example.com".into(), "Eve".into(), Secret::new("another-fine-passphrase-22"))
        .await;
    assert_eq!(again.unwrap_err().code, staffroom::ErrorCode::Conflict, "only one first admin");

    let login = |password: &str| LoginInput { email: "ada@example.com".into(), password: Secret::new(password) };
    let session = core.auth.login(login("analytical-engine-notes-1843"), "127.0.0.1").await.unwrap();
    assert!(core.auth.login(login("wrong-passphrase-here"), "127.0.0.1").await.is_err());
    let admin = Actor::Staff(core.auth.authenticate(&session.token).await.unwrap());
    let new = NewUser {
        email: "bo@example.com".into(),
        name: "Bo".into(),
        role: Role::Staff,
        password: Secret::new("quiet-harbour-lighthouse-5"),
    };
    core.auth.add_user(&admin, new).await.unwrap();
    core.auth.set_disabled(&admin, "bo@example.com", true).await.unwrap();
    core.auth.set_password(&admin, "bo@example.com", Secret::new("loud-harbour-lighthouse-6")).await.unwrap();
    core.auth.logout(&session.token).await.unwrap();

    let entries = core.audit.list(100, None).await.unwrap();
    let summary: Vec<(String, String, Option<String>, String)> = entries
        .iter()
        .rev()
        .map(|e| (e.actor.clone(), e.action.clone(), e.target.clone(), e.outcome.clone()))
        .collect();
    let expected = [
        ("system", "users.add", "ada@example.com", "success"),
        ("ada@example.com", "auth.sign_in", "ada@example.com", "success"),
        ("anonymous", "auth.sign_in", "ada@example.com", "failure"),
        ("ada@example.com", "users.add", "bo@example.com", "success"),
        ("ada@example.com", "users.disable", "bo@example.com", "success"),
        ("ada@example.com", "users.set_password", "bo@example.com", "success"),
        ("ada@example.com", "auth.sign_out", "ada@example.com", "success"),
    ];
    let expected: Vec<(String, String, Option<String>, String)> = expected
        .iter()
        .map(|(a, b, c, d)| (a.to_string(), b.to_string(), Some(c.to_string()), d.to_string()))
        .collect();
    assert_eq!(summary, expected);
    assert!(entries.iter().all(|e| e.at.ends_with('Z')));
    let failure = entries.iter().find(|e| e.outcome == "failure").unwrap();
    assert_eq!(failure.detail.as_deref(), Some(r#"{"address":"127.0.0.1","reason":"wrong password"}"#));
}

#[tokio::test]
async fn staff_cannot_manage_users() {
    let dir = tempfile::tempdir().unwrap();
    let core = memory_core(dir.path()).await;
    let staff = NewUser {
        email: "bo@example.com".into(),
        name: "Bo".into(),
        role: Role::Staff,
        password: Secret::new("quiet-harbour-lighthouse-5"),
    };
    core.auth.add_user(&Actor::Cli, staff).await.unwrap();
    let session = core
        .auth
        .login(
            LoginInput { email: "bo@example.com".into(), password: Secret::new("quiet-harbour-lighthouse-5") },
            "127.0.0.1",
        )
        .await
        .unwrap();
    let bo = Actor::Staff(core.auth.authenticate(&session.token).await.unwrap());
    // Not allowed, which is not the same as signed out.
    assert_eq!(core.auth.list_users(&bo).await.unwrap_err().code, staffroom::ErrorCode::Forbidden);
    // ...but may change their own password.
    core.auth.set_password(&bo, "bo@example.com", Secret::new("new-quiet-harbour-lighthouse")).await.unwrap();
}
