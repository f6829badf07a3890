//! The Docs edit requests `PATCH /api/docs/documents/{id}` takes (the discovery document's
//! `Request` kinds Staffroom sends): each declared once, with its bounds, so that its schema, its
//! reading and what goes to Google all come from the declaration. What a schema cannot say (a
//! range ending after it starts, a style named in the mask) is a rule of the request itself.

use serde::Serialize;
use serde_json::{json, Value};
use staffroom_base::error::{FieldError, Result};
use staffroom_base::request::{Fields, Input, Request};
use staffroom_macros::request;

use super::model::NAMED_STYLES;

/// Where an insertion goes: a character's index in the document (1 is its start).
#[request(only = "is not a field of this request")]
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Location {
    #[field(min = 1, max = 2147483647)]
    pub index: u32,
}

/// A span of the document: from `startIndex` up to, not including, `endIndex`.
#[request(only = "is not a field of this request", check = Range::ends_after_start)]
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Range {
    #[field(min = 1, max = 2147483647)]
    pub start_index: u32,
    #[field(min = 1, max = 2147483647)]
    pub end_index: u32,
}

impl Range {
    fn ends_after_start(&self) -> Vec<FieldError> {
        if self.end_index > self.start_index {
            Vec::new()
        } else {
            vec![FieldError::new("endIndex", "must be greater than startIndex")]
        }
    }
}

/// `insertText`: a non-empty text at an index, without what Google strips from inserted text
/// (U+0000–U+0008, U+000C–U+001F, the Private Use Area: `model::is_stripped_by_google`).
#[request(only = "is not a field of this request")]
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct InsertText {
    #[field(
        pattern = "^[^\\x00-\\x08\\x0c-\\x1f\\ue000-\\uf8ff]+$",
        min_length = 1,
        message = "must not contain a character Google strips (U+0000 to U+0008, U+000C to U+001F, private use)"
    )]
    pub text: String,
    #[field(nested)]
    #[schema(inline)]
    pub location: Location,
}

/// `deleteContentRange`.
#[request(only = "is not a field of this request")]
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DeleteContentRange {
    #[field(nested)]
    #[schema(inline)]
    pub range: Range,
}

/// The alignments a paragraph may take (Docs' `ParagraphStyle.alignment`, but "unspecified").
pub const ALIGNMENTS: &[&str] = &["START", "CENTER", "END", "JUSTIFIED"];

/// The writable fields of a `ParagraphStyle` (the discovery document's). A named style and an
/// alignment are checked here; the others go to Docs as given, which checks them.
#[request(only = "is not a paragraph style field", check = ParagraphStyle::names_a_field)]
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ParagraphStyle {
    #[field(one_of = NAMED_STYLES)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub named_style_type: Option<String>,
    #[field(one_of = ALIGNMENTS)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alignment: Option<String>,
    #[field(any)]
    #[ts(type = "unknown")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line_spacing: Option<Value>,
    #[field(any)]
    #[ts(type = "unknown")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub direction: Option<Value>,
    #[field(any)]
    #[ts(type = "unknown")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spacing_mode: Option<Value>,
    #[field(any)]
    #[ts(type = "unknown")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub space_above: Option<Value>,
    #[field(any)]
    #[ts(type = "unknown")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub space_below: Option<Value>,
    #[field(any)]
    #[ts(type = "unknown")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub border_between: Option<Value>,
    #[field(any)]
    #[ts(type = "unknown")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub border_top: Option<Value>,
    #[field(any)]
    #[ts(type = "unknown")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub border_bottom: Option<Value>,
    #[field(any)]
    #[ts(type = "unknown")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub border_left: Option<Value>,
    #[field(any)]
    #[ts(type = "unknown")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub border_right: Option<Value>,
    #[field(any)]
    #[ts(type = "unknown")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub indent_first_line: Option<Value>,
    #[field(any)]
    #[ts(type = "unknown")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub indent_start: Option<Value>,
    #[field(any)]
    #[ts(type = "unknown")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub indent_end: Option<Value>,
    #[field(any)]
    #[ts(type = "unknown")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keep_lines_together: Option<Value>,
    #[field(any)]
    #[ts(type = "unknown")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keep_with_next: Option<Value>,
    #[field(any)]
    #[ts(type = "unknown")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub avoid_widow_and_orphan: Option<Value>,
    #[field(any)]
    #[ts(type = "unknown")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shading: Option<Value>,
    #[field(any)]
    #[ts(type = "unknown")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page_break_before: Option<Value>,
}

