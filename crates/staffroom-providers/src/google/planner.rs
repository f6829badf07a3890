//! The edit planner: from a document and the user's edited paragraphs, the minimal batchUpdate
//! (deleteContentRange, insertText, updateParagraphStyle, updateTextStyle for the character
//! styles: see `marks`, the bullets of lists: see `lists`, and tables' rows and columns: see
//! `tables`) in UTF-16 indexes. Structure it cannot recreate is "fixed" blocks: they must stay,
//! in order, and no request touches them. Also the rebase of pending edits onto a newer revision.
//!
//! How a plan is made:
//! - The body splits into segments of paragraphs between fixed blocks. A segment's last newline
//!   is never deleted where it ends the body or a cell, or precedes a table; before a fixed
//!   paragraph (an image's) it goes with a paragraph removed whole.
//! - Paragraphs are diffed first (Myers over paragraph texts); changed paragraphs are then
//!   diffed by grapheme cluster, so no request splits a surrogate pair or a cluster (Google would
//!   move such an insertion).
//! - Text requests run from the highest index down, so each uses the base revision's indexes.
//!   Style requests follow, also from the highest down, with the final indexes (as in Google's
//!   own example). A paragraph gets one only if its named style or alignment may differ from
//!   the wanted one: it changed, the paragraph is new, or newlines around it were deleted
//!   (Google does not say which style a merged paragraph keeps). A named style is always sent
//!   with the alignment: Docs applies it first, and it "affects other properties".

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::time::Duration;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use similar::{Algorithm, DiffOp};
use unicode_segmentation::GraphemeCursor;

use super::lists::{self, ListItem, Placed, MAX_LEVEL};
use super::marks;
pub use super::marks::StyledRun;
use super::model::{text_problem, utf16_len, Alignment, Document, Paragraph, StructuralElement, NAMED_STYLES};
use super::tables::{self, TableRowEdit};
use staffroom_base::error::{Error, FieldError, Result};

/// One block of the editor: a paragraph the user may edit, a table whose cells they may edit,
/// or a fixed part (a paragraph holding an image, a table with merged cells, …) identified by its
/// start index in the base revision.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum EditBlock {
    Paragraph {
        /// One paragraph's text: no newline (Enter starts the next block), nothing Google strips.
        #[schema(pattern = "^[^\\x00-\\x08\\x0a\\x0c-\\x1f\\ue000-\\uf8ff]*$")]
        text: String,
        /// NORMAL_TEXT, TITLE, SUBTITLE or HEADING_1 to HEADING_6.
        #[schema(schema_with = named_style_schema)]
        style: String,
        /// How its lines are aligned. Absent: the paragraph says nothing, and shows its named
        /// style's alignment (a paragraph kept keeps what it has; a new one is saved without
        /// one of its own).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        alignment: Option<Alignment>,
        /// The text's character styles, in order, covering it exactly. Absent: the characters
        /// keep the styles they have (a draft kept before the editor had marks).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        runs: Option<Vec<StyledRun>>,
        /// The list the paragraph is an item of; absent: none.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        list: Option<ListItem>,
    },
    #[serde(rename_all = "camelCase")]
    Fixed {
        #[serde(deserialize_with = "whole_number")]
        #[schema(minimum = 0, maximum = 2147483647)]
        start_index: u32,
    },
    /// A table whose cells hold paragraphs the user may edit (see `tables`).
    #[serde(rename_all = "camelCase")]
    Table {
        /// The base table's start index.
        #[serde(default, deserialize_with = "optional_whole_number", skip_serializing_if = "Option::is_none")]
        #[schema(minimum = 0, maximum = 2147483647)]
        #[ts(optional)]
        start_index: Option<u32>,
        /// Which column of the base table each column is (0 for the first), left to right;
        /// `null`: a column the user added.
        columns: Vec<Option<u32>>,
        rows: Vec<TableRowEdit>,
    },
}

impl EditBlock {
    /// A paragraph whose characters keep the styles they have.
    pub fn paragraph(text: impl Into<String>, style: impl Into<String>) -> EditBlock {
        EditBlock::Paragraph { text: text.into(), style: style.into(), alignment: None, runs: None, list: None }
    }
}

/// The schema of a paragraph's named style.
fn named_style_schema() -> utoipa::openapi::schema::Object {
    utoipa::openapi::schema::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::String)
        .enum_values(Some(super::model::NAMED_STYLES.iter().copied()))
        .build()
}

/// A whole number, also when written as `12.0` (JSON has one kind of number).
fn whole_number<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<u32, D::Error> {
    let number = f64::deserialize(deserializer)?;
    if number.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&number) {
        Ok(number as u32)
    } else {
        Err(serde::de::Error::custom(format!("{number} is not a whole number of at least 0")))
    }
}

/// An optional [`whole_number`].
fn optional_whole_number<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<u32>, D::Error> {
    #[derive(Deserialize)]
    struct Whole(#[serde(deserialize_with = "whole_number")] u32);
    Ok(Option::<Whole>::deserialize(deserializer)?.map(|Whole(n)| n))
}

/// A top-level block of a document with its indexes, borrowing the document's text where it
/// can (a plan reads every paragraph; copying each one's text was a fifth of a large plan).
#[derive(Debug, Clone, PartialEq)]
pub struct BaseBlock<'a> {
    pub start: u32,
    pub end: u32,
    /// `Some((text, style))` for an editable paragraph.
    pub paragraph: Option<(Cow<'a, str>, &'a str)>,
    /// An editable paragraph's alignment (`None`: one the planner cannot know, see
    /// [`Paragraph::alignment`]).
    pub alignment: Option<Alignment>,
    /// An editable paragraph's character styles.
    pub runs: Vec<StyledRun>,
    /// An editable paragraph's list place.
    pub list: Option<ListItem>,
    /// An editable table's cells (row, column), each cell's paragraphs as blocks.
    pub table: Option<Vec<Vec<Vec<BaseBlock<'a>>>>>,
}

/// The document's top-level blocks after the leading section break.
pub fn base_blocks(doc: &Document) -> Vec<BaseBlock<'_>> {
    blocks_of(doc, true)
}

/// [`base_blocks`] as planning needs them: without their runs (the marks are planned from the
/// document itself), which a large document would spend a third of its plan reading.
fn plan_blocks(doc: &Document) -> Vec<BaseBlock<'_>> {
    blocks_of(doc, false)
}

fn blocks_of(doc: &Document, with_runs: bool) -> Vec<BaseBlock<'_>> {
    doc.body
        .content
        .iter()
        .filter(|e| !(e.section_break.is_some() && e.start_index == 0))
        .map(|e| {
            let mut block = paragraph_block(doc, e, with_runs);
            block.table = e.table.as_ref().and_then(|t| tables::grid(t, |p| is_editable(p))).map(|rows| {
                rows.into_iter()
                    .map(|cells| {
                        cells
                            .into_iter()
                            .map(|cell| cell.into_iter().map(|p| paragraph_block(doc, p, with_runs)).collect())
                            .collect()
                    })
                    .collect()
            });
            block
        })
        .collect()
}

/// Whether a paragraph is edited as text. A list item Docs holds with a leading tab stays
/// fixed: making its list again would read the tab as nesting.
fn is_editable(p: &Paragraph) -> bool {
    p.is_plain_text() && !(p.bullet.is_some() && p.text().starts_with('\t'))
}

/// An element as a block: with its text, style, runs and list place when it is an editable
/// paragraph.
fn paragraph_block<'a>(doc: &'a Document, e: &'a StructuralElement, with_runs: bool) -> BaseBlock<'a> {
    let editable = e.paragraph.as_ref().filter(|p| is_editable(p));
    BaseBlock {
        start: e.start_index,
        end: e.end_index,
        paragraph: editable.map(|p| (p.text_borrowed(), p.named_style())),
        alignment: editable.and_then(Paragraph::alignment),
        runs: editable.filter(|_| with_runs).map(marks::runs_of).unwrap_or_default(),
        list: editable.and_then(|p| lists::item_of(doc, p)),
        table: None,
    }
}

/// A draft kept when the editor could not yet edit some kind of paragraph (a list item was a
/// fixed block): each fixed block its base now offers as text becomes that text, unchanged, so
/// that the draft still plans.
pub fn carried_forward(base: &Document, blocks: Vec<EditBlock>) -> Vec<EditBlock> {
    let now: std::collections::HashMap<u32, EditBlock> = base_blocks(base)
        .iter()
        .map(|b| b.start)
        .zip(editable_blocks(base))
        .filter(|(_, b)| !matches!(b, EditBlock::Fixed { .. }))
        .collect();
    blocks
        .into_iter()
        .map(|block| match block {
            EditBlock::Fixed { start_index } => now.get(&start_index).cloned().unwrap_or(block),
            other => other,
        })
        .collect()
}

/// The whole text of the body as Google holds it (paragraph newlines included; tables and other
/// structure contribute their text runs).
pub fn body_text(doc: &Document) -> String {
    fn walk(elements: &[StructuralElement], out: &mut String) {
        for element in elements {
            if let Some(p) = &element.paragraph {
                out.extend(p.elements.iter().filter_map(|e| e.text_run.as_ref()).map(|r| r.content.as_str()));
            }
            if let Some(table) = &element.table {
                for cell in table.table_rows.iter().flat_map(|r| &r.table_cells) {
                    walk(&cell.content, out);
                }
            }
        }
    }
    let mut out = String::new();
    walk(&doc.body.content, &mut out);
    out
}

/// What the editor shows: one block per top-level element.
pub fn editable_blocks(doc: &Document) -> Vec<EditBlock> {
    base_blocks(doc).into_iter().map(edit_block).collect()
}

/// A base block as the editor starts from it.
fn edit_block(b: BaseBlock<'_>) -> EditBlock {
    match (b.paragraph, b.table) {
        (Some((text, style)), _) => EditBlock::Paragraph {
            text: text.into_owned(),
            style: style.to_owned(),
            alignment: b.alignment,
            runs: Some(b.runs),
            list: b.list,
        },
        (None, Some(rows)) => EditBlock::Table {
            start_index: Some(b.start),
            columns: (0..rows[0].len() as u32).map(Some).collect(),
            rows: rows
                .into_iter()
                .zip(0..)
                .map(|(cells, r)| TableRowEdit {
                    from: Some(r),
                    cells: cells.into_iter().map(|cell| cell.into_iter().map(edit_block).collect()).collect(),
                })
                .collect(),
        },
        (None, None) => EditBlock::Fixed { start_index: b.start },
    }
}

#[derive(Debug)]
struct TextOp {
    pos: u32,
    delete: u32,
    insert: String,
    /// The edited paragraphs (by position among all edited paragraphs) the inserted text comes
    /// from, to name the one holding a character Google would strip.
    paragraphs: std::ops::Range<usize>,
}

/// Grapheme diffs stop refining after this long (the result stays correct, only less minimal).
const DIFF_DEADLINE: Duration = Duration::from_millis(500);

/// Where an edited paragraph is: a block, or a paragraph of a table's cell (row, column, place).
#[derive(Debug, Clone, Copy)]
struct Path {
    block: usize,
    cell: Option<(usize, usize, usize)>,
}

impl std::fmt::Display for Path {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.cell {
            None => write!(f, "blocks[{}]", self.block),
            Some((r, c, k)) => write!(f, "blocks[{}].rows[{r}].cells[{c}][{k}]", self.block),
        }
    }
}

