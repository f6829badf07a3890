//! The list of every operation of the core: adding an operation adds a line here.

use super::OpEntry;
use crate::payments::ops as payments;

pub(super) fn operations() -> Vec<OpEntry> {
    vec![
        OpEntry::of::<payments::ListProducts>(),
        OpEntry::of::<payments::GetProduct>(),
        OpEntry::of::<payments::CreateOrder>(),
        OpEntry::of::<payments::ListOrders>(),
        OpEntry::of::<payments::GetOrder>(),
        OpEntry::of::<payments::ListSubscriptions>(),
        OpEntry::of::<payments::ActOnSubscription>(),
        OpEntry::of::<payments::SyncNow>(),
        OpEntry::of::<payments::GetSyncStatus>(),
        OpEntry::of::<payments::SetSyncInterval>(),
        OpEntry::of::<payments::ListWebhookEvents>(),
    ]
}
