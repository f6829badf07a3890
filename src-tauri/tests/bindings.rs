//! The shell's own DTOs (what `app_info` and `settings` answer) as the UI's
//! TypeScript types in ui/src/bindings/desktop: this test fails while the committed files are not
//! what ts-rs renders from them, and `scripts/gen-types` (which sets STAFFROOM_WRITE_BINDINGS)
//! rewrites them. The core types they refer to are checked by the core's tests/bindings.rs.

use std::path::Path;

use staffroom::bindings::Bindings;
// `crate::DesktopState` for the copy of the commands below.
use staffroom_desktop::DesktopState;

// The DTOs live in the shell's private `commands` module, so the test compiles its own copy of
// that file to name them; only the structs are used.
#[allow(dead_code)]
#[path = "../src/commands.rs"]
mod commands;

#[test]
fn ui_bindings_are_those_of_the_desktop_types() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/src/bindings");
    let write = std::env::var_os("STAFFROOM_WRITE_BINDINGS").is_some_and(|v| v == "1");
    let types = Bindings::new().add::<commands::AppInfo>().add::<commands::SettingsView>();
    if let Err(problems) = types.sync(&dir, "desktop", write) {
        panic!("{problems}");
    }
}
