//! The planner's promise, for random documents and random edits: applying its requests in the
//! simulator yields exactly the edited document (texts, paragraph styles and character styles),
//! the table is untouched, and each kind of request runs from the highest index down.

use proptest::prelude::*;
use serde_json::{json, Value};
use staffroom::docs::model::Document;
use staffroom::docs::planner::{editable_blocks, plan, EditBlock, StyledRun};
use staffroom::sandbox::google::doc::SimDoc;

const STYLES: &[&str] = &["NORMAL_TEXT", "TITLE", "HEADING_1", "HEADING_2", "HEADING_6"];

/// A piece of text and its character styles.
type Piece = (String, StyledRun);

fn marks() -> impl Strategy<Value = StyledRun> {
    let link = || Some("https://example.com/a".to_string());
    prop::sample::select(vec![
        StyledRun::default(),
        StyledRun { bold: true, ..StyledRun::default() },
        StyledRun { italic: true, ..StyledRun::default() },
        StyledRun { bold: true, italic: true, ..StyledRun::default() },
        StyledRun { underline: true, ..StyledRun::default() },
        StyledRun { strikethrough: true, ..StyledRun::default() },
        StyledRun { link: link(), ..StyledRun::default() },
        StyledRun { link: link(), underline: true, ..StyledRun::default() },
    ])
}

fn text() -> impl Strategy<Value = Vec<Piece>> {
    // Astral characters (emoji, a skin-tone cluster), accents, CJK, spaces and tabs, each piece
    // with its own styles.
    let part = prop::sample::select(vec!["a", "b", "c", " ", "é", "日", "😀", "🐙", "👍🏽", "\t", "xy", "Z"]);
    prop::collection::vec((prop::collection::vec(part, 1..4).prop_map(|p| p.concat()), marks()), 0..5)
}

fn plain(pieces: &[Piece]) -> String {
    pieces.iter().map(|(t, _)| t.as_str()).collect()
}

/// Runs as Google reports them: neighbours with the same styles joined.
fn joined(runs: impl IntoIterator<Item = StyledRun>) -> Vec<StyledRun> {
    let mut out: Vec<StyledRun> = Vec::new();
    for run in runs.into_iter().filter(|r| r.len > 0) {
        match out.last_mut() {
            Some(last) if StyledRun { len: last.len, ..run.clone() } == *last => last.len += run.len,
            _ => out.push(run),
        }
    }
    out
}

fn runs(pieces: &[Piece]) -> Vec<StyledRun> {
    joined(pieces.iter().map(|(t, m)| StyledRun { len: t.encode_utf16().count() as u32, ..m.clone() }))
}

fn paragraph() -> impl Strategy<Value = (String, &'static str)> {
    (text().prop_map(|p| plain(&p)), prop::sample::select(STYLES))
}

#[derive(Debug, Clone)]
enum Edit {
    Retext(usize, Vec<Piece>),
    Restyle(usize, &'static str),
    Delete(usize),
    Insert(usize, Vec<Piece>, &'static str),
    Append(usize, Vec<Piece>),
    /// Gives the whole paragraph these character styles.
    Mark(usize, StyledRun),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), text()).prop_map(|(i, t)| Edit::Retext(i, t)),
        (any::<usize>(), prop::sample::select(STYLES)).prop_map(|(i, s)| Edit::Restyle(i, s)),
        any::<usize>().prop_map(Edit::Delete),
        (any::<usize>(), text(), prop::sample::select(STYLES)).prop_map(|(i, t, s)| Edit::Insert(i, t, s)),
        (any::<usize>(), text()).prop_map(|(i, t)| Edit::Append(i, t)),
        (any::<usize>(), marks()).prop_map(|(i, m)| Edit::Mark(i, m)),
    ]
}

fn build(before: &[(String, &str)], after: &[(String, &str)]) -> SimDoc {
    let mut doc = SimDoc::new("d", "Property", "rev0".into());
    for (t, s) in before {
        let link = json!({"link": {"url": "https://example.com/b"}, "underline": true});
        doc.push_paragraph(s, &[(t, json!({})), ("!", json!({"bold": true})), (" go", link)]);
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
        Edit::Retext(i, pieces) => {
            if let EditBlock::Paragraph { text, runs: r, .. } = &mut blocks[pick(*i)] {
                *text = plain(pieces);
                *r = Some(runs(pieces));
            }
        }
        Edit::Restyle(i, s) => {
            if let EditBlock::Paragraph { style, .. } = &mut blocks[pick(*i)] {
                *style = s.to_string();
            }
        }
        Edit::Append(i, pieces) => {
            if let EditBlock::Paragraph { text, runs: r, .. } = &mut blocks[pick(*i)] {
                text.push_str(&plain(pieces));
                let had = r.take().expect("the editor's paragraphs have runs");
                *r = Some(joined(had.into_iter().chain(runs(pieces))));
            }
        }
        Edit::Mark(i, marks) => {
            if let EditBlock::Paragraph { text, runs: r, .. } = &mut blocks[pick(*i)] {
                let len = text.encode_utf16().count() as u32;
                *r = Some(joined([StyledRun { len, ..marks.clone() }]));
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
        Edit::Insert(i, pieces, s) => {
            let at = i % (blocks.len() + 1);
            // Never right after the table at the very end is fine; never before the first block
            // when that would leave the table first (there is always a paragraph before it).
            blocks.insert(
                at,
                EditBlock::Paragraph { text: plain(pieces), style: s.to_string(), runs: Some(runs(pieces)) },
            );
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
        // Text requests first, then paragraph styles, then character styles; each kind descends.
        let order = ["insertText", "deleteContentRange", "updateParagraphStyle", "updateTextStyle"];
        let starts: Vec<(usize, u64)> = requests.iter().map(|r| {
            let (kind, body) = r.as_object().unwrap().iter().next().unwrap();
            let start = body["location"]["index"].as_u64().or(body["range"]["startIndex"].as_u64()).unwrap();
            (order.iter().position(|k| k == kind).unwrap().max(1), start)
        }).collect();
        prop_assert!(starts.windows(2).all(|w| w[0].0 <= w[1].0), "kinds out of order: {:?}", requests);
        for kind in 1..=3 {
            let of_kind: Vec<u64> = starts.iter().filter(|(k, _)| *k == kind).map(|(_, i)| *i).collect();
            let descending = if kind == 1 { of_kind.windows(2).all(|w| w[0] >= w[1]) } else { of_kind.windows(2).all(|w| w[0] > w[1]) };
            prop_assert!(descending, "kind {} not descending: {:?}", order[kind], requests);
        }

        sim.batch_update(&requests).map_err(|e| TestCaseError::fail(format!("{}: {requests:?}", e.0)))?;
        let result = read(&sim);
        let got = editable_blocks(&result);
        let strip = |b: &[EditBlock]| -> Vec<Option<(String, String, Vec<StyledRun>)>> {
            b.iter().map(|b| match b {
                EditBlock::Paragraph { text, style, runs } => {
                    Some((text.clone(), style.clone(), joined(runs.clone().unwrap_or_default())))
                }
                EditBlock::Fixed { .. } => None,
            }).collect()
        };
        prop_assert_eq!(strip(&got), strip(&blocks));
        prop_assert_eq!(table(&sim), table_before);
        // Planning again from the result asks for nothing.
        prop_assert!(plan(&result, &got).unwrap().is_empty());
    }
}
