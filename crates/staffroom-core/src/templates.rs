//! Documents made from the business's data (SPEC section 14): the core joins the two areas, the
//! payments' customer, order and subscription filling a template of the documents' area. Also
//! the admins' choice of the templates folder.

use chrono::Utc;
use serde::Serialize;
use serde_json::json;
use staffroom_macros::request;

use crate::api::{Access, Caller, NoInput, OpSpec, Operation, Route};
use crate::audit::AuditAction;
use crate::docs::model::Folder;
use crate::docs::requests::SummaryEnvelope;
use crate::docs::templates::{FromTemplate, TemplateList, Values, TEMPLATES_FOLDER};
use crate::error::{Error, ErrorCode, Result};
use crate::payments::model::format_money;
use crate::Core;

/// Drive's alias of the user's My Drive ("root can be used anywhere a file ID is provided").
const MY_DRIVE: &str = "root";

staffroom_base::text_enum! {
    /// How the customer is invited to the new document.
    pub enum CustomerRole {
        Reader = "reader",
        Commenter = "commenter",
    }
}

/// `PUT /api/settings/templates`.
#[request]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TemplatesFolderRequest {
    /// A Drive folder this Google account sees.
    #[field(pattern = "^[A-Za-z0-9_-]{1,200}$", message = "must be a Drive folder id (letters, digits, - or _)")]
    pub folder_id: String,
}

/// The templates folder chosen.
#[derive(Debug, Clone, Serialize, ts_rs::TS, utoipa::ToSchema)]
pub struct TemplatesFolder {
    pub folder: Folder,
}

/// `POST /api/docs/documents/from-template`.
#[request]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FromTemplateRequest {
    /// One of `GET /api/docs/templates`.
    #[field(pattern = "^[A-Za-z0-9_-]{1,200}$", message = "must be a Google document id (letters, digits, - or _)")]
    pub template_id: String,
    /// The new document's name.
    #[field(
        pattern = "^[^\\x00-\\x20\\x7f\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\x00-\\x1f\\x7f]{0,254}$",
        message = "must be 1 to 255 characters, starting with a visible one, without control characters"
    )]
    pub name: String,
    /// Where it goes: My Drive's top when none (never the templates' folder, where a letter
    /// would be offered as a template).
    #[field(pattern = "^[A-Za-z0-9_-]{1,200}$", message = "must be a Drive folder id (letters, digits, - or _)")]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub folder_id: Option<String>,
    /// The provider's customer id: fills `{{customer.…}}`.
    #[field(pattern = "^[A-Za-z0-9_-]{1,64}$", message = "must be a provider customer id (letters, digits, - or _)")]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub customer_id: Option<String>,
    /// An order's `id`: fills `{{order.…}}`, and `{{customer.…}}` when no customer is given.
    #[field(pattern = "^[A-Za-z0-9_-]{1,64}$", message = "must be an order id (letters, digits, - or _)")]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub order_id: Option<String>,
    /// A subscription's `id`: fills `{{subscription.…}}`, and `{{customer.…}}` when no customer
    /// or order is given.
    #[field(pattern = "^[A-Za-z0-9_-]{1,64}$", message = "must be a subscription id (letters, digits, - or _)")]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub subscription_id: Option<String>,
    /// Invites the customer's e-mail to the new document.
    #[field(choice)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub share_with: Option<CustomerRole>,
}

pub struct SetTemplatesFolder;
impl Operation for SetTemplatesFolder {
    const SPEC: OpSpec = OpSpec::new("set_templates_folder", "settings", "Chooses the Drive folder of templates")
        .route(Route::put("/api/settings/templates"))
        .access(Access::Admin);
    type Request = TemplatesFolderRequest;
    type Response = TemplatesFolder;
    async fn run(core: &Core, caller: &Caller, request: TemplatesFolderRequest) -> Result<TemplatesFolder> {
        let folder = core.docs.folder(&request.folder_id).await?;
        core.db.set_meta(TEMPLATES_FOLDER, folder.id.clone()).await?;
        let detail = json!({ "folderId": folder.id, "name": folder.name });
        core.audit
            .record(
                caller.actor()?.audit_name(),
                AuditAction::TemplatesFolder,
                Some(&folder.id),
                "success",
                Some(detail),
            )
            .await;
        Ok(TemplatesFolder { folder })
    }
}

pub struct ListTemplates;
impl Operation for ListTemplates {
    const SPEC: OpSpec =
        OpSpec::new("list_templates", "docs", "The templates in the chosen folder, with their placeholders")
            .route(Route::get("/api/docs/templates"))
            .errors(&[(409, "conflict: no templates folder has been chosen yet (an admin chooses one in Settings)")]);
    type Request = NoInput;
    type Response = TemplateList;
    async fn run(core: &Core, _: &Caller, _: NoInput) -> Result<TemplateList> {
        let folder = core.db.meta(TEMPLATES_FOLDER).await?.ok_or_else(|| {
            Error::new(ErrorCode::Conflict, "No templates folder yet: an admin chooses one in Settings")
        })?;
        core.docs.templates(&folder).await
    }
}