impl ParagraphStyle {
    /// Every field it declares, by Docs' name for it (for the contract test against Google's
    /// discovery document).
    pub fn declared_fields() -> Vec<String> {
        let schema = serde_json::to_value(<ParagraphStyle as utoipa::PartialSchema>::schema()).unwrap_or_default();
        schema["properties"].as_object().map(|fields| fields.keys().cloned().collect()).unwrap_or_default()
    }

    fn names_a_field(&self) -> Vec<FieldError> {
        if self.fields().is_empty() {
            vec![FieldError::new("", "must be an object with at least one style field")]
        } else {
            Vec::new()
        }
    }

    /// The fields it sets, as Docs' `fields` mask names them.
    fn fields(&self) -> Vec<String> {
        match serde_json::to_value(self) {
            Ok(Value::Object(set)) => set.keys().cloned().collect(),
            _ => Vec::new(),
        }
    }
}

/// A paragraph style's schema, which sets at least one field (`minProperties`, which utoipa's
/// derive does not write as such).
fn paragraph_style_schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    use utoipa::openapi::schema::Schema;
    use utoipa::openapi::RefOr;
    match <ParagraphStyle as utoipa::PartialSchema>::schema() {
        RefOr::T(Schema::Object(mut style)) => {
            style.min_properties = Some(1);
            RefOr::T(Schema::Object(style))
        }
        other => other,
    }
}

/// `updateParagraphStyle`: a range and the style fields to set. `fields` is derived from the
/// style's own; a caller's mask is ignored.
#[request(only = "is not a field of this request")]
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UpdateParagraphStyle {
    #[field(nested)]
    #[schema(inline)]
    pub range: Range,
    #[field(nested)]
    #[schema(schema_with = paragraph_style_schema)]
    pub paragraph_style: ParagraphStyle,
    #[field(text)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fields: Option<String>,
}

/// A link's target.
#[request(only = "is not a field of this request")]
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Link {
    #[field(
        // No white space or control characters (Unicode's white space named, as JSON Schema's
        // and Rust's `\s` differ).
        pattern = "^[^\\x00-\\x20\\x7f-\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]+$",
        min_length = 1,
        max_length = 2048,
        message = "must be a URL of at most 2048 characters without spaces"
    )]
    pub url: String,
}

/// The character styles `updateTextStyle` may set: the editor's marks.
#[request(only = "is not a field of this request")]
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TextStyle {
    #[field(flag)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bold: Option<bool>,
    #[field(flag)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub italic: Option<bool>,
    #[field(flag)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub underline: Option<bool>,
    #[field(flag)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strikethrough: Option<bool>,
    #[field(nested)]
    #[schema(inline)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link: Option<Link>,
}

/// `updateTextStyle`: a range, the marks to set (`fields`) and their values; a mark named
/// without a value is reset, as Google does (how a link comes off).
#[request(only = "is not a field of this request", check = UpdateTextStyle::names_what_it_sets)]
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UpdateTextStyle {
    #[field(nested)]
    #[schema(inline)]
    pub range: Range,
    #[field(nested)]
    #[schema(inline)]
    pub text_style: TextStyle,
    #[field(
        pattern = "^(bold|italic|underline|strikethrough|link)(,(bold|italic|underline|strikethrough|link))*$",
        message = "must name the fields to set, separated by commas, of bold, italic, underline, strikethrough, link"
    )]
    pub fields: String,
}

