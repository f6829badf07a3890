//! The simulator's seeded Drive: three folders of Google Docs with headings, styled runs, a
//! table and text outside the Basic Multilingual Plane, and a shared drive. Real documents hold
//! more than text, so one document has what they hold: a soft line break (U+000B), a tab,
//! pending suggestions, an inline image, a non-text element standing in a run (U+E907), a
//! bulleted list and an anchored (positioned) object. Two documents belong to a colleague, who
//! shared them to view only and to comment only. Deterministic: the same every run.

use serde_json::{json, Value};

use super::doc::{Piece, SimDoc};
use super::Access;

/// The seeded folders: (id, name).
pub const FOLDERS: &[(&str, &str)] =
    &[("fld_operations", "Operations"), ("fld_marketing", "Marketing"), ("fld_support", "Support")];

/// A shared drive: its id, its folder (id, name), and its name.
pub const SHARED_DRIVE: (&str, (&str, &str), &str) =
    ("0AsbxTeamDriveUk9PVA", ("fld_playbooks", "Playbooks (shared drive)"), "Team drive");

/// The sandbox user who owns most files.
pub const OWNER_EMAIL: &str = "owner@staffroom.test";
/// A colleague who owns a few documents and shared them with the sandbox user.
pub const COLLEAGUE_EMAIL: &str = "colleague@staffroom.test";

/// The document holding everything a real document may hold besides text.
pub const RICH_DOCUMENT: usize = 0;
/// The document whose named Title style is centred, as some teams' templates have it: its title
/// paragraph says nothing of its own alignment, and shows centred.
pub const CENTRED_TITLE_DOCUMENT: usize = 1;
/// The document with three tabs: its first holds the usual content, a second the decisions, and
/// a third, nested in the second, the action items.
pub const TABBED_DOCUMENT: usize = 8;
/// The document with a nested numbered list whose second level was given a circle by hand, as
/// real teams' lists often are (no preset has that look).
pub const NESTED_LIST_DOCUMENT: usize = 3;
/// A document the sandbox user may only view (suggestions are hidden from viewers).
pub const VIEW_ONLY_DOCUMENT: usize = 5;
/// A document the sandbox user may only comment on.
pub const COMMENT_ONLY_DOCUMENT: usize = 9;

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

/// One seeded document (before it has its times).
pub struct SeedDoc {
    pub title: String,
    pub folder: &'static str,
    pub doc: SimDoc,
    /// What the sandbox user may do with it.
    pub access: Access,
    /// Hours between its creation and its last change.
    pub modified_after_hours: i64,
}

/// The id of the `n`th seeded document (0-based).
pub fn document_id(n: usize) -> String {
    format!("doc{:03}{}", n + 1, "sbxA1b2C3d4E5f6G7h8")
}

