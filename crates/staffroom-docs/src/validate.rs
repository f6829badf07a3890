//! Validation of the document area's queries and bodies: every bad field is named at once, and
//! nothing reaches Google before the whole input has passed.

use serde::Serialize;
use serde_json::{json, Map, Value};

use super::model::{text_problem, Alignment, Permission, NAMED_STYLES};
use staffroom_auth::validate::email_problem;
use staffroom_base::error::{Error, FieldError, Result};

/// A Drive id: letters, digits, `-` and `_` (Drive's ids are base64url-like). Anything else is
/// refused, so an id can never change the meaning of a Drive query or a URL path.
pub fn is_drive_id(id: &str) -> bool {
    (1..=200).contains(&id.len()) && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// Checks a path id.
pub fn document_id(id: &str) -> Result<String> {
    if is_drive_id(id) {
        Ok(id.to_string())
    } else {
        Err(Error::invalid_field("id", "must be a Google document id (letters, digits, - or _)"))
    }
}

/// A Drive query string literal: single quotes, with `\` and `'` escaped.
pub fn quote(value: &str) -> String {
    format!("'{}'", value.replace('\\', "\\\\").replace('\'', "\\'"))
}

/// The Drive query of a list: Google Docs, not trashed, optionally in one folder and with a
/// name holding `search` (Drive's `contains` matches the start of words in a name).
pub fn drive_query(folder_id: Option<&str>, search: Option<&str>) -> String {
    let mut q = format!("mimeType = {} and trashed = false", quote(super::model::DOC_MIME));
    if let Some(folder) = folder_id {
        q.push_str(&format!(" and {} in parents", quote(folder)));
    }
    if let Some(search) = search {
        q.push_str(&format!(" and name contains {}", quote(search)));
    }
    q
}

fn object<'a>(body: &'a Value, errors: &mut Vec<FieldError>) -> Option<&'a Map<String, Value>> {
    match body.as_object() {
        Some(o) => Some(o),
        None => {
            errors.push(FieldError::new("body", "must be a JSON object"));
            None
        }
    }
}

fn unknown_fields(object: &Map<String, Value>, known: &[&str], prefix: &str, errors: &mut Vec<FieldError>) {
    for key in object.keys() {
        if !known.contains(&key.as_str()) {
            errors.push(FieldError::new(format!("{prefix}{key}"), "is not a field of this request"));
        }
    }
}

/// `POST /api/docs/documents`: a new document.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateDocument {
    /// 1 to 255 characters, no control characters.
    #[schema(
        min_length = 1,
        max_length = 255,
        pattern = "^[^\\x00-\\x1f\\x7f-\\x9f]*[^\\s\\x00-\\x1f\\x7f-\\x9f][^\\x00-\\x1f\\x7f-\\x9f]*$"
    )]
    pub name: String,
    /// Its first text (at most 512 KiB); newlines start paragraphs. Nothing Google strips.
    #[schema(max_length = 524288, pattern = "^[^\\x00-\\x08\\x0c-\\x1f\\ue000-\\uf8ff]*$")]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub content: Option<String>,
    /// The Drive folder to create it in (My Drive when absent).
    #[schema(pattern = "^[A-Za-z0-9_-]{1,200}$")]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub folder_id: Option<String>,
    /// Who it is shared with (at most 50 entries).
    #[schema(value_type = Vec<NewPermission>, max_items = 50, nullable)]
    #[ts(as = "Vec<NewPermission>")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub permissions: Vec<Permission>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub send_notification_email: Option<bool>,
}

/// A permission to add, by `type`: a user (who may become the owner, as an ownership transfer)
/// or a group by `emailAddress`, a `domain`, or anyone with the link.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum NewPermission {
    #[serde(rename_all = "camelCase")]
    User {
        role: UserRole,
        email_address: String,
    },
    #[serde(rename_all = "camelCase")]
    Group {
        role: SharedRole,
        email_address: String,
    },
    Domain {
        role: SharedRole,
        domain: String,
    },
    Anyone {
        role: SharedRole,
    },
}

