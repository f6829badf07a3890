//! Lists: a paragraph's place in a bulleted or numbered list, read from Docs' `bullet` and the
//! document's `lists`, and the requests that give edited paragraphs their places.
//!
//! Docs has no request that sets a paragraph's list or nesting level. A list keeps its id (and
//! with it its glyphs, numbering and anything tied to it) only through what Docs documents:
//! - a newline inserted in a paragraph makes a new paragraph with the same list place
//!   (InsertTextRequest.text), so the planner adds an item inside the item beside it that has
//!   the wanted place (see `planner`), and no list request is needed;
//! - `createParagraphBullets` reads nesting from leading tabs, and adds its paragraphs to the
//!   list right before them when that list has "a matching preset": a list made with a preset
//!   (every level with that preset's glyph and format). An item that changed level, or joins a
//!   list right after one of its items, is bulleted alone and joins the list.
//!
//! Anywhere else (a list's first item changed in level, a hand-made look), Docs offers no way
//! into the existing list: the list's items next to it are made again as one new list, with the
//! preset closest to its look. Two lists of one kind that end up next to each other may become
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

/// One edited paragraph as the list requests see it: where it is in the final text, the list
/// place wanted, the one Docs gives it after the text requests (`None` when Google leaves that to
/// chance: the paragraph was merged), and whether a fixed block comes right before it.
#[derive(Debug, Clone)]
pub struct Placed<'a> {
    pub start: u32,
    pub end: u32,
    pub list: Option<&'a ListItem>,
    pub now: Option<Option<&'a ListItem>>,
    pub after_fixed: bool,
}

impl Placed<'_> {
    /// Whether the paragraph's place must be set: Docs gives it another one, or may.
    fn misplaced(&self, may_have_bullets: bool) -> bool {
        match self.now {
            Some(now) => now != self.list,
            None => self.list.is_some() || may_have_bullets,
        }
    }

    /// Whether the paragraph may hold a bullet after the text requests.
    fn may_have_bullet(&self, may_have_bullets: bool) -> bool {
        self.now.map_or(may_have_bullets, |now| now.is_some())
    }

    fn wanted_id(&self) -> Option<&str> {
        self.list.map(|l| l.id.as_str())
    }
}

/// The presets and their glyphs for levels 0, 1 and 2 (then again from level 3), as the
/// BulletGlyphPreset enum of the discovery document names them; a glyph in capitals is a
/// numbered level's glyphType, any other a glyphSymbol.
const PRESETS: &[(&str, [&str; 3])] = &[
    ("BULLET_DISC_CIRCLE_SQUARE", ["●", "○", "■"]),
    ("BULLET_DIAMONDX_ARROW3D_SQUARE", ["❖", "➢", "■"]),
    ("BULLET_CHECKBOX", ["☐", "☐", "☐"]),
    ("BULLET_ARROW_DIAMOND_DISC", ["➔", "◆", "●"]),
    ("BULLET_STAR_CIRCLE_SQUARE", ["★", "○", "■"]),
    ("BULLET_ARROW3D_CIRCLE_SQUARE", ["➢", "○", "■"]),
    ("BULLET_LEFTTRIANGLE_DIAMOND_DISC", ["◄", "◆", "●"]),
    ("BULLET_DIAMONDX_HOLLOWDIAMOND_SQUARE", ["❖", "◇", "■"]),
    ("BULLET_DIAMOND_CIRCLE_SQUARE", ["◆", "○", "■"]),
    ("NUMBERED_DECIMAL_ALPHA_ROMAN", ["DECIMAL", "ALPHA", "ROMAN"]),
    ("NUMBERED_DECIMAL_ALPHA_ROMAN_PARENS", ["DECIMAL", "ALPHA", "ROMAN"]),
    ("NUMBERED_DECIMAL_NESTED", ["DECIMAL", "DECIMAL", "DECIMAL"]),
    ("NUMBERED_ZERODECIMAL_ALPHA_ROMAN", ["ZERO_DECIMAL", "ALPHA", "ROMAN"]),
    ("NUMBERED_UPPERALPHA_ALPHA_ROMAN", ["UPPER_ALPHA", "ALPHA", "ROMAN"]),
    ("NUMBERED_UPPERROMAN_UPPERALPHA_DECIMAL", ["UPPER_ROMAN", "UPPER_ALPHA", "DECIMAL"]),
];

/// The preset a list of `doc` was made with, when every level it describes has that preset's
/// glyph: the only lists a `createParagraphBullets` can join ("a list with a matching preset").
/// A list whose glyphs were changed by hand (a circle under numbers) matches none.
fn matching_preset(doc: &Document, id: &str, kind: ListKind) -> Option<&'static str> {
    let levels = doc.lists.as_ref()?.get(id)?.pointer("/listProperties/nestingLevels")?.as_array()?;
    fn glyph(level: &Value) -> Option<&str> {
        let numbered = level.get("glyphType").and_then(Value::as_str);
        numbered
            .filter(|t| !matches!(*t, "GLYPH_TYPE_UNSPECIFIED" | "NONE"))
            .or_else(|| level.get("glyphSymbol")?.as_str())
    }
    let format = |level: &Value| level.get("glyphFormat").and_then(Value::as_str).unwrap_or_default().to_string();
    PRESETS
        .iter()
        .filter(|(name, _)| name.starts_with("NUMBERED_") == (kind == ListKind::Number))
        .find(|(name, glyphs)| {
            !levels.is_empty()
                && levels.iter().enumerate().all(|(n, level)| {
                    let numbered = name.starts_with("NUMBERED_");
                    let wanted_format = match (numbered, *name) {
                        (false, _) => format!("%{n}"),
                        (true, "NUMBERED_DECIMAL_ALPHA_ROMAN_PARENS") => format!("%{n})"),
                        (true, "NUMBERED_DECIMAL_NESTED") => (0..=n).map(|k| format!("%{k}.")).collect(),
                        (true, _) => format!("%{n}."),
                    };
                    glyph(level) == Some(glyphs[n % 3]) && format(level) == wanted_format
                })
        })
        .map(|(name, _)| *name)
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

