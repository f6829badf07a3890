//! The document area's shapes. One model reads Google's JSON (lenient: unknown fields ignored,
//! missing zero values defaulted as proto3 JSON omits them) and writes the seed's shapes
//! (`id`, `name`, `textRun.style`): Google's names are accepted as aliases on the way in.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The Google Docs MIME type.
pub const DOC_MIME: &str = "application/vnd.google-apps.document";

/// The named paragraph styles an editor may set.
pub const NAMED_STYLES: &[&str] =
    &["NORMAL_TEXT", "TITLE", "SUBTITLE", "HEADING_1", "HEADING_2", "HEADING_3", "HEADING_4", "HEADING_5", "HEADING_6"];

/// A named paragraph style as the editor offers it, with how the document defines it (its
/// `namedStyles`): what a paragraph of the style shows unless it says otherwise.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct NamedStyle {
    /// Google's name, e.g. `HEADING_1`.
    pub id: String,
    /// For people, e.g. "Heading 1".
    pub label: String,
    /// The style's alignment in this document (unsaid: START, Docs' default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub alignment: Option<Alignment>,
    /// Its text's size in points, when the document says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub font_size: Option<f64>,
    /// Whether its text is bold, or italic, when the document says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub bold: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub italic: Option<bool>,
}

/// Every named style the editor may set, in Google's order, with its label.
pub fn named_styles() -> Vec<NamedStyle> {
    NAMED_STYLES
        .iter()
        .map(|id| {
            let words = id.replace('_', " ").to_lowercase();
            let label = words[..1].to_uppercase() + &words[1..];
            NamedStyle { id: id.to_string(), label, alignment: None, font_size: None, bold: None, italic: None }
        })
        .collect()
}

/// [`named_styles`] as `doc` defines them (`Document.namedStyles.styles`, each a
/// `NamedStyle{namedStyleType, textStyle, paragraphStyle}`).
pub fn named_styles_of(doc: &Document) -> Vec<NamedStyle> {
    let defined = doc.named_styles.as_ref().and_then(|n| n.get("styles")).and_then(Value::as_array);
    named_styles()
        .into_iter()
        .map(|mut style| {
            let Some(definition) = defined.and_then(|all| {
                all.iter().find(|d| d.get("namedStyleType").and_then(Value::as_str) == Some(&style.id))
            }) else {
                return style;
            };
            style.alignment =
                definition.pointer("/paragraphStyle/alignment").and_then(|a| serde_json::from_value(a.clone()).ok());
            let text = definition.get("textStyle");
            style.font_size = text.and_then(|t| t.pointer("/fontSize/magnitude")).and_then(Value::as_f64);
            style.bold = text.and_then(|t| t.get("bold")).and_then(Value::as_bool);
            style.italic = text.and_then(|t| t.get("italic")).and_then(Value::as_bool);
            style
        })
        .collect()
}

/// How a paragraph's lines sit between its margins (Docs' `ParagraphStyle.alignment`; START is
/// left in left-to-right text).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS,
)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Alignment {
    Start,
    Center,
    End,
    Justified,
}

impl Alignment {
    /// Docs' name for it, as a request writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Alignment::Start => "START",
            Alignment::Center => "CENTER",
            Alignment::End => "END",
            Alignment::Justified => "JUSTIFIED",
        }
    }
}

/// The seed's Document summary (Drive's File, with the fields we ask for).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase", default)]
pub struct DocumentSummary {
    pub id: String,
    pub name: String,
    pub mime_type: String,
    pub created_time: String,
    pub modified_time: String,
    pub web_view_link: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub thumbnail_link: Option<String>,
    /// What the signed-in user may do with it (Drive's `capabilities`); absent when not read.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub capabilities: Option<FileCapabilities>,
}

/// The part of Drive's `File.capabilities` Staffroom reads.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase", default)]
pub struct FileCapabilities {
    /// Whether the user may edit the file: a viewer or commenter may only open it.
    pub can_edit: bool,
    /// Whether the user may share it with others.
    pub can_share: bool,
}

