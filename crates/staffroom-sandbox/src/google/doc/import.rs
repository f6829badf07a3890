//! A document as `documents.get` returned it, taken in as the simulator keeps documents: how a
//! document fetched from the real API (`tests/contract/google/real-documents/`) opens in the
//! sandbox as Google gave it, with its list ids, levels' glyphs, named styles, looks and tabs.

use serde_json::{json, Map, Value};

use super::{Invalid, Piece, SimDoc, SimTab, Unit, BULLET, POSITIONED};

impl SimDoc {
    /// `documents.get`'s answer as a document: with `includeTabsContent=true` (every tab in
    /// `tabs`, nested ones in `childTabs`) its first tab is the content and the others are its
    /// other tabs; without, the content fields at the top. Paragraphs keep their styles, bullets
    /// and runs' looks; each non-text element (an inline image, a footnote reference, a page
    /// break) stays one index wide. A table's cells keep their paragraphs (their cells' own
    /// styles are the simulator's). Refused: a body that does not start with its section break,
    /// and elements the simulator does not keep (a table of contents, a section break inside).
    pub fn from_google(value: &Value) -> Result<SimDoc, Invalid> {
        let id = value.get("documentId").and_then(Value::as_str).unwrap_or_default();
        let title = value.get("title").and_then(Value::as_str).unwrap_or_default();
        let revision = value.get("revisionId").and_then(Value::as_str).unwrap_or_default().to_string();
        let Some(tabs) = value.get("tabs").and_then(Value::as_array) else {
            return content(id, title, revision, value);
        };
        let mut flat = Vec::new();
        flatten(tabs, &mut flat);
        let (first, others) = flat.split_first().ok_or_else(|| Invalid("The document has no tabs.".into()))?;
        let mut doc = content(id, title, revision.clone(), &first["documentTab"])?;
        for tab in others {
            let tab_doc = content(id, title, revision.clone(), &tab["documentTab"])?;
            doc.other_tabs.push(SimTab { properties: tab["tabProperties"].clone(), doc: tab_doc });
        }
        Ok(doc)
    }
}

/// Every tab in order, each nested one after its parent.
fn flatten<'a>(tabs: &'a [Value], out: &mut Vec<&'a Value>) {
    for tab in tabs {
        out.push(tab);
        if let Some(children) = tab.get("childTabs").and_then(Value::as_array) {
            flatten(children, out);
        }
    }
}

/// One tab's content (or a document's without tabs): its body, lists, named styles and objects.
fn content(id: &str, title: &str, revision: String, tab: &Value) -> Result<SimDoc, Invalid> {
    let mut doc = SimDoc::new(id, title, revision);
    let object = |key: &str| tab.get(key).and_then(Value::as_object).cloned().unwrap_or_default();
    doc.lists = object("lists");
    doc.inline_objects = object("inlineObjects");
    doc.positioned_objects = object("positionedObjects");
    doc.named_styles = tab.get("namedStyles").cloned();
    let body = tab.pointer("/body/content").and_then(Value::as_array).cloned().unwrap_or_default();
    let Some((first, rest)) = body.split_first() else {
        return Err(Invalid("The body is empty.".into()));
    };
    if first.get("sectionBreak").is_none() {
        return Err(Invalid("The body does not start with its section break.".into()));
    }
    // The blank document's empty paragraph goes: the body is the one given.
    doc.units.truncate(1);
    for element in rest {
        push_element(&mut doc, element)?;
    }
    if doc.units.last() == Some(&Unit::TableEnd) {
        return Err(Invalid("The body ends in a table; Docs ends a body with a paragraph.".into()));
    }
    Ok(doc)
}

fn push_element(doc: &mut SimDoc, element: &Value) -> Result<(), Invalid> {
    if let Some(paragraph) = element.get("paragraph") {
        push_paragraph(doc, paragraph);
        Ok(())
    } else if let Some(table) = element.get("table") {
        doc.units.push(Unit::TableStart);
        for row in table["tableRows"].as_array().into_iter().flatten() {
            doc.units.push(Unit::RowStart);
            for cell in row["tableCells"].as_array().into_iter().flatten() {
                doc.units.push(Unit::CellStart);
                for inner in cell["content"].as_array().into_iter().flatten() {
                    push_element(doc, inner)?;
                }
            }
        }
        doc.units.push(Unit::TableEnd);
        Ok(())
    } else {
        let kind = element.as_object().and_then(|o| o.keys().find(|k| !k.ends_with("Index"))).cloned();
        Err(Invalid(format!("The simulator does not keep a {} in a body.", kind.unwrap_or_default())))
    }
}

/// A paragraph: its style with its bullet and anchored objects, then its elements, the last
/// text run's newline ending it.
fn push_paragraph(doc: &mut SimDoc, paragraph: &Value) {
    let mut style: Map<String, Value> = paragraph["paragraphStyle"].as_object().cloned().unwrap_or_default();
    if let Some(bullet) = paragraph.get("bullet") {
        style.insert(BULLET.into(), bullet.clone());
    }
    if let Some(ids) = paragraph.get("positionedObjectIds") {
        style.insert(POSITIONED.into(), ids.clone());
    }
    // Each element where its indexes say: one that starts before the end of the one before it
    // repeats part of it (a fixture of a real document has a paragraph 13 units long listing
    // four runs, each with the paragraph's indexes), and is dropped.
    let mut at = 0;
    let elements: Vec<Value> = paragraph["elements"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| {
            let (start, end) = (e["startIndex"].as_u64().unwrap_or(at), e["endIndex"].as_u64().unwrap_or(at));
            let kept = start >= at;
            at = at.max(end);
            kept
        })
        .cloned()
        .collect();
    let mut texts: Vec<(String, Value, Option<Value>)> = Vec::new();
    let mut others: Vec<Option<Value>> = Vec::new();
    for element in &elements {
        match element.get("textRun") {
            Some(run) => {
                let text = run["content"].as_str().unwrap_or_default();
                // The paragraph's newline is the end of its last run: the newline unit is it.
                let text = text.strip_suffix('\n').unwrap_or(text).to_string();
                let marks: Map<String, Value> = ["suggestedInsertionIds", "suggestedDeletionIds"]
                    .iter()
                    .filter_map(|k| run.get(*k).map(|v| (k.to_string(), v.clone())))
                    .collect();
                let mark = (!marks.is_empty()).then_some(Value::Object(marks));
                texts.push((text, run.get("textStyle").cloned().unwrap_or_else(|| json!({})), mark));
                others.push(None);
            }
            None => {
                let mut kept = element.as_object().cloned().unwrap_or_default();
                kept.remove("startIndex");
                kept.remove("endIndex");
                others.push(Some(Value::Object(kept)));
            }
        }
    }
    let mut text = texts.iter();
    let pieces: Vec<Piece> = others
        .iter()
        .map(|other| match other {
            Some(element) => Piece::Element(element.clone()),
            None => {
                let (content, style, mark) = text.next().expect("one per text run");
                match mark {
                    Some(mark) => Piece::Suggested(content, style.clone(), mark.clone()),
                    None => Piece::Text(content, style.clone()),
                }
            }
        })
        .collect();
    doc.push_pieces(Value::Object(style), &pieces);
}