/// The seeded documents: `count` docs spread over the folders, then two in the shared drive.
pub fn documents(count: usize) -> Vec<SeedDoc> {
    let mut seeded: Vec<SeedDoc> = (0..count)
        .map(|n| {
            let folder = FOLDERS[n % FOLDERS.len()].0;
            let topic = TOPICS[n % TOPICS.len()];
            let title = match n {
                VIEW_ONLY_DOCUMENT => format!("{topic} {} (view only)", n + 1),
                COMMENT_ONLY_DOCUMENT => format!("{topic} {} (comment only)", n + 1),
                _ => format!("{topic} {}", n + 1),
            };
            let mut doc = SimDoc::new(document_id(n), title.clone(), String::new());
            // Some teams centre their title block; most leave Docs' default (unset: START).
            let heading = |style: &str| match n % 3 {
                0 => json!({"namedStyleType": style, "alignment": "CENTER"}),
                _ => json!({"namedStyleType": style}),
            };
            doc.push_pieces(heading("TITLE"), &[Piece::Text(&title, json!({}))]);
            doc.push_pieces(
                heading("SUBTITLE"),
                &[Piece::Text("Shared with the whole team ", json!({})), Piece::Text("✨", json!({}))],
            );
            doc.push_paragraph("HEADING_1", &[("Summary", json!({}))]);
            if n == RICH_DOCUMENT {
                push_rich_content(&mut doc);
            }
            if n == NESTED_LIST_DOCUMENT {
                push_nested_list(&mut doc);
                push_looks(&mut doc);
            }
            if n == TABBED_DOCUMENT {
                push_tabs(&mut doc);
            }
            if n == CENTRED_TITLE_DOCUMENT {
                let mut styles = super::doc::default_named_styles();
                styles["styles"][1]["paragraphStyle"]["alignment"] = json!("CENTER");
                doc.named_styles = Some(styles);
            }
            if n == VIEW_ONLY_DOCUMENT || n == COMMENT_ONLY_DOCUMENT {
                doc.push_pieces(
                    json!({"namedStyleType": "NORMAL_TEXT"}),
                    &[
                        Piece::Text("Prices rise in March", json!({})),
                        Piece::Suggested(
                            " (pending finance approval)",
                            json!({}),
                            json!({"suggestedInsertionIds": ["suggest.sbxprice"]}),
                        ),
                        Piece::Text(".", json!({})),
                    ],
                );
            }
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
            let access = match n {
                VIEW_ONLY_DOCUMENT => Access::Reader,
                COMMENT_ONLY_DOCUMENT => Access::Commenter,
                _ => Access::Owner,
            };
            SeedDoc { title, folder, doc, access, modified_after_hours: ((n * 37) % 500) as i64 }
        })
        .collect();
    for (k, title) in ["Team playbook", "On-call rota"].into_iter().enumerate() {
        let n = count + k;
        let mut doc = SimDoc::new(document_id(n), title, String::new());
        doc.push_paragraph("TITLE", &[(title, json!({}))]);
        doc.push_paragraph("NORMAL_TEXT", &[("Kept in the team's shared drive.", json!({}))]);
        doc.finish_seed();
        seeded.push(SeedDoc {
            title: title.into(),
            folder: SHARED_DRIVE.1 .0,
            doc,
            access: Access::Writer,
            modified_after_hours: 2,
        });
    }
    seeded
}

