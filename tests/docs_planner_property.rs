//! The planner's promise, for random documents and random edits: applying its requests in the
//! simulator yields exactly the edited document (texts, paragraph styles and alignments,
//! character styles, lists: each paragraph's kind of list and nesting, and the table: its rows,
//! columns and cells), every part Staffroom does not edit (images, page breaks, footnote
//! references, smart chips, anchored objects, suggestions, wherever they fall) is untouched and
//! in its place, and each kind of request runs from the highest index down.

use proptest::prelude::*;
use serde_json::{json, Value};
use staffroom::docs::lists::{ListItem, ListKind};
use staffroom::docs::model::{Alignment, Document};
use staffroom::docs::planner::{editable_blocks, plan, plan_in_phases, EditBlock, StyledRun};
use staffroom::docs::tables::TableRowEdit;
use staffroom::sandbox::google::doc::{Piece as SeedPiece, SimDoc, Unit};

const STYLES: &[&str] = &["NORMAL_TEXT", "TITLE", "HEADING_1", "HEADING_2", "HEADING_6"];

fn alignment() -> impl Strategy<Value = Alignment> {
    prop_oneof![
        3 => Just(Alignment::Start),
        1 => prop::sample::select(vec![Alignment::Center, Alignment::End, Alignment::Justified]),
    ]
}

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

/// A list place: its kind and level (None: not in a list).
type Listed = Option<(ListKind, u8)>;

fn listed() -> impl Strategy<Value = Listed> {
    prop_oneof![
        2 => Just(None),
        1 => (prop::sample::select(vec![ListKind::Bullet, ListKind::Number]), 0u8..3).prop_map(Some),
    ]
}

