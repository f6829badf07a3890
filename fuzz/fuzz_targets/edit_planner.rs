//! The edit planner's input, from a document Google returned and the user's edited blocks: any
//! edit either is refused with an error, or plans requests that the Docs simulator applies
//! without a refusal, giving exactly the edited text, with the table left as it was.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use serde_json::json;
use staffroom::docs::model::Document;
use staffroom::docs::planner::{editable_blocks, plan, EditBlock};
use staffroom::sandbox::google::doc::SimDoc;

const STYLES: &[&str] = &["NORMAL_TEXT", "TITLE", "HEADING_1", "HEADING_6"];

#[derive(Debug, Arbitrary)]
struct Input {
    before: Vec<(String, u8)>,
    after: Vec<(String, u8)>,
    edits: Vec<Edit>,
}

#[derive(Debug, Arbitrary)]
enum Edit {
    Retext(u8, String),
    Restyle(u8, u8),
    Delete(u8),
    Insert(u8, String, u8),
}

fn one_line(text: &str) -> String {
    text.replace('\n', " ")
}

fuzz_target!(|input: Input| {
    if input.before.is_empty() || input.after.is_empty() || input.before.len() + input.after.len() > 40 {
        return;
    }
    let mut sim = SimDoc::new("d", "Fuzz", "rev0".into());
    for (text, style) in &input.before {
        sim.push_paragraph(STYLES[*style as usize % STYLES.len()], &[(&one_line(text), json!({}))]);
    }
    sim.push_table(&[vec!["a", "b"], vec!["c", "😀"]]);
    for (text, style) in &input.after {
        sim.push_paragraph(STYLES[*style as usize % STYLES.len()], &[(&one_line(text), json!({"bold": true}))]);
    }
    sim.finish_seed();
    let Ok(base) = serde_json::from_value::<Document>(sim.to_json("SUGGESTIONS_INLINE")) else { return };
    let mut blocks = editable_blocks(&base);
    for edit in input.edits.iter().take(12) {
        let paragraphs: Vec<usize> = blocks
            .iter()
            .enumerate()
            .filter(|(_, b)| matches!(b, EditBlock::Paragraph { .. }))
            .map(|(i, _)| i)
            .collect();
        if paragraphs.is_empty() {
            break;
        }
        let pick = |i: &u8| paragraphs[*i as usize % paragraphs.len()];
        match edit {
            Edit::Retext(i, text) => {
                if let EditBlock::Paragraph { text: t, .. } = &mut blocks[pick(i)] {
                    *t = text.clone();
                }
            }
            Edit::Restyle(i, style) => {
                if let EditBlock::Paragraph { style: s, .. } = &mut blocks[pick(i)] {
                    *s = STYLES[*style as usize % STYLES.len()].to_string();
                }
            }
            Edit::Delete(i) => {
                blocks.remove(pick(i));
            }
            Edit::Insert(i, text, style) => {
                let at = *i as usize % (blocks.len() + 1);
                blocks.insert(at, EditBlock::Paragraph { text: text.clone(), style: STYLES[*style as usize % STYLES.len()].into() });
            }
        }
    }
    // A refused edit is fine; a planned one must apply, and give what was asked.
    let Ok(requests) = plan(&base, &blocks) else { return };
    if requests.is_empty() {
        return;
    }
    sim.batch_update(&requests).unwrap_or_else(|e| panic!("the simulator refused the plan: {}: {requests:?}", e.0));
    let after: Document = serde_json::from_value(sim.to_json("SUGGESTIONS_INLINE")).unwrap();
    let text_of = |b: &[EditBlock]| -> Vec<Option<(String, String)>> {
        b.iter()
            .map(|b| match b {
                EditBlock::Paragraph { text, style } => Some((text.clone(), style.clone())),
                EditBlock::Fixed { .. } => None,
            })
            .collect()
    };
    assert_eq!(text_of(&editable_blocks(&after)), text_of(&blocks), "{requests:?}");
});