/// `GET /documents`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct DocumentList {
    pub documents: Vec<DocumentSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub next_page_token: Option<String>,
    /// Google could not be reached: this is the list as read at `fetchedAt`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub stale: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub fetched_at: Option<String>,
}

/// A Drive folder, for the documents list's folder filter.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(default)]
pub struct Folder {
    pub id: String,
    pub name: String,
}

/// Drive's FileList, as read.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct FileList {
    pub files: Vec<DocumentSummary>,
    pub next_page_token: Option<String>,
}

/// The seed's Document (Docs' Document, read with `SUGGESTIONS_INLINE` where the user may see
/// suggestions).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct Document {
    #[serde(alias = "documentId", default)]
    pub id: String,
    #[serde(alias = "title", default)]
    pub name: String,
    #[serde(default)]
    pub body: Body,
    /// Google returns a revision only to users who may edit the document: `null` otherwise.
    #[serde(default)]
    pub revision_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub suggestions_view_mode: Option<String>,
    /// Whether this user may edit the document (Google gave a revision id).
    #[serde(default)]
    pub can_edit: bool,
    /// Images and other objects inline in the text, by id (`inlineObjectElement` points here).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "Record<string, unknown>")]
    pub inline_objects: Option<Map<String, Value>>,
    /// Objects anchored to paragraphs, by id (`positionedObjectIds` point here).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "Record<string, unknown>")]
    pub positioned_objects: Option<Map<String, Value>>,
    /// The lists, by id (a paragraph's `bullet.listId` points here): how each level's bullets look.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "Record<string, unknown>")]
    pub lists: Option<Map<String, Value>>,
    /// How the document defines its named styles (`{"styles": [NamedStyle…]}`): what a paragraph
    /// of a style shows where it says nothing itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "unknown")]
    pub named_styles: Option<Value>,
    /// The document's tabs in order, nested ones after their parent, when it has more than one:
    /// the content above is the first tab's (the one every request without a `tabId` edits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub tabs_outline: Option<Vec<TabOutline>>,
    /// The tab the content above is from, when it is not the first: every request that edits it
    /// names it (`tabId` in each location and range); without it, requests edit the first tab.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub tab_id: Option<String>,
}

/// The id Docs gives a document's first tab.
pub const FIRST_TAB_ID: &str = "t.0";

/// One tab of a document, as the editor lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct TabOutline {
    /// Docs' `tabId`, e.g. `t.0`.
    pub id: String,
    pub title: String,
    /// 0 for a tab at the top, 1 for one nested in it, and so on.
    pub level: u8,
}

