//! Webhook payloads in both accepted shapes: the seed's (`event`, `data{id,type,attributes}`,
//! `meta{eventName,timestamp}`) and Lemon Squeezy's own (`meta{event_name, custom_data,
//! test_mode, webhook_id}`, `data{id,type,attributes,relationships}`).

use serde_json::{Map, Value};

use crate::lemonsqueezy::jsonapi::id_of;
use staffroom_base::error::FieldError;

/// Every event name Staffroom knows: the seed's seven and Lemon Squeezy's documented list.
/// Others are stored and acknowledged, never an error.
pub const KNOWN_EVENTS: &[&str] = &[
    "order_created",
    "order_paid",
    "order_refunded",
    "subscription_created",
    "subscription_updated",
    "subscription_cancelled",
    "subscription_resumed",
    "subscription_expired",
    "subscription_paused",
    "subscription_unpaused",
    "subscription_plan_changed",
    "subscription_payment_success",
    "subscription_payment_failed",
    "subscription_payment_recovered",
    "subscription_payment_refunded",
    "license_key_created",
    "license_key_updated",
    "affiliate_activated",
];

/// A delivery, parsed and checked.
#[derive(Debug, Clone, PartialEq)]
pub struct WebhookEvent {
    /// The event name, e.g. `order_created`.
    pub name: String,
    /// `meta.webhook_id`, when the provider sent one.
    pub webhook_id: Option<String>,
    /// `data.type`, e.g. `orders`, `subscriptions`, `subscription-invoices`.
    pub resource_type: String,
    /// `data.id`.
    pub resource_id: String,
    /// `data.attributes`.
    pub attributes: Map<String, Value>,
    /// `meta.custom_data` (our checkouts put `order_id` there).
    pub custom_data: Option<Map<String, Value>>,
    /// `meta.test_mode`.
    pub test_mode: Option<bool>,
    /// `meta.timestamp` (the seed's shape).
    pub timestamp: Option<String>,
}

impl WebhookEvent {
    /// Whether Staffroom knows this event name.
    pub fn is_known(&self) -> bool {
        KNOWN_EVENTS.contains(&self.name.as_str())
    }

    /// A string attribute.
    pub fn attr_str(&self, key: &str) -> Option<&str> {
        self.attributes.get(key).and_then(Value::as_str)
    }

    /// When the resource last changed, as the provider says (`attributes.updated_at`).
    pub fn updated_at(&self) -> Option<&str> {
        self.attr_str("updated_at").or(self.attr_str("updatedAt"))
    }

    /// Our local order id from the checkout's custom data.
    pub fn local_order_id(&self) -> Option<String> {
        id_of(self.custom_data.as_ref()?.get("order_id")?)
    }
}

fn string_or_number(value: Option<&Value>) -> Option<String> {
    id_of(value?)
}

/// Parses a JSON body (already known to be JSON) into an event, naming every bad field.
/// `header_event` is the `X-Event-Name` header, which must agree with the body when both exist.
pub fn parse(body: &Value, header_event: Option<&str>) -> Result<WebhookEvent, Vec<FieldError>> {
    let mut errors = Vec::new();
    let Some(root) = body.as_object() else {
        return Err(vec![FieldError::new("body", "must be a JSON object")]);
    };
    let meta = match root.get("meta") {
        None | Some(Value::Null) => None,
        Some(Value::Object(meta)) => Some(meta),
        Some(_) => {
            errors.push(FieldError::new("meta", "must be an object"));
            None
        }
    };

    let name = event_name(root, meta, header_event, &mut errors);
    let (resource_type, resource_id, attributes) = data_of(root, &mut errors);
    let webhook_id = meta.and_then(|m| string_or_number(m.get("webhook_id")));
    let custom_data = match meta.and_then(|m| m.get("custom_data")) {
        None | Some(Value::Null) => None,
        Some(Value::Object(c)) => Some(c.clone()),
        Some(_) => {
            errors.push(FieldError::new("meta.custom_data", "must be an object"));
            None
        }
    };
    let test_mode = meta.and_then(|m| m.get("test_mode")).and_then(Value::as_bool);
    let timestamp = meta.and_then(|m| m.get("timestamp")).and_then(Value::as_str).map(str::to_string);

    match (name, resource_type, resource_id) {
        (Some(name), Some(resource_type), Some(resource_id)) if errors.is_empty() => Ok(WebhookEvent {
            name,
            webhook_id,
            resource_type,
            resource_id,
            attributes,
            custom_data,
            test_mode,
            timestamp,
        }),
        _ => Err(errors),
    }
}

