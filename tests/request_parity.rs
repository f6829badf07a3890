//! Every operation's parser accepts exactly what its request's schema accepts, and refuses the
//! rest with a bad request (issue "the house", item 2): the bounds are declared once, so the
//! OpenAPI document, the UI's types and the checks cannot drift apart.

#[path = "common/parity.rs"]
mod parity;

use parity::{at, beyond_the_schema, mismatches, Beyond, Mismatch, Operation, Tally};

/// Every rule the schemas cannot state. JSON Schema compares no two values and knows no "now";
/// its `idn-email` admits forms that no one types into a back office.
const BEYOND: &[Beyond] = &[
    Beyond {
        operation: "patch_document",
        field: ".range.endIndex",
        message: "must be greater than startIndex",
        applies: |input, field| {
            let range = at(input, field.trim_end_matches(".endIndex"));
            range["startIndex"].as_f64() >= range["endIndex"].as_f64()
        },
    },
    Beyond {
        operation: "patch_document",
        field: ".textStyle.",
        message: "is not named in fields",
        applies: |input, field| {
            let (style, key) = field.rsplit_once(".textStyle.").unwrap_or_default();
            let mask = at(input, &format!("{style}.fields")).as_str().unwrap_or_default();
            !mask.split(',').any(|named| named == key)
        },
    },
    Beyond {
        operation: "act_on_subscription",
        field: "variantId",
        message: "is required",
        applies: |input, _| input["action"] == "change-plan" && input["variantId"].is_null(),
    },
    Beyond {
        operation: "act_on_subscription",
        field: "resumesAt",
        message: "must be in the future",
        applies: |input, _| {
            input["action"] == "pause"
                && input["resumesAt"]
                    .as_str()
                    .and_then(|at| chrono::DateTime::parse_from_rfc3339(at).ok())
                    .is_some_and(|at| at <= chrono::Utc::now())
        },
    },
    Beyond {
        operation: "sign_in",
        field: "password",
        message: "must be 1 to 1,024 bytes",
        // SPEC section 3 bounds it in bytes, before any hashing.
        applies: |input, _| input["password"].as_str().is_some_and(|p| p.len() > 1024),
    },
    parity::EMAIL_BEYOND,
];

#[test]
fn every_operation_s_parser_accepts_exactly_what_its_schema_does() {
    let mut tally = Tally::default();
    let mut found = Vec::new();
    for entry in staffroom::api::operations() {
        let operation =
            Operation { name: entry.spec.name, query: entry.spec.route.is_some_and(|r| r.method.reads_query()), types: entry.types };
        let before = (tally.inputs, tally.accepted);
        found.extend(mismatches(&operation, &mut tally));
        println!("{}: {} inputs, {} valid", entry.spec.name, tally.inputs - before.0, tally.accepted - before.1);
    }
    let (beyond, found): (Vec<Mismatch>, Vec<Mismatch>) = found.into_iter().partition(|m| beyond_the_schema(m, BEYOND));
    println!(
        "{} inputs, {} of them valid; {} refused by a rule beyond the schema",
        tally.inputs,
        tally.accepted,
        beyond.len()
    );
    // One example of each kind of disagreement.
    let mut shown = std::collections::BTreeSet::new();
    for mismatch in &found {
        let place = format!("{} {} {:?}", mismatch.operation, mismatch.schema_accepts, mismatch.fields);
        if shown.insert(place) {
            println!("{}", mismatch.short());
        }
    }
    let per_operation: std::collections::BTreeMap<&str, usize> =
        found.iter().fold(Default::default(), |mut counts, m| {
            *counts.entry(m.operation).or_default() += 1;
            counts
        });
    assert!(found.is_empty(), "{} disagreements: {per_operation:?}", found.len());
    assert!(tally.accepted * 20 > tally.inputs, "too few valid inputs to tell: {tally:?}");
}
