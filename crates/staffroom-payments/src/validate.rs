//! Validation of the payment area's queries and bodies: every bad field is named at once.

use serde::Serialize;
use serde_json::{Map, Value};

use staffroom_auth::validate::email_problem;
use staffroom_base::error::{Error, FieldError, Result};

/// Officially assigned ISO 3166-1 alpha-2 codes.
const COUNTRIES: &str = "AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ \
CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG \
GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ \
LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR \
NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ \
TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW";

/// Whether `code` is an assigned ISO 3166-1 alpha-2 country code (upper case).
pub fn is_country(code: &str) -> bool {
    code.len() == 2 && COUNTRIES.split_whitespace().any(|c| c == code)
}

/// Most metadata keys an order may carry.
pub const MAX_METADATA_KEYS: usize = 50;

/// Whether `id` can name a resource: a provider id (digits) or ours (a UUID). Anything else is
/// refused before any I/O.
pub fn is_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 64 && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
}

/// `POST /api/payments/orders`: an order (a checkout) for a product.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NewOrder {
    #[schema(min_length = 1, max_length = 64)]
    pub product_id: String,
    /// One of the product's variants; its only one when absent.
    #[schema(min_length = 1, max_length = 64)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub variant_id: Option<String>,
    #[schema(min_length = 1, max_length = 64)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub customer_id: Option<String>,
    #[schema(format = Email)]
    pub email: String,
    #[schema(max_length = 255)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub name: Option<String>,
    /// `country` (ISO 3166-1 alpha-2), and any other lines as strings of at most 200 characters.
    #[schema(schema_with = billing_address_schema)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "({ country: string } & Record<string, string>) | null")]
    pub billing_address: Option<Map<String, Value>>,
    /// A discount code the checkout applies: 3 to 256 letters and digits, in any case.
    #[schema(min_length = 3, max_length = 256, pattern = "^[A-Za-z0-9]{3,256}$")]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub discount_code: Option<String>,
    /// Passed to the checkout: at most 50 keys of 1 to 40 characters, 16 KiB as JSON;
    /// `order_id` is Staffroom's own.
    #[schema(schema_with = metadata_schema)]
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    #[ts(optional, type = "Record<string, unknown>")]
    pub metadata: Map<String, Value>,
}

/// The schema of a billing address: an assigned country code, and other lines as short strings.
fn billing_address_schema() -> utoipa::openapi::schema::Object {
    use utoipa::openapi::schema::{ObjectBuilder, Type};
    let line = ObjectBuilder::new().schema_type(Type::String).max_length(Some(200)).build();
    ObjectBuilder::new()
        .schema_type(Type::Object)
        .property(
            "country",
            ObjectBuilder::new().schema_type(Type::String).enum_values(Some(COUNTRIES.split_whitespace())),
        )
        .required("country")
        .additional_properties(Some(utoipa::openapi::schema::AdditionalProperties::RefOr(utoipa::openapi::RefOr::T(
            utoipa::openapi::schema::Schema::Object(line),
        ))))
        .build()
}

/// The schema of an order's metadata (what JSON Schema cannot say, its 16 KiB, is checked too).
fn metadata_schema() -> utoipa::openapi::schema::Object {
    use utoipa::openapi::schema::{ObjectBuilder, Type};
    let key = ObjectBuilder::new()
        .schema_type(Type::String)
        .min_length(Some(1))
        .max_length(Some(40))
        .pattern(Some("^(?!order_id$)"));
    ObjectBuilder::new()
        .schema_type(Type::Object)
        .max_properties(Some(MAX_METADATA_KEYS))
        .property_names(Some(key.build()))
        .build()
}

/// Hand-written, not `#[request]`: an order's fields are checked together (a billing address by
/// country, metadata by total size), by [`new_order`].
impl staffroom_base::request::Request for NewOrder {
    fn from_input(input: &staffroom_base::request::Input) -> Result<Self> {
        new_order(&Value::Object(input.clone()))
    }
}

fn id_field(object: &Map<String, Value>, name: &str, required: bool, errors: &mut Vec<FieldError>) -> Option<String> {
    match object.get(name) {
        None | Some(Value::Null) => {
            if required {
                errors.push(FieldError::new(name, "is required"));
            }
            None
        }
        Some(Value::String(s)) if !s.trim().is_empty() && s.len() <= 64 => Some(s.trim().to_string()),
        Some(_) => {
            errors.push(FieldError::new(name, "must be a non-empty string id"));
            None
        }
    }
}

