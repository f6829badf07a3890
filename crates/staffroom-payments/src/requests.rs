//! What staff send the payment operations (products, orders, subscriptions, the sync, the
//! webhook log), each request with its bounds declared once, and the envelopes of what they get
//! back; the operations themselves are declared in the core.

use serde::Serialize;
use staffroom_macros::request;

use crate::model::{
    CustomerStatus, DiscountAmountType, DiscountDuration, LicenseKeyStatus, OrderDto, OrderStatusFilter, ProductDto,
    ProductStatus, SubscriptionDto, SubscriptionStatusFilter,
};
use crate::validate;
use crate::SubscriptionAction;
use staffroom_base::error::FieldError;
use staffroom_base::request::{search, Fields};

/// `GET /api/payments/products`.
#[request]
#[derive(Debug, Clone, Default, PartialEq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListProductsRequest {
    #[field(min = 1, max = 2147483647)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub page: Option<u32>,
    /// Default 10.
    #[field(min = 1, max = 100)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub limit: Option<u32>,
    #[field(choice)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub status: Option<ProductStatus>,
    /// Part of the name, any case.
    #[schema(max_length = 100, pattern = "^[^\\x00-\\x1f\\x7f-\\x9f]*$")]
    #[field(with = search)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub search: Option<String>,
}

/// A request naming one resource by its `id`.
#[request]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS, utoipa::ToSchema)]
pub struct IdRequest {
    #[field(pattern = "^[A-Za-z0-9-]{1,64}$", message = "is not a valid id")]
    pub id: String,
}

/// `{product}`.
#[derive(Debug, Clone, Serialize, ts_rs::TS, utoipa::ToSchema)]
pub struct ProductEnvelope {
    pub product: ProductDto,
}

/// `{order}`.
#[derive(Debug, Clone, Serialize, ts_rs::TS, utoipa::ToSchema)]
pub struct OrderEnvelope {
    pub order: OrderDto,
}

/// `POST /api/payments/orders/{id}/refund` and `POST /api/payments/invoices/{id}/refund`: all that
/// is left of the order or invoice, or `amount` of it.
#[request]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS, utoipa::ToSchema)]
pub struct RefundRequest {
    #[field(pattern = "^[A-Za-z0-9-]{1,64}$", message = "is not a valid id")]
    pub id: String,
    /// Cents to refund; all that is left when absent.
    #[field(min = 1, max = 2147483647)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub amount: Option<u32>,
}

/// `GET /api/payments/orders`.
#[request]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListOrdersRequest {
    #[field(min = 1, max = 2147483647)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub page: Option<u32>,
    /// Default 10.
    #[field(min = 1, max = 100)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub limit: Option<u32>,
    /// Part of the e-mail or the name, the receipt's order number (`1042`, `#1042`) or our
    /// reference (`SR-000042`); case-insensitive.
    #[field(pattern = "^[^\\x00-\\x1f]{1,200}$", message = "must be 1 to 200 characters, without control characters")]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub search: Option<String>,
    /// A local status (`pending`, `paid`, `failed`) or one only the provider has (`refunded`,
    /// `partial_refund`, `fraudulent`, matched on `providerStatus`).
    #[field(choice)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub status: Option<OrderStatusFilter>,
    /// The provider's customer id.
    #[field(pattern = "^[A-Za-z0-9_-]{1,64}$", message = "must be a provider customer id (letters, digits, - or _)")]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub customer_id: Option<String>,
    /// The provider's product id.
    #[field(pattern = "^[A-Za-z0-9_-]{1,64}$", message = "must be a provider product id (letters, digits, - or _)")]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub product_id: Option<String>,
    /// Made at or after: an RFC 3339 time, or a date (its 00:00 UTC).
    #[field(rule = validate::INSTANT)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub from: Option<String>,
    /// Made before: an RFC 3339 time, or a date (its 00:00 UTC).
    #[field(rule = validate::INSTANT)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub to: Option<String>,
}

