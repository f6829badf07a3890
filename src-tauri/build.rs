//! Declares the shell's one command, `call`, so it falls under Tauri's permission system; which
//! operations each window may call through it is in the operations' declarations, checked by
//! `call` itself (capabilities/*.json are generated from them by the shell's tests).

fn main() {
    tauri_build::try_build(
        tauri_build::Attributes::new().app_manifest(tauri_build::AppManifest::new().commands(&["call"])),
    )
    .expect("tauri build script");
}