/// Written out rather than derived: each kind of entry takes exactly its own fields
/// (`additionalProperties: false`), as [`permission`] checks.
impl utoipa::PartialSchema for NewPermission {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{AdditionalProperties, ObjectBuilder, OneOfBuilder, Type};
        let text = || ObjectBuilder::new().schema_type(Type::String);
        let roles = |names: &[&str]| text().enum_values(Some(names.to_vec()));
        // Internationalized addresses too, as `email_problem` takes them.
        let email = || text().format(Some(utoipa::openapi::SchemaFormat::Custom("idn-email".into()))).max_length(Some(254));
        let domain = text().max_length(Some(253)).pattern(Some(
            "^([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)+[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$",
        ));
        let entry = |kind: &str, role: &[&str]| {
            ObjectBuilder::new()
                .schema_type(Type::Object)
                .additional_properties(Some(AdditionalProperties::FreeForm(false)))
                .property("type", text().enum_values(Some([kind])))
                .required("type")
                .property("role", roles(role))
                .required("role")
        };
        let shared: &[&str] = &["writer", "commenter", "reader"];
        OneOfBuilder::new()
            .item(
                entry("user", &["owner", "writer", "commenter", "reader"])
                    .property("emailAddress", email())
                    .required("emailAddress"),
            )
            .item(entry("group", shared).property("emailAddress", email()).required("emailAddress"))
            .item(entry("domain", shared).property("domain", domain).required("domain"))
            .item(entry("anyone", shared))
            .into()
    }
}

impl utoipa::ToSchema for NewPermission {}

/// What a user may be given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
pub enum UserRole {
    Owner,
    Writer,
    Commenter,
    Reader,
}

/// What a group, a domain or anyone may be given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
pub enum SharedRole {
    Writer,
    Commenter,
    Reader,
}

/// Largest `content` accepted on create.
pub const MAX_CONTENT_BYTES: usize = 512 * 1024;

pub fn create_document(body: &Value) -> Result<CreateDocument> {
    let mut errors = Vec::new();
    let Some(object) = object(body, &mut errors) else { return Err(Error::invalid(errors)) };
    unknown_fields(object, &["name", "content", "folderId", "permissions", "sendNotificationEmail"], "", &mut errors);
    let name = match object.get("name") {
        Some(Value::String(s)) if s.trim().is_empty() => {
            errors.push(FieldError::new("name", "must not be blank"));
            String::new()
        }
        Some(Value::String(s)) if s.chars().count() > 255 => {
            errors.push(FieldError::new("name", "must be at most 255 characters"));
            String::new()
        }
        Some(Value::String(s)) if s.chars().any(char::is_control) => {
            errors.push(FieldError::new("name", "must not contain control characters"));
            String::new()
        }
        Some(Value::String(s)) => s.clone(),
        Some(_) => {
            errors.push(FieldError::new("name", "must be a string"));
            String::new()
        }
        None => {
            errors.push(FieldError::new("name", "is required"));
            String::new()
        }
    };
    let content = match object.get("content") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s.len() > MAX_CONTENT_BYTES => {
            errors.push(FieldError::new("content", format!("must be at most {} KiB", MAX_CONTENT_BYTES / 1024)));
            None
        }
        Some(Value::String(s)) => match text_problem(s, true) {
            Some((_, problem)) => {
                errors.push(FieldError::new("content", problem));
                None
            }
            None => Some(s.clone()).filter(|s| !s.is_empty()),
        },
        Some(_) => {
            errors.push(FieldError::new("content", "must be a string"));
            None
        }
    };
    let folder_id = match object.get("folderId") {
        None | Some(Value::Null) => None,
        Some(Value::String(id)) if is_drive_id(id) => Some(id.clone()),
        Some(_) => {
            errors.push(FieldError::new("folderId", "must be a Drive folder id (letters, digits, - or _)"));
            None
        }
    };
    let send_notification_email = notify_flag(object, &mut errors);
    let permissions = match object.get("permissions") {
        None | Some(Value::Null) => Vec::new(),
        Some(value) => permission_list(value, "permissions", true, &mut errors),
    };
    if !errors.is_empty() {
        return Err(Error::invalid(errors));
    }
    Ok(CreateDocument { name, content, folder_id, permissions, send_notification_email })
}

fn notify_flag(object: &Map<String, Value>, errors: &mut Vec<FieldError>) -> Option<bool> {
    match object.get("sendNotificationEmail") {
        None | Some(Value::Null) => None,
        Some(Value::Bool(b)) => Some(*b),
        Some(_) => {
            errors.push(FieldError::new("sendNotificationEmail", "must be true or false"));
            None
        }
    }
}

/// A validated `POST /documents/:id/permissions`.
#[derive(Debug, Clone, PartialEq)]
pub struct Share {
    pub permissions: Vec<Permission>,
    pub send_notification_email: Option<bool>,
}

