//! The edit planner: from a document and the user's edited paragraphs, the minimal batchUpdate
//! (deleteContentRange, insertText, updateParagraphStyle, updateTextStyle for the character
//! styles: see `marks`, and the bullets of lists: see `lists`) in UTF-16 indexes. Tables and other
//! structure it cannot recreate are "fixed" blocks: they must stay, in order, and no request
//! touches them. Also the rebase of pending edits onto a newer revision.
//!
//! How a plan is made:
//! - The body splits into segments of paragraphs between fixed blocks. Each segment's last
//!   newline is never deleted (it ends the body, or precedes a table).
//! - Paragraphs are diffed first (Myers over paragraph texts); changed paragraphs are then
//!   diffed by grapheme cluster, so no request splits a surrogate pair or a cluster (Google would
//!   move such an insertion).
//! - Text requests run from the highest index down, so each uses the base revision's indexes.
//!   Style requests follow, also from the highest down, with the final indexes (as in Google's
//!   own example). A paragraph gets one only if its style may differ from the wanted one:
//!   its style changed, it is new, or newlines around it were deleted (Google does not say
//!   which style a merged paragraph keeps).

use std::collections::BTreeSet;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use similar::{Algorithm, DiffOp};

use super::lists::{self, ListItem, Placed, MAX_LEVEL};
use super::marks;
pub use super::marks::StyledRun;
use super::model::{text_problem, utf16_len, Document, StructuralElement, NAMED_STYLES};
use staffroom_base::error::{Error, FieldError, Result};

/// One block of the editor: a paragraph the user may edit, or a fixed part (a table, a
/// paragraph holding an image, …) identified by its start index in the base revision.
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
}