pub struct CreateFromTemplate;
impl Operation for CreateFromTemplate {
    const SPEC: OpSpec = OpSpec::new(
        "create_from_template",
        "docs",
        "A new document copied from a template, its placeholders filled from a customer, order or subscription",
    )
    .route(Route::post("/api/docs/documents/from-template").status(201))
    .errors(&[(404, "not_found: no such template, customer, order or subscription")]);
    type Request = FromTemplateRequest;
    type Response = SummaryEnvelope;
    async fn run(core: &Core, caller: &Caller, request: FromTemplateRequest) -> Result<SummaryEnvelope> {
        let actor = caller.actor()?;
        let staff_name = caller.identity.as_ref().map(|who| who.name.clone()).unwrap_or_default();
        let filling = fill(core, &request, &staff_name).await?;
        let share = match request.share_with {
            None => None,
            Some(role) => {
                let email = filling.customer_email.clone().ok_or_else(|| {
                    Error::invalid_field(
                        "shareWith",
                        "needs a customer (customerId, orderId or subscriptionId) with an e-mail",
                    )
                })?;
                Some((email, role.as_str()))
            }
        };
        let made = FromTemplate {
            template_id: request.template_id,
            name: request.name,
            folder_id: Some(request.folder_id.unwrap_or_else(|| MY_DRIVE.to_string())),
            values: filling.values,
            share,
            made_for: filling.made_for,
        };
        Ok(SummaryEnvelope { document: core.docs.from_template(&actor, made).await? })
    }
}

/// What a new document is filled with, the customer's e-mail, and whom it was made for.
struct Filling {
    values: Values,
    customer_email: Option<String>,
    made_for: serde_json::Value,
}

/// The values of every placeholder the request's customer, order and subscription can fill (each
/// read from the cache, this store's only), with today and the staff member.
async fn fill(core: &Core, request: &FromTemplateRequest, staff_name: &str) -> Result<Filling> {
    let mut values = Values::new();
    let mut customer: Option<(String, String)> = None;
    let mut made_for = serde_json::Map::new();
    values.insert("today".into(), long_date(&Utc::now().to_rfc3339()));
    values.insert("staff.name".into(), staff_name.to_string());
    if let Some(id) = &request.subscription_id {
        let (subscription, _) = core.payments.get_subscription(id).await?;
        values.insert("subscription.product".into(), subscription.product_name.clone().unwrap_or_default());
        values.insert("subscription.renewsAt".into(), long_date(&subscription.renews_at));
        if let (Some(name), Some(email)) = (&subscription.customer_name, &subscription.customer_email) {
            customer = Some((name.clone(), email.clone()));
        }
        made_for.insert("subscription".into(), json!(id));
    }
    if let Some(id) = &request.order_id {
        let order = core.payments.get_order(id).await?;
        let number = match order.order_number {
            Some(number) => format!("#{number}"),
            None => order.order_id.clone(),
        };
        values.insert("order.number".into(), number.clone());
        values.insert("order.total".into(), format_money(order.total, &order.currency));
        values.insert("order.date".into(), long_date(&order.created_at));
        customer = Some((order.name.clone().unwrap_or_else(|| order.email.clone()), order.email.clone()));
        made_for.insert("order".into(), json!(number));
    }
    if let Some(id) = &request.customer_id {
        let found = core.payments.get_customer(id).await?;
        customer = Some((found.customer.name.clone(), found.customer.email.clone()));
    }
    if let Some((name, email)) = &customer {
        values.insert("customer.name".into(), name.clone());
        values.insert("customer.email".into(), email.clone());
        made_for.insert("customer".into(), json!(name));
    }
    Ok(Filling { values, customer_email: customer.map(|(_, email)| email), made_for: made_for.into() })
}

/// A time as a letter writes its date: "28 November 2026" (the date alone when it is not a time).
fn long_date(time: &str) -> String {
    match chrono::DateTime::parse_from_rfc3339(time) {
        Ok(time) => time.with_timezone(&Utc).format("%-d %B %Y").to_string(),
        Err(_) => time.chars().take(10).collect(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn dates_read_as_a_letter_writes_them() {
        assert_eq!(super::long_date("2026-11-28T10:00:00Z"), "28 November 2026");
        assert_eq!(super::long_date("2026-02-01T23:30:00-02:00"), "2 February 2026");
    }
}

staffroom_base::text_enum! {
    /// What a document is exported as.
    pub enum ExportFormat {
        Pdf = "pdf",
        Docx = "docx",
        Txt = "txt",
    }
}

/// `GET /api/docs/documents/{id}/export`: a document as a file. Answered with the file, not
/// JSON, so it is declared here for both doors rather than as an [`Operation`]; any staff member
/// who may read documents may export them.
#[request]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DocumentExportRequest {
    #[field(pattern = "^[A-Za-z0-9_-]{1,200}$", message = "must be a Google document id (letters, digits, - or _)")]
    pub id: String,
    /// `pdf` (the default), `docx` or `txt`.
    #[field(choice)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub format: Option<ExportFormat>,
}

/// The document export's route.
pub const DOCUMENT_EXPORT_PATH: &str = "/api/docs/documents/{id}/export";

/// Exports a document for the holder of `token` (checked as `read_document` checks it).
pub async fn export_document(
    core: &Core,
    token: Option<&str>,
    address: &str,
    input: crate::api::Input,
) -> Result<crate::docs::templates::ExportedFile> {
    let reading = crate::api::find("read_document").expect("a core operation");
    let caller = crate::api::authorize(core, reading, token, address).await?;
    let request = <DocumentExportRequest as crate::api::Request>::from_input(&input)?;
    let format = request.format.unwrap_or(ExportFormat::Pdf);
    core.docs.export(&caller.actor()?, &request.id, format.as_str()).await
}
