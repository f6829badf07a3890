//! Validation of the document area's queries and bodies: every bad field is named at once, and
//! nothing reaches Google before the whole input has passed.

use serde::Serialize;
use serde_json::{Map, Value};

use super::model::{text_problem, Permission};
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
        pattern = "^[^\\x00-\\x1f\\x7f-\\x9f]*[^\\x00-\\x20\\x7f-\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\x00-\\x1f\\x7f-\\x9f]*$"
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
