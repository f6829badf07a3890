//! The Google contract. Every JSON body our Google client sends, every query parameter it uses,
//! every field it reads, and every body the simulator returns, checked against Google's discovery
//! documents (`crates/staffroom-sandbox/discovery/*.json`, copied from Google's published ones,
//! which the simulator also holds requests to):
//! field names and types. And the fixtures written from documented and observed answers
//! (`tests/contract/google/`, sources in the README there) decode the way the client reads them,
//! with each of their field paths that the client reads also in the simulator's answers.

mod common;

use std::path::PathBuf;

use common::SandboxApp;
use reqwest::Method;
use serde_json::{json, Map, Value};

fn discovery(name: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("crates/staffroom-sandbox/discovery").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

/// Checks `value` against `schema`; appends "path: problem" for each mismatch.
fn check(value: &Value, schema: &Value, schemas: &Map<String, Value>, path: &str, errors: &mut Vec<String>) {
    if let Some(name) = schema.get("$ref").and_then(Value::as_str) {
        let target = schemas.get(name).unwrap_or_else(|| panic!("no schema {name}"));
        return check(value, target, schemas, path, errors);
    }
    let kind = schema.get("type").and_then(Value::as_str).unwrap_or("any");
    let ok = match kind {
        // int64 values are JSON strings in Google's APIs.
        "string" => value.is_string(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "boolean" => value.is_boolean(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        _ => true,
    };
    if !ok {
        errors.push(format!("{path}: expected {kind}, found {value}"));
        return;
    }
    if let (Some(allowed), Some(s)) = (schema.get("enum").and_then(Value::as_array), value.as_str()) {
        if !allowed.iter().any(|a| a == s) {
            errors.push(format!("{path}: {s} is not one of the enum values"));
        }
    }
    match value {
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for (i, item) in items.iter().enumerate() {
                    check(item, item_schema, schemas, &format!("{path}[{i}]"), errors);
                }
            }
        }
        Value::Object(object) => {
            let properties = schema.get("properties").and_then(Value::as_object);
            let additional = schema.get("additionalProperties");
            for (key, v) in object {
                match (properties.and_then(|p| p.get(key)), additional) {
                    (Some(s), _) => check(v, s, schemas, &format!("{path}.{key}"), errors),
                    (None, Some(s)) => check(v, s, schemas, &format!("{path}.{key}"), errors),
                    (None, None) if properties.is_some() => errors.push(format!("{path}.{key}: not in the schema")),
                    (None, None) => {}
                }
            }
        }
        _ => {}
    }
}

struct Api {
    docs: Value,
    drive: Value,
}

impl Api {
    fn root(&self, api: &str) -> &Value {
        if api == "docs" {
            &self.docs
        } else {
            &self.drive
        }
    }

    fn schemas(&self, api: &str) -> &Map<String, Value> {
        self.root(api)["schemas"].as_object().unwrap()
    }

    fn method(&self, api: &str, resource: &str, method: &str) -> &Value {
        &self.root(api)["resources"][resource]["methods"][method]
    }

    fn params(&self, api: &str, resource: &str, method: &str) -> Vec<String> {
        let root = self.root(api);
        let mut names: Vec<String> = root["parameters"].as_object().unwrap().keys().cloned().collect();
        names.extend(self.method(api, resource, method)["parameters"].as_object().unwrap().keys().cloned());
        names
    }
}

/// Which discovery method an exchange is: (api, resource, method).
fn identify(method: &str, path: &str) -> Option<(&'static str, &'static str, &'static str)> {
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    match (method, segments.as_slice()) {
        ("GET", ["drive", "v3", "files"]) => Some(("drive", "files", "list")),
        ("GET", ["drive", "v3", "files", "generateIds"]) => Some(("drive", "files", "generateIds")),
        ("GET", ["drive", "v3", "files", _]) => Some(("drive", "files", "get")),
        ("POST", ["drive", "v3", "files"]) => Some(("drive", "files", "create")),
        ("POST", ["drive", "v3", "files", _, "permissions"]) => Some(("drive", "permissions", "create")),
        ("POST", ["drive", "v3", "files", _, "copy"]) => Some(("drive", "files", "copy")),
        ("GET", ["drive", "v3", "files", _, "export"]) => Some(("drive", "files", "export")),
        ("GET", ["v1", "documents", _]) => Some(("docs", "documents", "get")),
        ("POST", ["v1", "documents", id]) if id.ends_with(":batchUpdate") => Some(("docs", "documents", "batchUpdate")),
        _ => None,
    }
}

/// Whether `path` is one of `template`'s (a discovery path: `{name}` is one path segment's text
/// or more, never a `/`).
fn path_matches(template: &str, path: &str) -> bool {
    let Some(open) = template.find('{') else { return template == path };
    let close = open + template[open..].find('}').expect("a closed {name}");
    let Some(tail) = path.strip_prefix(&template[..open]) else { return false };
    // The variable takes the text up to the next `/` at most.
    let segment = tail.find('/').unwrap_or(tail.len());
    (1..=segment).filter(|&n| tail.is_char_boundary(n)).any(|n| path_matches(&template[close + 1..], &tail[n..]))
}

fn urlencode(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

fn schema_ref(name: Option<&Value>) -> Option<Value> {
    name.and_then(|r| r.get("$ref")).map(|r| json!({ "$ref": r }))
}

#[tokio::test]
async fn what_we_send_and_what_the_simulator_returns_match_the_discovery_documents() {
    let api = Api { docs: discovery("docs.v1.json"), drive: discovery("drive.v3.json") };
    let app = SandboxApp::start().await;

    // Every kind of call the client makes.
    let (_, list) = app.get("/api/docs/documents?pageSize=5&orderBy=createdTime").await;
    let token = list["nextPageToken"].as_str().unwrap();
    app.get(&format!("/api/docs/documents?pageSize=5&orderBy=createdTime&pageToken={}", urlencode(token))).await;
    app.get("/api/docs/documents?folderId=fld_support").await;
    let (status, created) = app
        .post(
            "/api/docs/documents",
            json!({"name": "Schema check 😀", "content": "Hello\nWorld 🐙", "folderId": "fld_operations",
                   "permissions": [{"role": "writer", "type": "user", "emailAddress": "w@example.com"},
                                   {"role": "reader", "type": "domain", "domain": "example.com"},
                                   {"role": "reader", "type": "anyone"}],
                   "sendNotificationEmail": false}),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    let id = created["document"]["id"].as_str().unwrap().to_string();
    let (_, read) = app.get(&format!("/api/docs/documents/{id}")).await;
    let revision = read["document"]["revisionId"].as_str().unwrap().to_string();
    let (status, patched) = app
        .send(
            Method::PATCH,
            &format!("/api/docs/documents/{id}"),
            Some(json!({"requiredRevisionId": revision, "requests": [
                {"insertText": {"text": "!", "location": {"index": 6}}},
                {"deleteContentRange": {"range": {"startIndex": 1, "endIndex": 2}}},
                {"updateParagraphStyle": {"range": {"startIndex": 1, "endIndex": 3}, "paragraphStyle": {"namedStyleType": "HEADING_1", "alignment": "CENTER"}}}
            ]})),
        )
        .await;
    assert_eq!(status, 200, "{patched}");
    // The editor's saves, which send every other kind of request: a bold word, a list made
    // and then removed, a table's rows and columns added and removed, a new table, a cell
    // aligned to the end.
    let seeded = "doc002sbxA1b2C3d4E5f6G7h8";
    let (_, view) = app.get(&format!("/api/docs/documents/{seeded}/editor")).await;
    let mut blocks = view["blocks"].as_array().unwrap().clone();
    let first_text = blocks.iter().position(|b| b["style"] == "NORMAL_TEXT").unwrap();
    let units = blocks[first_text]["text"].as_str().unwrap().encode_utf16().count();
    blocks[first_text]["runs"] = json!([{"len": 4, "bold": true}, {"len": units - 4}]);
    blocks[first_text]["list"] = json!({"id": "new.contract", "kind": "bullet", "level": 0});
    let table = blocks.iter_mut().find(|b| b["kind"] == "table").unwrap();
    let aligned_cell = |text: &str, alignment: &str| json!([{"kind": "paragraph", "text": text, "style": "NORMAL_TEXT", "alignment": alignment, "runs": [{"len": text.len()}]}]);
    let new_cell = |text: &str| aligned_cell(text, "START");
    table["columns"] = json!([0, null]);
    let rows = table["rows"].as_array_mut().unwrap();
    rows.remove(2);
    for row in rows.iter_mut() {
        let cells = row["cells"].as_array_mut().unwrap();
        cells.truncate(1);
        cells.push(new_cell("New"));
    }
    rows.push(json!({"cells": [new_cell("Tea"), aligned_cell("5", "END")]}));
    blocks.insert(
        first_text + 1,
        json!({"kind": "table", "columns": [null, null], "rows": [{"cells": [new_cell("A"), new_cell("B")]}]}),
    );
    let saved = app.save_document(seeded, &view, json!(blocks)).await;
    // The saved revision holds what was sent (the editor goes on from it, relabelled): the same
    // blocks apart from where tables start, which rows and columns they are, and list ids.
    let content = |blocks: &Value| -> Vec<Value> {
        let mut blocks = blocks.as_array().unwrap().clone();
        fn strip(v: &mut Value) {
            if let Some(o) = v.as_object_mut() {
                for key in ["startIndex", "columns", "from"] {
                    o.remove(key);
                }
                if let Some(list) = o.get_mut("list").and_then(Value::as_object_mut) {
                    list.remove("id");
                }
                o.values_mut().for_each(strip);
            } else if let Some(a) = v.as_array_mut() {
                a.iter_mut().for_each(strip);
            }
        }
        blocks.iter_mut().for_each(strip);
        blocks
    };
    assert_eq!(content(&saved["blocks"]), content(&json!(blocks)));
    let (_, view) = app.get(&format!("/api/docs/documents/{seeded}/editor")).await;
    let mut blocks = view["blocks"].as_array().unwrap().clone();
    let item = blocks.iter().position(|b| b.get("list").is_some()).expect("the list was made");
    blocks[item].as_object_mut().unwrap().remove("list");
    app.save_document(seeded, &view, json!(blocks)).await;
    let kinds: std::collections::BTreeSet<String> = app
        .google()
        .exchanges()
        .iter()
        .filter_map(|e| e.request.as_ref()?.get("requests")?.as_array().cloned())
        .flatten()
        .filter_map(|r| r.as_object()?.keys().next().cloned())
        .collect();
    assert_eq!(
        kinds.into_iter().collect::<Vec<_>>(),
        [
            "createParagraphBullets",
            "deleteContentRange",
            "deleteParagraphBullets",
            "deleteTableColumn",
            "deleteTableRow",
            "insertTable",
            "insertTableColumn",
            "insertTableRow",
            "insertText",
            "updateParagraphStyle",
            "updateTextStyle",
        ]
    );
    app.post(
        &format!("/api/docs/documents/{id}/permissions"),
        json!({"permissions": [{"role": "owner", "type": "user", "emailAddress": "w@example.com"}]}),
    )
    .await;
    app.get("/api/docs/documents/doc001sbxA1b2C3d4E5f6G7h8?suggestionsViewMode=PREVIEW_WITHOUT_SUGGESTIONS").await;
    // The document with everything besides text, and the ones shared to view or comment only.
    app.get("/api/docs/documents/doc001sbxA1b2C3d4E5f6G7h8").await;
    app.get("/api/docs/documents/doc006sbxA1b2C3d4E5f6G7h8").await;
    app.get("/api/docs/documents/doc010sbxA1b2C3d4E5f6G7h8").await;

    let mut errors = Vec::new();
    let seen = check_exchanges(&api, &app.google().exchanges(), &mut errors);
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    assert_eq!(
        seen.into_iter().collect::<Vec<_>>(),
        vec![
            "documents.batchUpdate",
            "documents.get",
            "files.create",
            "files.generateIds",
            "files.list",
            "permissions.create"
        ]
    );
}

/// Checks each exchange against its discovery method (query parameters, request body, answer);
/// the methods seen, as `resource.method`.
fn check_exchanges(
    api: &Api,
    exchanges: &[staffroom::sandbox::google::Exchange],
    errors: &mut Vec<String>,
) -> std::collections::BTreeSet<String> {
    let mut seen = std::collections::BTreeSet::new();
    for exchange in exchanges {
        let Some((name, resource, method)) = identify(&exchange.method, &exchange.path) else {
            panic!("an unknown call: {} {}", exchange.method, exchange.path);
        };
        seen.insert(format!("{resource}.{method}"));
        let schemas = api.schemas(name);
        let spec = api.method(name, resource, method);
        let at = format!("{} {}", exchange.method, exchange.path);
        // The method's HTTP method and path (its service path and path template).
        if spec["httpMethod"] != exchange.method.as_str() {
            errors.push(format!("{at}: the discovery document's method is {}", spec["httpMethod"]));
        }
        let template = format!("{}{}", api.root(name)["servicePath"].as_str().unwrap(), spec["path"].as_str().unwrap());
        if !path_matches(&template, exchange.path.trim_start_matches('/')) {
            errors.push(format!("{at}: not the discovery document's path {template}"));
        }
        let params = api.params(name, resource, method);
        for key in exchange.query.keys() {
            if !params.contains(key) {
                errors.push(format!("{at}: query parameter {key} is not in the discovery document"));
            }
        }
        for (key, param) in spec["parameters"].as_object().unwrap() {
            if param["required"] == true && param["location"] == "query" && !exchange.query.contains_key(key) {
                errors.push(format!("{at}: the required query parameter {key} is missing"));
            }
        }
        match (schema_ref(spec.get("request")), &exchange.request) {
            (Some(schema), Some(body)) => check(body, &schema, schemas, &format!("{at} request"), errors),
            (None, Some(body)) => errors.push(format!("{at}: sent a body the method does not take: {body}")),
            _ => {}
        }
        if exchange.status == 403 && method == "get" {
            // A viewer reading with suggestions: refused, then read in their own view.
            continue;
        }
        assert!((200..300).contains(&exchange.status), "{at} failed: {:?}", exchange.response);
        if spec.get("supportsMediaDownload") == Some(&Value::Bool(true)) && spec.get("response").is_none() {
            // A file, not JSON (files.export).
            continue;
        }
        let response = schema_ref(spec.get("response")).expect("every method here answers a body");
        let body = exchange.response.as_ref().expect("a JSON answer");
        check(body, &response, schemas, &format!("{at} response"), errors);
    }
    seen
}

#[tokio::test]
async fn copying_filling_and_exporting_match_the_discovery_documents() {
    let api = Api { docs: discovery("docs.v1.json"), drive: discovery("drive.v3.json") };
    let app = SandboxApp::start().await;
    let (_, templates) = app.get("/api/docs/templates").await;
    let welcome = templates["templates"].as_array().unwrap().iter().find(|t| t["name"] == "Welcome letter").unwrap();
    let (_, customers) = app.get("/api/payments/customers?limit=1").await;
    let made = json!({"templateId": welcome["id"], "name": "Contract letter", "customerId": customers["customers"][0]["id"],
                      "folderId": "fld_support", "shareWith": "reader"});
    let (status, made) = app.post("/api/docs/documents/from-template", made).await;
    assert_eq!(status, 201, "{made}");
    let id = made["document"]["id"].as_str().unwrap();
    for format in ["pdf", "docx", "txt"] {
        let url = format!("{}/api/docs/documents/{id}/export?format={format}", app.base);
        let answer = common::client().get(url).bearer_auth(&app.token).send().await.unwrap();
        assert_eq!(answer.status(), 200);
    }
    let exchanges = app.google().exchanges();
    let mut errors = Vec::new();
    let seen = check_exchanges(&api, &exchanges, &mut errors);
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    for method in ["files.copy", "files.export", "documents.batchUpdate", "permissions.create"] {
        assert!(seen.contains(method), "{method} was not called: {seen:?}");
    }
    // files.copy: the File body with only the id Drive generated, the name and the folder, for
    // files in every drive, answering the summary's fields.
    let copy = exchanges.iter().find(|e| e.path.ends_with("/copy")).unwrap();
    assert_eq!(copy.path, format!("/drive/v3/files/{}/copy", welcome["id"].as_str().unwrap()));
    let body = copy.request.as_ref().unwrap();
    let fields: Vec<&str> = body.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(fields, ["id", "name", "parents"], "{body}");
    assert_eq!(
        (body["id"].as_str(), &body["name"], &body["parents"]),
        (Some(id), &json!("Contract letter"), &json!(["fld_support"]))
    );
    let generated: Vec<&str> = exchanges
        .iter()
        .filter(|e| e.path.ends_with("/generateIds"))
        .filter_map(|e| e.response.as_ref()?["ids"][0].as_str())
        .collect();
    assert!(generated.contains(&id), "the copy's id is one files.generateIds gave: {generated:?}");
    assert_eq!(copy.query.get("supportsAllDrives").map(String::as_str), Some("true"));
    assert!(copy.query.get("fields").is_some_and(|f| f.starts_with("id,name,mimeType")), "{:?}", copy.query);
    // One batch of replaceAllText on the copy, each placeholder matching case (the schema's
    // ReplaceAllTextRequest and SubstringMatchCriteria, checked above), no other kind of request,
    // and each reply read where Docs puts its count.
    let batches: Vec<&staffroom::sandbox::google::Exchange> =
        exchanges.iter().filter(|e| e.path.ends_with(":batchUpdate")).collect();
    assert_eq!(batches.len(), 1, "one batchUpdate fills the copy");
    assert_eq!(batches[0].path, format!("/v1/documents/{id}:batchUpdate"));
    let requests = batches[0].request.as_ref().unwrap()["requests"].as_array().unwrap();
    let placeholders: Vec<&str> =
        requests.iter().map(|r| r["replaceAllText"]["containsText"]["text"].as_str().unwrap()).collect();
    assert_eq!(placeholders, ["{{today}}", "{{customer.name}}", "{{customer.email}}", "{{staff.name}}"]);
    for request in requests {
        assert_eq!(request.as_object().unwrap().len(), 1, "{request}");
        let fields: Vec<&str> = request["replaceAllText"].as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(fields, ["containsText", "replaceText"], "{request}");
        assert_eq!(request["replaceAllText"]["containsText"]["matchCase"], true, "{request}");
    }
    let replies = batches[0].response.as_ref().unwrap()["replies"].as_array().unwrap();
    assert_eq!(replies.len(), requests.len());
    assert!(replies.iter().all(|r| r["replaceAllText"]["occurrencesChanged"].as_u64() >= Some(1)), "{replies:?}");
    let asked: Vec<&str> = exchanges
        .iter()
        .filter(|e| e.path.ends_with("/export"))
        .filter_map(|e| e.query.get("mimeType").map(String::as_str))
        .collect();
    assert_eq!(
        asked,
        ["application/pdf", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "text/plain"]
    );
    for export in exchanges.iter().filter(|e| e.path.ends_with("/export")) {
        assert_eq!(export.path, format!("/drive/v3/files/{id}/export"));
        assert_eq!(export.query.keys().collect::<Vec<_>>(), ["mimeType"], "files.export takes the format only");
    }
    let export_formats =
        api.drive["resources"]["files"]["methods"]["export"]["parameters"]["mimeType"]["required"].clone();
    assert_eq!(export_formats, true, "Drive requires the format");
}

#[test]
fn discovery_paths_match_the_paths_sent() {
    assert!(path_matches("drive/v3/files/{fileId}/copy", "drive/v3/files/1abc/copy"));
    assert!(path_matches("v1/documents/{documentId}:batchUpdate", "v1/documents/d1:batchUpdate"));
    assert!(!path_matches("drive/v3/files/{fileId}/copy", "drive/v3/files/a/b/copy"));
    assert!(!path_matches("drive/v3/files/{fileId}", "drive/v3/files/"));
    assert!(!path_matches("drive/v3/files/{fileId}/export", "drive/v3/files/x/exports"));
}

/// The simulator's `files.copy`, `replaceAllText` and `files.export`, called as Google's are:
/// a copy of a template (everything in it, a fresh revision, the user's, in the template's
/// folder), placeholders replaced across a bold run in the style of their first character, and
/// the copy as a PDF a reader finds the accented name in, as text and as a DOCX package; and
/// what Drive refuses, with Drive's reasons.
#[tokio::test]
async fn the_simulator_copies_fills_and_exports_as_drive_and_docs_do() {
    let app = SandboxApp::start().await;
    let google = app.google();
    let token = google.issue_token()["access_token"].as_str().unwrap().to_string();
    let base = google.base_url().to_string();
    let http = reqwest::Client::new();
    let call = |method: Method, path: &str, body: Option<Value>| {
        let mut request = http.request(method, format!("{base}{path}")).bearer_auth(&token);
        if let Some(body) = body {
            request = request.json(&body);
        }
        async move { request.send().await.unwrap() }
    };
    let json_of =
        |answer: reqwest::Response| async move { (answer.status().as_u16(), answer.json::<Value>().await.unwrap()) };
    let reason = |error: &Value| error["error"]["errors"][0]["reason"].as_str().unwrap_or_default().to_string();
    let template = "tplWelcomeLetterSbx01";
    let copy_path = |source: &str| {
        format!(
            "/drive/v3/files/{source}/copy?supportsAllDrives=true&fields=id,name,mimeType,parents,owners(emailAddress)"
        )
    };
    let generate = || async {
        let (_, ids) =
            json_of(call(Method::GET, "/drive/v3/files/generateIds?count=1&space=drive&type=files", None).await).await;
        ids["ids"][0].as_str().unwrap().to_string()
    };

    // A copy with the id asked for, the name asked for, the template's folder, the user's.
    let id = generate().await;
    let (status, copied) =
        json_of(call(Method::POST, &copy_path(template), Some(json!({"id": id, "name": "Letter"}))).await).await;
    assert_eq!(status, 200, "{copied}");
    assert_eq!((copied["id"].as_str(), copied["name"].as_str()), (Some(id.as_str()), Some("Letter")));
    assert_eq!(copied["mimeType"], "application/vnd.google-apps.document");
    assert_eq!(copied["parents"], json!(["fld_templates"]), "the source's folder when none is asked for");
    let (_, about) = json_of(call(Method::GET, "/drive/v3/about?fields=user(emailAddress)", None).await).await;
    assert_eq!(copied["owners"], json!([{"emailAddress": about["user"]["emailAddress"]}]), "the signed-in user's");
    let source = google.document_json(template).unwrap();
    let copy = google.document_json(&id).unwrap();
    assert_eq!(copy["body"], source["body"], "the content, styles and all");
    assert_eq!(
        (copy["lists"].clone(), copy["namedStyles"].clone()),
        (source["lists"].clone(), source["namedStyles"].clone())
    );
    assert_eq!(copy["title"], "Letter");
    assert_ne!(copy["revisionId"], source["revisionId"], "a revision of its own");
    // Sent again (its answer lost): the id is taken.
    let (status, again) =
        json_of(call(Method::POST, &copy_path(template), Some(json!({"id": id, "name": "Letter"}))).await).await;
    assert_eq!((status, reason(&again)), (409, "duplicate".to_string()), "{again}");
    // Without a name, "Copy of …".
    let (status, unnamed) = json_of(call(Method::POST, &copy_path(template), Some(json!({}))).await).await;
    assert_eq!((status, unnamed["name"].as_str()), (200, Some("Copy of Welcome letter")), "{unnamed}");
    // What Drive refuses.
    for (source, body, expected) in [
        ("nosuchfile123", json!({}), (404, "notFound")),
        ("fld_templates", json!({}), (403, "cannotCopyFile")),
        (template, json!({"webViewLink": "https://example.com"}), (403, "fieldNotWritable")),
        (template, json!({"mimeType": "application/pdf"}), (400, "badRequest")),
        (template, json!({"parents": ["fld_templates", "fld_support"]}), (403, "cannotAddParent")),
    ] {
        let (status, refused) = json_of(call(Method::POST, &copy_path(source), Some(body.clone())).await).await;
        assert_eq!((status, reason(&refused).as_str()), expected, "{source} {body}: {refused}");
    }

    // "{{today}}" half bold: the placeholder crosses a bold run, and its first character's
    // bold goes to the date; the name replaces a placeholder all in bold.
    let runs = |doc: &Value| -> Vec<Value> {
        doc["body"]["content"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|e| e["paragraph"]["elements"].as_array().cloned().unwrap_or_default())
            .filter(|e| e.get("textRun").is_some())
            .collect()
    };
    let today = runs(&copy).into_iter().find(|r| r["textRun"]["content"] == "{{today}}\n").unwrap();
    let start = today["startIndex"].as_u64().unwrap();
    let batch = format!("/v1/documents/{id}:batchUpdate");
    let bold = json!({"updateTextStyle": {"range": {"startIndex": start, "endIndex": start + 4}, "textStyle": {"bold": true}, "fields": "bold"}});
    let (status, _) = json_of(call(Method::POST, &batch, Some(json!({"requests": [bold]}))).await).await;
    assert_eq!(status, 200);
    let replace = |text: &str, with: &str| json!({"replaceAllText": {"containsText": {"text": text, "matchCase": true}, "replaceText": with}});
    let requests = json!({"requests": [
        replace("{{today}}", "1 May 2026"),
        replace("{{customer.name}}", "Zoë Martin"),
        replace("{{CUSTOMER.EMAIL}}", "zoe@example.com"),
        replace("{{customer.email}}", "zoe@example.com"),
        replace("{{staff.name}}", "Ana"),
    ]});
    let (status, answer) = json_of(call(Method::POST, &batch, Some(requests)).await).await;
    assert_eq!(status, 200, "{answer}");
    let counts: Vec<Value> =
        answer["replies"].as_array().unwrap().iter().map(|r| r["replaceAllText"].clone()).collect();
    assert_eq!(
        counts,
        [
            json!({"occurrencesChanged": 1}),
            json!({"occurrencesChanged": 1}),
            json!({}),
            json!({"occurrencesChanged": 1}),
            json!({"occurrencesChanged": 1})
        ],
        "matching case, and no count when nothing matched"
    );
    let filled = google.document_json(&id).unwrap();
    let styled = |text: &str| {
        runs(&filled).into_iter().find(|r| r["textRun"]["content"].as_str().unwrap().starts_with(text)).unwrap()
            ["textRun"]["textStyle"]["bold"]
            .clone()
    };
    assert_eq!(styled("1 May 2026"), true, "the style of the match's first character");
    assert_eq!(styled("Zoë Martin"), true);
    // Indexes still run on from one element to the next.
    let mut next = 1;
    for element in filled["body"]["content"].as_array().unwrap().iter().skip(1) {
        assert_eq!(element["startIndex"].as_u64(), Some(next), "{element}");
        next = element["endIndex"].as_u64().unwrap();
    }
    assert_eq!(google.document_json(template).unwrap()["body"], source["body"], "the template is untouched");
    // An empty search is refused as Docs refuses a bad request.
    let (status, refused) =
        json_of(call(Method::POST, &batch, Some(json!({"requests": [replace("", "x")]}))).await).await;
    assert_eq!((status, refused["error"]["status"].as_str()), (400, Some("INVALID_ARGUMENT")), "{refused}");

    // Exports, counted as calls.
    let export = |file: &str, mime: Option<&str>| {
        let query = mime.map(|m| format!("?mimeType={}", urlencode(m))).unwrap_or_default();
        call(Method::GET, &format!("/drive/v3/files/{file}/export{query}"), None)
    };
    let calls = google.request_count();
    let pdf = export(&id, Some("application/pdf")).await;
    assert_eq!((pdf.status().as_u16(), pdf.headers()["content-type"].to_str().unwrap()), (200, "application/pdf"));
    assert_eq!(google.request_count(), calls + 1);
    let document = lopdf::Document::load_mem(&pdf.bytes().await.unwrap()).expect("a PDF a reader opens");
    assert_eq!(document.get_pages().len(), 1);
    let text = document.extract_text(&[1]).unwrap();
    for expected in ["Letter", "Dear Zoë Martin,", "bientôt!", "zoe@example.com"] {
        assert!(text.contains(expected), "{expected} in {text}");
    }
    let txt = export(&id, Some("text/plain")).await;
    assert!(txt.headers()["content-type"].to_str().unwrap().starts_with("text/plain"));
    let txt = String::from_utf8(txt.bytes().await.unwrap().to_vec()).expect("UTF-8");
    assert!(txt.starts_with("\u{feff}Welcome letter\r\n1 May 2026\r\nDear Zoë Martin,\r\n"), "{txt:?}");
    let docx = export(&id, Some("application/vnd.openxmlformats-officedocument.wordprocessingml.document")).await;
    assert_eq!(docx.status(), 200);
    let mut package = zip::ZipArchive::new(std::io::Cursor::new(docx.bytes().await.unwrap().to_vec())).expect("a zip");
    let mut xml = String::new();
    std::io::Read::read_to_string(&mut package.by_name("word/document.xml").unwrap(), &mut xml).unwrap();
    assert!(xml.contains("Dear Zoë Martin,") && xml.matches("<w:p>").count() == 7, "{xml}");
    assert!(package.by_name("[Content_Types].xml").is_ok() && package.by_name("_rels/.rels").is_ok());
    // What Drive refuses: a format it does not export a document to, a folder, no format, no file.
    for (file, mime, expected) in [
        (id.as_str(), Some("application/x-staffroom"), (400, "badRequest")),
        ("fld_templates", Some("application/pdf"), (403, "fileNotExportable")),
        (id.as_str(), None, (400, "required")),
        ("nosuchfile123", Some("application/pdf"), (404, "notFound")),
    ] {
        let (status, refused) = json_of(export(file, mime).await).await;
        assert_eq!((status, reason(&refused).as_str()), expected, "{file} {mime:?}: {refused}");
    }
}

/// The fields `staffroom::docs::model` reads from Google (its serde names, Google side), each of
/// which must exist in the discovery document with the type the model expects.
#[test]
fn every_field_the_client_reads_exists_with_its_type() {
    let api = Api { docs: discovery("docs.v1.json"), drive: discovery("drive.v3.json") };
    let reads: &[(&str, &str, &[(&str, &str)])] = &[
        (
            "docs",
            "Document",
            &[
                ("documentId", "string"),
                ("title", "string"),
                ("body", "object"),
                ("revisionId", "string"),
                ("suggestionsViewMode", "string"),
            ],
        ),
        ("docs", "Body", &[("content", "array")]),
        (
            "docs",
            "StructuralElement",
            &[
                ("startIndex", "integer"),
                ("endIndex", "integer"),
                ("paragraph", "object"),
                ("sectionBreak", "object"),
                ("table", "object"),
                ("tableOfContents", "object"),
            ],
        ),
        (
            "docs",
            "Paragraph",
            &[
                ("elements", "array"),
                ("paragraphStyle", "object"),
                ("bullet", "object"),
                ("positionedObjectIds", "array"),
            ],
        ),
        ("docs", "ParagraphElement", &[("startIndex", "integer"), ("endIndex", "integer"), ("textRun", "object")]),
        (
            "docs",
            "TextRun",
            &[
                ("content", "string"),
                ("textStyle", "object"),
                ("suggestedInsertionIds", "array"),
                ("suggestedDeletionIds", "array"),
            ],
        ),
        ("docs", "ParagraphStyle", &[("namedStyleType", "string")]),
        ("docs", "Table", &[("rows", "integer"), ("columns", "integer"), ("tableRows", "array")]),
        ("docs", "TableRow", &[("startIndex", "integer"), ("endIndex", "integer"), ("tableCells", "array")]),
        ("docs", "TableCell", &[("startIndex", "integer"), ("endIndex", "integer"), ("content", "array")]),
        (
            "docs",
            "BatchUpdateDocumentResponse",
            &[("documentId", "string"), ("replies", "array"), ("writeControl", "object")],
        ),
        ("docs", "WriteControl", &[("requiredRevisionId", "string")]),
        ("docs", "Response", &[("replaceAllText", "object")]),
        ("docs", "ReplaceAllTextResponse", &[("occurrencesChanged", "integer")]),
        ("drive", "FileList", &[("files", "array"), ("nextPageToken", "string")]),
        ("drive", "GeneratedIds", &[("ids", "array")]),
        (
            "drive",
            "File",
            &[
                ("id", "string"),
                ("name", "string"),
                ("mimeType", "string"),
                ("createdTime", "string"),
                ("modifiedTime", "string"),
                ("webViewLink", "string"),
                ("thumbnailLink", "string"),
            ],
        ),
        (
            "drive",
            "Permission",
            &[
                ("id", "string"),
                ("role", "string"),
                ("type", "string"),
                ("emailAddress", "string"),
                ("domain", "string"),
            ],
        ),
    ];
    let mut errors = Vec::new();
    for (name, schema, fields) in reads {
        let schemas = api.schemas(name);
        let properties = schemas[*schema]["properties"].as_object().unwrap_or_else(|| panic!("{schema}"));
        for (field, kind) in *fields {
            match properties.get(*field) {
                None => errors.push(format!("{schema}.{field} does not exist")),
                Some(p) => {
                    let actual = p.get("type").and_then(Value::as_str).unwrap_or(if p.get("$ref").is_some() {
                        "object"
                    } else {
                        "any"
                    });
                    if actual != *kind {
                        errors.push(format!("{schema}.{field} is {actual}, the model reads {kind}"));
                    }
                }
            }
        }
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    // The values we write into requests: named styles are the enum's.
    let named = &api.schemas("docs")["ParagraphStyle"]["properties"]["namedStyleType"]["enum"];
    for style in staffroom::docs::model::NAMED_STYLES {
        assert!(named.as_array().unwrap().iter().any(|v| v == style), "{style}");
    }
    // Paragraph style fields our request declares are the schema's writable ones.
    let paragraph = api.schemas("docs")["ParagraphStyle"]["properties"].as_object().unwrap();
    let ours = staffroom::docs::edits::ParagraphStyle::declared_fields();
    assert_eq!(ours.len(), 20);
    for field in &ours {
        assert!(paragraph.contains_key(field), "{field}");
    }
}

#[test]
fn the_checker_catches_wrong_names_and_types() {
    let drive = discovery("drive.v3.json");
    let schemas = drive["schemas"].as_object().unwrap();
    let mut errors = Vec::new();
    check(
        &json!({"name": "n", "mimeTyp": "x", "parents": "root"}),
        &json!({"$ref": "File"}),
        schemas,
        "File",
        &mut errors,
    );
    assert_eq!(errors, vec!["File.mimeTyp: not in the schema", "File.parents: expected array, found \"root\""]);
    let mut errors = Vec::new();
    check(&json!({"version": 3}), &json!({"$ref": "File"}), schemas, "File", &mut errors);
    assert_eq!(errors.len(), 1, "int64 fields are strings");
}

fn fixture(name: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/contract/google").join(name);
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))).unwrap()
}

/// The field paths a model keeps of `value` (arrays collapsed to `[]`), not descending into the
/// free-form style objects, which the client passes through without reading.
fn paths(value: &Value, at: &str, out: &mut std::collections::BTreeSet<String>) {
    const FREE_FORM: &[&str] = &[
        "style",
        "paragraphStyle",
        "bullet",
        "sectionBreak",
        "tableOfContents",
        "inlineObjects",
        "positionedObjects",
        "lists",
    ];
    match value {
        Value::Object(map) => {
            for (key, inner) in map {
                let path = format!("{at}.{key}");
                out.insert(path.clone());
                if !FREE_FORM.contains(&key.as_str()) {
                    paths(inner, &path, out);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| paths(item, &format!("{at}[]"), out)),
        _ => {}
    }
}

fn model_paths(document: &staffroom::docs::model::Document) -> std::collections::BTreeSet<String> {
    let mut out = std::collections::BTreeSet::new();
    paths(&serde_json::to_value(document).unwrap(), "", &mut out);
    out
}

#[tokio::test]
async fn documented_answers_decode_as_the_client_reads_them_and_the_simulator_has_their_fields() {
    use staffroom::docs::model::{BatchUpdateResponse, Document, FileList, Permission};
    use staffroom::docs::planner::{editable_blocks, plan, EditBlock};
    use staffroom::ErrorCode;

    let document: Document = serde_json::from_value(fixture("document.json")).unwrap();
    let document = document.with_access();
    assert!(document.can_edit, "a revision id means edit access");
    let blocks = editable_blocks(&document);
    let kinds: Vec<&str> = blocks
        .iter()
        .map(|b| match b {
            EditBlock::Paragraph { .. } => "text",
            EditBlock::Fixed { .. } => "fixed",
            EditBlock::Table { .. } => "table",
        })
        .collect();
    // Heading; a soft line break (text); a pending suggestion (kept as it is); a list item
    // (text in its list); an image with an anchored object, and U+E907 (kept as they are); the
    // table (its cells editable); the last paragraph.
    assert_eq!(kinds, ["text", "text", "fixed", "text", "fixed", "fixed", "table", "text"]);
    let EditBlock::Paragraph { list: Some(item), .. } = &blocks[3] else { panic!("a list item: {:?}", blocks[3]) };
    assert_eq!(item.level, 0);
    let EditBlock::Paragraph { text, .. } = &blocks[1] else { unreachable!() };
    assert!(text.contains('\u{b}'), "the soft break is part of the paragraph's text: {text:?}");
    // Editing around them touches nothing fixed: the soft-break paragraph gets one more word.
    let mut edited = blocks.clone();
    if let EditBlock::Paragraph { text, runs, .. } = &mut edited[1] {
        text.push_str(" Bring coffee.");
        *runs = None;
    }
    let requests = plan(&document, &edited).expect("a document holding every kind of element plans");
    assert_eq!(requests, vec![json!({"insertText": {"location": {"index": 51}, "text": " Bring coffee."}})]);

    let files: FileList = serde_json::from_value(fixture("file-list.json")).unwrap();
    assert!(!files.files.is_empty() && files.files.iter().all(|f| !f.id.is_empty() && !f.modified_time.is_empty()));
    assert!(files.next_page_token.is_some());
    let permission: Permission = serde_json::from_value(fixture("permission.json")).unwrap();
    assert!(!permission.role.is_empty() && !permission.kind.is_empty());
    let reply: BatchUpdateResponse = serde_json::from_value(fixture("batch-update-response.json")).unwrap();
    assert!(reply.write_control.and_then(|w| w.required_revision_id).is_some());
    assert!(fixture("generate-ids.json")["ids"].as_array().is_some_and(|ids| !ids.is_empty()));

    // Each documented refusal is read as the error a user should see.
    let refusal = |status: u16, name: &str, with_revision: bool| {
        staffroom::docs::client::refusal(status, fixture(name).to_string().as_bytes(), with_revision).code
    };
    assert_eq!(refusal(404, "error-404-drive.json", false), ErrorCode::NotFound);
    assert_eq!(refusal(403, "error-403-permission-denied-docs.json", false), ErrorCode::Forbidden);
    assert_eq!(refusal(400, "error-400-stale-revision.json", true), ErrorCode::Conflict);
    assert_eq!(refusal(403, "error-403-rate-limit.json", false), ErrorCode::RateLimited);
    assert_eq!(refusal(401, "error-401.json", false), ErrorCode::Unauthorized);
    assert_eq!(refusal(403, "error-403-consent-required.json", false), ErrorCode::InvalidRequest);

    // The simulator's richest document has every field the client keeps of the documented one.
    let app = SandboxApp::start().await;
    let simulated: Document =
        serde_json::from_value(app.google().document_json("doc001sbxA1b2C3d4E5f6G7h8").unwrap()).unwrap();
    let missing: Vec<String> = model_paths(&document).difference(&model_paths(&simulated)).cloned().collect();
    assert!(missing.is_empty(), "the simulator never answers with {missing:?}");
}

/// The simulator's Docs parser is as strict as Google's: a field the discovery document does not
/// have, or an alignment that is not one of its enum's, is refused whole (nothing applied).
#[tokio::test]
async fn the_simulator_refuses_fields_and_values_the_discovery_document_does_not_have() {
    let app = SandboxApp::start().await;
    let google = app.google();
    let token = google.issue_token()["access_token"].as_str().unwrap().to_string();
    let id = "doc002sbxA1b2C3d4E5f6G7h8";
    let before = google.document_json(id).unwrap();
    let url = format!("{}/v1/documents/{id}:batchUpdate", google.base_url());
    for (request, message) in [
        (
            json!({"insertText": {"location": {"index": 1}, "text": "x", "textStyle": {"bold": true}}}),
            "Unknown name \"textStyle\" at 'requests[1].insert_text': Cannot find field.",
        ),
        (
            json!({"updateParagraphStyle": {"range": {"startIndex": 1, "endIndex": 2},
                   "paragraphStyle": {"alignment": "LEFT"}, "fields": "alignment"}}),
            "Invalid value at 'requests[1].update_paragraph_style.paragraph_style.alignment' (TYPE_ENUM), \"LEFT\"",
        ),
    ] {
        let body = json!({"requests": [{"insertText": {"location": {"index": 1}, "text": "fine"}}, request]});
        let answer = reqwest::Client::new().post(&url).bearer_auth(&token).json(&body).send().await.unwrap();
        assert_eq!(answer.status(), 400);
        let error: Value = answer.json().await.unwrap();
        assert_eq!(error["error"]["status"], "INVALID_ARGUMENT");
        let text = error["error"]["message"].as_str().unwrap();
        assert!(text.starts_with("Invalid JSON payload received.") && text.ends_with(message), "{text}");
    }
    assert_eq!(google.document_json(id).unwrap(), before, "nothing was applied");
}
