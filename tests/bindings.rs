//! The UI's TypeScript types in ui/src/bindings are those the core's DTOs render (ts-rs): this
//! test fails while they are not, and `scripts/gen-types` (which sets STAFFROOM_WRITE_BINDINGS)
//! rewrites them. The desktop shell's own types live in ui/src/bindings/desktop, checked by the
//! shell's tests/bindings.rs.

use std::path::Path;

use staffroom::bindings::Bindings;

/// Every core type the UI receives or sends: each operation's request and response, and what
/// the events and the error object carry; the types they refer to come along.
fn core_types() -> Bindings {
    use staffroom::{audit, auth, docs, error, http, payments, sandbox, webhooks};
    let operations =
        staffroom::api::operations().iter().fold(Bindings::new(), |bindings, op| (op.types.bindings)(bindings));
    operations
        .add::<error::ErrorObject<'static>>()
        .add::<error::FieldError>()
        .add::<auth::AuthResponse>()
        .add::<auth::SignedIn>()
        .add::<audit::AuditRetention>()
        .add::<auth::UserDto>()
        .add::<audit::AuditEntry>()
        .add::<sandbox::DemoCredentials>()
        .add::<webhooks::InboxEntry>()
        .add::<webhooks::FeedItem>()
        .add::<http::receiver::ReceiverStatus>()
        .add::<payments::ProductList>()
        .add::<payments::SubscriptionList>()
        .add::<payments::SubscriptionActionResult>()
        .add::<payments::OrderList>()
        .add::<payments::sync::SyncStatus>()
        .add::<payments::sync::SyncProgress>()
        .add::<docs::model::DocumentList>()
        .add::<docs::model::Folder>()
        .add::<docs::model::PermissionList>()
        .add::<docs::oauth::GoogleStatus>()
        .add::<docs::EditorView>()
        .add::<docs::SaveEdits>()
        .add::<docs::SaveOutcome>()
}

#[test]
fn ui_bindings_are_those_of_the_rust_types() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("ui/src/bindings");
    let write = std::env::var_os("STAFFROOM_WRITE_BINDINGS").is_some_and(|v| v == "1");
    if let Err(problems) = core_types().sync(&dir, "", write) {
        panic!("{problems}");
    }
}