impl Document {
    /// A document as `documents.get` returns it with `includeTabsContent=true`: the content of
    /// the tab `tab` names (nested tabs included), or of the first, moved to the content fields,
    /// where Docs puts the first tab's without tabs, and its tabs outlined when there is more than
    /// one (discovery document, `includeTabsContent`, `Tab.childTabs`). `None` when no tab has
    /// the id `tab` names.
    pub fn from_tabbed(mut value: Value, tab: Option<&str>) -> serde_json::Result<Option<Document>> {
        fn find<'a>(tabs: &'a [Value], id: &str) -> Option<&'a Value> {
            tabs.iter().find_map(|tab| {
                if tab.pointer("/tabProperties/tabId").and_then(Value::as_str) == Some(id) {
                    return Some(tab);
                }
                find(tab.get("childTabs").and_then(Value::as_array).map_or(&[], Vec::as_slice), id)
            })
        }
        fn outline(tabs: &[Value], level: u8, out: &mut Vec<TabOutline>) {
            for tab in tabs {
                let property = |key: &str| tab.pointer(&format!("/tabProperties/{key}")).and_then(Value::as_str);
                out.push(TabOutline {
                    id: property("tabId").unwrap_or_default().to_string(),
                    title: property("title").unwrap_or_default().to_string(),
                    level,
                });
                if let Some(children) = tab.get("childTabs").and_then(Value::as_array) {
                    outline(children, level.saturating_add(1), out);
                }
            }
        }
        let tabs = value.as_object_mut().and_then(|doc| doc.remove("tabs"));
        if let (Some(Value::Array(tabs)), Some(doc)) = (tabs, value.as_object_mut()) {
            let first = tabs.first();
            let first_id = first.and_then(|t| t.pointer("/tabProperties/tabId")).and_then(Value::as_str);
            // The first tab is the document's own content: it is named by no id.
            let other = tab.filter(|&id| Some(id) != first_id);
            let shown = match other {
                Some(id) => match find(&tabs, id) {
                    Some(found) => found,
                    None => return Ok(None),
                },
                None => match first {
                    Some(first) => first,
                    None => return serde_json::from_value(value).map(Some),
                },
            };
            if let Some(Value::Object(content)) = shown.get("documentTab") {
                doc.extend(content.clone());
            }
            if let Some(id) = other {
                doc.insert("tabId".into(), Value::String(id.to_string()));
            }
            let mut listed = Vec::new();
            outline(&tabs, 0, &mut listed);
            if listed.len() > 1 {
                doc.insert("tabsOutline".into(), serde_json::to_value(listed)?);
            }
        } else if tab.is_some_and(|id| id != FIRST_TAB_ID) {
            // An answer without tabs has only the first.
            return Ok(None);
        }
        serde_json::from_value(value).map(Some)
    }

    /// Marks what this user may do, from what Google returned.
    pub fn with_access(mut self) -> Self {
        self.can_edit = self.revision_id.as_deref().is_some_and(|r| !r.is_empty());
        self
    }

    /// The revision to write against, or why there is none.
    pub fn editable_revision(&self) -> staffroom_base::error::Result<&str> {
        self.revision_id.as_deref().filter(|r| !r.is_empty()).ok_or_else(|| {
            staffroom_base::error::Error::provider_forbidden(
                "google",
                Some("readOnly"),
                "Google lets you view or comment on this document, not edit it",
            )
        })
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(default)]
pub struct Body {
    pub content: Vec<StructuralElement>,
}

/// A block of the body: a paragraph, a section break, a table, or a table of contents.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase", default)]
pub struct StructuralElement {
    pub start_index: u32,
    pub end_index: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub paragraph: Option<Paragraph>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "unknown")]
    pub section_break: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub table: Option<Table>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "unknown")]
    pub table_of_contents: Option<Value>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase", default)]
pub struct Paragraph {
    pub elements: Vec<ParagraphElement>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "Record<string, unknown>")]
    pub paragraph_style: Option<Map<String, Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "unknown")]
    pub bullet: Option<Value>,
    /// Objects (images, drawings) anchored to this paragraph: deleting it would delete them.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub positioned_object_ids: Option<Vec<String>>,
    /// Anything else Google says of the paragraph (pending suggested style, bullet or object
    /// changes, …), kept as sent.
    #[serde(flatten)]
    #[ts(skip)]
    pub other: Map<String, Value>,
}

/// A piece of a paragraph: a text run, or something else (kept as Google sent it).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ParagraphElement {
    #[serde(default)]
    pub start_index: u32,
    #[serde(default)]
    pub end_index: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub text_run: Option<TextRun>,
    /// Any other kind (inline object, page break, person, …): shown read-only.
    #[serde(flatten)]
    // Left out of the TypeScript type: the UI shows such elements without reading them, and an
    // index signature there would have to admit every named field's type too.
    #[ts(skip)]
    pub other: Map<String, Value>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase", default)]