impl EditBlock {
    /// A paragraph whose characters keep the styles they have.
    pub fn paragraph(text: impl Into<String>, style: impl Into<String>) -> EditBlock {
        EditBlock::Paragraph { text: text.into(), style: style.into(), runs: None, list: None }
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

/// A top-level block of a document with its indexes.
#[derive(Debug, Clone, PartialEq)]
pub struct BaseBlock {
    pub start: u32,
    pub end: u32,
    /// `Some((text, style))` for an editable paragraph.
    pub paragraph: Option<(String, String)>,
    /// An editable paragraph's character styles.
    pub runs: Vec<StyledRun>,
    /// An editable paragraph's list place.
    pub list: Option<ListItem>,
}

/// The document's top-level blocks after the leading section break.
pub fn base_blocks(doc: &Document) -> Vec<BaseBlock> {
    doc.body
        .content
        .iter()
        .filter(|e| !(e.section_break.is_some() && e.start_index == 0))
        .map(|e: &StructuralElement| {
            // A list item Docs holds with a leading tab stays fixed: making its list again would
            // read the tab as nesting.
            let editable = e
                .paragraph
                .as_ref()
                .filter(|p| p.is_plain_text() && !(p.bullet.is_some() && p.text().starts_with('\t')));
            BaseBlock {
                start: e.start_index,
                end: e.end_index,
                paragraph: editable.map(|p| (p.text(), p.named_style().to_string())),
                runs: editable.map(marks::runs_of).unwrap_or_default(),
                list: editable.and_then(|p| lists::item_of(doc, p)),
            }
        })
        .collect()
}

/// A draft kept when the editor could not yet edit some kind of paragraph (a list item was a
/// fixed block): each fixed block its base now offers as text becomes that text, unchanged, so
/// that the draft still plans.
pub fn carried_forward(base: &Document, blocks: Vec<EditBlock>) -> Vec<EditBlock> {
    let now: std::collections::HashMap<u32, EditBlock> = base_blocks(base)
        .iter()
        .map(|b| b.start)
        .zip(editable_blocks(base))
        .filter(|(_, b)| matches!(b, EditBlock::Paragraph { .. }))
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
    base_blocks(doc)
        .into_iter()
        .map(|b| match b.paragraph {
            Some((text, style)) => EditBlock::Paragraph { text, style, runs: Some(b.runs), list: b.list },
            None => EditBlock::Fixed { start_index: b.start },
        })
        .collect()
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

/// Validates `edited` against `base`: paragraphs are one line each with a known style, and the
/// fixed blocks unchanged and in order. The characters of the text are checked where it changed
/// only (see [`plan`]): text Google itself returned is never refused.
fn check_edits(base: &[BaseBlock], edited: &[EditBlock]) -> Result<()> {
    let mut errors = Vec::new();
    let mut kinds: std::collections::HashMap<&str, lists::ListKind> = std::collections::HashMap::new();
    for (i, block) in edited.iter().enumerate() {
        if let EditBlock::Paragraph { text, style, runs, list } = block {
            if let Some(runs) = runs {
                marks::check(i, text, runs, &mut errors);
            }
            if let Some(list) = list {
                check_list_item(i, text, list, &mut kinds, &mut errors);
            }
            if text.contains('\n') {
                errors.push(FieldError::new(format!("blocks[{i}].text"), "must be one paragraph (no newline)"));
            }
            if !NAMED_STYLES.contains(&style.as_str()) {
                errors.push(FieldError::new(
                    format!("blocks[{i}].style"),
                    format!("must be one of {}", NAMED_STYLES.join(", ")),
                ));
            }
        }
    }
    let base_fixed: Vec<u32> = base.iter().filter(|b| b.paragraph.is_none()).map(|b| b.start).collect();
    let edited_fixed: Vec<u32> = edited
        .iter()
        .filter_map(|b| match b {
            EditBlock::Fixed { start_index } => Some(*start_index),
            _ => None,
        })
        .collect();
    if base_fixed != edited_fixed {
        errors.push(FieldError::new("blocks", "tables and other fixed parts must all stay, in their order"));
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
    i: usize,
    text: &str,
    list: &'a ListItem,
    kinds: &mut std::collections::HashMap<&'a str, lists::ListKind>,
    errors: &mut Vec<FieldError>,
) {
    if list.id.is_empty() || list.id.chars().count() > 100 || list.id.chars().any(char::is_control) {
        errors.push(FieldError::new(format!("blocks[{i}].list.id"), "must be 1 to 100 characters, none a control"));
    }
    if list.level > MAX_LEVEL {
        errors.push(FieldError::new(format!("blocks[{i}].list.level"), format!("must be 0 to {MAX_LEVEL}")));
    }
    if *kinds.entry(list.id.as_str()).or_insert(list.kind) != list.kind {
        errors.push(FieldError::new(format!("blocks[{i}].list.kind"), "must be the same for every item of a list"));
    }
    if text.starts_with('\t') {
        errors.push(FieldError::new(
            format!("blocks[{i}].text"),
            "a list item must not begin with a tab (nest it instead)",
        ));
    }
}

/// Splits blocks into the paragraph runs between fixed blocks (fixed count + 1 segments).
fn segments<T: Clone>(blocks: &[T], is_fixed: impl Fn(&T) -> bool) -> Vec<Vec<T>> {
    let mut out = vec![Vec::new()];
    for b in blocks {
        if is_fixed(b) {
            out.push(Vec::new());
        } else {
            out.last_mut().unwrap().push(b.clone());
        }
    }
    out
}

/// The requests turning `base` into `edited` (empty when nothing changed).
///
/// Over 80 lines, left whole: the planner is replaced by the editor's document model ("The
/// document editor, for real", SPEC section 12), which plans marks, lists and tables too.
pub fn plan(base: &Document, edited: &[EditBlock]) -> Result<Vec<Value>> {
    let (mut requests, lists) = plan_in_phases(base, edited)?;
    requests.extend(lists);
    Ok(requests)
}

/// [`plan`]'s requests in its two phases: text and styles (each kind from the highest index
/// down), then lists (each list's requests together, the lists from the highest index down).
pub fn plan_in_phases(base: &Document, edited: &[EditBlock]) -> Result<(Vec<Value>, Vec<Value>)> {
    let blocks = base_blocks(base);
    check_edits(&blocks, edited)?;
    let base_segments = segments(&blocks, |b| b.paragraph.is_none());
    let edited_segments = segments(edited, |b| matches!(b, EditBlock::Fixed { .. }));
    let mut text_ops: Vec<TextOp> = Vec::new();
    // Paragraphs (by index among edited paragraphs overall) whose style, or list place, must be
    // set.
    let mut restyle: BTreeSet<usize> = BTreeSet::new();
    let mut relist: BTreeSet<usize> = BTreeSet::new();
    let mut unlisted: BTreeSet<usize> = BTreeSet::new();
    let mut paragraphs_before = 0;
    for (segment, (old, new)) in base_segments.iter().zip(&edited_segments).enumerate() {
        let new: Vec<(&str, Look)> = new
            .iter()
            .map(|b| match b {
                EditBlock::Paragraph { text, style, list, .. } => (text.as_str(), (style.as_str(), list.as_ref())),
                EditBlock::Fixed { .. } => unreachable!("segments hold paragraphs"),
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
                let (t, s) = b.paragraph.as_ref().unwrap();
                (t.as_str(), (s.as_str(), b.list.as_ref()))
            })
            .collect();
        let start = base_segments[segment][0].start;
        let mut segment_ops = Vec::new();
        let changed = plan_segment(start, &old, &new, &mut segment_ops);
        restyle.extend(changed.style.into_iter().map(|j| j + paragraphs_before));
        relist.extend(changed.list.into_iter().map(|j| j + paragraphs_before));
        unlisted.extend(changed.unlisted.into_iter().map(|j| j + paragraphs_before));
        text_ops.extend(segment_ops.into_iter().map(|mut op| {
            op.paragraphs = op.paragraphs.start + paragraphs_before..op.paragraphs.end + paragraphs_before;
            op
        }));
        paragraphs_before += new.len();
    }
    refuse_stripped_characters(edited, &text_ops)?;

    let edits: Vec<(u32, u32, u32)> = text_ops.iter().map(|op| (op.pos, op.delete, utf16_len(&op.insert))).collect();
    let kept = marks::kept(edits, blocks.last().map_or(0, |b| b.end));

    // Text requests, highest index first; at one index, the later-made first (see module docs).
    let mut ordered: Vec<(usize, TextOp)> = text_ops.into_iter().enumerate().collect();
    ordered.sort_by(|(ia, a), (ib, b)| b.pos.cmp(&a.pos).then(ib.cmp(ia)));
    let mut requests = Vec::new();
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
    let fixed_sizes: Vec<u32> = blocks.iter().filter(|b| b.paragraph.is_none()).map(|b| b.end - b.start).collect();
    let mut ranges: Vec<(u32, u32, &str)> = Vec::new();
    let mut styled: Vec<(u32, &[StyledRun])> = Vec::new();
    let mut placed: Vec<Placed> = Vec::new();
    let mut pos = 1;
    let (mut paragraph, mut fixed) = (0, 0);
    for (i, block) in edited.iter().enumerate() {
        match block {
            EditBlock::Paragraph { text, style, runs, list } => {
                styled.extend(runs.as_deref().map(|runs| (pos, runs)));
                let end = pos + utf16_len(text) + 1;
                let after_fixed = i > 0 && matches!(edited[i - 1], EditBlock::Fixed { .. });
                placed.push(Placed {
                    start: pos,
                    end,
                    list: list.as_ref(),
                    changed: relist.contains(&paragraph),
                    unlisted: unlisted.contains(&paragraph),
                    after_fixed,
                });
                if restyle.contains(&paragraph) {
                    match ranges.last_mut() {
                        Some(last) if last.1 == pos && last.2 == style => last.1 = end,
                        _ => ranges.push((pos, end, style)),
                    }
                }
                paragraph += 1;
                pos = end;
            }
            EditBlock::Fixed { .. } => {
                pos += fixed_sizes[fixed];
                fixed += 1;
            }
        }
    }
    for (start, end, style) in ranges.into_iter().rev() {
        requests.push(json!({"updateParagraphStyle": {
            "range": {"startIndex": start, "endIndex": end},
            "paragraphStyle": {"namedStyleType": style},
            "fields": "namedStyleType"
        }}));
    }
    // Character styles, on the final text (a named style set above leaves them as they are).
    requests.extend(marks::plan(base, &styled, &kept));
    // Lists last: their requests leave every index where it was.
    Ok((requests, lists::plan(base, &placed, blocks.iter().any(|b| b.list.is_some()))))
}

/// Only inserted text is checked: Google strips some characters from `insertText`, so text
/// holding them would not arrive as the user sees it. Each offending insert is blamed on the
/// first edited paragraph it came from that holds the character.
fn refuse_stripped_characters(edited: &[EditBlock], ops: &[TextOp]) -> Result<()> {
    let paragraphs: Vec<(usize, &str)> = edited
        .iter()
        .enumerate()
        .filter_map(|(i, b)| match b {
            EditBlock::Paragraph { text, .. } => Some((i, text.as_str())),
            EditBlock::Fixed { .. } => None,
        })
        .collect();
    let mut errors: Vec<FieldError> = Vec::new();
    for op in ops {
        let Some((bad, problem)) = text_problem(&op.insert, true) else { continue };
        let from = op.paragraphs.start.min(paragraphs.len().saturating_sub(1));
        let to = op.paragraphs.end.clamp(from + 1, paragraphs.len().max(from + 1));
        let block = paragraphs[from..to.min(paragraphs.len())]
            .iter()
            .find(|(_, text)| text.contains(bad))
            .or_else(|| paragraphs.get(from))
            .map(|(i, _)| *i)
            .unwrap_or(0);
        let field = format!("blocks[{block}].text");
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

/// A paragraph's look beside its text: its named style and its list place.
type Look<'a> = (&'a str, Option<&'a ListItem>);

/// The (segment-local) paragraphs whose named style, or list place, may differ from the wanted
/// one after the text requests: it changed, or the paragraph is new or merged.
#[derive(Default)]
struct Changed {
    style: Vec<usize>,
    list: Vec<usize>,
    /// Paragraphs taken out of a list (Docs leaves them the list's indent).
    unlisted: Vec<usize>,
}

impl Changed {
    /// A paragraph whose look Docs leaves to chance (new, or merged): both are set.
    fn all(&mut self, paragraphs: impl IntoIterator<Item = usize> + Clone) {
        self.style.extend(paragraphs.clone());
        self.list.extend(paragraphs);
    }
}

/// Plans one segment starting at `start`; returns the paragraphs whose look must be set.
///
/// Over 80 lines, left whole: the planner is replaced by the editor's document model ("The
/// document editor, for real", SPEC section 12), which plans marks, lists and tables too.
fn plan_segment(start: u32, old: &[(&str, Look)], new: &[(&str, Look)], ops: &mut Vec<TextOp>) -> Changed {
    let n = old.len();
    let mut offsets = Vec::with_capacity(n + 1);
    let mut at = start;
    for (text, _) in old {
        offsets.push(at);
        at += utf16_len(text) + 1;
    }
    offsets.push(at);
    let old_texts: Vec<&str> = old.iter().map(|p| p.0).collect();
    let new_texts: Vec<&str> = new.iter().map(|p| p.0).collect();
    let mut marks = Changed::default();
    let mark_if_differs = |marks: &mut Changed, j: usize, current: Look| {
        if new[j].1 .0 != current.0 {
            marks.style.push(j);
        }
        if new[j].1 .1 != current.1 {
            marks.list.push(j);
            if new[j].1 .1.is_none() {
                marks.unlisted.push(j);
            }
        }
    };
    for op in walk(similar::capture_diff_slices(Algorithm::Myers, &old_texts, &new_texts)) {
        match op {
            DiffOp::Equal { old_index, new_index, len } => {
                for k in 0..len {
                    mark_if_differs(&mut marks, new_index + k, old[old_index + k].1);
                }
            }
            DiffOp::Delete { old_index, old_len, new_index } => {
                if old_index + old_len < n {
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
                }
            }
            DiffOp::Insert { old_index, new_index, new_len } => {
                let texts = &new_texts[new_index..new_index + new_len];
                if old_index < n {
                    let insert: String = texts.iter().map(|t| format!("{t}\n")).collect();
                    ops.push(TextOp {
                        pos: offsets[old_index],
                        delete: 0,
                        insert,
                        paragraphs: new_index..new_index + new_len,
                    });
                    // Inserted paragraphs copy the style of the paragraph they land in, which
                    // another request may have merged: set theirs explicitly.
                    marks.all(new_index..new_index + new_len);
                } else {
                    let insert: String = texts.iter().map(|t| format!("\n{t}")).collect();
                    ops.push(TextOp {
                        pos: offsets[n] - 1,
                        delete: 0,
                        insert,
                        paragraphs: new_index..new_index + new_len,
                    });
                    marks.all(new_index..new_index + new_len);
                }
            }
            DiffOp::Replace { old_index, old_len, new_index, new_len } => {
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
                    if old_index + old_len == n {
                        // Keep the segment's last newline out of reach.
                        old_block.pop();
                        new_block.pop();
                    }
                    diff_text(&old_block, &new_block, offsets[old_index], new_index..new_index + new_len, ops);
                    // Newlines moved inside the block: restyle it, and the paragraph after it
                    // (a merge into it would give it a style from the block).
                    marks.all(new_index..(new_index + new_len + 1).min(new.len()));
                }
            }
        }
    }
    marks
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

/// A block compared across revisions: fixed blocks by content, never by index.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Key {
    Paragraph(String, String, Option<Vec<StyledRun>>, Option<ListItem>),
    Fixed(String),
}

/// The blocks' keys. A paragraph without runs (its characters keep their styles) is keyed with
/// the runs `doc` has for that text and style, so that it equals the paragraph it leaves alone.
fn keys(doc: &Document, blocks: &[EditBlock]) -> Vec<Key> {
    let fingerprints: std::collections::HashMap<u32, String> =
        doc.body.content.iter().map(|e| (e.start_index, fingerprint(e))).collect();
    let known: std::collections::HashMap<(String, String), Vec<StyledRun>> =
        base_blocks(doc).into_iter().filter_map(|b| b.paragraph.map(|paragraph| (paragraph, b.runs))).collect();
    blocks
        .iter()
        .map(|b| match b {
            EditBlock::Paragraph { text, style, runs, list } => {
                let runs = runs.clone().or_else(|| known.get(&(text.clone(), style.clone())).cloned());
                Key::Paragraph(text.clone(), style.clone(), runs, list.clone())
            }
            EditBlock::Fixed { start_index } => Key::Fixed(fingerprints.get(start_index).cloned().unwrap_or_default()),
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
    check_edits(&base_blocks(base), mine)?;
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

    // Back to blocks against the newer revision: fixed blocks must be the newer one's, in order.
    let newer_fixed: Vec<(Key, u32)> = theirs_blocks
        .iter()
        .zip(&theirs_keys)
        .filter_map(|(b, k)| match b {
            EditBlock::Fixed { start_index } => Some((k.clone(), *start_index)),
            _ => None,
        })
        .collect();
    let merged_fixed: Vec<&Key> = merged.iter().filter(|k| matches!(k, Key::Fixed(_))).collect();
    if merged_fixed.len() != newer_fixed.len() || merged_fixed.iter().zip(&newer_fixed).any(|(a, (b, _))| *a != b) {
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
    // Each paragraph key back to the block it came from (mine first: a paragraph without runs
    // stays without them).
    let mut originals: std::collections::HashMap<&Key, &EditBlock> = std::collections::HashMap::new();
    for (key, block) in mine_keys.iter().zip(mine).chain(theirs_keys.iter().zip(&theirs_blocks)) {
        originals.entry(key).or_insert(block);
    }
    let paragraph = |k: &Key| match (originals.get(k), k) {
        (Some(block), _) => (*block).clone(),
        (None, Key::Paragraph(text, style, runs, list)) => {
            EditBlock::Paragraph { text: text.clone(), style: style.clone(), runs: runs.clone(), list: list.clone() }
        }
        (None, Key::Fixed(_)) => unreachable!("only paragraphs are looked up"),
    };
    let mut fixed = newer_fixed.iter();
    let mut to_block = |k: &Key| match k {
        Key::Paragraph(..) => paragraph(k),
        Key::Fixed(_) => EditBlock::Fixed { start_index: fixed.next().expect("counted").1 },
    };
    let blocks: Vec<EditBlock> = merged.iter().map(&mut to_block).collect();
    let base_fixed: Vec<(Key, u32)> = editable_blocks(base)
        .iter()
        .zip(&base_keys)
        .filter_map(|(b, k)| match b {
            EditBlock::Fixed { start_index } => Some((k.clone(), *start_index)),
            _ => None,
        })
        .collect();
    let side_blocks = |keys: &[Key], fixed_source: &[(Key, u32)]| -> Vec<EditBlock> {
        keys.iter()
            .map(|k| match k {
                Key::Paragraph(..) => paragraph(k),
                Key::Fixed(_) => EditBlock::Fixed {
                    start_index: fixed_source.iter().find(|(fk, _)| fk == k).map(|(_, s)| *s).unwrap_or_default(),
                },
            })
            .collect()
    };
    let conflicts = conflicts
        .into_iter()
        .map(|(at, len, mine_side, theirs_side)| RebaseConflict {
            at,
            len,
            mine: side_blocks(&mine_side, &base_fixed),
            theirs: side_blocks(&theirs_side, &newer_fixed),
        })
        .collect();
    Ok(Rebased { blocks, conflicts })
}

#[cfg(test)]
mod tests {
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
        // The new paragraph may have taken a bullet from where it was split: any is deleted; no
        // indent is reset, and the list is not made again.
        assert!(!kinds.contains(&"createParagraphBullets"), "{requests:?}");
        assert!(
            requests.iter().all(|r| r.pointer("/updateParagraphStyle/fields").is_none_or(|f| f == "namedStyleType")),
            "{requests:?}"
        );
        assert!(kinds.contains(&"deleteParagraphBullets"), "{requests:?}");
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
}
