//! Docs request bodies held to Google's discovery document, as Docs' JSON parser holds them: a
//! field the schema does not name, or a value of the wrong type or outside its enum, is refused
//! (400 INVALID_ARGUMENT) before anything is applied. The document is the one the contract test
//! reads (`discovery/docs.v1.json`, copied from Google's published one). Drive's bodies are not
//! held so: what Drive v3 does with an unknown field is not documented.
//!
//! Like proto3 JSON, a `null` is an unset field and an integer may be written as a string of
//! digits. Unlike it, proto field names (`start_index`) are refused: the simulator's handlers
//! read the JSON names only, and no client of ours writes the others.

use std::sync::LazyLock;

use serde_json::{Map, Value};

/// Google Docs v1's schemas, parsed when the first request comes, without their descriptions
/// (most of the document, and of no use here).
static SCHEMAS: LazyLock<Map<String, Value>> = LazyLock::new(|| {
    let mut document: Value = serde_json::from_str(include_str!("../../discovery/docs.v1.json"))
        .expect("the discovery document kept in the repository is JSON");
    let mut schemas = document["schemas"].take();
    strip_descriptions(&mut schemas);
    match schemas {
        Value::Object(schemas) => schemas,
        _ => panic!("a discovery document has schemas"),
    }
});

fn strip_descriptions(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for key in ["description", "enumDescriptions", "enumDeprecated"] {
                map.remove(key);
            }
            map.values_mut().for_each(strip_descriptions);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_descriptions),
        _ => {}
    }
}

fn schema(name: &str) -> &'static Value {
    SCHEMAS.get(name).unwrap_or_else(|| panic!("no schema {name} in the discovery document"))
}

/// Checks a batchUpdate body's own fields (`writeControl`, …), not its requests: each request is
/// checked as it is applied ([`check_request`]). The error is Google's message for the first
/// problem found.
pub fn check_batch(body: &Value) -> Result<(), String> {
    match body {
        Value::Object(fields) => {
            let rest: Map<String, Value> =
                fields.iter().filter(|(key, _)| *key != "requests").map(|(k, v)| (k.clone(), v.clone())).collect();
            walk(&Value::Object(rest), schema("BatchUpdateDocumentRequest"), &SCHEMAS, "")
        }
        other => walk(other, schema("BatchUpdateDocumentRequest"), &SCHEMAS, ""),
    }
}

/// Checks the batch's request number `index` against the `Request` schema.
pub fn check_request(index: usize, request: &Value) -> Result<(), String> {
    walk(request, schema("Request"), &SCHEMAS, &format!("requests[{index}]"))
}

