//! CSV exports of the lists (SPEC section 14) through the HTTP door, on the sandbox's store (and,
//! in the PostgreSQL pass, on a team database): the rows equal the list's for the same filters,
//! the file is RFC 4180 with CRLF and UTF-8, money in major units, hostile names neutralised.

mod common;

use common::{SandboxApp, STAFF_PASSWORD};
use serde_json::{json, Value};

/// GETs an export: (status, content type, disposition, total header, body).
async fn export(app: &SandboxApp, token: &str, path: &str) -> (u16, String, String, String, Vec<u8>) {
    let response = common::client().get(format!("{}{path}", app.base)).bearer_auth(token).send().await.unwrap();
    let header = |name: &str| response.headers().get(name).map(|v| v.to_str().unwrap().to_string()).unwrap_or_default();
    let (content_type, disposition, total) =
        (header("content-type"), header("content-disposition"), header("x-total-count"));
    (response.status().as_u16(), content_type, disposition, total, response.bytes().await.unwrap().to_vec())
}

/// The file's records, header first.
fn records(body: &[u8]) -> Vec<Vec<String>> {
    let mut reader = csv::ReaderBuilder::new().has_headers(false).from_reader(body);
    reader.records().map(|r| r.unwrap().iter().map(str::to_string).collect()).collect()
}

/// Every row of a list for `query`, page by page: the ids, in order.
async fn list_ids(app: &SandboxApp, path: &str, key: &str, query: &str) -> Vec<String> {
    let mut ids = Vec::new();
    for page in 1.. {
        let (status, body) = app.get(&format!("{path}?{query}&limit=100&page={page}")).await;
        assert_eq!(status, 200, "{body}");
        let rows = body[key].as_array().unwrap().clone();
        ids.extend(rows.iter().map(|row| row["id"].as_str().unwrap().to_string()));
        if page >= body["meta"]["totalPages"].as_u64().unwrap() {
            break;
        }
    }
    ids
}

fn column<'a>(records: &'a [Vec<String>], name: &str) -> Vec<&'a str> {
    let at = records[0].iter().position(|c| c == name).unwrap_or_else(|| panic!("no column {name}"));
    records[1..].iter().map(|r| r[at].as_str()).collect()
}

#[tokio::test]
async fn every_export_holds_the_lists_rows_for_the_same_filters_in_the_same_order() {
    let app = SandboxApp::with_history().await;
    let cases: &[(&str, &str, &str)] = &[
        ("orders", "orders", "x=1"),
        ("orders", "orders", "status=refunded"),
        ("orders", "orders", "status=paid&from=2026-01-01"),
        ("orders", "orders", "search=mar"),
        ("orders", "orders", "search=an"),
        ("customers", "customers", "x=1"),
        ("customers", "customers", "status=unsubscribed"),
        ("subscriptions", "subscriptions", "x=1"),
        ("subscriptions", "subscriptions", "status=cancelled"),
        ("license-keys", "licenseKeys", "x=1"),
        ("license-keys", "licenseKeys", "status=active"),
    ];
    let mut sizes = Vec::new();
    for (list, key, query) in cases {
        let query = query.trim_start_matches("x=1");
        let listed = list_ids(&app, &format!("/api/payments/{list}"), key, query).await;
        let (status, content_type, disposition, total, body) =
            export(&app, &app.token, &format!("/api/payments/{list}/export?{query}")).await;
        assert_eq!(status, 200, "{list}?{query}: {}", String::from_utf8_lossy(&body));
        assert_eq!(content_type, "text/csv; charset=utf-8");
        let today = &staffroom::time::now_rfc3339()[..10];
        assert_eq!(disposition, format!("attachment; filename=\"{list}-{today}.csv\""));
        let records = records(&body);
        let exported: Vec<&str> = column(&records, "id");
        assert_eq!(exported, listed.iter().map(String::as_str).collect::<Vec<_>>(), "{list}?{query}");
        assert_eq!(total, listed.len().to_string(), "{list}?{query}: the total header");
        // Every line ends CRLF, and no line end is bare outside quotes (names hold none here).
        assert!(body.ends_with(b"\r\n"));
        assert_eq!(body.windows(2).filter(|w| w == b"\r\n").count(), records.len(), "{list}?{query}");
        sizes.push(listed.len());
    }
    assert!(sizes[0] > 3 * 500, "the whole history is exported, over several of the export's pages: {sizes:?}");
    assert!(sizes.iter().all(|n| *n > 0), "every filter matches some rows: {sizes:?}");
    assert!(sizes[1] < sizes[0], "the refunded orders are some of them: {sizes:?}");
}