/// Everything a real document holds besides plain paragraphs, with the document-level objects
/// they point at (shapes from the Docs discovery document).
fn push_rich_content(doc: &mut SimDoc) {
    let normal = || json!({"namedStyleType": "NORMAL_TEXT"});
    // A justified paragraph and a signature set at the end of the line.
    doc.push_pieces(
        json!({"namedStyleType": "NORMAL_TEXT", "alignment": "JUSTIFIED"}),
        &[Piece::Text("Everything below was agreed at the planning meeting and holds until the next one; ask Sam before changing any of it.", json!({}))],
    );
    doc.push_pieces(
        json!({"namedStyleType": "NORMAL_TEXT", "alignment": "END"}),
        &[Piece::Text("— Sam, operations lead", json!({"italic": true}))],
    );
    // Shift+Enter: a soft line break inside one paragraph.
    doc.push_paragraph("NORMAL_TEXT", &[("Ship on Tuesday\u{b}announce on Wednesday 🚀.", json!({}))]);
    doc.push_paragraph("NORMAL_TEXT", &[("Owner:\tSam", json!({})), ("\tBackup:\tKai", json!({"italic": true}))]);
    doc.push_pieces(
        normal(),
        &[
            Piece::Text("Prices rise in March", json!({})),
            Piece::Suggested(
                " (pending finance approval)",
                json!({}),
                json!({"suggestedInsertionIds": ["suggest.sbxprice"]}),
            ),
            Piece::Text(".", json!({})),
        ],
    );
    doc.push_pieces(
        normal(),
        &[
            Piece::Text("Keep the ", json!({})),
            Piece::Suggested("old ", json!({}), json!({"suggestedDeletionIds": ["suggest.sbxrefund"]})),
            Piece::Text("refund window of 30 days.", json!({})),
        ],
    );
    doc.push_pieces(
        normal(),
        &[
            Piece::Text("Team photo: ", json!({})),
            Piece::Element(json!({"inlineObjectElement": {"inlineObjectId": "kix.sbxphoto", "textStyle": {}}})),
        ],
    );
    // A date chip: Google writes non-text elements inside a run as U+E907.
    doc.push_paragraph("NORMAL_TEXT", &[("Kick-off on \u{e907} with the whole team.", json!({}))]);
    let bullet =
        |text| (json!({"namedStyleType": "NORMAL_TEXT", "_bullet": {"listId": "kix.sbxlist", "textStyle": {}}}), text);
    for (style, text) in [bullet("Book the venue"), bullet("Order the coffee ☕")] {
        doc.push_pieces(style, &[Piece::Text(text, json!({}))]);
    }
    doc.push_pieces(
        json!({"namedStyleType": "NORMAL_TEXT", "_positionedObjectIds": ["kix.sbxplan"]}),
        &[Piece::Text("The floor plan is anchored to this paragraph.", json!({}))],
    );
    let size = |w, h| json!({"width": {"magnitude": w, "unit": "PT"}, "height": {"magnitude": h, "unit": "PT"}});
    let image = |title: &str, description: &str, w, h| -> Value {
        json!({
            "title": title,
            "description": description,
            "imageProperties": {"contentUri": format!("https://lh3.googleusercontent.com/sandbox/{}", title.to_lowercase().replace(' ', "-")), "sourceUri": ""},
            "size": size(w, h)
        })
    };
    doc.inline_objects.insert(
        "kix.sbxphoto".into(),
        json!({"objectId": "kix.sbxphoto", "inlineObjectProperties": {"embeddedObject": image("Team photo", "The team at the summer offsite", 320, 180)}}),
    );
    doc.positioned_objects.insert(
        "kix.sbxplan".into(),
        json!({"objectId": "kix.sbxplan", "positionedObjectProperties": {
            "embeddedObject": image("Floor plan", "Where each desk is", 240, 160),
            "positioning": {"layout": "WRAP_TEXT", "leftOffset": {"magnitude": 0, "unit": "PT"}, "topOffset": {"magnitude": 0, "unit": "PT"}}
        }}),
    );
    doc.lists.insert(
        "kix.sbxlist".into(),
        json!({"listProperties": {"nestingLevels": [{
            "bulletAlignment": "START", "glyphSymbol": "●", "glyphFormat": "%0", "startNumber": 1,
            "indentFirstLine": {"magnitude": 18, "unit": "PT"}, "indentStart": {"magnitude": 36, "unit": "PT"},
            "textStyle": {"underline": false}
        }]}}),
    );
}

/// Two more tabs, as a team that keeps its meeting's decisions apart writes them: "Decisions",
/// and "Action items" nested in it.
fn push_tabs(doc: &mut SimDoc) {
    let tab = |paragraphs: &[(&str, &str)]| {
        let mut content = SimDoc::new(doc.id.clone(), doc.title.clone(), String::new());
        for (style, text) in paragraphs {
            content.push_paragraph(style, &[(text, json!({}))]);
        }
        content.finish_seed();
        content
    };
    doc.other_tabs.push(super::doc::SimTab {
        properties: json!({"tabId": "t.6r0bq3kd1x2m", "title": "Decisions", "index": 1}),
        doc: tab(&[
            ("HEADING_1", "Decided on 3 November"),
            ("NORMAL_TEXT", "Refunds within 30 days stay free of questions."),
        ]),
    });
    doc.other_tabs.push(super::doc::SimTab {
        properties: json!({"tabId": "t.h4v9w2zq0c7e", "title": "Action items", "index": 0, "parentTabId": "t.6r0bq3kd1x2m", "nestingLevel": 1}),
        doc: tab(&[("NORMAL_TEXT", "Sam: update the refund macro by Friday.")]),
    });
}

