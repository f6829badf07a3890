//! `/api/docs` over real HTTP against the Google simulator: every endpoint, every error of SPEC
//! section 5, `folderId` injection, astral characters, stale revisions, retries and the token
//! refresh, offline reading, the editor's save with conflicts, and drafts.

mod common;

use common::{bad_fields, client, demo_token, SandboxApp, Server, ServerOptions};
use reqwest::Method;
use serde_json::{json, Value};
use staffroom::sandbox::google::GoogleFaults;

const DOC: &str = "doc001sbxA1b2C3d4E5f6G7h8";

fn paragraphs(document: &Value) -> Vec<String> {
    document["body"]["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e.get("paragraph"))
        .map(|p| {
            p["elements"].as_array().unwrap().iter().map(|e| e["textRun"]["content"].as_str().unwrap_or("")).collect()
        })
        .collect()
}

#[tokio::test]
async fn lists_documents_in_pages_folders_and_orders() {
    let app = SandboxApp::start().await;
    let (status, first) = app.get("/api/docs/documents").await;
    assert_eq!(status, 200, "{first}");
    let docs = first["documents"].as_array().unwrap();
    assert_eq!(docs.len(), 20);
    for d in docs {
        assert_eq!(d["mimeType"], "application/vnd.google-apps.document");
        for field in ["id", "name", "createdTime", "modifiedTime", "webViewLink"] {
            assert!(d[field].is_string(), "{field} in {d}");
        }
    }
    let modified: Vec<&str> = docs.iter().map(|d| d["modifiedTime"].as_str().unwrap()).collect();
    assert!(modified.windows(2).all(|w| w[0] >= w[1]), "newest first: {modified:?}");
    let token = first["nextPageToken"].as_str().expect("a second page");
    let (_, second) = app.get(&format!("/api/docs/documents?pageToken={}", urlencode(token))).await;
    let rest = second["documents"].as_array().unwrap();
    // 30 seeded, two of them trashed, two in the shared drive (lists reach every drive), and
    // the three templates.
    assert_eq!(rest.len(), 13);
    assert!(second.get("nextPageToken").is_none());

    let (_, in_folder) = app.get("/api/docs/documents?folderId=fld_marketing&pageSize=100&orderBy=createdTime").await;
    let ids: Vec<&str> = in_folder["documents"].as_array().unwrap().iter().map(|d| d["id"].as_str().unwrap()).collect();
    let mut expected = app.google().documents_in("fld_marketing");
    let mut got: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
    expected.sort();
    got.sort();
    assert_eq!(got, expected);
    let created: Vec<&str> =
        in_folder["documents"].as_array().unwrap().iter().map(|d| d["createdTime"].as_str().unwrap()).collect();
    assert!(created.windows(2).all(|w| w[0] >= w[1]));
}

fn urlencode(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

#[tokio::test]
async fn list_parameters_are_checked_and_folder_ids_cannot_inject() {
    let app = SandboxApp::start().await;
    let requests_before = app.google().request_count();
    for (query, field) in [
        ("folderId=x'%20or%20trashed%20%3D%20true%20or%20'y", "folderId"),
        ("folderId=fld_marketing'%20in%20parents%20or%20'a", "folderId"),
        ("pageSize=0", "pageSize"),
        ("pageSize=101", "pageSize"),
        ("orderBy=name", "orderBy"),
        ("limit=5", "limit"),
    ] {
        let (status, body) = app.get(&format!("/api/docs/documents?{query}")).await;
        assert_eq!(status, 400, "{query}: {body}");
        assert_eq!(body["error"]["code"], "invalid_request");
        assert_eq!(bad_fields(&body), vec![field], "{query}");
    }
    assert_eq!(app.google().request_count(), requests_before, "nothing reached Google");
    // A page token Google does not know is named as the bad field.
    let (status, body) = app.get("/api/docs/documents?pageToken=999~nope").await;
    assert_eq!((status, bad_fields(&body)), (400, vec!["pageToken".to_string()]), "{body}");
    // An unknown folder lists nothing.
    let (status, body) = app.get("/api/docs/documents?folderId=fld_nowhere").await;
    assert_eq!((status, body["documents"].as_array().unwrap().len()), (200, 0));
    // No staff token, no documents.
    let response = common::client().get(format!("{}/api/docs/documents", app.base)).send().await.unwrap();
    assert_eq!(response.status(), 401);
}

#[tokio::test]
async fn reads_a_document_with_inline_suggestions_and_utf16_indexes() {
    let app = SandboxApp::start().await;
    let (status, body) = app.get(&format!("/api/docs/documents/{DOC}")).await;
    assert_eq!(status, 200, "{body}");
    let document = &body["document"];
    assert_eq!(document["id"], DOC);
    assert_eq!(document["suggestionsViewMode"], "SUGGESTIONS_INLINE");
    assert!(document["revisionId"].as_str().is_some_and(|r| !r.is_empty()));
    let content = document["body"]["content"].as_array().unwrap();
    assert!(content[0].get("sectionBreak").is_some());
    assert_eq!(content[1]["startIndex"], 1);
    assert!(content.iter().any(|e| e.get("table").is_some()), "the seeded table");
    // Styled runs arrive as textRun.style.
    assert!(content
        .iter()
        .flat_map(|e| e["paragraph"]["elements"].as_array().into_iter().flatten())
        .any(|el| el["textRun"]["style"]["bold"] == true));
    // The subtitle's sparkle is one char but two indexes.
    let subtitle = &content[2]["paragraph"]["elements"];
    let whole: String =
        subtitle.as_array().unwrap().iter().map(|e| e["textRun"]["content"].as_str().unwrap()).collect();
    assert!(whole.contains('✨'));
    let span = content[2]["endIndex"].as_u64().unwrap() - content[2]["startIndex"].as_u64().unwrap();
    assert_eq!(span as usize, whole.encode_utf16().count());

    for (path, status, code) in [
        ("/api/docs/documents/doc_missing", 404, "not_found"),
        ("/api/docs/documents/bad%20id", 400, "invalid_request"),
        (&format!("/api/docs/documents/{DOC}?suggestionsViewMode=SOMETIMES") as &str, 400, "invalid_request"),
    ] {
        let (got, body) = app.get(path).await;
        assert_eq!((got, body["error"]["code"].as_str().unwrap()), (status, code), "{path}: {body}");
    }
    let (status, body) =
        app.get(&format!("/api/docs/documents/{DOC}?suggestionsViewMode=PREVIEW_WITHOUT_SUGGESTIONS")).await;
    assert_eq!((status, body["document"]["suggestionsViewMode"].as_str()), (200, Some("PREVIEW_WITHOUT_SUGGESTIONS")));
}

#[tokio::test]
async fn creates_in_a_folder_with_content_and_permissions() {
    let app = SandboxApp::start().await;
    let (status, body) = app
        .post(
            "/api/docs/documents",
            json!({
                "name": "Launch 🚀 notes",
                "content": "First line 😀\nSecond line",
                "folderId": "fld_support",
                "permissions": [
                    {"role": "writer", "type": "user", "emailAddress": "sam@example.com"},
                    {"role": "reader", "type": "anyone"}
                ],
                "sendNotificationEmail": false
            }),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    let id = body["document"]["id"].as_str().unwrap().to_string();
    assert_eq!(body["document"]["name"], "Launch 🚀 notes");
    assert!(app.google().documents_in("fld_support").contains(&id));
    let (_, read) = app.get(&format!("/api/docs/documents/{id}")).await;
    assert_eq!(paragraphs(&read["document"]), vec!["First line 😀\n", "Second line\n"]);
    let permissions = app.google().permissions(&id);
    assert!(permissions.iter().any(|p| p["emailAddress"] == "sam@example.com" && p["role"] == "writer"));
    assert!(permissions.iter().any(|p| p["type"] == "anyone" && p["role"] == "reader"));

    // Bad input names every field and creates nothing.
    let before = app.google().request_count();
    let (status, body) = app
        .post(
            "/api/docs/documents",
            json!({"name": "x".repeat(256), "folderId": "a/b", "permissions": [{"role": "boss", "type": "user"}]}),
        )
        .await;
    assert_eq!(status, 400);
    assert_eq!(bad_fields(&body), vec!["name", "folderId", "permissions[0].role", "permissions[0].emailAddress"]);
    assert_eq!(app.google().request_count(), before);
    // A folder Drive does not have.
    let (status, body) = app.post("/api/docs/documents", json!({"name": "n", "folderId": "fld_gone"})).await;
    assert_eq!((status, body["error"]["code"].as_str()), (404, Some("not_found")), "{body}");

    // Sharing blocked after the create: the error names the created document.
    app.google().set_faults(GoogleFaults { sharing_blocked: true, ..Default::default() });
    let (status, body) = app
        .post(
            "/api/docs/documents",
            json!({"name": "Blocked", "permissions": [{"role": "reader", "type": "domain", "domain": "example.com"}]}),
        )
        .await;
    // Google refusing the sharing is `forbidden` (it used to be reported as Google failing).
    assert_eq!((status, body["error"]["code"].as_str()), (403, Some("forbidden")), "{body}");
    let created = body["error"]["details"]["documentId"].as_str().expect("the created id is named");
    assert!(body["error"]["message"].as_str().unwrap().contains(created));
    app.google().set_faults(GoogleFaults::default());
    assert_eq!(app.get(&format!("/api/docs/documents/{created}")).await.0, 200);
}

#[tokio::test]
async fn patches_in_utf16_and_refuses_stale_revisions() {
    let app = SandboxApp::start().await;
    let (_, created) = app.post("/api/docs/documents", json!({"name": "Patch me", "content": "ab"})).await;
    let id = created["document"]["id"].as_str().unwrap().to_string();
    let (_, read) = app.get(&format!("/api/docs/documents/{id}")).await;
    let revision = read["document"]["revisionId"].as_str().unwrap().to_string();
    // Insert an emoji between a and b, then delete the emoji (two code units) again and add one.
    let (status, body) = app
        .send(
            Method::PATCH,
            &format!("/api/docs/documents/{id}"),
            Some(json!({"requiredRevisionId": revision, "requests": [
                {"insertText": {"text": "🐙x", "location": {"index": 2}}},
                {"deleteContentRange": {"range": {"startIndex": 2, "endIndex": 4}}},
                {"insertText": {"text": "😀", "location": {"index": 1}}},
                {"updateParagraphStyle": {"range": {"startIndex": 1, "endIndex": 2}, "paragraphStyle": {"namedStyleType": "HEADING_2"}}}
            ]})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["documentId"], id.as_str());
    assert_eq!(body["replies"].as_array().unwrap().len(), 4);
    let new_revision = body["revisionId"].as_str().unwrap().to_string();
    assert_ne!(new_revision, revision);
    let (_, read) = app.get(&format!("/api/docs/documents/{id}")).await;
    assert_eq!(paragraphs(&read["document"]), vec!["😀axb\n"]);
    assert_eq!(read["document"]["body"]["content"][1]["paragraph"]["paragraphStyle"]["namedStyleType"], "HEADING_2");

    // The old revision is stale now: 409 naming the current one, nothing applied.
    let (status, body) = app
        .send(
            Method::PATCH,
            &format!("/api/docs/documents/{id}"),
            Some(json!({"requiredRevisionId": revision, "requests": [{"insertText": {"text": "z", "location": {"index": 1}}}]})),
        )
        .await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["error"]["code"], "conflict");
    assert_eq!(body["error"]["details"]["currentRevisionId"], new_revision.as_str());

    // Checked before sending: nothing reaches Google.
    let before = app.google().request_count();
    let (status, body) = app
        .send(
            Method::PATCH,
            &format!("/api/docs/documents/{id}"),
            Some(json!({"requests": [
                {"insertText": {"text": "", "location": {"index": 0}}},
                {"deleteContentRange": {"range": {"startIndex": 3, "endIndex": 2}}},
                {}
            ]})),
        )
        .await;
    assert_eq!(status, 400);
    assert_eq!(
        bad_fields(&body),
        vec![
            "requests[0].insertText.text",
            "requests[0].insertText.location.index",
            "requests[1].deleteContentRange.range.endIndex",
            "requests[2]"
        ]
    );
    assert_eq!(app.google().request_count(), before);
    let (status, body) =
        app.send(Method::PATCH, &format!("/api/docs/documents/{id}"), Some(json!({"requests": []}))).await;
    assert_eq!((status, bad_fields(&body)), (400, vec!["requests".to_string()]));

    // What only Google can know (the last newline) comes back as invalid_request on requests.
    let (status, body) = app
        .send(
            Method::PATCH,
            &format!("/api/docs/documents/{id}"),
            Some(json!({"requests": [{"deleteContentRange": {"range": {"startIndex": 1, "endIndex": 7}}}]})),
        )
        .await;
    assert_eq!((status, bad_fields(&body)), (400, vec!["requests".to_string()]), "{body}");
    assert!(body["error"]["message"].as_str().unwrap().contains("newline"));
    // Splitting a surrogate pair likewise.
    let (status, _) = app
        .send(
            Method::PATCH,
            &format!("/api/docs/documents/{id}"),
            Some(json!({"requests": [{"deleteContentRange": {"range": {"startIndex": 1, "endIndex": 2}}}]})),
        )
        .await;
    assert_eq!(status, 400);
    let (status, _) = app
        .send(
            Method::PATCH,
            "/api/docs/documents/doc_missing",
            Some(json!({"requests": [{"insertText": {"text": "z", "location": {"index": 1}}}]})),
        )
        .await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn shares_with_every_type_one_change_at_a_time() {
    let app = SandboxApp::start().await;
    let path = format!("/api/docs/documents/{DOC}/permissions");
    let (status, body) = app
        .post(
            &path,
            json!({"permissions": [
                {"role": "writer", "type": "user", "emailAddress": "ana@example.com"},
                {"role": "reader", "type": "group", "emailAddress": "team@example.com"},
                {"role": "reader", "type": "domain", "domain": "example.com"},
                {"role": "reader", "type": "anyone"}
            ], "sendNotificationEmail": true}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let permissions = body["permissions"].as_array().unwrap();
    assert_eq!(permissions.len(), 4);
    assert!(permissions.iter().all(|p| p["id"].is_string()));
    assert_eq!(permissions[0]["emailAddress"], "ana@example.com");
    // Ownership transfer: the old owner becomes a writer.
    let (status, body) = app
        .post(&path, json!({"permissions": [{"role": "owner", "type": "user", "emailAddress": "ana@example.com"}]}))
        .await;
    assert_eq!(status, 200, "{body}");
    let now = app.google().permissions(DOC);
    assert!(now.iter().any(|p| p["emailAddress"] == "ana@example.com" && p["role"] == "owner"));
    assert!(now.iter().any(|p| p["emailAddress"] == "owner@staffroom.test" && p["role"] == "writer"));

    for (body, fields) in [
        (
            json!({"permissions": [{"role": "reader", "type": "anyone", "emailAddress": "a@example.com"}]}),
            vec!["permissions[0].emailAddress"],
        ),
        (
            json!({"permissions": [{"role": "owner", "type": "domain", "domain": "example.com"}]}),
            vec!["permissions[0].role"],
        ),
        (json!({"permissions": [{"role": "reader", "type": "domain"}]}), vec!["permissions[0].domain"]),
        (json!({"permissions": "all"}), vec!["permissions"]),
        (json!({"sendNotificationEmail": "yes"}), vec!["sendNotificationEmail", "permissions"]),
    ] {
        let (status, answer) = app.post(&path, body.clone()).await;
        assert_eq!((status, bad_fields(&answer)), (400, fields.iter().map(|s| s.to_string()).collect()), "{body}");
    }

    // Concurrent shares of one file never overlap at Google.
    app.google().set_faults(GoogleFaults { permission_latency_ms: 150, ..Default::default() });
    let shares = (0..3).map(|n| {
        let path = path.clone();
        let app = &app;
        async move {
            app.post(&path, json!({"permissions": [{"role": "reader", "type": "user", "emailAddress": format!("p{n}@example.com")}]})).await.0
        }
    });
    let statuses = futures::future::join_all(shares).await;
    assert_eq!(statuses, vec![200, 200, 200]);
    assert_eq!(app.google().max_concurrent_permission_changes(), 1);
}

#[tokio::test]
async fn google_failures_map_to_our_codes() {
    let app = SandboxApp::start().await;
    let list = "/api/docs/documents?pageSize=5";
    // A list read once is served from its kept copy while Google is out of reach, so each failure
    // below asks for a list never read before.
    let never_read = |size: u32| format!("/api/docs/documents?pageSize={size}");
    // Rate limits (403 userRateLimitExceeded and 429) are retried with backoff.
    app.google().set_faults(GoogleFaults { rate_limit_burst: 2, ..Default::default() });
    assert_eq!(app.get(list).await.0, 200);
    // Past the retries: rate_limited with Retry-After.
    app.google().set_faults(GoogleFaults { rate_limit_burst: 1000, ..Default::default() });
    let url = format!("{}{}", app.base, never_read(6));
    let response = common::client().get(url).bearer_auth(&app.token).send().await.unwrap();
    assert_eq!(response.status(), 429);
    assert!(response.headers().get("retry-after").is_some());
    // An expired access token is refreshed once, transparently.
    app.google().set_faults(GoogleFaults { reject_token: 1, ..Default::default() });
    assert_eq!(app.get(list).await.0, 200);
    // Refused again after the refresh: unauthorized, naming the provider (never a kept copy).
    app.google().set_faults(GoogleFaults { reject_token: 5, ..Default::default() });
    let (status, body) = app.get(list).await;
    assert_eq!((status, body["error"]["details"]["provider"].as_str()), (401, Some("google")), "{body}");
    // Server errors and time-outs.
    app.google().set_faults(GoogleFaults { error_rate: 1.0, ..Default::default() });
    let (status, body) = app.get(&never_read(7)).await;
    assert_eq!((status, body["error"]["code"].as_str()), (502, Some("integration_error")));
    app.google().set_faults(GoogleFaults { timeout: true, ..Default::default() });
    let (status, body) = app.get(&never_read(8)).await;
    assert_eq!((status, body["error"]["code"].as_str()), (504, Some("integration_error")));
}

#[tokio::test]
async fn a_document_read_once_stays_readable_offline() {
    let app = SandboxApp::start().await;
    let (status, online) = app.get(&format!("/api/docs/documents/{DOC}")).await;
    assert_eq!(status, 200);
    assert!(online.get("stale").is_none());
    app.google().set_faults(GoogleFaults { timeout: true, ..Default::default() });
    let (status, offline) = app.get(&format!("/api/docs/documents/{DOC}")).await;
    assert_eq!(status, 200, "{offline}");
    assert_eq!(offline["stale"], true);
    assert!(offline["fetchedAt"].is_string());
    assert_eq!(offline["document"], online["document"]);
    // A document never read is not invented.
    let (status, _) = app.get("/api/docs/documents/doc002sbxA1b2C3d4E5f6G7h8").await;
    assert_eq!(status, 504);
}

#[tokio::test]
async fn a_list_read_once_stays_readable_offline_marked_stale() {
    let app = SandboxApp::start().await;
    let first = "/api/docs/documents?pageSize=4&orderBy=createdTime";
    let (status, online) = app.get(first).await;
    assert_eq!(status, 200, "{online}");
    assert!(online.get("stale").is_none() && online.get("fetchedAt").is_none(), "{online}");
    let token = online["nextPageToken"].as_str().expect("more than one page").to_string();
    let second = format!("{first}&pageToken={token}");
    let (_, second_online) = app.get(&second).await;

    for faults in
        [GoogleFaults { timeout: true, ..Default::default() }, GoogleFaults { error_rate: 1.0, ..Default::default() }]
    {
        app.google().set_faults(faults);
        for (path, fresh) in [(first, &online), (second.as_str(), &second_online)] {
            let (status, offline) = app.get(path).await;
            assert_eq!(status, 200, "{path}: {offline}");
            assert_eq!(offline["stale"], true);
            assert!(offline["fetchedAt"].as_str().is_some_and(|t| t.ends_with('Z')), "{offline}");
            assert_eq!(
                (&offline["documents"], &offline["nextPageToken"]),
                (&fresh["documents"], &fresh["nextPageToken"])
            );
        }
        // Another folder, order or page size was never read: its error, not another list.
        let (status, body) = app.get("/api/docs/documents?pageSize=4").await;
        assert_eq!(body["error"]["code"], "integration_error", "{status}: {body}");
    }

    // Back online: fresh again.
    app.google().set_faults(GoogleFaults::default());
    let (status, again) = app.get(first).await;
    assert_eq!(status, 200);
    assert!(again.get("stale").is_none(), "{again}");
}

#[tokio::test]
async fn the_editor_saves_through_the_planner_and_never_overwrites_silently() {
    let app = SandboxApp::start().await;
    let (_, read) = app.get(&format!("/api/docs/documents/{DOC}")).await;
    let base = serde_json::from_value::<staffroom::docs::model::Document>(read["document"].clone()).unwrap();
    let mut blocks = staffroom::docs::planner::editable_blocks(&base);
    assert!(
        blocks.iter().any(|b| matches!(b, staffroom::docs::planner::EditBlock::Fixed { .. })),
        "the table is fixed"
    );
    blocks.insert(3, staffroom::docs::planner::EditBlock::paragraph("Added 🎉 by the editor", "HEADING_3"));
    let edits = json!({"baseRevisionId": base.revision_id, "blocks": blocks});

    // A draft survives until saved.
    let (status, _) = app.send(Method::PUT, &format!("/api/docs/documents/{DOC}/draft"), Some(edits.clone())).await;
    assert_eq!(status, 200);
    let (status, draft) = app.get(&format!("/api/docs/documents/{DOC}/draft")).await;
    assert_eq!((status, draft["baseRevisionId"].as_str()), (200, base.revision_id.as_deref()));
    // A draft is its author's: a colleague neither sees it nor can drop it.
    let sam = app.staff_token().await;
    let draft_url = format!("{}/api/docs/documents/{DOC}/draft", app.base);
    assert_eq!(client().get(&draft_url).bearer_auth(&sam).send().await.unwrap().status(), 404);
    assert_eq!(client().delete(&draft_url).bearer_auth(&sam).send().await.unwrap().status(), 204);
    assert_eq!(app.get(&format!("/api/docs/documents/{DOC}/draft")).await.0, 200, "still there for its author");

    let (status, saved) = app.post(&format!("/api/docs/documents/{DOC}/save"), edits.clone()).await;
    assert_eq!(status, 200, "{saved}");
    assert_eq!(saved["outcome"], "saved");
    let after = serde_json::from_value::<staffroom::docs::model::Document>(saved["document"].clone()).unwrap();
    assert_eq!(staffroom::docs::planner::editable_blocks(&after).len(), blocks.len());
    assert!(paragraphs(&saved["document"]).contains(&"Added 🎉 by the editor\n".to_string()));
    assert_eq!(app.get(&format!("/api/docs/documents/{DOC}/draft")).await.0, 404, "the draft is gone once saved");

    // A collaborator edits the same first paragraph; saving the old edits is a conflict.
    app.google()
        .edit_as_collaborator(DOC, &[json!({"insertText": {"location": {"index": 1}, "text": "Theirs: "}})])
        .unwrap();
    let mut mine = staffroom::docs::planner::editable_blocks(&after);
    mine[0] = staffroom::docs::planner::EditBlock::paragraph("Mine", "TITLE");
    let (status, outcome) = app
        .post(&format!("/api/docs/documents/{DOC}/save"), json!({"baseRevisionId": after.revision_id, "blocks": mine}))
        .await;
    assert_eq!(status, 200, "{outcome}");
    assert_eq!(outcome["outcome"], "conflict");
    let conflicts = outcome["rebased"]["conflicts"].as_array().unwrap();
    assert_eq!(conflicts.len(), 1);
    assert_eq!(conflicts[0]["mine"][0]["text"], "Mine");
    assert!(conflicts[0]["theirs"][0]["text"].as_str().unwrap().starts_with("Theirs: "));
    let (_, now) = app.get(&format!("/api/docs/documents/{DOC}")).await;
    assert!(paragraphs(&now["document"])[0].starts_with("Theirs: "), "nothing was overwritten");
    // The rebased edits are kept as the draft against the newer revision.
    let (status, draft) = app.get(&format!("/api/docs/documents/{DOC}/draft")).await;
    assert_eq!((status, &draft["baseRevisionId"]), (200, &now["document"]["revisionId"]));

    // Bad blocks are named.
    let (status, body) = app
        .post(&format!("/api/docs/documents/{DOC}/save"), json!({"baseRevisionId": now["document"]["revisionId"], "blocks": [{"kind": "paragraph", "text": "a\nb", "style": "LOUD"}]}))
        .await;
    assert_eq!(status, 400);
    assert!(bad_fields(&body).contains(&"blocks[0].style".to_string()), "{body}");
}

/// Google sign-in for a server whose admin sits at a desktop: the desktop runs the browser step
/// on its own loopback (here, `BrowserStep` and a scripted browser), the server builds the
/// consent page and exchanges the code and verifier it is handed.
#[tokio::test]
async fn a_browser_step_elsewhere_signs_the_server_in_to_google() {
    let app = SandboxApp::start().await;
    let (status, _) = app.post("/api/docs/google/sign-out", json!({})).await;
    assert_eq!(status, 200);

    // Bad input is refused field by field, before anything reaches Google.
    let (status, body) = app
        .post(
            "/api/docs/google/authorization",
            json!({ "redirectUri": "http://evil.example:80/", "codeChallenge": "short", "state": "x", "extra": 1 }),
        )
        .await;
    assert_eq!(status, 400, "{body}");
    let mut fields = bad_fields(&body);
    fields.sort();
    assert_eq!(fields, ["codeChallenge", "extra", "redirectUri", "state"], "{body}");
    let (status, body) = app.post("/api/docs/google/code", json!({ "code": " ", "codeVerifier": "v" })).await;
    assert_eq!(status, 400, "{body}");
    let mut fields = bad_fields(&body);
    fields.sort();
    assert_eq!(fields, ["code", "codeVerifier", "redirectUri"], "{body}");

    // Staff who are not admins may not sign the server in.
    let (status, _) = app
        .post(
            "/api/users",
            json!({ "email": "clerk@staffroom.test", "name": "Clerk", "password": "a long and unusual clerk passphrase" }),
        )
        .await;
    assert_eq!(status, 201);
    let clerk = app.sign_in("clerk@staffroom.test", "a long and unusual clerk passphrase").await;
    let step = staffroom::docs::oauth::BrowserStep::start().await.unwrap();
    let request =
        json!({ "redirectUri": step.redirect_uri, "codeChallenge": step.code_challenge, "state": step.state });
    let refused =
        client().post(format!("{}/api/docs/google/authorization", app.base)).bearer_auth(&clerk).json(&request);
    assert_eq!(refused.send().await.unwrap().status(), 403);

    let (status, body) = app.post("/api/docs/google/authorization", request).await;
    assert_eq!(status, 200, "{body}");
    let url = url::Url::parse(body["url"].as_str().unwrap()).unwrap();
    let params: std::collections::HashMap<String, String> = url.query_pairs().into_owned().collect();
    assert_eq!(params["code_challenge"], step.code_challenge);
    assert_eq!((params["code_challenge_method"].as_str(), params["state"].as_str()), ("S256", step.state.as_str()));
    assert_eq!(params["redirect_uri"], step.redirect_uri);

    // The user allows, in the browser; the browser step gets the code.
    let browser = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    let page = browser.get(url.as_str()).send().await.unwrap().text().await.unwrap();
    let href = page.split("id=\"allow\" href=\"").nth(1).unwrap().split('"').next().unwrap().replace("&amp;", "&");
    let approved = browser.get(url.join(&href).unwrap()).send().await.unwrap();
    let back = approved.headers()["location"].to_str().unwrap().to_string();
    let landing = tokio::spawn(async move { reqwest::get(back).await.unwrap().status() });
    let code = step.finish(std::time::Duration::from_secs(10)).await.unwrap();
    assert_eq!(landing.await.unwrap(), 200);

    // A wrong verifier: Google refuses, and the server is still signed out.
    let wrong = json!({ "code": code.code.expose(), "codeVerifier": "w".repeat(43), "redirectUri": code.redirect_uri });
    let (status, body) = app.post("/api/docs/google/code", wrong).await;
    assert_eq!((status, body["error"]["details"]["provider"].as_str()), (401, Some("google")), "{body}");
    assert_eq!(app.get("/api/docs/google").await.1["signedIn"], false);

    // The simulator spends a code on any exchange, as Google does; start again and hand it over.
    let step = staffroom::docs::oauth::BrowserStep::start().await.unwrap();
    let request =
        json!({ "redirectUri": step.redirect_uri, "codeChallenge": step.code_challenge, "state": step.state });
    let url =
        url::Url::parse(app.post("/api/docs/google/authorization", request).await.1["url"].as_str().unwrap()).unwrap();
    let page = browser.get(url.as_str()).send().await.unwrap().text().await.unwrap();
    let href = page.split("id=\"allow\" href=\"").nth(1).unwrap().split('"').next().unwrap().replace("&amp;", "&");
    let back =
        browser.get(url.join(&href).unwrap()).send().await.unwrap().headers()["location"].to_str().unwrap().to_string();
    tokio::spawn(reqwest::get(back));
    let code = step.finish(std::time::Duration::from_secs(10)).await.unwrap();
    let handed =
        json!({ "code": code.code.expose(), "codeVerifier": code.verifier.expose(), "redirectUri": code.redirect_uri });
    let (status, body) = app.post("/api/docs/google/code", handed).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!((body["signedIn"].as_bool(), body["kind"].as_str()), (Some(true), Some("oauth")), "{body}");
    let (status, list) = app.get("/api/docs/documents").await;
    assert_eq!(status, 200, "documents work with the exchanged token: {list}");

    let (_, audit) = app.get("/api/audit?limit=10").await;
    let sign_ins: Vec<&str> = audit
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["action"] == "settings.google_sign_in")
        .map(|e| e["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(sign_ins, ["success", "failure"], "{audit}");
}

/// A draft holds the editor's whole model (text, runs, alignment, list places, a table with a
/// row added) and is on disk once the answer came: a SIGKILL right after loses none of it.
#[tokio::test]
async fn a_kept_draft_survives_a_crash_whole() {
    let dir = tempfile::tempdir().unwrap();
    let options = || ServerOptions { data_dir: Some(dir.path().to_path_buf()), ..Default::default() };
    let mut server = Server::start(options());
    let token = demo_token(&server).await;
    let editor = server.url(&format!("/api/docs/documents/{DOC}/editor"));
    let view: Value = client().get(&editor).bearer_auth(&token).send().await.unwrap().json().await.unwrap();
    let mut blocks = view["blocks"].as_array().unwrap().clone();
    let first = blocks.iter().position(|b| b["style"] == "NORMAL_TEXT").unwrap();
    blocks[first]["text"] = json!("Typed 😀 just before the crash");
    blocks[first]["runs"] = json!([{"len": 5, "bold": true}, {"len": 3}, {"len": 22, "link": "https://example.com/x"}]);
    blocks[first]["alignment"] = json!("CENTER");
    blocks[first]["list"] = json!({"id": "kix.new", "kind": "number", "level": 1});
    let table = blocks.iter_mut().find(|b| b["kind"] == "table").expect("the seeded table is editable");
    let width = table["columns"].as_array().unwrap().len();
    let cell =
        json!([{"kind": "paragraph", "text": "new", "style": "NORMAL_TEXT", "alignment": "END", "runs": [{"len": 3}]}]);
    table["rows"].as_array_mut().unwrap().push(json!({"cells": vec![cell; width]}));
    let draft_url = server.url(&format!("/api/docs/documents/{DOC}/draft"));
    let edits = json!({"baseRevisionId": view["document"]["revisionId"], "blocks": blocks});
    let kept = client().put(&draft_url).bearer_auth(&token).json(&edits).send().await.unwrap();
    assert_eq!(kept.status(), 200, "{}", kept.text().await.unwrap());

    server.signal_and_wait("KILL");
    let server = Server::start(options());
    let token = demo_token(&server).await;
    let answer =
        client().get(server.url(&format!("/api/docs/documents/{DOC}/draft"))).bearer_auth(&token).send().await.unwrap();
    assert_eq!(answer.status(), 200);
    let draft: Value = answer.json().await.unwrap();
    assert_eq!(draft["blocks"], edits["blocks"]);
    assert_eq!(draft["baseRevisionId"], edits["baseRevisionId"]);
}

/// A document whose named Title style is centred (`namedStyles`): the editor is told so, its
/// title says nothing of its own alignment, and a paragraph added without one is saved without
/// one, so that it shows its named style's as it does in Docs.
#[tokio::test]
async fn named_styles_are_read_and_a_new_paragraph_keeps_to_them() {
    use staffroom::docs::planner::EditBlock;
    let app = SandboxApp::start().await;
    let id = "doc002sbxA1b2C3d4E5f6G7h8";
    let (status, view) = app.get(&format!("/api/docs/documents/{id}/editor")).await;
    assert_eq!(status, 200, "{view}");
    let title_style = view["styles"].as_array().unwrap().iter().find(|s| s["id"] == "TITLE").unwrap().clone();
    assert_eq!((&title_style["alignment"], &title_style["fontSize"]), (&json!("CENTER"), &json!(26.0)));
    let mut blocks: Vec<EditBlock> = serde_json::from_value(view["blocks"].clone()).unwrap();
    assert!(
        matches!(&blocks[0], EditBlock::Paragraph { style, alignment: None, .. } if style == "TITLE"),
        "the title has no alignment of its own: {:?}",
        blocks[0]
    );
    // A second title line, as Enter after the title makes it: no alignment of its own.
    blocks.insert(1, EditBlock::paragraph("Second line", "TITLE"));
    if let EditBlock::Paragraph { runs, .. } = &mut blocks[1] {
        *runs = Some(vec![staffroom::docs::planner::StyledRun { len: 11, ..Default::default() }]);
    }
    let saved = app.save_document(id, &view, json!(blocks)).await;
    assert_eq!(saved["outcome"], "saved", "{saved}");
    // Google's copy: both title paragraphs without an alignment of their own.
    let copy = app.google().document_json(id).unwrap();
    let titles: Vec<&Value> = copy["body"]["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e.pointer("/paragraph/paragraphStyle/namedStyleType") == Some(&json!("TITLE")))
        .collect();
    assert_eq!(titles.len(), 2);
    for title in titles {
        assert_eq!(title.pointer("/paragraph/paragraphStyle/alignment"), None, "{title}");
    }
}

/// A document of several tabs is read with every tab (`includeTabsContent=true`): its first
/// tab's content is what the editor shows and edits, and its tabs are outlined, a nested one
/// under its parent, so that nothing in the others passes unsaid.
#[tokio::test]
async fn a_document_with_tabs_is_read_whole_and_its_tabs_are_outlined() {
    let app = SandboxApp::start().await;
    let id = "doc009sbxA1b2C3d4E5f6G7h8";
    let (status, view) = app.get(&format!("/api/docs/documents/{id}/editor")).await;
    assert_eq!(status, 200, "{view}");
    assert_eq!(
        view["document"]["tabsOutline"],
        json!([
            {"id": "t.0", "title": "Tab 1", "level": 0},
            {"id": "t.6r0bq3kd1x2m", "title": "Decisions", "level": 0},
            {"id": "t.h4v9w2zq0c7e", "title": "Action items", "level": 1},
        ])
    );
    assert!(paragraphs(&view["document"])[0].starts_with("Meeting notes 9"), "the first tab's content");
    // A one-tab document has no outline.
    let (_, single) = app.get("/api/docs/documents/doc002sbxA1b2C3d4E5f6G7h8").await;
    assert!(single["document"].get("tabsOutline").is_none(), "{}", single["document"]);

    // The simulator as Google: `includeTabsContent` is a boolean; a request names a tab that is.
    let google = app.google();
    let token = google.issue_token()["access_token"].as_str().unwrap().to_string();
    let answer = client()
        .get(format!("{}/v1/documents/{id}?includeTabsContent=yes", google.base_url()))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 400);
    let url = format!("{}/v1/documents/{id}:batchUpdate", google.base_url());
    let refused = [
        (json!({"insertText": {"location": {"index": 1, "tabId": "t.nothere"}, "text": "x"}}), "does not exist"),
        (
            // Measured against that tab's own content, not the first's.
            json!({"deleteContentRange": {"range": {"startIndex": 1, "endIndex": 9000, "tabId": "t.6r0bq3kd1x2m"}}}),
            "must be less than the end index of the referenced segment",
        ),
    ];
    for (request, message) in refused {
        let body = json!({"requests": [request]});
        let answer = client().post(&url).bearer_auth(&token).json(&body).send().await.unwrap();
        assert_eq!(answer.status(), 400);
        let error: Value = answer.json().await.unwrap();
        assert!(error["error"]["message"].as_str().unwrap().contains(message), "{error}");
    }
    let first = json!({"requests": [{"insertText": {"location": {"index": 1, "tabId": "t.0"}, "text": "x"}}]});
    assert_eq!(client().post(&url).bearer_auth(&token).json(&first).send().await.unwrap().status(), 200);
}

/// A tab other than the first is opened in the editor by its id, edited and saved: every request
/// names the tab, so the text lands in that tab of Google's copy and the other tabs are as they
/// were; its draft is its own. A tab the document does not have is a 404, a malformed id a 400.
#[tokio::test]
async fn a_tab_other_than_the_first_is_edited_and_saved_in_its_own_tab() {
    use staffroom::docs::planner::EditBlock;
    let app = SandboxApp::start().await;
    let id = "doc009sbxA1b2C3d4E5f6G7h8";
    let tab_text = |doc: &Value, tab: &str| -> Vec<String> {
        fn find<'a>(tabs: &'a Value, tab: &str) -> Option<&'a Value> {
            tabs.as_array()?.iter().find_map(|t| {
                if t["tabProperties"]["tabId"] == tab {
                    Some(&t["documentTab"])
                } else {
                    find(&t["childTabs"], tab)
                }
            })
        }
        paragraphs(find(&doc["tabs"], tab).expect("the tab"))
    };
    let before = app.google().document_json_with_tabs(id).unwrap();
    // The first tab read too, so that its copy is kept beside the others'.
    assert_eq!(app.get(&format!("/api/docs/documents/{id}/editor")).await.0, 200);

    for tab in ["t.6r0bq3kd1x2m", "t.h4v9w2zq0c7e"] {
        let (status, view) = app.get(&format!("/api/docs/documents/{id}/editor?tabId={tab}")).await;
        assert_eq!(status, 200, "{view}");
        assert_eq!(view["document"]["tabId"], tab);
        assert_eq!(paragraphs(&view["document"]), tab_text(&before, tab), "the tab's own content");
        assert_eq!(view["document"]["tabsOutline"].as_array().unwrap().len(), 3);

        // A draft of this tab is this tab's: the first tab has none.
        let mut blocks: Vec<EditBlock> = serde_json::from_value(view["blocks"].clone()).unwrap();
        let EditBlock::Paragraph { text, runs, .. } = &mut blocks[0] else { panic!("a paragraph first") };
        text.push_str(" (checked)");
        *runs = None; // plain text, as typed

        let edits = json!({"baseRevisionId": view["document"]["revisionId"], "blocks": blocks, "tabId": tab});
        let (status, draft) = app.send(reqwest::Method::PUT, &format!("/api/docs/documents/{id}/draft"), Some(edits)).await;
        assert_eq!(status, 200, "{draft}");
        assert_eq!(app.get(&format!("/api/docs/documents/{id}/draft")).await.0, 404, "the first tab has no draft");
        assert_eq!(app.get(&format!("/api/docs/documents/{id}/draft?tabId={tab}")).await.0, 200);

        let saved = app.save_document(id, &view, serde_json::to_value(&blocks).unwrap()).await;
        assert_eq!(saved["outcome"], "saved", "{saved}");
        assert_eq!(saved["document"]["tabId"], tab);
        let after = app.google().document_json_with_tabs(id).unwrap();
        let mut expected = tab_text(&before, tab);
        expected[0] = format!("{} (checked)\n", expected[0].trim_end_matches('\n'));
        assert_eq!(tab_text(&after, tab), expected, "the text is in its tab");
        assert_eq!(tab_text(&after, "t.0"), tab_text(&before, "t.0"), "the first tab is as it was");
        assert_eq!(app.get(&format!("/api/docs/documents/{id}/draft?tabId={tab}")).await.0, 404, "saved: no draft left");
    }
    // Each saved tab changed only itself.
    let after = app.google().document_json_with_tabs(id).unwrap();
    assert_ne!(tab_text(&after, "t.6r0bq3kd1x2m"), tab_text(&before, "t.6r0bq3kd1x2m"));
    assert_ne!(tab_text(&after, "t.h4v9w2zq0c7e"), tab_text(&before, "t.h4v9w2zq0c7e"));

    let (status, error) = app.get(&format!("/api/docs/documents/{id}/editor?tabId=t.nothere")).await;
    assert_eq!((status, error["error"]["code"].as_str()), (404, Some("not_found")), "{error}");
    // A tab the document does not have leaves its offline copy alone: Google out of reach, the
    // copy read before still opens.
    // Each tab's copy is its own: out of reach, the first tab and the tab saved above open as
    // they were read, each its own content.
    app.google().set_faults(GoogleFaults { timeout: true, ..Default::default() });
    let (status, offline) = app.get(&format!("/api/docs/documents/{id}/editor")).await;
    assert_eq!((status, &offline["stale"]), (200, &json!(true)), "{offline}");
    assert_eq!(paragraphs(&offline["document"]), tab_text(&after, "t.0"));
    let (status, offline) = app.get(&format!("/api/docs/documents/{id}/editor?tabId=t.h4v9w2zq0c7e")).await;
    assert_eq!((status, &offline["stale"]), (200, &json!(true)), "{offline}");
    assert_eq!(paragraphs(&offline["document"]), tab_text(&after, "t.h4v9w2zq0c7e"));
    app.google().set_faults(GoogleFaults::default());
    let (status, error) = app.get(&format!("/api/docs/documents/{id}/editor?tabId=tab%201")).await;
    assert_eq!(status, 400, "{error}");
    assert_eq!(error["error"]["details"]["fields"][0]["field"], "tabId", "{error}");
}

/// Runs that look as the editor cannot make them (raised, coloured, highlighted, another font
/// and size) are sent to the editor as they look, and a save that does not delete their text
/// leaves every one of them in Google's copy as it was.
#[tokio::test]
async fn looks_the_editor_does_not_edit_are_shown_and_kept() {
    use staffroom::docs::planner::EditBlock;
    let app = SandboxApp::start().await;
    let id = "doc004sbxA1b2C3d4E5f6G7h8";
    let styles_of = |doc: &Value, text: &str| -> Option<Value> {
        doc["body"]["content"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|e| e["paragraph"]["elements"].as_array())
            .flatten()
            .find(|e| e["textRun"]["content"] == text)
            .map(|e| e["textRun"]["textStyle"].clone())
    };
    let before = app.google().document_json(id).unwrap();
    let (status, view) = app.get(&format!("/api/docs/documents/{id}/editor")).await;
    assert_eq!(status, 200, "{view}");
    let mut blocks: Vec<EditBlock> = serde_json::from_value(view["blocks"].clone()).unwrap();
    let at = blocks
        .iter()
        .position(|b| matches!(b, EditBlock::Paragraph { text, .. } if text.starts_with("Bring your P45")))
        .unwrap();
    let looks: Vec<Value> =
        view["blocks"][at]["runs"].as_array().unwrap().iter().filter_map(|r| r.get("look").cloned()).collect();
    assert_eq!(
        looks,
        [
            json!({"baseline": "SUPERSCRIPT"}),
            json!({"color": "#cc0000"}),
            json!({"highlight": "#fff299"}),
            json!({"font": "Roboto Mono", "size": "10"}),
        ]
    );
    // A word added at the paragraph's end, with the runs as the editor sends them back.
    if let EditBlock::Paragraph { text, runs, .. } = &mut blocks[at] {
        text.push_str(" Welcome!");
        runs.as_mut().unwrap().push(staffroom::docs::planner::StyledRun { len: 9, ..Default::default() });
    }
    let saved = app.save_document(id, &view, json!(blocks)).await;
    assert_eq!(saved["outcome"], "saved", "{saved}");
    let after = app.google().document_json(id).unwrap();
    for text in ["1", "security notes", "highlighted", "staffroom-guest"] {
        assert_eq!(styles_of(&after, text), styles_of(&before, text), "{text}");
        assert!(styles_of(&after, text).is_some(), "{text}");
    }
    // What the schema refuses, the service refuses.
    let mut bad: Vec<Value> = serde_json::from_value(view["blocks"].clone()).unwrap();
    bad[at]["runs"][1]["look"]["color"] = json!("red");
    let edits = json!({"baseRevisionId": after["revisionId"], "blocks": bad});
    let (status, body) = app.post(&format!("/api/docs/documents/{id}/save"), edits).await;
    assert_eq!(status, 400, "{body}");
    assert!(bad_fields(&body).iter().any(|f| f.ends_with("].look.color")), "{body}");
}
