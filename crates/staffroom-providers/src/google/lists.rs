//! Lists: a paragraph's place in a bulleted or numbered list, read from Docs' `bullet` and the
//! document's `lists`, and the requests that make the edited lists.
//!
//! Docs has no request that moves a paragraph into an existing list or changes its nesting:
//! `createParagraphBullets` makes a new list of the paragraphs in its range (joining the list
//! just before it when that has the same preset), reading each paragraph's nesting from the tabs
//! that lead it and removing them. So a list the user changed in structure (an item added,
//! removed from it, nested, or the kind switched) is made again as a whole: its bullets deleted,
//! tabs inserted for the nesting, bullets created. A list whose items only changed their text
//! keeps its bullets and its id. Two lists of one kind that end up next to each other may become
//! one, as they would in Docs.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::model::{Document, Paragraph};

/// The deepest nesting Docs allows (levels 0 to 8).
pub const MAX_LEVEL: u8 = 8;

/// Whether a list is bulleted or numbered.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS,
)]
#[serde(rename_all = "camelCase")]
pub enum ListKind {
    Bullet,
    Number,
}

impl ListKind {
    /// The preset a list of this kind is made with: Docs' own defaults for its toolbar buttons.
    pub fn preset(self) -> &'static str {
        match self {
            ListKind::Bullet => "BULLET_DISC_CIRCLE_SQUARE",
            ListKind::Number => "NUMBERED_DECIMAL_ALPHA_ROMAN",
        }
    }
}

/// A paragraph's place in a list.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ListItem {
    /// Docs' list id, or one the editor made for a list it started: paragraphs with one id are
    /// one list.
    #[schema(min_length = 1, max_length = 100, pattern = "^[^\\x00-\\x1f\\x7f-\\x9f]+$")]
    pub id: String,
    pub kind: ListKind,
    /// 0 (the top) to 8.
    #[schema(minimum = 0, maximum = 8)]
    pub level: u8,
}

/// The list item a paragraph is, as Docs describes it: the kind is the list's top level's
/// (numbered when its glyph is a number or a letter).
pub fn item_of(doc: &Document, paragraph: &Paragraph) -> Option<ListItem> {
    let bullet = paragraph.bullet.as_ref()?;
    let id = bullet.get("listId").and_then(Value::as_str).unwrap_or_default().to_string();
    let level = bullet.get("nestingLevel").and_then(Value::as_u64).unwrap_or(0).min(u64::from(MAX_LEVEL)) as u8;
    let glyph = doc
        .lists
        .as_ref()
        .and_then(|lists| lists.get(&id))
        .and_then(|list| list.pointer("/listProperties/nestingLevels/0/glyphType"))
        .and_then(Value::as_str);
    let numbered =
        matches!(glyph, Some("DECIMAL" | "ZERO_DECIMAL" | "UPPER_ALPHA" | "ALPHA" | "UPPER_ROMAN" | "ROMAN"));
    Some(ListItem { id, kind: if numbered { ListKind::Number } else { ListKind::Bullet }, level })
}

/// One edited paragraph as the list requests see it: where it is in the final text, its list
/// place, whether its list place may differ from the one Docs gives it after the text requests
/// (it changed, is new, or was merged), and whether a fixed block comes right before it.
#[derive(Debug, Clone)]
pub struct Placed<'a> {
    pub start: u32,
    pub end: u32,
    pub list: Option<&'a ListItem>,
    pub changed: bool,
    pub after_fixed: bool,
}

/// The list requests, last in a batch: each group's requests leave the indexes as they found
/// them (tabs inserted are removed by `createParagraphBullets`), and groups run from the highest
/// index down. `may_have_bullets`: whether any paragraph could carry a bullet now (when the base
/// had none, no paragraph can have inherited one, and no bullet needs deleting).
pub fn plan(paragraphs: &[Placed], may_have_bullets: bool) -> Vec<Value> {
    let mut groups: Vec<Vec<Value>> = Vec::new();
    let mut i = 0;
    while i < paragraphs.len() {
        let first = &paragraphs[i];
        // The paragraphs of one list in a row, or changed paragraphs outside any list in a row.
        let together = |p: &Placed| match first.list {
            Some(list) => p.list.is_some_and(|other| other.id == list.id),
            None => p.list.is_none() && p.changed && first.changed,
        };
        let mut j = i + 1;
        while j < paragraphs.len() && !paragraphs[j].after_fixed && together(&paragraphs[j]) {
            j += 1;
        }
        let run = &paragraphs[i..j];
        if run.iter().any(|p| p.changed) {
            let (start, end) = (run[0].start, run[run.len() - 1].end);
            let mut group = Vec::new();
            if may_have_bullets {
                group.push(json!({"deleteParagraphBullets": {"range": range(start, end)}}));
                // Docs keeps a deleted bullet's indent on the paragraph; the editor shows none.
                group.push(json!({"updateParagraphStyle": {
                    "range": range(start, end), "paragraphStyle": {}, "fields": "indentStart,indentFirstLine"
                }}));
            }
            if let Some(list) = first.list {
                let mut tabs = 0;
                for p in run.iter().rev().filter(|p| p.list.is_some_and(|l| l.level > 0)) {
                    let level = p.list.map_or(0, |l| l.level);
                    group.push(
                        json!({"insertText": {"location": {"index": p.start}, "text": "\t".repeat(level.into())}}),
                    );
                    tabs += u32::from(level);
                }
                group.push(json!({"createParagraphBullets": {
                    "range": range(start, end + tabs), "bulletPreset": list.kind.preset()
                }}));
            }
            if !group.is_empty() {
                groups.push(group);
            }
        }
        i = j;
    }
    groups.into_iter().rev().flatten().collect()
}

fn range(start: u32, end: u32) -> Value {
    json!({"startIndex": start, "endIndex": end})
}
