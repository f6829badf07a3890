//! A Google Doc as the simulator keeps it: the body as a flat sequence of UTF-16 code units, so
//! that an index in a request *is* a position in the sequence. Paragraph styles live on each
//! paragraph's newline, text styles on each code unit; tables are marker units (start, row,
//! cell, end), each one index wide, as in Google's own index layout; a non-text element (an
//! inline image) is one unit of its own. Text may carry a pending suggestion (insertion or
//! deletion), which each suggestions view mode shows its own way.
//!
//! `batch_update` applies requests in order on a copy and keeps the copy only if every request
//! succeeded, with the checks and messages of the real API.

use serde_json::{json, Map, Value};

mod import;
mod tables;

/// One UTF-16 code unit of the body (or a one-wide structural marker).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    SectionBreak,
    /// A character; astral characters are followed by a `Low` unit (their second code unit).
    /// `mark` names a pending suggestion (0: none).
    Text {
        ch: char,
        style: u32,
        mark: u32,
    },
    Low {
        style: u32,
        mark: u32,
    },
    /// A non-text paragraph element one index wide (an inline object, …): `element` indexes
    /// [`SimDoc::elements`].
    Element {
        element: u32,
        style: u32,
    },
    /// The newline ending a paragraph, which carries the paragraph's style.
    Newline {
        para: u32,
        style: u32,
    },
    TableStart,
    RowStart,
    CellStart,
    TableEnd,
}

impl Unit {
    fn is_structural(self) -> bool {
        matches!(self, Unit::TableStart | Unit::RowStart | Unit::CellStart | Unit::TableEnd | Unit::SectionBreak)
    }

    fn text_style(self) -> Option<u32> {
        match self {
            Unit::Text { style, .. }
            | Unit::Low { style, .. }
            | Unit::Newline { style, .. }
            | Unit::Element { style, .. } => Some(style),
            _ => None,
        }
    }

    fn mark(self) -> u32 {
        match self {
            Unit::Text { mark, .. } | Unit::Low { mark, .. } => mark,
            _ => 0,
        }
    }

    fn with_style(self, style: u32) -> Unit {
        match self {
            Unit::Text { ch, mark, .. } => Unit::Text { ch, style, mark },
            Unit::Low { mark, .. } => Unit::Low { style, mark },
            Unit::Newline { para, .. } => Unit::Newline { para, style },
            Unit::Element { element, .. } => Unit::Element { element, style },
            other => other,
        }
    }
}

/// The named paragraph styles the API knows.
pub const NAMED_STYLES: &[&str] =
    &["NORMAL_TEXT", "TITLE", "SUBTITLE", "HEADING_1", "HEADING_2", "HEADING_3", "HEADING_4", "HEADING_5", "HEADING_6"];

/// The writable fields of a ParagraphStyle (discovery document, `ParagraphStyle`).
const PARAGRAPH_STYLE_FIELDS: &[&str] = &[
    "namedStyleType",
    "alignment",
    "lineSpacing",
    "direction",
    "spacingMode",
    "spaceAbove",
    "spaceBelow",
    "borderBetween",
    "borderTop",
    "borderBottom",
    "borderLeft",
    "borderRight",
    "indentFirstLine",
    "indentStart",
    "indentEnd",
    "keepLinesTogether",
    "keepWithNext",
    "avoidWidowAndOrphan",
    "shading",
    "pageBreakBefore",
];

/// Keys of an interned paragraph style that are the paragraph's own fields, not its style: a
/// list bullet (copied to a paragraph split off it, as Docs does) and anchored objects (not).
const BULLET: &str = "_bullet";
const POSITIONED: &str = "_positionedObjectIds";

/// A simulated document.
#[derive(Debug, Clone)]
pub struct SimDoc {
    pub id: String,
    pub title: String,
    pub units: Vec<Unit>,
    /// Interned text styles (index 0 is the empty style).
    pub text_styles: Vec<Value>,
    /// Interned paragraph styles (index 0 is NORMAL_TEXT), with the paragraph's bullet and
    /// anchored objects under `_`-prefixed keys.
    pub para_styles: Vec<Value>,
    /// Interned suggestion marks of text (index 0 is none): the text run fields they add,
    /// `suggestedInsertionIds` or `suggestedDeletionIds`.
    pub marks: Vec<Value>,
    /// Non-text paragraph elements, as Google writes them without their indexes.
    pub elements: Vec<Value>,
    /// `Document.inlineObjects`, `positionedObjects` and `lists`, keyed by id.
    pub inline_objects: Map<String, Value>,
    pub positioned_objects: Map<String, Value>,
    pub lists: Map<String, Value>,
    /// `Document.namedStyles`, when the document's differ from Docs' defaults
    /// ([`default_named_styles`]).
    pub named_styles: Option<Value>,
    /// The document's tabs after the first (whose content is this document's): read with
    /// `includeTabsContent=true`, and edited by requests that name them.
    pub other_tabs: Vec<SimTab>,
    /// The current revision's id (see the simulator for how ids are issued and expire).
    pub revision_id: String,
    /// How many times the document was written.
    pub serial: u64,
}

/// The id Docs gives a document's first tab.
pub const FIRST_TAB_ID: &str = "t.0";

/// A tab after a document's first: its `tabProperties` as Docs writes them (`tabId`, `title`,
/// `index`, and `parentTabId` and `nestingLevel` for a tab nested in another) and its content.
#[derive(Debug, Clone)]
pub struct SimTab {
    pub properties: Value,
    pub doc: SimDoc,
}

/// A refused request: the message of the API's 400.
#[derive(Debug, Clone, PartialEq)]
pub struct Invalid(pub String);

