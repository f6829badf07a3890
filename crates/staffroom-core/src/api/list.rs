//! The list of every operation of the core: adding an operation adds a line here.

use super::OpEntry;
use crate::auth::ops as auth;
use crate::docs::ops as docs;
use crate::payments::ops as payments;
use crate::settings;

pub(super) fn operations() -> Vec<OpEntry> {
    vec![
        OpEntry::of::<auth::SignIn>(),
        OpEntry::of::<auth::RefreshToken>(),
        OpEntry::of::<auth::ResumeSession>(),
        OpEntry::of::<auth::SignOut>(),
        OpEntry::of::<auth::Me>(),
        OpEntry::of::<auth::CreateFirstAdmin>(),
        OpEntry::of::<auth::ListUsers>(),
        OpEntry::of::<auth::AddUser>(),
        OpEntry::of::<auth::SetUserDisabled>(),
        OpEntry::of::<auth::UnlockUser>(),
        OpEntry::of::<payments::ListProducts>(),
        OpEntry::of::<payments::GetProduct>(),
        OpEntry::of::<payments::CreateOrder>(),
        OpEntry::of::<payments::ListOrders>(),
        OpEntry::of::<payments::GetSummary>(),
        OpEntry::of::<payments::GetOrder>(),
        OpEntry::of::<payments::RefundOrder>(),
        OpEntry::of::<payments::ListSubscriptions>(),
        OpEntry::of::<payments::GetSubscription>(),
        OpEntry::of::<payments::ListCustomers>(),
        OpEntry::of::<payments::GetCustomer>(),
        OpEntry::of::<payments::ListInvoices>(),
        OpEntry::of::<payments::RefundInvoice>(),
        OpEntry::of::<payments::ListLicenseKeys>(),
        OpEntry::of::<payments::GetLicenseKey>(),
        OpEntry::of::<payments::UpdateLicenseKey>(),
        OpEntry::of::<payments::ActOnSubscription>(),
        OpEntry::of::<payments::SyncNow>(),
        OpEntry::of::<payments::GetSyncStatus>(),
        OpEntry::of::<payments::SetSyncInterval>(),
        OpEntry::of::<payments::ListWebhookEvents>(),
        OpEntry::of::<docs::ListDocuments>(),
        OpEntry::of::<docs::ListFolders>(),
        OpEntry::of::<docs::ReadDocument>(),
        OpEntry::of::<docs::CreateDocumentOp>(),
        OpEntry::of::<docs::PatchDocument>(),
        OpEntry::of::<docs::ShareDocument>(),
        OpEntry::of::<docs::EditorDocument>(),
        OpEntry::of::<docs::SaveDocument>(),
        OpEntry::of::<docs::GetDraft>(),
        OpEntry::of::<docs::SaveDraft>(),
        OpEntry::of::<docs::DiscardDraft>(),
        OpEntry::of::<docs::GetGoogleStatus>(),
        OpEntry::of::<docs::GoogleSignOut>(),
        OpEntry::of::<docs::GoogleAuthorization>(),
        OpEntry::of::<docs::GoogleExchangeCode>(),
        OpEntry::of::<settings::GetSettings>(),
        OpEntry::of::<settings::SetSecret>(),
        OpEntry::of::<settings::AuditLog>(),
        OpEntry::of::<settings::GetAuditRetention>(),
        OpEntry::of::<settings::SetAuditRetention>(),
    ]
}
