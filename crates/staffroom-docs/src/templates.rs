//! Documents made from the business's data (SPEC section 14): the templates in the Drive folder an
//! admin chose, their `{{…}}` placeholders, a new document copied from one with its placeholders
//! filled, and a document's export as PDF, DOCX or text.
//!
//! A new document is made in the order that loses nothing: the template is read and every
//! placeholder checked against what was given before anything is created; then Drive's
//! `files.copy` (with an id chosen first, so a retry makes one copy), one `replaceAllText` per
//! placeholder in one batchUpdate, and the customer's permission. A failure after the copy names
//! the copy, which is left for the user to finish or delete.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::json;

use super::model::DocumentSummary;
use super::{after_create, planner, validate, DocService, INLINE};
use staffroom_auth::audit::AuditAction;
use staffroom_auth::Actor;
use staffroom_base::error::{Error, FieldError, Result};

/// The placeholders Staffroom fills, and what each needs to be given.
pub const KNOWN: &[(&str, Needs)] = &[
    ("customer.name", Needs::Customer),
    ("customer.email", Needs::Customer),
    ("order.number", Needs::Order),
    ("order.total", Needs::Order),
    ("order.date", Needs::Order),
    ("subscription.product", Needs::Subscription),
    ("subscription.renewsAt", Needs::Subscription),
    ("today", Needs::Nothing),
    ("staff.name", Needs::Nothing),
];

/// What a placeholder is filled from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needs {
    Customer,
    Order,
    Subscription,
    Nothing,
}

impl Needs {
    fn field(self) -> &'static str {
        match self {
            Needs::Customer => "customerId",
            Needs::Order => "orderId",
            Needs::Subscription => "subscriptionId",
            Needs::Nothing => "",
        }
    }
}

/// Drive's folder type.
const FOLDER_MIME: &str = "application/vnd.google-apps.folder";

/// How many templates a folder's list reads (each is read to find its placeholders).
pub const MAX_TEMPLATES: u32 = 50;
/// The longest placeholder name read (`{{…}}` longer than this is text, not a placeholder).
const MAX_NAME: usize = 64;

/// A template: a Google document in the templates folder, and the placeholders it holds.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
pub struct Template {
    pub id: String,
    pub name: String,
    /// Each `{{…}}` it holds, by name, once, in the order they first appear.
    pub placeholders: Vec<String>,
}

/// `GET /api/docs/templates`.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct TemplateList {
    pub templates: Vec<Template>,
    /// The folder they are in.
    pub folder_id: String,
}

/// A placeholder as written: its name (trimmed) and the exact text to replace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placeholder {
    pub name: String,
    pub written: String,
}

/// Every `{{…}}` in `text`, in order (repeats included). A placeholder lies within one
/// paragraph, as `replaceAllText` matches, and its name is short and has no braces.
pub fn placeholders(text: &str) -> Vec<Placeholder> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find("{{") {
        let after = &rest[open + 2..];
        let Some(close) = after.find("}}") else { break };
        let inner = &after[..close];
        let name = inner.trim();
        let plausible = !name.is_empty()
            && name.len() <= MAX_NAME
            && !inner.contains(['{', '}', '\n', '\r', '\u{b}'])
            && !name.chars().any(char::is_control);
        if plausible {
            found.push(Placeholder { name: name.to_string(), written: format!("{{{{{inner}}}}}") });
            rest = &after[close + 2..];
        } else {
            rest = &rest[open + 1..];
        }
    }
    found
}

/// Each name once, in the order they first appear.
fn names(placeholders: &[Placeholder]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for p in placeholders {
        if !names.contains(&p.name) {
            names.push(p.name.clone());
        }
    }
    names
}

/// What a new document from a template is filled with: each known placeholder that the given
/// customer, order or subscription (or nothing) can fill, by name.
pub type Values = BTreeMap<String, String>;

/// Checks that every placeholder of a template is known and filled by `values`; the refusal
/// names each that is not, and what would fill it.
pub fn check_filled(placeholders: &[Placeholder], values: &Values) -> Result<()> {
    let mut problems = Vec::new();
    for name in names(placeholders) {
        if values.contains_key(&name) {
            continue;
        }
        let message = match KNOWN.iter().find(|(known, _)| *known == name) {
            None => format!(
                "{{{{{name}}}}} is not a placeholder Staffroom fills (it fills {})",
                KNOWN.iter().map(|(k, _)| format!("{{{{{k}}}}}")).collect::<Vec<_>>().join(", ")
            ),
            Some((_, needs)) => format!("{{{{{name}}}}} needs {} to be given", needs.field()),
        };
        problems.push(FieldError::new("templateId", message));
    }
    if problems.is_empty() {
        return Ok(());
    }
    let mut error = Error::invalid(problems);
    let unfilled: Vec<String> = names(placeholders).into_iter().filter(|n| !values.contains_key(n)).collect();
    let mut details = error.details.take().unwrap_or_else(|| json!({}));
    details["placeholders"] = json!(unfilled);
    error.details = Some(details);
    error.message = "The template holds placeholders that cannot be filled; nothing was created".into();
    Err(error)
}

