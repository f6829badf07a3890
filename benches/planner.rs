//! Edit planner benchmark (run: `cargo bench --bench planner`).
//!
//! Builds a document of about 1 MB (12,000 paragraphs with emoji, several named styles and a
//! table) in the Google simulator's model, edits 1% and then 10% of its paragraphs (text changes,
//! style changes, inserted and deleted paragraphs), and prints the planner's time (median and
//! worst of several runs) and the number of requests it produced. Each plan is also applied in
//! the simulator once and the result compared with the edit, so the figures are for correct plans.

use std::time::{Duration, Instant};

use serde_json::json;
use staffroom::docs::model::Document;
use staffroom::docs::planner::{editable_blocks, plan, EditBlock};
use staffroom::sandbox::google::doc::SimDoc;

const STYLES: &[&str] = &["NORMAL_TEXT", "HEADING_1", "HEADING_2", "NORMAL_TEXT", "NORMAL_TEXT", "TITLE"];

/// A small deterministic generator (xorshift), so runs compare.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn sentence(rng: &mut Rng, words: usize) -> String {
    const WORDS: &[&str] =
        &["staff", "order", "paid", "😀", "invoice", "café", "日本", "refund", "🐙", "plan", "notes"];
    (0..words).map(|_| WORDS[(rng.next() % WORDS.len() as u64) as usize]).collect::<Vec<_>>().join(" ")
}

fn build(rng: &mut Rng) -> SimDoc {
    let mut doc = SimDoc::new("bench", "Bench", "rev0".into());
    for i in 0..12_000 {
        if i == 6_000 {
            doc.push_table(&[vec!["Item", "Units 😀"], vec!["Coffee", "10"], vec!["Tea", "20"]]);
        }
        let style = STYLES[(rng.next() % STYLES.len() as u64) as usize];
        doc.push_paragraph(style, &[(&sentence(rng, 14), json!({})), (" end", json!({"bold": true}))]);
    }
    doc.finish_seed();
    doc
}

fn edit(blocks: &[EditBlock], share: f64, rng: &mut Rng) -> Vec<EditBlock> {
    let mut out = Vec::with_capacity(blocks.len());
    for block in blocks {
        let EditBlock::Paragraph { text, style, .. } = block else {
            out.push(block.clone());
            continue;
        };
        if (rng.next() % 10_000) as f64 >= share * 10_000.0 {
            out.push(block.clone());
            continue;
        }
        match rng.next() % 5 {
            // Change a word in the middle.
            0 | 1 => {
                let mut t = text.clone();
                let at = t.char_indices().nth(t.chars().count() / 2).map(|(i, _)| i).unwrap_or(0);
                t.insert_str(at, " edited 🎉");
                out.push(EditBlock::paragraph(t, style.clone()));
            }
            2 => out.push(EditBlock::paragraph(text.clone(), "HEADING_3")),
            3 => {
                out.push(block.clone());
                out.push(EditBlock::paragraph(sentence(rng, 8), "NORMAL_TEXT"));
            }
            // Delete the paragraph.
            _ => {}
        }
    }
    out
}

fn read(doc: &SimDoc) -> Document {
    serde_json::from_value(doc.to_json("SUGGESTIONS_INLINE")).unwrap()
}

fn main() {
    let mut rng = Rng(0x5eed);
    let sim = build(&mut rng);
    let base = read(&sim);
    let bytes = serde_json::to_vec(&sim.to_json("SUGGESTIONS_INLINE")).unwrap().len();
    let text_bytes: usize = sim.plain_text().len();
    println!(
        "document: {} paragraphs, {:.2} MB of text, {:.2} MB as Docs JSON, {} UTF-16 indexes",
        editable_blocks(&base).len(),
        text_bytes as f64 / 1e6,
        bytes as f64 / 1e6,
        sim.len()
    );
    let blocks = editable_blocks(&base);
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
        assert!(result.iter().zip(&edited).all(|(a, b)| match (a, b) {
            (EditBlock::Fixed { .. }, EditBlock::Fixed { .. }) => true,
            (a, b) => a == b,
        }));
        println!(
            "{:>3.0}% of paragraphs changed: plan median {:.1} ms, worst {:.1} ms, {} requests (verified in the simulator)",
            share * 100.0,
            times[times.len() / 2].as_secs_f64() * 1000.0,
            times[times.len() - 1].as_secs_f64() * 1000.0,
            requests.len()
        );
    }
}
