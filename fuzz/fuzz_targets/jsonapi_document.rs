//! A Lemon Squeezy answer, which a proxy or a broken provider may make anything: decoding it and
//! mapping its resources to Staffroom's shapes never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use staffroom::payments::jsonapi::Document;
use staffroom::payments::model;

fuzz_target!(|data: &[u8]| {
    let Ok(document) = serde_json::from_slice::<Document>(data) else { return };
    let _ = (document.last_page(), document.next_link());
    let resources = match (document.resources(), document.resource()) {
        (Ok(list), _) => list,
        (_, Ok(one)) => vec![one],
        _ => return,
    };
    for resource in &resources {
        let _ = model::product_from(resource, "USD");
        let _ = model::variant_from(resource);
        let _ = model::subscription_from(resource);
    }
    let _ = model::shown_variants(resources.iter().map(model::variant_from).collect());
});