fn walk(value: &Value, schema: &Value, schemas: &Map<String, Value>, path: &str) -> Result<(), String> {
    if value.is_null() {
        return Ok(());
    }
    if let Some(name) = schema.get("$ref").and_then(Value::as_str) {
        let target = schemas.get(name).unwrap_or_else(|| panic!("no schema {name} in the discovery document"));
        return walk(value, target, schemas, path);
    }
    let kind = schema.get("type").and_then(Value::as_str).unwrap_or("any");
    let fits = match kind {
        "string" => value.is_string(),
        "integer" => value.is_i64() || value.is_u64() || value.as_str().is_some_and(|s| s.parse::<i64>().is_ok()),
        "number" => value.is_number(),
        "boolean" => value.is_boolean(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        _ => true,
    };
    if !fits {
        return Err(invalid_value(path, type_name(kind), value));
    }
    if let (Some(allowed), Some(text)) = (schema.get("enum").and_then(Value::as_array), value.as_str()) {
        if !allowed.iter().any(|a| a == text) {
            return Err(invalid_value(path, "TYPE_ENUM", value));
        }
    }
    match value {
        Value::Array(items) => match schema.get("items") {
            Some(item) => {
                items.iter().enumerate().try_for_each(|(i, v)| walk(v, item, schemas, &format!("{path}[{i}]")))
            }
            None => Ok(()),
        },
        Value::Object(object) => {
            let properties = schema.get("properties").and_then(Value::as_object);
            let additional = schema.get("additionalProperties");
            for (key, v) in object {
                let inner = if path.is_empty() { proto_name(key) } else { format!("{path}.{}", proto_name(key)) };
                match (properties.and_then(|p| p.get(key)), additional) {
                    (Some(s), _) | (None, Some(s)) => walk(v, s, schemas, &inner)?,
                    (None, None) if properties.is_some() => return Err(unknown_name(key, path)),
                    (None, None) => {}
                }
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// Google's message for a field its schema does not have.
fn unknown_name(key: &str, at: &str) -> String {
    if at.is_empty() {
        format!("Invalid JSON payload received. Unknown name \"{key}\": Cannot find field.")
    } else {
        format!("Invalid JSON payload received. Unknown name \"{key}\" at '{at}': Cannot find field.")
    }
}

/// Google's message for a value of the wrong type, or not one of its enum's.
fn invalid_value(at: &str, kind: &str, value: &Value) -> String {
    format!("Invalid JSON payload received. Invalid value at '{at}' ({kind}), {value}")
}

fn type_name(kind: &str) -> &'static str {
    match kind {
        "string" => "TYPE_STRING",
        "integer" => "TYPE_INT32",
        "number" => "TYPE_DOUBLE",
        "boolean" => "TYPE_BOOL",
        _ => "TYPE_MESSAGE",
    }
}

/// A JSON name as Google's messages name the field: the proto name (`insertText` →
/// `insert_text`).
fn proto_name(json_name: &str) -> String {
    let mut out = String::with_capacity(json_name.len() + 4);
    for c in json_name.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn batch(request: Value) -> Result<(), String> {
        check_request(0, &request)
    }

    #[test]
    fn a_request_as_the_planner_writes_it_passes() {
        let style = json!({"updateParagraphStyle": {
            "range": {"startIndex": 1, "endIndex": 5},
            "paragraphStyle": {"namedStyleType": "HEADING_1", "alignment": "CENTER"},
            "fields": "namedStyleType,alignment"
        }});
        assert_eq!(batch(style), Ok(()));
        // proto3 JSON: an integer as a string of digits, and null as unset.
        assert_eq!(
            batch(json!({"insertText": {"location": {"index": "3"}, "text": "x", "endOfSegmentLocation": null}})),
            Ok(())
        );
    }

    #[test]
    fn unknown_fields_wrong_types_and_enum_values_are_refused_as_google_words_it() {
        assert_eq!(
            batch(json!({"insertText": {"location": {"index": 1}, "text": "x", "bold": true}})),
            Err(
                "Invalid JSON payload received. Unknown name \"bold\" at 'requests[0].insert_text': Cannot find field."
                    .into()
            )
        );
        assert_eq!(
            batch(json!({"updateParagraphStyle": {"range": {"startIndex": 1, "endIndex": 2},
                "paragraphStyle": {"alignment": "LEFT"}, "fields": "alignment"}})),
            Err("Invalid JSON payload received. Invalid value at \
                 'requests[0].update_paragraph_style.paragraph_style.alignment' (TYPE_ENUM), \"LEFT\""
                .into())
        );
        assert_eq!(
            batch(json!({"insertText": {"location": {"index": "one"}, "text": "x"}})),
            Err("Invalid JSON payload received. Invalid value at 'requests[0].insert_text.location.index' \
                 (TYPE_INT32), \"one\""
                .into())
        );
        assert_eq!(
            check_batch(&json!({"requests": [], "revision": "r1"})),
            Err("Invalid JSON payload received. Unknown name \"revision\": Cannot find field.".into())
        );
        assert_eq!(
            check_batch(&json!({"requests": [{"bogus": 1}], "writeControl": {"requiredRevisionId": "r"}})),
            Ok(())
        );
        assert!(batch(json!({"insertText": {"location": {"start_index": 1}, "text": "x"}})).is_err());
    }
}
