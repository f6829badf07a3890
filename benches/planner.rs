//! Edit planner benchmark (run: `cargo bench --bench planner`).
//!
//! Takes the sandbox's document of about 1 MB (`seed::large_document`: 5,000 paragraphs with
//! emoji, several named styles, bold and linked words, a bulleted or numbered list every 50
//! paragraphs and a table every 500; the editor's benchmark opens the same one). Edits 1% and then
//! 10% of its blocks as the editor sends them (every
//! paragraph with its runs): text changes, style changes, a word made bold, inserted and deleted
//! paragraphs, list items nested or taken out, table cells retyped, rows added. Prints the
//! planner's time (median and worst of several runs) and the number of requests it produced.
//! Each plan is also applied in the simulator once and the result compared with the edit, so the
//! figures are for correct plans.

use std::time::{Duration, Instant};

use staffroom::docs::lists::ListItem;
use staffroom::docs::model::{Alignment, Document};
use staffroom::docs::planner::{editable_blocks, plan, EditBlock, StyledRun};
use staffroom::docs::tables::TableRowEdit;
use staffroom::sandbox::google::doc::SimDoc;
use staffroom::sandbox::google::seed::{large_document, Xorshift};

/// A paragraph as the editor sends it: its text, style, alignment (none of its own for a new
/// one, as the paragraph it follows has none) and runs (plain ones here).
fn paragraph(text: String, style: &str, alignment: Option<Alignment>, list: Option<ListItem>) -> EditBlock {
    let len = text.encode_utf16().count() as u32;
    let runs = if len == 0 { vec![] } else { vec![StyledRun { len, ..StyledRun::default() }] };
    EditBlock::Paragraph { text, style: style.into(), alignment, runs: Some(runs), list }
}

fn edit(blocks: &[EditBlock], share: f64, rng: &mut Xorshift) -> Vec<EditBlock> {
    let mut out = Vec::with_capacity(blocks.len());
    for block in blocks {
        if rng.below(10_000) as f64 >= share * 10_000.0 {
            out.push(block.clone());
            continue;
        }
        match block {
            EditBlock::Paragraph { text, style, alignment, runs, list } => match rng.below(6) {
                // Change a word in the middle.
                0 | 1 => {
                    let mut t = text.clone();
                    let at = t.char_indices().nth(t.chars().count() / 2).map(|(i, _)| i).unwrap_or(0);
                    t.insert_str(at, " edited 🎉");
                    out.push(paragraph(t, style, *alignment, list.clone()));
                }
                // Restyle (a centred heading); or nest a list item one level deeper.
                2 => match list {
                    Some(item) if item.level < 2 => out.push(EditBlock::Paragraph {
                        text: text.clone(),
                        style: style.clone(),
                        alignment: *alignment,
                        runs: runs.clone(),
                        list: Some(ListItem { level: item.level + 1, ..item.clone() }),
                    }),
                    _ => out.push(EditBlock::Paragraph {
                        text: text.clone(),
                        style: "HEADING_3".into(),
                        alignment: Some(Alignment::Center),
                        runs: runs.clone(),
                        list: list.clone(),
                    }),
                },
                // The whole paragraph in bold.
                3 => {
                    let len = text.encode_utf16().count() as u32;
                    let runs = (len > 0).then(|| vec![StyledRun { len, bold: true, ..StyledRun::default() }]);
                    out.push(EditBlock::Paragraph {
                        text: text.clone(),
                        style: style.clone(),
                        alignment: *alignment,
                        runs,
                        list: list.clone(),
                    });
                }
                4 => {
                    out.push(block.clone());
                    out.push(paragraph(rng.sentence(8), "NORMAL_TEXT", None, None));
                }
                // Delete the paragraph.
                _ => {}
            },
            // A cell retyped and a row added at the end.
            EditBlock::Table { start_index, columns, rows } => {
                let mut rows = rows.clone();
                rows[1].cells[1] = vec![paragraph(rng.sentence(4), "NORMAL_TEXT", None, None)];
                let cells =
                    (0..columns.len()).map(|_| vec![paragraph(rng.sentence(2), "NORMAL_TEXT", None, None)]).collect();
                rows.push(TableRowEdit { from: None, cells });
                out.push(EditBlock::Table { start_index: *start_index, columns: columns.clone(), rows });
            }
            EditBlock::Fixed { .. } => out.push(block.clone()),
        }
    }
    out
}

