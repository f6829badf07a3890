//! The desktop shell's command wiring, checked from its sources: every command the UI invokes is
//! registered with the shell (`generate_handler!`), declared to the permission system
//! (`build.rs`), and granted to exactly the windows that need it (`capabilities/*.json`); the
//! editor windows get document commands only.

use std::collections::BTreeSet;
use std::path::Path;

fn read(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Names invoked from the UI: `call<…>("name"` in `ui/src/api.ts`.
fn invoked() -> BTreeSet<String> {
    let api = read("ui/src/api.ts");
    api.match_indices(">(\"").map(|(at, _)| api[at + 3..].split('"').next().unwrap().to_string()).collect()
}

/// Quoted names between `const COMMANDS` and `];` in `src-tauri/build.rs`.
fn declared() -> BTreeSet<String> {
    let build = read("src-tauri/build.rs");
    let list = &build[build.find("const COMMANDS").unwrap()..];
    let list = &list[..list.find("];").unwrap()];
    list.split('"').skip(1).step_by(2).map(str::to_string).collect()
}

/// `commands::name` inside `generate_handler![…]` in `src-tauri/src/lib.rs`.
fn registered() -> BTreeSet<String> {
    let lib = read("src-tauri/src/lib.rs");
    let list = &lib[lib.find("generate_handler![").unwrap()..];
    let list = &list[..list.find(']').unwrap()];
    list.split("commands::").skip(1).map(|s| s.split(',').next().unwrap().trim().to_string()).collect()
}

/// The app commands a capability grants (`allow-<kebab-name>`).
fn granted(file: &str) -> BTreeSet<String> {
    let json: serde_json::Value = serde_json::from_str(&read(&format!("src-tauri/capabilities/{file}"))).unwrap();
    json["permissions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p.as_str()?.strip_prefix("allow-").map(|n| n.replace('-', "_")))
        .filter(|n| !n.contains(':'))
        .collect()
}

#[test]
fn every_command_the_ui_invokes_is_registered_declared_and_granted() {
    let invoked = invoked();
    assert!(invoked.len() > 20, "the parser found the UI's commands: {invoked:?}");
    let declared = declared();
    let registered = registered();
    assert_eq!(declared, registered, "build.rs and generate_handler! list the same commands");
    let missing: Vec<_> = invoked.difference(&registered).collect();
    assert!(missing.is_empty(), "invoked but not registered: {missing:?}");
    let unused: Vec<_> = registered.difference(&invoked).collect();
    assert!(unused.is_empty(), "registered but never invoked by the UI: {unused:?}");

    let main = granted("main.json");
    let editor = granted("editor.json");
    // opener's own permissions are not app commands.
    let main: BTreeSet<String> = main.into_iter().filter(|n| registered.contains(n)).collect();
    let editor_only: BTreeSet<String> =
        ["editor_document", "save_document", "save_draft", "discard_draft"].iter().map(|s| s.to_string()).collect();
    assert_eq!(editor, editor_only, "editor windows get document commands only");
    let everything: BTreeSet<String> = main.union(&editor).cloned().collect();
    assert_eq!(everything, registered, "every command is granted to some window");
    assert!(main.is_disjoint(&editor_only), "the main window does not edit documents itself");
}