/// Every edited paragraph, the body's and the table cells', in document order, with its path
/// (`blocks[3]`, `blocks[5].rows[0].cells[1][0]`).
fn paragraphs_of(edited: &[EditBlock]) -> Vec<(Path, &EditBlock)> {
    let mut out = Vec::with_capacity(edited.len());
    for (i, block) in edited.iter().enumerate() {
        match block {
            EditBlock::Paragraph { .. } => out.push((Path { block: i, cell: None }, block)),
            EditBlock::Table { rows, .. } => {
                for (r, row) in rows.iter().enumerate() {
                    for (c, cell) in row.cells.iter().enumerate() {
                        out.extend(
                            cell.iter()
                                .enumerate()
                                .filter(|(_, p)| matches!(p, EditBlock::Paragraph { .. }))
                                .map(|(k, p)| (Path { block: i, cell: Some((r, c, k)) }, p)),
                        );
                    }
                }
            }
            EditBlock::Fixed { .. } => {}
        }
    }
    out
}

/// Validates `edited` against `base`: paragraphs are one line each with a known style, tables
/// fit their base tables, and the fixed blocks and tables stay, in order. The characters of the
/// text are checked where it changed only (see [`plan`]): text Google itself returned is never
/// refused.
fn check_edits(base: &[BaseBlock<'_>], edited: &[EditBlock]) -> Result<()> {
    let mut errors = Vec::new();
    let mut kinds: std::collections::HashMap<&str, lists::ListKind> = std::collections::HashMap::new();
    for (path, block) in paragraphs_of(edited) {
        if let EditBlock::Paragraph { text, style, runs, list, .. } = block {
            if let Some(runs) = runs {
                marks::check(&path, text, runs, &mut errors);
            }
            if let Some(list) = list {
                check_list_item(&path, text, list, &mut kinds, &mut errors);
            }
            if text.contains('\n') {
                errors.push(FieldError::new(format!("{path}.text"), "must be one paragraph (no newline)"));
            }
            if !NAMED_STYLES.contains(&style.as_str()) {
                errors.push(FieldError::new(
                    format!("{path}.style"),
                    format!("must be one of {}", NAMED_STYLES.join(", ")),
                ));
            }
        }
    }
    let base_structure: Vec<(u32, bool)> =
        base.iter().filter(|b| b.paragraph.is_none()).map(|b| (b.start, b.table.is_some())).collect();
    let edited_structure: Vec<(u32, bool)> = edited
        .iter()
        .filter_map(|b| match b {
            EditBlock::Fixed { start_index } => Some((*start_index, false)),
            EditBlock::Table { start_index, .. } => start_index.map(|start| (start, true)),
            EditBlock::Paragraph { .. } => None,
        })
        .collect();
    if base_structure != edited_structure {
        errors.push(FieldError::new("blocks", "tables and other fixed parts must all stay, in their order"));
    }
    for (i, block) in edited.iter().enumerate() {
        let EditBlock::Table { start_index, columns, rows } = block else { continue };
        let base_table = start_index.and_then(|start| base.iter().find(|b| b.start == start)?.table.as_ref());
        if let Some(cells) = base_table {
            let shape = (cells.len() as u32, cells[0].len() as u32);
            tables::check(&format!("blocks[{i}]"), columns, rows, shape, &mut errors);
        } else if start_index.is_none() {
            // Docs puts a new table inside a paragraph, which it splits: one on either side.
            let paragraph =
                |j: Option<usize>| matches!(j.and_then(|j| edited.get(j)), Some(EditBlock::Paragraph { .. }));
            if !paragraph(i.checked_sub(1)) || !paragraph(Some(i + 1)) {
                errors.push(FieldError::new(
                    format!("blocks[{i}]"),
                    "a new table needs a paragraph right before it and one right after it",
                ));
            }
            if rows.len() > tables::MAX_NEW_TABLE_SIDE || columns.len() > tables::MAX_NEW_TABLE_SIDE {
                let most = tables::MAX_NEW_TABLE_SIDE;
                errors.push(FieldError::new(
                    format!("blocks[{i}]"),
                    format!("a new table has at most {most} rows and {most} columns"),
                ));
            }
            tables::check(&format!("blocks[{i}]"), columns, rows, (0, 0), &mut errors);
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(Error::invalid(errors))
    }
}

/// A list item's checks: a real id and level, one kind per list, and no leading tab (Docs reads
/// leading tabs as nesting when it makes bullets, and removes them).
fn check_list_item<'a>(
    path: &Path,
    text: &str,
    list: &'a ListItem,
    kinds: &mut std::collections::HashMap<&'a str, lists::ListKind>,
    errors: &mut Vec<FieldError>,
) {
    if list.id.is_empty() || list.id.chars().count() > 100 || list.id.chars().any(char::is_control) {
        errors.push(FieldError::new(format!("{path}.list.id"), "must be 1 to 100 characters, none a control"));
    }
    if list.level > MAX_LEVEL {
        errors.push(FieldError::new(format!("{path}.list.level"), format!("must be 0 to {MAX_LEVEL}")));
    }
    if *kinds.entry(list.id.as_str()).or_insert(list.kind) != list.kind {
        errors.push(FieldError::new(format!("{path}.list.kind"), "must be the same for every item of a list"));
    }
    if text.starts_with('\t') {
        errors.push(FieldError::new(format!("{path}.text"), "a list item must not begin with a tab (nest it instead)"));
    }
}

/// The runs of paragraphs the text is planned in, in document order: the body's between fixed
/// parts and tables (fixed count + table count + 1 of them), then each table cell's in its
/// place.
fn base_segments<'b, 'a>(blocks: &'b [BaseBlock<'a>]) -> Vec<Vec<&'b BaseBlock<'a>>> {
    let mut out = vec![Vec::new()];
    for block in blocks {
        if let Some(rows) = &block.table {
            out.extend(rows.iter().flatten().map(|cell| cell.iter().collect()));
            out.push(Vec::new());
        } else if block.paragraph.is_some() {
            out.last_mut().expect("one segment at least").push(block);
        } else {
            out.push(Vec::new());
        }
    }
    out
}

/// For each of [`base_segments`], whether its last newline must stay: it ends the body, a table's
/// cell, or comes before a table (Docs refuses to delete the newline before a table). Before a
/// fixed paragraph (one holding an image, say) it may go with its paragraph, so that a
/// paragraph removed there is removed whole, its newline and list place with it.
fn last_newlines_stay(doc: &Document, blocks: &[BaseBlock<'_>]) -> Vec<bool> {
    let paragraph_starts: BTreeSet<u32> =
        doc.body.content.iter().filter(|e| e.paragraph.is_some()).map(|e| e.start_index).collect();
    let mut out = Vec::new();
    for block in blocks {
        if let Some(rows) = &block.table {
            out.push(true);
            out.extend(rows.iter().flatten().map(|_| true));
        } else if block.paragraph.is_none() {
            out.push(!paragraph_starts.contains(&block.start));
        }
    }
    // The last segment ends the body.
    out.push(true);
    out
}

/// [`base_segments`] of the edited blocks.
fn edited_segments(edited: &[EditBlock]) -> Vec<Vec<&EditBlock>> {
    let mut out = vec![Vec::new()];
    for block in edited {
        match block {
            EditBlock::Paragraph { .. } => out.last_mut().expect("one segment at least").push(block),
            EditBlock::Fixed { .. } => out.push(Vec::new()),
            EditBlock::Table { rows, .. } => {
                out.extend(rows.iter().flat_map(|row| &row.cells).map(|cell| cell.iter().collect()));
                out.push(Vec::new());
            }
        }
    }
    out
}

/// Each edited paragraph (the body's and the cells', in document order) with where it starts and
/// ends once the plan is applied, and whether a fixed part or a table's structure comes right before
/// it. `fixed_sizes`: the fixed blocks' lengths, in order.
fn layout<'a>(edited: &'a [EditBlock], fixed_sizes: &[u32]) -> Vec<(u32, u32, bool, &'a EditBlock)> {
    let mut out = Vec::new();
    let mut fixed = fixed_sizes.iter();
    let (mut pos, mut after_fixed) = (1, false);
    for block in edited {
        match block {
            EditBlock::Paragraph { text, .. } => {
                let end = pos + utf16_len(text) + 1;
                out.push((pos, end, after_fixed, block));
                pos = end;
                after_fixed = false;
            }
            EditBlock::Fixed { .. } => {
                pos += fixed.next().copied().unwrap_or_default();
                after_fixed = true;
            }
            EditBlock::Table { rows, .. } => {
                // One index each for the table's start, each row's, each cell's, and its end.
                pos += 1;
                for row in rows {
                    pos += 1;
                    for cell in &row.cells {
                        pos += 1;
                        for (k, paragraph) in cell.iter().enumerate() {
                            if let EditBlock::Paragraph { text, .. } = paragraph {
                                let end = pos + utf16_len(text) + 1;
                                out.push((pos, end, k == 0, paragraph));
                                pos = end;
                            }
                        }
                    }
                }
                pos += 1;
                after_fixed = true;
            }
        }
    }
    out
}

/// The requests turning `base` into `edited` (empty when nothing changed).
pub fn plan(base: &Document, edited: &[EditBlock]) -> Result<Vec<Value>> {
    let (mut requests, lists) = plan_in_phases(base, edited)?;
    requests.extend(lists);
    if let Some(tab) = &base.tab_id {
        requests.iter_mut().for_each(|request| name_tab(request, tab));
    }
    Ok(requests)
}

/// Names `tab` in every location and range of `request` (Docs' `Location.tabId`,
/// `Range.tabId`, `EndOfSegmentLocation.tabId`; a table's cells are found from its start
/// location), so that it edits that tab and not the first.
fn name_tab(request: &mut Value, tab: &str) {
    const PLACES: [&str; 4] = ["location", "range", "endOfSegmentLocation", "tableStartLocation"];
    if let Value::Object(fields) = request {
        for (key, value) in fields.iter_mut() {
            if let (true, Value::Object(place)) = (PLACES.contains(&key.as_str()), &mut *value) {
                place.insert("tabId".into(), Value::String(tab.to_string()));
            }
            name_tab(value, tab);
        }
    }
}

/// [`plan`]'s requests in its phases: the tables' shapes (see `tables`), text and styles (each
/// kind from the highest index down), then lists (each list's requests together, the lists from
/// the highest index down). With new tables, the phases of three stages, the last stage's lists
/// apart.
pub fn plan_in_phases(base: &Document, edited: &[EditBlock]) -> Result<(Vec<Value>, Vec<Value>)> {
    if !edited.iter().any(tables::is_new) {
        return plan_stage(base, edited);
    }
    // New tables are made in three stages (see `tables`).
    check_edits(&plan_blocks(base), edited)?;
    let joined = tables::without_new(edited);
    let (mut requests, lists) = plan_stage(base, &joined)?;
    requests.extend(lists);
    let (inserts, after, relabelled) = tables::insert_new(base, edited, &joined);
    requests.extend(inserts);
    let (rest, lists) = plan_stage(&after, &relabelled)?;
    requests.extend(rest);
    Ok((requests, lists))
}