/// A new document from a template: what to copy, its name and folder, what fills it, and whom to
/// invite.
#[derive(Debug, Clone)]
pub struct FromTemplate {
    pub template_id: String,
    pub name: String,
    pub folder_id: Option<String>,
    pub values: Values,
    /// The customer's e-mail and the role they are invited with (`reader`, `commenter`).
    pub share: Option<(String, &'static str)>,
    /// Names for the audit: the customer, order or subscription it was made for.
    pub made_for: serde_json::Value,
}

/// The Drive export formats offered, by the name requests give.
pub const EXPORT_FORMATS: &[(&str, &str, &str)] = &[
    ("pdf", "application/pdf", "pdf"),
    ("docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "docx"),
    ("txt", "text/plain", "txt"),
];

/// A document exported: its bytes, content type and file name.
#[derive(Debug, Clone)]
pub struct ExportedFile {
    pub bytes: Vec<u8>,
    pub content_type: &'static str,
    pub file_name: String,
}

/// The `meta` key of the templates folder an admin chose.
pub const TEMPLATES_FOLDER: &str = "docs_templates_folder";

impl DocService {
    /// The Drive folder `id`, checked to be one this account sees.
    pub async fn folder(&self, id: &str) -> Result<super::model::Folder> {
        let id = validate::document_id(id)?;
        let file = self.client.get_file(&id).await.map_err(|error| match error.code {
            staffroom_base::error::ErrorCode::NotFound => {
                Error::invalid_field("folderId", "is no Drive folder this Google account can see")
            }
            _ => error,
        })?;
        if file.mime_type != FOLDER_MIME {
            return Err(Error::invalid_field("folderId", format!("names “{}”, which is not a folder", file.name)));
        }
        Ok(super::model::Folder { id: file.id, name: file.name })
    }

    /// The Google documents in `folder_id`, each with its placeholders (read from its text).
    pub async fn templates(&self, folder_id: &str) -> Result<TemplateList> {
        let folder = validate::document_id(folder_id)?;
        let q = format!("'{folder}' in parents and mimeType = '{}' and trashed = false", super::model::DOC_MIME);
        let files = self.client.list_files(&q, "name", MAX_TEMPLATES, None).await?;
        let mut templates = Vec::with_capacity(files.files.len());
        for file in files.files {
            let document = self.client.get_document(&file.id, INLINE).await?;
            let placeholders = names(&placeholders(&planner::body_text(&document)));
            templates.push(Template { id: file.id, name: file.name, placeholders });
        }
        Ok(TemplateList { templates, folder_id: folder })
    }

    /// A new document copied from a template with its placeholders filled (see the module's
    /// documentation for the order of its steps).
    pub async fn from_template(&self, actor: &Actor, request: FromTemplate) -> Result<DocumentSummary> {
        let template_id = validate::document_id(&request.template_id)?;
        let template = self.client.get_document(&template_id, INLINE).await?;
        let found = placeholders(&planner::body_text(&template));
        check_filled(&found, &request.values)?;
        let id = self.client.generate_id().await?;
        let copy = self.client.copy_file(&template_id, &id, &request.name, request.folder_id.as_deref()).await?;
        let finish = async {
            let mut replacements: Vec<(String, String)> = Vec::new();
            for placeholder in &found {
                let pair = (placeholder.written.clone(), request.values[&placeholder.name].clone());
                if !replacements.contains(&pair) {
                    replacements.push(pair);
                }
            }
            if !replacements.is_empty() {
                self.client
                    .replace_all_text(&copy.id, &replacements)
                    .await
                    .map_err(|e| after_create(e, &copy.id, "filling in its placeholders"))?;
            }
            if let Some((email, role)) = &request.share {
                let permission = super::model::Permission {
                    role: (*role).to_string(),
                    kind: "user".into(),
                    email_address: Some(email.clone()),
                    ..Default::default()
                };
                self.add_permissions(&copy.id, &[permission], Some(true))
                    .await
                    .map_err(|e| after_create(e, &copy.id, "inviting the customer"))?;
            }
            Ok::<_, Error>(())
        };
        let outcome = finish.await;
        let detail = json!({
            "name": request.name,
            "template": template.name,
            "templateId": template_id,
            "for": request.made_for,
            "sharedWith": request.share.as_ref().map(|(email, role)| json!({"emailAddress": email, "role": role})),
        });
        let result = if outcome.is_ok() { "success" } else { "partial" };
        self.audit
            .record(actor.audit_name(), AuditAction::DocumentFromTemplate, Some(&copy.id), result, Some(detail))
            .await;
        outcome.map(|_| copy)
    }

    /// A document as a file (Drive's `files.export`), audited.
    pub async fn export(&self, actor: &Actor, id: &str, format: &str) -> Result<ExportedFile> {
        let id = validate::document_id(id)?;
        let (_, content_type, extension) = EXPORT_FORMATS
            .iter()
            .find(|(name, _, _)| *name == format)
            .copied()
            .ok_or_else(|| Error::invalid_field("format", "must be pdf, docx or txt"))?;
        let file = self.client.get_file(&id).await?;
        let bytes = self.client.export_file(&id, content_type).await?;
        let detail = json!({ "name": file.name, "format": format, "bytes": bytes.len() });
        self.audit.record(actor.audit_name(), AuditAction::DocumentExport, Some(&id), "success", Some(detail)).await;
        Ok(ExportedFile { bytes, content_type, file_name: format!("{}.{extension}", file_name_of(&file.name)) })
    }
}

/// A document's name as a file name: the characters file systems refuse (and quotes, which the
/// `Content-Disposition` header would need escaped) become `_`; a blank name becomes "Document".
pub fn file_name_of(name: &str) -> String {
    let cleaned: String =
        name.chars()
            .map(|c| {
                if c.is_control() || matches!(c, '/' | '\\' | ':' | '*' | '?' | '"' | '<' | '>' | '|') {
                    '_'
                } else {
                    c
                }
            })
            .collect();
    let trimmed = cleaned.trim().trim_matches('.').trim();
    if trimmed.is_empty() {
        "Document".into()
    } else {
        trimmed.chars().take(120).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn placeholders_are_found_as_written_and_named_trimmed() {
        let found =
            placeholders("Dear {{customer.name}}, order {{ order.number }} of {{order.date}}. {{customer.name}}");
        let names: Vec<&str> = found.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["customer.name", "order.number", "order.date", "customer.name"]);
        assert_eq!(found[1].written, "{{ order.number }}");
        assert_eq!(super::names(&found), ["customer.name", "order.number", "order.date"]);
        // Braces that are not placeholders: empty, nested, across a paragraph, unclosed.
        assert!(placeholders("{{}} {{a\nb}} {{ }} {{open").is_empty());
        assert_eq!(placeholders("{{{today}}}")[0].name, "today");
    }

    #[test]
    fn unknown_and_unfilled_placeholders_are_named_before_anything_is_made() {
        let found = placeholders("{{customer.name}} {{order.total}} {{favourite.colour}} {{today}}");
        let values: Values = [("customer.name", "Zoë"), ("today", "28 November 2026")]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let refused = check_filled(&found, &values).unwrap_err();
        let details = refused.details.unwrap();
        assert_eq!(details["placeholders"], json!(["order.total", "favourite.colour"]));
        let messages = details["fields"].to_string();
        assert!(messages.contains("{{order.total}} needs orderId to be given"), "{messages}");
        assert!(messages.contains("{{favourite.colour}} is not a placeholder Staffroom fills"), "{messages}");
        let mut all = values.clone();
        all.insert("order.total".into(), "$33.00".into());
        all.insert("favourite.colour".into(), "x".into());
        assert!(check_filled(&found, &all).is_ok());
    }

    #[test]
    fn file_names_are_safe() {
        assert_eq!(file_name_of("Welcome — Zoë Martin"), "Welcome — Zoë Martin");
        assert_eq!(file_name_of("a/b\\c:\"d\"\n"), "a_b_c__d__");
        assert_eq!(file_name_of(" .. "), "Document");
    }

    proptest! {
        /// Any text: every placeholder found is written in the text, and its name is trimmed,
        /// short and braceless.
        #[test]
        fn every_placeholder_found_is_in_the_text(text in "[a-z{} .\n]{0,60}") {
            for p in placeholders(&text) {
                prop_assert!(text.contains(&p.written));
                prop_assert!(!p.name.is_empty() && p.name.len() <= MAX_NAME);
                let braceless = !p.name.contains(['{', '}', '\n']);
                prop_assert!(braceless, "a name with a brace or a line end: {:?}", p.name);
                prop_assert_eq!(p.name.trim(), p.name.as_str());
            }
        }
    }
}
