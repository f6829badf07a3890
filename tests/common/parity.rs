//! Whether an operation's parser accepts and refuses what its own schema does.
//!
//! For each operation, inputs are made from its request's OpenAPI schema: a valid input, then
//! that input with each field (and each field's fields, a few levels down) replaced by values
//! around every bound the schema states, of every other type, and left out, plus an unknown
//! field. A JSON Schema validator (draft 2020-12, the dialect of OpenAPI 3.1) gives the schema's
//! verdict on each; the operation's own reading gives the parser's. Over HTTP a query-string
//! operation receives strings, so those inputs reach the parser as strings and the schema as
//! OpenAPI reads a query parameter (`7` for an integer, `true` for a boolean).
//!
//! Shared by the core's test (`tests/request_parity.rs`) and the desktop's
//! (`src-tauri/tests/request_parity.rs`).

#![allow(dead_code)]

use std::collections::BTreeSet;

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::{json, Map, Value};
use staffroom::api::OpTypes;
use staffroom::error::{ErrorCode, Result};

/// How deep inside a field the inputs go.
const DEPTH: usize = 6;
/// At most this many values of one field are tried (spread evenly over what was made).
const PER_FIELD: usize = 60;

/// One operation, as the test sees it.
pub struct Operation {
    pub name: &'static str,
    /// Whether its input travels as a query string (and path) rather than JSON.
    pub query: bool,
    pub types: OpTypes,
}

/// An input on which the two disagree.
#[derive(Debug)]
pub struct Mismatch {
    pub operation: &'static str,
    pub input: Value,
    pub schema_accepts: bool,
    pub parser: String,
    /// Where the two disagree: the fields the parser refused, or those the schema did.
    pub fields: Vec<String>,
    /// The parser's refusal, field by field (`field`, `message`).
    pub problems: Vec<(String, String)>,
}

impl Mismatch {
    /// One line: the operation, the input with long strings cut, both verdicts.
    pub fn short(&self) -> String {
        fn cut(value: &Value) -> Value {
            match value {
                Value::String(s) if s.chars().count() > 24 && std::env::var_os("PARITY_FULL").is_none() => {
                    json!(format!("{}…({} chars)", s.chars().take(12).collect::<String>(), s.chars().count()))
                }
                Value::Array(items) => Value::Array(items.iter().take(3).map(cut).collect()),
                Value::Object(fields) => Value::Object(fields.iter().map(|(k, v)| (k.clone(), cut(v))).collect()),
                other => other.clone(),
            }
        }
        let parser: String = self.parser.chars().take(160).collect();
        let verdict = if self.schema_accepts { "schema accepts" } else { "schema refuses" };
        format!("{}: {} {verdict}; parser: {parser}", self.operation, cut(&self.input))
    }
}

/// A rule a request keeps beyond what its schema can say: the parser may refuse, with `message`
/// on a field whose path holds `field`, an input the schema allows, where `applies` finds the input
/// breaking that rule.
pub struct Beyond {
    pub operation: &'static str,
    pub field: &'static str,
    pub message: &'static str,
    /// The rule, restated over the input as given and the refused field's path.
    pub applies: fn(&Value, &str) -> bool,
}

/// An address no one types into a back office, which JSON Schema's `idn-email` still admits: a
/// quoted local part, an address literal, or a domain without a dot (`is_plausible_email`).
pub const EMAIL_BEYOND: Beyond = Beyond {
    operation: "*",
    field: "mail",
    message: "is not a valid email address",
    applies: |input, field| {
        let address = at(input, field).as_str().unwrap_or_default();
        let domain = address.rsplit('@').next().unwrap_or_default();
        address.contains('"') || domain.starts_with('[') || !domain.contains('.')
    },
};

/// The value at a refused field's path (`requests[0].insertText.location`).
pub fn at<'a>(input: &'a Value, path: &str) -> &'a Value {
    path.split('.').fold(input, |value, part| match part.split_once('[') {
        Some((name, index)) => &value[name][index.trim_end_matches(']').parse::<usize>().unwrap_or(usize::MAX)],
        None => &value[part],
    })
}

/// Whether every problem of a refusal the schema would not make is a rule beyond it.
pub fn beyond_the_schema(mismatch: &Mismatch, rules: &[Beyond]) -> bool {
    mismatch.schema_accepts
        && !mismatch.problems.is_empty()
        && mismatch.problems.iter().all(|(field, message)| {
            rules.iter().any(|rule| {
                (rule.operation == "*" || rule.operation == mismatch.operation)
                    && field.contains(rule.field)
                    && message == rule.message
                    && (rule.applies)(&mismatch.input, field)
            })
        })
}