pub fn share(body: &Value) -> Result<Share> {
    let mut errors = Vec::new();
    let Some(object) = object(body, &mut errors) else { return Err(Error::invalid(errors)) };
    unknown_fields(object, &["permissions", "sendNotificationEmail"], "", &mut errors);
    let send_notification_email = notify_flag(object, &mut errors);
    let permissions = match object.get("permissions") {
        Some(value) => permission_list(value, "permissions", false, &mut errors),
        None => {
            errors.push(FieldError::new("permissions", "is required"));
            Vec::new()
        }
    };
    if !errors.is_empty() {
        return Err(Error::invalid(errors));
    }
    Ok(Share { permissions, send_notification_email })
}

/// Most permission entries in one request.
pub const MAX_PERMISSIONS: usize = 50;

fn permission_list(value: &Value, field: &str, may_be_empty: bool, errors: &mut Vec<FieldError>) -> Vec<Permission> {
    let Some(items) = value.as_array() else {
        errors.push(FieldError::new(field, "must be an array of permission entries"));
        return Vec::new();
    };
    if items.is_empty() && !may_be_empty {
        errors.push(FieldError::new(field, "must name at least one permission"));
    }
    if items.len() > MAX_PERMISSIONS {
        errors.push(FieldError::new(field, format!("must have at most {MAX_PERMISSIONS} entries")));
        return Vec::new();
    }
    items.iter().enumerate().filter_map(|(i, item)| permission(item, &format!("{field}[{i}]"), errors)).collect()
}

fn is_domain(d: &str) -> bool {
    d.len() <= 253
        && d.contains('.')
        && d.split('.').all(|label| {
            (1..=63).contains(&label.len())
                && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                && !label.starts_with('-')
                && !label.ends_with('-')
        })
}

/// One permission entry: `role` owner/writer/commenter/reader (Google's Owner, Editor, Commenter
/// and Viewer), `type` user/group/domain/anyone,
/// `emailAddress` for user and group only, `domain` for domain only, `owner` for a user only.
pub fn permission(item: &Value, prefix: &str, errors: &mut Vec<FieldError>) -> Option<Permission> {
    let before = errors.len();
    let Some(object) = item.as_object() else {
        errors.push(FieldError::new(prefix, "must be an object with role and type"));
        return None;
    };
    unknown_fields(object, &["role", "type", "emailAddress", "domain"], &format!("{prefix}."), errors);
    let string = |name: &str| object.get(name).and_then(Value::as_str);
    let role = string("role").unwrap_or_default();
    if !["owner", "writer", "commenter", "reader"].contains(&role) {
        errors.push(FieldError::new(format!("{prefix}.role"), "must be owner, writer, commenter or reader"));
    }
    let kind = string("type").unwrap_or_default();
    if !["user", "group", "domain", "anyone"].contains(&kind) {
        errors.push(FieldError::new(format!("{prefix}.type"), "must be user, group, domain or anyone"));
    }
    let email = object.get("emailAddress");
    match (kind, email) {
        ("user" | "group", Some(Value::String(e))) => {
            if let Some(problem) = email_problem(e) {
                errors.push(FieldError::new(format!("{prefix}.emailAddress"), problem));
            }
        }
        ("user" | "group", _) => {
            errors.push(FieldError::new(format!("{prefix}.emailAddress"), format!("is required for type {kind}")))
        }
        ("domain" | "anyone", Some(_)) => {
            errors.push(FieldError::new(format!("{prefix}.emailAddress"), format!("must be absent for type {kind}")))
        }
        _ => {}
    }
    let domain = object.get("domain");
    match (kind, domain) {
        ("domain", Some(Value::String(d))) if is_domain(d) => {}
        ("domain", _) => {
            errors.push(FieldError::new(format!("{prefix}.domain"), "must be a domain name such as example.com"))
        }
        (_, Some(_)) => {
            errors.push(FieldError::new(format!("{prefix}.domain"), "is only for type domain"));
        }
        _ => {}
    }
    if role == "owner" && !kind.is_empty() && kind != "user" {
        errors.push(FieldError::new(format!("{prefix}.role"), "owner is only for a user (an ownership transfer)"));
    }
    if errors.len() > before {
        return None;
    }
    Some(Permission {
        id: None,
        role: role.to_string(),
        kind: kind.to_string(),
        email_address: string("emailAddress").map(str::to_string),
        domain: string("domain").map(str::to_string),
    })
}

/// The writable fields of a ParagraphStyle (the discovery document's `ParagraphStyle`).
pub const PARAGRAPH_STYLE_FIELDS: &[&str] = &[
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

/// A validated `PATCH /documents/:id`: the requests to send, rebuilt from the checked parts.
#[derive(Debug, Clone, PartialEq)]
pub struct Patch {
    pub requests: Vec<Value>,
    pub required_revision_id: Option<String>,
}

/// Most requests in one PATCH.
pub const MAX_REQUESTS: usize = 1000;

/// A whole number as JSON Schema counts one: `3`, or `3.0`.
fn whole(value: &Value) -> Option<u64> {
    value.as_u64().or_else(|| value.as_f64().filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= u32::MAX as f64).map(|f| f as u64))
}

