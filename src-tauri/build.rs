//! Declares the app's commands so they fall under Tauri's permission system: a window may call
//! only what its capability grants (the editor window gets document commands only).

/// Every command the shell registers; capabilities/*.json grant them per window.
const COMMANDS: &[&str] = &[
    "app_info",
    "login",
    "logout",
    "current_user",
    "refresh_session",
    "create_first_admin",
    "webhook_receiver",
    "set_webhook_receiver",
    "webhook_events",
    "list_products",
    "get_product",
    "create_order",
    "list_documents",
    "list_folders",
    "create_document",
    "share_document",
    "google_status",
    "open_editor",
    "editor_document",
    "save_document",
    "save_draft",
    "discard_draft",
    "sync_status",
    "sync_now",
    "set_sync_interval",
    "list_orders",
    "get_order",
    "list_subscriptions",
    "act_on_subscription",
    "settings",
    "set_secret",
    "google_sign_in",
    "google_sign_out",
    "list_users",
    "add_user",
    "set_user_disabled",
    "unlock_user",
    "audit_retention",
    "set_audit_retention",
    "audit_log",
];

fn main() {
    tauri_build::try_build(
        tauri_build::Attributes::new().app_manifest(tauri_build::AppManifest::new().commands(COMMANDS)),
    )
    .expect("tauri build script");
}
