//! One store test suite, run against both backends (SPEC section 10): each case below runs once
//! on a real SQLite file and once on a real PostgreSQL database in a throwaway cluster
//! (`common::pg`). A store is ported to PostgreSQL when its cases are here.

mod common;

use std::time::Duration;

use staffroom::audit::NewAuditEntry;
use staffroom::audit::{Audit, AuditAction};
use staffroom::auth::store::Role;
use staffroom::auth::validate::LoginInput;
use staffroom::auth::{Actor, AuthService, LoginError, NewUser};
use staffroom::events::{EventHub, EventKind, Since};
use staffroom::payments::model::{
    format_money, CustomerDto, CustomerStatus, DiscountDto, DiscountRedemptionDto, InvoiceDto, LicenseKeyDto, OrderDto,
    OrderItem, OrderSource, OrderStatus, ProductDto, ProductStatus, SubscriptionDto, SubscriptionStatus, VariantDto,
};
use staffroom::payments::store::{
    like_pattern, CheckoutTerms, CustomerQuery, DaySales, DiscountQuery, InvoiceQuery, LicenseKeyQuery, OrderQuery,
    OrderRecord, OrderSearch, SubscriptionQuery,
};
use staffroom::payments::summary;
use staffroom::secrets::Secret;
use staffroom::store::postgres::Postgres;
use staffroom::store::{Db, Sqlite};
use staffroom::webhooks::{ApplyResult, InboxReader, NewDelivery, Outcome, Stored, WebhookInbox};

/// A signing key both replicas share (base64url of 32 bytes; it guards nothing).
const KEY: &str = "c3RvcmUgc3VpdGU6IGEgMzItYnl0ZSB0ZXN0IGtleSE";
const PASSWORD: &str = "a long and unusual store passphrase";

/// The account service over `db`: as one replica of a team sees it.
fn accounts(db: &Db) -> AuthService {
    let keys = staffroom::auth::token::TokenKeys::from_secret(&Secret::new(KEY)).unwrap();
    AuthService::new(db.clone(), keys, Default::default(), 4, Audit::new(db.clone()))
}

fn login(email: &str, password: &str) -> LoginInput {
    LoginInput { email: email.into(), password: Secret::new(password) }
}

async fn admin(service: &AuthService) -> Actor {
    service.create_first_admin("Ada@Example.com".into(), "Ada".into(), Secret::new(PASSWORD)).await.unwrap();
    let signed_in = service.login(login("ada@example.com", PASSWORD), "10.0.0.1").await.ok().unwrap();
    Actor::Staff(service.authenticate(&signed_in.token).await.unwrap())
}