#[tokio::test]
async fn money_is_in_major_units_items_are_words_and_hostile_names_are_neutralised() {
    let app = SandboxApp::start().await;
    let (status, made) = app
        .post(
            "/api/payments/orders",
            json!({"productId": "15", "variantId": "152", "email": "zoe@example.com", "name": "=HYPERLINK(\"http://evil.example\",\"Zoë\")"}),
        )
        .await;
    assert_eq!(status, 201, "{made}");
    let id = made["order"]["id"].as_str().unwrap().to_string();
    let (_, order) = app.get(&format!("/api/payments/orders/{id}")).await;
    let order = &order["order"];
    let (status, _, _, _, body) =
        export(&app, &app.token, "/api/payments/orders/export?search=zoe%40example.com").await;
    assert_eq!(status, 200);
    let text = String::from_utf8(body.clone()).expect("UTF-8");
    assert!(text.starts_with("\u{feff}orderNumber,reference,createdAt,status,providerStatus,customerName,customerEmail,items,currency,subtotal,discountTotal,tax,total,refundedAmount"), "{text}");
    let records = records(&body);
    let row = records.iter().find(|r| r.last().map(String::as_str) == Some(id.as_str())).expect("the new order");
    let cell = |name: &str| row[records[0].iter().position(|c| c == name).unwrap()].clone();
    assert_eq!(cell("customerName"), "'=HYPERLINK(\"http://evil.example\",\"Zoë\")", "neutralised, accents intact");
    // Written with RFC 4180's doubled quotes around it.
    assert!(text.contains("\"'=HYPERLINK(\"\"http://evil.example\"\",\"\"Zoë\"\")\""), "{text}");
    let cents = order["total"].as_i64().unwrap();
    assert_eq!(cell("total"), format!("{}.{:02}", cents / 100, cents % 100));
    assert_eq!(cell("currency"), order["currency"].as_str().unwrap());
    let item = &order["items"][0];
    assert_eq!(
        cell("items"),
        format!(
            "{} — {} × {}",
            item["productName"].as_str().unwrap(),
            item["variantName"].as_str().unwrap(),
            item["quantity"]
        )
    );
    assert!(cell("createdAt").ends_with('Z'), "RFC 3339 UTC: {}", cell("createdAt"));
}

#[tokio::test]
async fn an_export_checks_who_asks_and_its_filters_and_is_audited_in_words() {
    let app = SandboxApp::start().await;
    let nobody = export(&app, "not-a-token", "/api/payments/orders/export").await;
    assert_eq!(nobody.0, 401);
    let bad = export(&app, &app.token, "/api/payments/orders/export?status=lost").await;
    assert_eq!(bad.0, 400);
    let bad: Value = serde_json::from_slice(&bad.4).unwrap();
    assert_eq!(common::bad_fields(&bad), ["status"]);
    let paged = export(&app, &app.token, "/api/payments/customers/export?page=2&limit=5").await;
    assert_eq!(paged.0, 400);
    let paged: Value = serde_json::from_slice(&paged.4).unwrap();
    assert_eq!(common::bad_fields(&paged), ["page", "limit"]);

    // Staff who are not admins export, as they see the lists.
    let sam = app.staff_token().await;
    let (status, _, _, total, _) = export(&app, &sam, "/api/payments/orders/export?status=refunded").await;
    assert_eq!(status, 200);
    let (_, log) = app.get("/api/audit?action=payments.export").await;
    let entry = &log[0];
    assert_eq!(entry["actor"], "sam@example.com", "{log}");
    assert_eq!(entry["target"], "orders");
    let detail: Value = serde_json::from_str(entry["detail"].as_str().unwrap()).unwrap();
    assert_eq!(detail["rows"].to_string(), total);
    assert_eq!(detail["filters"], json!({"status": "refunded"}));
    let _ = STAFF_PASSWORD;
}
