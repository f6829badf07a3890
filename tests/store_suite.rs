//! One store test suite, run against both backends (SPEC section 10): each case below runs once
//! on a real SQLite file and once on a real PostgreSQL database in a throwaway cluster
//! (`common::pg`). A store is ported to PostgreSQL when its cases are here.

mod common;

use staffroom::audit::{Audit, AuditAction};
use staffroom::store::audit::NewAuditEntry;
use staffroom::store::Db;

/// A database of the backend named, fresh and migrated; the guard keeps a SQLite file alive.
async fn open(backend: &str) -> (Option<tempfile::TempDir>, Db) {
    match backend {
        "sqlite" => {
            let dir = tempfile::tempdir().unwrap();
            let db = Db::open(dir.path()).unwrap();
            (Some(dir), db)
        }
        _ => (None, Db::open_postgres(&common::pg::cluster().database()).await.unwrap()),
    }
}

/// Runs each case on both backends, as `<case>::sqlite` and `<case>::postgres`.
macro_rules! on_both_stores {
    ($($case:ident),* $(,)?) => {$(
        mod $case {
            #[tokio::test]
            async fn sqlite() {
                let (_guard, db) = super::open("sqlite").await;
                super::$case(db).await;
            }

            #[tokio::test]
            async fn postgres() {
                let (_guard, db) = super::open("postgres").await;
                super::$case(db).await;
            }
        }
    )*};
}

on_both_stores!(meta_values_are_kept_and_replaced, audit_entries_page_newest_first, audit_prunes_before_a_cutoff);

async fn meta_values_are_kept_and_replaced(db: Db) {
    assert_eq!(db.meta("audit_retention_days").await.unwrap(), None);
    db.set_meta("audit_retention_days", "90".into()).await.unwrap();
    db.set_meta("audit_retention_days", "120".into()).await.unwrap();
    assert_eq!(db.meta("audit_retention_days").await.unwrap().as_deref(), Some("120"));
}

async fn audit_entries_page_newest_first(db: Db) {
    let audit = Audit::new(db.clone());
    for n in 0..7 {
        let target = format!("order-{n}");
        let detail = (n == 3).then(|| serde_json::json!({ "note": "quote \" and ünïcode 🧾" }));
        audit.record("ada@example.com", AuditAction::OrderCreate, Some(&target), "success", detail).await;
    }
    audit.record("cli", AuditAction::UserDisable, None, "failure", None).await;

    let first = audit.list(5, None).await.unwrap();
    let targets: Vec<Option<&str>> = first.iter().map(|e| e.target.as_deref()).collect();
    assert_eq!(targets, [None, Some("order-6"), Some("order-5"), Some("order-4"), Some("order-3")]);
    assert_eq!((first[0].actor.as_str(), first[0].action.as_str(), first[0].outcome.as_str()), ("cli", "users.disable", "failure"));
    let detail: serde_json::Value = serde_json::from_str(first[4].detail.as_deref().unwrap()).unwrap();
    assert_eq!(detail["note"], "quote \" and ünïcode 🧾");
    assert!(first.windows(2).all(|w| w[0].id > w[1].id && w[0].at >= w[1].at));

    let rest = audit.list(5, Some(first[4].id)).await.unwrap();
    let targets: Vec<&str> = rest.iter().filter_map(|e| e.target.as_deref()).collect();
    assert_eq!(targets, ["order-2", "order-1", "order-0"]);
    assert!(audit.list(5, Some(rest[2].id)).await.unwrap().is_empty());
}

async fn audit_prunes_before_a_cutoff(db: Db) {
    let entry = |target| NewAuditEntry {
        actor: "system",
        action: AuditAction::AuditRetention,
        target: Some(target),
        outcome: "success",
        detail: None,
    };
    db.append_audit(entry("kept")).await.unwrap();
    assert_eq!(db.prune_audit("2000-01-01T00:00:00Z".into()).await.unwrap(), 0);
    assert_eq!(db.audit_entries(10, None).await.unwrap().len(), 1);
    assert_eq!(db.prune_audit("2999-01-01T00:00:00Z".into()).await.unwrap(), 1);
    assert!(db.audit_entries(10, None).await.unwrap().is_empty());

    // Through the service: the retention is a meta value, and pruning honours it.
    let audit = Audit::new(db.clone());
    assert_eq!(audit.retention().await.unwrap().days, staffroom::audit::DEFAULT_RETENTION_DAYS);
    assert_eq!(audit.prune().await.unwrap(), 0);
}

/// Replicas starting together migrate once: the others wait on the lock and find nothing to do.
#[tokio::test]
async fn postgres_replicas_starting_together_migrate_once() {
    let url = common::pg::cluster().database();
    let opened = futures::future::join_all((0..4).map(|_| Db::open_postgres(&url))).await;
    assert!(opened.iter().all(Result::is_ok), "{:?}", opened.iter().filter_map(|r| r.as_ref().err()).collect::<Vec<_>>());
    let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(connection);
    let versions: i64 = client.query_one("SELECT count(*) FROM schema_migrations", &[]).await.unwrap().get(0);
    assert_eq!(versions, staffroom::store::pg::schema_version());

    // A database a newer build migrated is refused, naming what to do.
    client.execute("INSERT INTO schema_migrations (version) VALUES (999)", &[]).await.unwrap();
    let refused = Db::open_postgres(&url).await.expect_err("a newer schema must be refused");
    assert!(refused.to_string().contains("newer Staffroom"), "{refused}");
}

#[tokio::test]
async fn a_bad_database_url_is_refused_clearly() {
    let refused = Db::open_postgres("postgres://staffroom@127.0.0.1:notaport/x").await.expect_err("a bad URL");
    assert!(refused.to_string().contains("not one PostgreSQL understands"), "{refused}");
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let refused = Db::open_postgres(&format!("postgres://staffroom@127.0.0.1:{port}/x")).await.expect_err("no server");
    assert!(refused.to_string().contains("cannot reach the database"), "{refused}");
}