/// `GET /api/payments/summary`: the range, the last 30 days (today included) when not given.
#[request]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SummaryRequest {
    /// From (inclusive): an RFC 3339 time, or a date (its 00:00 UTC).
    #[field(rule = validate::INSTANT)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub from: Option<String>,
    /// To (exclusive): an RFC 3339 time, or a date (its 00:00 UTC).
    #[field(rule = validate::INSTANT)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub to: Option<String>,
}

/// `GET /api/payments/subscriptions`.
#[request]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListSubscriptionsRequest {
    #[field(min = 1, max = 2147483647)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub page: Option<u32>,
    /// Default 10.
    #[field(min = 1, max = 100)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub limit: Option<u32>,
    /// A seed status (`active`: every live one) or one of the provider's (`on_trial`, `paused`,
    /// `past_due`, `unpaid`, matched on `providerStatus`).
    #[field(choice)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub status: Option<SubscriptionStatusFilter>,
    /// The provider's customer id.
    #[field(pattern = "^[A-Za-z0-9_-]{1,64}$", message = "must be a provider customer id (letters, digits, - or _)")]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub customer_id: Option<String>,
    /// The provider's product id.
    #[field(pattern = "^[A-Za-z0-9_-]{1,64}$", message = "must be a provider product id (letters, digits, - or _)")]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub product_id: Option<String>,
    /// Part of the customer's name or e-mail, any case.
    #[schema(max_length = 100, pattern = "^[^\\x00-\\x1f\\x7f-\\x9f]*$")]
    #[field(with = search)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub search: Option<String>,
}

/// `{subscription}`: `stale` when the provider could not be reached (then without its links).
#[derive(Debug, Clone, Serialize, ts_rs::TS, utoipa::ToSchema)]
pub struct SubscriptionEnvelope {
    pub subscription: SubscriptionDto,
    pub stale: bool,
}

/// `GET /api/payments/customers`.
#[request]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListCustomersRequest {
    #[field(min = 1, max = 2147483647)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub page: Option<u32>,
    /// Default 10.
    #[field(min = 1, max = 100)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub limit: Option<u32>,
    /// Part of the name or the e-mail, any case.
    #[schema(max_length = 100, pattern = "^[^\\x00-\\x1f\\x7f-\\x9f]*$")]
    #[field(with = search)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub search: Option<String>,
    /// The provider's e-mail marketing status.
    #[field(choice)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub status: Option<CustomerStatus>,
}

/// `POST /api/payments/subscriptions/{id}/{action}`: the action, and what it needs.
// Every field given is checked, whichever action it belongs to: the interface says what each one
// holds, and a field the action does not use is no excuse for a malformed one.
#[request(check = SubscriptionActionRequest::rules)]
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionActionRequest {
    #[field(pattern = "^[A-Za-z0-9-]{1,64}$", message = "is not a valid id")]
    pub id: String,
    /// `cancel`, `resume`, `pause`, `unpause` or `change-plan`.
    #[field(
        pattern = "^(cancel|resume|pause|unpause|change-plan)$",
        message = "must be one of cancel, resume, pause, unpause, change-plan"
    )]
    #[ts(type = "\"cancel\" | \"resume\" | \"pause\" | \"unpause\" | \"change-plan\"")]
    pub action: String,
    /// pause: `void` (default) or `free`.
    #[field(pattern = "^(void|free)$", message = "must be void or free")]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "\"void\" | \"free\" | null")]
    pub mode: Option<String>,
    /// pause: when it resumes by itself (RFC 3339, in the future).
    #[field(rule = validate::TIME)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub resumes_at: Option<String>,
    /// change-plan: the new variant.
    #[field(pattern = "^[0-9]{1,20}$", message = "must be a variant id (digits)")]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub variant_id: Option<String>,
}

impl SubscriptionActionRequest {
    /// What a schema of the fields alone cannot say: a change of plan names its variant, and a
    /// pause resumes in the future.
    fn rules(&self) -> Vec<FieldError> {
        let mut problems = Vec::new();
        if self.action == "change-plan" && self.variant_id.is_none() {
            problems.push(FieldError::new("variantId", "is required"));
        }
        let resumes = self.resumes_at.as_deref().and_then(|at| chrono::DateTime::parse_from_rfc3339(at).ok());
        if self.action == "pause" && resumes.is_some_and(|at| at <= chrono::Utc::now()) {
            problems.push(FieldError::new("resumesAt", "must be in the future"));
        }
        problems
    }

