//! The admin CLI of SPEC section 7, as scripts call it.

mod common;

use common::*;

#[test]
fn users_add_list_disable_enable() {
    let dir = tempfile::tempdir().unwrap();
    let (status, out, _) = run_cli(dir.path(), &["users", "list"], "");
    assert!(status.success());
    assert!(out.contains("no accounts yet"));

    add_user(dir.path(), "ada@example.com", "Ada Admin", "admin", "analytical-engine-notes-1843");
    add_user(dir.path(), "bo@example.com", "Bo Staff", "staff", "quiet-harbour-lighthouse-5");
    let (status, out, _) = run_cli(dir.path(), &["users", "list"], "");
    assert!(status.success());
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        ["ada@example.com\tAda Admin\tadmin\tactive", "bo@example.com\tBo Staff\tstaff\tactive"]
    );
    let (status, out, _) = run_cli(dir.path(), &["users", "disable", "bo@example.com"], "");
    assert!(status.success(), "{out}");
    let (_, out, _) = run_cli(dir.path(), &["users", "list"], "");
    assert!(out.contains("bo@example.com\tBo Staff\tstaff\tdisabled"));
    let (status, _, _) = run_cli(dir.path(), &["users", "enable", "BO@example.com"], "");
    assert!(status.success(), "emails are case-insensitive");
    let (_, out, _) = run_cli(dir.path(), &["users", "list"], "");
    assert!(out.contains("bo@example.com\tBo Staff\tstaff\tactive"));
}

#[test]
fn bad_input_is_refused_with_a_clear_message_and_nothing_changes() {
    let dir = tempfile::tempdir().unwrap();
    add_user(dir.path(), "ada@example.com", "Ada", "admin", "analytical-engine-notes-1843");
    let cases: &[(&[&str], &str, &str)] = &[
        (&["users", "add", "--email", "x@example.com", "--name", "X", "--password-stdin"], "short", "at least 15"),
        (
            &["users", "add", "--email", "x@example.com", "--name", "X", "--password-stdin"],
            "passwordpassword123",
            "too easy to guess",
        ),
        (
            &["users", "add", "--email", "x@example.com", "--name", "X", "--password-stdin"],
            "Staffroom2026!!!",
            "too easy to guess",
        ),
        (
            &["users", "add", "--email", "not-an-email", "--name", "X", "--password-stdin"],
            "analytical-engine-notes-1843",
            "email: is not a valid email address",
        ),
        (
            &["users", "add", "--email", "ada@example.com", "--name", "Ada 2", "--password-stdin"],
            "another-fine-passphrase-22",
            "already exists",
        ),
        (
            &["users", "add", "--email", "y@example.com", "--name", "Y", "--password-stdin"],
            "",
            "standard input was empty",
        ),
        (&["users", "disable", "ghost@example.com"], "", "No account with the email ghost@example.com"),
        (&["users", "set-password", "ada@example.com", "--password-stdin"], "tiny", "at least 15"),
        (&["secrets", "set", "not_a_secret"], "value", "unknown secret 'not_a_secret'"),
    ];
    for (args, stdin, expected) in cases {
        let (status, out, err) = run_cli(dir.path(), args, stdin);
        assert!(!status.success(), "{args:?} should fail: {out}");
        assert!(err.contains(expected), "{args:?}: expected {expected:?} in {err:?}");
        assert!(!err.contains("panicked"), "{err}");
    }
    let (_, out, _) = run_cli(dir.path(), &["users", "list"], "");
    assert_eq!(out.lines().count(), 1, "no account was added: {out}");
    // The password never goes on the command line.
    let (status, _, err) = run_cli(dir.path(), &["users", "add", "--email", "z@example.com", "--name", "Z"], "");
    assert!(!status.success());
    assert!(err.contains("--password-stdin"), "{err}");
}

#[test]
fn secrets_status_says_where_each_secret_comes_from_never_its_value() {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = command(dir.path());
    cmd.args(["secrets", "status"]).env("STAFFROOM_WEBHOOK_SECRET", "whsec_value_never_shown");
    let file = dir.path().join("api-key");
    std::fs::write(&file, "key-from-a-file\n").unwrap();
    cmd.env("STAFFROOM_LEMONSQUEEZY_API_KEY_FILE", &file);
    let out = cmd.output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(text.contains("backend: memory"), "{text}");
    let line = |name: &str| {
        text.lines().find(|l| l.starts_with(name)).unwrap_or_else(|| panic!("{name} in {text}")).to_string()
    };
    assert!(line("webhook_secret").contains("environment (STAFFROOM_WEBHOOK_SECRET)"));
    assert!(line("lemonsqueezy_api_key").contains("file ("));
    // A team's replicas are given the key (on a PostgreSQL run, in the environment).
    let jwt_from = if on_postgres() { "environment (STAFFROOM_JWT_KEY)" } else { "keyring (memory" };
    assert!(line("jwt_key").contains(jwt_from), "{text}");
    assert!(line("google_token").contains("not set"));
    assert!(!text.contains("whsec_value_never_shown") && !text.contains("key-from-a-file"));
}

#[test]
fn a_database_from_a_newer_binary_is_refused_with_a_clear_message() {
    let dir = tempfile::tempdir().unwrap();
    add_user(dir.path(), "ada@example.com", "Ada", "admin", "analytical-engine-notes-1843");
    let from_the_future = match on_postgres() {
        true => "INSERT INTO schema_migrations (version) VALUES (999)",
        false => "PRAGMA user_version = 999",
    };
    tokio::runtime::Runtime::new().unwrap().block_on(execute_sql(dir.path(), from_the_future));
    let (status, _, err) = run_cli(dir.path(), &["users", "list"], "");
    assert!(!status.success());
    assert!(err.contains("written by a newer Staffroom (schema 999"), "{err}");
}

#[test]
fn sandbox_accounts_added_with_the_cli_can_sign_in_to_the_sandbox() {
    let dir = tempfile::tempdir().unwrap();
    add_user(dir.path(), "cli@example.com", "Cli User", "staff", "granite-meadow-compass-4");
    let server = Server::start(ServerOptions { data_dir: Some(dir.path().to_path_buf()), ..Default::default() });
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        login(&server, "cli@example.com", "granite-meadow-compass-4").await;
        login(&server, DEMO_EMAIL, DEMO_PASSWORD).await;
    });
}

#[test]
fn google_status_tells_whether_documents_can_work() {
    let dir = tempfile::tempdir().unwrap();
    let (status, out, _) = common::run_cli(dir.path(), &["google", "status"], "");
    assert!(status.success());
    assert!(out.contains("not signed in; set google_client_id"), "{out}");
    // A pasted access token (the seed's SESSION_TOKEN) counts as signed in, without refresh.
    let out = common::command(dir.path())
        .args(["google", "status"])
        .env("STAFFROOM_GOOGLE_TOKEN", "ya29.pasted-token")
        .env("STAFFROOM_GOOGLE_CLIENT_ID", "client.apps.googleusercontent.com")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(text.contains("signed in (pasted)"), "{text}");
    assert!(!text.contains("ya29"), "the token is never printed");
}
