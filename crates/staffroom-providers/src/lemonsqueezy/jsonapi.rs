//! Lenient JSON:API documents: unknown fields are ignored, ids may come as strings or numbers,
//! and attributes are read one by one so a new or null field never breaks decoding.

use serde::Deserialize;
use serde_json::{Map, Value};

use staffroom_base::error::{Error, Result};

/// A JSON:API document (`data` one resource or many).
#[derive(Debug, Clone, Deserialize)]
pub struct Document {
    #[serde(default)]
    pub data: Value,
    #[serde(default)]
    pub links: Option<Map<String, Value>>,
    #[serde(default)]
    pub meta: Option<Value>,
}

/// One resource object.
#[derive(Debug, Clone, PartialEq)]
pub struct Resource {
    pub id: String,
    pub kind: String,
    pub attributes: Map<String, Value>,
    /// The ids each relationship names in its `data` (the API sends them with `include`).
    pub related: Map<String, Value>,
}

fn bad(what: &str) -> Error {
    Error::integration(super::client::PROVIDER, None, format!("Lemon Squeezy answered with {what}"))
}

/// An id as a string, whether the JSON has a string or a number.
pub fn id_of(value: &Value) -> Option<String> {
    match value {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

impl Resource {
    /// A resource from its JSON object.
    pub fn from_value(value: &Value) -> Result<Resource> {
        let id = value.get("id").and_then(id_of).ok_or_else(|| bad("a resource without an id"))?;
        let kind = value.get("type").and_then(Value::as_str).unwrap_or_default().to_string();
        let attributes = value.get("attributes").and_then(Value::as_object).cloned().unwrap_or_default();
        let related = value
            .get("relationships")
            .and_then(Value::as_object)
            .map(|all| all.iter().filter_map(|(name, r)| Some((name.clone(), r.get("data")?.clone()))).collect())
            .unwrap_or_default();
        Ok(Resource { id, kind, attributes, related })
    }

    /// A string attribute (numbers are turned into strings; null and absent are `None`).
    pub fn str(&self, key: &str) -> Option<String> {
        match self.attributes.get(key)? {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            Value::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    }

    /// An integer attribute (strings of digits accepted).
    pub fn int(&self, key: &str) -> Option<i64> {
        match self.attributes.get(key)? {
            Value::Number(n) => n.as_i64().or_else(|| n.as_f64().map(|f| f.round() as i64)),
            Value::String(s) => s.parse().ok(),
            _ => None,
        }
    }

    /// The ids relationship `name` names (none when the answer did not include them).
    pub fn related_ids(&self, name: &str) -> Vec<String> {
        match self.related.get(name) {
            Some(Value::Array(items)) => items.iter().filter_map(|i| i.get("id").and_then(id_of)).collect(),
            Some(one @ Value::Object(_)) => one.get("id").and_then(id_of).into_iter().collect(),
            _ => Vec::new(),
        }
    }

    /// A boolean attribute.
    pub fn bool(&self, key: &str) -> Option<bool> {
        self.attributes.get(key).and_then(Value::as_bool)
    }
}

impl Document {
    /// `data` as a list of resources.
    pub fn resources(&self) -> Result<Vec<Resource>> {
        match &self.data {
            Value::Array(items) => items.iter().map(Resource::from_value).collect(),
            Value::Null => Ok(Vec::new()),
            _ => Err(bad("a single resource where a list was expected")),
        }
    }

    /// `data` as one resource.
    pub fn resource(&self) -> Result<Resource> {
        match &self.data {
            Value::Object(_) => Resource::from_value(&self.data),
            _ => Err(bad("no resource")),
        }
    }

    /// `meta.page.lastPage`: how many pages the list has, when the provider says.
    pub fn last_page(&self) -> Option<u32> {
        self.meta.as_ref()?.get("page")?.get("lastPage")?.as_u64().and_then(|n| u32::try_from(n).ok())
    }

    /// `links.next`, when there is a next page.
    pub fn next_link(&self) -> Option<String> {
        self.links.as_ref()?.get("next")?.as_str().map(str::to_string)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn lenient_decoding() {
        let doc: Document = serde_json::from_value(json!({
            "jsonapi": {"version": "1.0"},
            "meta": {"page": {"currentPage": 1}},
            "links": {"first": "x", "next": null},
            "data": [{"type": "subscriptions", "id": 7, "attributes": {"customer_id": null, "status": "brand_new_status", "price": "1200", "extra": {"a": 1}}}],
            "included": []
        }))
        .unwrap();
        let resources = doc.resources().unwrap();
        assert_eq!(resources[0].id, "7");
        assert_eq!(resources[0].str("customer_id"), None);
        assert_eq!(resources[0].str("status").as_deref(), Some("brand_new_status"));
        assert_eq!(resources[0].int("price"), Some(1200));
        assert_eq!(doc.next_link(), None);
    }

    proptest! {
        #[test]
        fn arbitrary_documents_never_panic(s in "\\PC{0,400}") {
            if let Ok(value) = serde_json::from_str::<Value>(&s) {
                if let Ok(doc) = serde_json::from_value::<Document>(value) {
                    let _ = doc.resources();
                    let _ = doc.resource();
                    let _ = doc.next_link();
                }
            }
        }
    }
}
