//! A webhook delivery's body, as anyone on the network may send it: the signature check and the
//! payload parser never panic, whatever the bytes, and a parsed event's accessors hold.
#![no_main]

use libfuzzer_sys::fuzz_target;
use staffroom::secrets::Secret;
use staffroom::webhooks::{payload, signature};

fuzz_target!(|data: &[u8]| {
    let secret = Secret::new("fuzzing-signing-secret");
    let header = std::str::from_utf8(data.get(..64).unwrap_or(data)).ok();
    let _ = signature::verify(&secret, data, header);
    if let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) {
        if let Ok(event) = payload::parse(&value, header) {
            assert!(!event.name.is_empty() && !event.resource_type.is_empty() && !event.resource_id.is_empty());
            let _ = (event.is_known(), event.updated_at(), event.local_order_id());
        }
    }
});