pub struct TextRun {
    /// The text; Google replaces non-text elements inside a run with U+E907, and a soft line
    /// break (Shift+Enter) is U+000B.
    pub content: String,
    /// Character style (bold, italic, link, …): Google's `textStyle`.
    #[serde(alias = "textStyle", skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "Record<string, unknown>")]
    pub style: Option<Map<String, Value>>,
    /// A collaborator suggested adding this text (not accepted yet).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub suggested_insertion_ids: Option<Vec<String>>,
    /// A collaborator suggested deleting this text (not accepted yet).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub suggested_deletion_ids: Option<Vec<String>>,
    /// A collaborator suggested restyling this text (not accepted yet), by suggestion id.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "Record<string, unknown>")]
    pub suggested_text_style_changes: Option<Map<String, Value>>,
}

impl TextRun {
    /// Whether the run is part of a pending suggestion.
    pub fn is_suggestion(&self) -> bool {
        self.suggested_insertion_ids.as_ref().is_some_and(|ids| !ids.is_empty())
            || self.suggested_deletion_ids.as_ref().is_some_and(|ids| !ids.is_empty())
            || self.suggested_text_style_changes.as_ref().is_some_and(|changes| !changes.is_empty())
    }
}

/// What Google puts in a text run in place of a non-text element.
pub const NON_TEXT_ELEMENT: char = '\u{E907}';
/// A soft line break inside a paragraph (Shift+Enter), kept by Docs in text and `insertText`.
pub const SOFT_BREAK: char = '\u{000B}';

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase", default)]
pub struct Table {
    pub rows: u32,
    pub columns: u32,
    pub table_rows: Vec<TableRow>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase", default)]
pub struct TableRow {
    pub start_index: u32,
    pub end_index: u32,
    pub table_cells: Vec<TableCell>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase", default)]
pub struct TableCell {
    pub start_index: u32,
    pub end_index: u32,
    /// A cell holds paragraphs (and tables) like the body: the schema refers back, not down.
    #[schema(no_recursion)]
    pub content: Vec<StructuralElement>,
    /// How the cell looks and spans (`rowSpan`, `columnSpan`: a merged cell spans more than one).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "Record<string, unknown>")]
    pub table_cell_style: Option<Map<String, Value>>,
}

impl Paragraph {
    /// The paragraph's named style (NORMAL_TEXT when unset).
    pub fn named_style(&self) -> &str {
        self.paragraph_style
            .as_ref()
            .and_then(|s| s.get("namedStyleType"))
            .and_then(Value::as_str)
            .unwrap_or("NORMAL_TEXT")
    }

    /// The paragraph's own alignment; `None` when it has none (unset, `ALIGNMENT_UNSPECIFIED`,
    /// or a value that is not one of Docs' four): it then shows its named style's (see
    /// [`named_styles_of`]).
    pub fn alignment(&self) -> Option<Alignment> {
        let value = self.paragraph_style.as_ref().and_then(|s| s.get("alignment"))?;
        serde_json::from_value(value.clone()).ok()
    }

    /// Whether the paragraph is text alone (in a list or not), so that rewriting it as text loses
    /// nothing: every element a text run, no non-text element standing in a run (U+E907), no
    /// pending suggestion, and no object anchored to it.
    pub fn is_plain_text(&self) -> bool {
        self.positioned_object_ids.as_ref().is_none_or(|ids| ids.is_empty())
            && !self.other.keys().any(|k| k.starts_with("suggested"))
            && self.elements.iter().all(|e| {
                e.other.is_empty()
                    && e.text_run.as_ref().is_some_and(|r| !r.is_suggestion() && !r.content.contains(NON_TEXT_ELEMENT))
            })
    }

    /// [`Paragraph::text`], borrowed from the paragraph when it is one run (as most are).
    pub fn text_borrowed(&self) -> Cow<'_, str> {
        let mut runs = self.elements.iter().filter_map(|e| e.text_run.as_ref());
        match (runs.next(), runs.next()) {
            (Some(only), None) => Cow::Borrowed(only.content.strip_suffix('\n').unwrap_or(&only.content)),
            _ => Cow::Owned(self.text()),
        }
    }