/// A seeded paragraph: its text, named style, list place and alignment.
type Seeded = (String, &'static str, Listed, Alignment);

fn paragraph() -> impl Strategy<Value = Seeded> {
    (text().prop_map(|p| plain(&p)), prop::sample::select(STYLES), listed(), alignment())
}

#[derive(Debug, Clone)]
enum Edit {
    Retext(usize, Vec<Piece>),
    Restyle(usize, &'static str),
    Align(usize, Alignment),
    Delete(usize),
    Insert(usize, Vec<Piece>, &'static str, Alignment),
    Append(usize, Vec<Piece>),
    /// Gives the whole paragraph these character styles.
    Mark(usize, StyledRun),
    /// Puts the paragraph in a list (the one beside it, when of that kind), or out of one.
    List(usize, Listed),
    /// A table cell (counted row by row, wrapping) gets this text.
    CellText(usize, Vec<Piece>),
    CellStyle(usize, &'static str),
    CellAlign(usize, Alignment),
    /// A cell gets one more paragraph, or loses its last (when it has two).
    CellSplit(usize, Vec<Piece>),
    CellMerge(usize),
    /// A row or column added at this place (wrapping), its cells holding this text.
    AddRow(usize, Vec<Piece>),
    AddColumn(usize, Vec<Piece>),
    DeleteRow(usize),
    DeleteColumn(usize),
    /// A new table of this many rows and columns after a paragraph, its cells holding this text.
    NewTable(usize, usize, usize, Vec<Piece>),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), text()).prop_map(|(i, t)| Edit::Retext(i, t)),
        (any::<usize>(), prop::sample::select(STYLES)).prop_map(|(i, s)| Edit::Restyle(i, s)),
        (any::<usize>(), alignment()).prop_map(|(i, a)| Edit::Align(i, a)),
        any::<usize>().prop_map(Edit::Delete),
        (any::<usize>(), text(), prop::sample::select(STYLES), alignment())
            .prop_map(|(i, t, s, a)| Edit::Insert(i, t, s, a)),
        (any::<usize>(), text()).prop_map(|(i, t)| Edit::Append(i, t)),
        (any::<usize>(), marks()).prop_map(|(i, m)| Edit::Mark(i, m)),
        (any::<usize>(), listed()).prop_map(|(i, l)| Edit::List(i, l)),
        (any::<usize>(), text()).prop_map(|(i, t)| Edit::CellText(i, t)),
        (any::<usize>(), prop::sample::select(STYLES)).prop_map(|(i, s)| Edit::CellStyle(i, s)),
        (any::<usize>(), alignment()).prop_map(|(i, a)| Edit::CellAlign(i, a)),
        (any::<usize>(), text()).prop_map(|(i, t)| Edit::CellSplit(i, t)),
        any::<usize>().prop_map(Edit::CellMerge),
        (any::<usize>(), text()).prop_map(|(i, t)| Edit::AddRow(i, t)),
        (any::<usize>(), text()).prop_map(|(i, t)| Edit::AddColumn(i, t)),
        any::<usize>().prop_map(Edit::DeleteRow),
        any::<usize>().prop_map(Edit::DeleteColumn),
        (any::<usize>(), 1usize..3, 1usize..3, text()).prop_map(|(i, r, c, t)| Edit::NewTable(i, r, c, t)),
    ]
}

/// A part Staffroom does not edit: a paragraph holding it is a fixed block.
#[derive(Debug, Clone, Copy)]
enum Atom {
    Image,
    PageBreak,
    Footnote,
    Chip,
    Anchored,
    Suggestion,
}

fn atom() -> impl Strategy<Value = Atom> {
    prop::sample::select(vec![
        Atom::Image,
        Atom::PageBreak,
        Atom::Footnote,
        Atom::Chip,
        Atom::Anchored,
        Atom::Suggestion,
    ])
}

/// The paragraph holding `atom`, as Docs writes each (shapes from the discovery document).
fn push_atom(doc: &mut SimDoc, atom: Atom) {
    let normal = || json!({"namedStyleType": "NORMAL_TEXT"});
    match atom {
        Atom::Image => doc.push_pieces(
            normal(),
            &[
                SeedPiece::Text("Photo ", json!({})),
                SeedPiece::Element(json!({"inlineObjectElement": {"inlineObjectId": "kix.photo"}})),
            ],
        ),
        Atom::PageBreak => doc.push_pieces(normal(), &[SeedPiece::Element(json!({"pageBreak": {"textStyle": {}}}))]),
        Atom::Footnote => doc.push_pieces(
            normal(),
            &[
                SeedPiece::Text("As agreed", json!({})),
                SeedPiece::Element(json!({"footnoteReference": {"footnoteId": "kix.fn", "footnoteNumber": "1"}})),
            ],
        ),
        Atom::Chip => doc.push_pieces(
            normal(),
            &[
                SeedPiece::Text("Ask ", json!({})),
                SeedPiece::Element(
                    json!({"person": {"personId": "kix.p", "personProperties": {"email": "sam@example.com"}}}),
                ),
            ],
        ),
        Atom::Anchored => doc.push_pieces(
            json!({"namedStyleType": "NORMAL_TEXT", "_positionedObjectIds": ["kix.plan"]}),
            &[SeedPiece::Text("The plan is anchored here.", json!({}))],
        ),
        Atom::Suggestion => doc.push_pieces(
            normal(),
            &[
                SeedPiece::Text("Prices rise", json!({})),
                SeedPiece::Suggested(" soon", json!({}), json!({"suggestedInsertionIds": ["suggest.a"]})),
            ],
        ),
    }
}

/// The seeded lists: one of each kind, as Docs describes them (not as the simulator makes them,
/// so that no new list joins one).
const SEEDED: [(&str, ListKind); 2] =
    [("kix.seeded.bullets", ListKind::Bullet), ("kix.seeded.numbers", ListKind::Number)];

/// The document: `before`'s paragraphs with the atoms among them (each before the paragraph
/// numbered its place; past the last: after it), an image's paragraph, a caption, a 2×2 table,
/// then `after`'s paragraphs.
fn build(before: &[Seeded], atoms: &[(usize, Atom)], after: &[Seeded]) -> SimDoc {
    let mut doc = SimDoc::new("d", "Property", "rev0".into());
    let style = |s: &str, listed: &Listed, alignment: &Alignment| {
        let mut style = json!({"namedStyleType": s});
        // START as most documents hold it: unset (the named style's).
        if *alignment != Alignment::Start {
            style["alignment"] = json!(alignment);
        }
        if let Some((kind, level)) = listed {
            let id = SEEDED.iter().find(|(_, k)| k == kind).unwrap().0;
            style["_bullet"] = json!({"listId": id, "nestingLevel": level, "textStyle": {}});
        }
        style
    };
    // Docs removes the tabs that lead a list item when it makes one.
    let item_text = |t: &str, listed: &Listed| {
        if listed.is_some() {
            t.trim_start_matches('\t').to_string()
        } else {
            t.to_string()
        }
    };
    for (k, (t, s, listed, alignment)) in before.iter().enumerate() {
        for (_, atom) in atoms.iter().filter(|(at, _)| *at == k) {
            push_atom(&mut doc, *atom);
        }
        let link = json!({"link": {"url": "https://example.com/b"}, "underline": true});
        let t = item_text(t, listed);
        let pieces =
            [SeedPiece::Text(&t, json!({})), SeedPiece::Text("!", json!({"bold": true})), SeedPiece::Text(" go", link)];
        doc.push_pieces(style(s, listed, alignment), &pieces);
    }
    for (_, atom) in atoms.iter().filter(|(at, _)| *at >= before.len()) {
        push_atom(&mut doc, *atom);
    }
    // An image's paragraph, which no request may touch, then a caption before the table.
    doc.push_pieces(
        json!({"namedStyleType": "NORMAL_TEXT"}),
        &[
            SeedPiece::Text("Photo ", json!({})),
            SeedPiece::Element(json!({"inlineObjectElement": {"inlineObjectId": "kix.photo"}})),
        ],
    );
    doc.push_pieces(json!({"namedStyleType": "NORMAL_TEXT"}), &[SeedPiece::Text("Caption", json!({}))]);
    let table_at = doc.units.len();
    doc.push_table(&[vec!["Item", "😀 units"], vec!["Coffee ☕", "10"]]);
    // The header row is a heading, so that a row or column added beside it has a style to copy.
    doc.para_styles.push(json!({"namedStyleType": "HEADING_3"}));
    let heading = doc.para_styles.len() as u32 - 1;
    let second_row = (table_at + 2..doc.units.len()).find(|&i| doc.units[i] == Unit::RowStart).unwrap();
    for unit in &mut doc.units[table_at..second_row] {
        if let Unit::Newline { para, .. } = unit {
            *para = heading;
        }
    }
    for (t, s, listed, alignment) in after {
        let t = item_text(t, listed);
        if !t.is_empty() {
            doc.push_pieces(style(s, listed, alignment), &[SeedPiece::Text(&t, json!({"italic": true}))]);
        } else {
            doc.push_pieces(style(s, listed, alignment), &[]);
        }
    }
    for (id, kind) in SEEDED {
        let glyph = match kind {
            ListKind::Bullet => json!({"glyphSymbol": "●", "glyphFormat": "%0"}),
            ListKind::Number => json!({"glyphType": "DECIMAL", "glyphFormat": "%0."}),
        };
        doc.lists.insert(id.into(), json!({"listProperties": {"nestingLevels": [glyph, glyph, glyph]}}));
    }
    doc.finish_seed();
    doc
}

fn read(doc: &SimDoc) -> Document {
    serde_json::from_value(doc.to_json("SUGGESTIONS_INLINE")).unwrap()
}

/// The paragraphs Staffroom does not edit (those holding an atom), in order, without their
/// indexes.
fn fixed_paragraphs(doc: &SimDoc) -> Vec<Value> {
    read(doc)
        .body
        .content
        .iter()
        .filter(|e| e.paragraph.as_ref().is_some_and(|p| !p.is_plain_text()))
        .map(|e| {
            let mut paragraph = serde_json::to_value(e).unwrap();
            strip(&mut paragraph);
            paragraph
        })
        .collect()
}

/// A value without its indexes.
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

/// A new paragraph as the editor sends it (at the start unless aligned otherwise).
fn paragraph_of(pieces: &[Piece], style: &str) -> EditBlock {
    EditBlock::Paragraph {
        text: plain(pieces),
        style: style.to_string(),
        alignment: Some(Alignment::Start),
        runs: Some(runs(pieces)),
        list: None,
    }
}

/// Sets a paragraph block's alignment.
fn align(block: &mut EditBlock, to: Alignment) {
    if let EditBlock::Paragraph { alignment, .. } = block {
        *alignment = Some(to);
    }
}

/// The table's columns and rows.
fn table_of(blocks: &mut [EditBlock]) -> (&mut Vec<Option<u32>>, &mut Vec<TableRowEdit>) {
    blocks
        .iter_mut()
        .find_map(|b| match b {
            EditBlock::Table { columns, rows, .. } => Some((columns, rows)),
            _ => None,
        })
        .expect("the table is editable")
}

/// A cell's paragraphs, counting cells row by row and wrapping.
fn cell(blocks: &mut [EditBlock], i: usize) -> &mut Vec<EditBlock> {
    let (columns, rows) = table_of(blocks);
    let n = i % (columns.len() * rows.len());
    &mut rows[n / columns.len()].cells[n % columns.len()]
}

/// Applies a table edit (false: the edit is not a table's).
fn apply_in_table(blocks: &mut [EditBlock], edit: &Edit) -> bool {
    match edit {
        Edit::CellText(i, pieces) => {
            let style = match &cell(blocks, *i)[0] {
                EditBlock::Paragraph { style, .. } => style.clone(),
                _ => unreachable!(),
            };
            cell(blocks, *i)[0] = paragraph_of(pieces, &style);
        }
        Edit::CellStyle(i, s) => {
            if let EditBlock::Paragraph { style, .. } = &mut cell(blocks, *i)[0] {
                *style = s.to_string();
            }
        }
        Edit::CellAlign(i, to) => align(&mut cell(blocks, *i)[0], *to),
        Edit::CellSplit(i, pieces) => cell(blocks, *i).push(paragraph_of(pieces, "NORMAL_TEXT")),
        Edit::CellMerge(i) => {
            let paragraphs = cell(blocks, *i);
            if paragraphs.len() > 1 {
                paragraphs.pop();
            }
        }
        Edit::AddRow(i, pieces) => {
            let (columns, rows) = table_of(blocks);
            let cells = vec![vec![paragraph_of(pieces, "NORMAL_TEXT")]; columns.len()];
            rows.insert(i % (rows.len() + 1), TableRowEdit { from: None, cells });
        }
        Edit::AddColumn(i, pieces) => {
            let (columns, rows) = table_of(blocks);
            let at = i % (columns.len() + 1);
            columns.insert(at, None);
            for row in rows.iter_mut() {
                row.cells.insert(at, vec![paragraph_of(pieces, "HEADING_2")]);
            }
        }
        Edit::DeleteRow(i) => {
            let (_, rows) = table_of(blocks);
            if rows.len() > 1 {
                rows.remove(i % rows.len());
            }
        }
        Edit::DeleteColumn(i) => {
            let (columns, rows) = table_of(blocks);
            if columns.len() > 1 {
                let at = i % columns.len();
                columns.remove(at);
                for row in rows.iter_mut() {
                    row.cells.remove(at);
                }
            }
        }
        _ => return false,
    }
    true
}

fn apply(blocks: &mut Vec<EditBlock>, edit: &Edit) {
    if apply_in_table(blocks, edit) {
        return;
    }
    // Paragraph positions, and each one's segment (how many fixed parts and tables come before).
    let paragraphs: Vec<usize> =
        blocks.iter().enumerate().filter(|(_, b)| matches!(b, EditBlock::Paragraph { .. })).map(|(i, _)| i).collect();
    let segment = |at: usize| blocks[..at].iter().filter(|b| !matches!(b, EditBlock::Paragraph { .. })).count();
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
        Edit::Align(i, to) => align(&mut blocks[pick(*i)], *to),
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
            // Each stretch between fixed parts and tables keeps a paragraph.
            let same_side = paragraphs.iter().filter(|&&p| segment(p) == segment(at)).count();
            if same_side > 1 {
                blocks.remove(at);
            }
        }
        Edit::Insert(i, pieces, s, to) => {
            let at = i % (blocks.len() + 1);
            // As the editor allows: beside a paragraph, never alone between two fixed parts.
            let paragraph_at =
                |k: Option<usize>| matches!(k.and_then(|k| blocks.get(k)), Some(EditBlock::Paragraph { .. }));
            if paragraph_at(at.checked_sub(1)) || paragraph_at(Some(at)) {
                let mut paragraph = paragraph_of(pieces, s);
                align(&mut paragraph, *to);
                blocks.insert(at, paragraph);
            }
        }
        Edit::NewTable(i, rows, columns, pieces) => {
            let at = pick(*i) + 1;
            let cells = vec![vec![paragraph_of(pieces, "NORMAL_TEXT")]; *columns];
            let rows = (0..*rows).map(|_| TableRowEdit { from: None, cells: cells.clone() }).collect();
            blocks.insert(at, EditBlock::Table { start_index: None, columns: vec![None; *columns], rows });
            // As the editor does: a paragraph after it.
            if !matches!(blocks.get(at + 1), Some(EditBlock::Paragraph { .. })) {
                blocks.insert(at + 1, paragraph_of(&[], "NORMAL_TEXT"));
            }
        }
        Edit::List(i, listed) => {
            let at = pick(*i);
            // As the editor does: join the list beside it of that kind, or start one.
            let beside = |k: Option<usize>| match k.and_then(|k| blocks.get(k)) {
                Some(EditBlock::Paragraph { list: Some(l), .. }) if listed.is_some_and(|(kind, _)| kind == l.kind) => {
                    Some(l.id.clone())
                }
                _ => None,
            };
            // A new list's id is new: the edit's own random number.
            let id = beside(at.checked_sub(1)).or_else(|| beside(Some(at + 1))).unwrap_or_else(|| format!("new.{i}"));
            if let EditBlock::Paragraph { list, .. } = &mut blocks[at] {
                *list = listed.map(|(kind, level)| ListItem { id, kind, level });
            }
        }
        _ => unreachable!("table edits are applied above"),
    }
    // A list item must not begin with a tab: such a paragraph leaves its list.
    for block in blocks.iter_mut() {
        if let EditBlock::Paragraph { text, list, .. } = block {
            if text.starts_with('\t') {
                *list = None;
            }
        }
    }
}