    /// The action, as the subscription service takes it.
    pub fn action(&self) -> SubscriptionAction {
        match self.action.as_str() {
            "cancel" => SubscriptionAction::Cancel,
            "resume" => SubscriptionAction::Resume,
            "unpause" => SubscriptionAction::Unpause,
            "pause" => SubscriptionAction::Pause {
                mode: self.mode.clone().unwrap_or_else(|| "void".into()),
                resumes_at: self.resumes_at.as_deref().and_then(|at| chrono::DateTime::parse_from_rfc3339(at).ok()).map(
                    |at| at.with_timezone(&chrono::Utc).to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                ),
            },
            _ => SubscriptionAction::ChangePlan { variant_id: self.variant_id.clone().unwrap_or_default() },
        }
    }
}

/// `GET /api/payments/license-keys`.
#[request]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListLicenseKeysRequest {
    #[field(min = 1, max = 2147483647)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub page: Option<u32>,
    /// Default 10.
    #[field(min = 1, max = 100)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub limit: Option<u32>,
    /// Our order's id.
    #[field(pattern = "^[A-Za-z0-9-]{1,64}$", message = "is not a valid id")]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub order_id: Option<String>,
    /// The provider's customer id.
    #[field(pattern = "^[A-Za-z0-9_-]{1,64}$", message = "must be a provider customer id (letters, digits, - or _)")]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub customer_id: Option<String>,
    #[field(choice)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub status: Option<LicenseKeyStatus>,
    /// Part of the customer's e-mail or of the key (its short form `XXXX-…`, or the whole key).
    #[schema(max_length = 100, pattern = "^[^\\x00-\\x1f\\x7f-\\x9f]*$")]
    #[field(with = search)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub search: Option<String>,
}

/// `GET /api/payments/discounts`.
#[request]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListDiscountsRequest {
    #[field(min = 1, max = 2147483647)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub page: Option<u32>,
    /// Default 10.
    #[field(min = 1, max = 100)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub limit: Option<u32>,
    /// Part of the code or the name.
    #[schema(max_length = 100, pattern = "^[^\\x00-\\x1f\\x7f-\\x9f]*$")]
    #[field(with = search)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub search: Option<String>,
}

/// `POST /api/payments/discounts`: a new discount code.
#[request]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateDiscountRequest {
    /// What staff call it (customers see the code).
    #[field(pattern = "^[^\\x00-\\x1f]{1,200}$", message = "must be 1 to 200 characters, without control characters")]
    pub name: String,
    /// What customers type at checkout: 3 to 256 capital letters and digits.
    #[field(pattern = "^[A-Z0-9]{3,256}$", message = "must be 3 to 256 capital letters and digits, without spaces")]
    pub code: String,
    /// A percentage (1 to 100) or cents, as `amountType` says.
    #[field(min = 1, max = 100000000)]
    pub amount: u32,
    #[field(choice)]
    pub amount_type: DiscountAmountType,
    /// Default `once`.
    #[field(choice)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub duration: Option<DiscountDuration>,
    /// How many months a `repeating` discount applies (a yearly plan's first two payments: 24).
    #[field(min = 1, max = 120)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub duration_in_months: Option<u32>,
    /// From when it can be used: an RFC 3339 time, or a date (its 00:00 UTC).
    #[field(rule = validate::INSTANT)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub starts_at: Option<String>,
    /// When it stops working.
    #[field(rule = validate::INSTANT)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub expires_at: Option<String>,
    /// How many times it may be used in all (none: no limit).
    #[field(min = 1, max = 1000000)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub max_redemptions: Option<u32>,
    /// The variants it is limited to (none or empty: every product).
    #[schema(max_items = 100)]
    #[field(with = variant_ids)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub variant_ids: Option<Vec<String>>,
}

