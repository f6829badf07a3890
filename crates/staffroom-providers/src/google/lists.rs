//! Lists: a paragraph's place in a bulleted or numbered list, read from Docs' `bullet` and the
//! document's `lists`, and the requests that make the edited lists.
//!
//! Docs has no request that moves a paragraph into an existing list or changes its nesting:
//! `createParagraphBullets` makes a new list of the paragraphs in its range (joining the list
//! just before it when that has the same preset), reading each paragraph's nesting from the tabs
//! that lead it and removing them. So a list the user changed in structure (an item added,
//! removed from it, nested, or the kind switched) is made again as a whole: its bullets deleted,
//! tabs inserted for the nesting, bullets created. A list whose items only changed their text
//! keeps its bullets and its id. A list made again keeps its look where a preset has it (the
//! preset is read back from its glyphs), not its id. Two lists of one kind that end up next to
//! each other may become one, as they would in Docs; and one list that a paragraph outside it
//! interrupts becomes two when the part after the paragraph is made again (its numbering starts
//! again at 1), since a new list joins only the list right before it.

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
/// (it changed, is new, or was merged), whether it was taken out of a list, and whether a fixed
/// block comes right before it.
#[derive(Debug, Clone)]
pub struct Placed<'a> {
    pub start: u32,
    pub end: u32,
    pub list: Option<&'a ListItem>,
    pub changed: bool,
    pub unlisted: bool,
    pub after_fixed: bool,
}

/// The preset that makes a list of `doc` look as it does, read from its top two levels' glyphs
/// (the glyph characters are the simulator's reading of the presets' names); `None` when no
/// preset does, or the list is not of `kind`.
fn preset_of(doc: &Document, id: &str, kind: ListKind) -> Option<&'static str> {
    let levels = doc.lists.as_ref()?.get(id)?.pointer("/listProperties/nestingLevels")?;
    let at = |level: usize, key: &str| levels.get(level).and_then(|l| l.get(key)).and_then(Value::as_str);
    let preset = match (at(0, "glyphType"), at(0, "glyphSymbol")) {
        (Some("DECIMAL"), _) if at(1, "glyphFormat").is_some_and(|f| f.contains("%0")) => "NUMBERED_DECIMAL_NESTED",
        (Some("DECIMAL"), _) if at(0, "glyphFormat").is_some_and(|f| f.ends_with(')')) => {
            "NUMBERED_DECIMAL_ALPHA_ROMAN_PARENS"
        }
        (Some("DECIMAL"), _) => "NUMBERED_DECIMAL_ALPHA_ROMAN",
        (Some("ZERO_DECIMAL"), _) => "NUMBERED_ZERODECIMAL_ALPHA_ROMAN",
        (Some("UPPER_ALPHA"), _) => "NUMBERED_UPPERALPHA_ALPHA_ROMAN",
        (Some("UPPER_ROMAN"), _) => "NUMBERED_UPPERROMAN_UPPERALPHA_DECIMAL",
        (_, Some("●")) => "BULLET_DISC_CIRCLE_SQUARE",
        (_, Some("❖")) if at(1, "glyphSymbol") == Some("◇") => "BULLET_DIAMONDX_HOLLOWDIAMOND_SQUARE",
        (_, Some("❖")) => "BULLET_DIAMONDX_ARROW3D_SQUARE",
        (_, Some("☐")) => "BULLET_CHECKBOX",
        (_, Some("➔")) => "BULLET_ARROW_DIAMOND_DISC",
        (_, Some("★")) => "BULLET_STAR_CIRCLE_SQUARE",
        (_, Some("➢")) => "BULLET_ARROW3D_CIRCLE_SQUARE",
        (_, Some("◄")) => "BULLET_LEFTTRIANGLE_DIAMOND_DISC",
        (_, Some("◆")) => "BULLET_DIAMOND_CIRCLE_SQUARE",
        _ => return None,
    };
    (preset.starts_with("NUMBERED_") == (kind == ListKind::Number)).then_some(preset)
}

/// The list requests, last in a batch: each group's requests leave the indexes as they found
/// them (tabs inserted are removed by `createParagraphBullets`), and groups run from the highest
/// index down. `may_have_bullets`: whether any paragraph could carry a bullet now (when the base
/// had none, no paragraph can have inherited one, and no bullet needs deleting).
pub fn plan(base: &Document, paragraphs: &[Placed], may_have_bullets: bool) -> Vec<Value> {
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
            }
            // Docs keeps a deleted bullet's indent on the paragraph; the editor shows none. Only
            // where a bullet surely went: a list's own items, and paragraphs taken out of a
            // list (any other paragraph keeps the indent it has).
            let clear_indents = |from: u32, to: u32| {
                json!({"updateParagraphStyle": {
                    "range": range(from, to), "paragraphStyle": {}, "fields": "indentStart,indentFirstLine"
                }})
            };
            if first.list.is_some() {
                if may_have_bullets {
                    group.push(clear_indents(start, end));
                }
            } else {
                group.extend(run.iter().rev().filter(|p| p.unlisted).map(|p| clear_indents(p.start, p.end)));
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
                let preset = preset_of(base, &list.id, list.kind).unwrap_or(list.kind.preset());
                group.push(json!({"createParagraphBullets": {
                    "range": range(start, end + tabs), "bulletPreset": preset
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
