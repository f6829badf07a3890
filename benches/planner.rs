//! Edit planner benchmark (run: `cargo bench --bench planner`).
//!
//! Builds a document of about 1 MB in the Google simulator's model: 5,000 paragraphs with emoji,
//! several named styles, bold and linked words, a bulleted or numbered list every 50 paragraphs
//! and a table every 500. Edits 1% and then 10% of its blocks as the editor sends them (every
//! paragraph with its runs): text changes, style changes, a word made bold, inserted and deleted
//! paragraphs, list items nested or taken out, table cells retyped, rows added. Prints the
//! planner's time (median and worst of several runs) and the number of requests it produced.
//! Each plan is also applied in the simulator once and the result compared with the edit, so the
//! figures are for correct plans.

use std::time::{Duration, Instant};

use serde_json::json;
use staffroom::docs::lists::ListItem;
use staffroom::docs::model::Document;
use staffroom::docs::planner::{editable_blocks, plan, EditBlock, StyledRun};
use staffroom::docs::tables::TableRowEdit;
use staffroom::sandbox::google::doc::{Piece, SimDoc};

const STYLES: &[&str] = &["NORMAL_TEXT", "HEADING_1", "HEADING_2", "NORMAL_TEXT", "NORMAL_TEXT", "TITLE"];
const PARAGRAPHS: usize = 5_000;

/// A small deterministic generator (xorshift), so runs compare.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn sentence(rng: &mut Rng, words: usize) -> String {
    const WORDS: &[&str] =
        &["staff", "order", "paid", "😀", "invoice", "café", "日本", "refund", "🐙", "plan", "notes", "customers"];
    (0..words).map(|_| WORDS[rng.below(WORDS.len())]).collect::<Vec<_>>().join(" ")
}

fn build(rng: &mut Rng) -> SimDoc {
    let mut doc = SimDoc::new("bench", "Bench", "rev0".into());
    for (id, glyph) in [("kix.bullets", json!({"glyphSymbol": "●"})), ("kix.numbers", json!({"glyphType": "DECIMAL"}))]
    {
        doc.lists.insert(id.into(), json!({"listProperties": {"nestingLevels": [glyph, glyph, glyph]}}));
    }
    for i in 0..PARAGRAPHS {
        if i % 500 == 250 {
            let rows: Vec<Vec<String>> = (0..4).map(|_| (0..3).map(|_| sentence(rng, 3)).collect()).collect();
            let rows: Vec<Vec<&str>> = rows.iter().map(|r| r.iter().map(String::as_str).collect()).collect();
            doc.push_table(&rows);
        }
        let text = sentence(rng, 28);
        let link = json!({"link": {"url": "https://example.com/wiki"}, "underline": true});
        let pieces = [
            Piece::Text(&text, json!({})),
            Piece::Text(" Sam", json!({"bold": true})),
            Piece::Text(", see ", json!({})),
            Piece::Text("the wiki", link),
        ];
        // Five items of a list every fifty paragraphs, nested one level every other item.
        let style = if i % 50 < 5 {
            let id = if (i / 50) % 2 == 0 { "kix.bullets" } else { "kix.numbers" };
            json!({"namedStyleType": "NORMAL_TEXT", "_bullet": {"listId": id, "nestingLevel": i % 2, "textStyle": {}}})
        } else {
            json!({"namedStyleType": STYLES[rng.below(STYLES.len())]})
        };
        doc.push_pieces(style, &pieces);
    }
    doc.finish_seed();
    doc
}

/// A paragraph as the editor sends it: its text, style and runs (plain ones here).
fn paragraph(text: String, style: &str, list: Option<ListItem>) -> EditBlock {
    let len = text.encode_utf16().count() as u32;
    let runs = if len == 0 { vec![] } else { vec![StyledRun { len, ..StyledRun::default() }] };
    EditBlock::Paragraph { text, style: style.into(), runs: Some(runs), list }
}

fn edit(blocks: &[EditBlock], share: f64, rng: &mut Rng) -> Vec<EditBlock> {
    let mut out = Vec::with_capacity(blocks.len());
    for block in blocks {
        if (rng.next() % 10_000) as f64 >= share * 10_000.0 {
            out.push(block.clone());
            continue;
        }
        match block {
            EditBlock::Paragraph { text, style, runs, list } => match rng.below(6) {
                // Change a word in the middle.
                0 | 1 => {
                    let mut t = text.clone();
                    let at = t.char_indices().nth(t.chars().count() / 2).map(|(i, _)| i).unwrap_or(0);
                    t.insert_str(at, " edited 🎉");
                    out.push(paragraph(t, style, list.clone()));
                }
                // Restyle; or nest a list item one level deeper.
                2 => match list {
                    Some(item) if item.level < 2 => out.push(EditBlock::Paragraph {
                        text: text.clone(),
                        style: style.clone(),
                        runs: runs.clone(),
                        list: Some(ListItem { level: item.level + 1, ..item.clone() }),
                    }),
                    _ => out.push(EditBlock::Paragraph {
                        text: text.clone(),
                        style: "HEADING_3".into(),
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
                        runs,
                        list: list.clone(),
                    });
                }
                4 => {
                    out.push(block.clone());
                    out.push(paragraph(sentence(rng, 8), "NORMAL_TEXT", None));
                }
                // Delete the paragraph.
                _ => {}
            },
            // A cell retyped and a row added at the end.
            EditBlock::Table { start_index, columns, rows } => {
                let mut rows = rows.clone();
                rows[1].cells[1] = vec![paragraph(sentence(rng, 4), "NORMAL_TEXT", None)];
                let cells =
                    (0..columns.len()).map(|_| vec![paragraph(sentence(rng, 2), "NORMAL_TEXT", None)]).collect();
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
        EditBlock::Paragraph { list: Some(item), text, style, runs } => EditBlock::Paragraph {
            text: text.clone(),
            style: style.clone(),
            runs: runs.clone(),
            // A list made again gets a new id from Google.
            list: Some(ListItem { id: String::new(), ..item.clone() }),
        },
        other => other.clone(),
    }
}

fn main() {
    let mut rng = Rng(0x5eed);
    let sim = build(&mut rng);
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
        println!(
            "{:>3.0}% of blocks changed: plan median {:.1} ms, worst {:.1} ms, {} requests (verified in the simulator)",
            share * 100.0,
            times[times.len() / 2].as_secs_f64() * 1000.0,
            times[times.len() - 1].as_secs_f64() * 1000.0,
            requests.len()
        );
    }
}