/// A list of up to 100 variant ids, each once.
fn variant_ids(fields: &mut Fields) -> Option<Vec<String>> {
    let value = fields.value("variantIds").filter(|v| !v.is_null())?;
    let ids: Option<Vec<String>> = value.as_array().filter(|items| items.len() <= 100).and_then(|items| {
        items.iter().map(|i| i.as_str().filter(|s| validate::is_id(s)).map(str::to_string)).collect()
    });
    match ids {
        Some(ids) => {
            let mut seen = std::collections::HashSet::new();
            Some(ids.into_iter().filter(|id| seen.insert(id.clone())).collect())
        }
        None => {
            fields.problem("variantIds", "must be a list of at most 100 variant ids");
            None
        }
    }
}

/// `PATCH /api/payments/license-keys/{id}`: at least one change.
#[request]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UpdateLicenseKeyRequest {
    #[field(pattern = "^[A-Za-z0-9-]{1,64}$", message = "is not a valid id")]
    pub id: String,
    /// Disable (true) or enable again (false).
    #[field(flag)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub disabled: Option<bool>,
    /// How many machines it may be activated on.
    #[field(min = 1, max = 10000)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub activation_limit: Option<u32>,
    /// No limit on machines (not with `activationLimit`).
    #[field(flag)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub unlimited_activations: Option<bool>,
    /// When it stops working: an RFC 3339 time, or a date (its 00:00 UTC).
    #[field(rule = validate::INSTANT)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub expires_at: Option<String>,
    /// Never expires (not with `expiresAt`).
    #[field(flag)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub never_expires: Option<bool>,
}

/// `PUT /api/payments/sync`: a new interval between background syncs.
#[request(only = "is not a field of this request")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SyncSettings {
    #[field(min = 60, max = 86400)]
    pub interval_secs: u64,
}

/// `GET /api/payments/webhooks`.
#[request]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, ts_rs::TS, utoipa::ToSchema)]
pub struct WebhookLogRequest {
    /// Default 50.
    #[field(min = 1, max = 500)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub limit: Option<u32>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sync::{MAX_INTERVAL, MIN_INTERVAL};
    use staffroom_base::request::Request;
    use proptest::prelude::*;
    use serde_json::{json, Value};