    /// The text without the final newline.
    pub fn text(&self) -> String {
        let mut text: String =
            self.elements.iter().filter_map(|e| e.text_run.as_ref()).map(|r| r.content.as_str()).collect();
        if text.ends_with('\n') {
            text.pop();
        }
        text
    }
}

/// Drive's Permission, and the seed's Permission entry.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct Permission {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub id: Option<String>,
    pub role: String,
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub email_address: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub domain: Option<String>,
}

/// `POST /documents/:id/permissions`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
pub struct PermissionList {
    pub permissions: Vec<Permission>,
}

/// `PATCH /documents/:id`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct PatchResult {
    pub document_id: String,
    /// The revision after the edit.
    pub revision_id: String,
    /// One reply per request (Google's, `{}` for these kinds).
    #[ts(type = "Array<unknown>")]
    pub replies: Vec<Value>,
}

/// Docs' BatchUpdateDocumentResponse, as read.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct BatchUpdateResponse {
    pub document_id: String,
    pub replies: Vec<Value>,
    pub write_control: Option<WriteControl>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct WriteControl {
    pub required_revision_id: Option<String>,
}

/// Length of `s` in UTF-16 code units: the unit of every Docs index.
pub fn utf16_len(s: &str) -> u32 {
    // From the UTF-8 bytes: one unit per character (every byte but a continuation byte), and a
    // second for a character of four bytes (a surrogate pair). Bytes, not chars, because the
    // planner measures a whole document several times per save.
    s.bytes().map(|b| u32::from((b & 0xC0) != 0x80) + u32::from(b >= 0xF0)).sum()
}

/// Whether Google strips `c` from inserted text: U+0000–U+0008, U+000C–U+001F and the Private
/// Use Area (`InsertTextRequest.text` in the Docs discovery document). Tab, newline and the soft
/// line break U+000B survive.
pub fn is_stripped_by_google(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{8}' | '\u{C}'..='\u{1F}' | '\u{E000}'..='\u{F8FF}')
}