fn read(doc: &SimDoc) -> Document {
    serde_json::from_value(doc.to_json("SUGGESTIONS_INLINE")).unwrap()
}

/// What the user sees of a block: a table's identities (which row of the base each row is) are
/// the editor's bookkeeping, not content.
fn content(block: &EditBlock) -> EditBlock {
    match block {
        EditBlock::Table { rows, columns, .. } => EditBlock::Table {
            start_index: None,
            columns: vec![None; columns.len()],
            rows: rows.iter().map(|r| TableRowEdit { from: None, cells: r.cells.clone() }).collect(),
        },
        EditBlock::Paragraph { list: Some(item), text, style, alignment, runs } => EditBlock::Paragraph {
            text: text.clone(),
            style: style.clone(),
            alignment: *alignment,
            runs: runs.clone(),
            // A list made again gets a new id from Google.
            list: Some(ListItem { id: String::new(), ..item.clone() }),
        },
        other => other.clone(),
    }
}

fn main() {
    let mut rng = Xorshift(0xbe7c4);
    let sim = large_document("bench");
    let base = read(&sim);
    let bytes = serde_json::to_vec(&sim.to_json("SUGGESTIONS_INLINE")).unwrap().len();
    let text_bytes: usize = sim.plain_text().len();
    let blocks = editable_blocks(&base);
    let count = |kind: fn(&EditBlock) -> bool| blocks.iter().filter(|b| kind(b)).count();
    println!(
        "document: {} blocks ({} list items, {} tables), {:.2} MB of text, {:.2} MB as Docs JSON, {} UTF-16 indexes",
        blocks.len(),
        count(|b| matches!(b, EditBlock::Paragraph { list: Some(_), .. })),
        count(|b| matches!(b, EditBlock::Table { .. })),
        text_bytes as f64 / 1e6,
        bytes as f64 / 1e6,
        sim.len()
    );
    for share in [0.01, 0.10] {
        let edited = edit(&blocks, share, &mut rng);
        let mut times: Vec<Duration> = Vec::new();
        let mut requests = Vec::new();
        for _ in 0..7 {
            let started = Instant::now();
            requests = plan(&base, &edited).unwrap();
            times.push(started.elapsed());
        }
        times.sort();
        let mut applied = sim.clone();
        applied.batch_update(&requests).expect("the simulator accepts the plan");
        let result = editable_blocks(&read(&applied));
        assert_eq!(result.len(), edited.len());
        for (got, wanted) in result.iter().zip(&edited) {
            assert_eq!(content(got), content(wanted));
        }
        // The list items Google keeps in their list (the same id) rather than a list made anew.
        let item_of = |b: &EditBlock| match b {
            EditBlock::Paragraph { list: Some(item), .. } => Some(item.id.clone()),
            _ => None,
        };
        let items = edited.iter().filter(|b| item_of(b).is_some()).count();
        let kept = result
            .iter()
            .zip(&edited)
            .filter(|(got, wanted)| item_of(got).is_some() && item_of(got) == item_of(wanted))
            .count();
        println!(
            "{:>3.0}% of blocks changed: plan median {:.1} ms, worst {:.1} ms, {} requests (verified in the simulator), {kept} of {items} list items kept in their list",
            share * 100.0,
            times[times.len() / 2].as_secs_f64() * 1000.0,
            times[times.len() - 1].as_secs_f64() * 1000.0,
            requests.len()
        );
    }
}
