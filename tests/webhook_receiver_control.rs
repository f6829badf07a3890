//! The desktop app's receiver switch (Settings, Webhooks): on from the start in the sandbox,
//! switched by admins only, audited, and remembered across restarts; a port that cannot be had
//! leaves the running receiver alone. Real SQLite files, real HTTP on loopback.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::*;
use staffroom::auth::store::Role;
use staffroom::auth::{Actor, NewUser};
use staffroom::error::ErrorCode;
use staffroom::http::receiver::{ReceiverControl, ReceiverStatus};
use staffroom::secrets::Secret;

/// A core as the desktop app opens it: long-running, so it receives webhooks.
async fn desktop_core(dir: &Path, sandbox: bool) -> staffroom::Core {
    open_core(dir, sandbox, true).await
}

/// Whether the webhook receiver answers at `url`: an unsigned delivery is refused with 401.
async fn answers(url: &str) -> bool {
    let probe = client().post(url).header("content-type", "application/json").body("{}").send().await;
    // Refused either way: unsigned (401), or no usable signing secret yet (503).
    probe.is_ok_and(|r| matches!(r.status().as_u16(), 401 | 503))
}

/// Waits until nothing answers at `url` any more (a stopped receiver lets requests in flight
/// finish, so its port closes a moment later).
async fn wait_until_gone(url: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while answers(url).await {
        assert!(Instant::now() < deadline, "the receiver at {url} still answers");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn url_of(status: &ReceiverStatus) -> String {
    status.url.clone().expect("a running receiver has a URL")
}

#[tokio::test]
async fn in_the_sandbox_the_receiver_is_on_from_the_start_with_a_signing_secret() {
    let dir = tempfile::tempdir().unwrap();
    let control = ReceiverControl::new(desktop_core(dir.path(), true).await);
    assert!(!control.status().await.running, "off until restored");
    let status = control.restore().await.unwrap();
    assert!(status.running && status.has_secret, "{status:?}");
    let url = url_of(&status);
    assert!(url.starts_with("http://127.0.0.1:") && url.ends_with("/api/payments/webhooks"), "{url}");
    assert!(answers(&url).await, "nothing answers at {url}");
}

#[tokio::test]
async fn admins_switch_it_and_the_choice_outlives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let core = desktop_core(dir.path(), false).await;
    let control = ReceiverControl::new(core.clone());
    let status = control.restore().await.unwrap();
    let problem =
        Some("No webhook signing secret is set; an admin registers the webhook in Settings → Connections".to_string());
    assert_eq!(
        status,
        ReceiverStatus { running: false, url: None, has_secret: false, secret_problem: problem },
        "off by default"
    );

    // A staff member who is not an admin is refused, and nothing starts.
    let password = "correct horse battery staple 7";
    let staff = NewUser {
        email: "sam@example.com".into(),
        name: "Sam".into(),
        role: Role::Staff,
        password: Secret::new(password),
    };
    core.auth.add_user(&Actor::Cli, staff).await.unwrap();
    let account = staffroom::auth::LoginInput { email: "sam@example.com".into(), password: Secret::new(password) };
    let signed_in = core.auth.login(account, "127.0.0.1").await;
    let sam = Actor::Staff(core.auth.authenticate(&signed_in.unwrap().token).await.unwrap());
    let refused = control.set(&sam, true, None).await.unwrap_err();
    assert_eq!(refused.code, ErrorCode::Forbidden);
    assert!(!control.status().await.running);

    let port = free_port();
    let on = control.set(&Actor::Cli, true, Some(port)).await.unwrap();
    assert!(on.running);
    let url = url_of(&on);
    assert!(url.contains(&format!("127.0.0.1:{port}/")), "{url}");
    assert!(answers(&url).await);

    // A port already taken is a clear field error; the running receiver stays where it was.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let taken_port = taken.local_addr().unwrap().port();
    let err = control.set(&Actor::Cli, true, Some(taken_port)).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidRequest);
    assert!(err.message.contains("cannot listen"), "{}", err.message);
    assert_eq!(control.status().await, on);
    assert!(answers(&url).await);

    let outcomes: Vec<String> = core
        .audit
        .list(50, None)
        .await
        .unwrap()
        .into_iter()
        .filter(|e| e.action == "settings.webhook_receiver")
        .map(|e| e.outcome)
        .collect();
    assert_eq!(outcomes.len(), 2, "the switch and the refused port are audited: {outcomes:?}");
    assert!(outcomes.contains(&"on".to_string()) && outcomes.contains(&"failure".to_string()), "{outcomes:?}");

    // Restart: the receiver comes back on the same port.
    control.stop().await;
    wait_until_gone(&url).await;
    drop((control, core));
    let core = desktop_core(dir.path(), false).await;
    let control = ReceiverControl::new(core.clone());
    let restored = control.restore().await.unwrap();
    assert_eq!(url_of(&restored), url);
    assert!(answers(&url).await);

    // Switched off, it stays off after the next restart.
    let off = control.set(&Actor::Cli, false, None).await.unwrap();
    assert_eq!((off.running, off.url), (false, None));
    wait_until_gone(&url).await;
    drop((control, core));
    let control = ReceiverControl::new(desktop_core(dir.path(), false).await);
    assert!(!control.restore().await.unwrap().running);
}