impl UpdateTextStyle {
    /// Each mark set is named in `fields`.
    fn names_what_it_sets(&self) -> Vec<FieldError> {
        let named: Vec<&str> = self.fields.split(',').collect();
        let set = match serde_json::to_value(&self.text_style) {
            Ok(Value::Object(set)) => set,
            _ => return Vec::new(),
        };
        set.keys()
            .filter(|mark| !named.contains(&mark.as_str()))
            .map(|mark| FieldError::new(format!("textStyle.{mark}"), "is not named in fields"))
            .collect()
    }
}

/// The bullet presets of `createParagraphBullets` (the discovery document's `BulletGlyphPreset`,
/// but its "unspecified").
pub const BULLET_PRESETS: &[&str] = &[
    "BULLET_DISC_CIRCLE_SQUARE",
    "BULLET_DIAMONDX_ARROW3D_SQUARE",
    "BULLET_CHECKBOX",
    "BULLET_ARROW_DIAMOND_DISC",
    "BULLET_STAR_CIRCLE_SQUARE",
    "BULLET_ARROW3D_CIRCLE_SQUARE",
    "BULLET_LEFTTRIANGLE_DIAMOND_DISC",
    "BULLET_DIAMONDX_HOLLOWDIAMOND_SQUARE",
    "BULLET_DIAMOND_CIRCLE_SQUARE",
    "NUMBERED_DECIMAL_ALPHA_ROMAN",
    "NUMBERED_DECIMAL_ALPHA_ROMAN_PARENS",
    "NUMBERED_DECIMAL_NESTED",
    "NUMBERED_UPPERALPHA_ALPHA_ROMAN",
    "NUMBERED_UPPERROMAN_UPPERALPHA_DECIMAL",
    "NUMBERED_ZERODECIMAL_ALPHA_ROMAN",
];

/// `createParagraphBullets`: a range and one of the presets.
#[request(only = "is not a field of this request")]
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateParagraphBullets {
    #[field(nested)]
    #[schema(inline)]
    pub range: Range,
    #[field(one_of = BULLET_PRESETS)]
    pub bullet_preset: String,
}

/// `deleteParagraphBullets`.
#[request(only = "is not a field of this request")]
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DeleteParagraphBullets {
    #[field(nested)]
    #[schema(inline)]
    pub range: Range,
}

/// `insertTable`: a number of rows and of columns (at most `tables::MAX_NEW_TABLE_SIDE`), and
/// the index of a paragraph to put it in.
#[request(only = "is not a field of this request")]
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct InsertTable {
    #[field(min = 1, max = 100)]
    pub rows: u32,
    #[field(min = 1, max = 100)]
    pub columns: u32,
    #[field(nested)]
    #[schema(inline)]
    pub location: Location,
}

/// A table's cell: the table's start index, a zero-based row and column (zero when absent, as
/// proto3 JSON leaves them out).
#[request(only = "is not a field of this request")]
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TableCellLocation {
    #[field(nested)]
    #[schema(inline)]
    pub table_start_location: Location,
    #[field(min = 0, max = 2147483647)]
    #[serde(serialize_with = "zero_when_absent")]
    pub row_index: Option<u32>,
    #[field(min = 0, max = 2147483647)]
    #[serde(serialize_with = "zero_when_absent")]
    pub column_index: Option<u32>,
}

fn zero_when_absent<S: serde::Serializer>(value: &Option<u32>, serializer: S) -> std::result::Result<S::Ok, S::Error> {
    serializer.serialize_u32(value.unwrap_or(0))
}