/// One stage of [`plan_in_phases`]: an edit without new tables.
///
/// Over 80 lines, left whole: each phase feeds the next its positions.
fn plan_stage(base: &Document, edited: &[EditBlock]) -> Result<(Vec<Value>, Vec<Value>)> {
    let before_reshape = plan_blocks(base);
    check_edits(&before_reshape, edited)?;
    // Tables take their shape first: the rest is planned against the document that leaves.
    let (mut requests, reshaped) = tables::reshape(base, edited);
    let base = reshaped.as_ref().unwrap_or(base);
    let blocks = if reshaped.is_some() { plan_blocks(base) } else { before_reshape };
    let base_segments = base_segments(&blocks);
    let last_newline_stays = last_newlines_stay(base, &blocks);
    let edited_segments = edited_segments(edited);
    let mut text_ops: Vec<TextOp> = Vec::new();
    // Paragraphs (by index among edited paragraphs overall) whose named style, alignment or
    // list place must be set.
    let mut restyle: BTreeSet<usize> = BTreeSet::new();
    let mut realign: BTreeSet<usize> = BTreeSet::new();
    // Each paragraph's list place after the text requests (see `Changed::now`).
    let mut lists_now: Vec<Option<Option<&ListItem>>> = Vec::new();
    let mut paragraphs_before = 0;
    for (segment, (old, new)) in base_segments.iter().zip(&edited_segments).enumerate() {
        let new: Vec<(&str, Look)> = new
            .iter()
            .map(|b| match b {
                EditBlock::Paragraph { text, style, alignment, list, .. } => {
                    (text.as_str(), Look { style, alignment: *alignment, list: list.as_ref() })
                }
                _ => unreachable!("segments hold paragraphs"),
            })
            .collect();
        if old.is_empty() != new.is_empty() {
            return Err(Error::invalid_field(
                "blocks",
                if old.is_empty() {
                    format!("text cannot be added between two fixed parts (segment {segment})")
                } else {
                    format!("keep at least one paragraph before each table and at the end (segment {segment})")
                },
            ));
        }
        if old.is_empty() {
            continue;
        }
        let old: Vec<(&str, Look)> = old
            .iter()
            .map(|b| {
                let (t, s) = b.paragraph.as_ref().expect("segments hold paragraphs");
                (t.as_ref(), Look { style: s, alignment: b.alignment, list: b.list.as_ref() })
            })
            .collect();
        let mut segment_ops = Vec::new();
        let start = base_segments[segment][0].start;
        let changed = plan_segment(start, &old, &new, last_newline_stays[segment], &mut segment_ops);
        restyle.extend(changed.style.into_iter().map(|j| j + paragraphs_before));
        realign.extend(changed.alignment.into_iter().map(|j| j + paragraphs_before));
        lists_now.extend(changed.now);
        text_ops.extend(segment_ops.into_iter().map(|mut op| {
            op.paragraphs = op.paragraphs.start + paragraphs_before..op.paragraphs.end + paragraphs_before;
            op
        }));
        paragraphs_before += new.len();
    }
    refuse_stripped_characters(&paragraphs_of(edited), &text_ops)?;

    let edits: Vec<(u32, u32, u32)> = text_ops.iter().map(|op| (op.pos, op.delete, utf16_len(&op.insert))).collect();
    let kept = marks::kept(edits, blocks.last().map_or(0, |b| b.end));

    // Text requests, highest index first; at one index, the later-made first (see module docs).
    let mut ordered: Vec<(usize, TextOp)> = text_ops.into_iter().enumerate().collect();
    ordered.sort_by(|(ia, a), (ib, b)| b.pos.cmp(&a.pos).then(ib.cmp(ia)));
    for (_, op) in ordered {
        if op.delete > 0 {
            requests
                .push(json!({"deleteContentRange": {"range": {"startIndex": op.pos, "endIndex": op.pos + op.delete}}}));
        }
        if !op.insert.is_empty() {
            requests.push(json!({"insertText": {"location": {"index": op.pos}, "text": op.insert}}));
        }
    }

    // Style requests on the final layout, adjacent paragraphs of one style merged.
    let fixed_sizes: Vec<u32> =
        blocks.iter().filter(|b| b.paragraph.is_none() && b.table.is_none()).map(|b| b.end - b.start).collect();
    let mut ranges: Vec<(u32, u32, StyleUpdate)> = Vec::new();
    let mut styled: Vec<(u32, &[StyledRun])> = Vec::new();
    let mut placed: Vec<Placed> = Vec::new();
    for (paragraph, (pos, end, after_fixed, block)) in layout(edited, &fixed_sizes).into_iter().enumerate() {
        let EditBlock::Paragraph { style, alignment, runs, list, .. } = block else { continue };
        styled.extend(runs.as_deref().map(|runs| (pos, runs)));
        placed.push(Placed {
            start: pos,
            end,
            list: list.as_ref(),
            now: lists_now.get(paragraph).copied().flatten(),
            after_fixed,
        });
        let named = restyle.contains(&paragraph).then_some(style.as_str());
        // Docs applies a named style before the rest, and it "affects other properties"
        // (ParagraphStyle.namedStyleType in the discovery document): the alignment goes with it.
        // A new or merged paragraph without an alignment of its own loses the one it copied.
        let wanted =
            StyleUpdate { named, alignment: (named.is_some() || realign.contains(&paragraph)).then_some(*alignment) };
        if wanted.named.is_some() || wanted.alignment.is_some() {
            match ranges.last_mut() {
                Some(last) if last.1 == pos && last.2 == wanted => last.1 = end,
                _ => ranges.push((pos, end, wanted)),
            }
        }
    }
    for (start, end, style) in ranges.into_iter().rev() {
        requests.push(style.request(start, end));
    }
    // Character styles, on the final text (a named style set above leaves them as they are).
    requests.extend(marks::plan(base, &styled, &kept));
    // Lists last: their requests leave every index where it was.
    Ok((requests, lists::plan(base, &placed, blocks.iter().any(|b| b.list.is_some()))))
}

/// Only inserted text is checked: Google strips some characters from `insertText`, so text
/// holding them would not arrive as the user sees it. Each offending insert is blamed on the
/// first edited paragraph it came from that holds the character.
fn refuse_stripped_characters(paragraphs: &[(Path, &EditBlock)], ops: &[TextOp]) -> Result<()> {
    if ops.iter().all(|op| text_problem(&op.insert, true).is_none()) {
        return Ok(());
    }
    let paragraphs: Vec<(Path, &str)> = paragraphs
        .iter()
        .filter_map(|(path, b)| match b {
            EditBlock::Paragraph { text, .. } => Some((*path, text.as_str())),
            _ => None,
        })
        .collect();
    let mut errors: Vec<FieldError> = Vec::new();
    for op in ops {
        let Some((bad, problem)) = text_problem(&op.insert, true) else { continue };
        let from = op.paragraphs.start.min(paragraphs.len().saturating_sub(1));
        let to = op.paragraphs.end.clamp(from + 1, paragraphs.len().max(from + 1));
        let path = paragraphs[from..to.min(paragraphs.len())]
            .iter()
            .find(|(_, text)| text.contains(bad))
            .or_else(|| paragraphs.get(from))
            .map_or(Path { block: 0, cell: None }, |(path, _)| *path);
        let field = format!("{path}.text");
        if !errors.iter().any(|e| e.field == field) {
            errors.push(FieldError::new(field, problem));
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(Error::invalid(errors))
    }
}

/// A paragraph's look beside its text: its named style, alignment (`None`: as it is, or not
/// known) and list place.
#[derive(Debug, Clone, Copy)]
struct Look<'a> {
    style: &'a str,
    alignment: Option<Alignment>,
    list: Option<&'a ListItem>,
}

/// What one `updateParagraphStyle` sets: the named style, the alignment (`Some(None)`: the
/// paragraph's own taken away, so that it shows its named style's), or both.
#[derive(Debug, Clone, Copy, PartialEq)]
struct StyleUpdate<'a> {
    named: Option<&'a str>,
    alignment: Option<Option<Alignment>>,
}

impl StyleUpdate<'_> {
    fn request(self, start: u32, end: u32) -> Value {
        let mut style = serde_json::Map::new();
        let mut fields = Vec::new();
        if let Some(named) = self.named {
            style.insert("namedStyleType".into(), json!(named));
            fields.push("namedStyleType");
        }
        if let Some(alignment) = self.alignment {
            // A field named with no value is unset (Google's way to reset one).
            if let Some(alignment) = alignment {
                style.insert("alignment".into(), json!(alignment.as_str()));
            }
            fields.push("alignment");
        }
        json!({"updateParagraphStyle": {
            "range": {"startIndex": start, "endIndex": end},
            "paragraphStyle": style,
            "fields": fields.join(",")
        }})
    }
}

/// The (segment-local) paragraphs whose named style or alignment may differ from the wanted one
/// after the text requests (it changed, or the paragraph is new or merged), and each paragraph's
/// list place then.
struct Changed<'a> {
    style: Vec<usize>,
    alignment: Vec<usize>,
    /// The list place Docs gives each paragraph after the text requests: a kept paragraph keeps
    /// its own, a new one copies that of the paragraph its newline was inserted in ("the
    /// paragraph style of the new paragraph will be copied from the paragraph at the current
    /// insertion index, including lists and bullets": InsertTextRequest.text in the discovery
    /// document); `None` where Google does not say (paragraphs merged by a deletion).
    now: Vec<Option<Option<&'a ListItem>>>,
}

impl Changed<'_> {
    /// A paragraph whose look Docs leaves to chance (new, or merged): its style and alignment
    /// are set.
    fn all(&mut self, paragraphs: impl IntoIterator<Item = usize> + Clone) {
        self.style.extend(paragraphs.clone());
        self.alignment.extend(paragraphs);
    }
}