/// Validates `POST /orders`.
pub fn new_order(body: &Value) -> Result<NewOrder> {
    let Some(object) = body.as_object() else {
        return Err(Error::invalid_field("body", "must be a JSON object"));
    };
    let mut errors = Vec::new();
    let product_id = id_field(object, "productId", true, &mut errors);
    let variant_id = id_field(object, "variantId", false, &mut errors);
    let customer_id = id_field(object, "customerId", false, &mut errors);
    let email = email_field(object.get("email"), &mut errors);
    let name = name_field(object.get("name"), &mut errors);
    let billing_address = billing_address_field(object.get("billingAddress"), &mut errors);
    let metadata = metadata_field(object.get("metadata"), &mut errors);
    let discount_code = discount_code_field(object.get("discountCode"), &mut errors);
    match (product_id, email) {
        (Some(product_id), Some(email)) if errors.is_empty() => {
            Ok(NewOrder { product_id, variant_id, customer_id, email, name, billing_address, discount_code, metadata })
        }
        _ => Err(Error::invalid(errors)),
    }
}

/// The buyer's e-mail: required.
fn email_field(value: Option<&Value>, errors: &mut Vec<FieldError>) -> Option<String> {
    let problem = match value {
        Some(Value::String(e)) => match email_problem(e) {
            Some(problem) => problem.to_string(),
            None => return Some(e.trim().to_string()),
        },
        None | Some(Value::Null) => "is required".to_string(),
        Some(_) => "must be a string".to_string(),
    };
    errors.push(FieldError::new("email", problem));
    None
}

/// The buyer's name: at most 255 characters, blank as absent.
fn name_field(value: Option<&Value>, errors: &mut Vec<FieldError>) -> Option<String> {
    match value {
        None | Some(Value::Null) => None,
        Some(Value::String(n)) if n.chars().count() <= 255 => Some(n.trim().to_string()).filter(|n| !n.is_empty()),
        Some(Value::String(_)) => {
            errors.push(FieldError::new("name", "must be at most 255 characters"));
            None
        }
        Some(_) => {
            errors.push(FieldError::new("name", "must be a string"));
            None
        }
    }
}

/// A discount code, upper-cased (the provider's codes are capitals): 3 to 256 letters and digits.
fn discount_code_field(value: Option<&Value>, errors: &mut Vec<FieldError>) -> Option<String> {
    match value {
        None | Some(Value::Null) => None,
        Some(Value::String(code))
            if (3..=256).contains(&code.len()) && code.chars().all(|c| c.is_ascii_alphanumeric()) =>
        {
            Some(code.to_ascii_uppercase())
        }
        Some(_) => {
            errors.push(FieldError::new("discountCode", "must be 3 to 256 letters and digits"));
            None
        }
    }
}

/// A billing address: an assigned country code, and other lines of at most 200 characters.
fn billing_address_field(value: Option<&Value>, errors: &mut Vec<FieldError>) -> Option<Map<String, Value>> {
    let address = match value {
        None | Some(Value::Null) => return None,
        Some(Value::Object(address)) => address,
        Some(_) => {
            errors.push(FieldError::new("billingAddress", "must be an object with a country"));
            return None;
        }
    };
    match address.get("country") {
        Some(Value::String(c)) if is_country(c) => {}
        None | Some(Value::Null) => errors.push(FieldError::new("billingAddress.country", "is required")),
        Some(_) => {
            errors.push(FieldError::new("billingAddress.country", "must be an ISO 3166-1 alpha-2 code, e.g. GB"))
        }
    }
    for (key, value) in address {
        match value {
            Value::String(v) if v.chars().count() <= 200 => {}
            _ if key == "country" => {}
            _ => errors
                .push(FieldError::new(format!("billingAddress.{key}"), "must be a string of at most 200 characters")),
        }
    }
    Some(address.clone())
}