/// `insertTableRow`: beside a cell, above it unless `insertBelow`.
#[request(only = "is not a field of this request")]
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InsertTableRow {
    #[field(nested)]
    #[schema(inline)]
    pub table_cell_location: TableCellLocation,
    #[field(flag)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub insert_below: Option<bool>,
}

/// `insertTableColumn`: beside a cell, left of it unless `insertRight`.
#[request(only = "is not a field of this request")]
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InsertTableColumn {
    #[field(nested)]
    #[schema(inline)]
    pub table_cell_location: TableCellLocation,
    #[field(flag)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub insert_right: Option<bool>,
}

/// `deleteTableRow`: the row of a cell.
#[request(only = "is not a field of this request")]
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DeleteTableRow {
    #[field(nested)]
    #[schema(inline)]
    pub table_cell_location: TableCellLocation,
}

/// `deleteTableColumn`: the column of a cell.
#[request(only = "is not a field of this request")]
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DeleteTableColumn {
    #[field(nested)]
    #[schema(inline)]
    pub table_cell_location: TableCellLocation,
}

/// Declares the edit requests once: the tagged union (`{"insertText": {...}}`, exactly one
/// name), its reading, its schema and what goes to Google.
macro_rules! edit_requests {
    ($($variant:ident = $name:literal),* $(,)?) => {
        /// One edit request: exactly one of the kinds, under its name.
        #[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
        pub enum EditRequest {
            // Boxed: a paragraph style is far larger than the rest.
            $(#[serde(rename = $name)] $variant(Box<$variant>)),*
        }

        /// The kinds' names, in the schema's order.
        pub const EDIT_REQUESTS: &[&str] = &[$($name),*];

        impl Request for EditRequest {
            fn from_input(input: &Input) -> Result<Self> {
                let mut fields = Fields::new(input);
                let names: Vec<&String> = input.keys().collect();
                let read = match names.as_slice() {
                    [name] => match name.as_str() {
                        $($name => {
                            let read = fields.nested::<$variant>($name);
                            if read.is_none() && !fields.has_problem($name) {
                                // `null` is no request at all.
                                fields.problem($name, "must be an object");
                            }
                            read.map(|request| EditRequest::$variant(Box::new(request)))
                        })*
                        other => {
                            fields.problem(other, format!("is not supported; use {}", EDIT_REQUESTS.join(", ")));
                            None
                        }
                    },
                    _ => {
                        fields.problem("", format!("must hold exactly one operation: {}", EDIT_REQUESTS.join(", ")));
                        None
                    }
                };
                fields.finish(|| read.expect("read when nothing was refused"))
            }
        }

        impl utoipa::PartialSchema for EditRequest {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                use utoipa::openapi::schema::{AdditionalProperties, ObjectBuilder, OneOfBuilder, Type};
                let one = |name: &str, body: utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>| {
                    ObjectBuilder::new()
                        .schema_type(Type::Object)
                        .additional_properties(Some(AdditionalProperties::FreeForm(false)))
                        .property(name, body)
                        .required(name)
                        .min_properties(Some(1))
                        .max_properties(Some(1))
                };
                OneOfBuilder::new()
                    $(.item(one($name, <$variant as utoipa::PartialSchema>::schema())))*
                    .into()
            }
        }

        impl utoipa::ToSchema for EditRequest {}
    };
}

edit_requests! {
    InsertText = "insertText",
    DeleteContentRange = "deleteContentRange",
    UpdateParagraphStyle = "updateParagraphStyle",
    UpdateTextStyle = "updateTextStyle",
    CreateParagraphBullets = "createParagraphBullets",
    DeleteParagraphBullets = "deleteParagraphBullets",
    InsertTable = "insertTable",
    InsertTableRow = "insertTableRow",
    InsertTableColumn = "insertTableColumn",
    DeleteTableRow = "deleteTableRow",
    DeleteTableColumn = "deleteTableColumn",
}