/// A paragraph whose runs look as real documents' do, beyond what the editor edits: a raised
/// footnote mark, a coloured word, a highlight, and a monospaced password in a smaller size.
fn push_looks(doc: &mut SimDoc) {
    let rgb = |r: f64, g: f64, b: f64| json!({"color": {"rgbColor": {"red": r, "green": g, "blue": b}}});
    doc.push_paragraph(
        "NORMAL_TEXT",
        &[
            ("Bring your P45", json!({})),
            ("1", json!({"baselineOffset": "SUPERSCRIPT"})),
            (" and read the ", json!({})),
            ("security notes", json!({"bold": true, "foregroundColor": rgb(0.8, 0.0, 0.0)})),
            (" — the ", json!({})),
            ("highlighted", json!({"backgroundColor": rgb(1.0, 0.95, 0.6)})),
            (" parts first. Wi-Fi: ", json!({})),
            (
                "staffroom-guest",
                json!({"weightedFontFamily": {"fontFamily": "Roboto Mono", "weight": 400}, "fontSize": {"magnitude": 10, "unit": "PT"}}),
            ),
            (".", json!({})),
        ],
    );
}

/// An onboarding checklist: a numbered list three levels deep, its levels' glyphs as Docs writes
/// them, the second changed by hand from letters to a circle.
fn push_nested_list(doc: &mut SimDoc) {
    const LIST: &str = "kix.sbxonboard1";
    let items: [(&str, u64); 8] = [
        ("Before the first day", 0),
        ("Accounts", 1),
        ("E-mail and calendar", 2),
        ("Lemon Squeezy (support role)", 2),
        ("A desk by the window", 1),
        ("The first week", 0),
        ("Shadow a support shift", 1),
        ("After a month: a review with Sam", 0),
    ];
    for (text, level) in items {
        let indent = |points: u64| json!({"magnitude": points, "unit": "PT"});
        let mut bullet = json!({"listId": LIST, "textStyle": {}});
        // Docs leaves level 0 out (proto3 omits zero).
        if level > 0 {
            bullet["nestingLevel"] = json!(level);
        }
        doc.push_pieces(
            json!({"namedStyleType": "NORMAL_TEXT", "direction": "LEFT_TO_RIGHT",
                   "indentFirstLine": indent(18 + 36 * level), "indentStart": indent(36 + 36 * level), "_bullet": bullet}),
            &[Piece::Text(text, json!({}))],
        );
    }
    let levels: Vec<Value> = (0..9u64)
        .map(|n| {
            let mut level = json!({
                "bulletAlignment": "START",
                "indentFirstLine": {"magnitude": 18 + 36 * n, "unit": "PT"},
                "indentStart": {"magnitude": 36 + 36 * n, "unit": "PT"},
                "textStyle": {"underline": false},
                "startNumber": 1,
            });
            match n % 3 {
                0 => {
                    level["glyphType"] = json!("DECIMAL");
                    level["glyphFormat"] = json!(format!("%{n}."));
                }
                1 => {
                    level["glyphSymbol"] = json!("○");
                    level["glyphFormat"] = json!(format!("%{n}"));
                }
                _ => {
                    level["glyphType"] = json!("ROMAN");
                    level["glyphFormat"] = json!(format!("%{n}."));
                }
            }
            level
        })
        .collect();
    doc.lists.insert(LIST.into(), json!({"listProperties": {"nestingLevels": levels}}));
}

/// The name of the large document (see [`large_document`]).
pub const LARGE_DOCUMENT_TITLE: &str = "Staff handbook (large)";