/// Plans one segment starting at `start`; returns the paragraphs whose look must be set.
///
/// Over 80 lines, left whole: the planner is replaced by the editor's document model ("The
/// document editor, for real", SPEC section 12), which plans marks, lists and tables too.
fn plan_segment<'a>(
    start: u32,
    old: &[(&str, Look<'a>)],
    new: &[(&str, Look)],
    last_newline_stays: bool,
    ops: &mut Vec<TextOp>,
) -> Changed<'a> {
    let n = old.len();
    // Whether old paragraphs up to `end` reach the segment's last newline, which must stay.
    let reaches_last = |end: usize| end == n && last_newline_stays;
    let mut offsets = Vec::with_capacity(n + 1);
    let mut at = start;
    for (text, _) in old {
        offsets.push(at);
        at += utf16_len(text) + 1;
    }
    offsets.push(at);
    let old_texts: Vec<&str> = old.iter().map(|p| p.0).collect();
    let new_texts: Vec<&str> = new.iter().map(|p| p.0).collect();
    let mut marks = Changed { style: Vec::new(), alignment: Vec::new(), now: vec![None; new.len()] };
    let mark_if_differs = |marks: &mut Changed<'a>, j: usize, current: Look<'a>| {
        let wanted = new[j].1;
        if wanted.style != current.style {
            marks.style.push(j);
        }
        if wanted.alignment != current.alignment {
            marks.alignment.push(j);
        }
        marks.now[j] = Some(current.list);
    };
    // Paragraphs a deletion merged, and new paragraphs with the paragraph whose list place they
    // copy: settled once every kept paragraph's is known.
    let mut merged: Vec<usize> = Vec::new();
    let mut copied: Vec<(std::ops::Range<usize>, Option<usize>)> = Vec::new();
    // The last old paragraph the ops so far leave whole (an insertion may split it), unless
    // paragraphs were added or merged since.
    let mut last_kept: Option<usize> = None;
    // Patience: paragraphs are nearly all unique, so it anchors on them in O(n log n) where
    // Myers takes O(n·d) (a 10% edit of 5,000 paragraphs); the stretches between are Myers'.
    let (old_ids, new_ids) = numbered(&old_texts, &new_texts);
    let mut queue: std::collections::VecDeque<DiffOp> =
        walk(similar::capture_diff_slices(Algorithm::Patience, &old_ids, &new_ids)).into();
    while let Some(op) = queue.pop_front() {
        let kept_before = last_kept;
        last_kept = match op {
            DiffOp::Equal { old_index, len, .. } => Some(old_index + len - 1),
            DiffOp::Replace { old_index, old_len, new_len, .. } if old_len == new_len => Some(old_index + old_len - 1),
            DiffOp::Delete { old_index, old_len, .. } if !reaches_last(old_index + old_len) => kept_before,
            _ => None,
        };
        match op {
            DiffOp::Equal { old_index, new_index, len } => {
                for k in 0..len {
                    mark_if_differs(&mut marks, new_index + k, old[old_index + k].1);
                }
            }
            DiffOp::Delete { old_index, old_len, new_index } => {
                if !reaches_last(old_index + old_len) {
                    let from = offsets[old_index];
                    ops.push(TextOp {
                        pos: from,
                        delete: offsets[old_index + old_len] - from,
                        insert: String::new(),
                        paragraphs: new_index..new_index,
                    });
                } else {
                    // The segment's last newline stays: delete the newline before instead, so
                    // the paragraph before takes the last newline (and its style: restyle it).
                    let from = offsets[old_index] - 1;
                    ops.push(TextOp {
                        pos: from,
                        delete: offsets[n] - 1 - from,
                        insert: String::new(),
                        paragraphs: new_index..new_index,
                    });
                    marks.all([new_index - 1]);
                    merged.push(new_index - 1);
                }
            }
            DiffOp::Insert { old_index, new_index, new_len } => {
                let texts = &new_texts[new_index..new_index + new_len];
                // New paragraphs copy the list place of the paragraph they are inserted in. Those
                // that want the place of the paragraph kept before them (a new item at the end of
                // a list, or of a nested level) go at its end, when the paragraph after has
                // another place; the rest at the start of the paragraph after. At the segment's
                // end, all go at the end of its last paragraph.
                let (head, head_at, head_from) = if old_index == n {
                    (new_len, offsets[n] - 1, kept_before.filter(|&k| k + 1 == n).map(|_| new_index - 1))
                } else {
                    match kept_before.filter(|&k| old[k].1.list != old[old_index].1.list) {
                        Some(k) => {
                            let wanting = new[new_index..new_index + new_len].iter();
                            let head = wanting.take_while(|(_, look)| look.list == old[k].1.list).count();
                            // After the removed paragraphs that may lie between.
                            (head, offsets[k + 1] - 1, Some(new_index - 1))
                        }
                        None => (0, 0, None),
                    }
                };
                if head > 0 {
                    ops.push(TextOp {
                        pos: head_at,
                        delete: 0,
                        insert: texts[..head].iter().map(|t| format!("\n{t}")).collect(),
                        paragraphs: new_index..new_index + head,
                    });
                    copied.push((new_index..new_index + head, head_from));
                }
                if head < new_len {
                    ops.push(TextOp {
                        pos: offsets[old_index],
                        delete: 0,
                        insert: texts[head..].iter().map(|t| format!("{t}\n")).collect(),
                        paragraphs: new_index + head..new_index + new_len,
                    });
                    copied.push((new_index + head..new_index + new_len, Some(new_index + new_len)));
                }
                // Inserted paragraphs copy the style of the paragraph they land in, which
                // another request may have merged: set theirs explicitly.
                marks.all(new_index..new_index + new_len);
            }
            DiffOp::Replace { old_index, old_len, new_index, new_len } => {
                // (Not at the segment's end, whose last newline no paragraph removed may take.)
                let places_differ = old_len == new_len
                    && !reaches_last(old_index + old_len)
                    && (0..old_len).any(|k| old[old_index + k].1.list != new[new_index + k].1.list);
                let paired = |old_len, new_len| {
                    let before = kept_before.map(|k| old[k].1.list);
                    let (old, new) = (&old[old_index..old_index + old_len], &new[new_index..new_index + new_len]);
                    pair_up(old, new, before, old_index, new_index)
                };
                if places_differ {
                    paired(old_len, new_len).into_iter().rev().for_each(|op| queue.push_front(op));
                    last_kept = kept_before;
                    continue;
                }
                if old_len == new_len {
                    for k in 0..old_len {
                        let paragraph = new_index + k..new_index + k + 1;
                        diff_text(
                            old_texts[old_index + k],
                            new_texts[new_index + k],
                            offsets[old_index + k],
                            paragraph,
                            ops,
                        );
                        mark_if_differs(&mut marks, new_index + k, old[old_index + k].1);
                    }
                } else {
                    let mut old_block: String =
                        old_texts[old_index..old_index + old_len].iter().map(|t| format!("{t}\n")).collect();
                    let mut new_block: String =
                        new_texts[new_index..new_index + new_len].iter().map(|t| format!("{t}\n")).collect();
                    if reaches_last(old_index + old_len) {
                        // Keep the segment's last newline out of reach.
                        old_block.pop();
                        new_block.pop();
                    }
                    let mut block_ops = Vec::new();
                    diff_text(
                        &old_block,
                        &new_block,
                        offsets[old_index],
                        new_index..new_index + new_len,
                        &mut block_ops,
                    );
                    // Newlines only added: each paragraph was split, its pieces all keep its place.
                    let inserted_newlines: usize = block_ops.iter().map(|op| op.insert.matches('\n').count()).sum();
                    let split_only = old_len + inserted_newlines == new_len;
                    let mut looks =
                        old[old_index..old_index + old_len].iter().chain(&new[new_index..new_index + new_len]);
                    let place = old[old_index].1.list;
                    let listed = looks.clone().any(|(_, look)| look.list.is_some());
                    let keeps_places = split_only && looks.all(|(_, look)| look.list == place);
                    if listed && !keeps_places && !reaches_last(old_index + old_len) {
                        // A merge would leave list places to chance: the paragraphs pair up
                        // instead, and the rest are removed or added whole.
                        paired(old_len, new_len).into_iter().rev().for_each(|op| queue.push_front(op));
                        last_kept = kept_before;
                        continue;
                    }
                    ops.extend(block_ops);
                    // Newlines moved inside the block: restyle it, and the paragraph after it
                    // (a merge into it would give it a style from the block).
                    marks.all(new_index..(new_index + new_len + 1).min(new.len()));
                    if split_only {
                        // Not listed, or split within one list place: every piece keeps it.
                        marks.now[new_index..new_index + new_len].iter_mut().for_each(|now| *now = Some(place));
                    } else {
                        merged.push(new_index + new_len);
                    }
                }
            }
        }
    }
    for j in merged {
        if let Some(now) = marks.now.get_mut(j) {
            *now = None;
        }
    }
    for (paragraphs, from) in copied {
        let place = from.and_then(|from| marks.now.get(from).copied().flatten());
        marks.now[paragraphs].iter_mut().for_each(|now| *now = place);
    }
    marks
}

/// The paragraphs of a changed stretch as diff ops (from `old_index` and `new_index`) that leave
/// list places to no chance. A new paragraph is paired with the next old one when that has its
/// place (the old text is rewritten, its place kept); else added at the end of the paragraph
/// before it when that gives its place (`before`: the place of the one kept before the stretch,
/// then of the last one paired); else paired with a later old one of its place, the old ones
/// skipped removed whole; else added at the start of the paragraph after it (copying its place,
/// or set by a list request). Runs of removed or added paragraphs are one op each, and no op pairs two places.
fn pair_up(
    old: &[(&str, Look)],
    new: &[(&str, Look)],
    before: Option<Option<&ListItem>>,
    old_index: usize,
    new_index: usize,
) -> Vec<DiffOp> {
    let old: Vec<Option<&ListItem>> = old.iter().map(|(_, look)| look.list).collect();
    let new: Vec<Option<&ListItem>> = new.iter().map(|(_, look)| look.list).collect();
    // Which new paragraph each paired old one becomes, in order.
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    let (mut i, mut splittable) = (0, before);
    for (j, wanted) in new.iter().enumerate() {
        // The next old paragraph, when it has the place, keeps its text; then an addition where
        // the paragraph before gives the place; then the next old one with the place.
        let next_fits = old.get(i) == Some(wanted);
        if !next_fits && splittable == Some(*wanted) {
            continue;
        }
        match (i..old.len()).find(|&k| old[k] == *wanted) {
            Some(k) => {
                pairs.push((k, j));
                i = k + 1;
                splittable = Some(old[k]);
            }
            // Added at the start of the paragraph after: none later may go at the end of the
            // one before.
            None => splittable = None,
        }
    }
    let mut ops = Vec::new();
    let (mut i, mut j) = (0, 0);
    for (k, paired) in pairs.into_iter().chain([(old.len(), new.len())]) {
        // Removed first, so that an addition lands in the paragraph that stays.
        if k > i {
            ops.push(DiffOp::Delete { old_index: old_index + i, old_len: k - i, new_index: new_index + j });
        }
        if paired > j {
            ops.push(DiffOp::Insert { old_index: old_index + k, new_index: new_index + j, new_len: paired - j });
        }
        if k < old.len() {
            ops.push(DiffOp::Replace {
                old_index: old_index + k,
                old_len: 1,
                new_index: new_index + paired,
                new_len: 1,
            });
        }
        (i, j) = (k + 1, paired + 1);
    }
    ops
}

/// Each text as a number, equal texts the same number: the paragraph diff then hashes and
/// compares numbers, where hashing every paragraph's text took a fifth of a large plan.
fn numbered(old: &[&str], new: &[&str]) -> (Vec<u32>, Vec<u32>) {
    let mut numbers: FxHashMap<&str, u32> = FxHashMap::default();
    numbers.reserve(old.len() + new.len());
    let mut number = |text| {
        let next = numbers.len() as u32;
        *numbers.entry(text).or_insert(next)
    };
    let old = old.iter().map(|t| number(*t)).collect();
    let new = new.iter().map(|t| number(*t)).collect();
    (old, new)
}

/// Diff ops with their old and new positions recomputed by walking them in order: similar's
/// `old_index` on an insertion can point before the preceding equal run.
fn walk(ops: Vec<DiffOp>) -> Vec<DiffOp> {
    let (mut old, mut new) = (0, 0);
    ops.into_iter()
        .map(|op| {
            let walked = match op {
                DiffOp::Equal { len, .. } => DiffOp::Equal { old_index: old, new_index: new, len },
                DiffOp::Delete { old_len, .. } => DiffOp::Delete { old_index: old, old_len, new_index: new },
                DiffOp::Insert { new_len, .. } => DiffOp::Insert { old_index: old, new_index: new, new_len },
                DiffOp::Replace { old_len, new_len, .. } => {
                    DiffOp::Replace { old_index: old, old_len, new_index: new, new_len }
                }
            };
            let (o, n) = match walked {
                DiffOp::Equal { len, .. } => (len, len),
                DiffOp::Delete { old_len, .. } => (old_len, 0),
                DiffOp::Insert { new_len, .. } => (0, new_len),
                DiffOp::Replace { old_len, new_len, .. } => (old_len, new_len),
            };
            old += o;
            new += n;
            walked
        })
        .collect()
}