impl EditRequest {
    /// The request as Docs' `batchUpdate` takes it.
    pub fn to_google(&self) -> Value {
        match self {
            // The mask is the style's own fields, whatever the caller sent.
            EditRequest::UpdateParagraphStyle(update) => json!({"updateParagraphStyle": {
                "range": update.range,
                "paragraphStyle": update.paragraph_style,
                "fields": update.paragraph_style.fields().join(","),
            }}),
            other => serde_json::to_value(other).unwrap_or(Value::Null),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::requests::PatchDocumentRequest;
    use staffroom_base::error::Error;

    /// A PATCH body read as the operation reads it: the requests as they go to Google.
    fn read(body: &Value) -> Result<Vec<Value>> {
        let mut input = body.as_object().expect("an object").clone();
        input.insert("id".into(), json!("doc-1"));
        PatchDocumentRequest::from_input(&input).map(|patch| patch.google_requests())
    }

    fn fields(err: Error) -> Vec<String> {
        err.details.unwrap()["fields"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["field"].as_str().unwrap().to_string())
            .collect()
    }

    #[test]
    fn patch_requests_are_checked_before_sending() {
        let body = json!({"requests": [
            {"insertText": {"text": "", "location": {"index": 0}}},
            {"deleteContentRange": {"range": {"startIndex": 5, "endIndex": 5}}},
            {"insertText": {"text": "a", "location": {"index": 1}}, "deleteContentRange": {"range": {"startIndex": 1, "endIndex": 2}}},
            {"updateParagraphStyle": {"range": {"startIndex": 1, "endIndex": 2}, "paragraphStyle": {"namedStyleType": "HEADING_9"}}},
            {"replaceAllText": {}},
            {"updateParagraphStyle": {"range": {"startIndex": 1, "endIndex": 2}, "paragraphStyle": {"alignment": "LEFT"}}}
        ]});
        let names = fields(read(&body).unwrap_err());
        assert_eq!(
            names,
            vec![
                "requests[0].insertText.text",
                "requests[0].insertText.location.index",
                "requests[1].deleteContentRange.range.endIndex",
                "requests[2]",
                "requests[3].updateParagraphStyle.paragraphStyle.namedStyleType",
                "requests[4].replaceAllText",
                "requests[5].updateParagraphStyle.paragraphStyle.alignment",
            ]
        );
        let ok = read(&json!({"requests": [{"updateParagraphStyle": {"range": {"startIndex": 1, "endIndex": 3}, "paragraphStyle": {"namedStyleType": "HEADING_1", "alignment": "CENTER"}}}]})).unwrap();
        assert_eq!(ok[0]["updateParagraphStyle"]["fields"], "alignment,namedStyleType");
    }

    #[test]
    fn list_requests_name_a_range_and_a_known_preset() {
        let body = json!({"requests": [
            {"createParagraphBullets": {"range": {"startIndex": 1, "endIndex": 4}, "bulletPreset": "BULLET_GLYPH_PRESET_UNSPECIFIED"}},
            {"createParagraphBullets": {"range": {"startIndex": 4, "endIndex": 1}, "bulletPreset": "BULLET_DISC_CIRCLE_SQUARE"}},
            {"deleteParagraphBullets": {"range": {"startIndex": 1, "endIndex": 4}, "listId": "kix.1"}}
        ]});
        assert_eq!(
            fields(read(&body).unwrap_err()),
            vec![
                "requests[0].createParagraphBullets.bulletPreset",
                "requests[1].createParagraphBullets.range.endIndex",
                "requests[2].deleteParagraphBullets.listId",
            ]
        );
        let ok = read(&json!({"requests": [
            {"createParagraphBullets": {"range": {"startIndex": 1, "endIndex": 4}, "bulletPreset": "NUMBERED_DECIMAL_NESTED"}},
            {"deleteParagraphBullets": {"range": {"startIndex": 2, "endIndex": 3}}}
        ]}))
        .unwrap();
        assert_eq!(ok[0]["createParagraphBullets"]["bulletPreset"], "NUMBERED_DECIMAL_NESTED");
        assert_eq!(ok[1]["deleteParagraphBullets"]["range"]["endIndex"], 3);
    }

    #[test]
    fn table_requests_name_a_table_s_start_and_a_cell() {
        let body = json!({"requests": [
            {"insertTableRow": {"tableCellLocation": {"tableStartLocation": {"index": 0}, "rowIndex": 1}}},
            {"insertTableColumn": {"tableCellLocation": {"tableStartLocation": {"index": 9}, "columnIndex": -1}, "insertRight": "yes"}},
            {"deleteTableRow": {"tableCellLocation": {"tableStartLocation": {"index": 9}}, "insertBelow": true}},
            {"deleteTableColumn": {}}
        ]});
        assert_eq!(
            fields(read(&body).unwrap_err()),
            vec![
                "requests[0].insertTableRow.tableCellLocation.tableStartLocation.index",
                "requests[1].insertTableColumn.tableCellLocation.columnIndex",
                "requests[1].insertTableColumn.insertRight",
                "requests[2].deleteTableRow.insertBelow",
                "requests[3].deleteTableColumn.tableCellLocation",
            ]
        );
        let ok = read(&json!({"requests": [
            {"insertTableRow": {"tableCellLocation": {"tableStartLocation": {"index": 9}, "rowIndex": 2}, "insertBelow": true}},
            {"deleteTableColumn": {"tableCellLocation": {"tableStartLocation": {"index": 9}}}}
        ]}))
        .unwrap();
        assert_eq!(
            ok[0],
            json!({"insertTableRow": {"tableCellLocation": {"tableStartLocation": {"index": 9}, "rowIndex": 2, "columnIndex": 0}, "insertBelow": true}})
        );
        assert_eq!(ok[1]["deleteTableColumn"]["tableCellLocation"]["columnIndex"], 0);
    }

    #[test]
    fn character_styles_are_the_editor_s_marks_named_in_the_mask() {
        let body = json!({"requests": [
            {"updateTextStyle": {"range": {"startIndex": 1, "endIndex": 4}, "textStyle": {"bold": "yes"}, "fields": "bold"}},
            {"updateTextStyle": {"range": {"startIndex": 1, "endIndex": 4}, "textStyle": {"italic": true}, "fields": "bold"}},
            {"updateTextStyle": {"range": {"startIndex": 1, "endIndex": 4}, "textStyle": {}, "fields": "fontSize"}},
            {"updateTextStyle": {"range": {"startIndex": 1, "endIndex": 4}, "textStyle": {"link": {"url": "a b"}}, "fields": "link"}},
        ]});
        assert_eq!(
            fields(read(&body).unwrap_err()),
            vec![
                "requests[0].updateTextStyle.textStyle.bold",
                "requests[1].updateTextStyle.textStyle.italic",
                "requests[2].updateTextStyle.fields",
                "requests[3].updateTextStyle.textStyle.link.url",
            ]
        );
        // A field named without a value is reset: how a link comes off.
        let ok = read(&json!({"requests": [{"updateTextStyle": {
            "range": {"startIndex": 1, "endIndex": 4},
            "textStyle": {"underline": false},
            "fields": "underline,link"
        }}]}))
        .unwrap();
        assert_eq!(ok[0]["updateTextStyle"]["fields"], "underline,link");
        assert_eq!(ok[0]["updateTextStyle"]["textStyle"], json!({"underline": false}));
    }


    #[test]
    fn a_new_table_s_side_is_the_tables_own_limit() {
        assert_eq!(super::super::tables::MAX_NEW_TABLE_SIDE, 100);
    }

    #[test]
    fn the_alignments_are_the_editor_s() {
        for name in ALIGNMENTS {
            assert!(serde_json::from_value::<super::super::model::Alignment>(json!(name)).is_ok(), "{name}");
        }
    }
}