/// The event's name, from up to four places (`event`, `meta.eventName`, `meta.event_name`, the
/// `X-Event-Name` header); all that are present must agree.
fn event_name(
    root: &Map<String, Value>,
    meta: Option<&Map<String, Value>>,
    header_event: Option<&str>,
    errors: &mut Vec<FieldError>,
) -> Option<String> {
    let mut names: Vec<(&str, String)> = Vec::new();
    for (field, value) in [
        ("event", root.get("event")),
        ("meta.eventName", meta.and_then(|m| m.get("eventName"))),
        ("meta.event_name", meta.and_then(|m| m.get("event_name"))),
    ] {
        match value {
            None | Some(Value::Null) => {}
            Some(Value::String(name)) if !name.trim().is_empty() && name.len() <= 100 => {
                names.push((field, name.trim().to_string()))
            }
            Some(_) => errors.push(FieldError::new(field, "must be a non-empty string of at most 100 characters")),
        }
    }
    if let Some(header) = header_event.map(str::trim).filter(|h| !h.is_empty()) {
        names.push(("X-Event-Name", header.to_string()));
    }
    let Some((_, first)) = names.first() else {
        errors.push(FieldError::new("meta.event_name", "is required (or event / meta.eventName)"));
        return None;
    };
    for (field, other) in &names[1..] {
        if other != first {
            errors.push(FieldError::new(*field, format!("says '{other}' but the event is '{first}'")));
        }
    }
    Some(first.clone())
}

/// The resource the event is about (`data`): its type, its id and its attributes.
fn data_of(
    root: &Map<String, Value>,
    errors: &mut Vec<FieldError>,
) -> (Option<String>, Option<String>, Map<String, Value>) {
    let mut attributes = Map::new();
    let data = match root.get("data") {
        Some(Value::Object(data)) => data,
        None | Some(Value::Null) => {
            errors.push(FieldError::new("data", "is required"));
            return (None, None, attributes);
        }
        Some(_) => {
            errors.push(FieldError::new("data", "must be an object"));
            return (None, None, attributes);
        }
    };
    let resource_id = string_or_number(data.get("id"));
    if resource_id.is_none() {
        errors.push(FieldError::new("data.id", "is required: a string id"));
    }
    let resource_type = match data.get("type") {
        Some(Value::String(t)) if !t.is_empty() => Some(t.clone()),
        _ => {
            errors.push(FieldError::new("data.type", "is required: a string"));
            None
        }
    };
    match data.get("attributes") {
        None | Some(Value::Null) => {}
        Some(Value::Object(a)) => attributes = a.clone(),
        Some(_) => errors.push(FieldError::new("data.attributes", "must be an object")),
    }
    (resource_type, resource_id, attributes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn the_seed_shape() {
        let body = json!({
            "event": "order_paid",
            "data": {"id": "42", "type": "orders", "attributes": {"status": "paid"}},
            "meta": {"eventName": "order_paid", "timestamp": "2026-11-22T10:00:00Z"}
        });
        let event = parse(&body, None).unwrap();
        assert_eq!(event.name, "order_paid");
        assert_eq!((event.resource_type.as_str(), event.resource_id.as_str()), ("orders", "42"));
        assert_eq!(event.attr_str("status"), Some("paid"));
        assert_eq!(event.timestamp.as_deref(), Some("2026-11-22T10:00:00Z"));
        assert!(event.is_known());
    }

    #[test]
    fn the_provider_shape() {
        let body = json!({
            "meta": {"event_name": "subscription_updated", "webhook_id": "de55", "test_mode": true,
                     "custom_data": {"order_id": "ord_1"}},
            "data": {"type": "subscriptions", "id": 1830926, "attributes": {"status": "active", "updated_at": "2026-11-22T10:00:00.000000Z"},
                     "relationships": {"store": {"links": {}}}}
        });
        let event = parse(&body, Some("subscription_updated")).unwrap();
        assert_eq!(event.resource_id, "1830926");
        assert_eq!(event.webhook_id.as_deref(), Some("de55"));
        assert_eq!(event.local_order_id().as_deref(), Some("ord_1"));
        assert_eq!(event.updated_at(), Some("2026-11-22T10:00:00.000000Z"));
        assert_eq!(event.test_mode, Some(true));
    }

    #[test]
    fn names_must_agree_and_unknown_events_parse() {
        let body = json!({"event": "order_created", "meta": {"event_name": "order_refunded"}, "data": {"id": "1", "type": "orders"}});
        let errors = parse(&body, None).unwrap_err();
        assert_eq!(errors[0].field, "meta.event_name");
        let body = json!({"meta": {"event_name": "order_created"}, "data": {"id": "1", "type": "orders"}});
        assert_eq!(parse(&body, Some("order_refunded")).unwrap_err()[0].field, "X-Event-Name");
        let body = json!({"meta": {"event_name": "brand_new_event"}, "data": {"id": "1", "type": "things"}});
        assert!(!parse(&body, None).unwrap().is_known());
    }

    #[test]
    fn every_missing_field_is_named() {
        let fields: Vec<String> = parse(&json!({"meta": 3, "data": {"attributes": []}}), None)
            .unwrap_err()
            .into_iter()
            .map(|e| e.field)
            .collect();
        assert_eq!(fields, ["meta", "meta.event_name", "data.id", "data.type", "data.attributes"]);
        assert_eq!(parse(&json!([]), None).unwrap_err()[0].field, "body");
    }

    proptest! {
        #[test]
        fn arbitrary_json_never_panics(s in "\\PC{0,300}") {
            if let Ok(value) = serde_json::from_str::<Value>(&s) {
                let _ = parse(&value, None);
            }
        }
    }
}