/// A document of about 1 MB, for benchmarks: 5,000 paragraphs of text with emoji, CJK and
/// accents, several named styles, a bold name and a link in each, a bulleted or numbered list of
/// five items every 50 paragraphs (every other item nested) and a table of four rows and three
/// columns every 500; its last paragraph reads "End of the handbook." The same on every run.
pub fn large_document(id: &str) -> SimDoc {
    const STYLES: &[&str] = &["NORMAL_TEXT", "HEADING_1", "HEADING_2", "NORMAL_TEXT", "NORMAL_TEXT", "TITLE"];
    let mut rng = Xorshift(0x5eed);
    let mut doc = SimDoc::new(id, LARGE_DOCUMENT_TITLE, String::new());
    for (list, glyph) in [
        ("kix.handbook.bullets", json!({"glyphSymbol": "●"})),
        ("kix.handbook.numbers", json!({"glyphType": "DECIMAL"})),
    ] {
        doc.lists.insert(list.into(), json!({"listProperties": {"nestingLevels": [glyph, glyph, glyph]}}));
    }
    for i in 0..5_000 {
        if i % 500 == 250 {
            let rows: Vec<Vec<String>> = (0..4).map(|_| (0..3).map(|_| rng.sentence(3)).collect()).collect();
            let rows: Vec<Vec<&str>> = rows.iter().map(|r| r.iter().map(String::as_str).collect()).collect();
            doc.push_table(&rows);
        }
        let text = if i == 4_999 { "End of the handbook.".to_string() } else { rng.sentence(28) };
        let style = if i % 50 < 5 {
            let list = if (i / 50) % 2 == 0 { "kix.handbook.bullets" } else { "kix.handbook.numbers" };
            json!({"namedStyleType": "NORMAL_TEXT", "_bullet": {"listId": list, "nestingLevel": i % 2, "textStyle": {}}})
        } else {
            json!({"namedStyleType": STYLES[rng.below(STYLES.len())]})
        };
        let link = json!({"link": {"url": "https://example.com/wiki"}, "underline": true});
        doc.push_pieces(
            style,
            &[
                Piece::Text(&text, json!({})),
                Piece::Text(" Sam", json!({"bold": true})),
                Piece::Text(", see ", json!({})),
                Piece::Text("the wiki", link),
            ],
        );
    }
    doc.finish_seed();
    doc
}

/// A small deterministic generator (xorshift): the large document is the same on every run.
pub struct Xorshift(pub u64);

impl Xorshift {
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }

    /// Words of staff notes, with emoji, CJK and accents.
    pub fn sentence(&mut self, words: usize) -> String {
        const WORDS: &[&str] =
            &["staff", "order", "paid", "😀", "invoice", "café", "日本", "refund", "🐙", "plan", "notes", "customers"];
        (0..words).map(|_| WORDS[self.below(WORDS.len())]).collect::<Vec<_>>().join(" ")
    }
}

/// The folder of templates (SPEC section 14): letters a business writes to its customers, with
/// `{{…}}` placeholders, one of them in bold as people format them.
pub const TEMPLATES_FOLDER: (&str, &str) = ("fld_templates", "Templates");

/// The templates: id, name and document.
pub fn templates() -> Vec<(String, String, SimDoc)> {
    let letter = |id: &str, title: &str, paragraphs: &[&[(&str, Value)]]| {
        let mut doc = SimDoc::new(id.to_string(), title.to_string(), String::new());
        doc.push_paragraph("TITLE", &[(title, json!({}))]);
        for runs in paragraphs {
            doc.push_paragraph("NORMAL_TEXT", runs);
        }
        doc.finish_seed();
        (id.to_string(), title.to_string(), doc)
    };
    let plain = json!({});
    let bold = json!({"bold": true});
    vec![
        letter(
            "tplWelcomeLetterSbx01",
            "Welcome letter",
            &[
                &[("{{today}}", plain.clone())],
                &[("Dear ", plain.clone()), ("{{customer.name}}", bold.clone()), (",", plain.clone())],
                &[("Welcome aboard, and thank you for choosing us. Your account is set up for {{customer.email}}; \
                    everything we send you goes there.", plain.clone())],
                &[("Should anything be unclear, reply to this letter: a person reads every reply. À bientôt!", plain.clone())],
                &[("Kind regards,", plain.clone())],
                &[("{{staff.name}}", plain.clone())],
            ],
        ),
        letter(
            "tplOrderConfirmSbx02",
            "Order confirmation",
            &[
                &[("Hello {{customer.name}},", plain.clone())],
                &[("This confirms order ", plain.clone()), ("{{order.number}}", bold.clone()), (" of {{order.date}}, for {{order.total}}.", plain.clone())],
                &[("Keep this page for your records.", plain.clone())],
            ],
        ),
        letter(
            "tplRenewalNoticeSbx03",
            "Renewal notice",
            &[
                &[("Dear {{customer.name}},", plain.clone())],
                &[("Your {{subscription.product}} subscription renews on {{subscription.renewsAt}}. Nothing needs doing \
                    if the card on file is still good.", plain)],
            ],
        ),
    ]
}