/// What was tried: how many inputs, how many the schema accepted.
#[derive(Debug, Default)]
pub struct Tally {
    pub inputs: usize,
    pub accepted: usize,
}

/// Every input made for `operation` on which the schema and the parser disagree.
pub fn mismatches(operation: &Operation, tally: &mut Tally) -> Vec<Mismatch> {
    let schemas = (operation.types.schemas)();
    let components: Map<String, Value> = schemas
        .components
        .iter()
        .map(|(name, schema)| (name.clone(), serde_json::to_value(schema).expect("a schema")))
        .collect();
    let request = serde_json::to_value(&schemas.request).expect("a schema");
    let maker = Maker::new(components);
    let validator = maker.validator(&request);
    let mut found = Vec::new();
    let mut seen = BTreeSet::new();
    for input in maker.inputs(&request) {
        let Value::Object(fields) = &input else { continue };
        let (given, typed) = if operation.query {
            // The parser gets what the door makes of the text; the schema, OpenAPI's reading.
            match as_query(fields, &maker, &request) {
                Some((text, typed)) => (operation.types.text_input(text), typed),
                None => continue,
            }
        } else {
            (fields.clone(), input.clone())
        };
        if !seen.insert(Value::Object(given.clone()).to_string()) {
            continue;
        }
        tally.inputs += 1;
        let schema_accepts = validator.is_valid(&typed);
        tally.accepted += usize::from(schema_accepts);
        let read: Result<()> = (operation.types.read)(&given);
        let agrees = match &read {
            Ok(()) => schema_accepts,
            // A refusal of what the schema allows, or any refusal other than a bad request, is
            // a disagreement.
            Err(error) => !schema_accepts && error.code == ErrorCode::InvalidRequest,
        };
        if !agrees {
            let problems: Vec<(String, String)> = match &read {
                Err(error) => error
                    .details
                    .as_ref()
                    .and_then(|d| d.get("fields"))
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .map(|f| {
                        let text = |key: &str| f.get(key).and_then(Value::as_str).unwrap_or_default().to_string();
                        (text("field"), text("message"))
                    })
                    .collect(),
                Ok(()) => Vec::new(),
            };
            let fields = match &read {
                Err(_) => problems.iter().map(|(field, _)| field.clone()).collect(),
                Ok(()) => validator.iter_errors(&typed).map(|e| format!("{} ({})", e.instance_path(), e.kind().keyword())).collect(),
            };
            found.push(Mismatch {
                problems,
                fields,
                operation: operation.name,
                input: Value::Object(given),
                schema_accepts,
                parser: match read {
                    Ok(()) => "accepted".into(),
                    Err(error) => format!("{:?}: {} {:?}", error.code, error.message, error.details),
                },
            });
        }
    }
    found
}

/// A query-string operation's input as text, as it travels, and as OpenAPI reads it for the
/// schema; none when a field's value cannot travel in a query string.
fn as_query(fields: &Map<String, Value>, maker: &Maker, request: &Value) -> Option<(Vec<(String, String)>, Value)> {
    let properties = maker.resolve(request).get("properties").cloned().unwrap_or_default();
    let mut given = Vec::new();
    let mut typed = Map::new();
    for (name, value) in fields {
        let text = match value {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            Value::Null => continue,
            Value::Array(_) | Value::Object(_) => return None,
        };
        let types = properties.get(name).map(|p| maker.types(p)).unwrap_or_default();
        let read = if types.contains("integer") && !text.is_empty() {
            text.parse::<i64>().map(Value::from).unwrap_or(Value::String(text.clone()))
        } else if types.contains("boolean") && (text == "true" || text == "false") {
            Value::Bool(text == "true")
        } else {
            Value::String(text.clone())
        };
        given.push((name.clone(), text));
        typed.insert(name.clone(), read);
    }
    Some((given, Value::Object(typed)))
}

/// A plain value of each format.
const VALID_FORMATS: &[(&str, &str)] = &[
    ("date-time", "2026-11-28T10:00:00Z"),
    ("date", "2026-11-28"),
    ("email", "staff@example.com"),
    ("idn-email", "staff@example.com"),
];

