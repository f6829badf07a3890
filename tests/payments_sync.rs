//! The payments sync as staff see it: progress page by page while it runs, one sync at a time,
//! its status, and an interval an admin changes that outlives a restart. Real HTTP on loopback
//! against the payment simulator; real SQLite files.

mod common;

use std::time::Duration;

use common::*;
use serde_json::{json, Value};
use staffroom::auth::Actor;
use staffroom::payments::sync::{SyncProgress, SyncStep};
use staffroom::sandbox::lemonsqueezy::Faults;

/// Everything a sync reports, up to and including its `Done`.
async fn progress_of(app: &SandboxApp) -> (u16, Value, Vec<SyncProgress>) {
    // The sync a long-running core starts with must not be mistaken for this one.
    while app.core.payments.sync_status().await.unwrap().running {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let mut listener = app.core.payments.subscribe_sync();
    let (status, body) = app.post("/api/payments/sync", json!({})).await;
    let mut seen = Vec::new();
    loop {
        let progress = tokio::time::timeout(Duration::from_secs(5), listener.recv()).await.unwrap().unwrap();
        let done = progress.step == SyncStep::Done;
        seen.push(progress);
        if done {
            return (status, body, seen);
        }
    }
}

#[tokio::test]
async fn a_sync_reports_each_page_of_each_step_then_its_end() {
    let app = SandboxApp::start().await;
    let (status, report, seen) = progress_of(&app).await;
    assert_eq!(status, 200, "{report}");

    // Steps in order, each counting its pages up to the total the provider gave.
    let steps: Vec<SyncStep> = seen.iter().map(|p| p.step).fold(Vec::new(), |mut steps, step| {
        if steps.last() != Some(&step) {
            steps.push(step);
        }
        steps
    });
    assert_eq!(steps[..3], [SyncStep::Products, SyncStep::Variants, SyncStep::Subscriptions], "{seen:?}");
    assert_eq!(steps.last(), Some(&SyncStep::Done));
    let subscriptions: Vec<_> = seen.iter().filter(|p| p.step == SyncStep::Subscriptions).collect();
    // 245 subscriptions at 100 a page.
    assert_eq!(subscriptions.iter().map(|p| p.done).collect::<Vec<_>>(), [1, 2, 3]);
    assert!(subscriptions.iter().all(|p| p.total == Some(3)), "{subscriptions:?}");
    assert_eq!(seen.last().unwrap().error, None);
    assert_eq!(report["subscriptions"], 245);

    // A failed sync ends with its error, as a code and a sentence.
    app.simulator().set_faults(Faults { reject_key: true, ..Default::default() });
    let (status, _, seen) = progress_of(&app).await;
    assert_eq!(status, 401);
    let failure = seen.last().unwrap().error.clone().expect("the failure is reported");
    assert_eq!(failure.code.as_str(), "unauthorized");
    assert!(!failure.message.is_empty());
}

#[tokio::test]
async fn the_status_shows_a_running_sync_and_each_list_s_last_sync() {
    let app = SandboxApp::start().await;
    let (status, before) = app.get("/api/payments/sync").await;
    assert_eq!(status, 200, "{before}");
    assert_eq!(before["intervalSecs"], 300, "the configured default");
    let resources: Vec<&str> =
        before["resources"].as_array().unwrap().iter().map(|r| r["resource"].as_str().unwrap()).collect();
    assert_eq!(resources, ["products", "subscriptions", "orders", "customers"]);

    // Slow the provider so a sync is caught running; a second one waits for the first.
    app.simulator().set_faults(Faults { latency_ms: 150, ..Default::default() });
    let first = tokio::spawn({
        let (base, token) = (app.base.clone(), app.token.clone());
        async move { client().post(format!("{base}/api/payments/sync")).bearer_auth(token).send().await.unwrap().status() }
    });
    let mut caught_running = false;
    for _ in 0..100 {
        if app.get("/api/payments/sync").await.1["running"] == true {
            caught_running = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(caught_running, "the status never showed the sync running");
    assert_eq!(first.await.unwrap(), 200);
    app.simulator().set_faults(Faults::default());

    let (_, after) = app.get("/api/payments/sync").await;
    assert_eq!(after["running"], false);
    for resource in after["resources"].as_array().unwrap() {
        assert!(resource["syncedAt"].as_str().is_some_and(|t| t.ends_with('Z')), "{resource}");
        assert_eq!(resource["error"], Value::Null);
    }

    // A failure is recorded per list, with the last good sync kept.
    app.simulator().set_faults(Faults { error_rate: 1.0, ..Default::default() });
    app.post("/api/payments/sync", json!({})).await;
    let (_, failed) = app.get("/api/payments/sync").await;
    let products = &failed["resources"][0];
    assert!(products["error"].as_str().is_some_and(|e| !e.is_empty()), "{failed}");
    assert_eq!(products["syncedAt"], after["resources"][0]["syncedAt"]);
}

#[tokio::test]
async fn an_admin_changes_the_interval_within_a_minute_to_a_day_and_it_is_audited() {
    let app = SandboxApp::start().await;
    let put = |body: Value| app.send(reqwest::Method::PUT, "/api/payments/sync", Some(body));
    let (status, body) = put(json!({ "intervalSecs": 3600 })).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["intervalSecs"], 3600);
    assert_eq!(app.get("/api/payments/sync").await.1["intervalSecs"], 3600);

    for bad in [json!({ "intervalSecs": 59 }), json!({ "intervalSecs": 86_401 })] {
        let (status, body) = put(bad.clone()).await;
        assert_eq!((status, bad_fields(&body)), (400, vec!["intervalSecs".to_string()]), "{bad}: {body}");
    }
    // Every bad field is named, the wrong type of one as much as one that is not a field.
    for (bad, named) in [
        (json!({ "intervalSecs": "hourly" }), vec!["intervalSecs"]),
        (json!({ "interval": 60 }), vec!["interval", "intervalSecs"]),
        (json!([]), vec!["body"]),
    ] {
        let (status, body) = put(bad.clone()).await;
        assert_eq!((status, bad_fields(&body)), (400, named.iter().map(|f| f.to_string()).collect()), "{bad}: {body}");
    }
    assert_eq!(app.get("/api/payments/sync").await.1["intervalSecs"], 3600, "refusals change nothing");

    // Staff who are not admins may look and sync, not reschedule.
    let token = app.staff_token().await;
    let as_staff = client().put(format!("{}/api/payments/sync", app.base)).bearer_auth(&token);
    let refused = as_staff.json(&json!({ "intervalSecs": 60 })).send().await.unwrap();
    // Not allowed (403), which a client tells from signed out (401).
    assert_eq!(refused.status(), 403);
    let looked = client().get(format!("{}/api/payments/sync", app.base)).bearer_auth(&token).send().await.unwrap();
    assert_eq!(looked.status(), 200);

    let entries = app.core.audit.list(50, None).await.unwrap();
    assert!(entries.iter().any(|e| e.action == "settings.sync_interval"), "no audit entry for the change");
}

#[tokio::test]
async fn a_chosen_interval_outlives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    {
        let core = memory_core(dir.path()).await;
        core.payments.set_sync_interval(&Actor::Cli, 900).await.unwrap();
    }
    // A long-running core (as the desktop app and `serve`) takes it at start.
    let mut config = staffroom::config::Config::new(dir.path());
    on_test_database(&mut config);
    config.secret_backend = staffroom::secrets::SecretBackend::Memory;
    config.long_running = true;
    let core = staffroom::open(config).await.unwrap();
    assert_eq!(core.payments.sync_status().await.unwrap().interval_secs, 900);
}

/// Marks the cached catalogue as read long ago, so the next product list refreshes it.
async fn age_the_catalogue(app: &SandboxApp) {
    let old = "UPDATE sync_state SET synced_at = '2000-01-01T00:00:00.000Z' WHERE resource = 'products'";
    execute_sql(app.data_dir(), old).await;
}

#[tokio::test]
async fn product_lists_asked_for_together_read_an_old_catalogue_once() {
    let app = SandboxApp::start().await;
    app.core.payments.sync_all().await.unwrap();

    // What one refresh costs in provider requests.
    age_the_catalogue(&app).await;
    let before = app.simulator().request_count();
    assert_eq!(app.get("/api/payments/products").await.0, 200);
    let one_refresh = app.simulator().request_count() - before;
    assert!(one_refresh >= 2, "a refresh reads products and variants ({one_refresh} requests)");

    // Eight lists at once (a person paging quickly, the overview, the sync) share one refresh.
    age_the_catalogue(&app).await;
    let before = app.simulator().request_count();
    let paths: Vec<String> = (1..=8).map(|page| format!("/api/payments/products?page={page}&limit=5")).collect();
    for (status, body) in futures::future::join_all(paths.iter().map(|path| app.get(path))).await {
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["meta"]["stale"], false, "{body}");
    }
    assert_eq!(app.simulator().request_count() - before, one_refresh);
}