/// An order's metadata: a few short keys, none of them ours, at most 16 KiB as JSON.
fn metadata_field(value: Option<&Value>, errors: &mut Vec<FieldError>) -> Map<String, Value> {
    let metadata = match value {
        None | Some(Value::Null) => return Map::new(),
        Some(Value::Object(m)) => m,
        Some(_) => {
            errors.push(FieldError::new("metadata", "must be an object"));
            return Map::new();
        }
    };
    if metadata.len() > MAX_METADATA_KEYS {
        errors.push(FieldError::new("metadata", format!("may have at most {MAX_METADATA_KEYS} keys")));
    }
    if metadata.keys().any(|k| k.is_empty() || k.len() > 40) {
        errors.push(FieldError::new("metadata", "keys must be 1 to 40 characters"));
    }
    if metadata.contains_key("order_id") {
        errors.push(FieldError::new("metadata.order_id", "is reserved for Staffroom's own order id"));
    }
    if serde_json::to_vec(metadata).map(|b| b.len()).unwrap_or(0) > 16 * 1024 {
        errors.push(FieldError::new("metadata", "must be at most 16 KiB as JSON"));
    }
    metadata.clone()
}

/// Whether `text` is an instant `GET /orders` filters by: RFC 3339, or a bare date.
pub fn is_instant(text: &str) -> bool {
    instant(text).is_some()
}

/// The instant `text` names, as the cache writes times (RFC 3339 UTC with `Z`): a bare date is
/// its 00:00 UTC.
pub fn instant(text: &str) -> Option<String> {
    let time = match chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d") {
        Ok(date) => date.and_hms_opt(0, 0, 0)?.and_utc(),
        Err(_) => chrono::DateTime::parse_from_rfc3339(text).ok()?.with_timezone(&chrono::Utc),
    };
    Some(time.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn fields(err: Error) -> Vec<String> {
        err.details.unwrap()["fields"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["field"].as_str().unwrap().to_string())
            .collect()
    }

    fn query(pairs: &[(&str, &str)]) -> staffroom_base::request::Input {
        pairs.iter().map(|(k, v)| (k.to_string(), json!(v))).collect()
    }

    #[test]
    fn list_queries() {
        use crate::requests::{ListOrdersRequest, ListSubscriptionsRequest};
        use staffroom_base::request::Request;
        let ok = ListSubscriptionsRequest::from_input(&query(&[])).unwrap();
        assert_eq!((ok.page, ok.limit), (None, None));
        for bad in ["0", "101", "abc", "-1", "1.5", ""] {
            assert_eq!(
                fields(ListOrdersRequest::from_input(&query(&[("limit", bad)])).unwrap_err()),
                ["limit"],
                "{bad}"
            );
        }
        assert_eq!(fields(ListOrdersRequest::from_input(&query(&[("page", "0")])).unwrap_err()), ["page"]);
        let err = ListSubscriptionsRequest::from_input(&query(&[
            ("page", "x"),
            ("limit", "0"),
            ("status", "trialing"),
            ("customerId", "a b"),
        ]));
        assert_eq!(fields(err.unwrap_err()), ["page", "limit", "status", "customerId"]);
    }

    #[test]
    fn order_bodies() {
        let ok = new_order(
            &json!({"productId": "1", "email": "a@example.com", "billingAddress": {"country": "GB", "zip": "NW1"}}),
        )
        .unwrap();
        assert_eq!(ok.product_id, "1");
        let many: Map<String, Value> = (0..51).map(|i| (format!("k{i}"), json!(i))).collect();
        let err = new_order(&json!({"email": "nope", "billingAddress": {"country": "XX"}, "metadata": many}));
        assert_eq!(fields(err.unwrap_err()), ["productId", "email", "billingAddress.country", "metadata"]);
        assert_eq!(fields(new_order(&json!({"productId": "1"})).unwrap_err()), ["email"]);
        assert_eq!(fields(new_order(&json!({"productId": 1, "email": "a@example.com"})).unwrap_err()), ["productId"]);
        assert_eq!(
            fields(
                new_order(&json!({"productId": "1", "email": "a@example.com", "billingAddress": {"zip": "1"}}))
                    .unwrap_err()
            ),
            ["billingAddress.country"]
        );
        assert_eq!(fields(new_order(&json!([1])).unwrap_err()), ["body"]);
        assert!(is_country("DE") && !is_country("de") && !is_country("UK"));
    }

    proptest! {
        #[test]
        fn arbitrary_bodies_and_queries_never_panic(s in "\\PC{0,300}", k in "\\PC{0,12}", v in "\\PC{0,12}") {
            if let Ok(value) = serde_json::from_str::<Value>(&s) {
                let _ = new_order(&value);
            }
            use staffroom_base::request::Request;
            let _ = crate::requests::ListSubscriptionsRequest::from_input(&query(&[(k.as_str(), v.as_str())]));
        }
    }
}
