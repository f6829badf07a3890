//! Crash test: signed deliveries from concurrent senders, SIGKILL mid-stream, restart, and every
//! delivery that was answered 200 is stored and applied.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use serde_json::json;
use staffroom::secrets::Secret;
use staffroom::webhooks::signature::sign;

const SECRET: &str = "whsec_crash_test";
const SENDERS: usize = 6;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn acknowledged_deliveries_survive_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let options = || ServerOptions {
        data_dir: Some(dir.path().to_path_buf()),
        env: vec![("STAFFROOM_WEBHOOK_SECRET".into(), SECRET.into())],
        ..Default::default()
    };
    let mut server = Server::start(options());
    let url = server.url("/api/payments/webhooks");
    let acknowledged = Arc::new(Mutex::new(Vec::<String>::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let mut senders = Vec::new();
    for sender in 0..SENDERS {
        let (url, acknowledged, stop) = (url.clone(), acknowledged.clone(), stop.clone());
        senders.push(tokio::spawn(async move {
            let http = reqwest::Client::builder().timeout(Duration::from_secs(5)).build().unwrap();
            let mut errors = 0;
            for n in 0.. {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let webhook_id = format!("crash-{sender}-{n}");
                let body = serde_json::to_vec(&json!({
                    "meta": {"event_name": "subscription_updated", "webhook_id": webhook_id},
                    "data": {"type": "subscriptions", "id": format!("{sender}{n}"), "attributes": {"status": "active"}}
                }))
                .unwrap();
                let sent = http
                    .post(&url)
                    .header("content-type", "application/json")
                    .header("x-signature", sign(&Secret::new(SECRET), &body))
                    .body(body)
                    .send()
                    .await;
                match sent {
                    Ok(response) if response.status() == 200 => acknowledged.lock().unwrap().push(webhook_id),
                    // Refused connections and resets after the kill: the sender would retry.
                    _ => {
                        errors += 1;
                        if errors > 3 {
                            break;
                        }
                        tokio::time::sleep(Duration::from_millis(20)).await;
                    }
                }
            }
        }));
    }
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let killed = server.signal_and_wait("KILL");
    assert_eq!(killed.code(), None, "the process died from the signal");
    stop.store(true, Ordering::Relaxed);
    for sender in senders {
        sender.await.unwrap();
    }
    let acknowledged = acknowledged.lock().unwrap().clone();
    assert!(acknowledged.len() > 100, "the senders got going ({} acknowledged)", acknowledged.len());

    // Restart on the same data dir: deliveries stored but not applied are applied at start.
    let server = Server::start(options());
    let token = demo_token(&server).await;
    let log: serde_json::Value = client()
        .get(server.url("/api/payments/webhooks?limit=1"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(log["receiving"], true);

    let stored = count_rows(dir.path(), "SELECT COUNT(*) FROM webhook_events").await;
    let unapplied = count_rows(dir.path(), "SELECT COUNT(*) FROM webhook_events WHERE applied_at IS NULL").await;
    let applied: std::collections::HashSet<String> = column_text(
        dir.path(),
        "SELECT webhook_id FROM webhook_events WHERE webhook_id IS NOT NULL AND applied_at IS NOT NULL",
    )
    .await
    .into_iter()
    .collect();
    let kept: std::collections::HashSet<String> =
        column_text(dir.path(), "SELECT webhook_id FROM webhook_events WHERE webhook_id IS NOT NULL")
            .await
            .into_iter()
            .collect();
    let mut missing = Vec::new();
    for id in &acknowledged {
        match (kept.contains(id), applied.contains(id)) {
            (_, true) => {}
            (true, false) => missing.push(format!("{id} (stored, not applied)")),
            (false, _) => missing.push(format!("{id} (not stored)")),
        }
    }
    println!(
        "crash test: {} acknowledged, {stored} stored (the rest were in flight at the kill), {unapplied} unapplied after restart",
        acknowledged.len()
    );
    assert!(missing.is_empty(), "acknowledged but lost: {missing:?}");
    assert!(stored as usize >= acknowledged.len());
    assert_eq!(unapplied, 0);
}
