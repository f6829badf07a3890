//! Validation of the payment area's queries and bodies: every bad field is named at once.

use serde::Serialize;
use serde_json::{Map, Value};

use staffroom_auth::validate::EMAIL;
use staffroom_base::request::Fields;
use staffroom_macros::request;
use staffroom_base::error::FieldError;
use staffroom_base::request::{Regex, TextRule};
use std::sync::LazyLock;

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
#[request]
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NewOrder {
    #[field(pattern = "^[A-Za-z0-9-]{1,64}$", min_length = 1, max_length = 64, message = "is not a valid id")]
    pub product_id: String,
    /// One of the product's variants; its only one when absent.
    #[field(pattern = "^[A-Za-z0-9-]{1,64}$", min_length = 1, max_length = 64, message = "is not a valid id")]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub variant_id: Option<String>,
    #[field(pattern = "^[A-Za-z0-9-]{1,64}$", min_length = 1, max_length = 64, message = "is not a valid id")]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub customer_id: Option<String>,
    #[field(rule = EMAIL)]
    pub email: String,
    // The buyer's name; blank is no name.
    #[field(max_length = 255, trim)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub name: Option<String>,
    /// `country` (ISO 3166-1 alpha-2), and any other lines as strings of at most 200 characters.
    #[field(with = billing_address)]
    #[schema(schema_with = billing_address_schema)]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "({ country: string } & Record<string, string>) | null")]
    pub billing_address: Option<Map<String, Value>>,
    /// A discount code the checkout applies: 3 to 256 letters and digits, in any case.
    #[field(pattern = "^[A-Za-z0-9]{3,256}$", min_length = 3, max_length = 256, message = "must be 3 to 256 letters and digits")]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub discount_code: Option<String>,
    /// Passed to the checkout: at most 50 keys of 1 to 40 characters, 16 KiB as JSON;
    /// `order_id` is Staffroom's own.
    #[field(with = metadata)]
    #[schema(schema_with = metadata_schema)]
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    #[ts(optional, type = "Record<string, unknown>")]
    pub metadata: Map<String, Value>,
}

impl NewOrder {
    /// The code as the provider keeps its codes: in capitals.
    pub fn discount_code(&self) -> Option<String> {
        self.discount_code.as_deref().map(str::to_ascii_uppercase)
    }

    /// The buyer's name, if one was given.
    pub fn buyer_name(&self) -> Option<String> {
        self.name.clone().filter(|name| !name.is_empty())
    }
}

fn billing_address(fields: &mut Fields) -> Option<Map<String, Value>> {
    let value = fields.value("billingAddress");
    billing_address_field(value, fields.errors())
}

fn metadata(fields: &mut Fields) -> Map<String, Value> {
    let value = fields.value("metadata");
    metadata_field(value, fields.errors())
}

/// The schema of a billing address: an assigned country code, and other lines as short strings
/// (or `null`, which is no address).
fn billing_address_schema() -> utoipa::openapi::schema::Object {
    use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
    let line = ObjectBuilder::new().schema_type(Type::String).max_length(Some(200)).build();
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::Object, Type::Null]))
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

/// The schema of an order's metadata (or `null`, which is none). What JSON Schema cannot say,
/// its 16 KiB, is checked too.
fn metadata_schema() -> utoipa::openapi::schema::Object {
    use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
    let key = ObjectBuilder::new()
        .schema_type(Type::String)
        .min_length(Some(1))
        .max_length(Some(40))
        .pattern(Some("^(?!order_id$)"));
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::Object, Type::Null]))
        .max_properties(Some(MAX_METADATA_KEYS))
        .property_names(Some(key.build()))
        .build()
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

/// An instant a list or a change names: an RFC 3339 time, or a date (its 00:00 UTC). The
/// schema says it with JSON Schema's `date-time` and `date` formats.
pub const INSTANT: TextRule = TextRule {
    check: is_instant,
    message: "must be an RFC 3339 time or a date (YYYY-MM-DD)",
    formats: &["date-time", "date"],
    max_length: None,
};

/// An RFC 3339 time alone (JSON Schema's `date-time`).
pub const TIME: TextRule =
    TextRule { check: is_time, message: "must be an RFC 3339 time", formats: &["date-time"], max_length: None };

/// RFC 3339's `full-date` and `date-time`, as written (chrono's own parsers also take a space
/// for the `T`, or a month of one digit); chrono then checks that the date and time exist.
static FULL_DATE: LazyLock<Regex> = LazyLock::new(|| Regex::new("^[0-9]{4}-[0-9]{2}-[0-9]{2}$").expect("a pattern"));
static DATE_TIME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new("^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})$")
        .expect("a pattern")
});

/// Whether `text` is an [`INSTANT`].
pub fn is_instant(text: &str) -> bool {
    instant(text).is_some()
}

/// Whether `text` is a [`TIME`].
pub fn is_time(text: &str) -> bool {
    time(text).is_some()
}

fn time(text: &str) -> Option<chrono::DateTime<chrono::Utc>> {
    if !DATE_TIME.is_match(text) {
        return None;
    }
    Some(chrono::DateTime::parse_from_rfc3339(text).ok()?.with_timezone(&chrono::Utc))
}

/// The instant `text` names, as the cache writes times (RFC 3339 UTC with `Z`): a bare date is
/// its 00:00 UTC.
pub fn instant(text: &str) -> Option<String> {
    let time = if FULL_DATE.is_match(text) {
        chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d").ok()?.and_hms_opt(0, 0, 0)?.and_utc()
    } else {
        time(text)?
    };
    Some(time.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;
    use staffroom_base::error::{Error, Result};

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

    fn new_order(body: &Value) -> Result<NewOrder> {
        use staffroom_base::request::Request;
        NewOrder::from_input(body.as_object().expect("an object"))
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
        assert!(is_country("DE") && !is_country("de") && !is_country("UK"));
    }

    proptest! {
        #[test]
        fn arbitrary_bodies_and_queries_never_panic(s in "\\PC{0,300}", k in "\\PC{0,12}", v in "\\PC{0,12}") {
            if let Ok(value @ Value::Object(_)) = serde_json::from_str::<Value>(&s) {
                let _ = new_order(&value);
            }
            use staffroom_base::request::Request;
            let _ = crate::requests::ListSubscriptionsRequest::from_input(&query(&[(k.as_str(), v.as_str())]));
        }
    }
}
