//! Tests of core services that need a real database: the core cannot depend on a store (the
//! stores depend on it), so these run here, on the embedded SQLite store in a temporary dir.

use staffroom::data_dir::settle_mode;
use staffroom::events::{EventHub, EventKind, Since};
use staffroom::store::{Db, Sqlite};

#[tokio::test]
async fn the_first_service_decides_and_cli_commands_follow() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::new(Sqlite::open(dir.path()).unwrap());
    let place = format!("the data dir {}", dir.path().display());
    // A CLI command on a fresh dir does not decide.
    assert!(settle_mode(&db, &place, "--data-dir", true, false).await.unwrap());
    assert!(!settle_mode(&db, &place, "--data-dir", false, false).await.unwrap());
    // The first service does; then the other mode is refused, naming the dir and the flag.
    assert!(settle_mode(&db, &place, "--data-dir", true, true).await.unwrap());
    let err = settle_mode(&db, &place, "--data-dir", false, true).await.unwrap_err();
    assert!(err.message.contains(&dir.path().display().to_string()) && err.message.contains("--sandbox"));
    // A CLI command follows the record, whatever it asked.
    assert!(settle_mode(&db, &place, "--data-dir", false, false).await.unwrap());
}

fn events_of(since: Since) -> Vec<(i64, EventKind, String)> {
    match since {
        Since::Events(events) => events.into_iter().map(|e| (e.id, e.kind, e.data)).collect(),
        Since::Reset { latest } => panic!("unexpected reset to {latest}"),
    }
}

#[tokio::test]
async fn events_are_numbered_stored_and_sent_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::new(Sqlite::open(dir.path()).unwrap());
    let hub = EventHub::start(&*db, dir.path()).await.unwrap();
    let mut live = hub.subscribe();
    hub.publish(EventKind::DocumentSaved, &"doc-1");
    hub.publish(EventKind::Webhook, &serde_json::json!({"kind": "received"}));
    let first = live.recv().await.unwrap();
    let second = live.recv().await.unwrap();
    assert_eq!((first.kind, first.data.as_str()), (EventKind::DocumentSaved, "\"doc-1\""));
    assert_eq!(second.id, first.id + 1);
    assert_eq!(hub.latest().await.unwrap(), second.id);

    let stored = events_of(hub.since(0, 10).await.unwrap());
    assert_eq!(stored.len(), 2);
    assert_eq!(stored[1], (second.id, EventKind::Webhook, r#"{"kind":"received"}"#.to_string()));
    assert_eq!(events_of(hub.since(first.id, 10).await.unwrap()).len(), 1);
    assert_eq!(events_of(hub.since(second.id, 10).await.unwrap()).len(), 0);
    assert_eq!(events_of(hub.since(0, 1).await.unwrap()).len(), 1, "the limit holds");
}
