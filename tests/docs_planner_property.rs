//! The planner's promise, for random documents and random edits: applying its requests in the
//! simulator yields exactly the edited document (texts and paragraph styles), the table is
//! untouched, and the text requests run from the highest index down.

use proptest::prelude::*;
use serde_json::{json, Value};
use staffroom::docs::model::Document;
use staffroom::docs::planner::{editable_blocks, plan, EditBlock};
use staffroom::sandbox::google::doc::SimDoc;

const STYLES: &[&str] = &["NORMAL_TEXT", "TITLE", "HEADING_1", "HEADING_2", "HEADING_6"];

fn text() -> impl Strategy<Value = String> {
    // Astral characters (emoji, a skin-tone cluster), accents, CJK, spaces and tabs.
    prop::collection::vec(
        prop::sample::select(vec!["a", "b", "c", " ", "é", "日", "😀", "🐙", "👍🏽", "\t", "xy", "Z"]),
        0..12,
    )
    .prop_map(|parts| parts.concat())
}

fn paragraph() -> impl Strategy<Value = (String, &'static str)> {
    (text(), prop::sample::select(STYLES))
}

#[derive(Debug, Clone)]
enum Edit {
    Retext(usize, String),
    Restyle(usize, &'static str),
    Delete(usize),
    Insert(usize, String, &'static str),
    Append(usize, String),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), text()).prop_map(|(i, t)| Edit::Retext(i, t)),
        (any::<usize>(), prop::sample::select(STYLES)).prop_map(|(i, s)| Edit::Restyle(i, s)),
        any::<usize>().prop_map(Edit::Delete),
        (any::<usize>(), text(), prop::sample::select(STYLES)).prop_map(|(i, t, s)| Edit::Insert(i, t, s)),
        (any::<usize>(), text()).prop_map(|(i, t)| Edit::Append(i, t)),
    ]
}

fn build(before: &[(String, &str)], after: &[(String, &str)]) -> SimDoc {
    let mut doc = SimDoc::new("d", "Property", "rev0".into());
    for (t, s) in before {
        doc.push_paragraph(s, &[(t, json!({})), ("!", json!({"bold": true}))]);
    }
    doc.push_table(&[vec!["Item", "😀 units"], vec!["Coffee ☕", "10"]]);
    for (t, s) in after {
        doc.push_paragraph(s, &[(t, json!({"italic": true}))]);
    }
    doc.finish_seed();
    doc
}

fn read(doc: &SimDoc) -> Document {
    serde_json::from_value(doc.to_json("SUGGESTIONS_INLINE")).unwrap()
}

fn table(doc: &SimDoc) -> Value {
    let mut table = doc.to_json("SUGGESTIONS_INLINE")["body"]["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e.get("table").is_some())
        .cloned()
        .expect("the table is still there");
    fn strip(v: &mut Value) {
        match v {
            Value::Object(m) => {
                m.remove("startIndex");
                m.remove("endIndex");
                m.values_mut().for_each(strip);
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut table);
    table
}

fn apply(blocks: &mut Vec<EditBlock>, edit: &Edit) {
    // Paragraph positions, and each paragraph's segment (before or after the table).
    let paragraphs: Vec<usize> =
        blocks.iter().enumerate().filter(|(_, b)| matches!(b, EditBlock::Paragraph { .. })).map(|(i, _)| i).collect();
    let table_at = blocks.iter().position(|b| matches!(b, EditBlock::Fixed { .. })).unwrap();
    let pick = |i: usize| paragraphs[i % paragraphs.len()];
    match edit {
        Edit::Retext(i, t) => {
            if let EditBlock::Paragraph { text, .. } = &mut blocks[pick(*i)] {
                *text = t.clone();
            }
        }
        Edit::Restyle(i, s) => {
            if let EditBlock::Paragraph { style, .. } = &mut blocks[pick(*i)] {
                *style = s.to_string();
            }
        }
        Edit::Append(i, t) => {
            if let EditBlock::Paragraph { text, .. } = &mut blocks[pick(*i)] {
                text.push_str(t);
            }
        }
        Edit::Delete(i) => {
            let at = pick(*i);
            // Each side of the table keeps a paragraph.
            let same_side = paragraphs.iter().filter(|&&p| (p < table_at) == (at < table_at)).count();
            if same_side > 1 {
                blocks.remove(at);
            }
        }
        Edit::Insert(i, t, s) => {
            let at = i % (blocks.len() + 1);
            // Never right after the table at the very end is fine; never before the first block
            // when that would leave the table first (there is always a paragraph before it).
            blocks.insert(at, EditBlock::Paragraph { text: t.clone(), style: s.to_string() });
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn applying_the_plan_yields_the_edited_document(
        before in prop::collection::vec(paragraph(), 1..5),
        after in prop::collection::vec(paragraph(), 1..5),
        edits in prop::collection::vec(edit(), 0..8),
    ) {
        let mut sim = build(&before, &after);
        let base = read(&sim);
        let table_before = table(&sim);
        let mut blocks = editable_blocks(&base);
        for e in &edits {
            apply(&mut blocks, e);
        }
        let requests = plan(&base, &blocks).expect("a valid edit plans");
        // Text requests descend; style requests (after them) descend too.
        let starts: Vec<(bool, u64)> = requests.iter().map(|r| {
            let (kind, body) = r.as_object().unwrap().iter().next().unwrap();
            let start = body["location"]["index"].as_u64().or(body["range"]["startIndex"].as_u64()).unwrap();
            (kind == "updateParagraphStyle", start)
        }).collect();
        let text: Vec<u64> = starts.iter().filter(|(s, _)| !s).map(|(_, i)| *i).collect();
        let style: Vec<u64> = starts.iter().filter(|(s, _)| *s).map(|(_, i)| *i).collect();
        prop_assert!(text.windows(2).all(|w| w[0] >= w[1]), "text requests not descending: {:?}", requests);
        prop_assert!(style.windows(2).all(|w| w[0] > w[1]), "style requests not descending: {:?}", requests);
        prop_assert!(starts.iter().skip_while(|(s, _)| !s).all(|(s, _)| *s), "styles come last");

        sim.batch_update(&requests).map_err(|e| TestCaseError::fail(format!("{}: {requests:?}", e.0)))?;
        let result = read(&sim);
        let got = editable_blocks(&result);
        let strip = |b: &[EditBlock]| -> Vec<Option<(String, String)>> {
            b.iter().map(|b| match b {
                EditBlock::Paragraph { text, style } => Some((text.clone(), style.clone())),
                EditBlock::Fixed { .. } => None,
            }).collect()
        };
        prop_assert_eq!(strip(&got), strip(&blocks));
        prop_assert_eq!(table(&sim), table_before);
        // Planning again from the result asks for nothing.
        prop_assert!(plan(&result, &got).unwrap().is_empty());
    }
}