/// One piece of a seeded paragraph.
#[derive(Debug, Clone)]
pub enum Piece<'a> {
    /// Text with a text style.
    Text(&'a str, Value),
    /// Text that is a pending suggestion: its style and its mark (`{"suggestedInsertionIds": …}`
    /// or `{"suggestedDeletionIds": …}`).
    Suggested(&'a str, Value, Value),
    /// A non-text element as Google writes it (`{"inlineObjectElement": {…}}`).
    Element(Value),
}

fn intern(styles: &mut Vec<Value>, style: Value) -> u32 {
    match styles.iter().position(|s| *s == style) {
        Some(i) => i as u32,
        None => {
            styles.push(style);
            (styles.len() - 1) as u32
        }
    }
}

/// Characters the API strips from inserted text (`InsertTextRequest.text` in the discovery
/// document): U+0000–U+0008, U+000C–U+001F and the Private Use Area. Tab, newline and the soft
/// line break U+000B survive.
fn is_stripped(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{8}' | '\u{C}'..='\u{1F}' | '\u{E000}'..='\u{F8FF}')
}

impl SimDoc {
    /// A blank document: the section break and one empty paragraph.
    pub fn new(id: impl Into<String>, title: impl Into<String>, revision_id: String) -> Self {
        SimDoc {
            id: id.into(),
            title: title.into(),
            units: vec![Unit::SectionBreak, Unit::Newline { para: 0, style: 0 }],
            text_styles: vec![json!({})],
            para_styles: vec![json!({"namedStyleType": "NORMAL_TEXT"})],
            marks: vec![json!({})],
            elements: Vec::new(),
            inline_objects: Map::new(),
            positioned_objects: Map::new(),
            lists: Map::new(),
            named_styles: None,
            other_tabs: Vec::new(),
            revision_id,
            serial: 0,
        }
    }

    /// The body's length in UTF-16 code units (its last element's end index).
    pub fn len(&self) -> usize {
        self.units.len()
    }

    pub fn is_empty(&self) -> bool {
        self.units.len() <= 2
    }

    // -----------------------------------------------------------------------------------------
    // Building (the seed)

    /// Appends a paragraph of styled runs before the final empty paragraph is dropped by
    /// [`SimDoc::finish_seed`]. Runs must not contain newlines.
    pub fn push_paragraph(&mut self, named_style: &str, runs: &[(&str, Value)]) {
        let pieces: Vec<Piece> = runs.iter().map(|(text, style)| Piece::Text(text, style.clone())).collect();
        self.push_pieces(json!({ "namedStyleType": named_style }), &pieces);
    }

    /// Appends a paragraph of pieces with `paragraph_style` (which may hold `_bullet` and
    /// `_positionedObjectIds`).
    pub fn push_pieces(&mut self, paragraph_style: Value, pieces: &[Piece]) {
        let para = intern(&mut self.para_styles, paragraph_style);
        let mut last_style = 0;
        for piece in pieces {
            match piece {
                Piece::Text(text, style) | Piece::Suggested(text, style, _) => {
                    let style = intern(&mut self.text_styles, style.clone());
                    let mark = match piece {
                        Piece::Suggested(_, _, mark) => intern(&mut self.marks, mark.clone()),
                        _ => 0,
                    };
                    last_style = style;
                    for ch in text.chars() {
                        self.push_char(ch, style, mark);
                    }
                }
                Piece::Element(element) => {
                    self.elements.push(element.clone());
                    self.units.push(Unit::Element { element: (self.elements.len() - 1) as u32, style: 0 });
                }
            }
        }
        self.units.push(Unit::Newline { para, style: last_style });
    }

    fn push_char(&mut self, ch: char, style: u32, mark: u32) {
        self.units.push(Unit::Text { ch, style, mark });
        if ch.len_utf16() == 2 {
            self.units.push(Unit::Low { style, mark });
        }
    }

    /// Appends a table of plain cells (each one paragraph).
    pub fn push_table(&mut self, rows: &[Vec<&str>]) {
        self.units.push(Unit::TableStart);
        for row in rows {
            self.units.push(Unit::RowStart);
            for cell in row {
                self.units.push(Unit::CellStart);
                for ch in cell.chars() {
                    self.push_char(ch, 0, 0);
                }
                self.units.push(Unit::Newline { para: 0, style: 0 });
            }
        }
        self.units.push(Unit::TableEnd);
    }

    /// A seeded body is built after the blank one's empty paragraph: drop that paragraph, and
    /// end with a paragraph (a body never ends in a table).
    pub fn finish_seed(&mut self) {
        if self.units.len() > 2 && self.units[1] == (Unit::Newline { para: 0, style: 0 }) {
            self.units.remove(1);
        }
        if self.units.last() == Some(&Unit::TableEnd) {
            self.units.push(Unit::Newline { para: 0, style: 0 });
        }
    }

    // -----------------------------------------------------------------------------------------
    // Reading

    /// The document as `documents.get` returns it in `view_mode`: suggestions inline (as marked
    /// text), or previewed as accepted or as rejected, which moves every index after them.
    pub fn to_json(&self, view_mode: &str) -> Value {
        let view = self.view(view_mode);
        let mut doc = json!({
            "documentId": view.id,
            "title": view.title,
            "body": { "content": view.render_content(1, view.units.len(), true) },
            "documentStyle": {
                "pageSize": {"width": {"magnitude": 612, "unit": "PT"}, "height": {"magnitude": 792, "unit": "PT"}},
                "marginTop": {"magnitude": 72, "unit": "PT"},
                "marginBottom": {"magnitude": 72, "unit": "PT"}
            },
            "revisionId": view.revision_id,
            "suggestionsViewMode": view_mode,
            "namedStyles": self.named_styles.clone().unwrap_or_else(default_named_styles),
        });
        for (key, map) in [
            ("inlineObjects", &view.inline_objects),
            ("positionedObjects", &view.positioned_objects),
            ("lists", &view.lists),
        ] {
            if !map.is_empty() {
                doc[key] = Value::Object(map.clone());
            }
        }
        doc
    }

    /// The document as `documents.get` returns it with `includeTabsContent=true`: no content at
    /// the top, every tab's in `tabs` (a nested tab in its parent's `childTabs`), each a
    /// `DocumentTab` (discovery document, `includeTabsContent`, `Tab`).
    pub fn to_json_with_tabs(&self, view_mode: &str) -> Value {
        const CONTENT: [&str; 6] =
            ["body", "documentStyle", "namedStyles", "lists", "inlineObjects", "positionedObjects"];
        let content_of = |doc: Value| -> (Value, Map<String, Value>) {
            let Value::Object(mut all) = doc else { unreachable!("a document is an object") };
            let tab: Map<String, Value> =
                CONTENT.iter().filter_map(|key| Some((key.to_string(), all.remove(*key)?))).collect();
            (Value::Object(all), tab)
        };
        let (mut doc, first) = content_of(self.to_json(view_mode));
        let first_properties = json!({"tabId": FIRST_TAB_ID, "title": "Tab 1", "index": 0});
        let mut tabs = vec![json!({"tabProperties": first_properties, "documentTab": first})];
        for tab in &self.other_tabs {
            let (_, content) = content_of(tab.doc.to_json(view_mode));
            let json = json!({"tabProperties": tab.properties, "documentTab": content});
            let parent = tab.properties.get("parentTabId").and_then(Value::as_str);
            match parent.and_then(|p| tabs.iter_mut().find(|t| t["tabProperties"]["tabId"] == p)) {
                Some(parent) => match parent.get_mut("childTabs").and_then(Value::as_array_mut) {
                    Some(children) => children.push(json),
                    None => parent["childTabs"] = json!([json]),
                },
                None => tabs.push(json),
            }
        }
        doc["tabs"] = Value::Array(tabs);
        doc
    }

    /// The body as `view_mode` shows it.
    fn view(&self, view_mode: &str) -> SimDoc {
        let hidden = match view_mode {
            "PREVIEW_WITHOUT_SUGGESTIONS" => "suggestedInsertionIds",
            "PREVIEW_SUGGESTIONS_ACCEPTED" => "suggestedDeletionIds",
            _ => return self.clone(),
        };
        let mut view = self.clone();
        view.units = self
            .units
            .iter()
            .filter(|u| self.marks[u.mark() as usize].get(hidden).is_none())
            .map(|u| match *u {
                Unit::Text { ch, style, .. } => Unit::Text { ch, style, mark: 0 },
                Unit::Low { style, .. } => Unit::Low { style, mark: 0 },
                other => other,
            })
            .collect();
        view
    }

    /// Structural elements between `from` and `to`; `body` adds the leading section break.
    fn render_content(&self, from: usize, to: usize, body: bool) -> Vec<Value> {
        let mut content = Vec::new();
        if body {
            // proto3 JSON omits the zero start index.
            content.push(json!({
                "endIndex": 1,
                "sectionBreak": {"sectionStyle": {"columnSeparatorStyle": "NONE", "contentDirection": "LEFT_TO_RIGHT", "sectionType": "CONTINUOUS"}}
            }));
        }
        let mut i = from;
        while i < to {
            if self.units[i] == Unit::TableStart {
                let (table, next) = self.render_table(i);
                content.push(table);
                i = next;
            } else {
                let (paragraph, next) = self.render_paragraph(i);
                content.push(paragraph);
                i = next;
            }
        }
        content
    }

    fn render_paragraph(&self, start: usize) -> (Value, usize) {
        let mut elements = Vec::new();
        let mut run_start = start;
        let mut run_text = String::new();
        let mut run_key = (self.units[start].text_style().unwrap_or(0), self.units[start].mark());
        let mut i = start;
        let para = loop {
            let unit = self.units[i];
            let key = (unit.text_style().unwrap_or(0), unit.mark());
            let breaks_run =
                matches!(unit, Unit::Element { .. }) || (key != run_key && !matches!(unit, Unit::Low { .. }));
            if breaks_run && !run_text.is_empty() {
                elements.push(self.text_run(run_start, i, &run_text, run_key));
                run_text.clear();
            }
            if breaks_run || run_text.is_empty() {
                run_start = i;
                run_key = key;
            }
            match unit {
                Unit::Text { ch, .. } => run_text.push(ch),
                Unit::Low { .. } => {}
                Unit::Element { element, .. } => {
                    let mut value = self.elements[element as usize].clone();
                    value["startIndex"] = json!(i);
                    value["endIndex"] = json!(i + 1);
                    elements.push(value);
                    run_start = i + 1;
                }
                Unit::Newline { para, .. } => {
                    run_text.push('\n');
                    break para;
                }
                other => unreachable!("a paragraph holds text only, found {other:?} at {i}"),
            }
            i += 1;
        };
        elements.push(self.text_run(run_start, i + 1, &run_text, run_key));
        let mut paragraph_style = self.para_styles[para as usize].clone();
        let extras = paragraph_style.as_object_mut().map(|style| (style.remove(BULLET), style.remove(POSITIONED)));
        paragraph_style["direction"] = json!("LEFT_TO_RIGHT");
        let mut paragraph = json!({"elements": elements, "paragraphStyle": paragraph_style});
        if let Some((bullet, positioned)) = extras {
            if let Some(bullet) = bullet {
                paragraph["bullet"] = bullet;
            }
            if let Some(positioned) = positioned {
                paragraph["positionedObjectIds"] = positioned;
            }
        }
        (json!({"startIndex": start, "endIndex": i + 1, "paragraph": paragraph}), i + 1)
    }

    fn text_run(&self, start: usize, end: usize, content: &str, (style, mark): (u32, u32)) -> Value {
        let mut run = json!({"content": content, "textStyle": self.text_styles[style as usize]});
        if let Some(fields) = self.marks[mark as usize].as_object() {
            for (key, value) in fields {
                run[key] = value.clone();
            }
        }
        json!({"startIndex": start, "endIndex": end, "textRun": run})
    }

    fn render_table(&self, start: usize) -> (Value, usize) {
        let end = self.table_end(start);
        let mut rows = Vec::new();
        let mut i = start + 1;
        let mut columns = 0;
        while self.units[i] == Unit::RowStart {
            let row_start = i;
            let next_row = (i + 1..=end).find(|&j| matches!(self.units[j], Unit::RowStart | Unit::TableEnd)).unwrap();
            let mut cells = Vec::new();
            let mut c = i + 1;
            while c < next_row {
                let next_cell =
                    (c + 1..=next_row).find(|&j| j == next_row || self.units[j] == Unit::CellStart).unwrap();
                cells.push(json!({
                    "startIndex": c,
                    "endIndex": next_cell,
                    "content": self.render_content(c + 1, next_cell, false),
                    "tableCellStyle": {"rowSpan": 1, "columnSpan": 1, "contentAlignment": "TOP"}
                }));
                c = next_cell;
            }
            columns = columns.max(cells.len());
            rows.push(json!({
                "startIndex": row_start,
                "endIndex": next_row,
                "tableCells": cells,
                "tableRowStyle": {"minRowHeight": {"unit": "PT"}}
            }));
            i = next_row;
        }
        (
            json!({
                "startIndex": start,
                "endIndex": end + 1,
                "table": {"rows": rows.len(), "columns": columns, "tableRows": rows}
            }),
            end + 1,
        )
    }

    fn table_end(&self, start: usize) -> usize {
        (start..self.units.len()).find(|&j| self.units[j] == Unit::TableEnd).expect("a table has an end")
    }

    /// The TableStart of the table holding `index`, if any.
    fn enclosing_table(&self, index: usize) -> Option<(usize, usize)> {
        let start = (0..=index).rev().find(|&j| matches!(self.units[j], Unit::TableStart | Unit::TableEnd))?;
        if self.units[start] == Unit::TableEnd && start != index {
            return None;
        }
        let start = if self.units[start] == Unit::TableEnd {
            (0..start).rev().find(|&j| self.units[j] == Unit::TableStart)?
        } else {
            start
        };
        Some((start, self.table_end(start)))
    }

    /// The plain text of the body (tables included), for `fullText contains`.
    pub fn plain_text(&self) -> String {
        self.units
            .iter()
            .filter_map(|u| match u {
                Unit::Text { ch, .. } => Some(*ch),
                Unit::Newline { .. } => Some('\n'),
                _ => None,
            })
            .collect()
    }

    // -----------------------------------------------------------------------------------------
    // Writing

    /// Applies `requests` in order, all or nothing; the replies on success.
    pub fn batch_update(&mut self, requests: &[Value]) -> Result<Vec<Value>, Invalid> {
        let mut draft = self.clone();
        let mut replies = Vec::with_capacity(requests.len());
        for (i, request) in requests.iter().enumerate() {
            let object =
                request.as_object().ok_or_else(|| Invalid(format!("Invalid requests[{i}]: No request set.")))?;
            if object.is_empty() {
                return Err(Invalid(format!("Invalid requests[{i}]: No request set.")));
            }
            if object.len() > 1 {
                return Err(Invalid(format!(
                    "Invalid requests[{i}]: Exactly one request kind must be set, found {}.",
                    object.keys().cloned().collect::<Vec<_>>().join(", ")
                )));
            }
            super::shape::check_request(i, request).map_err(Invalid)?;
            let (kind, body) = object.iter().next().unwrap();
            let prefix = format!("Invalid requests[{i}].{kind}: ");
            if kind == "replaceAllText" {
                let changed =
                    draft.replace_all_text(body).map_err(|Invalid(message)| Invalid(format!("{prefix}{message}")))?;
                // proto3 JSON leaves out a zero.
                let reply = if changed == 0 { json!({}) } else { json!({"occurrencesChanged": changed}) };
                replies.push(json!({ "replaceAllText": reply }));
                continue;
            }
            // A request edits the tab its locations name: the first, or another with its own content.
            let (tab, body) = draft.tab_of(body).map_err(|Invalid(message)| Invalid(format!("{prefix}{message}")))?;
            let body = &body;
            let outcome = match kind.as_str() {
                "insertText" => tab.insert_text(body),
                "deleteContentRange" => tab.delete_content_range(body),
                "updateParagraphStyle" => tab.update_paragraph_style(body),
                "updateTextStyle" => tab.update_text_style(body),
                "createParagraphBullets" => tab.create_paragraph_bullets(body),
                "deleteParagraphBullets" => tab.delete_paragraph_bullets(body),
                "insertTable" => tab.insert_table(body),
                "insertTableRow" => tab.insert_table_row(body),
                "insertTableColumn" => tab.insert_table_column(body),
                "deleteTableRow" => tab.delete_table_row(body),
                "deleteTableColumn" => tab.delete_table_column(body),
                _ => {
                    return Err(Invalid(format!(
                        "Invalid JSON payload received. Unknown name \"{kind}\" at 'requests[{i}]': Cannot find field."
                    )))
                }
            };
            outcome.map_err(|Invalid(message)| Invalid(format!("{prefix}{message}")))?;
            replies.push(json!({}));
        }
        *self = draft;
        Ok(replies)
    }

    /// `replaceAllText`: every match of `containsText` (case-insensitive unless `matchCase`)
    /// within a paragraph's text, replaced by `replaceText` in the style of the match's first
    /// character, in every tab or in those `tabsCriteria.tabIds` names; how many were replaced.
    fn replace_all_text(&mut self, body: &Value) -> Result<u64, Invalid> {
        let criteria = body.get("containsText").ok_or_else(|| Invalid("The criteria must be set.".into()))?;
        let find: Vec<char> = criteria.get("text").and_then(Value::as_str).unwrap_or_default().chars().collect();
        if find.is_empty() {
            return Err(Invalid("The text to search for must not be empty.".into()));
        }
        let match_case = criteria.get("matchCase").and_then(Value::as_bool).unwrap_or(false);
        if criteria.get("searchByRegex").and_then(Value::as_bool) == Some(true) {
            return Err(Invalid("The sandbox does not search by regular expression.".into()));
        }
        // "When omitted, the replacement applies to all tabs" (TabsCriteria).
        let tabs: Option<Vec<&str>> = body
            .get("tabsCriteria")
            .and_then(|t| t.get("tabIds"))
            .and_then(Value::as_array)
            .map(|ids| ids.iter().filter_map(Value::as_str).collect());
        for id in tabs.iter().flatten() {
            if *id != FIRST_TAB_ID && !self.other_tabs.iter().any(|t| t.properties["tabId"] == *id) {
                return Err(Invalid(format!("The tab with ID '{id}' does not exist.")));
            }
        }
        let replace: Vec<char> = body
            .get("replaceText")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .chars()
            .filter(|c| !is_stripped(*c))
            .collect();
        if replace.contains(&'\n') {
            return Err(Invalid("The sandbox replaces text with text of one paragraph.".into()));
        }
        let chosen = |id: &str| tabs.as_ref().is_none_or(|ids| ids.contains(&id));
        let mut changed = 0;
        if chosen(FIRST_TAB_ID) {
            changed += self.replace_in_body(&find, &replace, match_case);
        }
        for tab in &mut self.other_tabs {
            let id = tab.properties["tabId"].as_str().unwrap_or_default().to_string();
            if chosen(&id) {
                changed += tab.doc.replace_in_body(&find, &replace, match_case);
            }
        }
        Ok(changed)
    }

    /// Replaces every match of `find` in the body (text units only: a paragraph's end, an
    /// inline object or a table's structure ends a match; style runs do not) by `replace`, in
    /// the style of the match's first character; how many.
    fn replace_in_body(&mut self, find: &[char], replace: &[char], match_case: bool) -> u64 {
        let same = |a: char, b: char| if match_case { a == b } else { a.to_lowercase().eq(b.to_lowercase()) };
        // Matches, left to right, none overlapping.
        let mut matches = Vec::new();
        let mut start = 0;
        while start < self.units.len() {
            let mut at = start;
            let mut matched = 0;
            while matched < find.len() && at < self.units.len() {
                match self.units[at] {
                    Unit::Text { ch, .. } if same(ch, find[matched]) => matched += 1,
                    Unit::Low { .. } if matched > 0 => {}
                    _ => break,
                }
                at += 1;
            }
            while at < self.units.len() && matches!(self.units[at], Unit::Low { .. }) {
                at += 1;
            }
            if matched == find.len() {
                matches.push((start, at));
                start = at;
            } else {
                start += 1;
            }
        }
        for &(start, end) in matches.iter().rev() {
            let (style, mark) = match self.units[start] {
                Unit::Text { style, mark, .. } => (style, mark),
                _ => (0, 0),
            };
            let mut inserted = Vec::with_capacity(replace.len());
            for &ch in replace {
                inserted.push(Unit::Text { ch, style, mark });
                if ch.len_utf16() == 2 {
                    inserted.push(Unit::Low { style, mark });
                }
            }
            self.units.splice(start..end, inserted);
        }
        matches.len() as u64
    }

    /// The tab a request edits, and the request as that tab's content applies it (its `tabId`s
    /// taken out): the tab its locations and ranges name (`Location.tabId`, `Range.tabId`:
    /// "When omitted, the request is applied to the first tab"), the first without one. An id of
    /// no tab is refused; so are locations in two tabs (the sandbox's rule: Google documents no
    /// request that spans tabs).
    fn tab_of(&mut self, body: &Value) -> Result<(&mut SimDoc, Value), Invalid> {
        fn take_tabs(value: &mut Value, found: &mut Vec<String>) {
            match value {
                Value::Object(fields) => {
                    if let Some(Value::String(tab)) = fields.remove("tabId") {
                        found.push(tab);
                    }
                    fields.values_mut().for_each(|v| take_tabs(v, found));
                }
                Value::Array(items) => items.iter_mut().for_each(|v| take_tabs(v, found)),
                _ => {}
            }
        }
        let mut body = body.clone();
        let mut named = Vec::new();
        take_tabs(&mut body, &mut named);
        named.dedup();
        let tab = match named.as_slice() {
            [] => None,
            [one] => Some(one.as_str()).filter(|&id| id != FIRST_TAB_ID),
            _ => return Err(Invalid(format!("The request names more than one tab: {}.", named.join(", ")))),
        };
        let Some(id) = tab else { return Ok((self, body)) };
        match self.other_tabs.iter_mut().find(|t| t.properties["tabId"] == id) {
            Some(other) => Ok((&mut other.doc, body)),
            None => Err(Invalid(format!("The tab with ID '{id}' does not exist."))),
        }
    }


    fn range(&self, body: &Value) -> Result<(usize, usize), Invalid> {
        let range = body.get("range").ok_or_else(|| Invalid("The range must be set.".into()))?;
        if range.get("segmentId").and_then(Value::as_str).is_some_and(|s| !s.is_empty()) {
            return Err(Invalid("The sandbox has no headers, footers or footnotes.".into()));
        }
        let start = index_field(range, "startIndex")?;
        let end = index_field(range, "endIndex")?;
        if start >= end {
            return Err(Invalid(if start == end {
                "The range should not be empty.".into()
            } else {
                format!("The start index {start} must be less than the end index {end}.")
            }));
        }
        if end > self.len() {
            return Err(Invalid(format!(
                "Index {} must be less than the end index of the referenced segment, {}.",
                end - 1,
                self.len()
            )));
        }
        if start == 0 {
            return Err(Invalid("Cannot operate on the first section break in the document.".into()));
        }
        Ok((start, end))
    }

    fn insert_text(&mut self, body: &Value) -> Result<(), Invalid> {
        let text = body.get("text").and_then(Value::as_str).unwrap_or_default();
        let text: String = text.chars().filter(|c| !is_stripped(*c)).collect();
        if text.is_empty() {
            return Err(Invalid("The text to insert must not be empty.".into()));
        }
        let mut index = if let Some(location) = body.get("location") {
            if location.get("segmentId").and_then(Value::as_str).is_some_and(|s| !s.is_empty()) {
                return Err(Invalid("The sandbox has no headers, footers or footnotes.".into()));
            }
            index_field(location, "index")?
        } else if body.get("endOfSegmentLocation").is_some() {
            self.len() - 1
        } else {
            return Err(Invalid("Either location or endOfSegmentLocation must be set.".into()));
        };
        if index >= self.len() {
            return Err(Invalid(format!(
                "Index {index} must be less than the end index of the referenced segment, {}.",
                self.len()
            )));
        }
        if matches!(self.units[index], Unit::Low { .. }) {
            // Never split a surrogate pair: the text goes right after the character.
            index += 1;
        }
        if !matches!(self.units[index], Unit::Text { .. } | Unit::Newline { .. } | Unit::Element { .. }) {
            return Err(Invalid("The insertion index must be inside the bounds of an existing paragraph.".into()));
        }
        // Text takes the style of the text just before it, within the paragraph.
        let style = match self.units[index - 1] {
            Unit::Text { style, .. } | Unit::Low { style, .. } | Unit::Element { style, .. } => style,
            _ => self.units[index].text_style().unwrap_or(0),
        };
        // A paragraph split off keeps the style and bullet of the one it came from, not the
        // objects anchored to it.
        let split_para = {
            let mut style = self.para_styles[self.paragraph_style_at(index) as usize].clone();
            if let Some(map) = style.as_object_mut() {
                map.remove(POSITIONED);
            }
            intern(&mut self.para_styles, style)
        };
        let mut inserted = Vec::with_capacity(text.len());
        for ch in text.chars() {
            if ch == '\n' {
                inserted.push(Unit::Newline { para: split_para, style });
            } else {
                inserted.push(Unit::Text { ch, style, mark: 0 });
                if ch.len_utf16() == 2 {
                    inserted.push(Unit::Low { style, mark: 0 });
                }
            }
        }
        self.units.splice(index..index, inserted);
        Ok(())
    }

    /// The paragraph style of the paragraph holding `index` (the style on its newline).
    fn paragraph_style_at(&self, index: usize) -> u32 {
        self.units[index..]
            .iter()
            .find_map(|u| match u {
                Unit::Newline { para, .. } => Some(*para),
                _ => None,
            })
            .unwrap_or(0)
    }

    fn delete_content_range(&mut self, body: &Value) -> Result<(), Invalid> {
        let (start, end) = self.range(body)?;
        if end == self.len() {
            return Err(Invalid("The range cannot include the newline character at the end of the segment.".into()));
        }
        if matches!(self.units[start], Unit::Low { .. }) || matches!(self.units[end], Unit::Low { .. }) {
            return Err(Invalid("Invalid deletion range. Cannot delete one code unit of a surrogate pair.".into()));
        }
        // Table structure goes only with its whole table.
        for k in start..end {
            if self.units[k].is_structural() {
                let (table_start, table_end) = self.enclosing_table(k).expect("markers belong to a table");
                if table_start < start || table_end >= end {
                    return Err(Invalid(
                        "Invalid deletion range. Cannot delete the start or end of a table without deleting the whole table; delete rows with deleteTableRow."
                            .into(),
                    ));
                }
            }
            if let Unit::Newline { .. } = self.units[k] {
                match self.units[k + 1] {
                    Unit::CellStart | Unit::RowStart | Unit::TableEnd
                        if self.enclosing_table(k + 1).is_some_and(|(s, _)| s >= start) => {}
                    Unit::CellStart | Unit::RowStart | Unit::TableEnd => {
                        return Err(Invalid(
                            "The range cannot include the newline character at the end of a table cell.".into(),
                        ))
                    }
                    Unit::TableStart if self.table_end(k + 1) >= end => return Err(Invalid(
                        "Invalid deletion range. Cannot delete the newline before a table without deleting the table."
                            .into(),
                    )),
                    _ => {}
                }
            }
        }
        // Merging paragraphs keeps the style of the first one, as the editor does.
        // (A range that starts at a paragraph's start removes whole paragraphs: no merge.)
        let at_paragraph_start = matches!(
            self.units[start - 1],
            Unit::Newline { .. } | Unit::SectionBreak | Unit::CellStart | Unit::TableEnd
        );
        let merges = self.units[start..end].iter().any(|u| matches!(u, Unit::Newline { .. }))
            && matches!(self.units[start], Unit::Text { .. } | Unit::Newline { .. } | Unit::Element { .. })
            && !at_paragraph_start;
        let kept_style = self.paragraph_style_at(start);
        self.units.drain(start..end);
        if merges {
            if let Some(Unit::Newline { para, .. }) =
                self.units[start..].iter_mut().find(|u| matches!(u, Unit::Newline { .. }))
            {
                *para = kept_style;
            }
        }
        Ok(())
    }

    fn fields_mask(body: &Value, known: &[&str]) -> Result<Vec<String>, Invalid> {
        let fields = body.get("fields").and_then(Value::as_str).unwrap_or_default().trim();
        if fields.is_empty() {
            return Err(Invalid("At least one field must be specified.".into()));
        }
        if fields == "*" {
            return Ok(known.iter().map(|s| s.to_string()).collect());
        }
        fields
            .split(',')
            .map(|f| {
                let top = f.trim().split('.').next().unwrap_or_default();
                if known.contains(&top) {
                    Ok(top.to_string())
                } else {
                    Err(Invalid(format!("Invalid field mask: \"{}\" is not a field of the style.", f.trim())))
                }
            })
            .collect()
    }

    fn update_paragraph_style(&mut self, body: &Value) -> Result<(), Invalid> {
        let (start, end) = self.range(body)?;
        let style = body.get("paragraphStyle").cloned().unwrap_or_else(|| json!({}));
        let fields = Self::fields_mask(body, PARAGRAPH_STYLE_FIELDS)?;
        if let Some(named) = style.get("namedStyleType") {
            if !named.as_str().is_some_and(|n| NAMED_STYLES.contains(&n)) {
                return Err(Invalid(format!("Invalid value at 'paragraph_style.named_style_type': {named}.")));
            }
        }
        let mut i = start;
        while i < self.len() && i < end.max(start + 1) {
            let Some(k) = (i..self.len()).find(|&k| matches!(self.units[k], Unit::Newline { .. })) else { break };
            if let Unit::Newline { para, style: text } = self.units[k] {
                let mut current = self.para_styles[para as usize].as_object().cloned().unwrap_or_default();
                // "Updating the named style type affects other properties" (discovery document,
                // `ParagraphStyle.namedStyleType`), which ones unsaid: the sim takes the
                // alignment back to the named style's unless the same request sets it.
                if fields.iter().any(|f| f == "namedStyleType") && !fields.iter().any(|f| f == "alignment") {
                    current.remove("alignment");
                }
                for field in &fields {
                    match style.get(field) {
                        // An enum's zero value is proto3's unset: the field inherits again.
                        Some(value) if value.as_str().is_some_and(|v| v.ends_with("_UNSPECIFIED")) => {
                            current.remove(field)
                        }
                        Some(value) => current.insert(field.clone(), value.clone()),
                        None => current.remove(field),
                    };
                }
                // The paragraph's own bullet and objects ride along untouched: the mask names
                // style fields only.
                current.entry("namedStyleType").or_insert_with(|| json!("NORMAL_TEXT"));
                let para = intern(&mut self.para_styles, Value::Object(current));
                self.units[k] = Unit::Newline { para, style: text };
            }
            i = k + 1;
        }
        Ok(())
    }

    fn update_text_style(&mut self, body: &Value) -> Result<(), Invalid> {
        const TEXT_STYLE_FIELDS: &[&str] = &[
            "bold",
            "italic",
            "underline",
            "strikethrough",
            "smallCaps",
            "backgroundColor",
            "foregroundColor",
            "fontSize",
            "weightedFontFamily",
            "baselineOffset",
            "link",
        ];
        let (start, end) = self.range(body)?;
        let style = body.get("textStyle").cloned().unwrap_or_else(|| json!({}));
        let fields = Self::fields_mask(body, TEXT_STYLE_FIELDS)?;
        for k in start..end {
            let Some(old) = self.units[k].text_style() else { continue };
            let mut current: Map<String, Value> =
                self.text_styles[old as usize].as_object().cloned().unwrap_or_default();
            for field in &fields {
                match style.get(field) {
                    Some(value) => current.insert(field.clone(), value.clone()),
                    None => current.remove(field),
                };
            }
            let new = intern(&mut self.text_styles, Value::Object(current));
            self.units[k] = self.units[k].with_style(new);
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// Lists

impl SimDoc {
    /// The paragraphs overlapping [`start`, `end`): each one's first unit and its newline.
    fn paragraphs_in(&self, start: usize, end: usize) -> Vec<(usize, usize)> {
        let end = end.max(start + 1);
        let mut first = start;
        while matches!(self.units[first - 1], Unit::Text { .. } | Unit::Low { .. } | Unit::Element { .. }) {
            first -= 1;
        }
        let mut out = Vec::new();
        for k in start..self.len() {
            if first >= end {
                break;
            }
            match self.units[k] {
                Unit::Newline { .. } => {
                    out.push((first, k));
                    first = k + 1;
                }
                unit if unit.is_structural() => first = k + 1,
                _ => {}
            }
        }
        out
    }

    fn set_bullet(&mut self, newline: usize, bullet: Option<Value>, indents: Option<(Value, Value)>) {
        let Unit::Newline { para, style } = self.units[newline] else { return };
        let mut current = self.para_styles[para as usize].as_object().cloned().unwrap_or_default();
        match bullet {
            Some(bullet) => current.insert(BULLET.into(), bullet),
            None => current.remove(BULLET),
        };
        if let Some((first_line, start)) = indents {
            current.insert("indentFirstLine".into(), first_line);
            current.insert("indentStart".into(), start);
        }
        let para = intern(&mut self.para_styles, Value::Object(current));
        self.units[newline] = Unit::Newline { para, style };
    }

    /// The bullet of the paragraph ending at `newline`, if it has one.
    fn bullet_at(&self, newline: usize) -> Option<&Value> {
        match self.units[newline] {
            Unit::Newline { para, .. } => self.para_styles[para as usize].get(BULLET),
            _ => None,
        }
    }

    /// `createParagraphBullets`: each paragraph's leading tabs become its nesting level and go;
    /// the paragraphs join the list just before them when it has the same preset, or make a new
    /// one (CreateParagraphBulletsRequest in the discovery document).
    fn create_paragraph_bullets(&mut self, body: &Value) -> Result<(), Invalid> {
        let (start, end) = self.range(body)?;
        let preset = body.get("bulletPreset").and_then(Value::as_str).unwrap_or("BULLET_GLYPH_PRESET_UNSPECIFIED");
        let levels = preset_levels(preset)?;
        let paragraphs = self.paragraphs_in(start, end);
        let before = paragraphs.first().and_then(|&(first, _)| first.checked_sub(1));
        let joined = before
            .and_then(|newline| self.bullet_at(newline))
            .and_then(|bullet| bullet.get("listId").and_then(Value::as_str))
            .filter(|id| {
                let list = self.lists.get(*id).and_then(|l| l.pointer("/listProperties/nestingLevels"));
                list.is_some_and(|list| same_glyphs(list, &levels))
            })
            .map(str::to_string);
        let list_id = joined.unwrap_or_else(|| {
            let id = (self.lists.len() + 1..).map(|n| format!("kix.sbx{n}")).find(|id| !self.lists.contains_key(id));
            let id = id.expect("an unused id exists");
            self.lists.insert(id.clone(), json!({"listProperties": {"nestingLevels": levels}}));
            id
        });
        // From the last paragraph up, so that removing tabs moves nothing still to be done.
        for (first, newline) in paragraphs.into_iter().rev() {
            let tabs =
                self.units[first..newline].iter().take_while(|u| matches!(u, Unit::Text { ch: '\t', .. })).count();
            self.units.drain(first..first + tabs);
            let mut bullet = json!({"listId": list_id, "textStyle": {}});
            if tabs > 0 {
                bullet["nestingLevel"] = json!(tabs.min(8));
            }
            self.set_bullet(newline - tabs, Some(bullet), None);
        }
        Ok(())
    }

    /// `deleteParagraphBullets`: the bullets go, each paragraph keeping its level's indent so
    /// that it stays where it was (DeleteParagraphBulletsRequest in the discovery document).
    fn delete_paragraph_bullets(&mut self, body: &Value) -> Result<(), Invalid> {
        let (start, end) = self.range(body)?;
        for (_, newline) in self.paragraphs_in(start, end) {
            let Some(bullet) = self.bullet_at(newline).cloned() else { continue };
            let level = bullet.get("nestingLevel").and_then(Value::as_u64).unwrap_or(0);
            let list = bullet.get("listId").and_then(Value::as_str).and_then(|id| self.lists.get(id));
            let indents = list.and_then(|l| l.pointer(&format!("/listProperties/nestingLevels/{level}"))).map(|n| {
                (
                    n.get("indentFirstLine").cloned().unwrap_or(json!({})),
                    n.get("indentStart").cloned().unwrap_or(json!({})),
                )
            });
            self.set_bullet(newline, None, indents);
        }
        Ok(())
    }
}

/// Whether a list's levels have the glyphs of a preset's: Google's "a list with a matching
/// preset" (CreateParagraphBulletsRequest), read as each level's glyph type or symbol and its
/// format, so that a list whose glyphs were changed by hand matches no preset.
fn same_glyphs(list: &Value, preset: &Value) -> bool {
    let look = |level: &Value| {
        ["glyphType", "glyphSymbol", "glyphFormat"].map(|key| level.get(key).and_then(Value::as_str).map(str::to_owned))
    };
    match (list.as_array(), preset.as_array()) {
        (Some(list), Some(preset)) => !list.is_empty() && list.iter().zip(preset).all(|(a, b)| look(a) == look(b)),
        _ => false,
    }
}

/// The named styles of a new Google document: each style's text size (in points), Docs' greys and
/// italics, and its paragraph's alignment (START for every one). Fields the editor does not read
/// (fonts, spacing) are left out.
pub fn default_named_styles() -> Value {
    let grey = |level: f64| json!({"color": {"rgbColor": {"red": level, "green": level, "blue": level}}});
    let styles: Vec<Value> = [
        ("NORMAL_TEXT", 11, None, false),
        ("TITLE", 26, None, false),
        ("SUBTITLE", 15, Some(0.4), false),
        ("HEADING_1", 20, None, false),
        ("HEADING_2", 16, None, false),
        ("HEADING_3", 14, Some(0.26), false),
        ("HEADING_4", 12, Some(0.4), false),
        ("HEADING_5", 11, Some(0.4), false),
        ("HEADING_6", 11, Some(0.4), true),
    ]
    .into_iter()
    .map(|(name, size, colour, italic)| {
        let mut text = json!({"fontSize": {"magnitude": size, "unit": "PT"}});
        if let Some(level) = colour {
            text["foregroundColor"] = grey(level);
        }
        if italic {
            text["italic"] = json!(true);
        }
        json!({
            "namedStyleType": name,
            "textStyle": text,
            "paragraphStyle": {"namedStyleType": name, "alignment": "START", "direction": "LEFT_TO_RIGHT"},
        })
    })
    .collect();
    json!({ "styles": styles })
}

/// A preset's nine nesting levels as Docs describes them in `lists` (glyphs and the indent of
/// each level: 36 points a level, the first line 18 points less).
fn preset_levels(preset: &str) -> Result<Value, Invalid> {
    let glyphs: [&str; 3] = match preset {
        "BULLET_DISC_CIRCLE_SQUARE" => ["●", "○", "■"],
        "BULLET_DIAMONDX_ARROW3D_SQUARE" => ["❖", "➢", "■"],
        "BULLET_CHECKBOX" => ["☐", "☐", "☐"],
        "BULLET_ARROW_DIAMOND_DISC" => ["➔", "◆", "●"],
        "BULLET_STAR_CIRCLE_SQUARE" => ["★", "○", "■"],
        "BULLET_ARROW3D_CIRCLE_SQUARE" => ["➢", "○", "■"],
        "BULLET_LEFTTRIANGLE_DIAMOND_DISC" => ["◄", "◆", "●"],
        "BULLET_DIAMONDX_HOLLOWDIAMOND_SQUARE" => ["❖", "◇", "■"],
        "BULLET_DIAMOND_CIRCLE_SQUARE" => ["◆", "○", "■"],
        "NUMBERED_DECIMAL_ALPHA_ROMAN" | "NUMBERED_DECIMAL_ALPHA_ROMAN_PARENS" => ["DECIMAL", "ALPHA", "ROMAN"],
        "NUMBERED_DECIMAL_NESTED" => ["DECIMAL", "DECIMAL", "DECIMAL"],
        "NUMBERED_ZERODECIMAL_ALPHA_ROMAN" => ["ZERO_DECIMAL", "ALPHA", "ROMAN"],
        "NUMBERED_UPPERALPHA_ALPHA_ROMAN" => ["UPPER_ALPHA", "ALPHA", "ROMAN"],
        "NUMBERED_UPPERROMAN_UPPERALPHA_DECIMAL" => ["UPPER_ROMAN", "UPPER_ALPHA", "DECIMAL"],
        "BULLET_GLYPH_PRESET_UNSPECIFIED" => return Err(Invalid("The bullet preset must be specified.".into())),
        other => {
            return Err(Invalid(format!(
            "Invalid value at 'bullet_preset' (type.googleapis.com/google.apps.docs.v1.BulletGlyphPreset), \"{other}\""
        )))
        }
    };
    let numbered = preset.starts_with("NUMBERED_");
    let format = if preset.ends_with("_PARENS") { "%n)" } else { "%n." };
    let levels: Vec<Value> = (0..9)
        .map(|n| {
            let glyph = glyphs[n % 3];
            let mut level = json!({
                "bulletAlignment": "START",
                "indentFirstLine": {"magnitude": 18 + 36 * n, "unit": "PT"},
                "indentStart": {"magnitude": 36 + 36 * n, "unit": "PT"},
                "startNumber": 1,
                "textStyle": {"underline": false},
            });
            if preset == "NUMBERED_DECIMAL_NESTED" {
                // 1., 1.1., 1.1.1.: each level names its parents' numbers.
                level["glyphType"] = json!(glyph);
                level["glyphFormat"] = json!((0..=n).map(|k| format!("%{k}.")).collect::<String>());
            } else if numbered {
                level["glyphType"] = json!(glyph);
                level["glyphFormat"] = json!(format.replace("%n", &format!("%{n}")));
            } else {
                level["glyphSymbol"] = json!(glyph);
                level["glyphFormat"] = json!(format!("%{n}"));
            }
            level
        })
        .collect();
    Ok(Value::Array(levels))
}

fn index_field(object: &Value, name: &str) -> Result<usize, Invalid> {
    match object.get(name) {
        // proto3 JSON omits zero.
        None => Ok(0),
        Some(v) => v
            .as_u64()
            .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
            .map(|n| n as usize)
            .ok_or_else(|| Invalid(format!("Invalid value for {name}: {v}."))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(paragraphs: &[&str]) -> SimDoc {
        let mut d = SimDoc::new("d", "t", "r0".into());
        for p in paragraphs {
            d.push_paragraph("NORMAL_TEXT", &[(p, json!({}))]);
        }
        d.finish_seed();
        d
    }

    /// The body's paragraphs as the API answers them.
    fn paragraphs(d: &SimDoc) -> Vec<Value> {
        let content = d.to_json("SUGGESTIONS_INLINE")["body"]["content"].clone();
        content.as_array().unwrap().iter().filter_map(|e| e.get("paragraph").cloned()).collect()
    }

    fn texts(d: &SimDoc) -> Vec<String> {
        paragraphs(d)
            .iter()
            .map(|p| {
                p["elements"].as_array().unwrap().iter().map(|e| e["textRun"]["content"].as_str().unwrap()).collect()
            })
            .collect()
    }

    /// Each paragraph's list id and nesting level, if it is a list item.
    fn bullets(d: &SimDoc) -> Vec<Option<(String, u64)>> {
        paragraphs(d)
            .iter()
            .map(|p| {
                let b = p.get("bullet")?;
                Some((
                    b["listId"].as_str().unwrap().to_string(),
                    b.get("nestingLevel").and_then(Value::as_u64).unwrap_or(0),
                ))
            })
            .collect()
    }

    #[test]
    fn bullets_take_their_nesting_from_leading_tabs_and_join_the_list_before() {
        let mut d = doc(&["one", "\ttwo", "\t\tthree", "four", "five"]);
        let create = |from: u64, to: u64, preset: &str| json!({"createParagraphBullets": {"range": {"startIndex": from, "endIndex": to}, "bulletPreset": preset}});
        // "one" to "three": 1..5, 5..10, 10..18 before the tabs go, 1..5, 5..9, 9..15 after.
        d.batch_update(&[create(2, 12, "NUMBERED_DECIMAL_ALPHA_ROMAN")]).unwrap();
        assert_eq!(texts(&d), ["one\n", "two\n", "three\n", "four\n", "five\n"]);
        let list = bullets(&d)[0].clone().unwrap().0;
        assert_eq!(bullets(&d)[..3], [Some((list.clone(), 0)), Some((list.clone(), 1)), Some((list.clone(), 2))]);
        assert_eq!(d.lists[&list]["listProperties"]["nestingLevels"][1]["glyphType"], "ALPHA");
        // "four" (15..20) joins the numbered list before it; a bulleted "five" makes its own.
        d.batch_update(&[create(15, 16, "NUMBERED_DECIMAL_ALPHA_ROMAN"), create(20, 21, "BULLET_DISC_CIRCLE_SQUARE")])
            .unwrap();
        let all = bullets(&d);
        assert_eq!(all[3], Some((list.clone(), 0)));
        assert_ne!(all[4].as_ref().unwrap().0, list);
        // Deleting keeps each paragraph's indent; a paragraph without a bullet is left alone.
        d.batch_update(&[json!({"deleteParagraphBullets": {"range": {"startIndex": 5, "endIndex": 21}}})]).unwrap();
        assert_eq!(bullets(&d), [Some((list, 0)), None, None, None, None]);
        let content = d.to_json("SUGGESTIONS_INLINE")["body"]["content"].clone();
        assert_eq!(content[2]["paragraph"]["paragraphStyle"]["indentStart"]["magnitude"], 72);
        // The API's refusals.
        assert!(d.batch_update(&[create(1, 2, "BULLET_GLYPH_PRESET_UNSPECIFIED")]).unwrap_err().0.contains("preset"));
        assert!(d.batch_update(&[create(1, 2, "BULLET_SQUIGGLE")]).unwrap_err().0.contains("BULLET_SQUIGGLE"));
        assert!(d.batch_update(&[create(3, 3, "BULLET_DISC_CIRCLE_SQUARE")]).is_err(), "an empty range");
    }

    #[test]
    fn a_blank_document_is_a_section_break_and_one_newline() {
        let d = SimDoc::new("d", "t", "r".into());
        let content = &d.to_json("SUGGESTIONS_INLINE")["body"]["content"];
        assert_eq!(content[0]["endIndex"], 1);
        assert!(content[0].get("startIndex").is_none());
        assert_eq!((content[1]["startIndex"].as_u64(), content[1]["endIndex"].as_u64()), (Some(1), Some(2)));
    }

    #[test]
    fn indexes_count_utf16_code_units() {
        let mut d = doc(&["a😀b"]);
        assert_eq!(d.len(), 1 + 4 + 1);
        assert!(d.batch_update(&[json!({"deleteContentRange": {"range": {"startIndex": 2, "endIndex": 3}}})]).is_err());
        d.batch_update(&[json!({"deleteContentRange": {"range": {"startIndex": 2, "endIndex": 4}}})]).unwrap();
        assert_eq!(texts(&d), vec!["ab\n"]);
    }

    #[test]
    fn the_last_newline_cannot_be_deleted_and_batches_are_atomic() {
        let mut d = doc(&["ab"]);
        let before = d.units.clone();
        let err = d
            .batch_update(&[
                json!({"insertText": {"location": {"index": 1}, "text": "x"}}),
                json!({"deleteContentRange": {"range": {"startIndex": 1, "endIndex": 5}}}),
            ])
            .unwrap_err();
        assert!(err.0.starts_with("Invalid requests[1].deleteContentRange"), "{}", err.0);
        assert_eq!(d.units, before);
    }

    #[test]
    fn requests_apply_in_order_with_shifts() {
        let mut d = doc(&["hello", "world"]);
        d.batch_update(&[
            json!({"insertText": {"location": {"index": 1}, "text": "😀 "}}),
            json!({"insertText": {"location": {"index": 9}, "text": "!"}}),
        ])
        .unwrap();
        assert_eq!(texts(&d), vec!["😀 hello!\n", "world\n"]);
    }

    #[test]
    fn tables_are_kept_whole() {
        let mut d = SimDoc::new("d", "t", "r".into());
        d.push_paragraph("NORMAL_TEXT", &[("before", json!({}))]);
        d.push_table(&[vec!["a", "b"], vec!["c", "d"]]);
        d.push_paragraph("NORMAL_TEXT", &[("after", json!({}))]);
        d.finish_seed();
        let table = &d.to_json("SUGGESTIONS_INLINE")["body"]["content"][2];
        assert_eq!(table["startIndex"], 8);
        assert_eq!(table["table"]["tableRows"][0]["startIndex"], 9);
        assert_eq!(table["table"]["tableRows"][0]["tableCells"][0]["startIndex"], 10);
        assert_eq!(table["table"]["tableRows"][0]["tableCells"][0]["content"][0]["startIndex"], 11);
        // The newline before the table, and a cell's last newline, stay.
        assert!(d.batch_update(&[json!({"deleteContentRange": {"range": {"startIndex": 7, "endIndex": 8}}})]).is_err());
        assert!(d
            .batch_update(&[json!({"deleteContentRange": {"range": {"startIndex": 11, "endIndex": 13}}})])
            .is_err());
        assert!(d.batch_update(&[json!({"insertText": {"location": {"index": 8}, "text": "x"}})]).is_err());
        // Inside a cell is fine; so is the whole table.
        d.batch_update(&[json!({"insertText": {"location": {"index": 11}, "text": "x"}})]).unwrap();
        let end = d.to_json("SUGGESTIONS_INLINE")["body"]["content"][2]["endIndex"].as_u64().unwrap() as usize;
        d.batch_update(&[json!({"deleteContentRange": {"range": {"startIndex": 8, "endIndex": end}}})]).unwrap();
        assert_eq!(texts(&d), vec!["before\n", "after\n"]);
    }

    /// Each row's cell texts.
    fn cells(d: &SimDoc) -> Vec<Vec<String>> {
        let json = d.to_json("SUGGESTIONS_INLINE");
        let table = json["body"]["content"].as_array().unwrap().iter().find(|e| e.get("table").is_some()).unwrap();
        table["table"]["tableRows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|row| {
                row["tableCells"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|c| {
                        c["content"][0]["paragraph"]["elements"][0]["textRun"]["content"]
                            .as_str()
                            .unwrap()
                            .trim_end()
                            .to_string()
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn rows_and_columns_come_and_go_beside_the_cell_named() {
        let mut d = SimDoc::new("d", "t", "r".into());
        d.push_paragraph("NORMAL_TEXT", &[("before", json!({}))]);
        d.push_table(&[vec!["a", "b"], vec!["c", "d"]]);
        d.finish_seed();
        let at =
            |row: u32, column: u32| json!({"tableStartLocation": {"index": 8}, "rowIndex": row, "columnIndex": column});
        d.batch_update(&[
            json!({"insertTableRow": {"tableCellLocation": at(0, 0), "insertBelow": true}}),
            json!({"insertTableColumn": {"tableCellLocation": at(0, 0)}}),
        ])
        .unwrap();
        assert_eq!(cells(&d), [["", "a", "b"], ["", "", ""], ["", "c", "d"]]);
        d.batch_update(&[
            json!({"deleteTableRow": {"tableCellLocation": at(1, 0)}}),
            json!({"deleteTableColumn": {"tableCellLocation": at(0, 2)}}),
        ])
        .unwrap();
        assert_eq!(cells(&d), [["", "a"], ["", "c"]]);
        let refused = |request: Value| d.clone().batch_update(&[request]).unwrap_err().0;
        assert!(refused(json!({"insertTableRow": {"tableCellLocation": {"tableStartLocation": {"index": 1}}}}))
            .contains("no table at index 1"));
        assert!(refused(json!({"deleteTableRow": {"tableCellLocation": at(2, 0)}}))
            .contains("Row index 2 is out of bounds"));
        assert!(refused(json!({"insertTableColumn": {"tableCellLocation": at(0, 2)}}))
            .contains("Column index 2 is out of bounds"));
        // Without its last row, or its last column, the table is gone.
        let mut single = SimDoc::new("d", "t", "r".into());
        single.push_paragraph("NORMAL_TEXT", &[("x", json!({}))]);
        single.push_table(&[vec!["only"]]);
        single.push_paragraph("NORMAL_TEXT", &[("y", json!({}))]);
        single.finish_seed();
        let only = json!({"tableCellLocation": {"tableStartLocation": {"index": 3}}});
        for request in [json!({"deleteTableRow": only}), json!({"deleteTableColumn": only})] {
            let mut d = single.clone();
            d.batch_update(&[request]).unwrap();
            assert_eq!(texts(&d), vec!["x\n", "y\n"]);
        }
    }

    #[test]
    fn paragraph_styles_follow_the_mask() {
        let mut d = doc(&["one", "two"]);
        d.batch_update(&[json!({"updateParagraphStyle": {"range": {"startIndex": 1, "endIndex": 2}, "paragraphStyle": {"namedStyleType": "HEADING_1"}, "fields": "namedStyleType"}})]).unwrap();
        let content = d.to_json("SUGGESTIONS_INLINE")["body"]["content"].clone();
        assert_eq!(content[1]["paragraph"]["paragraphStyle"]["namedStyleType"], "HEADING_1");
        assert_eq!(content[2]["paragraph"]["paragraphStyle"]["namedStyleType"], "NORMAL_TEXT");
        assert!(d.batch_update(&[json!({"updateParagraphStyle": {"range": {"startIndex": 1, "endIndex": 2}, "paragraphStyle": {}, "fields": ""}})]).is_err());
    }

    #[test]
    fn replace_all_text_matches_across_runs_never_across_paragraphs_in_the_first_characters_style() {
        let mut d = SimDoc::new("d", "t", "r".into());
        let (bold, plain) = (json!({"bold": true}), json!({}));
        d.push_paragraph(
            "NORMAL_TEXT",
            &[("Dear {{cus", bold.clone()), ("tomer.name}}, or {{CUSTOMER.NAME}}", plain.clone())],
        );
        d.push_paragraph("NORMAL_TEXT", &[("Bye {{customer.", plain.clone())]);
        d.push_paragraph("NORMAL_TEXT", &[("name}} 😀", plain)]);
        d.finish_seed();
        let replace = |text: &str, case: bool| json!({"replaceAllText": {"containsText": {"text": text, "matchCase": case}, "replaceText": "Zoë 😀"}});
        let replies = d.batch_update(&[replace("{{customer.name}}", true), replace("absent", true)]).unwrap();
        // proto3 JSON leaves out a zero count.
        assert_eq!(replies, [json!({"replaceAllText": {"occurrencesChanged": 1}}), json!({"replaceAllText": {}})]);
        assert_eq!(texts(&d), ["Dear Zoë 😀, or {{CUSTOMER.NAME}}\n", "Bye {{customer.\n", "name}} 😀\n"]);
        let first = &paragraphs(&d)[0]["elements"];
        assert_eq!(first[0]["textRun"]["content"], "Dear Zoë 😀", "the bold of the match's first character");
        assert_eq!(first[0]["textRun"]["textStyle"]["bold"], true);
        assert_eq!(first[1]["textRun"]["content"], ", or {{CUSTOMER.NAME}}\n");
        // Indexes follow: "Dear Zoë 😀" is 11 code units from 1.
        assert_eq!((first[0]["startIndex"].as_u64(), first[0]["endIndex"].as_u64()), (Some(1), Some(12)));
        assert_eq!(
            d.batch_update(&[replace("{{customer.NAME}}", false)]).unwrap()[0]["replaceAllText"]["occurrencesChanged"],
            1
        );
        // An empty search is refused, and nothing of the batch is applied.
        let before = d.clone();
        let refused = d.batch_update(&[replace("Bye", true), replace("", true)]).unwrap_err();
        assert!(
            refused.0.starts_with("Invalid requests[1].replaceAllText: ") && refused.0.contains("empty"),
            "{refused:?}"
        );
        assert_eq!(texts(&d), texts(&before));
    }

    #[test]
    fn replace_all_text_reaches_every_tab_or_those_named() {
        let mut d = doc(&["Hi {{x}}"]);
        d.other_tabs.push(SimTab {
            properties: json!({"tabId": "t.second", "title": "Two", "index": 1}),
            doc: doc(&["{{x}} and {{x}}"]),
        });
        let replace = |tabs: Option<Value>| {
            let mut request = json!({"containsText": {"text": "{{x}}", "matchCase": true}, "replaceText": "y"});
            if let Some(tabs) = tabs {
                request["tabsCriteria"] = json!({ "tabIds": tabs });
            }
            json!({ "replaceAllText": request })
        };
        let mut only_second = d.clone();
        let replies = only_second.batch_update(&[replace(Some(json!(["t.second"])))]).unwrap();
        assert_eq!(replies[0]["replaceAllText"]["occurrencesChanged"], 2);
        assert_eq!(texts(&only_second), ["Hi {{x}}\n"]);
        let replies = d.batch_update(&[replace(None)]).unwrap();
        assert_eq!(replies[0]["replaceAllText"]["occurrencesChanged"], 3, "every tab when none is named");
        assert_eq!(
            (texts(&d), texts(&d.other_tabs[0].doc)),
            (vec!["Hi y\n".to_string()], vec!["y and y\n".to_string()])
        );
        let refused = d.batch_update(&[replace(Some(json!(["t.nope"])))]).unwrap_err();
        assert!(refused.0.contains("The tab with ID 't.nope' does not exist."), "{refused:?}");
    }
}