/// Why inserted text would not arrive as sent (a character Google strips, or a newline where one
/// paragraph is expected): the offending character and a sentence.
pub fn text_problem(text: &str, newlines_allowed: bool) -> Option<(char, String)> {
    let c = text.chars().find(|&c| is_stripped_by_google(c) || (c == '\n' && !newlines_allowed))?;
    Some((c, format!("must not contain the character U+{:04X}", c as u32)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_google_names_and_writes_the_seeds() {
        let google = serde_json::json!({
            "documentId": "d1", "title": "T", "revisionId": "r", "suggestionsViewMode": "SUGGESTIONS_INLINE",
            "body": {"content": [
                {"endIndex": 1, "sectionBreak": {}},
                {"startIndex": 1, "endIndex": 4, "paragraph": {"elements": [
                    {"startIndex": 1, "endIndex": 4, "textRun": {"content": "hi\n", "textStyle": {"bold": true}}}
                ], "paragraphStyle": {"namedStyleType": "HEADING_1"}}}
            ]},
            "documentStyle": {}, "namedStyles": {}
        });
        let doc: Document = serde_json::from_value(google).unwrap();
        assert_eq!(doc.body.content[0].start_index, 0);
        let p = doc.body.content[1].paragraph.as_ref().unwrap();
        assert_eq!((p.text().as_str(), p.named_style(), p.is_plain_text()), ("hi", "HEADING_1", true));
        let out = serde_json::to_value(&doc).unwrap();
        assert_eq!(out["id"], "d1");
        assert_eq!(out["name"], "T");
        assert_eq!(out["body"]["content"][1]["paragraph"]["elements"][0]["textRun"]["style"]["bold"], true);
        // Our own output reads back the same.
        assert_eq!(serde_json::from_value::<Document>(out).unwrap(), doc);
    }

    #[test]
    fn a_document_read_with_its_tabs_shows_the_first_and_outlines_them_all() {
        // Shaped as Docs returns a tabbed document with `includeTabsContent=true`: no content at
        // the top, each tab's under `documentTab`, nested tabs under `childTabs`.
        let tab = |id: &str, title: &str, index: u32, text: &str| {
            serde_json::json!({
                "tabProperties": {"tabId": id, "title": title, "index": index},
                "documentTab": {
                    "body": {"content": [
                        {"endIndex": 1, "sectionBreak": {}},
                        {"startIndex": 1, "endIndex": 1 + text.len() as u32 + 1, "paragraph": {"elements": [
                            {"startIndex": 1, "textRun": {"content": format!("{text}\n"), "textStyle": {}}}
                        ], "paragraphStyle": {"namedStyleType": "NORMAL_TEXT"}}}
                    ]},
                    "namedStyles": {"styles": [{"namedStyleType": "TITLE", "paragraphStyle": {"alignment": "CENTER"}}]},
                    "lists": {}
                }
            })
        };
        let mut completed = tab("t.dfdw4zha1oav", "Completed", 2, "Done");
        let mut child = tab("t.7vtku6ypfk3c", "Round 1: Main Navigation", 0, "Nav");
        child["tabProperties"]["parentTabId"] = serde_json::json!("t.dfdw4zha1oav");
        child["tabProperties"]["nestingLevel"] = serde_json::json!(1);
        completed["childTabs"] = serde_json::json!([child]);
        let google = serde_json::json!({
            "documentId": "d1", "title": "Spec", "revisionId": "r",
            "tabs": [tab("t.0", "Overview", 0, "First tab"), tab("t.x1", "Original RFP", 1, "RFP"), completed]
        });
        let doc = Document::from_tabbed(google.clone(), None).unwrap().unwrap();
        assert_eq!(doc.body.content[1].paragraph.as_ref().unwrap().text(), "First tab");
        assert_eq!(doc.tab_id, None);
        // Another tab, nested or not, by its id; the first by its own id is the first; no such tab.
        let nested = Document::from_tabbed(google.clone(), Some("t.7vtku6ypfk3c")).unwrap().unwrap();
        assert_eq!(nested.body.content[1].paragraph.as_ref().unwrap().text(), "Nav");
        assert_eq!(nested.tab_id.as_deref(), Some("t.7vtku6ypfk3c"));
        assert_eq!(nested.tabs_outline, doc.tabs_outline);
        assert_eq!(Document::from_tabbed(google.clone(), Some("t.0")).unwrap().unwrap().tab_id, None);
        assert_eq!(Document::from_tabbed(google.clone(), Some("t.nope")).unwrap(), None);
        assert_eq!(named_styles_of(&doc)[1].alignment, Some(Alignment::Center));
        let outline: Vec<(&str, u8)> =
            doc.tabs_outline.as_ref().unwrap().iter().map(|t| (t.title.as_str(), t.level)).collect();
        assert_eq!(outline, [("Overview", 0), ("Original RFP", 0), ("Completed", 0), ("Round 1: Main Navigation", 1)]);
        // One tab: its content, no outline.
        let single = serde_json::json!({"documentId": "d2", "tabs": [tab("t.0", "Tab 1", 0, "Only")]});
        let doc = Document::from_tabbed(single, None).unwrap().unwrap();
        assert_eq!((doc.body.content.len(), doc.tabs_outline), (2, None));
    }

    #[test]
    fn named_styles_read_as_people_write_them() {
        let labels: Vec<String> = named_styles().into_iter().map(|s| s.label).collect();
        assert_eq!(labels[0], "Normal text");
        assert_eq!(labels[3], "Heading 1");
        assert_eq!(labels.len(), NAMED_STYLES.len());
    }

    #[test]
    fn counts_utf16() {
        assert_eq!(utf16_len("a😀é"), 4);
    }

    proptest::proptest! {
        #[test]
        fn counts_utf16_as_an_encoder_does(text in "\\PC*|[a-z\u{80}-\u{7ff}\u{800}-\u{ffff}\u{10000}-\u{10ffff}]{0,40}") {
            proptest::prop_assert_eq!(utf16_len(&text) as usize, text.encode_utf16().count());
        }
    }
}