#[tokio::test]
async fn subscription_lists_asked_for_before_the_first_sync_make_it_once() {
    let requests_for = |core: &staffroom::Core| staffroom::sandbox::simulators(core).unwrap().payments.request_count();
    let all = staffroom::payments::ops::ListSubscriptionsRequest::default();
    // Sandbox cores that do not sync in the background, so the first list makes the first sync.

    let dir = tempfile::tempdir().unwrap();
    let alone = open_core(dir.path(), true, false).await;
    let before = requests_for(&alone);
    assert_eq!(alone.payments.list_subscriptions(&all).await.unwrap().meta.total_items, 245);
    let one_sync = requests_for(&alone) - before;
    assert!(one_sync >= 3, "245 subscriptions are 3 pages ({one_sync} requests)");

    let dir = tempfile::tempdir().unwrap();
    let core = open_core(dir.path(), true, false).await;
    let before = requests_for(&core);
    let lists = (0..4).map(|_| core.payments.list_subscriptions(&all));
    for list in futures::future::join_all(lists).await {
        assert_eq!(list.unwrap().meta.total_items, 245);
    }
    assert_eq!(requests_for(&core) - before, one_sync);
}

#[tokio::test]
async fn the_first_background_sync_waits_as_asked_once_the_cache_has_been_synced() {
    // Long-running sandbox cores on one data dir, as the desktop opens them (it waits 3 s).
    let dir = tempfile::tempdir().unwrap();
    let open = |wait: u64| {
        let mut config = staffroom::config::Config::new(dir.path());
        on_test_database(&mut config);
        config.sandbox = true;
        config.long_running = true;
        config.secret_backend = staffroom::secrets::SecretBackend::Memory;
        config.payments.first_sync_after = std::time::Duration::from_secs(wait);
        staffroom::open(config)
    };
    let requests_for = |core: &staffroom::Core| staffroom::sandbox::simulators(core).unwrap().payments.request_count();
    // How long after `started` the sync first asked the provider (it then waits for the end).
    let synced_after = |core: staffroom::Core, started: std::time::Instant| async move {
        while requests_for(&core) == 0 {
            assert!(started.elapsed() < std::time::Duration::from_secs(60), "the background sync never came");
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        let asked = started.elapsed();
        // Let it finish (the status lists four resources; the sync reads three more after them),
        // so the cache counts as synced and nothing it records comes after the test's changes.
        let done = |status: staffroom::payments::sync::SyncStatus| {
            !status.running && status.resources.iter().all(|r| r.synced_at.is_some())
        };
        while !done(core.payments.sync_status().await.unwrap()) {
            assert!(started.elapsed() < std::time::Duration::from_secs(60), "the background sync never finished");
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        asked
    };

    // Never synced: within a second, whatever the wait asked (not every list syncs on its own).
    let started = std::time::Instant::now();
    let first = open(600).await.unwrap();
    let asked = synced_after(first, started).await;
    assert!(asked < std::time::Duration::from_secs(3), "a cache never synced waited {asked:?}");

    // Synced before: the next start shows the cache and syncs only once the wait is over. (A
    // team's replicas skip a sync another made less than half an interval ago: make it old.)
    execute_sql(dir.path(), "UPDATE sync_state SET attempted_at = '2000-01-01T00:00:00.000Z'").await;
    let started = std::time::Instant::now();
    let later = open(4).await.unwrap();
    // Most of the wait: no request yet (the background task has had three seconds to run).
    tokio::time::sleep_until((started + std::time::Duration::from_secs(3)).into()).await;
    assert_eq!(requests_for(&later), 0, "synced before its wait was over");
    let took = synced_after(later, started).await;
    assert!(took >= std::time::Duration::from_secs(4), "synced after {took:?}");
}

#[tokio::test]
async fn the_first_background_sync_waits_for_a_list_s_own_catch_up_then_reads_the_whole_store() {
    // A first launch: nothing synced, and a subscription list (which catches up on the
    // subscriptions alone) is still reading when the background sync's moment comes. Giving its
    // turn up then left orders and customers unsynced until the next interval.
    let dir = tempfile::tempdir().unwrap();
    let mut config = core_config(dir.path(), true, true);
    config.payments.first_sync_after = std::time::Duration::from_secs(600);
    let started = std::time::Instant::now();
    let core = staffroom::open(config).await.unwrap();
    let simulator = staffroom::sandbox::simulators(&core).unwrap().payments.clone();
    // 245 subscriptions are 3 pages: at 700 ms each the list holds the sync's turn for about
    // 2 s, across the background sync's moment (at most a second after the start).
    simulator.set_faults(Faults { latency_ms: 700, ..Faults::default() });
    let all = staffroom::payments::ops::ListSubscriptionsRequest::default();
    assert_eq!(core.payments.list_subscriptions(&all).await.unwrap().meta.total_items, 245);
    assert!(
        started.elapsed() > std::time::Duration::from_secs(1),
        "the list ended before the background sync's moment"
    );
    simulator.set_faults(Faults::default());

    let orders_synced =
        || async { core.payments.sync_status().await.unwrap().resources.iter().all(|r| r.synced_at.is_some()) };
    while !orders_synced().await {
        assert!(started.elapsed() < std::time::Duration::from_secs(60), "the whole store was never synced");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// A whole sync reads in bulk (DECISIONS, "Bulk reads leave a quarter of the provider's rate to
/// staff"): a product opened while a sync runs at the rate limit is answered at once, not in
/// turn with the sync's requests. The limit is scaled down to 240 per 72 s, bursts of 16 (a
/// request every 300 ms), so a wait behind the sync would cost two of those at least.
#[tokio::test]
async fn a_product_opened_while_a_sync_runs_at_the_limit_does_not_wait_for_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = core_config(dir.path(), true, false);
    let rate = staffroom::payments::client::RateLimit { requests: 240, period: Duration::from_secs(72), burst: 16 };
    config.payments.client.rate_limit = rate;
    let core = staffroom::open(config).await.unwrap();
    let requests = || staffroom::sandbox::simulators(&core).unwrap().payments.request_count();

    let sync = tokio::spawn({
        let core = core.clone();
        async move { core.payments.sync_all().await }
    });
    // Past the burst: from here each of the sync's requests waits for the limiter.
    let past_the_burst = async {
        while requests() < 20 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(60), past_the_burst).await.expect("the sync reads the store");
    assert!(!sync.is_finished(), "the sync was still reading when the product was opened");

    let started = std::time::Instant::now();
    let product = core.payments.get_product("1").await.unwrap();
    let waited = started.elapsed();
    println!("the product took {waited:?} while the sync had made {} requests", requests());
    assert_eq!(product.id, "1");
    assert!(waited < Duration::from_millis(300), "the product waited {waited:?} behind the sync");
    // The rest of the sync would take seconds at this rate; what it reads is tested above.
    sync.abort();
}