fn index(value: Option<&Value>, field: String, errors: &mut Vec<FieldError>) -> Option<u64> {
    match value.and_then(whole) {
        Some(n) if (1..=i32::MAX as u64).contains(&n) => Some(n),
        _ => {
            errors.push(FieldError::new(field, "must be a whole number of at least 1"));
            None
        }
    }
}

fn range(body: &Map<String, Value>, prefix: &str, errors: &mut Vec<FieldError>) -> Option<(u64, u64)> {
    let Some(range) = body.get("range").and_then(Value::as_object) else {
        errors.push(FieldError::new(format!("{prefix}.range"), "is required: {startIndex, endIndex}"));
        return None;
    };
    unknown_fields(range, &["startIndex", "endIndex"], &format!("{prefix}.range."), errors);
    let start = index(range.get("startIndex"), format!("{prefix}.range.startIndex"), errors);
    let end = index(range.get("endIndex"), format!("{prefix}.range.endIndex"), errors);
    match (start, end) {
        (Some(s), Some(e)) if s < e => Some((s, e)),
        (Some(_), Some(_)) => {
            errors.push(FieldError::new(format!("{prefix}.range.endIndex"), "must be greater than startIndex"));
            None
        }
        _ => None,
    }
}

pub fn patch(body: &Value) -> Result<Patch> {
    let mut errors = Vec::new();
    let Some(object) = object(body, &mut errors) else { return Err(Error::invalid(errors)) };
    unknown_fields(object, &["requests", "requiredRevisionId"], "", &mut errors);
    let required_revision_id = match object.get("requiredRevisionId") {
        None | Some(Value::Null) => None,
        Some(Value::String(r)) if !r.is_empty() && r.chars().count() <= 512 && !r.chars().any(char::is_control) => {
            Some(r.clone())
        }
        Some(_) => {
            errors.push(FieldError::new("requiredRevisionId", "must be a revisionId read from the document"));
            None
        }
    };
    let mut requests = Vec::new();
    match object.get("requests").and_then(Value::as_array) {
        None => errors.push(FieldError::new("requests", "is required: an array of edit requests")),
        Some(items) if items.is_empty() => errors.push(FieldError::new("requests", "must hold at least one request")),
        Some(items) if items.len() > MAX_REQUESTS => {
            errors.push(FieldError::new("requests", format!("must hold at most {MAX_REQUESTS} requests")))
        }
        Some(items) => {
            for (i, item) in items.iter().enumerate() {
                if let Some(request) = edit_request(item, &format!("requests[{i}]"), &mut errors) {
                    requests.push(request);
                }
            }
        }
    }
    if !errors.is_empty() {
        return Err(Error::invalid(errors));
    }
    Ok(Patch { requests, required_revision_id })
}

/// One element of `requests`: exactly one of the operations, checked and rebuilt.
pub fn edit_request(item: &Value, prefix: &str, errors: &mut Vec<FieldError>) -> Option<Value> {
    let Some(object) = item.as_object() else {
        errors.push(FieldError::new(prefix, "must be an object with one operation"));
        return None;
    };
    let operations: Vec<&String> = object.keys().collect();
    if operations.len() != 1 {
        errors.push(FieldError::new(
            prefix,
            "must hold exactly one operation: insertText, deleteContentRange, updateParagraphStyle, updateTextStyle, createParagraphBullets, deleteParagraphBullets, insertTable, insertTableRow, insertTableColumn, deleteTableRow or deleteTableColumn",
        ));
        return None;
    }
    let kind = operations[0].as_str();
    let prefix = format!("{prefix}.{kind}");
    let Some(body) = object[kind].as_object() else {
        errors.push(FieldError::new(prefix, "must be an object"));
        return None;
    };
    let before = errors.len();
    let request = match kind {
        "insertText" => insert_text(body, &prefix, errors),
        "deleteContentRange" => {
            unknown_fields(body, &["range"], &format!("{prefix}."), errors);
            let (start, end) = range(body, &prefix, errors).unwrap_or((1, 2));
            json!({"deleteContentRange": {"range": {"startIndex": start, "endIndex": end}}})
        }
        "updateParagraphStyle" => update_paragraph_style(body, &prefix, errors),
        "updateTextStyle" => update_text_style(body, &prefix, errors),
        "createParagraphBullets" => create_paragraph_bullets(body, &prefix, errors),
        "deleteParagraphBullets" => {
            unknown_fields(body, &["range"], &format!("{prefix}."), errors);
            let (start, end) = range(body, &prefix, errors).unwrap_or((1, 2));
            json!({"deleteParagraphBullets": {"range": {"startIndex": start, "endIndex": end}}})
        }
        "insertTable" => insert_table(body, &prefix, errors),
        "insertTableRow" => table_request(kind, body, Some("insertBelow"), &prefix, errors),
        "insertTableColumn" => table_request(kind, body, Some("insertRight"), &prefix, errors),
        "deleteTableRow" | "deleteTableColumn" => table_request(kind, body, None, &prefix, errors),
        other => {
            errors.push(FieldError::new(
                prefix.to_string(),
                format!(
                    "{other} is not supported; use insertText, deleteContentRange, updateParagraphStyle, updateTextStyle, createParagraphBullets, deleteParagraphBullets, insertTable, insertTableRow, insertTableColumn, deleteTableRow or deleteTableColumn"
                ),
            ));
            return None;
        }
    };
    (errors.len() == before).then_some(request)
}

