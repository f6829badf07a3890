//! The CSV exports of the lists (SPEC section 14), declared once for both doors. An export is
//! answered with a file rather than JSON, so it is not an [`Operation`](crate::api::Operation);
//! it is its list operation's twin: the same access, the same request (its filters, without
//! paging), the same rows in the same order.

use staffroom_payments::export::{CsvExport, ExportList};

use crate::api::{self, Input, OpEntry, Request};
use crate::error::Result;
use crate::Core;

/// One list's export.
pub struct ExportEntry {
    /// The list, as its path and file name write it (`orders`, `license-keys`).
    pub list: &'static str,
    /// The list's operation, whose access and request the export takes.
    pub list_operation: &'static str,
    parse: fn(&Input) -> Result<ExportList>,
}

impl ExportEntry {
    /// `GET /api/payments/<list>/export`.
    pub fn path(&self) -> String {
        format!("/api/payments/{}/export", self.list)
    }

    /// The export's operation name (`export_orders`), for the OpenAPI document and the desktop.
    pub fn name(&self) -> String {
        format!("export_{}", self.list.replace('-', "_"))
    }

    /// The list's operation.
    pub fn list_entry(&self) -> &'static OpEntry {
        api::find(self.list_operation).expect("an export's list operation is declared")
    }

    /// Reads and checks the filters alone: what a door can refuse before it asks anything else
    /// (the desktop, before its save dialog).
    pub fn check_filters(&self, input: &Input) -> Result<()> {
        (self.parse)(input)?.check()
    }

    /// Checks the caller as the list does, reads the filters, and starts the export (its first
    /// page read and audited).
    pub async fn start(&self, core: &Core, token: Option<&str>, address: &str, input: Input) -> Result<CsvExport> {
        let caller = api::authorize(core, self.list_entry(), token, address).await?;
        let list = (self.parse)(&input)?;
        core.payments.export(&caller.actor()?, list).await
    }
}

/// Every list that exports.
pub fn exports() -> &'static [ExportEntry] {
    use staffroom_payments::requests as r;
    const EXPORTS: &[ExportEntry] = &[
        ExportEntry {
            list: "orders",
            list_operation: "list_orders",
            parse: |input| Ok(ExportList::Orders(r::ListOrdersRequest::from_input(input)?)),
        },
        ExportEntry {
            list: "customers",
            list_operation: "list_customers",
            parse: |input| Ok(ExportList::Customers(r::ListCustomersRequest::from_input(input)?)),
        },
        ExportEntry {
            list: "subscriptions",
            list_operation: "list_subscriptions",
            parse: |input| Ok(ExportList::Subscriptions(r::ListSubscriptionsRequest::from_input(input)?)),
        },
        ExportEntry {
            list: "license-keys",
            list_operation: "list_license_keys",
            parse: |input| Ok(ExportList::LicenseKeys(r::ListLicenseKeysRequest::from_input(input)?)),
        },
    ];
    EXPORTS
}

/// The export of `list` (`orders`, …).
pub fn find(list: &str) -> Option<&'static ExportEntry> {
    exports().iter().find(|entry| entry.list == list)
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_export_names_a_declared_list_operation_at_its_list_path() {
        for export in super::exports() {
            let list = export.list_entry();
            let route = list.spec.route.expect("a list has a route");
            assert_eq!(format!("{}/export", route.path), export.path(), "{}", export.list);
        }
    }
}