/// Values on both sides of each format's edges (RFC 3339's `date-time` and `date`).
const FORMAT_SAMPLES: &[(&str, &str)] = &[
    ("date-time", "2026-11-28T10:00:00Z"),
    ("date-time", "2026-11-28T10:00:00.123+01:00"),
    ("date-time", "2026-11-28t10:00:00z"),
    ("date-time", "2026-11-28 10:00:00Z"),
    ("date-time", "2026-11-28T10:00:00"),
    ("date-time", "2026-11-28T24:00:00Z"),
    ("date-time", "2026-02-29T10:00:00Z"),
    ("date-time", "2028-02-29T10:00:00Z"),
    ("date-time", "2026-11-28T10:00Z"),
    ("date-time", "2026-11-28T10:00:00+0100"),
    ("date-time", "2016-12-31T23:59:60Z"),
    ("date", "2026-11-28"),
    ("date", "2026-1-8"),
    ("date", "2026-02-30"),
    ("date", "2028-02-29"),
    ("date", "+2026-11-28"),
    ("date", "20261128"),
    ("idn-email", "first.last+tag@example.co.uk"),
    ("idn-email", "ünï@exämple.de"),
    ("idn-email", "a@localhost"),
    ("idn-email", "\"quoted\"@example.com"),
    ("idn-email", "a@[127.0.0.1]"),
    ("idn-email", "a..b@example.com"),
    ("idn-email", ".a@example.com"),
    ("idn-email", "a@-example.com"),
    ("idn-email", "a b@example.com"),
    ("idn-email", " staff@example.com"),
    ("idn-email", "staff@example.com "),
    ("idn-email", "x@y.z"),
];

/// Makes values from schemas, resolving references to the document's components.
struct Maker {
    components: Map<String, Value>,
    runner: std::cell::RefCell<TestRunner>,
}

