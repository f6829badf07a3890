//! Reading an operation's input. A door hands over one JSON object of named fields: over HTTP the
//! path parameters, then the query parameters (as strings) or the JSON body's fields; from the
//! desktop, the object the window sent. Each request type reads it leniently and checks every
//! field before refusing, so a refusal names every bad field at once (SPEC section 2) rather
//! than the first one a deserializer trips over.

use serde::Serialize;
use serde_json::{Map, Value};

/// The patterns of request fields, as what #[request] writes checks them.
pub use regex::Regex;

use crate::error::{Error, FieldError, Result};

/// An operation's input: its fields by name.
pub type Input = Map<String, Value>;

/// A request type: what an operation takes, declared with its constraints for the OpenAPI
/// document and the UI's types, and read from an [`Input`] by checking every field.
pub trait Request: Serialize + ts_rs::TS + utoipa::ToSchema + Send + Sized + 'static {
    fn from_input(input: &Input) -> Result<Self>;
}

/// The largest page number a list takes (and the largest of any number without a bound of its
/// own): within what every client can count, as JSON Schema's `int32`.
pub const MAX_NUMBER: u32 = i32::MAX as u32;

/// The request of an operation that takes nothing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, ts_rs::TS, utoipa::ToSchema)]
pub struct NoInput {}

impl Request for NoInput {
    fn from_input(_: &Input) -> Result<Self> {
        Ok(NoInput {})
    }
}

/// A rule of a text field that a JSON Schema states with formats rather than bounds (a date,
/// a time): its check, its refusal, and the formats, any of which the text may have. A field
/// says `#[field(rule = PATH)]`, and both its reading and its schema come from here.
pub struct TextRule {
    pub check: fn(&str) -> bool,
    pub message: &'static str,
    /// JSON Schema formats (`date`, `date-time`).
    pub formats: &'static [&'static str],
    /// The most characters it may have, when the check holds it to a number.
    pub max_length: Option<usize>,
}

impl TextRule {
    /// The field's schema: a string of one of the formats (or `null`, when the field may be
    /// absent, as the reading takes `null`), described as its doc comment describes it.
    pub fn schema(&self, description: &str, optional: bool) -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{AnyOfBuilder, ObjectBuilder, SchemaFormat, Type};
        let string = |format: &str| {
            ObjectBuilder::new()
                .schema_type(Type::String)
                .format(Some(SchemaFormat::Custom(format.into())))
                .max_length(self.max_length)
        };
        let description = (!description.is_empty()).then(|| description.to_string());
        match self.formats {
            [format] if !optional => string(format).description(description).into(),
            [format] => string(format)
                .schema_type(utoipa::openapi::schema::SchemaType::from_iter([Type::String, Type::Null]))
                .description(description)
                .into(),
            formats => {
                let mut any = AnyOfBuilder::new().description(description);
                for format in formats {
                    any = any.item(string(format));
                }
                if optional {
                    any = any.item(ObjectBuilder::new().schema_type(Type::Null));
                }
                any.into()
            }
        }
    }
}

/// The schema of a field that is one of `names` (or `null`, when the field may be absent).
pub fn one_of_schema(names: &[&str], description: &str, optional: bool) -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
    let kind = if optional { SchemaType::from_iter([Type::String, Type::Null]) } else { SchemaType::new(Type::String) };
    let mut names: Vec<Option<&str>> = names.iter().copied().map(Some).collect();
    if optional {
        names.push(None);
    }
    ObjectBuilder::new()
        .schema_type(kind)
        .enum_values(Some(names))
        .description((!description.is_empty()).then(|| description.to_string()))
        .into()
}

/// Reads fields one by one, collecting every problem; [`Fields::finish`] refuses with them all.
pub struct Fields<'a> {
    input: &'a Input,
    errors: Vec<FieldError>,
}

impl<'a> Fields<'a> {
    pub fn new(input: &'a Input) -> Self {
        Fields { input, errors: Vec::new() }
    }

