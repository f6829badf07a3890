//! Documents no one here wrote: five answers of the real Docs API's `documents.get`, committed by
//! public projects as their own test fixtures (`tests/contract/google/real-documents/`, sources
//! and licences in its SOURCES.md), opened in the sandbox as Google gave them
//! (`SimDoc::from_google`) and edited through the editor's door (`GET …/editor`, `POST …/save`).
//! What they hold that the sandbox's own documents do not: real `kix.` list ids with a lettered
//! level under a bulleted one, a numbered list with legal formats (`%0.%1.`), a superscript, a
//! Title style centred by the document, a second tab holding a footnote reference.
//!
//! Each edit is the everyday one (Enter after an item, an item removed, Tab on an item, text
//! typed next to a look the editor does not edit), and each is checked on Google's copy after the
//! save: every list keeps its id, its `lists` entry (each level's glyph and format), and every
//! item that stays keeps its list and level.

mod common;

use common::SandboxApp;
use serde_json::{json, Value};
use staffroom::sandbox::google::doc::SimDoc;

/// A fixture, as committed.
fn fixture(name: &str) -> Value {
    let path = format!("{}/tests/contract/google/real-documents/{name}.json", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// The content of a `documents.get` answer (its first tab's, when read with tabs).
fn first_tab(doc: &Value) -> &Value {
    doc.get("tabs").map_or(doc, |tabs| &tabs[0]["documentTab"])
}

/// Each paragraph of a body: its text, and its list id and level when it is a list item.
fn paragraphs(content: &Value) -> Vec<(String, Option<(String, u64)>)> {
    content["body"]["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e.get("paragraph"))
        .map(|p| {
            // Each run where its indexes say (one fixture repeats a paragraph's indexes on runs
            // that are not in it: see `SimDoc::from_google`).
            let mut at = 0;
            let text = p["elements"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|e| {
                    let kept = e["startIndex"].as_u64().is_none_or(|start| start >= at);
                    at = at.max(e["endIndex"].as_u64().unwrap_or(at));
                    kept
                })
                .filter_map(|e| e["textRun"]["content"].as_str())
                .collect();
            let item = p.get("bullet").map(|b| {
                (b["listId"].as_str().unwrap().to_string(), b.get("nestingLevel").and_then(Value::as_u64).unwrap_or(0))
            });
            (text, item)
        })
        .collect()
}

/// The kinds of the requests of the last batchUpdate sent to Google.
fn sent_kinds(app: &SandboxApp) -> Vec<String> {
    let batch = app.google().exchanges().into_iter().filter(|e| e.path.ends_with(":batchUpdate")).last().unwrap();
    let requests = batch.request.unwrap()["requests"].as_array().unwrap().clone();
    requests.iter().map(|r| r.as_object().unwrap().keys().next().unwrap().clone()).collect()
}

/// Opens `name` in a fresh sandbox: its id there and the editor's view of it.
async fn open(app: &SandboxApp, name: &str) -> (String, Value) {
    let doc = SimDoc::from_google(&fixture(name)).unwrap();
    let id = app.google().add_document(name, doc);
    let (status, view) = app.get(&format!("/api/docs/documents/{id}/editor")).await;
    assert_eq!(status, 200, "{view}");
    (id, view)
}

/// The editor's blocks, with the paragraph whose text is `text`.
fn find(blocks: &[Value], text: &str) -> usize {
    blocks.iter().position(|b| b["kind"] == "paragraph" && b["text"] == text).unwrap_or_else(|| panic!("no paragraph {text:?}"))
}

/// A new item typed after `blocks[at]` (Enter at its end): its list place, plain text.
fn item_after(blocks: &[Value], at: usize, text: &str) -> Value {
    let mut item = blocks[at].clone();
    item["text"] = json!(text);
    let fields = item.as_object_mut().unwrap();
    fields.remove("runs");
    fields.remove("alignment");
    item
}

#[tokio::test]
async fn each_real_document_opens_as_google_wrote_it() {
    let app = SandboxApp::start().await;
    for name in ["gatsby-lists", "gatsby-texts", "gatsby-links", "extradoc-md-serde-golden", "extradoc-two-tabs-footnote"] {
        let real = fixture(name);
        let doc = SimDoc::from_google(&real).unwrap();
        // Google's copy in the sandbox reads back as Google wrote it: every paragraph, each list
        // item's list and level, the lists with their glyphs, the named styles.
        let copy = doc.to_json("SUGGESTIONS_INLINE");
        assert_eq!(paragraphs(&copy), paragraphs(first_tab(&real)), "{name}");
        let lists = |doc: &Value| doc.get("lists").cloned().unwrap_or(json!({}));
        assert_eq!(lists(&copy), lists(first_tab(&real)), "{name}");
        assert_eq!(copy["namedStyles"], first_tab(&real)["namedStyles"], "{name}");
        // The editor's door: each list item in the blocks is in its list, at its level.
        let mut doc = doc;
        doc.id = format!("real{}", name.replace('-', ""));
        let id = app.google().add_document(name, doc);
        let (status, view) = app.get(&format!("/api/docs/documents/{id}/editor")).await;
        assert_eq!(status, 200, "{name}: {view}");
        let items: Vec<(String, u64)> = view["blocks"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|b| b.get("list"))
            .map(|l| (l["id"].as_str().unwrap().to_string(), l["level"].as_u64().unwrap()))
            .collect();
        // (A paragraph holding an image is a fixed block, shown as it is: its place is not sent.)
        let text_only: Vec<bool> = first_tab(&real)["body"]["content"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|e| e.get("paragraph"))
            .map(|p| p["elements"].as_array().unwrap().iter().all(|e| e.get("textRun").is_some()))
            .collect();
        let real_items: Vec<(String, u64)> = paragraphs(first_tab(&real))
            .into_iter()
            .zip(text_only)
            .filter_map(|((_, item), text)| item.filter(|_| text))
            .collect();
        assert_eq!(items, real_items, "{name}");
    }
}

/// The fixture's own list: bulleted "●" at the top, lettered "%1." under it, "■" under that, a
/// look no preset has. Enter after a lettered item adds one newline in that list.
#[tokio::test]
async fn an_item_added_under_a_real_nested_list_keeps_its_id_and_every_levels_glyph() {
    let app = SandboxApp::start().await;
    let (id, view) = open(&app, "gatsby-lists").await;
    let before = app.google().document_json(&id).unwrap();
    let mut blocks: Vec<Value> = view["blocks"].as_array().unwrap().clone();
    let at = find(&blocks, "Sublist item 2");
    blocks.insert(at + 1, item_after(&blocks, at, "Jazz"));
    let saved = app.save_document(&id, &view, json!(blocks)).await;
    assert_eq!(saved["outcome"], "saved", "{saved}");

    let after = app.google().document_json(&id).unwrap();
    assert_eq!(after["lists"], before["lists"], "the lists and their levels' glyphs are as they were");
    let mut expected = paragraphs(&before);
    let at = expected.iter().position(|(text, _)| text == "Sublist item 2\n").unwrap();
    expected.insert(at + 1, ("Jazz\n".into(), Some(("kix.p8lx61nj7i0o".into(), 1))));
    assert_eq!(paragraphs(&after), expected, "the new item in the list at level 1; every other item in its place");
    let glyph = &after["lists"]["kix.p8lx61nj7i0o"]["listProperties"]["nestingLevels"][1];
    assert_eq!((glyph["glyphType"].as_str(), glyph["glyphFormat"].as_str()), (Some("ALPHA"), Some("%1.")));
}

#[tokio::test]
async fn an_item_removed_from_a_real_nested_list_and_another_reworded_keep_the_list() {
    let app = SandboxApp::start().await;
    let (id, view) = open(&app, "gatsby-lists").await;
    let before = app.google().document_json(&id).unwrap();
    let mut blocks: Vec<Value> = view["blocks"].as_array().unwrap().clone();
    let gone = find(&blocks, "Sub sub list item 1");
    blocks.remove(gone);
    let reworded = find(&blocks, "List item 3");
    blocks[reworded]["text"] = json!("List item 3, reworded");
    blocks[reworded].as_object_mut().unwrap().remove("runs");
    let saved = app.save_document(&id, &view, json!(blocks)).await;
    assert_eq!(saved["outcome"], "saved", "{saved}");

    // The item removed whole (its newline too: the paragraph after it holds an image, whose
    // place no request touches), the words typed: no list request at all.
    assert_eq!(sent_kinds(&app), ["deleteContentRange", "insertText"]);
    let after = app.google().document_json(&id).unwrap();
    let keys = |doc: &Value| doc["lists"].as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&after), keys(&before), "no list made or dropped");
    assert_eq!(after["lists"], before["lists"]);
    let expected: Vec<_> = paragraphs(&before)
        .into_iter()
        .filter(|(text, _)| text != "Sub sub list item 1\n")
        .map(|(text, item)| (if text == "List item 3\n" { "List item 3, reworded\n".to_string() } else { text }, item))
        .collect();
    assert_eq!(paragraphs(&after), expected);
}

/// A bulleted list with the "Bulleted list" button's look (● ○ ■), and a numbered one with legal
/// formats chosen by hand (`%0.`, `%0.%1.`, …): Tab on a bullet nests it in its own list, and
/// Enter after a numbered item keeps the numbered list's hand-made formats.
#[tokio::test]
async fn tab_in_a_real_bulleted_list_and_enter_in_a_legal_numbered_list_keep_both_lists() {
    let app = SandboxApp::start().await;
    let (id, view) = open(&app, "extradoc-md-serde-golden").await;
    let before = app.google().document_json(&id).unwrap();
    let mut blocks: Vec<Value> = view["blocks"].as_array().unwrap().clone();
    let second = find(&blocks, "Second bullet item");
    blocks[second]["list"]["level"] = json!(1);
    let numbered = find(&blocks, "Second numbered item");
    blocks.insert(numbered + 1, item_after(&blocks, numbered, "Second and a half"));
    let saved = app.save_document(&id, &view, json!(blocks)).await;
    assert_eq!(saved["outcome"], "saved", "{saved}");

    let after = app.google().document_json(&id).unwrap();
    assert_eq!(after["lists"]["kix.3yr186ptpeba"], before["lists"]["kix.3yr186ptpeba"], "the legal formats kept");
    assert_eq!(after["lists"]["kix.nnulch2isgb9"], before["lists"]["kix.nnulch2isgb9"]);
    let items: Vec<_> = paragraphs(&after).into_iter().filter_map(|(text, item)| item.map(|i| (text, i))).collect();
    let bullets = "kix.nnulch2isgb9".to_string();
    let numbers = "kix.3yr186ptpeba".to_string();
    assert_eq!(
        items,
        vec![
            ("First bullet item\n".into(), (bullets.clone(), 0)),
            ("Second bullet item\n".into(), (bullets.clone(), 1)),
            ("Third bullet item\n".into(), (bullets, 0)),
            ("First numbered item\n".into(), (numbers.clone(), 0)),
            ("Second numbered item\n".into(), (numbers.clone(), 0)),
            ("Second and a half\n".into(), (numbers.clone(), 0)),
            ("Third numbered item\n".into(), (numbers, 0)),
        ]
    );
}

/// Text typed in the paragraph of a superscript and a subscript: both keep their looks, and the
/// editor is told of them.
#[tokio::test]
async fn a_real_superscript_is_shown_and_kept_by_an_edit_beside_it() {
    let app = SandboxApp::start().await;
    let (id, view) = open(&app, "gatsby-texts").await;
    let mut blocks: Vec<Value> = view["blocks"].as_array().unwrap().clone();
    let at = blocks
        .iter()
        .position(|b| b["kind"] == "paragraph" && b["text"].as_str().is_some_and(|t| t.contains("superscript")))
        .expect("the paragraph with the superscript");
    let looks: Vec<&Value> = blocks[at]["runs"].as_array().unwrap().iter().filter_map(|r| r.get("look")).collect();
    assert!(looks.iter().any(|l| l.to_string().contains("SUPERSCRIPT")), "{looks:?}");
    // Typed at the paragraph's start: every run after it moves, none changes its look.
    let text = blocks[at]["text"].as_str().unwrap().to_string();
    blocks[at]["text"] = json!(format!("Note: {text}"));
    let runs = blocks[at]["runs"].as_array_mut().unwrap();
    runs.insert(0, json!({"len": 6}));
    let saved = app.save_document(&id, &view, json!(blocks)).await;
    assert_eq!(saved["outcome"], "saved", "{saved}");

    let after = app.google().document_json(&id).unwrap();
    let runs: Vec<(String, Value)> = after["body"]["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["paragraph"]["elements"].as_array())
        .flatten()
        .filter_map(|e| e.get("textRun"))
        .map(|r| (r["content"].as_str().unwrap().to_string(), r["textStyle"].clone()))
        .collect();
    let style_of = |text: &str| runs.iter().find(|(t, _)| t.starts_with(text)).map(|(_, s)| s.clone()).unwrap();
    assert_eq!(style_of("superscript")["baselineOffset"], "SUPERSCRIPT");
    assert_eq!(style_of("subscript")["baselineOffset"], "SUBSCRIPT");
    assert!(runs.iter().any(|(t, _)| t.starts_with("Note: ")), "{runs:?}");
}

/// A document whose Title style is centred: the editor is told so, as the document defines it.
#[tokio::test]
async fn a_real_documents_centred_title_style_reaches_the_editor() {
    let app = SandboxApp::start().await;
    let (_, view) = open(&app, "gatsby-links").await;
    let title = view["styles"].as_array().unwrap().iter().find(|s| s["id"] == "TITLE").unwrap();
    assert_eq!(title["alignment"], "CENTER", "{title}");
}

/// A real document of two tabs, the second holding a footnote reference: the second opens by
/// its id (the paragraph with the reference a fixed block, kept whole), and a save there with
/// nothing changed sends nothing; the first tab edited leaves the second as it was.
#[tokio::test]
async fn a_real_documents_second_tab_opens_on_its_own_and_an_edit_of_the_first_leaves_it_be() {
    let app = SandboxApp::start().await;
    let (id, first) = open(&app, "extradoc-two-tabs-footnote").await;
    let tabs: Vec<&str> = first["document"]["tabsOutline"].as_array().unwrap().iter().map(|t| t["title"].as_str().unwrap()).collect();
    assert_eq!(tabs, ["Tab 1", "Footnote Range Tab"]);
    let before = app.google().document_json_with_tabs(&id).unwrap();

    let (status, second) = app.get(&format!("/api/docs/documents/{id}/editor?tabId=t.4nuguqeci0zf")).await;
    assert_eq!(status, 200, "{second}");
    let kinds: Vec<&str> = second["blocks"].as_array().unwrap().iter().map(|b| b["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["fixed"], "the paragraph with the footnote reference is kept as it is");
    let saved = app.save_document(&id, &second, second["blocks"].clone()).await;
    assert_eq!((saved["outcome"].as_str(), saved["requests"].as_u64()), (Some("saved"), Some(0)), "{saved}");

    let mut blocks: Vec<Value> = first["blocks"].as_array().unwrap().clone();
    let at = find(&blocks, "alpha first tab");
    blocks[at]["text"] = json!("alpha first tab, edited");
    blocks[at].as_object_mut().unwrap().remove("runs");
    let saved = app.save_document(&id, &first, json!(blocks)).await;
    assert_eq!(saved["outcome"], "saved", "{saved}");
    assert_eq!(sent_kinds(&app), ["insertText"]);
    let after = app.google().document_json_with_tabs(&id).unwrap();
    let texts = |doc: &Value, tab: usize| paragraphs(&doc["tabs"][tab]["documentTab"]);
    assert_eq!(texts(&after, 0)[0].0, "alpha first tab, edited\n");
    assert_eq!(after["tabs"][1], before["tabs"][1], "the second tab as it was, footnote reference and all");
}