impl Maker {
    fn new(components: Map<String, Value>) -> Maker {
        // A fixed seed: the same inputs every run, so a failure is the same failure again.
        let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]);
        Maker { components, runner: std::cell::RefCell::new(TestRunner::new_with_rng(Config::default(), rng)) }
    }

    /// A validator of `schema`, with the components its references name.
    fn validator(&self, schema: &Value) -> jsonschema::Validator {
        let mut root = schema.as_object().cloned().unwrap_or_default();
        root.insert("components".into(), json!({ "schemas": self.components }));
        jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            // A format is a bound like any other: the schema states it, so it is held to it.
            .should_validate_formats(true)
            .build(&Value::Object(root))
            .unwrap_or_else(|e| panic!("the schema compiles: {e}\n{schema}"))
    }

    /// The schema a reference names, or `schema` itself.
    fn resolve<'a>(&'a self, schema: &'a Value) -> &'a Value {
        match schema.get("$ref").and_then(Value::as_str) {
            Some(reference) => {
                let name = reference.rsplit('/').next().unwrap_or_default();
                self.resolve(self.components.get(name).unwrap_or_else(|| panic!("no component {name}")))
            }
            None => schema,
        }
    }

    /// The types a schema allows (its alternatives' too).
    fn types(&self, schema: &Value) -> BTreeSet<String> {
        let schema = self.resolve(schema);
        let mut types: BTreeSet<String> = match schema.get("type") {
            Some(Value::String(t)) => [t.clone()].into(),
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
            _ => BTreeSet::new(),
        };
        for key in ["oneOf", "anyOf", "allOf"] {
            for alternative in schema.get(key).and_then(Value::as_array).into_iter().flatten() {
                types.extend(self.types(alternative));
            }
        }
        types
    }

    /// The formats a schema names (its alternatives' too).
    fn formats(&self, schema: &Value) -> BTreeSet<String> {
        let schema = self.resolve(schema);
        let mut formats: BTreeSet<String> =
            schema.get("format").and_then(Value::as_str).map(str::to_owned).into_iter().collect();
        for key in ["oneOf", "anyOf", "allOf"] {
            for alternative in schema.get(key).and_then(Value::as_array).into_iter().flatten() {
                formats.extend(self.formats(alternative));
            }
        }
        formats
    }

    /// Strings matching a pattern (`^...$` as a whole), when the pattern is one a generator
    /// can follow.
    fn samples_of(&self, pattern: &str, count: usize) -> Vec<String> {
        let inner = pattern.strip_prefix('^').unwrap_or(pattern);
        let inner = inner.strip_suffix('$').unwrap_or(inner);
        let Ok(strategy) = proptest::string::string_regex(inner) else { return Vec::new() };
        let mut runner = self.runner.borrow_mut();
        (0..count).filter_map(|_| strategy.new_tree(&mut runner).ok().map(|tree| tree.current())).collect()
    }

    fn random_strings(&self, count: usize) -> Vec<String> {
        let strategy = "\\PC{0,12}";
        let mut runner = self.runner.borrow_mut();
        (0..count).filter_map(|_| strategy.new_tree(&mut runner).ok().map(|tree| tree.current())).collect()
    }

    /// A value the schema accepts, as plain as it can be made.
    fn valid(&self, schema: &Value, full: bool) -> Value {
        let schema = self.resolve(schema);
        if let Some(first) = schema.get("enum").and_then(Value::as_array).and_then(|e| e.first()) {
            return first.clone();
        }
        if let Some(constant) = schema.get("const") {
            return constant.clone();
        }
        for key in ["oneOf", "anyOf", "allOf"] {
            if let Some(first) = schema.get(key).and_then(Value::as_array).and_then(|a| a.first()) {
                // allOf's first part stands for the whole: utoipa writes a reference there.
                return self.valid(first, full);
            }
        }
        let types = self.types(schema);
        let number = |key: &str| schema.get(key).and_then(Value::as_i64);
        if types.contains("object") || schema.get("properties").is_some() {
            let required: BTreeSet<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            let mut object = Map::new();
            for (name, property) in schema.get("properties").and_then(Value::as_object).into_iter().flatten() {
                if full || required.contains(name.as_str()) {
                    object.insert(name.clone(), self.valid(property, full));
                }
            }
            // The one rule between two numbers the requests have: a range ends after it starts.
            if let (Some(start), Some(_)) = (object.get("startIndex").and_then(Value::as_i64), object.get("endIndex")) {
                object.insert("endIndex".into(), json!(start + 1));
            }
            return Value::Object(object);
        }
        if types.contains("array") {
            let item = schema.get("items").map(|items| self.valid(items, full)).unwrap_or(json!("x"));
            let count = number("minItems").unwrap_or(1).max(1) as usize;
            return Value::Array(vec![item; count]);
        }
        if types.contains("integer") || types.contains("number") {
            return json!(number("minimum").unwrap_or(0).max(1).min(number("maximum").unwrap_or(i64::MAX)));
        }
        if types.contains("boolean") {
            return json!(true);
        }
        let min = number("minLength").unwrap_or(1) as usize;
        let max = number("maxLength").map(|n| n as usize);
        if let Some(pattern) = schema.get("pattern").and_then(Value::as_str) {
            let fits = |s: &String| s.chars().count() >= min && max.is_none_or(|max| s.chars().count() <= max);
            if let Some(sample) = self.samples_of(pattern, 20).into_iter().find(fits) {
                return json!(sample);
            }
        }
        if let Some(format) = schema.get("format").and_then(Value::as_str) {
            if let Some((_, sample)) = VALID_FORMATS.iter().find(|(f, _)| *f == format) {
                return json!(sample);
            }
        }
        json!("a".repeat(min.max(1)))
    }

    /// Values to try in place of one that `schema` describes: around its bounds, of the wrong
    /// type, and, for objects and lists, with their own fields changed.
    fn candidates(&self, schema: &Value, depth: usize) -> Vec<Value> {
        let schema = self.resolve(schema);
        let mut values = vec![
            Value::Null,
            json!(true),
            json!(0),
            json!(-1),
            json!(1.5),
            json!(""),
            json!(" "),
            json!("x"),
            json!("7"),
            json!(" 7 "),
            json!("true"),
            json!("a\u{7}b"),
            // Where JSON Schema's (ECMA-262's) `\s` and Rust's differ: a byte-order mark is white
            // space to one, NEL to the other; U+3000 to both.
            json!("\u{feff}"),
            json!("\u{85}"),
            json!("\u{3000}"),
            json!("a\u{feff}"),
            json!("é".repeat(300)),
            json!([]),
            json!({}),
        ];
        values.extend(self.random_strings(4).into_iter().map(Value::String));
        let number = |key: &str| schema.get(key).and_then(Value::as_i64);
        for key in ["minimum", "maximum"] {
            if let Some(bound) = number(key) {
                for n in [bound.saturating_sub(1), bound, bound.saturating_add(1)] {
                    values.push(json!(n));
                    values.push(json!(n.to_string()));
                }
                values.push(json!(bound as f64));
            }
        }
        for alternative in ["enum"].iter().filter_map(|k| schema.get(*k)).filter_map(Value::as_array).flatten() {
            values.push(alternative.clone());
            if let Value::String(s) = alternative {
                values.push(json!(s.to_uppercase()));
                values.push(json!(format!("{s} ")));
            }
        }
        let valid = self.valid(schema, false);
        values.push(valid.clone());
        for format in self.formats(schema) {
            // An address is an address whichever of the two formats names it.
            let format = if format == "email" { "idn-email".to_string() } else { format };
            values.extend(FORMAT_SAMPLES.iter().filter(|(f, _)| *f == format).map(|(_, sample)| json!(sample)));
        }
        if let Some(pattern) = schema.get("pattern").and_then(Value::as_str) {
            for sample in self.samples_of(pattern, 6) {
                values.push(json!(format!("{sample}\n")));
                values.push(json!(format!(" {sample}")));
                values.push(json!(sample));
            }
        }
        // Characters that take two bytes, as many as a bound allows: JSON Schema counts
        // characters, and a parser counting bytes would refuse them.
        if let Some(max) = number("maxLength").filter(|max| *max <= 10_000) {
            values.push(json!("é".repeat(max as usize)));
        }
        for key in ["minLength", "maxLength"] {
            if let Some(bound) = number(key) {
                let unit = valid.as_str().and_then(|s| s.chars().last()).unwrap_or('a');
                for n in [bound - 1, bound, bound + 1].into_iter().filter(|n| *n >= 0 && *n <= 10_000) {
                    values.push(json!(unit.to_string().repeat(n as usize)));
                    if let Some(prefix) = valid.as_str() {
                        let mut s: String = prefix.chars().take(n as usize).collect();
                        while s.chars().count() < n as usize {
                            s.push(unit);
                        }
                        values.push(json!(s));
                    }
                }
            }
        }
        for key in ["oneOf", "anyOf"] {
            for alternative in schema.get(key).and_then(Value::as_array).into_iter().flatten() {
                values.push(self.valid(alternative, false));
                values.push(self.valid(alternative, true));
                if depth < DEPTH {
                    values.extend(self.candidates(alternative, depth + 1));
                }
            }
        }
        if let Some(items) = schema.get("items") {
            let item = self.valid(items, false);
            values.push(json!([item.clone()]));
            values.push(json!([self.valid(items, true)]));
            if let Some(max) = number("maxItems").filter(|max| *max <= 1000) {
                values.push(Value::Array(vec![item.clone(); max as usize]));
                values.push(Value::Array(vec![item.clone(); max as usize + 1]));
            }
            if depth < DEPTH {
                values.extend(self.candidates(items, depth + 1).into_iter().map(|c| json!([c])));
            }
        }
        if depth < DEPTH && schema.get("properties").is_some() {
            values.extend(self.objects(schema, depth + 1));
        }
        spread(values, PER_FIELD * (DEPTH + 1 - depth))
    }

    /// Objects of `schema`: the plainest and fullest valid ones, then the fullest with each field
    /// changed or left out, and with a field it does not have.
    fn objects(&self, schema: &Value, depth: usize) -> Vec<Value> {
        let schema = self.resolve(schema);
        let plain = self.valid(schema, false);
        let full = self.valid(schema, true);
        let mut objects = vec![plain, full.clone()];
        let Value::Object(fields) = &full else { return objects };
        let mut unknown = fields.clone();
        unknown.insert("notAField".into(), json!("x"));
        objects.push(Value::Object(unknown));
        for (name, property) in schema.get("properties").and_then(Value::as_object).into_iter().flatten() {
            let mut without = fields.clone();
            without.remove(name);
            objects.push(Value::Object(without));
            for value in self.candidates(property, depth) {
                let mut changed = fields.clone();
                changed.insert(name.clone(), value);
                objects.push(Value::Object(changed));
            }
        }
        objects
    }

    /// An operation's inputs: objects of its request's schema, every field changed in turn.
    fn inputs(&self, request: &Value) -> Vec<Value> {
        let schema = self.resolve(request);
        if schema.get("properties").is_none() {
            // A request with no fields: nothing, and something it does not take.
            return vec![json!({}), json!({ "notAField": "x" })];
        }
        // Every field's values in full: the limit is for the fields' own fields.
        let mut inputs = self.objects(schema, 0);
        for alternative in ["oneOf", "anyOf"].iter().filter_map(|k| schema.get(*k)).filter_map(Value::as_array).flatten()
        {
            inputs.extend(self.objects(alternative, 0));
        }
        inputs
    }
}

/// At most `limit` of `values`, spread evenly over them.
fn spread(values: Vec<Value>, limit: usize) -> Vec<Value> {
    if values.len() <= limit {
        return values;
    }
    let step = values.len() as f64 / limit as f64;
    (0..limit).map(|i| values[(i as f64 * step) as usize].clone()).collect()
}