/// The list requests, last in a batch, for the paragraphs whose place Docs does not already give
/// them after the text requests. A paragraph that joins a list right after one of its items, in a
/// list made with a preset, is bulleted alone with that preset, and joins it, keeping the list's
/// id. Anywhere else, Docs offers no way into an existing list: the list's items next to it are
/// made again with it, as one new list (looking as before where a preset has the look). Each
/// group's requests leave the indexes as they found them (tabs inserted are removed by
/// `createParagraphBullets`), and groups run from the highest index down. `may_have_bullets`:
/// whether any paragraph could carry a bullet now (when the base had none, no paragraph can have
/// taken one from where it was split or merged).
pub fn plan(base: &Document, paragraphs: &[Placed], may_have_bullets: bool) -> Vec<Value> {
    let mut misplaced: Vec<bool> = paragraphs.iter().map(|p| p.misplaced(may_have_bullets)).collect();
    // Stretches of paragraphs wanted in one list (or in none), none after a fixed block.
    let stretch = |i: usize| {
        let id = paragraphs[i].wanted_id();
        let mut from = i;
        while from > 0 && !paragraphs[from].after_fixed && paragraphs[from - 1].wanted_id() == id {
            from -= 1;
        }
        let mut to = i + 1;
        while to < paragraphs.len() && !paragraphs[to].after_fixed && paragraphs[to].wanted_id() == id {
            to += 1;
        }
        (from, to)
    };
    // Misplaced items next to each other in one list are bulleted together. Such a group that
    // cannot join the item before it takes its list's neighbouring items with it.
    let mut i = 0;
    while i < paragraphs.len() {
        let Some(list) = paragraphs[i].list.filter(|_| misplaced[i]) else {
            i += 1;
            continue;
        };
        let joins = i > 0
            && !paragraphs[i].after_fixed
            && paragraphs[i - 1].wanted_id() == Some(list.id.as_str())
            && !misplaced[i - 1]
            && matching_preset(base, &list.id, list.kind).is_some();
        if joins {
            // Past the group.
            i += 1;
            while i < paragraphs.len()
                && misplaced[i]
                && !paragraphs[i].after_fixed
                && paragraphs[i].wanted_id() == Some(list.id.as_str())
            {
                i += 1;
            }
        } else {
            let (from, to) = stretch(i);
            misplaced[from..to].iter_mut().for_each(|m| *m = true);
            i = to;
        }
    }

    let mut groups: Vec<Vec<Value>> = Vec::new();
    let mut i = 0;
    while i < paragraphs.len() {
        if !misplaced[i] {
            i += 1;
            continue;
        }
        let first = &paragraphs[i];
        let mut j = i + 1;
        while j < paragraphs.len()
            && misplaced[j]
            && !paragraphs[j].after_fixed
            && paragraphs[j].wanted_id() == first.wanted_id()
        {
            j += 1;
        }
        let run = &paragraphs[i..j];
        let (start, end) = (run[0].start, run[run.len() - 1].end);
        let mut group = Vec::new();
        if run.iter().any(|p| p.may_have_bullet(may_have_bullets)) {
            group.push(json!({"deleteParagraphBullets": {"range": range(start, end)}}));
        }
        // Docs keeps a deleted bullet's indent on the paragraph; the editor shows none. Only
        // where a bullet surely went: a list's items, and paragraphs taken out of a list (any
        // other paragraph keeps the indent it has).
        let clear_indents = |from: u32, to: u32| {
            json!({"updateParagraphStyle": {
                "range": range(from, to), "paragraphStyle": {}, "fields": "indentStart,indentFirstLine"
            }})
        };
        match first.list {
            Some(list) => {
                if run.iter().any(|p| p.may_have_bullet(may_have_bullets)) {
                    group.push(clear_indents(start, end));
                }
                let mut tabs = 0;
                for p in run.iter().rev().filter(|p| p.list.is_some_and(|l| l.level > 0)) {
                    let level = p.list.map_or(0, |l| l.level);
                    group.push(
                        json!({"insertText": {"location": {"index": p.start}, "text": "\t".repeat(level.into())}}),
                    );
                    tabs += u32::from(level);
                }
                let preset = matching_preset(base, &list.id, list.kind)
                    .or_else(|| preset_of(base, &list.id, list.kind))
                    .unwrap_or(list.kind.preset());
                group.push(json!({"createParagraphBullets": {
                    "range": range(start, end + tabs), "bulletPreset": preset
                }}));
            }
            None => group.extend(
                run.iter()
                    .rev()
                    .filter(|p| p.now.is_some_and(|now| now.is_some()))
                    .map(|p| clear_indents(p.start, p.end)),
            ),
        }
        if !group.is_empty() {
            groups.push(group);
        }
        i = j;
    }
    groups.into_iter().rev().flatten().collect()
}

fn range(start: u32, end: u32) -> Value {
    json!({"startIndex": start, "endIndex": end})
}
