//! A bare Tauri 2 app: one window with a static sign-in form, no commands, no plugins. The
//! desktop benchmark launches it and Staffroom side by side (tests/e2e/bench.mjs).

fn main() {
    tauri::Builder::default().run(tauri::generate_context!()).expect("the bare app runs");
}
