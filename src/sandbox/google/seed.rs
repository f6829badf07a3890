//! The simulator's seeded Drive: three folders of Google Docs with headings, styled runs, a
//! table and text outside the Basic Multilingual Plane. Deterministic: the same every run.

use serde_json::json;

use super::doc::SimDoc;

/// The seeded folders: (id, name).
pub const FOLDERS: &[(&str, &str)] =
    &[("fld_operations", "Operations"), ("fld_marketing", "Marketing"), ("fld_support", "Support")];

/// The sandbox user who owns everything.
pub const OWNER_EMAIL: &str = "owner@staffroom.test";

const TOPICS: &[&str] = &[
    "Quarterly plan",
    "Launch checklist",
    "Refund policy",
    "Onboarding guide",
    "Supplier notes",
    "Pricing review",
    "Release notes",
    "Support macros",
    "Meeting notes",
    "Roadmap",
];

const SENTENCES: &[&str] = &[
    "Customers asked for clearer invoices this month.",
    "We ship on Tuesdays and announce on Wednesdays 🚀.",
    "Keep replies short, friendly and specific.",
    "Résumé screening starts next week — naïve estimates are fine.",
    "The café order goes out at 9:00; add 🥐 for the team.",
    "Escalate anything about payments to the on-call person.",
    "Numbers in this section are in cents unless marked otherwise.",
    "日本語のお客様には翻訳を添えてください。",
    "Review every discount above 20% with finance 💶.",
    "Archive tickets older than ninety days.",
];

/// One seeded document (before it has an id and times).
pub struct SeedDoc {
    pub title: String,
    pub folder: &'static str,
    pub doc: SimDoc,
}

/// The seeded documents: `count` docs spread over the folders.
pub fn documents(count: usize) -> Vec<SeedDoc> {
    (0..count)
        .map(|n| {
            let folder = FOLDERS[n % FOLDERS.len()].0;
            let topic = TOPICS[n % TOPICS.len()];
            let title = format!("{topic} {}", n + 1);
            let id = format!("doc{:03}{}", n + 1, "sbxA1b2C3d4E5f6G7h8");
            let mut doc = SimDoc::new(id, title.clone(), String::new());
            doc.push_paragraph("TITLE", &[(&title, json!({}))]);
            doc.push_paragraph("SUBTITLE", &[("Shared with the whole team ", json!({})), ("✨", json!({}))]);
            doc.push_paragraph("HEADING_1", &[("Summary", json!({}))]);
            for k in 0..3 {
                let sentence = SENTENCES[(n + k) % SENTENCES.len()];
                doc.push_paragraph(
                    "NORMAL_TEXT",
                    &[
                        (sentence, json!({})),
                        (" Owner: ", json!({})),
                        ("Sam", json!({"bold": true})),
                        (", see ", json!({})),
                        ("the wiki", json!({"underline": true, "link": {"url": "https://example.com/wiki"}})),
                        (".", json!({})),
                    ],
                );
            }
            doc.push_paragraph("HEADING_2", &[("Figures", json!({}))]);
            doc.push_paragraph("NORMAL_TEXT", &[("The table below is updated every Monday.", json!({"italic": true}))]);
            let units = format!("{}", 10 + n * 3);
            doc.push_table(&[vec!["Item", "Units"], vec!["Coffee ☕", &units], vec!["Stickers 🐙", "250"]]);
            doc.push_paragraph("HEADING_2", &[("Next steps", json!({}))]);
            doc.push_paragraph("NORMAL_TEXT", &[("Reply in the thread by Friday 🙏.", json!({}))]);
            doc.finish_seed();
            SeedDoc { title, folder, doc }
        })
        .collect()
}