/// A block's content as the user sees it: a paragraph's text, style, alignment and runs; a
/// table's cells'.
#[derive(Debug, PartialEq)]
enum Content {
    Paragraph(String, String, Option<Alignment>, Vec<StyledRun>),
    Table(Vec<Vec<Vec<Content>>>),
    Fixed,
}

fn contents(blocks: &[EditBlock]) -> Vec<Content> {
    blocks
        .iter()
        .map(|b| match b {
            EditBlock::Paragraph { text, style, alignment, runs, .. } => {
                Content::Paragraph(text.clone(), style.clone(), *alignment, joined(runs.clone().unwrap_or_default()))
            }
            EditBlock::Table { rows, .. } => {
                Content::Table(rows.iter().map(|r| r.cells.iter().map(|c| contents(c)).collect()).collect())
            }
            EditBlock::Fixed { .. } => Content::Fixed,
        })
        .collect()
}

/// Each paragraph's list kind and level.
fn lists_of(blocks: &[EditBlock]) -> Vec<Option<(ListKind, u8)>> {
    blocks
        .iter()
        .map(|b| match b {
            EditBlock::Paragraph { list: Some(l), .. } => Some((l.kind, l.level)),
            _ => None,
        })
        .collect()
}

/// Whether items side by side that were wanted in one list are in one list.
fn together_as_wanted(wanted: &[EditBlock], got: &[EditBlock]) -> bool {
    let id = |b: &EditBlock| match b {
        EditBlock::Paragraph { list: Some(l), .. } => Some(l.id.clone()),
        _ => None,
    };
    (1..wanted.len()).all(|k| {
        let same_wanted = id(&wanted[k - 1]).is_some() && id(&wanted[k - 1]) == id(&wanted[k]);
        !same_wanted || id(&got[k - 1]) == id(&got[k])
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn applying_the_plan_yields_the_edited_document(
        before in prop::collection::vec(paragraph(), 1..5),
        atoms in prop::collection::vec((0usize..6, atom()), 0..4),
        after in prop::collection::vec(paragraph(), 1..5),
        edits in prop::collection::vec(edit(), 0..8),
    ) {
        let mut sim = build(&before, &atoms, &after);
        let base = read(&sim);
        let fixed_before = fixed_paragraphs(&sim);
        let mut blocks = editable_blocks(&base);
        for e in &edits {
            apply(&mut blocks, e);
        }
        let (requests, list_requests) = plan_in_phases(&base, &blocks).expect("a valid edit plans");
        // A new table is made in stages, each ordered as below (see `tables`).
        let staged = blocks.iter().any(|b| matches!(b, EditBlock::Table { start_index: None, .. }));
        // Table shapes first, then text requests, then paragraph styles, then character styles;
        // each kind after the tables descends.
        let order = ["table", "insertText", "deleteContentRange", "updateParagraphStyle", "updateTextStyle"];
        let starts: Vec<(usize, u64)> = requests.iter().filter(|_| !staged).map(|r| {
            let (kind, body) = r.as_object().unwrap().iter().next().unwrap();
            if kind.contains("Table") {
                return (0, body["tableCellLocation"]["tableStartLocation"]["index"].as_u64().unwrap());
            }
            let start = body["location"]["index"].as_u64().or(body["range"]["startIndex"].as_u64()).unwrap();
            (order.iter().position(|k| k == kind).unwrap().max(2) - 1, start)
        }).collect();
        prop_assert!(staged || starts.windows(2).all(|w| w[0].0 <= w[1].0), "kinds out of order: {:?}", requests);
        for kind in (1..=3).filter(|_| !staged) {
            let of_kind: Vec<u64> = starts.iter().filter(|(k, _)| *k == kind).map(|(_, i)| *i).collect();
            let descending = if kind == 1 { of_kind.windows(2).all(|w| w[0] >= w[1]) } else { of_kind.windows(2).all(|w| w[0] > w[1]) };
            prop_assert!(descending, "kind {} not descending: {:?}", order[kind + 1], requests);
        }

        // The list phase: each list's requests together (they start where the list starts), the
        // lists from the highest index down.
        let list_starts: Vec<u64> = list_requests.iter().filter(|_| !staged).filter_map(|r| r.get("createParagraphBullets").or(r.get("deleteParagraphBullets"))).map(|b| b["range"]["startIndex"].as_u64().unwrap()).collect();
        prop_assert!(list_starts.windows(2).all(|w| w[0] >= w[1]), "lists not descending: {:?}", list_requests);
        let requests: Vec<Value> = requests.into_iter().chain(list_requests).collect();
        sim.batch_update(&requests).map_err(|e| TestCaseError::fail(format!("{}: {requests:?}", e.0)))?;
        let result = read(&sim);
        let got = editable_blocks(&result);
        prop_assert_eq!(contents(&got), contents(&blocks), "{:?}", requests);
        prop_assert_eq!(lists_of(&got), lists_of(&blocks), "{:?}", requests);
        prop_assert!(together_as_wanted(&blocks, &got), "a list split: {:?}", requests);
        prop_assert_eq!(fixed_paragraphs(&sim), fixed_before, "{:?}", requests);
        // Planning again from the result asks for nothing.
        prop_assert!(plan(&result, &got).unwrap().is_empty());
    }
}