/// Appends the grapheme-level edits turning `old` into `new`, `old` starting at index `base`.
fn diff_text(old: &str, new: &str, base: u32, paragraphs: std::ops::Range<usize>, ops: &mut Vec<TextOp>) {
    if old == new {
        return;
    }
    // What both share at either end is left out of the grapheme diff (most edits touch a few
    // words of a long paragraph), cut where both have a grapheme boundary.
    let (prefix, suffix) = common_ends(old, new);
    let base = base + utf16_len(&old[..prefix]);
    let (old, new) = (&old[prefix..old.len() - suffix], &new[prefix..new.len() - suffix]);
    let diff =
        similar::TextDiff::configure().algorithm(Algorithm::Myers).timeout(DIFF_DEADLINE).diff_graphemes(old, new);
    let old_slices = diff.old_slices();
    let new_slices = diff.new_slices();
    let mut prefix = Vec::with_capacity(old_slices.len() + 1);
    let mut at = base;
    for g in old_slices {
        prefix.push(at);
        at += utf16_len(g);
    }
    prefix.push(at);
    for op in walk(diff.ops().to_vec()) {
        match op {
            DiffOp::Equal { .. } => {}
            DiffOp::Delete { old_index, old_len, .. } => ops.push(TextOp {
                pos: prefix[old_index],
                delete: prefix[old_index + old_len] - prefix[old_index],
                insert: String::new(),
                paragraphs: paragraphs.clone(),
            }),
            DiffOp::Insert { old_index, new_index, new_len } => ops.push(TextOp {
                pos: prefix[old_index],
                delete: 0,
                insert: new_slices[new_index..new_index + new_len].concat(),
                paragraphs: paragraphs.clone(),
            }),
            DiffOp::Replace { old_index, old_len, new_index, new_len } => ops.push(TextOp {
                pos: prefix[old_index],
                delete: prefix[old_index + old_len] - prefix[old_index],
                insert: new_slices[new_index..new_index + new_len].concat(),
                paragraphs: paragraphs.clone(),
            }),
        }
    }
}

/// The lengths in bytes of the longest start and end `old` and `new` share, each ending (or
/// starting) at a grapheme boundary of both, and not overlapping in either.
fn common_ends(old: &str, new: &str) -> (usize, usize) {
    let boundary =
        |text: &str, at: usize| GraphemeCursor::new(at, text.len(), true).is_boundary(text, 0).unwrap_or(false);
    let shared = |at: usize| boundary(old, at) && boundary(new, at);
    let mut prefix = old.bytes().zip(new.bytes()).take_while(|(a, b)| a == b).count();
    while prefix > 0 && !(old.is_char_boundary(prefix) && new.is_char_boundary(prefix) && shared(prefix)) {
        prefix -= 1;
    }
    let most = old.len().min(new.len()) - prefix;
    let mut suffix = old.bytes().rev().zip(new.bytes().rev()).take(most).take_while(|(a, b)| a == b).count();
    let ends = |suffix: usize| (old.len() - suffix, new.len() - suffix);
    while suffix > 0 && {
        let (a, b) = ends(suffix);
        !(old.is_char_boundary(a) && new.is_char_boundary(b) && boundary(old, a) && boundary(new, b))
    } {
        suffix -= 1;
    }
    (prefix, suffix)
}

// ---------------------------------------------------------------------------------------------
// Rebase

/// Where the user's edits and a collaborator's overlap: both versions of that stretch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct RebaseConflict {
    /// Where the stretch starts in the rebased blocks, and how many blocks it spans there (the
    /// rebased blocks hold the newer revision's version until the user chooses).
    pub at: usize,
    pub len: usize,
    pub mine: Vec<EditBlock>,
    pub theirs: Vec<EditBlock>,
}

/// Pending edits carried onto a newer revision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct Rebased {
    /// Blocks against the newer revision; conflicting stretches hold the newer version.
    pub blocks: Vec<EditBlock>,
    pub conflicts: Vec<RebaseConflict>,
}

/// A block compared across revisions: fixed blocks and tables by content, never by index.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Key {
    Paragraph(String, String, Option<Alignment>, Option<Vec<StyledRun>>, Option<ListItem>),
    Fixed(String),
    /// A table's columns and rows, without where it starts.
    Table(String),
    /// A table the user added: text as far as the merge is concerned.
    NewTable(String),
}

impl Key {
    /// Whether the block is structure: a fixed part or a table.
    fn is_structure(&self) -> bool {
        matches!(self, Key::Fixed(_) | Key::Table(_))
    }

    /// Whether the two stand for the same structure in two revisions: a fixed part with the
    /// same content, or a table (whatever each side made of it).
    fn same_structure(&self, other: &Key) -> bool {
        match (self, other) {
            (Key::Table(_), Key::Table(_)) => true,
            _ => self == other,
        }
    }
}

/// The blocks' keys. A paragraph without runs (its characters keep their styles) or without an
/// alignment is keyed with the runs and alignment `doc` has for that text and style, so that it
/// equals the paragraph it leaves alone.
fn keys(doc: &Document, blocks: &[EditBlock]) -> Vec<Key> {
    let fingerprints: std::collections::HashMap<u32, String> =
        doc.body.content.iter().map(|e| (e.start_index, fingerprint(e))).collect();
    let known: std::collections::HashMap<(String, String), (Vec<StyledRun>, Option<Alignment>)> = base_blocks(doc)
        .into_iter()
        .filter_map(|b| {
            let (text, style) = b.paragraph?;
            Some(((text.into_owned(), style.to_owned()), (b.runs, b.alignment)))
        })
        .collect();
    blocks
        .iter()
        .map(|b| match b {
            EditBlock::Paragraph { text, style, alignment, runs, list } => {
                let known = known.get(&(text.clone(), style.clone()));
                let runs = runs.clone().or_else(|| known.map(|(runs, _)| runs.clone()));
                let alignment = alignment.or_else(|| known.and_then(|(_, alignment)| *alignment));
                Key::Paragraph(text.clone(), style.clone(), alignment, runs, list.clone())
            }
            EditBlock::Fixed { start_index } => Key::Fixed(fingerprints.get(start_index).cloned().unwrap_or_default()),
            EditBlock::Table { start_index, columns, rows } => {
                let content = serde_json::to_string(&(columns, rows)).unwrap_or_default();
                if start_index.is_some() {
                    Key::Table(content)
                } else {
                    Key::NewTable(content)
                }
            }
        })
        .collect()
}