    /// A field's value; a `null` is the same as no value.
    pub fn value(&self, name: &str) -> Option<&'a Value> {
        self.input.get(name).filter(|v| !v.is_null())
    }

    /// Records a problem with a field.
    pub fn problem(&mut self, field: impl Into<String>, message: impl Into<String>) {
        self.errors.push(FieldError::new(field, message));
    }

    /// Whether a problem with `field`, or with one of its own fields or entries
    /// (`range.endIndex`, `requests[2]`), has been recorded.
    pub fn has_problem(&self, field: &str) -> bool {
        self.errors.iter().any(|e| {
            e.field.strip_prefix(field).is_some_and(|rest| rest.is_empty() || rest.starts_with('.') || rest.starts_with('['))
        })
    }

    /// The problems found so far, for checks that collect their own.
    pub fn errors(&mut self) -> &mut Vec<FieldError> {
        &mut self.errors
    }

    /// Refuses every field not in `known`, saying `why`.
    pub fn only(&mut self, known: &[&str], why: &str) {
        let unknown: Vec<String> = self.input.keys().filter(|k| !known.contains(&k.as_str())).cloned().collect();
        for name in unknown {
            self.problem(name, why);
        }
    }

    /// A whole number from `min` to `max`, as a JSON number (`30` or `30.0`, which JSON Schema
    /// counts as the same integer). A door that receives text (a query string) types it first
    /// (`OpTypes::text_input`), so a string here is refused, as the schema refuses it.
    pub fn whole_number(&mut self, name: &str, min: u32, max: u32) -> Option<u32> {
        let value = self.value(name)?;
        let number = match value {
            Value::Number(n) => n
                .as_u64()
                .or_else(|| {
                    n.as_f64().filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= f64::from(u32::MAX)).map(|f| f as u64)
                })
                .and_then(|n| u32::try_from(n).ok()),
            _ => None,
        };
        match number {
            Some(n) if (min..=max).contains(&n) => Some(n),
            _ => {
                self.problem(name, format!("must be a whole number from {min} to {max}"));
                None
            }
        }
    }

    /// A string field.
    pub fn string(&mut self, name: &str) -> Option<&'a str> {
        match self.value(name)? {
            Value::String(s) => Some(s),
            _ => {
                self.problem(name, "must be a string");
                None
            }
        }
    }

    /// A required string field.
    pub fn required_string(&mut self, name: &str) -> Option<&'a str> {
        if self.value(name).is_none() {
            self.problem(name, "is required");
            return None;
        }
        self.string(name)
    }

    /// `true` or `false`, as JSON (a door that receives text types it first).
    pub fn flag(&mut self, name: &str) -> Option<bool> {
        match self.value(name)? {
            Value::Bool(b) => Some(*b),
            _ => {
                self.problem(name, "must be true or false");
                None
            }
        }
    }

    /// One of `choices`, as a string.
    pub fn choice(&mut self, name: &str, choices: &[&'static str]) -> Option<&'static str> {
        let value = self.value(name)?;
        match choices.iter().find(|c| value.as_str() == Some(c)) {
            Some(choice) => Some(choice),
            None => {
                self.problem(name, format!("must be one of {}", choices.join(", ")));
                None
            }
        }
    }

    /// An object field read by its own request type, whose refusals are named under `name`
    /// (`location.index`).
    pub fn nested<T: Request>(&mut self, name: &str) -> Option<T> {
        let value = self.value(name)?;
        match value {
            Value::Object(fields) => self.read_as(name, fields),
            _ => {
                self.problem(name, "must be an object");
                None
            }
        }
    }

    /// A list field of `min` to `max` objects, each read by its own request type, whose
    /// refusals are named under `name[i]`.
    pub fn items<T: Request>(&mut self, name: &str, min: usize, max: usize) -> Option<Vec<T>> {
        let value = self.value(name)?;
        let Value::Array(items) = value else {
            self.problem(name, "must be a list");
            return None;
        };
        if !(min..=max).contains(&items.len()) {
            self.problem(name, format!("must hold {min} to {max} entries"));
            return None;
        }
        let mut read = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let place = format!("{name}[{i}]");
            match item {
                Value::Object(fields) => read.extend(self.read_as(&place, fields)),
                _ => self.problem(place, "must be an object"),
            }
        }
        (read.len() == items.len()).then_some(read)
    }

    /// `fields` read as a `T`, its refusals named under `place`.
    pub fn read_as<T: Request>(&mut self, place: &str, fields: &Input) -> Option<T> {
        match T::from_input(fields) {
            Ok(value) => Some(value),
            Err(error) => {
                let named: Vec<FieldError> = error
                    .details
                    .as_ref()
                    .and_then(|d| d.get("fields"))
                    .and_then(|f| serde_json::from_value(f.clone()).ok())
                    .unwrap_or_default();
                if named.is_empty() {
                    self.problem(place, error.message);
                }
                for problem in named {
                    let field = if problem.field.is_empty() { place.to_string() } else { format!("{place}.{}", problem.field) };
                    self.problem(field, problem.message);
                }
                None
            }
        }
    }

    /// Any JSON value (`null` is none), for a field passed on as given.
    pub fn any(&mut self, name: &str) -> Option<Value> {
        self.value(name).cloned()
    }

    /// One of `names`, as a string (its schema lists them).
    pub fn one_of(&mut self, name: &str, names: &[&str]) -> Option<String> {
        let value = self.value(name)?;
        match value.as_str().filter(|v| names.contains(v)) {
            Some(text) => Some(text.to_string()),
            None => {
                self.problem(name, format!("must be one of {}", names.join(", ")));
                None
            }
        }
    }

    /// The fields other than `names`, as a body of their own (for checks written for a body).
    pub fn without(&self, names: &[&str]) -> Value {
        Value::Object(
            self.input
                .iter()
                .filter(|(k, _)| !names.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        )
    }

    /// Adds the problems of a check that refused with `invalid_request` (any other error is
    /// passed on), and returns what it read.
    pub fn take<T>(&mut self, checked: Result<T>) -> Result<Option<T>> {
        match checked {
            Ok(value) => Ok(Some(value)),
            Err(error) if error.code == crate::error::ErrorCode::InvalidRequest => {
                let fields: Vec<FieldError> = error
                    .details
                    .as_ref()
                    .and_then(|d| d.get("fields"))
                    .and_then(|f| serde_json::from_value(f.clone()).ok())
                    .unwrap_or_default();
                if fields.is_empty() {
                    return Err(error);
                }
                self.errors.extend(fields);
                Ok(None)
            }
            Err(error) => Err(error),
        }
    }

    /// `value` when every field was fine, else the refusal naming every problem.
    pub fn finish<T>(self, value: impl FnOnce() -> T) -> Result<T> {
        if self.errors.is_empty() {
            Ok(value())
        } else {
            Err(Error::invalid(self.errors))
        }
    }
}

/// A list's search: at most 100 characters without control characters (a tab or a form feed
/// is one too, even where trimming would drop it), then trimmed, blank as absent.
pub fn search(fields: &mut Fields) -> Option<String> {
    let raw = fields.string("search");
    if raw.is_some_and(|s| s.chars().count() > 100 || s.chars().any(char::is_control)) {
        fields.problem("search", "must be at most 100 characters, without control characters");
    }
    raw.map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn input(value: Value) -> Input {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn numbers_come_as_json_and_every_problem_is_named() {
        let given = input(json!({"page": 2, "limit": 500, "open": "yes", "kind": "x", "size": "2", "on": "true"}));
        let mut fields = Fields::new(&given);
        assert_eq!(fields.whole_number("page", 1, MAX_NUMBER), Some(2));
        // Text is typed by the door that received it; here it is text, as the schema sees it.
        assert_eq!(fields.whole_number("size", 1, MAX_NUMBER), None);
        assert_eq!(fields.flag("on"), None);
        assert_eq!(fields.whole_number("limit", 1, 100), None);
        assert_eq!(fields.flag("open"), None);
        assert_eq!(fields.choice("kind", &["a", "b"]), None);
        assert_eq!(fields.whole_number("absent", 1, MAX_NUMBER), None);
        let error = fields.finish(|| ()).unwrap_err();
        let named: Vec<String> = error.details.unwrap()["fields"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["field"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(named, ["size", "on", "limit", "open", "kind"]);
    }

    #[test]
    fn null_is_absent() {
        let given = input(json!({"page": null}));
        let mut fields = Fields::new(&given);
        assert_eq!(fields.whole_number("page", 1, MAX_NUMBER), None);
        assert!(fields.finish(|| ()).is_ok());
        // An integer written as a float is the same integer; a fraction or a huge number is not.
        let given = input(json!({"a": 30.0, "b": 30.5, "c": 4294967296u64}));
        let mut fields = Fields::new(&given);
        assert_eq!(fields.whole_number("a", 1, 100), Some(30));
        assert_eq!(fields.whole_number("b", 1, 100), None);
        assert_eq!(fields.whole_number("c", 1, MAX_NUMBER), None);
    }
}