    /// Any JSON value a door might hand over for one field.
    fn any_value() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(|n| json!(n)),
            (0u32..3000).prop_map(|n| json!(n)),
            any::<f64>().prop_map(|n| json!(n)),
            "[A-Za-z0-9_-]{0,70}".prop_map(Value::String),
            // The edges of the bounds.
            "[A-Za-z0-9-]{0,2}".prop_map(Value::String),
            "[A-Za-z0-9-]{63,65}".prop_map(Value::String),
            prop::sample::select(vec![0i64, 1, 2, 2147483647, 2147483648]).prop_map(|n| json!(n)),
            prop::sample::select(vec!["0", "1", " 7 ", "2147483647", "2147483648", "1.5"]).prop_map(|s| json!(s)),
            "\\PC{0,20}".prop_map(Value::String),
            (0u64..5_000_000_000).prop_map(|n| Value::String(n.to_string())),
        ]
    }

    /// The bounds #[request] wrote for `RefundRequest`, restated plainly.
    fn refund_is_valid(id: &Value, amount: &Value) -> bool {
        let id_ok = id.as_str().is_some_and(|id| {
            (1..=64).contains(&id.len()) && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        });
        let amount_ok = match amount {
            Value::Null => true,
            Value::Number(n) => n
                .as_u64()
                .or_else(|| n.as_f64().filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= 4e9).map(|f| f as u64))
                .is_some_and(|n| (1..=2147483647).contains(&n)),
            // Text is typed by the door that received it (a query string's); in JSON it is text.
            _ => false,
        };
        id_ok && amount_ok
    }

    proptest! {
        /// What #[request] writes accepts exactly what the schema's bounds allow, and a refusal
        /// names only the fields that broke them.
        #[test]
        fn a_derived_parser_keeps_to_its_stated_bounds(id in any_value(), amount in any_value()) {
            let input = json!({ "id": id, "amount": amount });
            let read = RefundRequest::from_input(input.as_object().unwrap());
            prop_assert_eq!(read.is_ok(), refund_is_valid(&id, &amount), "{:?}", read);
            if let Err(error) = read {
                let named: Vec<String> = error.details.unwrap()["fields"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|f| f["field"].as_str().unwrap().to_string())
                    .collect();
                prop_assert!(!named.is_empty() && named.iter().all(|f| f == "id" || f == "amount"), "{:?}", named);
            }
        }

        /// A list's search is refused exactly when the schema's pattern and length refuse it
        /// (schemathesis once found "\u{c};x" accepted: trimming had dropped the form feed).
        #[test]
        fn a_search_is_refused_exactly_when_its_schema_refuses_it(search in "[ -~\t\x0c\u{85}\u{a0}é]{0,102}") {
            let schema = regex::Regex::new("^[^\\x00-\\x1f\\x7f-\\x9f]*$").unwrap();
            let allowed = schema.is_match(&search) && search.chars().count() <= 100;
            let read = ListProductsRequest::from_input(json!({ "search": search }).as_object().unwrap());
            prop_assert_eq!(read.is_ok(), allowed, "{:?}", read);
        }
    }

    fn refused_action(input: Value) -> Vec<(String, String)> {
        let error = SubscriptionActionRequest::from_input(input.as_object().unwrap()).expect_err("refused");
        let fields: Vec<FieldError> = serde_json::from_value(error.details.unwrap()["fields"].clone()).unwrap();
        fields.into_iter().map(|f| (f.field, f.message)).collect()
    }

    #[test]
    fn every_field_given_is_checked_whichever_action_it_is_for() {
        let field = |name: &str, message: &str| vec![(name.to_string(), message.to_string())];
        let asked = |action: &str, body: Value| {
            let mut input = body.as_object().unwrap().clone();
            input.insert("id".into(), json!("42"));
            input.insert("action".into(), json!(action));
            Value::Object(input)
        };
        assert_eq!(
            refused_action(asked("resume", json!({"resumesAt": "2024-01-01T12:99:00Z"}))),
            field("resumesAt", "must be an RFC 3339 time")
        );
        assert_eq!(
            refused_action(asked("cancel", json!({"variantId": "12a"}))),
            field("variantId", "must be a variant id (digits)")
        );
        assert_eq!(refused_action(asked("unpause", json!({"mode": "forever"}))), field("mode", "must be void or free"));
        assert_eq!(
            refused_action(asked("pause", json!({"resumesAt": "2020-01-01T00:00:00Z"}))),
            field("resumesAt", "must be in the future")
        );
        assert_eq!(refused_action(asked("change-plan", json!({}))), field("variantId", "is required"));
        assert_eq!(
            refused_action(asked("archive", json!({}))),
            field("action", "must be one of cancel, resume, pause, unpause, change-plan")
        );
        // Every bad field at once.
        assert_eq!(refused_action(asked("pause", json!({"mode": 1, "variantId": ""}))).len(), 2);

        let read = |action: &str, body: Value| {
            SubscriptionActionRequest::from_input(asked(action, body).as_object().unwrap()).unwrap().action()
        };
        assert_eq!(
            read("pause", json!({"resumesAt": "2099-01-01T10:00:00+02:00"})),
            SubscriptionAction::Pause { mode: "void".into(), resumes_at: Some("2099-01-01T08:00:00Z".into()) }
        );
        assert_eq!(read("resume", json!({"resumesAt": "2099-01-01T10:00:00Z", "mode": null})), SubscriptionAction::Resume);
    }

    /// The interval's bounds are stated once, on the request; they must be the sync's own.
    #[test]
    fn the_sync_interval_bounds_are_the_syncs_own() {
        let (min, max) = (MIN_INTERVAL.as_secs(), MAX_INTERVAL.as_secs());
        for (secs, allowed) in [(min - 1, false), (min, true), (max, true), (max + 1, false)] {
            let input = serde_json::json!({ "intervalSecs": secs });
            let read = SyncSettings::from_input(input.as_object().unwrap());
            assert_eq!(read.is_ok(), allowed, "{secs} s");
        }
    }
}