/// An element's content without its indexes.
fn fingerprint(element: &StructuralElement) -> String {
    fn strip(value: &mut Value) {
        match value {
            Value::Object(map) => {
                map.remove("startIndex");
                map.remove("endIndex");
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut value = serde_json::to_value(element).unwrap_or_default();
    strip(&mut value);
    value.to_string()
}

/// One side's change: base range `[from, to)` replaced by `with`.
#[derive(Debug, Clone)]
struct Hunk {
    from: usize,
    to: usize,
    with: Vec<Key>,
}

fn hunks(base: &[Key], side: &[Key]) -> Vec<Hunk> {
    walk(similar::capture_diff_slices(Algorithm::Myers, base, side))
        .into_iter()
        .filter_map(|op| match op {
            DiffOp::Equal { .. } => None,
            DiffOp::Delete { old_index, old_len, .. } => {
                Some(Hunk { from: old_index, to: old_index + old_len, with: vec![] })
            }
            DiffOp::Insert { old_index, new_index, new_len } => {
                Some(Hunk { from: old_index, to: old_index, with: side[new_index..new_index + new_len].to_vec() })
            }
            DiffOp::Replace { old_index, old_len, new_index, new_len } => Some(Hunk {
                from: old_index,
                to: old_index + old_len,
                with: side[new_index..new_index + new_len].to_vec(),
            }),
        })
        .collect()
}

/// `base[from..to]` with the side's hunks inside that range applied.
fn apply_within(base: &[Key], hunks: &[Hunk], from: usize, to: usize) -> Vec<Key> {
    let mut out = Vec::new();
    let mut at = from;
    for h in hunks.iter().filter(|h| h.from >= from && h.to <= to) {
        out.extend_from_slice(&base[at..h.from]);
        out.extend(h.with.iter().cloned());
        at = h.to;
    }
    out.extend_from_slice(&base[at..to]);
    out
}

fn overlaps(a: &Hunk, b: &Hunk) -> bool {
    // Two insertions at one point overlap; so do ranges that share an element.
    let inside = a.from < b.to && b.from < a.to;
    let same_start = a.from == b.from;
    // An insertion right at the end of the other's range: their order would be a guess.
    let insertion_at_edge = (a.from == a.to && a.from == b.to) || (b.from == b.to && b.from == a.to);
    inside || same_start || insertion_at_edge
}

/// Carries `mine` (edits of `base`) onto `newer`: a three-way merge by block. Stretches both
/// sides changed differently become conflicts, holding the newer version for now.
///
/// Over 80 lines, left whole: the planner is replaced by the editor's document model ("The
/// document editor, for real", SPEC section 12), which plans marks, lists and tables too.
pub fn rebase(base: &Document, mine: &[EditBlock], newer: &Document) -> Result<Rebased> {
    check_edits(&plan_blocks(base), mine)?;
    let base_keys = keys(base, &editable_blocks(base));
    let mine_keys = keys(base, mine);
    let theirs_blocks = editable_blocks(newer);
    let theirs_keys = keys(newer, &theirs_blocks);
    let mine_hunks = hunks(&base_keys, &mine_keys);
    let theirs_hunks = hunks(&base_keys, &theirs_keys);

    // Walk the base, grouping overlapping hunks of either side into regions.
    let mut all: Vec<(Hunk, bool)> =
        mine_hunks.iter().cloned().map(|h| (h, true)).chain(theirs_hunks.iter().cloned().map(|h| (h, false))).collect();
    all.sort_by_key(|(h, mine)| (h.from, h.to, !*mine));
    let mut merged: Vec<Key> = Vec::new();
    let mut conflicts: Vec<(usize, usize, Vec<Key>, Vec<Key>)> = Vec::new();
    let mut at = 0;
    let mut i = 0;
    while i < all.len() {
        let (first, _) = &all[i];
        let (from, mut to) = (first.from, first.to);
        let mut region = vec![all[i].clone()];
        i += 1;
        while i < all.len() && (all[i].0.from < to || region.iter().any(|(h, _)| overlaps(h, &all[i].0))) {
            to = to.max(all[i].0.to);
            region.push(all[i].clone());
            i += 1;
        }
        merged.extend_from_slice(&base_keys[at..from]);
        let mine_side = apply_within(&base_keys, &mine_hunks, from, to);
        let theirs_side = apply_within(&base_keys, &theirs_hunks, from, to);
        let has_mine = region.iter().any(|(_, m)| *m);
        let has_theirs = region.iter().any(|(_, m)| !*m);
        if has_mine && has_theirs && mine_side != theirs_side {
            conflicts.push((merged.len(), theirs_side.len(), mine_side, theirs_side.clone()));
            merged.extend(theirs_side);
        } else if has_mine {
            merged.extend(mine_side);
        } else {
            merged.extend(theirs_side);
        }
        at = to;
    }
    merged.extend_from_slice(&base_keys[at..]);

    // Back to blocks against the newer revision: its fixed parts and tables, in order.
    let newer_structure: Vec<(&Key, &EditBlock)> =
        theirs_keys.iter().zip(&theirs_blocks).filter(|(k, _)| k.is_structure()).collect();
    let merged_structure: Vec<&Key> = merged.iter().filter(|k| k.is_structure()).collect();
    // Each side of each conflict must name the newer revision's structure in its place too (a
    // table I edited and they removed falls in one conflict whose "mine" holds a table no more).
    let side_fits = |keys: &[Key], from: usize| {
        let structure: Vec<&Key> = keys.iter().filter(|k| k.is_structure()).collect();
        newer_structure
            .get(from..from + structure.len())
            .is_some_and(|newer| structure.iter().zip(newer).all(|(a, (b, _))| a.same_structure(b)))
    };
    let conflicts_fit = conflicts.iter().all(|(at, _, mine_side, theirs_side)| {
        let before = merged[..*at].iter().filter(|k| k.is_structure()).count();
        side_fits(mine_side, before) && side_fits(theirs_side, before)
    });
    if !conflicts_fit
        || merged_structure.len() != newer_structure.len()
        || merged_structure.iter().zip(&newer_structure).any(|(a, (b, _))| !a.same_structure(b))
    {
        // The structure moved under the edits: offer the whole document as one choice.
        let mine_blocks = mine.to_vec();
        return Ok(Rebased {
            blocks: theirs_blocks.clone(),
            conflicts: vec![RebaseConflict {
                at: 0,
                len: theirs_blocks.len(),
                mine: mine_blocks,
                theirs: theirs_blocks,
            }],
        });
    }
    // Each key back to the block it came from (mine first: a paragraph without runs stays
    // without them).
    let mut originals: std::collections::HashMap<&Key, &EditBlock> = std::collections::HashMap::new();
    for (key, block) in mine_keys.iter().zip(mine).chain(theirs_keys.iter().zip(&theirs_blocks)) {
        originals.entry(key).or_insert(block);
    }
    let base_structure: Vec<&Key> = base_keys.iter().filter(|k| k.is_structure()).collect();
    // The block for `k`, where `place` is its structure's place among the newer revision's.
    // (A collaborator's new table shifts the base's out of step: then none compares equal.)
    let to_block = |k: &Key, place: Option<usize>| match (k, place.map(|i| (newer_structure[i], base_structure.get(i))))
    {
        (Key::Fixed(_), Some(((_, block), _))) => block.clone(),
        (Key::Table(_), Some(((newer_key, block), _))) if newer_key == k => block.clone(),
        (Key::Table(_), Some(((newer_key, EditBlock::Table { start_index, .. }), base_key))) => {
            match originals.get(k) {
                // Mine, where the table is now. Its rows and columns name the base's: where the
                // newer revision changed the table too, they become new ones.
                Some(EditBlock::Table { columns, rows, .. }) if base_key != Some(&newer_key) => EditBlock::Table {
                    start_index: *start_index,
                    columns: vec![None; columns.len()],
                    rows: rows.iter().map(|r| TableRowEdit { from: None, cells: r.cells.clone() }).collect(),
                },
                Some(EditBlock::Table { columns, rows, .. }) => {
                    EditBlock::Table { start_index: *start_index, columns: columns.clone(), rows: rows.clone() }
                }
                _ => unreachable!("a table key comes from a table"),
            }
        }
        (Key::NewTable(_), _) => originals.get(k).map(|b| (*b).clone()).expect("a new table key comes from a block"),
        (Key::Paragraph(text, style, alignment, runs, list), _) => {
            originals.get(k).map(|b| (*b).clone()).unwrap_or_else(|| EditBlock::Paragraph {
                text: text.clone(),
                style: style.clone(),
                alignment: *alignment,
                runs: runs.clone(),
                list: list.clone(),
            })
        }
        _ => unreachable!("structure was matched with the newer revision's"),
    };
    // Each side's keys as blocks, its structure taken in order from `structure_from` on.
    let side_blocks = |keys: &[Key], structure_from: usize| -> Vec<EditBlock> {
        let mut structure = structure_from..;
        keys.iter().map(|k| to_block(k, if k.is_structure() { structure.next() } else { None })).collect()
    };
    let blocks = side_blocks(&merged, 0);
    let conflicts = conflicts
        .into_iter()
        .map(|(at, len, mine_side, theirs_side)| {
            let structure_before = merged[..at].iter().filter(|k| k.is_structure()).count();
            RebaseConflict {
                at,
                len,
                mine: side_blocks(&mine_side, structure_before),
                theirs: side_blocks(&theirs_side, structure_before),
            }
        })
        .collect();
    Ok(Rebased { blocks, conflicts })
}

#[cfg(test)]
mod tests {
    use super::common_ends;

    #[test]
    fn shared_ends_stop_at_a_grapheme_boundary_of_both_texts() {
        assert_eq!(common_ends("the cat sat", "the hat sat"), (4, 6));
        // "e" then a combining acute: the shared "e" is not cut from its accent.
        assert_eq!(common_ends("cafe\u{301}!", "cafe!"), (3, 1));
        // A family emoji (joined by ZWJ) and flags (pairs of regional indicators) stay whole.
        let family = "👨\u{200d}👩\u{200d}👧";
        assert_eq!(common_ends(&format!("a{family}"), "a👨"), (1, 0));
        assert_eq!(common_ends("🇫🇷🇩🇪", "🇫🇷🇩🇰"), (8, 0));
        assert_eq!(common_ends("same", "same"), (4, 0));
        assert_eq!(common_ends("aaa", "aa"), (2, 0));
    }

    use super::*;
    use crate::google::model::{Body, Paragraph, ParagraphElement, TextRun};

    fn para(start: u32, text: &str, style: &str) -> StructuralElement {
        let content = format!("{text}\n");
        let end = start + utf16_len(&content);
        StructuralElement {
            start_index: start,
            end_index: end,
            paragraph: Some(Paragraph {
                elements: vec![ParagraphElement {
                    start_index: start,
                    end_index: end,
                    text_run: Some(TextRun { content, ..Default::default() }),
                    other: Default::default(),
                }],
                paragraph_style: Some(serde_json::from_value(json!({"namedStyleType": style})).unwrap()),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    fn doc(paragraphs: &[(&str, &str)]) -> Document {
        let mut content =
            vec![StructuralElement { end_index: 1, section_break: Some(json!({})), ..Default::default() }];
        let mut at = 1;
        for (text, style) in paragraphs {
            let p = para(at, text, style);
            at = p.end_index;
            content.push(p);
        }
        Document {
            id: "d".into(),
            name: "n".into(),
            body: Body { content },
            revision_id: Some("r".into()),
            suggestions_view_mode: None,
            can_edit: true,
            ..Default::default()
        }
    }

    fn p(text: &str, style: &str) -> EditBlock {
        EditBlock::paragraph(text, style)
    }

    #[test]
    fn nothing_changed_plans_nothing() {
        let d = doc(&[("a", "TITLE"), ("b", "NORMAL_TEXT")]);
        assert!(plan(&d, &editable_blocks(&d)).unwrap().is_empty());
    }

    /// `d` with paragraph `i` (0 for the first after the section break) given `alignment`.
    fn aligned(mut d: Document, i: usize, alignment: &str) -> Document {
        let paragraph = d.body.content[i + 1].paragraph.as_mut().unwrap();
        paragraph.paragraph_style.get_or_insert_with(Default::default).insert("alignment".into(), json!(alignment));
        d
    }

    /// Paragraph `i`'s block with `alignment`.
    fn realigned(mut blocks: Vec<EditBlock>, i: usize, to: Alignment) -> Vec<EditBlock> {
        if let EditBlock::Paragraph { alignment, .. } = &mut blocks[i] {
            *alignment = Some(to);
        }
        blocks
    }

    #[test]
    fn alignment_is_read_as_docs_keeps_it_and_set_only_where_it_changed() {
        use Alignment::*;
        let d = aligned(
            aligned(doc(&[("a", "TITLE"), ("b", "NORMAL_TEXT"), ("c", "NORMAL_TEXT")]), 0, "CENTER"),
            2,
            "ALIGNMENT_UNSPECIFIED",
        );
        let alignments: Vec<Option<Alignment>> = editable_blocks(&d)
            .iter()
            .map(|b| match b {
                EditBlock::Paragraph { alignment, .. } => *alignment,
                _ => None,
            })
            .collect();
        // Unset and unspecified are the paragraph saying nothing: it shows its named style's.
        assert_eq!(alignments, [Some(Center), None, None]);
        let requests = plan(&d, &realigned(editable_blocks(&d), 1, Justified)).unwrap();
        assert_eq!(
            requests,
            vec![json!({"updateParagraphStyle": {
                "range": {"startIndex": 3, "endIndex": 5},
                "paragraphStyle": {"alignment": "JUSTIFIED"},
                "fields": "alignment"
            }})]
        );
        // A named style goes with the alignment (Docs applies it first, and it affects other
        // properties); a paragraph sent without an alignment has its own taken away.
        let mut restyled = editable_blocks(&d);
        restyled[0] = realigned(vec![p("a", "HEADING_1")], 0, Center).remove(0);
        let style = &plan(&d, &restyled).unwrap()[0]["updateParagraphStyle"];
        assert_eq!(
            (&style["fields"], &style["paragraphStyle"]["alignment"]),
            (&json!("namedStyleType,alignment"), &json!("CENTER"))
        );
        let unsaid = [p("a", "TITLE"), p("b", "NORMAL_TEXT"), p("c", "NORMAL_TEXT")];
        assert_eq!(
            plan(&d, &unsaid).unwrap(),
            vec![json!({"updateParagraphStyle": {
                "range": {"startIndex": 1, "endIndex": 3}, "paragraphStyle": {}, "fields": "alignment"
            }})]
        );
    }

    #[test]
    fn a_new_paragraph_without_an_alignment_of_its_own_is_saved_without_one() {
        // Split from a centred title, a body paragraph that says nothing takes the centring away.
        let d = aligned(doc(&[("Title", "TITLE"), ("body", "NORMAL_TEXT")]), 0, "CENTER");
        let mut edited = editable_blocks(&d);
        edited.insert(1, p("Intro", "NORMAL_TEXT"));
        let requests = plan(&d, &edited).unwrap();
        let style = requests.iter().find_map(|r| r.get("updateParagraphStyle")).unwrap();
        assert_eq!(style["paragraphStyle"], json!({"namedStyleType": "NORMAL_TEXT"}));
        assert_eq!(style["fields"], "namedStyleType,alignment");
    }

    #[test]
    fn a_new_paragraph_gets_its_alignment_whatever_it_was_split_from() {
        let d = aligned(doc(&[("Title", "TITLE"), ("body", "NORMAL_TEXT")]), 0, "CENTER");
        let mut edited = editable_blocks(&d);
        edited.insert(1, realigned(vec![p("Intro", "NORMAL_TEXT")], 0, Alignment::Start).remove(0));
        let requests = plan(&d, &edited).unwrap();
        let style = requests.iter().find_map(|r| r.get("updateParagraphStyle")).unwrap();
        assert_eq!(style["paragraphStyle"], json!({"namedStyleType": "NORMAL_TEXT", "alignment": "START"}));
        assert_eq!(style["fields"], "namedStyleType,alignment");
    }

    #[test]
    fn a_small_edit_is_a_small_request_in_utf16() {
        let d = doc(&[("😀 hello", "NORMAL_TEXT"), ("x", "NORMAL_TEXT")]);
        let requests = plan(&d, &[p("😀 hello!", "NORMAL_TEXT"), p("x", "NORMAL_TEXT")]).unwrap();
        assert_eq!(requests, vec![json!({"insertText": {"location": {"index": 9}, "text": "!"}})]);
    }

    #[test]
    fn the_last_newline_is_never_deleted() {
        let d = doc(&[("a", "HEADING_1"), ("b", "NORMAL_TEXT")]);
        let requests = plan(&d, &[p("a", "HEADING_1")]).unwrap();
        assert_eq!(requests[0], json!({"deleteContentRange": {"range": {"startIndex": 2, "endIndex": 4}}}));
        assert_eq!(requests[1]["updateParagraphStyle"]["paragraphStyle"]["namedStyleType"], "HEADING_1");
    }

    #[test]
    fn refuses_moved_tables_and_bad_text() {
        let d = doc(&[("a", "NORMAL_TEXT")]);
        assert!(plan(&d, &[p("a\nb", "NORMAL_TEXT")]).is_err());
        assert!(plan(&d, &[p("a", "HEADING_9")]).is_err());
        assert!(plan(&d, &[p("a", "NORMAL_TEXT"), EditBlock::Fixed { start_index: 3 }]).is_err());
        assert!(plan(&d, &[]).is_err());
    }

    #[test]
    fn rebase_merges_separate_edits_and_reports_overlaps() {
        let base = doc(&[("one", "NORMAL_TEXT"), ("two", "NORMAL_TEXT"), ("three", "NORMAL_TEXT")]);
        let newer = doc(&[("ONE", "NORMAL_TEXT"), ("two", "NORMAL_TEXT"), ("three", "NORMAL_TEXT")]);
        let mine = [p("one", "NORMAL_TEXT"), p("two", "NORMAL_TEXT"), p("three!", "NORMAL_TEXT")];
        let rebased = rebase(&base, &mine, &newer).unwrap();
        assert!(rebased.conflicts.is_empty());
        // Theirs as read (with its runs); mine as sent (without).
        let plain = |blocks: &[EditBlock]| -> Vec<EditBlock> {
            blocks
                .iter()
                .map(|b| match b {
                    EditBlock::Paragraph { text, style, .. } => p(text, style),
                    fixed => fixed.clone(),
                })
                .collect()
        };
        assert_eq!(
            plain(&rebased.blocks),
            vec![p("ONE", "NORMAL_TEXT"), p("two", "NORMAL_TEXT"), p("three!", "NORMAL_TEXT")]
        );
        assert!(matches!(&rebased.blocks[2], EditBlock::Paragraph { runs: None, .. }));
        let mine = [p("uno", "NORMAL_TEXT"), p("two", "NORMAL_TEXT"), p("three", "NORMAL_TEXT")];
        let rebased = rebase(&base, &mine, &newer).unwrap();
        assert_eq!(rebased.conflicts.len(), 1);
        assert_eq!(rebased.conflicts[0].mine, vec![p("uno", "NORMAL_TEXT")]);
        assert_eq!(plain(&rebased.conflicts[0].theirs), vec![p("ONE", "NORMAL_TEXT")]);
        assert_eq!(plain(&rebased.blocks[..1]), vec![p("ONE", "NORMAL_TEXT")]);
    }

    /// A document whose paragraphs `listed` are items of one bulleted list `kix.a` (level given).
    fn with_list(paragraphs: &[(&str, Option<u8>)]) -> Document {
        let mut d = doc(&paragraphs.iter().map(|(t, _)| (*t, "NORMAL_TEXT")).collect::<Vec<_>>());
        for (element, (_, level)) in d.body.content[1..].iter_mut().zip(paragraphs) {
            if let Some(level) = level {
                element.paragraph.as_mut().unwrap().bullet = Some(json!({"listId": "kix.a", "nestingLevel": level}));
            }
        }
        let levels = json!({"listProperties": {"nestingLevels": [{"glyphSymbol": "●"}]}});
        d.lists = Some(serde_json::from_value(json!({"kix.a": levels})).unwrap());
        d
    }

    fn item(text: &str, id: &str, kind: lists::ListKind, level: u8) -> EditBlock {
        EditBlock::Paragraph {
            text: text.into(),
            style: "NORMAL_TEXT".into(),
            alignment: None,
            runs: None,
            list: Some(ListItem { id: id.into(), kind, level }),
        }
    }

    #[test]
    fn list_items_are_read_with_their_list_and_an_edit_of_their_text_keeps_it() {
        use lists::ListKind::Bullet;
        let d = with_list(&[("Checklist", None), ("Venue", Some(0)), ("Coffee", Some(1))]);
        let blocks = editable_blocks(&d);
        assert_eq!(
            blocks[2],
            EditBlock::Paragraph {
                text: "Coffee".into(),
                style: "NORMAL_TEXT".into(),
                alignment: None,
                runs: Some(vec![StyledRun { len: 6, ..Default::default() }]),
                list: Some(ListItem { id: "kix.a".into(), kind: Bullet, level: 1 }),
            }
        );
        let mut edited = blocks.clone();
        edited[1] = item("Venue booked", "kix.a", Bullet, 0);
        // Text only: no list request, so the list keeps its id.
        assert_eq!(
            plan(&d, &edited).unwrap(),
            vec![json!({"insertText": {"location": {"index": 16}, "text": " booked"}})]
        );
    }

    #[test]
    fn a_list_changed_in_shape_is_made_again_with_its_nesting_as_tabs() {
        use lists::ListKind::{Bullet, Number};
        let d = with_list(&[("Checklist", None), ("Venue", Some(0)), ("Coffee", Some(1))]);
        // "Coffee" moves up a level: the list is made again, and nothing else is touched.
        let edited =
            [p("Checklist", "NORMAL_TEXT"), item("Venue", "kix.a", Bullet, 0), item("Coffee", "kix.a", Bullet, 0)];
        let range = json!({"startIndex": 11, "endIndex": 24});
        assert_eq!(
            plan(&d, &edited).unwrap(),
            vec![
                json!({"deleteParagraphBullets": {"range": range}}),
                json!({"updateParagraphStyle": {"range": range, "paragraphStyle": {}, "fields": "indentStart,indentFirstLine"}}),
                json!({"createParagraphBullets": {"range": range, "bulletPreset": "BULLET_DISC_CIRCLE_SQUARE"}}),
            ]
        );
        // A new numbered list in a document without lists: tabs for the nesting, then bullets.
        let d = doc(&[("a", "NORMAL_TEXT"), ("b", "NORMAL_TEXT")]);
        let edited = [item("a", "new.1", Number, 0), item("b", "new.1", Number, 2)];
        assert_eq!(
            plan(&d, &edited).unwrap(),
            vec![
                json!({"insertText": {"location": {"index": 3}, "text": "\t\t"}}),
                json!({"createParagraphBullets": {"range": {"startIndex": 1, "endIndex": 7}, "bulletPreset": "NUMBERED_DECIMAL_ALPHA_ROMAN"}}),
            ]
        );
    }

    #[test]
    fn list_items_are_checked() {
        use lists::ListKind::{Bullet, Number};
        let d = doc(&[("a", "NORMAL_TEXT"), ("b", "NORMAL_TEXT")]);
        let fields = |edited: &[EditBlock]| -> Vec<String> {
            let error = plan(&d, edited).unwrap_err();
            error.details.unwrap()["fields"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f["field"].as_str().unwrap().to_string())
                .collect()
        };
        assert_eq!(
            fields(&[item("a", "", Bullet, 9), p("b", "NORMAL_TEXT")]),
            ["blocks[0].list.id", "blocks[0].list.level"]
        );
        assert_eq!(fields(&[item("a", "x", Bullet, 0), item("b", "x", Number, 0)]), ["blocks[1].list.kind"]);
        assert_eq!(fields(&[item("\ta", "x", Bullet, 0), p("b", "NORMAL_TEXT")]), ["blocks[0].text"]);
    }

    #[test]
    fn a_draft_kept_while_list_items_were_fixed_still_plans() {
        let d = with_list(&[("Checklist", None), ("Venue", Some(0))]);
        let old_draft = vec![p("Checklist!", "NORMAL_TEXT"), EditBlock::Fixed { start_index: 11 }];
        assert!(plan(&d, &old_draft).is_err(), "the item is text now");
        let carried = carried_forward(&d, old_draft);
        assert_eq!(carried[1], editable_blocks(&d)[1]);
        assert_eq!(plan(&d, &carried).unwrap(), vec![json!({"insertText": {"location": {"index": 10}, "text": "!"}})]);
    }

    #[test]
    fn splitting_a_paragraph_beside_a_list_leaves_every_indent_and_the_list_alone() {
        let d = with_list(&[("Item", Some(0)), ("A text", None), ("B", None)]);
        let mut edited = editable_blocks(&d);
        edited.splice(1..2, [p("A", "NORMAL_TEXT"), p(" text", "NORMAL_TEXT")]);
        let requests = plan(&d, &edited).unwrap();
        let kinds: Vec<&str> =
            requests.iter().map(|r| r.as_object().unwrap().keys().next().unwrap().as_str()).collect();
        // Both pieces keep the place of the paragraph they were split from (no list): no list
        // request, no indent reset.
        assert!(!kinds.iter().any(|k| k.contains("Bullets")), "{requests:?}");
        assert!(
            requests.iter().all(|r| r.pointer("/updateParagraphStyle/fields").is_none_or(|f| f
                .as_str()
                .unwrap()
                .split(',')
                .all(|f| ["namedStyleType", "alignment"].contains(&f)))),
            "{requests:?}"
        );
    }

    #[test]
    fn a_list_made_again_keeps_its_preset() {
        use lists::ListKind::Number;
        let mut d = with_list(&[("One", Some(0)), ("Two", Some(0))]);
        let roman = json!({"listProperties": {"nestingLevels": [{"glyphType": "UPPER_ROMAN", "glyphFormat": "%0."}]}});
        d.lists = Some(serde_json::from_value(json!({"kix.a": roman})).unwrap());
        let edited = [item("One", "kix.a", Number, 0), item("Two", "kix.a", Number, 1)];
        let requests = plan(&d, &edited).unwrap();
        let create = requests.iter().find_map(|r| r.get("createParagraphBullets")).expect("made again");
        assert_eq!(create["bulletPreset"], "NUMBERED_UPPERROMAN_UPPERALPHA_DECIMAL");
    }

    #[test]
    fn marks_rebase_onto_their_edits_elsewhere_and_both_styling_one_paragraph_conflicts() {
        let base = doc(&[("one", "NORMAL_TEXT"), ("two", "NORMAL_TEXT"), ("three", "NORMAL_TEXT")]);
        let mut mine = editable_blocks(&base);
        let bold = StyledRun { len: 5, bold: true, ..Default::default() };
        let EditBlock::Paragraph { runs, .. } = &mut mine[2] else { panic!() };
        *runs = Some(vec![bold.clone()]);
        // They changed the first paragraph: my bold word carries over and plans on their revision.
        let newer = doc(&[("ONE", "NORMAL_TEXT"), ("two", "NORMAL_TEXT"), ("three", "NORMAL_TEXT")]);
        let rebased = rebase(&base, &mine, &newer).unwrap();
        assert!(rebased.conflicts.is_empty(), "{:?}", rebased.conflicts);
        assert!(matches!(&rebased.blocks[0], EditBlock::Paragraph { text, .. } if text == "ONE"));
        assert_eq!(rebased.blocks[2], mine[2]);
        let requests = plan(&newer, &rebased.blocks).unwrap();
        assert_eq!(
            requests,
            vec![json!({"updateTextStyle": {
                "range": {"startIndex": 9, "endIndex": 14},
                "textStyle": {"bold": true},
                "fields": "bold"
            }})]
        );
        // They made the same paragraph italic: the user chooses.
        let mut italic = newer.clone();
        let run = italic.body.content[3].paragraph.as_mut().unwrap().elements[0].text_run.as_mut().unwrap();
        run.style = Some(serde_json::from_value(json!({"italic": true})).unwrap());
        let rebased = rebase(&base, &mine, &italic).unwrap();
        assert_eq!(rebased.conflicts.len(), 1);
        assert_eq!(rebased.conflicts[0].mine, vec![mine[2].clone()]);
    }

    #[test]
    fn list_places_rebase_onto_their_edits_elsewhere_and_both_changing_one_item_conflicts() {
        use lists::ListKind::Bullet;
        let base = with_list(&[("Checklist", None), ("Venue", Some(0)), ("Coffee", Some(0))]);
        let mut mine = editable_blocks(&base);
        let EditBlock::Paragraph { list, .. } = &mut mine[2] else { panic!() };
        *list = Some(ListItem { id: "kix.a".into(), kind: Bullet, level: 1 });
        // They retitled the checklist: "Coffee" stays nested under "Venue".
        let newer = with_list(&[("Checklist!", None), ("Venue", Some(0)), ("Coffee", Some(0))]);
        let rebased = rebase(&base, &mine, &newer).unwrap();
        assert!(rebased.conflicts.is_empty(), "{:?}", rebased.conflicts);
        assert!(matches!(&rebased.blocks[0], EditBlock::Paragraph { text, .. } if text == "Checklist!"));
        assert_eq!(rebased.blocks[2], mine[2]);
        let requests = plan(&newer, &rebased.blocks).unwrap();
        assert!(requests.iter().any(|r| r.get("createParagraphBullets").is_some()), "{requests:?}");
        // They changed that item's text meanwhile: the user chooses.
        let changed = with_list(&[("Checklist", None), ("Venue", Some(0)), ("Coffee and tea", Some(0))]);
        let rebased = rebase(&base, &mine, &changed).unwrap();
        assert_eq!(rebased.conflicts.len(), 1);
        assert_eq!(rebased.conflicts[0].mine, vec![mine[2].clone()]);
    }

    /// "Intro", a table of `cells`, "End", with their indexes.
    fn with_table(cells: &[&[&str]]) -> Document {
        use crate::google::model::{Table, TableCell, TableRow};
        let mut d = doc(&[("Intro", "NORMAL_TEXT")]);
        let table_rows = cells
            .iter()
            .map(|row| TableRow {
                table_cells: row
                    .iter()
                    .map(|text| TableCell { content: vec![para(0, text, "NORMAL_TEXT")], ..Default::default() })
                    .collect(),
                ..Default::default()
            })
            .collect();
        d.body
            .content
            .push(StructuralElement { table: Some(Table { table_rows, ..Default::default() }), ..Default::default() });
        d.body.content.push(para(0, "End", "NORMAL_TEXT"));
        tables::reindex(&mut d);
        d
    }

    fn table_mut(blocks: &mut [EditBlock]) -> (&mut Vec<Option<u32>>, &mut Vec<TableRowEdit>) {
        blocks
            .iter_mut()
            .find_map(|b| match b {
                EditBlock::Table { columns, rows, .. } => Some((columns, rows)),
                _ => None,
            })
            .unwrap()
    }

    #[test]
    fn a_table_changes_shape_first_and_its_cells_are_planned_in_place() {
        let base = with_table(&[&["a", "b"], &["c", "d"]]);
        // Intro\n is 1..7: the table starts at 7, its first cell's text at 10.
        assert_eq!(base.body.content[2].start_index, 7);
        let mut edited = editable_blocks(&base);
        let (columns, rows) = table_mut(&mut edited);
        rows.remove(0);
        columns.push(None);
        rows[0].cells.push(vec![p("new", "NORMAL_TEXT")]);
        rows[0].cells[0] = vec![p("cc", "NORMAL_TEXT")];
        let requests = plan(&base, &edited).unwrap();
        let at =
            |row: u32, column: u32| json!({"tableStartLocation": {"index": 7}, "rowIndex": row, "columnIndex": column});
        assert_eq!(requests[0], json!({"deleteTableRow": {"tableCellLocation": at(0, 0)}}));
        assert_eq!(requests[1], json!({"insertTableColumn": {"tableCellLocation": at(0, 1), "insertRight": true}}));
        // After them: "c\n" at 10, "d\n" at 13, the new cell's "\n" at 16.
        assert!(requests.contains(&json!({"insertText": {"location": {"index": 16}, "text": "new"}})), "{requests:?}");
        assert!(requests.contains(&json!({"insertText": {"location": {"index": 11}, "text": "c"}})), "{requests:?}");
        // The new cell's style is set: Google does not say which one it has.
        assert!(
            requests.iter().any(|r| r["updateParagraphStyle"]["range"] == json!({"startIndex": 17, "endIndex": 21})),
            "{requests:?}"
        );
    }

    #[test]
    fn table_edits_are_checked_against_their_table() {
        let base = with_table(&[&["a", "b"], &["c", "d"]]);
        let mut edited = editable_blocks(&base);
        let (columns, rows) = table_mut(&mut edited);
        columns[0] = Some(1);
        rows[1].from = Some(7);
        rows[0].cells[1] = vec![];
        rows[1].cells.pop();
        let error = plan(&base, &edited).unwrap_err();
        let fields: Vec<&str> = error.details.as_ref().unwrap()["fields"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["field"].as_str().unwrap())
            .collect();
        assert_eq!(
            fields,
            ["blocks[1].columns[1]", "blocks[1].rows[1]", "blocks[1].rows[0].cells[1]", "blocks[1].rows[1].cells"]
        );
        // A table that is gone, or named at another index, is refused as a moved fixed part.
        let mut moved = editable_blocks(&base);
        if let EditBlock::Table { start_index, .. } = &mut moved[1] {
            *start_index = Some(8);
        }
        assert!(plan(&base, &moved).is_err());
    }

    #[test]
    fn a_merged_cell_or_a_list_in_a_cell_keeps_the_table_fixed() {
        let mut merged = with_table(&[&["a", "b"], &["c", "d"]]);
        let cell = &mut merged.body.content[2].table.as_mut().unwrap().table_rows[0].table_cells[0];
        cell.table_cell_style = Some(serde_json::from_value(json!({"columnSpan": 2})).unwrap());
        assert!(matches!(editable_blocks(&merged)[1], EditBlock::Fixed { start_index: 7 }));
        let mut listed = with_table(&[&["a", "b"], &["c", "d"]]);
        let cell = &mut listed.body.content[2].table.as_mut().unwrap().table_rows[1].table_cells[1];
        cell.content[0].paragraph.as_mut().unwrap().bullet = Some(json!({"listId": "kix.1"}));
        assert!(matches!(editable_blocks(&listed)[1], EditBlock::Fixed { start_index: 7 }));
    }

    #[test]
    fn a_table_rebases_to_where_it_is_now_and_both_sides_editing_it_conflict() {
        let base = with_table(&[&["a", "b"], &["c", "d"]]);
        let mut mine = editable_blocks(&base);
        table_mut(&mut mine).1[1].cells[1] = vec![p("mine", "NORMAL_TEXT")];
        // A collaborator lengthened the intro: the table moved to 12.
        let mut newer = with_table(&[&["a", "b"], &["c", "d"]]);
        newer.body.content[1] = para(1, "Intro text", "NORMAL_TEXT");
        tables::reindex(&mut newer);
        let rebased = rebase(&base, &mine, &newer).unwrap();
        assert!(rebased.conflicts.is_empty());
        let EditBlock::Table { start_index, rows, .. } = &rebased.blocks[1] else { panic!() };
        assert_eq!((*start_index, rows[1].from), (Some(12), Some(1)));
        assert!(plan(&newer, &rebased.blocks).is_ok());
        // The collaborator changed the table too: the user chooses, and mine plans as new rows.
        let mut theirs = newer.clone();
        theirs.body.content[2].table.as_mut().unwrap().table_rows[0].table_cells[0].content[0] =
            para(0, "theirs", "NORMAL_TEXT");
        tables::reindex(&mut theirs);
        let rebased = rebase(&base, &mine, &theirs).unwrap();
        assert_eq!(rebased.conflicts.len(), 1);
        let conflict = &rebased.conflicts[0];
        let Some(EditBlock::Table { start_index, rows, .. }) =
            conflict.mine.iter().find(|b| matches!(b, EditBlock::Table { .. }))
        else {
            panic!("{conflict:?}")
        };
        assert_eq!((*start_index, rows[0].from), (Some(12), None));
        let mut chosen = rebased.blocks.clone();
        chosen.splice(conflict.at..conflict.at + conflict.len, conflict.mine.clone());
        assert!(plan(&theirs, &chosen).is_ok());
    }

    #[test]
    fn a_new_table_rebases_like_text() {
        let base = with_table(&[&["a", "b"], &["c", "d"]]);
        let mut mine = editable_blocks(&base);
        let new_table = EditBlock::Table {
            start_index: None,
            columns: vec![None],
            rows: vec![TableRowEdit { from: None, cells: vec![vec![p("new", "NORMAL_TEXT")]] }],
        };
        mine.splice(1..1, [new_table.clone(), p("", "NORMAL_TEXT")]);
        // A collaborator changed the last paragraph meanwhile.
        let mut newer = with_table(&[&["a", "b"], &["c", "d"]]);
        let last = newer.body.content.len() - 1;
        newer.body.content[last] = para(0, "The end", "NORMAL_TEXT");
        tables::reindex(&mut newer);
        let rebased = rebase(&base, &mine, &newer).unwrap();
        assert!(rebased.conflicts.is_empty(), "{:?}", rebased.conflicts);
        assert_eq!(rebased.blocks[1], new_table);
        let requests = plan(&newer, &rebased.blocks).unwrap();
        assert!(requests.iter().any(|r| r.get("insertTable").is_some()), "{requests:?}");
    }

    #[test]
    fn a_table_i_edited_and_they_removed_is_offered_whole_not_a_panic() {
        let base = with_table(&[&["a", "b"], &["c", "d"]]);
        let mut mine = editable_blocks(&base);
        table_mut(&mut mine).1[0].cells[0] = vec![p("mine", "NORMAL_TEXT")];
        let newer = doc(&[("Intro", "NORMAL_TEXT"), ("End", "NORMAL_TEXT")]);
        let rebased = rebase(&base, &mine, &newer).unwrap();
        assert_eq!(rebased.conflicts.len(), 1);
        assert_eq!((rebased.conflicts[0].at, rebased.conflicts[0].len), (0, rebased.blocks.len()));
    }
}