/// A database of the backend named, fresh and migrated; the guard keeps a SQLite file alive.
async fn open(backend: &str) -> (Option<tempfile::TempDir>, Db) {
    match backend {
        "sqlite" => {
            let dir = tempfile::tempdir().unwrap();
            let db = Db::new(Sqlite::open(dir.path()).unwrap());
            (Some(dir), db)
        }
        _ => (None, Db::new(Postgres::open(&common::pg::cluster().database()).await.unwrap())),
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

on_both_stores!(
    meta_values_are_kept_and_replaced,
    audit_entries_page_newest_first,
    audit_prunes_before_a_cutoff,
    accounts_and_sessions_live_and_end,
    guesses_lock_the_address_and_then_the_account,
    guesses_sent_at_once_cannot_outrun_the_lock,
    a_guess_is_counted_while_a_lock_is_lifted,
    documents_drafts_and_lists_are_kept,
    the_catalogue_is_replaced_searched_and_paged,
    subscriptions_are_replaced_and_filtered,
    subscriptions_are_searched_with_their_plan,
    customers_are_kept_searched_and_found_by_what_changed,
    invoices_are_kept_listed_by_whose_and_refunds_only_grow,
    licence_keys_are_kept_found_and_joined_to_their_order,
    discounts_are_replaced_with_their_redemptions_kept,
    orders_are_numbered_once_each_and_updated,
    orders_are_searched_and_filtered,
    sales_by_day_follow_every_change_of_an_order,
    the_inbox_stores_each_delivery_once_in_order,
    stored_deliveries_apply_once_by_the_order_rules,
    live_events_are_numbered_kept_and_sent,
);

async fn live_events_are_numbered_kept_and_sent(db: Db) {
    let dir = tempfile::tempdir().unwrap();
    let hub = EventHub::start(&*db, dir.path()).await.unwrap();
    let mut live = hub.subscribe();
    assert_eq!(hub.latest().await.unwrap(), 0);
    hub.publish(EventKind::DocumentSaved, &"doc-1");
    hub.publish(EventKind::Webhook, &serde_json::json!({ "kind": "received", "note": "ünï 🧾" }));
    let first = tokio::time::timeout(Duration::from_secs(5), live.recv()).await.unwrap().unwrap();
    let second = tokio::time::timeout(Duration::from_secs(5), live.recv()).await.unwrap().unwrap();
    assert_eq!((first.kind, first.data.as_str()), (EventKind::DocumentSaved, "\"doc-1\""));
    assert!(second.id > first.id);
    assert_eq!(hub.latest().await.unwrap(), second.id);
    let Since::Events(kept) = hub.since(0, 10).await.unwrap() else { panic!("no reset from 0") };
    assert_eq!(kept.iter().map(|e| e.id).collect::<Vec<_>>(), [first.id, second.id]);
    assert_eq!(kept[1].data, r#"{"kind":"received","note":"ünï 🧾"}"#);
    let Since::Events(after_first) = hub.since(first.id, 10).await.unwrap() else { panic!() };
    assert_eq!(after_first.len(), 1);
    assert_eq!(
        hub.since(second.id + 50, 10).await.unwrap(),
        Since::Reset { latest: second.id },
        "not an id given here"
    );
}

fn event(body: serde_json::Value) -> staffroom::webhooks::WebhookEvent {
    staffroom::webhooks::payload::parse(&body, None).unwrap()
}

fn order_event(name: &str, status: &str, minute: u32, subtotal: i64) -> staffroom::webhooks::WebhookEvent {
    event(serde_json::json!({
        "meta": {"event_name": name, "custom_data": {"order_id": "o-local"}},
        "data": {"type": "orders", "id": "9001", "attributes": {
            "store_id": 1, "status": status, "total": 2380, "subtotal": subtotal, "currency": "EUR",
            "user_email": "kim@example.com", "customer_id": 77,
            "first_order_item": {"product_id": 1, "variant_id": 11},
            "created_at": "2026-11-23T10:01:00.000000Z", "updated_at": format!("2026-11-23T10:{minute:02}:00.000000Z")
        }}
    }))
}

/// Stores `events` as deliveries and applies them as a group: (inbox id, outcome) of each.
async fn store_and_apply(db: &Db, events: Vec<staffroom::webhooks::WebhookEvent>) -> Vec<(i64, String)> {
    let inbox = WebhookInbox::open(db).await.unwrap();
    let mut group = Vec::new();
    for (n, event) in events.into_iter().enumerate() {
        let mut stored = delivery(&format!("{}-{n}-{}", event.name, uuid::Uuid::new_v4()));
        stored.event_name = event.name.clone();
        let Stored::New(id) = inbox.store(stored).await.unwrap() else { panic!("new") };
        group.push((id, event));
    }
    let applier = staffroom::payments::apply::PaymentsApplier::new(db.clone());
    let applied = staffroom::webhooks::EventApplier::apply_stored(&applier, &group).await.unwrap();
    applied.into_iter().map(|(id, result)| (id, result.outcome.to_string())).collect()
}

async fn stored_deliveries_apply_once_by_the_order_rules(db: Db) {
    let mut local = order("o-local", "2026-11-23T10:00:00Z");
    local.dto.variant_id = "11".into();
    local.dto.currency = "EUR".into();
    db.insert_order(local).await.unwrap();

    let outcomes = store_and_apply(
        &db,
        vec![
            order_event("order_created", "pending", 1, 1999),
            order_event("order_paid", "paid", 3, 1999),
            // Older than what is cached now: recorded, not applied.
            order_event("order_updated", "pending", 2, 1999),
            event(serde_json::json!({"meta": {"event_name": "subscription_payment_success"},
                "data": {"type": "subscription-invoices", "id": "70",
                         "attributes": {"subscription_id": 501, "status": "paid", "updated_at": "2026-11-23T10:04:00Z"}}})),
            event(serde_json::json!({"meta": {"event_name": "subscription_payment_failed"},
                "data": {"type": "subscription-invoices", "id": "69",
                         "attributes": {"subscription_id": 501, "status": "failed", "updated_at": "2026-11-23T09:00:00Z"}}})),
            event(serde_json::json!({"meta": {"event_name": "license_key_created"},
                "data": {"type": "license-keys", "id": "5", "attributes": {}}})),
        ],
    )
    .await;
    let words: Vec<&str> = outcomes.iter().map(|(_, o)| o.split(':').next().unwrap()).collect();
    assert_eq!(words, ["applied", "applied", "stale", "applied", "stale", "ignored"], "{outcomes:?}");
    // Each payment event's invoice is kept as it tells it, the stale payment's too (it is its own).
    let status = |id: &'static str| {
        let db = db.clone();
        async move { db.invoice(id.into()).await.unwrap().map(|i| (i.subscription_id, i.status)) }
    };
    assert_eq!(status("70").await, Some(("501".into(), "paid".into())));
    assert_eq!(status("69").await, Some(("501".into(), "failed".into())));
    // A refund told before the payment it refunds changes nothing, and says so; so does a
    // licence key older than the one kept.
    let key = |minute: u32| {
        event(serde_json::json!({"meta": {"event_name": "license_key_updated"},
            "data": {"type": "license-keys", "id": "5", "attributes": {"key_short": "XXXX-8f9c98a48abe",
                     "status": "active", "updated_at": format!("2026-11-23T10:{minute:02}:00Z")}}}))
    };
    let late = store_and_apply(
        &db,
        vec![
            event(serde_json::json!({"meta": {"event_name": "subscription_payment_refunded"},
                "data": {"type": "subscription-invoices", "id": "70",
                         "attributes": {"subscription_id": 501, "status": "refunded", "updated_at": "2026-11-23T10:01:00Z"}}})),
            key(30),
            key(20),
        ],
    )
    .await;
    let words: Vec<&str> = late.iter().map(|(_, o)| o.as_str()).collect();
    assert_eq!(
        words,
        ["stale: older than the cached invoice", "applied", "stale: older than the cached licence key"],
        "{late:?}"
    );
    assert_eq!(status("70").await, Some(("501".into(), "paid".into())));
    let paid = db.order("o-local".into()).await.unwrap().unwrap();
    assert_eq!(
        (paid.dto.status, paid.dto.total, paid.dto.provider_order_id.as_deref()),
        (OrderStatus::Paid, 2380, Some("9001"))
    );
    let reader = InboxReader::new(db.clone());
    assert!(reader.unapplied(10).await.unwrap().is_empty());
    assert_eq!(reader.for_order("o-local").await.unwrap().len(), 3);

    // A payment that does not match the checkout (another subtotal) holds a new order for review.
    let mut second = order("o-review", "2026-11-23T11:00:00Z");
    second.dto.variant_id = "11".into();
    second.dto.currency = "EUR".into();
    db.insert_order(second).await.unwrap();
    let mut mismatched = order_event("order_created", "paid", 30, 1);
    mismatched.custom_data =
        Some(serde_json::Map::from_iter([("order_id".to_string(), serde_json::json!("o-review"))]));
    mismatched.resource_id = "9002".into();
    let outcomes = store_and_apply(&db, vec![mismatched]).await;
    assert!(outcomes[0].1.starts_with("held for review"), "{outcomes:?}");
    let held = db.order("o-review".into()).await.unwrap().unwrap();
    assert_eq!(held.dto.status, OrderStatus::Pending);
    let audit = Audit::new(db.clone()).list(10, None).await.unwrap();
    assert!(
        audit.iter().any(|e| e.action == "payments.order_review" && e.target.as_deref() == Some("o-review")),
        "{audit:?}"
    );
}

fn delivery(key: &str) -> NewDelivery {
    NewDelivery {
        dedupe_key: key.into(),
        webhook_id: Some(format!("wh-{key}")),
        event_name: "order_created".into(),
        resource_type: "orders".into(),
        resource_id: key.into(),
        // Stored byte for byte: a NUL and a byte that is not UTF-8 too.
        body: [format!(r#"{{"k":"{key}"}}"#).as_bytes(), &[0, 0xff]].concat(),
        received_at: "2026-11-23T10:00:00Z".into(),
    }
}

async fn the_inbox_stores_each_delivery_once_in_order(db: Db) {
    let inbox = WebhookInbox::open(&db).await.unwrap();
    let reader = InboxReader::new(db.clone());
    // Sent at once, so that they share commits; one key three times.
    let keys = ["a", "b", "a", "c", "d", "a"];
    let stored = futures::future::try_join_all(keys.iter().map(|k| inbox.store(delivery(k)))).await.unwrap();
    let new: Vec<i64> = stored.iter().filter_map(|s| if let Stored::New(id) = s { Some(*id) } else { None }).collect();
    assert_eq!(new.len(), 4, "{stored:?}");
    let first_a = match stored[0] {
        Stored::New(id) => id,
        other => panic!("the first a is new: {other:?}"),
    };
    assert_eq!((stored[2], stored[5]), (Stored::Duplicate(first_a), Stored::Duplicate(first_a)));
    assert_eq!(
        inbox.store(delivery("b")).await.unwrap(),
        Stored::Duplicate(match stored[1] {
            Stored::New(id) => id,
            other => panic!("{other:?}"),
        })
    );
    assert_eq!(reader.count().await.unwrap(), 4);

    // Unapplied in the order they were stored, with their bodies byte for byte.
    let pending = reader.unapplied(10).await.unwrap();
    assert!(pending.windows(2).all(|w| w[0].0 < w[1].0));
    assert_eq!(pending[0].1, delivery("a").body);
    let applied = ApplyResult { outcome: Outcome::Applied(None), order_id: Some("o1".into()), subscription_id: None };
    let stale = ApplyResult {
        outcome: Outcome::Stale("older than the cached order".into()),
        order_id: Some("o1".into()),
        subscription_id: None,
    };
    reader.mark_applied(&[(pending[0].0, applied), (pending[1].0, stale)]).await.unwrap();
    assert_eq!(reader.unapplied(10).await.unwrap().len(), 2);
    let of_order = reader.for_order("o1").await.unwrap();
    assert_eq!(
        of_order.iter().map(|e| e.outcome.as_deref().unwrap()).collect::<Vec<_>>(),
        ["applied", "stale: older than the cached order"]
    );
    assert!(of_order.iter().all(|e| e.verified && e.applied_at.is_some()));
    let newest = reader.recent(2).await.unwrap();
    assert_eq!(newest.iter().map(|e| e.resource_id.as_str()).collect::<Vec<_>>(), ["d", "c"]);
    assert_eq!(reader.get(pending[1].0).await.unwrap().unwrap().resource_id, "b");
    assert!(reader.get(-1).await.unwrap().is_none());
}

fn product(id: &str, name: &str, status: ProductStatus) -> ProductDto {
    ProductDto {
        id: id.into(),
        name: name.into(),
        slug: name.to_lowercase().replace(' ', "-"),
        price: 1999,
        currency: "EUR".into(),
        price_formatted: format_money(1999, "EUR"),
        status,
        created_at: "2026-01-01T00:00:00Z".into(),
        updated_at: "2026-01-02T00:00:00Z".into(),
        variants: None,
    }
}

fn variant(id: &str, name: &str) -> VariantDto {
    VariantDto {
        id: id.into(),
        name: name.into(),
        price: 1999,
        status: "published".into(),
        is_subscription: id.ends_with('s'),
        interval: id.ends_with('s').then(|| "month".into()),
        interval_count: id.ends_with('s').then_some(1),
    }
}

async fn the_catalogue_is_replaced_searched_and_paged(db: Db) {
    let products = vec![
        product("1", "Zine 100% cotton", ProductStatus::Published),
        product("2", "Ärmel_schoner", ProductStatus::Published),
        product("3", "Alpha draft", ProductStatus::Draft),
        product("4", "Beta", ProductStatus::Published),
    ];
    let variants = vec![("1".to_string(), variant("11", "Small"), 1), ("1".to_string(), variant("10s", "Monthly"), 0)];
    db.replace_products(products.clone(), variants, "t1".into()).await.unwrap();

    let (all, total) = db.list_products(None, None, 1, 10).await.unwrap();
    let names: Vec<&str> = all.iter().map(|p| p.name.as_str()).collect();
    assert_eq!((names, total), (vec!["Alpha draft", "Beta", "Zine 100% cotton", "Ärmel_schoner"], 4), "byte order");
    let (page, total) = db.list_products(Some("published"), None, 2, 2).await.unwrap();
    assert_eq!((page.iter().map(|p| p.id.as_str()).collect::<Vec<_>>(), total), (vec!["2"], 3));
    // The search is a literal substring: % and _ match only themselves.
    let (found, _) = db.list_products(None, Some("0%".into()), 1, 10).await.unwrap();
    assert_eq!(found.iter().map(|p| p.id.as_str()).collect::<Vec<_>>(), ["1"]);
    let (found, _) = db.list_products(None, Some("l_s".into()), 1, 10).await.unwrap();
    assert_eq!(found.iter().map(|p| p.id.as_str()).collect::<Vec<_>>(), ["2"]);
    let (found, _) = db.list_products(None, Some("_".into()), 1, 10).await.unwrap();
    assert_eq!(found.len(), 1);

    let one = db.product("1".into()).await.unwrap().unwrap();
    let variant_ids: Vec<&str> = one.variants.as_ref().unwrap().iter().map(|v| v.id.as_str()).collect();
    assert_eq!(variant_ids, ["10s", "11"], "in the provider's order");
    assert!(one.variants.as_ref().unwrap()[0].is_subscription);
    assert_eq!(one.price_formatted, format_money(1999, "EUR"));

    // A detail fetch replaces that product's variants; a complete catalogue replaces all.
    let mut detailed = product("1", "Zine 100% cotton", ProductStatus::Published);
    detailed.variants = Some(vec![variant("12", "Large")]);
    db.upsert_product(detailed, "t2".into()).await.unwrap();
    let one = db.product("1".into()).await.unwrap().unwrap();
    assert_eq!(one.variants.unwrap().iter().map(|v| v.id.as_str()).collect::<Vec<_>>(), ["12"]);
    db.replace_products(vec![product("4", "Beta", ProductStatus::Published)], vec![], "t3".into()).await.unwrap();
    assert_eq!(db.list_products(None, None, 1, 10).await.unwrap().1, 1);
    assert!(db.product("1".into()).await.unwrap().is_none());
}

fn subscription(id: &str, customer: &str, status: SubscriptionStatus, created: &str) -> SubscriptionDto {
    SubscriptionDto {
        id: id.into(),
        customer_id: customer.into(),
        status,
        provider_status: status.as_str().into(),
        product_id: "1".into(),
        variant_id: "10s".into(),
        renews_at: "2027-01-01T00:00:00Z".into(),
        ends_at: None,
        created_at: created.into(),
        updated_at: created.into(),
        product_name: Some("Zine".into()),
        variant_name: Some("Monthly".into()),
        customer_name: Some("Zoë O'Brien".into()),
        customer_email: Some("zoe@example.com".into()),
        pause_mode: None,
        pause_resumes_at: None,
        last_payment_status: None,
        last_payment_at: None,
        price: None,
        interval: None,
        interval_count: None,
        currency: None,
        payment_processor: Some("stripe".into()),
        card_brand: Some("visa".into()),
        card_last_four: Some("4242".into()),
        update_payment_method_url: None,
        portal_url: None,
    }
}

/// The first page of up to 10 subscriptions `query` asks for, by id.
async fn subscription_ids(db: &Db, query: SubscriptionQuery) -> Vec<String> {
    let (page, total) = db.list_subscriptions(SubscriptionQuery { page: 1, limit: 10, ..query }).await.unwrap();
    assert_eq!(page.len() as u64, total);
    page.into_iter().map(|s| s.id).collect()
}

async fn subscriptions_are_searched_with_their_plan(db: Db) {
    let mut plan = product("1", "Zine", ProductStatus::Published);
    let mut yearly = variant("10y", "Yearly");
    (yearly.price, yearly.is_subscription, yearly.interval, yearly.interval_count) =
        (9900, true, Some("year".into()), Some(1));
    plan.variants = Some(vec![yearly.clone()]);
    db.replace_products(vec![plan], vec![("1".into(), yearly, 0)], "t0".into()).await.unwrap();
    let mut all = Vec::new();
    for (id, provider, name, email, variant) in [
        ("s1", "past_due", "Zoë O'Brien", "zoe@example.com", "10y"),
        ("s2", "on_trial", "Ada Lovelace", "ADA@example.com", "10s"),
        ("s3", "unpaid", "Ben 100%_sure", "ben@example.com", "10y"),
        ("s4", "cancelled", "Ada Byron", "byron@example.com", "10s"),
    ] {
        let mut s = subscription(id, "c1", staffroom::payments::model::seed_status(provider), "2026-01-01T00:00:00Z");
        s.created_at = format!("2026-01-0{}T00:00:00Z", &id[1..]);
        (s.provider_status, s.customer_name, s.customer_email) =
            (provider.into(), Some(name.into()), Some(email.into()));
        s.variant_id = variant.into();
        if id == "s3" {
            (s.payment_processor, s.card_brand, s.card_last_four) = (Some("paypal".into()), None, None);
        }
        all.push(s);
    }
    db.replace_subscriptions(all, "t1".into(), "t0".into()).await.unwrap();
    let search = |text: &str| SubscriptionQuery { search: Some(like_pattern(text)), ..Default::default() };
    assert_eq!(subscription_ids(&db, search("ada")).await, ["s4", "s2"], "name and e-mail, any case");
    assert_eq!(subscription_ids(&db, search("zoë")).await, ["s1"]);
    assert_eq!(subscription_ids(&db, search("100%_")).await, ["s3"], "% and _ are themselves");
    let provider = |status| SubscriptionQuery { provider_status: Some(status), ..Default::default() };
    assert_eq!(subscription_ids(&db, provider("past_due")).await, ["s1"]);
    let live = SubscriptionQuery { status: Some(SubscriptionStatus::Active), ..Default::default() };
    assert_eq!(subscription_ids(&db, live).await, ["s3", "s2", "s1"], "every live status is active");
    let product =
        SubscriptionQuery { product_id: Some("1".into()), search: Some(like_pattern("ada")), ..Default::default() };
    assert_eq!(subscription_ids(&db, product).await, ["s4", "s2"], "filters add up");

    let zoe = db.subscription("s1".into()).await.unwrap().unwrap();
    assert_eq!(
        (zoe.price, zoe.interval.as_deref(), zoe.interval_count),
        (Some(9900), Some("year"), Some(1)),
        "the plan's"
    );
    assert_eq!(zoe.currency.as_deref(), Some("EUR"), "the store's, as its products are");
    assert_eq!((zoe.card_brand.as_deref(), zoe.card_last_four.as_deref()), (Some("visa"), Some("4242")));
    let ben = db.subscription("s3".into()).await.unwrap().unwrap();
    assert_eq!((ben.payment_processor.as_deref(), ben.card_brand), (Some("paypal"), None));
    let ada = db.subscription("s2".into()).await.unwrap().unwrap();
    assert_eq!(ada.price, None, "a plan no longer in the catalogue has no price");
}

fn customer(id: &str, name: &str, email: &str, status: &str, created: &str) -> CustomerDto {
    CustomerDto {
        id: id.into(),
        name: name.into(),
        email: email.into(),
        status: status.into(),
        country: Some("DE".into()),
        created_at: created.into(),
        updated_at: created.into(),
        total_revenue: 4200,
        mrr: 900,
        currency: "USD".into(),
        portal_url: None,
    }
}

async fn customers_are_kept_searched_and_found_by_what_changed(db: Db) {
    let all = vec![
        customer("1001", "Ada Lovelace", "ada@example.com", "subscribed", "2026-01-01T00:00:00Z"),
        customer("1002", "Ben Okafor", "BEN@example.com", "unsubscribed", "2026-02-01T00:00:00Z"),
        customer("1003", "Zoë 100%_sure", "zoe@example.com", "bounced", "2026-03-01T00:00:00Z"),
    ];
    db.upsert_customers(all.clone(), "t1".into()).await.unwrap();
    let ids = |query: CustomerQuery| {
        let db = db.clone();
        async move {
            let (page, total) = db.list_customers(CustomerQuery { page: 1, limit: 10, ..query }).await.unwrap();
            assert_eq!(page.len() as u64, total);
            page.into_iter().map(|c| c.id).collect::<Vec<_>>()
        }
    };
    let search = |text: &str| CustomerQuery { search: Some(like_pattern(text)), ..Default::default() };
    assert_eq!(ids(CustomerQuery::default()).await, ["1003", "1002", "1001"], "newest first");
    assert_eq!(ids(search("ben@")).await, ["1002"], "e-mail, any case");
    assert_eq!(ids(search("LOVELACE")).await, ["1001"], "name, any case");
    assert_eq!(ids(search("100%_")).await, ["1003"], "% and _ are themselves");
    assert!(ids(search("50%")).await.is_empty());
    let bounced = CustomerQuery { status: Some(CustomerStatus::Bounced), ..Default::default() };
    assert_eq!(ids(bounced).await, ["1003"]);
    let (second, total) = db.list_customers(CustomerQuery { page: 2, limit: 2, ..Default::default() }).await.unwrap();
    assert_eq!((second.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(), total), (vec!["1001"], 3));
    assert_eq!(db.customer("1002".into()).await.unwrap().unwrap(), all[1]);
    assert!(db.customer("9999".into()).await.unwrap().is_none());

    // A newer reading replaces the figures; an older one (a page read before a refund) does not.
    let mut refunded = all[0].clone();
    (refunded.total_revenue, refunded.updated_at) = (1200, "2026-05-01T00:00:00Z".into());
    db.upsert_customers(vec![refunded.clone()], "t2".into()).await.unwrap();
    db.upsert_customers(vec![all[0].clone()], "t3".into()).await.unwrap();
    assert_eq!(db.customer("1001".into()).await.unwrap().unwrap(), refunded);

    // Whose orders or subscriptions changed since a moment: their figures may have.
    let mut o = order("t-o1", "2026-05-01T00:00:00Z");
    (o.dto.customer_id, o.provider_updated_at) = (Some("1002".into()), Some("2026-05-01T00:00:00Z".into()));
    db.insert_order(o).await.unwrap();
    let mut s = subscription("t-s1", "1003", SubscriptionStatus::Active, "2026-05-02T00:00:00Z");
    s.updated_at = "2026-05-02T00:00:00Z".into();
    db.upsert_subscription(s, "t4".into()).await.unwrap();
    let mut o = order("t-o2", "2026-04-30T12:00:00Z");
    (o.dto.customer_id, o.provider_updated_at) = (Some("1001".into()), Some("2026-04-30T12:00:00Z".into()));
    db.insert_order(o).await.unwrap();
    let mut o = order("t-o3", "2026-05-03T00:00:00Z");
    (o.dto.customer_id, o.provider_updated_at) = (Some("2001".into()), Some("2026-05-03T00:00:00Z".into()));
    db.insert_order(o).await.unwrap();
    let mut touched = db.customers_touched_since("2026-04-30T00:00:00Z".into()).await.unwrap();
    touched.sort();
    assert_eq!(touched, ["1002", "1003", "2001"], "1001 was read after their order changed; 2001 never was");
    assert!(db.customers_touched_since("2099-01-01T00:00:00Z".into()).await.unwrap().is_empty());
}

async fn subscriptions_are_replaced_and_filtered(db: Db) {
    let all = vec![
        subscription("s1", "c1", SubscriptionStatus::Active, "2026-01-01T00:00:00Z"),
        subscription("s2", "c1", SubscriptionStatus::Cancelled, "2026-02-01T00:00:00Z"),
        subscription("s3", "c2", SubscriptionStatus::Active, "2026-03-01T00:00:00Z"),
        subscription("s4", "", SubscriptionStatus::Expired, "2026-03-01T00:00:00Z"),
    ];
    db.replace_subscriptions(all.clone(), "t1".into(), "t0".into()).await.unwrap();
    let (newest, total) =
        db.list_subscriptions(SubscriptionQuery { page: 1, limit: 3, ..Default::default() }).await.unwrap();
    assert_eq!((newest.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(), total), (vec!["s4", "s3", "s2"], 4));
    let of_c1 = SubscriptionQuery {
        page: 1,
        limit: 10,
        customer_id: Some("c1".into()),
        status: Some(SubscriptionStatus::Active),
        ..Default::default()
    };
    let (of_c1, total) = db.list_subscriptions(of_c1).await.unwrap();
    assert_eq!((of_c1.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(), total), (vec!["s1"], 1));
    assert_eq!(db.subscription("s3".into()).await.unwrap().unwrap(), all[2]);

    // What the provider no longer lists goes; an action's answer is written over the cache.
    db.replace_subscriptions(all[..2].to_vec(), "t2".into(), "t2".into()).await.unwrap();
    assert!(db.subscription("s3".into()).await.unwrap().is_none());
    let mut paused = all[0].clone();
    paused.pause_mode = Some("void".into());
    db.upsert_subscription(paused.clone(), "t3".into()).await.unwrap();
    assert_eq!(db.subscription("s1".into()).await.unwrap().unwrap(), paused);

    // A sync that began reading at t4: meanwhile a webhook made s5 and changed s2 (at t5). The
    // pages it read know neither, and what it writes at t6 must lose neither.
    let mut expired = all[1].clone();
    expired.status = SubscriptionStatus::Expired;
    db.upsert_subscription(expired.clone(), "t5".into()).await.unwrap();
    let made = subscription("s5", "c3", SubscriptionStatus::Active, "2026-04-01T00:00:00Z");
    db.upsert_subscription(made.clone(), "t5".into()).await.unwrap();
    db.replace_subscriptions(all[1..2].to_vec(), "t6".into(), "t4".into()).await.unwrap();
    assert_eq!(db.subscription("s5".into()).await.unwrap().unwrap(), made, "made while the sync read");
    assert_eq!(db.subscription("s2".into()).await.unwrap().unwrap(), expired, "the webhook's is newer");
    assert!(db.subscription("s1".into()).await.unwrap().is_none(), "no longer listed, and not written since");
}

fn order(id: &str, created: &str) -> OrderRecord {
    OrderRecord {
        dto: OrderDto {
            id: id.into(),
            order_id: String::new(),
            status: OrderStatus::Pending,
            total: 1999,
            currency: "EUR".into(),
            checkout_url: format!("https://shop.example/checkout/{id}"),
            created_at: created.into(),
            email: "buyer@example.com".into(),
            name: Some("Bea Buyer".into()),
            product_id: "1".into(),
            variant_id: "11".into(),
            customer_id: None,
            provider_order_id: None,
            paid_at: None,
            refunded_at: None,
            refunded_amount: 0,
            updated_at: created.into(),
            review: None,
            source: OrderSource::Staffroom,
            provider_status: None,
            order_number: None,
            items: vec![OrderItem {
                product_id: "1".into(),
                variant_id: "11".into(),
                product_name: Some("Planner".into()),
                variant_name: Some("Default".into()),
                quantity: 1,
                price: 1999,
            }],
            subtotal: 1999,
            discount_total: 0,
            tax: 0,
            receipt_url: None,
            events: None,
        },
        provider_updated_at: None,
        currency_rate: None,
        checkout_id: Some(format!("chk-{id}")),
        billing_address: Some(r#"{"country":"DE"}"#.into()),
        metadata: None,
        created_by: Some("ada@example.com".into()),
        expected: Some(CheckoutTerms { store_id: "1".into(), subtotal: 1999, test_mode: true }),
    }
}

/// The whole store's orders (SPEC section 11): search by e-mail, name, receipt number and our
/// reference; filters by status (ours or the provider's), customer, product and time; newest first.
async fn orders_are_searched_and_filtered(db: Db) {
    let mut made = Vec::new();
    for (n, (email, name, provider_status, customer, product)) in [
        ("ada@example.com", "Ada Lovelace", Some("paid"), "c1", "1"),
        ("ben@example.com", "Ben Okafor", Some("refunded"), "c2", "2"),
        ("ADA.second@Example.com", "Ada Müller", Some("partial_refund"), "c1", "2"),
        ("cy@example.com", "Cy 100%_sure", Some("fraudulent"), "c3", "1"),
        ("dee@example.com", "Dee", None, "c4", "1"),
    ]
    .into_iter()
    .enumerate()
    {
        let mut o = order(&format!("q{n}"), &format!("2026-10-0{}T12:00:00Z", n + 1));
        (o.dto.email, o.dto.name, o.dto.customer_id, o.dto.product_id) =
            (email.into(), Some(name.into()), Some(customer.into()), product.into());
        o.dto.provider_status = provider_status.map(str::to_string);
        o.dto.status = match provider_status {
            Some("fraudulent") => OrderStatus::Failed,
            Some(_) => OrderStatus::Paid,
            None => OrderStatus::Pending,
        };
        o.dto.order_number = provider_status.map(|_| 1001 + n as i64);
        o.dto.source = if n == 4 { OrderSource::Staffroom } else { OrderSource::Store };
        made.push(db.insert_order(o).await.unwrap());
    }
    let ids = |query: OrderQuery| {
        let db = db.clone();
        async move {
            let (page, total) = db.list_orders(OrderQuery { page: 1, limit: 10, ..query }).await.unwrap();
            assert_eq!(page.len() as u64, total);
            page.into_iter().map(|o| o.id).collect::<Vec<_>>()
        }
    };
    let search = |text: &str| OrderQuery { search: Some(OrderSearch::new(text)), ..Default::default() };
    assert_eq!(ids(OrderQuery::default()).await, ["q4", "q3", "q2", "q1", "q0"], "newest first");
    assert_eq!(ids(search("ADA")).await, ["q2", "q0"], "e-mail and name, any case");
    assert_eq!(ids(search("okafor")).await, ["q1"]);
    assert_eq!(ids(search("MÜLLER")).await, ["q2"], "any case, beyond ASCII too");
    assert_eq!(ids(search("#1003")).await, ["q2"], "the receipt's number");
    assert_eq!(ids(search("1002")).await, ["q1"]);
    assert_eq!(made[..4], [None; 4], "an order made elsewhere takes no SR- number");
    assert_eq!(ids(search(&format!("sr-{:06}", made[4].unwrap()))).await, ["q4"], "our reference");
    let listed = db.list_orders(OrderQuery { page: 1, limit: 10, ..Default::default() }).await.unwrap().0;
    let labels: Vec<&str> = listed.iter().map(|o| o.order_id.as_str()).collect();
    assert_eq!(labels, [format!("SR-{:06}", made[4].unwrap()).as_str(), "#1004", "#1003", "#1002", "#1001"]);
    assert_eq!(ids(search("100%_")).await, ["q3"], "% and _ are themselves");
    assert!(ids(search("nobody")).await.is_empty());
    let status = |status, provider_status| OrderQuery { status, provider_status, ..Default::default() };
    assert_eq!(ids(status(Some(OrderStatus::Paid), None)).await, ["q2", "q1", "q0"]);
    assert_eq!(ids(status(None, Some("refunded"))).await, ["q1"]);
    assert_eq!(ids(status(Some(OrderStatus::Failed), None)).await, ["q3"]);
    let customer = OrderQuery { customer_id: Some("c1".into()), ..Default::default() };
    assert_eq!(ids(customer).await, ["q2", "q0"]);
    let product =
        OrderQuery { product_id: Some("2".into()), search: Some(OrderSearch::new("ada")), ..Default::default() };
    assert_eq!(ids(product).await, ["q2"], "filters add up");
    let days = OrderQuery {
        from: Some("2026-10-02T00:00:00Z".into()),
        to: Some("2026-10-04T12:00:00Z".into()),
        ..Default::default()
    };
    assert_eq!(ids(days).await, ["q2", "q1"], "from inclusive, to exclusive");
    let (second, total) = db.list_orders(OrderQuery { page: 2, limit: 2, ..Default::default() }).await.unwrap();
    assert_eq!((second.iter().map(|o| o.id.as_str()).collect::<Vec<_>>(), total), (vec!["q2", "q1"], 5));
}

/// The Overview's roll-up of paid orders by day (SPEC section 11) against the orders themselves:
/// orders made paid, unpaid, refunded and re-priced, in three currencies, and
/// ranges of whole days, of parts of days and inside one day.
async fn sales_by_day_follow_every_change_of_an_order(db: Db) {
    // (id, created, status, currency, rate, total): the rates leave no half cent to round.
    let made = [
        ("s0", "2026-10-01T00:00:00Z", OrderStatus::Paid, "USD", None, 1999),
        ("s1", "2026-10-01T23:59:59Z", OrderStatus::Paid, "EUR", Some("1.0812"), 2500),
        ("s2", "2026-10-02T08:00:00Z", OrderStatus::Pending, "USD", None, 900),
        ("s3", "2026-10-02T12:30:00Z", OrderStatus::Paid, "GBP", Some("1.2731"), 4100),
        ("s4", "2026-10-03T05:00:00Z", OrderStatus::Failed, "EUR", Some("1.0812"), 1200),
        ("s5", "2026-10-03T18:00:00Z", OrderStatus::Paid, "USD", Some("1"), 3000),
        ("s6", "2026-10-04T09:15:00Z", OrderStatus::Paid, "EUR", Some("1.0812"), 777),
        ("s7", "2026-10-05T23:00:00Z", OrderStatus::Paid, "USD", None, 5000),
        // Paid beside the unpaid ones, on their days and in their currencies.
        ("s8", "2026-10-02T20:00:00Z", OrderStatus::Paid, "USD", None, 1100),
        ("s9", "2026-10-03T07:00:00Z", OrderStatus::Paid, "EUR", Some("1.0812"), 1300),
    ];
    let mut orders = Vec::new();
    for (id, created, status, currency, rate, total) in made {
        let mut o = order(id, created);
        (o.dto.status, o.dto.currency, o.dto.total, o.currency_rate) =
            (status, currency.into(), total, rate.map(str::to_string));
        db.insert_order(o.clone()).await.unwrap();
        orders.push(o);
    }
    let check = |orders: Vec<OrderRecord>| {
        let db = db.clone();
        async move {
            for (from, to) in [
                ("2026-10-01T00:00:00Z", "2026-10-06T00:00:00Z"),
                ("2026-10-01T12:00:00Z", "2026-10-04T10:00:00Z"),
                ("2026-10-02T10:00:00Z", "2026-10-02T13:00:00Z"),
                ("2026-10-03T00:00:00Z", "2026-10-04T09:15:00Z"),
            ] {
                let got = db.daily_sales(summary::span(from, to), "USD".into()).await.unwrap();
                assert_eq!(got, expected_sales(&orders, from, to), "{from} to {to}");
            }
        }
    };
    check(orders.clone()).await;

    // Paid, failed, refunded in part, re-priced and charged in another currency.
    let changes: [(usize, fn(&mut OrderRecord)); 6] = [
        (2, |o| o.dto.status = OrderStatus::Paid),
        (3, |o| o.dto.status = OrderStatus::Failed),
        (1, |o| o.dto.refunded_amount = 1250),
        (5, |o| (o.dto.total, o.dto.refunded_amount) = (3500, 3500)),
        (6, |o| (o.dto.currency, o.currency_rate) = ("USD".into(), None)),
        (4, |o| o.dto.status = OrderStatus::Paid),
    ];
    for (n, change) in changes {
        change(&mut orders[n]);
        db.update_order_from_provider(orders[n].clone()).await.unwrap();
        check(orders.clone()).await;
    }
}

/// What the summary's days hold, summed in Rust from the orders paid in [`from`, `to`).
fn expected_sales(orders: &[OrderRecord], from: &str, to: &str) -> Vec<DaySales> {
    let in_usd = |o: &OrderRecord, amount: i64| match (&o.currency_rate, o.dto.currency.as_str()) {
        (Some(rate), currency) if currency != "USD" => (amount as f64 * rate.parse::<f64>().unwrap()).round() as i64,
        _ => amount,
    };
    let mut days = std::collections::BTreeMap::<String, DaySales>::new();
    let at = |t: &str| chrono::DateTime::parse_from_rfc3339(t).unwrap();
    for o in orders.iter().filter(|o| o.dto.status == OrderStatus::Paid) {
        let created = at(&o.dto.created_at);
        if created < at(from) || created >= at(to) {
            continue;
        }
        let date = o.dto.created_at[..10].to_string();
        let day = days.entry(date.clone()).or_insert(DaySales { date, orders: 0, gross: 0, refunds: 0 });
        day.orders += 1;
        day.gross += in_usd(o, o.dto.total);
        day.refunds += in_usd(o, o.dto.refunded_amount);
    }
    days.into_values().collect()
}

async fn orders_are_numbered_once_each_and_updated(db: Db) {
    // Orders made at once (on a team, by several replicas) each take their own number.
    let made = (0..16).map(|n| db.insert_order(order(&format!("o{n:02}"), &format!("2026-11-23T10:00:{n:02}Z"))));
    let mut numbers = futures::future::try_join_all(made).await.unwrap();
    numbers.sort();
    assert_eq!(numbers, (1..=16).map(Some).collect::<Vec<_>>());

    let stored = db.order("o03".into()).await.unwrap().unwrap();
    assert_eq!(stored.expected, order("o03", "").expected);
    assert_eq!((stored.checkout_id.as_deref(), stored.dto.email.as_str()), (Some("chk-o03"), "buyer@example.com"));
    let number: i64 = stored.dto.order_id.strip_prefix("SR-").unwrap().parse().unwrap();
    assert!((1..=16).contains(&number) && stored.dto.order_id.len() == 9, "{}", stored.dto.order_id);
    let (page, total) = db.list_orders(OrderQuery { page: 1, limit: 5, ..Default::default() }).await.unwrap();
    assert_eq!((page.len(), total), (5, 16));
    assert!(page.windows(2).all(|w| w[0].created_at > w[1].created_at), "newest first");
    assert_eq!(stored.dto.items, order("o03", "").dto.items, "the items are kept");
    assert_eq!(db.pending_orders("2026-11-23T10:00:10Z".into()).await.unwrap().len(), 6);

    // The provider's view: paid, linked to its order id.
    let mut paid = stored.clone();
    paid.dto.status = OrderStatus::Paid;
    paid.dto.provider_order_id = Some("ls-900".into());
    paid.dto.paid_at = Some("2026-11-23T10:05:00Z".into());
    paid.dto.provider_status = Some("paid".into());
    paid.dto.order_number = Some(1042);
    (paid.dto.total, paid.dto.tax, paid.dto.discount_total) = (2199, 400, 200);
    paid.dto.receipt_url = Some("https://shop.example/receipt/1042".into());
    paid.currency_rate = Some("1.08000000".into());
    db.update_order_from_provider(paid).await.unwrap();
    let found = db.order_by_provider_id("ls-900".into()).await.unwrap().unwrap();
    assert_eq!((found.dto.id.as_str(), found.dto.status), ("o03", OrderStatus::Paid));
    assert_eq!((found.dto.order_number, found.dto.subtotal, found.dto.tax), (Some(1042), 1999, 400));
    assert_eq!(
        (found.dto.receipt_url.as_deref(), found.currency_rate.as_deref()),
        (Some("https://shop.example/receipt/1042"), Some("1.08000000"))
    );
    assert_eq!(db.pending_orders("2026-01-01T00:00:00Z".into()).await.unwrap().len(), 15);

    // Sync state: a failed attempt keeps the last success.
    assert_eq!(db.sync_state("products").await.unwrap(), Default::default());
    db.record_sync("products", "t1".into(), None).await.unwrap();
    db.record_sync("products", "t2".into(), Some("Lemon Squeezy did not answer in time".into())).await.unwrap();
    let state = db.sync_state("products").await.unwrap();
    assert_eq!((state.synced_at.as_deref(), state.attempted_at.as_deref()), (Some("t1"), Some("t2")));
    assert_eq!(state.error.as_deref(), Some("Lemon Squeezy did not answer in time"));
    db.record_sync("products", "t3".into(), None).await.unwrap();
    let state = db.sync_state("products").await.unwrap();
    assert_eq!((state.synced_at.as_deref(), state.error), (Some("t3"), None));
}

fn document(revision: &str, text: &str) -> staffroom::docs::model::Document {
    serde_json::from_value(serde_json::json!({
        "documentId": "doc001sbxA1b2C3d4E5f6G7h8",
        "title": "Plan ✍️ 2027",
        "revisionId": revision,
        "canEdit": true,
        "body": { "content": [{ "paragraph": { "elements": [{ "textRun": { "content": text } }] } }] },
    }))
    .unwrap()
}

async fn documents_drafts_and_lists_are_kept(db: Db) {
    let id = "doc001sbxA1b2C3d4E5f6G7h8".to_string();
    assert!(db.cached_document(id.clone()).await.unwrap().is_none());
    db.keep_document(document("r1", "first\n"), "2026-11-23T10:00:00Z".into()).await.unwrap();
    db.keep_document(document("r2", "second: a NUL \u{0} and an astral 𝔘\n"), "2026-11-23T11:00:00Z".into())
        .await
        .unwrap();
    let cached = db.cached_document(id.clone()).await.unwrap().unwrap();
    assert_eq!(
        (cached.document, cached.fetched_at.as_str()),
        (document("r2", "second: a NUL \u{0} and an astral 𝔘\n"), "2026-11-23T11:00:00Z")
    );
    db.forget_document(id.clone()).await.unwrap();
    assert!(db.cached_document(id.clone()).await.unwrap().is_none());

    // Drafts are per staff member and document; a later one replaces the earlier.
    let blocks: Vec<staffroom::docs::planner::EditBlock> =
        serde_json::from_value(serde_json::json!([{ "kind": "paragraph", "text": "edited", "style": "NORMAL_TEXT" }]))
            .unwrap();
    db.keep_draft("u1".into(), document("r1", "a\n"), vec![], "t1".into()).await.unwrap();
    db.keep_draft("u1".into(), document("r2", "b\n"), blocks.clone(), "t2".into()).await.unwrap();
    let (draft, base) = db.draft("u1".into(), id.clone()).await.unwrap().unwrap();
    assert_eq!((draft.base_revision_id.as_str(), draft.blocks, draft.updated_at.as_str()), ("r2", blocks, "t2"));
    assert_eq!(base, document("r2", "b\n"));
    assert!(db.draft("u2".into(), id.clone()).await.unwrap().is_none(), "another member's drafts are apart");
    assert!(db.drop_draft("u1".into(), id.clone()).await.unwrap());
    assert!(!db.drop_draft("u1".into(), id.clone()).await.unwrap());

    // Kept lists are bounded to the most recently read.
    for n in 0..205 {
        db.keep_list(
            format!("list-{n}"),
            format!("{{\"n\":{n}}}"),
            format!("2026-11-23T10:{:02}:{:02}Z", n / 60, n % 60),
        )
        .await
        .unwrap();
    }
    assert_eq!(
        db.cached_list("list-204".into()).await.unwrap(),
        Some(("{\"n\":204}".into(), "2026-11-23T10:03:24Z".into()))
    );
    assert!(db.cached_list("list-4".into()).await.unwrap().is_none(), "the oldest are forgotten");
    assert!(db.cached_list("list-5".into()).await.unwrap().is_some());
}

async fn accounts_and_sessions_live_and_end(db: Db) {
    let service = accounts(&db);
    assert!(service.needs_first_admin().await.unwrap());
    let admin = admin(&service).await;
    assert!(!service.needs_first_admin().await.unwrap());
    let clerk = NewUser {
        email: "clerk@example.com".into(),
        name: "Clerk".into(),
        role: Role::Staff,
        password: Secret::new(PASSWORD),
    };
    service.add_user(&admin, clerk).await.unwrap();
    let taken = NewUser {
        email: "CLERK@example.com".into(),
        name: "Other".into(),
        role: Role::Staff,
        password: Secret::new(PASSWORD),
    };
    let refused = service.add_user(&admin, taken).await.unwrap_err();
    assert_eq!(refused.code, staffroom::ErrorCode::InvalidRequest, "an email is one account whatever its case");
    let listed = service.list_users(&admin).await.unwrap();
    let emails: Vec<&str> = listed.iter().map(|u| u.email.as_str()).collect();
    assert_eq!(emails, ["Ada@Example.com", "clerk@example.com"]);
    assert!(listed.iter().all(|u| !u.locked && !u.disabled));

    // A session: its token works, a refresh replaces it, sign-out ends it.
    let first = service.login(login("CLERK@EXAMPLE.COM", PASSWORD), "10.0.0.2").await.ok().unwrap();
    assert_eq!(service.authenticate(&first.token).await.unwrap().email, "clerk@example.com");
    let second = service.refresh(&first.token).await.unwrap();
    assert!(service.authenticate(&first.token).await.is_err(), "a refreshed token stops");
    assert!(service.authenticate(&second.token).await.is_ok());
    service.logout(&second.token).await.unwrap();
    assert!(service.authenticate(&second.token).await.is_err());
    // A replaced token renewed again is a stolen one: the whole session ends.
    let first = service.login(login("clerk@example.com", PASSWORD), "10.0.0.2").await.ok().unwrap();
    let second = service.refresh(&first.token).await.unwrap();
    assert!(service.refresh(&first.token).await.is_err(), "a token cannot be renewed twice");
    assert!(service.authenticate(&second.token).await.is_err(), "and that ended the session");

    // Disabling ends every session at once; a new password too.
    let third = service.login(login("clerk@example.com", PASSWORD), "10.0.0.2").await.ok().unwrap();
    service.set_disabled(&admin, "clerk@example.com", true).await.unwrap();
    assert!(service.authenticate(&third.token).await.is_err());
    assert!(matches!(
        service.login(login("clerk@example.com", PASSWORD), "10.0.0.2").await,
        Err(LoginError::InvalidCredentials)
    ));
    service.set_disabled(&admin, "clerk@example.com", false).await.unwrap();
    let fourth = service.login(login("clerk@example.com", PASSWORD), "10.0.0.2").await.ok().unwrap();
    let renewed = "another long and unusual passphrase";
    service.set_password(&admin, "clerk@example.com", Secret::new(renewed)).await.unwrap();
    assert!(service.authenticate(&fourth.token).await.is_err());
    let fifth = service.login(login("clerk@example.com", renewed), "10.0.0.2").await.ok().unwrap();

    // A sign-in past the most one person may have ends one of their older sessions (the oldest:
    // sessions started in one second are told apart on SQLite only), never the new one.
    let mut sessions = vec![fifth];
    for _ in 0..staffroom::auth::MAX_SESSIONS + 1 {
        sessions.push(service.login(login("clerk@example.com", renewed), "10.0.0.2").await.ok().unwrap());
    }
    let mut live = Vec::new();
    for session in &sessions {
        live.push(service.authenticate(&session.token).await.is_ok());
    }
    assert_eq!(live.iter().filter(|live| **live).count(), staffroom::auth::MAX_SESSIONS as usize, "{live:?}");
    assert!(live.last().copied().unwrap(), "the new session is kept");
}

async fn guesses_lock_the_address_and_then_the_account(db: Db) {
    let service = accounts(&db);
    let admin = admin(&service).await;
    let clerk = NewUser {
        email: "clerk@example.com".into(),
        name: "Clerk".into(),
        role: Role::Staff,
        password: Secret::new(PASSWORD),
    };
    service.add_user(&admin, clerk).await.unwrap();
    for _ in 0..5 {
        let wrong = service.login(login("clerk@example.com", "wrong"), "203.0.113.9").await;
        assert!(matches!(wrong, Err(LoginError::InvalidCredentials)));
    }
    // Locked at that address, even for the right password; not at another.
    let refused = service.login(login("clerk@example.com", PASSWORD), "203.0.113.9").await;
    assert!(
        matches!(refused, Err(LoginError::Throttled { retry_after: 1..=30 })),
        "{:?}",
        refused.err().map(|e| format!("{e:?}"))
    );
    assert!(service.login(login("clerk@example.com", PASSWORD), "198.51.100.7").await.is_ok());
    assert!(service.list_users(&admin).await.unwrap().iter().any(|u| u.email == "clerk@example.com" && u.locked));
    let audit = Audit::new(db.clone()).list(50, None).await.unwrap();
    let throttled: Vec<_> = audit.iter().filter(|e| e.outcome == "throttled").collect();
    assert_eq!(throttled.len(), 1, "one audit entry per lock");

    // The account ceiling: failures from many addresses lock it everywhere.
    for n in 0..15 {
        let _ = service.login(login("clerk@example.com", "wrong"), &format!("192.0.2.{n}")).await;
    }
    let everywhere = service.login(login("clerk@example.com", PASSWORD), "198.51.100.7").await;
    assert!(matches!(everywhere, Err(LoginError::Throttled { retry_after: 3600 })));
    let audit = Audit::new(db.clone()).list(100, None).await.unwrap();
    assert!(audit.iter().any(|e| e.action == "auth.account_locked"), "the account lock is audited");

    // An admin's unlock lifts every lock.
    service.unlock(&admin, "clerk@example.com").await.unwrap();
    assert!(service.login(login("clerk@example.com", PASSWORD), "203.0.113.9").await.is_ok());
}

async fn guesses_sent_at_once_cannot_outrun_the_lock(db: Db) {
    let service = accounts(&db);
    let admin = admin(&service).await;
    let clerk = NewUser {
        email: "clerk@example.com".into(),
        name: "Clerk".into(),
        role: Role::Staff,
        password: Secret::new(PASSWORD),
    };
    service.add_user(&admin, clerk).await.unwrap();
    let guesses = (0..16).map(|_| {
        let service = service.clone();
        async move { service.login(login("clerk@example.com", "wrong"), "203.0.113.50").await }
    });
    let answers = futures::future::join_all(guesses).await;
    let checked = answers.iter().filter(|a| matches!(a, Err(LoginError::InvalidCredentials))).count();
    let throttled = answers.iter().filter(|a| matches!(a, Err(LoginError::Throttled { .. }))).count();
    assert_eq!((checked, throttled), (5, 11), "only five guesses reach the hasher");
}

async fn a_guess_is_counted_while_a_lock_is_lifted(db: Db) {
    // A right password (or an admin's unlock) clears the count while other guesses are being
    // reserved: each reservation still answers, none fails (a team server answered one with a
    // 500 when the count's row went between its insert and its lock).
    let now = 1_700_000_000;
    for round in 0..100 {
        let guesses = (0..4).map(|_| db.reserve_sign_in("clerk@example.com", "203.0.113.50", now + round));
        let (reserved, lifted) =
            futures::future::join(futures::future::join_all(guesses), db.unlock_sign_in("clerk@example.com")).await;
        lifted.unwrap();
        for reservation in reserved {
            reservation.unwrap_or_else(|err| panic!("round {round}: {err:?}"));
        }
    }
}

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
    assert_eq!(
        (first[0].actor.as_str(), first[0].action.as_str(), first[0].outcome.as_str()),
        ("cli", "users.disable", "failure")
    );
    let detail: serde_json::Value = serde_json::from_str(first[4].detail.as_deref().unwrap()).unwrap();
    assert_eq!(detail["note"], "quote \" and ünïcode 🧾");
    assert!(first.windows(2).all(|w| w[0].id > w[1].id && w[0].at >= w[1].at));

    let rest = audit.list(5, Some(first[4].id)).await.unwrap();
    let targets: Vec<&str> = rest.iter().filter_map(|e| e.target.as_deref()).collect();
    assert_eq!(targets, ["order-2", "order-1", "order-0"]);
    assert!(audit.list(5, Some(rest[2].id)).await.unwrap().is_empty());

    // Filters: a person, an action, a range of time; together with the pages.
    let search = |query: staffroom::audit::AuditQuery| {
        let audit = audit.clone();
        async move { audit.search(staffroom::audit::AuditQuery { limit: 50, ..query }).await.unwrap() }
    };
    let by_cli = search(staffroom::audit::AuditQuery { actor: Some("cli".into()), ..Default::default() }).await;
    assert_eq!(by_cli.iter().map(|e| e.action.as_str()).collect::<Vec<_>>(), ["users.disable"]);
    let creates = staffroom::audit::AuditQuery { action: Some("payments.order_create"), ..Default::default() };
    assert_eq!(search(creates.clone()).await.len(), 7);
    let before_third = staffroom::audit::AuditQuery { before: Some(first[4].id), ..creates };
    assert_eq!(search(before_third).await.len(), 3, "filters and pages add up");
    // Times are kept to the millisecond, and `from` includes its own: the last entry, made in
    // the same millisecond as a `now` read at once, would count as from now (seen on a fast
    // machine). Now is read once that millisecond has passed.
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    let now = staffroom::time::now_rfc3339();
    assert!(search(staffroom::audit::AuditQuery { from: Some(now.clone()), ..Default::default() }).await.is_empty());
    let until_now =
        staffroom::audit::AuditQuery { from: Some("2000-01-01".into()), to: Some(now), ..Default::default() };
    assert_eq!(search(until_now).await.len(), 8);
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
    let all = || staffroom::audit::AuditQuery { limit: 10, ..Default::default() };
    assert_eq!(db.audit_entries(all()).await.unwrap().len(), 1);
    assert_eq!(db.prune_audit("2999-01-01T00:00:00Z".into()).await.unwrap(), 1);
    assert!(db.audit_entries(all()).await.unwrap().is_empty());

    // Through the service: the retention is a meta value, and pruning honours it.
    let audit = Audit::new(db.clone());
    assert_eq!(audit.retention().await.unwrap().days, staffroom::audit::DEFAULT_RETENTION_DAYS);
    assert_eq!(audit.prune().await.unwrap(), 0);
}

/// Replicas starting together migrate once: the others wait on the lock and find nothing to do.
#[tokio::test]
async fn postgres_replicas_starting_together_migrate_once() {
    let url = common::pg::cluster().database();
    let opened = futures::future::join_all((0..4).map(|_| Postgres::open(&url))).await;
    assert!(
        opened.iter().all(Result::is_ok),
        "{:?}",
        opened.iter().filter_map(|r| r.as_ref().err()).collect::<Vec<_>>()
    );
    let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(connection);
    let versions: i64 = client.query_one("SELECT count(*) FROM schema_migrations", &[]).await.unwrap().get(0);
    assert_eq!(versions, staffroom::store::postgres::schema_version());

    // A database a newer build migrated is refused, naming what to do.
    client.execute("INSERT INTO schema_migrations (version) VALUES (999)", &[]).await.unwrap();
    let refused = Postgres::open(&url).await.expect_err("a newer schema must be refused");
    assert!(refused.to_string().contains("newer Staffroom"), "{refused}");
}

/// Two replicas on one database: a session started on one is live on the other, and a lock set
/// on one holds on the other.
#[tokio::test]
async fn two_replicas_share_sessions_and_locks() {
    let url = common::pg::cluster().database();
    let (a, b) = (Db::new(Postgres::open(&url).await.unwrap()), Db::new(Postgres::open(&url).await.unwrap()));
    let (replica_a, replica_b) = (accounts(&a), accounts(&b));
    let admin = admin(&replica_a).await;
    let clerk = NewUser {
        email: "clerk@example.com".into(),
        name: "Clerk".into(),
        role: Role::Staff,
        password: Secret::new(PASSWORD),
    };
    replica_a.add_user(&admin, clerk).await.unwrap();

    let signed_in = replica_a.login(login("clerk@example.com", PASSWORD), "10.0.0.2").await.ok().unwrap();
    assert_eq!(replica_b.authenticate(&signed_in.token).await.unwrap().email, "clerk@example.com");
    replica_b.logout(&signed_in.token).await.unwrap();
    assert!(replica_a.authenticate(&signed_in.token).await.is_err(), "signed out on B is signed out on A");

    for _ in 0..5 {
        let _ = replica_a.login(login("clerk@example.com", "wrong"), "203.0.113.9").await;
    }
    let on_b = replica_b.login(login("clerk@example.com", PASSWORD), "203.0.113.9").await;
    assert!(matches!(on_b, Err(LoginError::Throttled { .. })), "a lock started on A holds on B");
}

/// Two replicas receiving the same 400 deliveries at once store each once: exactly one of them
/// gets it as new, the other as a duplicate of the same id.
#[tokio::test]
async fn two_replicas_store_the_same_deliveries_once() {
    let url = common::pg::cluster().database();
    let (a, b) = (Db::new(Postgres::open(&url).await.unwrap()), Db::new(Postgres::open(&url).await.unwrap()));
    let (inbox_a, inbox_b) = (WebhookInbox::open(&a).await.unwrap(), WebhookInbox::open(&b).await.unwrap());
    let keys: Vec<String> = (0..400).map(|n| format!("k{n}")).collect();
    let send = |inbox: WebhookInbox| {
        let keys = keys.clone();
        tokio::spawn(async move {
            futures::future::try_join_all(keys.iter().map(|k| inbox.store(delivery(k)))).await.unwrap()
        })
    };
    let (on_a, on_b) = (send(inbox_a), send(inbox_b));
    let (on_a, on_b) = (on_a.await.unwrap(), on_b.await.unwrap());
    for (x, y) in on_a.iter().zip(&on_b) {
        match (x, y) {
            (Stored::New(i), Stored::Duplicate(j)) | (Stored::Duplicate(j), Stored::New(i)) => assert_eq!(i, j),
            other => panic!("stored once on one replica: {other:?}"),
        }
    }
    assert_eq!(InboxReader::new(a).count().await.unwrap(), 400);
}

/// Two replicas applying the same stored deliveries at once: each is applied by one of them.
#[tokio::test]
async fn two_replicas_apply_each_delivery_once() {
    let url = common::pg::cluster().database();
    let (a, b) = (Db::new(Postgres::open(&url).await.unwrap()), Db::new(Postgres::open(&url).await.unwrap()));
    let inbox = WebhookInbox::open(&a).await.unwrap();
    let mut group = Vec::new();
    for n in 0..200 {
        let e = event(serde_json::json!({"meta": {"event_name": "subscription_updated"},
            "data": {"type": "subscriptions", "id": format!("s{n}"), "attributes": {
                "status": "active", "customer_id": 1, "product_id": 1, "variant_id": 11,
                "updated_at": "2026-11-23T10:00:00Z", "created_at": "2026-11-23T10:00:00Z"}}}));
        let Stored::New(id) = inbox.store(delivery(&format!("s{n}"))).await.unwrap() else { panic!("new") };
        group.push((id, e));
    }
    let apply = |db: Db, group: Vec<(i64, staffroom::webhooks::WebhookEvent)>| {
        tokio::spawn(async move {
            let applier = staffroom::payments::apply::PaymentsApplier::new(db);
            staffroom::webhooks::EventApplier::apply_stored(&applier, &group).await.unwrap()
        })
    };
    let (on_a, on_b) = (apply(a.clone(), group.clone()), apply(b, group));
    let (on_a, on_b) = (on_a.await.unwrap(), on_b.await.unwrap());
    assert_eq!(on_a.len() + on_b.len(), 200, "each applied once: {} on A, {} on B", on_a.len(), on_b.len());
    assert!(InboxReader::new(a.clone()).unapplied(10).await.unwrap().is_empty());
    assert_eq!(
        a.list_subscriptions(SubscriptionQuery { page: 1, limit: 1, ..Default::default() }).await.unwrap().1,
        200
    );
}

/// An event stored by one replica reaches the streams of another within a second, and a client
/// that comes back with the last id it saw misses nothing, whichever replica it asks.
#[tokio::test]
async fn live_events_cross_replicas() {
    let url = common::pg::cluster().database();
    let (a, b) = (Db::new(Postgres::open(&url).await.unwrap()), Db::new(Postgres::open(&url).await.unwrap()));
    let dir = tempfile::tempdir().unwrap();
    let (hub_a, hub_b) =
        (EventHub::start(&*a, dir.path()).await.unwrap(), EventHub::start(&*b, dir.path()).await.unwrap());
    let mut on_b = hub_b.subscribe();
    let sent = std::time::Instant::now();
    hub_a.publish(EventKind::Webhook, &serde_json::json!({ "kind": "applied", "orderId": "o1" }));
    let heard = tokio::time::timeout(Duration::from_secs(1), on_b.recv()).await.expect("within a second").unwrap();
    println!("an event stored on replica A reached replica B's streams in {:?}", sent.elapsed());
    assert_eq!(heard.data, r#"{"kind":"applied","orderId":"o1"}"#);

    // Both replicas write at once: every id reaches B once and in order.
    for n in 0..50 {
        let hub = if n % 2 == 0 { &hub_a } else { &hub_b };
        hub.publish(EventKind::DocumentSaved, &format!("doc-{n}"));
    }
    let mut ids = vec![heard.id];
    while ids.len() < 51 {
        ids.push(tokio::time::timeout(Duration::from_secs(5), on_b.recv()).await.unwrap().unwrap().id);
    }
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "in order: {ids:?}");
    let Since::Events(missed) = hub_a.since(heard.id, 100).await.unwrap() else { panic!() };
    assert_eq!(missed.iter().map(|e| e.id).collect::<Vec<_>>(), ids[1..]);
}

/// The fleet-wide lock replicas sync under: one holder at a time, released when dropped.
#[tokio::test]
async fn one_replica_holds_the_fleet_lock_at_a_time() {
    let url = common::pg::cluster().database();
    let (a, b) = (Postgres::open(&url).await.unwrap(), Postgres::open(&url).await.unwrap());
    let held = a.fleet_lock(42, false).await.unwrap().expect("free at first");
    assert!(b.fleet_lock(42, false).await.unwrap().is_none(), "held by A");
    assert!(b.fleet_lock(43, false).await.unwrap().is_some(), "another lock is free");
    let waiting = tokio::spawn(async move { b.fleet_lock(42, true).await.unwrap().is_some() });
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!waiting.is_finished(), "B waits while A holds it");
    drop(held);
    assert!(tokio::time::timeout(Duration::from_secs(5), waiting).await.unwrap().unwrap(), "B has it once A let go");
}

/// Applying reads a group's subscriptions through the primary key, however much the table grew
/// since the connection first read it. (A cached statement's generic plan, made while the table
/// was empty, went on scanning the whole table until the next ANALYZE.)
#[tokio::test]
async fn a_group_of_subscriptions_is_read_by_key_as_the_table_grows() {
    use staffroom::store::postgres::payments::get_subscriptions;
    let pg = Postgres::open(&common::pg::cluster().database()).await.unwrap();
    let client = pg.client().await.unwrap();
    // Scans of the table so far, whole and by index, with this connection's counts sent first.
    let scans = || async {
        client.execute("SELECT pg_stat_force_next_flush()", &[]).await.unwrap();
        let row = client
            .query_one("SELECT seq_scan, idx_scan FROM pg_stat_user_tables WHERE relname = 'subscriptions'", &[])
            .await
            .unwrap();
        (row.get::<_, i64>(0), row.get::<_, i64>(1))
    };
    let group: Vec<String> = (0..20).map(|n| n.to_string()).collect();
    for _ in 0..10 {
        assert!(get_subscriptions(&client, &group).await.unwrap().is_empty());
    }
    client
        .batch_execute(
            "INSERT INTO subscriptions (id, customer_id, provider_status, status, product_id, variant_id, created_at,
                                        updated_at, synced_at)
             SELECT n::TEXT, 'c', 'active', 'active', 'p', 'v', 't', 't', 't' FROM generate_series(1, 50000) AS n",
        )
        .await
        .unwrap();
    let (whole_before, by_index_before) = scans().await;
    assert_eq!(get_subscriptions(&client, &group).await.unwrap().len(), 19, "1 to 19 are cached, 0 is not");
    let (whole, by_index) = scans().await;
    assert_eq!(whole - whole_before, 0, "no scan of the whole table");
    assert!(by_index > by_index_before, "read through the key");
}

#[tokio::test]
async fn a_bad_database_url_is_refused_clearly() {
    let refused = Postgres::open("postgres://staffroom@127.0.0.1:notaport/x").await.expect_err("a bad URL");
    assert!(refused.to_string().contains("not one PostgreSQL understands"), "{refused}");
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let refused = Postgres::open(&format!("postgres://staffroom@127.0.0.1:{port}/x")).await.expect_err("no server");
    assert!(refused.to_string().contains("cannot reach the database"), "{refused}");
}

fn invoice(id: &str, subscription: &str, customer: &str, created: &str) -> InvoiceDto {
    InvoiceDto {
        id: id.into(),
        subscription_id: subscription.into(),
        customer_id: customer.into(),
        billing_reason: "renewal".into(),
        status: "paid".into(),
        total: 1_200,
        refunded_amount: 0,
        currency: "USD".into(),
        card_brand: Some("visa".into()),
        card_last_four: Some("4242".into()),
        invoice_url: Some(format!("https://example.com/invoices/{id}")),
        created_at: created.into(),
        updated_at: created.into(),
    }
}

async fn invoices_are_kept_listed_by_whose_and_refunds_only_grow(db: Db) {
    let mut first = invoice("11", "1", "1001", "2026-01-01T00:00:00Z");
    first.billing_reason = "initial".into();
    let all = vec![
        first,
        invoice("12", "1", "1001", "2026-02-01T00:00:00Z"),
        invoice("13", "1", "1001", "2026-03-01T00:00:00Z"),
        invoice("21", "2", "1001", "2026-02-15T00:00:00Z"),
        invoice("31", "3", "", "2026-02-20T00:00:00Z"),
    ];
    db.upsert_invoices(all.clone(), "t1".into()).await.unwrap();
    let ids = |query: InvoiceQuery| {
        let db = db.clone();
        async move {
            let (list, total) = db.list_invoices(query).await.unwrap();
            (list.into_iter().map(|i| i.id).collect::<Vec<_>>(), total)
        }
    };
    let of_subscription = |id: &str, limit| InvoiceQuery::Subscription { id: id.into(), limit };
    assert_eq!(ids(of_subscription("1", 10)).await, (vec!["13".into(), "12".into(), "11".into()], 3), "newest first");
    assert_eq!(
        ids(of_subscription("1", 2)).await,
        (vec!["13".into(), "12".into()], 3),
        "at most the limit, all counted"
    );
    let of_customer = InvoiceQuery::Customer { id: "1001".into(), limit: 10 };
    assert_eq!(ids(of_customer).await.0, ["13", "21", "12", "11"], "every subscription of the customer's");
    assert_eq!(ids(of_subscription("9", 10)).await, (Vec::<String>::new(), 0));
    assert_eq!(db.invoice("11".into()).await.unwrap().unwrap(), all[0]);
    assert!(db.invoice("99".into()).await.unwrap().is_none());

    // A newer reading replaces an invoice; an older one does not; at the same time, the one
    // with more refunded wins (two refunds in one second).
    let at = "2026-03-05T00:00:00Z";
    let mut part = all[2].clone();
    (part.status, part.refunded_amount, part.updated_at) = ("partial_refund".into(), 500, at.into());
    let mut whole = part.clone();
    (whole.status, whole.refunded_amount) = ("refunded".into(), 1_200);
    db.upsert_invoices(vec![whole.clone()], "t2".into()).await.unwrap();
    db.upsert_invoices(vec![part.clone()], "t3".into()).await.unwrap();
    db.upsert_invoices(vec![all[2].clone()], "t4".into()).await.unwrap();
    assert_eq!(db.invoice("13".into()).await.unwrap().unwrap(), whole);
    // An event without the link keeps the one known.
    let mut later = whole.clone();
    (later.invoice_url, later.updated_at) = (None, "2026-03-06T00:00:00Z".into());
    db.upsert_invoices(vec![later.clone()], "t5".into()).await.unwrap();
    let kept = db.invoice("13".into()).await.unwrap().unwrap();
    assert_eq!((kept.updated_at.as_str(), kept.invoice_url), ("2026-03-06T00:00:00Z", whole.invoice_url));
}

fn licence_key(id: &str, customer: &str, email: &str, status: &str, created: &str) -> LicenseKeyDto {
    LicenseKeyDto {
        id: id.into(),
        key_short: format!("XXXX-{id}a8f9c98a4"),
        status: status.into(),
        disabled: status == "disabled",
        activation_limit: Some(3),
        activation_usage: 1,
        expires_at: None,
        order_id: None,
        provider_order_id: format!("90{id}"),
        customer_id: customer.into(),
        customer_name: "Zoë O'Brien".into(),
        customer_email: email.into(),
        product_id: "13".into(),
        product_name: None,
        created_at: created.into(),
        updated_at: created.into(),
    }
}

async fn licence_keys_are_kept_found_and_joined_to_their_order(db: Db) {
    let all = vec![
        licence_key("101", "1001", "zoe@example.com", "active", "2026-01-01T00:00:00Z"),
        licence_key("102", "1001", "zoe@example.com", "disabled", "2026-02-01T00:00:00Z"),
        licence_key("103", "1002", "BEN_100%@example.com", "inactive", "2026-03-01T00:00:00Z"),
    ];
    db.upsert_license_keys(all.clone(), "t1".into()).await.unwrap();
    let ids = |query: LicenseKeyQuery| {
        let db = db.clone();
        async move {
            let (page, total) = db.list_license_keys(LicenseKeyQuery { page: 1, limit: 10, ..query }).await.unwrap();
            assert_eq!(page.len() as u64, total);
            page.into_iter().map(|k| k.id).collect::<Vec<_>>()
        }
    };
    let search = |text: &str, key: &str| LicenseKeyQuery {
        search: Some((like_pattern(text), like_pattern(key))),
        ..Default::default()
    };
    assert_eq!(ids(LicenseKeyQuery::default()).await, ["103", "102", "101"], "newest first");
    assert_eq!(ids(search("ben_100%", "ben_100%")).await, ["103"], "e-mail, any case, % and _ themselves");
    assert_eq!(ids(search("qq", "102a8f9c98a4")).await, ["102"], "the key's short form");
    let of = |customer: &str, status: Option<&str>| LicenseKeyQuery {
        customer_id: Some(customer.into()),
        status: status.map(str::to_string),
        ..Default::default()
    };
    assert_eq!(ids(of("1001", None)).await, ["102", "101"]);
    assert_eq!(ids(of("1001", Some("disabled"))).await, ["102"]);
    let (second, total) =
        db.list_license_keys(LicenseKeyQuery { page: 2, limit: 2, ..Default::default() }).await.unwrap();
    assert_eq!((second.len(), total), (1, 3));

    // Our order and the product, joined when cached; a key's order found by our id.
    assert_eq!(db.license_key("101".into()).await.unwrap().unwrap(), all[0]);
    let mut ours = order("o-key", "2026-01-01T00:00:00Z");
    ours.dto.provider_order_id = Some("90101".into());
    db.insert_order(ours).await.unwrap();
    db.replace_products(vec![product("13", "Golden Workshop", ProductStatus::Published)], vec![], "t1".into())
        .await
        .unwrap();
    let joined = db.license_key("101".into()).await.unwrap().unwrap();
    assert_eq!(joined.order_id.as_deref(), Some("o-key"));
    assert_eq!(joined.product_name.as_deref(), Some("Golden Workshop"));
    let by_order = LicenseKeyQuery { order_id: Some("o-key".into()), ..Default::default() };
    assert_eq!(ids(by_order).await, ["101"]);
    assert!(db.license_key("999".into()).await.unwrap().is_none());

    // A key whose expiry has passed is found as expired, not as active, before any new reading.
    let mut lapsed = licence_key("104", "1003", "kai@example.com", "active", "2026-04-01T00:00:00Z");
    lapsed.expires_at = Some("2026-07-01T00:00:00Z".into());
    db.upsert_license_keys(vec![lapsed], "t1".into()).await.unwrap();
    let at = |status: &str| LicenseKeyQuery {
        status: Some(status.into()),
        now: "2026-11-26T10:00:00.000Z".into(),
        ..Default::default()
    };
    assert_eq!(ids(at("expired")).await, ["104"]);
    let mut both = licence_key("105", "1003", "kai@example.com", "expired", "2026-03-15T00:00:00Z");
    both.disabled = true;
    db.upsert_license_keys(vec![both], "t1".into()).await.unwrap();
    assert_eq!(ids(at("expired")).await, ["104"], "disabled by hand, though also expired");
    assert_eq!(ids(at("disabled")).await, ["105", "102"]);
    assert!(db.license_key("105".into()).await.unwrap().unwrap().disabled);
    assert_eq!(ids(at("active")).await, ["101"]);
    assert_eq!(ids(at("inactive")).await, ["103"]);
    let before_expiry = LicenseKeyQuery { now: "2026-06-01T00:00:00.000Z".into(), ..at("active") };
    assert_eq!(ids(before_expiry).await, ["104", "101"]);

    // A newer reading replaces a key; an older one does not.
    let mut enabled = all[1].clone();
    (enabled.status, enabled.updated_at) = ("active".into(), "2026-05-01T00:00:00Z".into());
    db.upsert_license_keys(vec![enabled.clone()], "t2".into()).await.unwrap();
    db.upsert_license_keys(vec![all[1].clone()], "t3".into()).await.unwrap();
    let kept = db.license_key("102".into()).await.unwrap().unwrap();
    assert_eq!(kept, LicenseKeyDto { product_name: Some("Golden Workshop".into()), ..enabled });
}

fn discount(id: &str, code: &str, created: &str) -> DiscountDto {
    DiscountDto {
        id: id.into(),
        name: format!("Discount {code}"),
        code: code.into(),
        amount: 20,
        amount_type: "percent".into(),
        duration: "once".into(),
        duration_in_months: 1,
        starts_at: None,
        expires_at: None,
        max_redemptions: None,
        variant_ids: Vec::new(),
        status: "published".into(),
        created_at: created.into(),
        updated_at: created.into(),
        redemption_count: 0,
        redemptions: Vec::new(),
    }
}

fn redemption(id: &str, discount: &str, order: &str, at: &str) -> DiscountRedemptionDto {
    DiscountRedemptionDto {
        id: id.into(),
        discount_id: discount.into(),
        provider_order_id: order.into(),
        order_id: None,
        order_number: None,
        customer_email: None,
        amount: 400,
        currency: None,
        created_at: at.into(),
    }
}

async fn discounts_are_replaced_with_their_redemptions_kept(db: Db) {
    let mut limited = discount("2", "TEAM_50%", "2026-02-01T00:00:00Z");
    (limited.variant_ids, limited.max_redemptions) = (vec!["11".into(), "12".into()], Some(10));
    let all = vec![discount("1", "LAUNCH10", "2026-01-01T00:00:00Z"), limited.clone()];
    db.replace_discounts(all, "2026-05-01T00:00:00Z".into(), "2026-05-01T00:00:01Z".into()).await.unwrap();
    let page = |search: Option<&str>| {
        let db = db.clone();
        let search = search.map(like_pattern);
        async move { db.list_discounts(DiscountQuery { page: 1, limit: 10, search }).await.unwrap() }
    };
    let (found, total) = page(None).await;
    assert_eq!((found.iter().map(|d| d.id.as_str()).collect::<Vec<_>>(), total), (vec!["2", "1"], 2), "newest first");
    assert_eq!(found[0], limited, "kept as written, variants and all");
    assert_eq!(page(Some("team_50%")).await.0.len(), 1, "code, any case, % and _ themselves");
    assert_eq!(page(Some("discount launch")).await.0.len(), 1, "or the name");
    assert_eq!(page(Some("team_5%0")).await.0.len(), 0);

    // Redemptions: newest first, joined with our order when cached; written once.
    let mut ours = order("o-used", "2026-03-01T00:00:00Z");
    ours.dto.provider_order_id = Some("9001".into());
    db.insert_order(ours).await.unwrap();
    let used = vec![
        redemption("1", "1", "9001", "2026-03-01T00:00:00Z"),
        redemption("2", "1", "9002", "2026-03-02T00:00:00Z"),
        redemption("3", "2", "9003", "2026-03-03T00:00:00Z"),
    ];
    db.insert_redemptions(used.clone()).await.unwrap();
    db.insert_redemptions(used[..1].to_vec()).await.unwrap();
    let launch = db.discount("1".into()).await.unwrap().unwrap();
    assert_eq!(launch.redemption_count, 2);
    assert_eq!(launch.redemptions.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(), ["2", "1"]);
    let joined = &launch.redemptions[1];
    assert_eq!(
        (joined.order_id.as_deref(), joined.customer_email.as_deref()),
        (Some("o-used"), Some("buyer@example.com"))
    );
    assert_eq!(joined.currency.as_deref(), Some("EUR"));
    assert!(launch.redemptions[0].order_id.is_none(), "an order not cached yet");

    // A full reading without "2" drops it, but not "3", made here while the list was read.
    db.upsert_discount(discount("3", "SUMMER30", "2026-04-01T00:00:00Z"), "2026-05-02T00:00:05Z".into()).await.unwrap();
    let one = vec![discount("1", "LAUNCH10", "2026-01-01T00:00:00Z")];
    db.replace_discounts(one, "2026-05-02T00:00:00Z".into(), "2026-05-02T00:00:09Z".into()).await.unwrap();
    assert!(db.discount("2".into()).await.unwrap().is_none());
    assert_eq!(page(None).await.0.iter().map(|d| d.id.as_str()).collect::<Vec<_>>(), ["3", "1"]);
    // One deleted here goes.
    db.delete_discount("1".into()).await.unwrap();
    assert_eq!(page(None).await.0.iter().map(|d| d.id.as_str()).collect::<Vec<_>>(), ["3"]);
    // The redemptions stay: they are the orders' history, shown again if the discount returns.
    db.upsert_discount(discount("1", "LAUNCH10", "2026-01-01T00:00:00Z"), "2026-05-03T00:00:00Z".into()).await.unwrap();
    assert_eq!(db.discount("1".into()).await.unwrap().unwrap().redemption_count, 2);
}
