//! What the desktop's operations generate for the UI and for Tauri, checked to be current (and
//! rewritten by `scripts/gen-types`, which sets STAFFROOM_WRITE_BINDINGS):
//! - the desktop operations' own types, in ui/src/bindings/desktop (the core's are checked by the
//!   core's tests/bindings.rs);
//! - the UI's typed client of every operation a window may call, ui/src/ops.ts;
//! - the capability of each kind of window, capabilities/*.json: the `call` command, and what the
//!   window does besides (events, its title). Which operations a window may call
//!   through `call` is in their declarations, checked by `call` itself.

use std::path::Path;

use serde_json::{json, Value};
use staffroom::api::Window;
use staffroom::bindings::{client_module, sync_file, Bindings};
use staffroom_desktop::window_operations;

fn write() -> bool {
    std::env::var_os("STAFFROOM_WRITE_BINDINGS").is_some_and(|v| v == "1")
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn ui_bindings_are_those_of_the_desktop_types() {
    let dir = root().join("../ui/src/bindings");
    let types = staffroom_desktop::ops::declarations()
        .iter()
        .fold(Bindings::new(), |bindings, (_, types)| (types.bindings)(bindings));
    if let Err(problems) = types.sync(&dir, "desktop", write()) {
        panic!("{problems}");
    }
}

#[test]
fn the_ui_client_is_that_of_the_operations() {
    let client = client_module(&window_operations());
    if let Err(problem) = sync_file(&root().join("../ui/src/ops.ts"), &client, write()) {
        panic!("{problem}");
    }
}

/// What each kind of window may do besides calling operations. No window opens a link itself:
/// `open_link` checks each in Rust first (src/links.rs).
fn window_permissions(window: Window) -> Vec<Value> {
    match window {
        Window::Main => vec![json!("core:event:default"), json!("core:window:allow-set-title")],
        Window::Editor => [
            "core:event:default",
            "core:window:allow-set-title",
            "core:window:allow-close",
            "core:window:allow-destroy",
        ]
        .map(|permission| json!(permission))
        .to_vec(),
    }
}

#[test]
fn each_window_s_capability_is_generated_from_the_declarations() {
    let operations = window_operations();
    for window in [Window::Main, Window::Editor] {
        let names: Vec<&str> =
            operations.iter().filter(|(spec, _)| spec.windows.contains(&window)).map(|(spec, _)| spec.name).collect();
        assert!(!names.is_empty(), "no operation is declared for {window:?} windows");
        let mut permissions = window_permissions(window);
        permissions.push(json!("allow-call"));
        let capability = json!({
            "$schema": "../gen/schemas/desktop-schema.json",
            "identifier": window.capability(),
            "description": format!("{} windows; through `call` they may run: {}.", window.capability(), names.join(", ")),
            "windows": [window.labels()],
            "permissions": permissions,
        });
        let text = serde_json::to_string_pretty(&capability).unwrap() + "\n";
        let file = root().join(format!("capabilities/{}.json", window.capability()));
        if let Err(problem) = sync_file(&file, &text, write()) {
            panic!("{problem}");
        }
    }
}