/// `insertTable`: a number of rows and of columns, and the index of a paragraph to put it in.
fn insert_table(body: &Map<String, Value>, prefix: &str, errors: &mut Vec<FieldError>) -> Value {
    unknown_fields(body, &["rows", "columns", "location"], &format!("{prefix}."), errors);
    let mut count = |name: &str| match body.get(name).and_then(whole) {
        Some(n) if (1..=super::tables::MAX_NEW_TABLE_SIDE as u64).contains(&n) => n,
        _ => {
            errors.push(FieldError::new(
                format!("{prefix}.{name}"),
                format!("must be a whole number from 1 to {}", super::tables::MAX_NEW_TABLE_SIDE),
            ));
            1
        }
    };
    let (rows, columns) = (count("rows"), count("columns"));
    let location = body.get("location").and_then(Value::as_object);
    if let Some(location) = location {
        unknown_fields(location, &["index"], &format!("{prefix}.location."), errors);
    }
    let at = index(location.and_then(|l| l.get("index")), format!("{prefix}.location.index"), errors);
    json!({"insertTable": {"rows": rows, "columns": columns, "location": {"index": at.unwrap_or(1)}}})
}

/// A table row or column request: a `tableCellLocation` (the table's start index, a zero-based
/// row and column) and, for an insertion, on which side of that cell (`side`, false when absent).
fn table_request(
    kind: &str,
    body: &Map<String, Value>,
    side: Option<&str>,
    prefix: &str,
    errors: &mut Vec<FieldError>,
) -> Value {
    let known: Vec<&str> = std::iter::once("tableCellLocation").chain(side).collect();
    unknown_fields(body, &known, &format!("{prefix}."), errors);
    let location_field = format!("{prefix}.tableCellLocation");
    let Some(location) = body.get("tableCellLocation").and_then(Value::as_object) else {
        errors.push(FieldError::new(location_field, "is required: {tableStartLocation, rowIndex, columnIndex}"));
        return Value::Null;
    };
    unknown_fields(location, &["tableStartLocation", "rowIndex", "columnIndex"], &format!("{location_field}."), errors);
    let start = location.get("tableStartLocation").and_then(Value::as_object);
    if let Some(start) = start {
        unknown_fields(start, &["index"], &format!("{location_field}.tableStartLocation."), errors);
    }
    let table = index(start.and_then(|s| s.get("index")), format!("{location_field}.tableStartLocation.index"), errors);
    // Zero-based, and omitted when zero (proto3 JSON).
    let mut position = |name: &str| match location.get(name) {
        None => Some(0),
        Some(value) => whole(value).filter(|n| *n <= i32::MAX as u64).or_else(|| {
            errors.push(FieldError::new(format!("{location_field}.{name}"), "must be a whole number of at least 0"));
            None
        }),
    };
    let (row, column) = (position("rowIndex"), position("columnIndex"));
    let mut request = json!({"tableCellLocation": {
        "tableStartLocation": {"index": table.unwrap_or(1)},
        "rowIndex": row.unwrap_or(0),
        "columnIndex": column.unwrap_or(0),
    }});
    if let Some(side) = side {
        match body.get(side) {
            None => {}
            Some(Value::Bool(value)) => request[side] = json!(value),
            Some(_) => errors.push(FieldError::new(format!("{prefix}.{side}"), "must be true or false")),
        }
    }
    json!({ kind: request })
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
fn create_paragraph_bullets(body: &Map<String, Value>, prefix: &str, errors: &mut Vec<FieldError>) -> Value {
    unknown_fields(body, &["range", "bulletPreset"], &format!("{prefix}."), errors);
    let (start, end) = range(body, prefix, errors).unwrap_or((1, 2));
    let preset = body.get("bulletPreset").and_then(Value::as_str).filter(|p| BULLET_PRESETS.contains(p));
    if preset.is_none() {
        errors.push(FieldError::new(
            format!("{prefix}.bulletPreset"),
            format!("must be one of {}", BULLET_PRESETS.join(", ")),
        ));
    }
    json!({"createParagraphBullets": {
        "range": {"startIndex": start, "endIndex": end},
        "bulletPreset": preset.unwrap_or_default(),
    }})
}

/// `insertText`: a non-empty text at an index.
fn insert_text(body: &Map<String, Value>, prefix: &str, errors: &mut Vec<FieldError>) -> Value {
    unknown_fields(body, &["text", "location"], &format!("{prefix}."), errors);
    let text = match body.get("text") {
        Some(Value::String(t)) if !t.is_empty() => {
            if let Some((_, problem)) = text_problem(t, true) {
                errors.push(FieldError::new(format!("{prefix}.text"), problem));
            }
            t.clone()
        }
        _ => {
            errors.push(FieldError::new(format!("{prefix}.text"), "must be a non-empty string"));
            String::new()
        }
    };
    let location = body.get("location").and_then(Value::as_object);
    if let Some(location) = location {
        unknown_fields(location, &["index"], &format!("{prefix}.location."), errors);
    }
    let at = index(location.and_then(|l| l.get("index")), format!("{prefix}.location.index"), errors);
    json!({"insertText": {"text": text, "location": {"index": at.unwrap_or(1)}}})
}

/// `updateParagraphStyle`: a range and the style fields to set. `fields` is ours to derive from
/// the style's keys; a caller's own mask is ignored.
fn update_paragraph_style(body: &Map<String, Value>, prefix: &str, errors: &mut Vec<FieldError>) -> Value {
    unknown_fields(body, &["range", "paragraphStyle", "fields"], &format!("{prefix}."), errors);
    if body.get("fields").is_some_and(|mask| !mask.is_string()) {
        errors.push(FieldError::new(format!("{prefix}.fields"), "must be a string (the style's own fields are set)"));
    }
    let (start, end) = range(body, prefix, errors).unwrap_or((1, 2));
    let style = match body.get("paragraphStyle").and_then(Value::as_object) {
        Some(style) if !style.is_empty() => {
            for (key, value) in style {
                if !PARAGRAPH_STYLE_FIELDS.contains(&key.as_str()) {
                    errors.push(FieldError::new(
                        format!("{prefix}.paragraphStyle.{key}"),
                        "is not a paragraph style field",
                    ));
                } else if key == "namedStyleType" && !value.as_str().is_some_and(|v| NAMED_STYLES.contains(&v)) {
                    errors.push(FieldError::new(
                        format!("{prefix}.paragraphStyle.namedStyleType"),
                        format!("must be one of {}", NAMED_STYLES.join(", ")),
                    ));
                } else if key == "alignment" && serde_json::from_value::<Alignment>(value.clone()).is_err() {
                    errors.push(FieldError::new(
                        format!("{prefix}.paragraphStyle.alignment"),
                        "must be one of START, CENTER, END, JUSTIFIED",
                    ));
                }
            }
            style.clone()
        }
        _ => {
            errors.push(FieldError::new(
                format!("{prefix}.paragraphStyle"),
                "must be an object with at least one style field",
            ));
            Map::new()
        }
    };
    let fields: Vec<&str> = style.keys().map(String::as_str).collect();
    json!({"updateParagraphStyle": {
        "range": {"startIndex": start, "endIndex": end},
        "paragraphStyle": style,
        "fields": fields.join(","),
    }})
}

/// The character styles `updateTextStyle` may set: the editor's marks.
pub const TEXT_STYLE_FIELDS: &[&str] = &["bold", "italic", "underline", "strikethrough", "link"];

/// `updateTextStyle`: a range, the fields to set (`fields`, the editor's marks only) and their
/// values; a field named without a value is reset, as Google does.
fn update_text_style(body: &Map<String, Value>, prefix: &str, errors: &mut Vec<FieldError>) -> Value {
    unknown_fields(body, &["range", "textStyle", "fields"], &format!("{prefix}."), errors);
    let (start, end) = range(body, prefix, errors).unwrap_or((1, 2));
    let mask: Vec<&str> = match body.get("fields").and_then(Value::as_str) {
        Some(mask) if mask.split(',').all(|f| TEXT_STYLE_FIELDS.contains(&f)) => mask.split(',').collect(),
        _ => {
            errors.push(FieldError::new(
                format!("{prefix}.fields"),
                format!("must name the fields to set, separated by commas, of {}", TEXT_STYLE_FIELDS.join(", ")),
            ));
            Vec::new()
        }
    };
    let style = body.get("textStyle").and_then(Value::as_object).cloned();
    if style.is_none() {
        errors.push(FieldError::new(format!("{prefix}.textStyle"), "must be an object"));
    }
    for (key, value) in style.iter().flatten() {
        let field = format!("{prefix}.textStyle.{key}");
        if !mask.contains(&key.as_str()) {
            errors.push(FieldError::new(field, "is not named in fields"));
        } else if key == "link" {
            let url = value.get("url").and_then(Value::as_str);
            let ok = value.as_object().is_some_and(|l| l.len() == 1)
                && url.is_some_and(|u| {
                    !u.is_empty()
                        && u.chars().count() <= 2048
                        && !u.chars().any(|c| c.is_whitespace() || c.is_control())
                });
            if !ok {
                errors.push(FieldError::new(
                    field,
                    "must be {\"url\": …}, a URL of at most 2048 characters without spaces",
                ));
            }
        } else if !value.is_boolean() {
            errors.push(FieldError::new(field, "must be true or false"));
        }
    }
    json!({"updateTextStyle": {
        "range": {"startIndex": start, "endIndex": end},
        "textStyle": style.unwrap_or_default(),
        "fields": mask.join(","),
    }})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(err: Error) -> Vec<String> {
        err.details.unwrap()["fields"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["field"].as_str().unwrap().to_string())
            .collect()
    }

    fn list_query(pairs: &[(&str, &str)]) -> Result<crate::requests::ListDocumentsRequest> {
        use staffroom_base::request::Request;
        crate::requests::ListDocumentsRequest::from_input(
            &pairs.iter().map(|(k, v)| (k.to_string(), json!(v))).collect(),
        )
    }

    #[test]
    fn folder_ids_never_reach_the_query_raw() {
        for bad in ["x' or trashed = true or 'y", "a b", "", "fld\\", "é"] {
            assert_eq!(fields(list_query(&[("folderId", bad)]).unwrap_err()), vec!["folderId"], "{bad}");
        }
        let q = list_query(&[("folderId", "fld_A-1")]).unwrap();
        assert_eq!(
            drive_query(q.folder_id.as_deref(), None),
            "mimeType = 'application/vnd.google-apps.document' and trashed = false and 'fld_A-1' in parents"
        );
        // A search is a string in the query, whatever it holds.
        assert_eq!(
            drive_query(None, Some(r"Bob's \ plan")),
            r"mimeType = 'application/vnd.google-apps.document' and trashed = false and name contains 'Bob\'s \\ plan'"
        );
        assert_eq!(quote(r"a'b\c"), r"'a\'b\\c'");
    }

    #[test]
    fn names_every_bad_list_parameter() {
        let mut names = fields(list_query(&[("pageSize", "0"), ("orderBy", "name"), ("bogus", "1")]).unwrap_err());
        names.sort();
        assert_eq!(names, vec!["bogus", "orderBy", "pageSize"]);
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
        let names = fields(patch(&body).unwrap_err());
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
        let ok = patch(&json!({"requests": [{"updateParagraphStyle": {"range": {"startIndex": 1, "endIndex": 3}, "paragraphStyle": {"namedStyleType": "HEADING_1", "alignment": "CENTER"}}}]})).unwrap();
        assert_eq!(ok.requests[0]["updateParagraphStyle"]["fields"], "alignment,namedStyleType");
    }

    #[test]
    fn list_requests_name_a_range_and_a_known_preset() {
        let body = json!({"requests": [
            {"createParagraphBullets": {"range": {"startIndex": 1, "endIndex": 4}, "bulletPreset": "BULLET_GLYPH_PRESET_UNSPECIFIED"}},
            {"createParagraphBullets": {"range": {"startIndex": 4, "endIndex": 1}, "bulletPreset": "BULLET_DISC_CIRCLE_SQUARE"}},
            {"deleteParagraphBullets": {"range": {"startIndex": 1, "endIndex": 4}, "listId": "kix.1"}}
        ]});
        assert_eq!(
            fields(patch(&body).unwrap_err()),
            vec![
                "requests[0].createParagraphBullets.bulletPreset",
                "requests[1].createParagraphBullets.range.endIndex",
                "requests[2].deleteParagraphBullets.listId",
            ]
        );
        let ok = patch(&json!({"requests": [
            {"createParagraphBullets": {"range": {"startIndex": 1, "endIndex": 4}, "bulletPreset": "NUMBERED_DECIMAL_NESTED"}},
            {"deleteParagraphBullets": {"range": {"startIndex": 2, "endIndex": 3}}}
        ]}))
        .unwrap();
        assert_eq!(ok.requests[0]["createParagraphBullets"]["bulletPreset"], "NUMBERED_DECIMAL_NESTED");
        assert_eq!(ok.requests[1]["deleteParagraphBullets"]["range"]["endIndex"], 3);
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
            fields(patch(&body).unwrap_err()),
            vec![
                "requests[0].insertTableRow.tableCellLocation.tableStartLocation.index",
                "requests[1].insertTableColumn.tableCellLocation.columnIndex",
                "requests[1].insertTableColumn.insertRight",
                "requests[2].deleteTableRow.insertBelow",
                "requests[3].deleteTableColumn.tableCellLocation",
            ]
        );
        let ok = patch(&json!({"requests": [
            {"insertTableRow": {"tableCellLocation": {"tableStartLocation": {"index": 9}, "rowIndex": 2}, "insertBelow": true}},
            {"deleteTableColumn": {"tableCellLocation": {"tableStartLocation": {"index": 9}}}}
        ]}))
        .unwrap();
        assert_eq!(
            ok.requests[0],
            json!({"insertTableRow": {"tableCellLocation": {"tableStartLocation": {"index": 9}, "rowIndex": 2, "columnIndex": 0}, "insertBelow": true}})
        );
        assert_eq!(ok.requests[1]["deleteTableColumn"]["tableCellLocation"]["columnIndex"], 0);
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
            fields(patch(&body).unwrap_err()),
            vec![
                "requests[0].updateTextStyle.textStyle.bold",
                "requests[1].updateTextStyle.textStyle.italic",
                "requests[2].updateTextStyle.fields",
                "requests[3].updateTextStyle.textStyle.link",
            ]
        );
        // A field named without a value is reset: how a link comes off.
        let ok = patch(&json!({"requests": [{"updateTextStyle": {
            "range": {"startIndex": 1, "endIndex": 4},
            "textStyle": {"underline": false},
            "fields": "underline,link"
        }}]}))
        .unwrap();
        assert_eq!(ok.requests[0]["updateTextStyle"]["fields"], "underline,link");
        assert_eq!(ok.requests[0]["updateTextStyle"]["textStyle"], json!({"underline": false}));
    }

    #[test]
    fn permissions_follow_the_type_rules() {
        let body = json!({"permissions": [
            {"role": "reader", "type": "anyone", "emailAddress": "a@b.co"},
            {"role": "writer", "type": "user"},
            {"role": "owner", "type": "group", "emailAddress": "g@b.co"},
            {"role": "reader", "type": "domain", "domain": "not a domain"},
            {"role": "organizer", "type": "user", "emailAddress": "a@b.co"}
        ]});
        let names = fields(share(&body).unwrap_err());
        assert_eq!(
            names,
            vec![
                "permissions[0].emailAddress",
                "permissions[1].emailAddress",
                "permissions[2].role",
                "permissions[3].domain",
                "permissions[4].role"
            ]
        );
        assert!(share(&json!({"permissions": [{"role": "owner", "type": "user", "emailAddress": "new@b.co"}]})).is_ok());
        // Google's Commenter, for every kind of entry.
        let commenters = json!({"permissions": [
            {"role": "commenter", "type": "user", "emailAddress": "a@b.co"},
            {"role": "commenter", "type": "group", "emailAddress": "g@b.co"},
            {"role": "commenter", "type": "domain", "domain": "example.com"},
            {"role": "commenter", "type": "anyone"}
        ]});
        assert!(share(&commenters).is_ok());
        assert!(share(&json!({"permissions": []})).is_err());
    }

    #[test]
    fn create_checks_name_and_content() {
        let long = "x".repeat(256);
        assert_eq!(fields(create_document(&json!({"name": long})).unwrap_err()), vec!["name"]);
        assert_eq!(fields(create_document(&json!({})).unwrap_err()), vec!["name"]);
        assert_eq!(fields(create_document(&json!({"name": "a", "content": "\u{E000}"})).unwrap_err()), vec!["content"]);
        let ok =
            create_document(&json!({"name": "😀 notes", "content": "line\nline 😀", "folderId": "fld_a"})).unwrap();
        assert_eq!(ok.folder_id.as_deref(), Some("fld_a"));
    }
}
