//! Every desktop operation's parser accepts exactly what its request's schema accepts, and
//! refuses the rest with a bad request: the same test as the core's (`tests/request_parity.rs`),
//! over the operations only the desktop has. The windows send JSON, so nothing is typed from text.

#[path = "../../tests/common/parity.rs"]
mod parity;

use parity::{beyond_the_schema, mismatches, Beyond, Mismatch, Operation, Tally};

/// The rules the desktop's schemas cannot state.
const BEYOND: &[Beyond] = &[
    Beyond {
        operation: "login",
        field: "server",
        message: "must be an https:// address such as https://staffroom.example.com (plain http only for a server on this computer)",
        // The schema takes http and https alike; plain http to another computer is refused.
        applies: |input, _| input["server"].as_str().is_some_and(|s| s.trim().to_ascii_lowercase().starts_with("http://")),
    },
    parity::EMAIL_BEYOND,
];

#[test]
fn every_desktop_operation_s_parser_accepts_exactly_what_its_schema_does() {
    let mut tally = Tally::default();
    let mut found = Vec::new();
    for (spec, types) in staffroom_desktop::ops::declarations() {
        let before = (tally.inputs, tally.accepted);
        found.extend(mismatches(&Operation { name: spec.name, query: false, types }, &mut tally));
        println!("{}: {} inputs, {} valid", spec.name, tally.inputs - before.0, tally.accepted - before.1);
    }
    let (beyond, found): (Vec<Mismatch>, Vec<Mismatch>) =
        found.into_iter().partition(|m| beyond_the_schema(m, BEYOND));
    println!(
        "{} inputs, {} of them valid; {} refused by a rule beyond the schema",
        tally.inputs,
        tally.accepted,
        beyond.len()
    );
    for mismatch in &found {
        println!("{}", mismatch.short());
    }
    assert!(found.is_empty(), "{} disagreements", found.len());
    assert!(tally.accepted * 20 > tally.inputs, "too few valid inputs to tell: {tally:?}");
}
