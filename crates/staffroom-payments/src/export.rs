//! CSV exports of the lists (SPEC section 14): every row a list's filters match, in the list's
//! order, read from the cache a page at a time through the list's own method, so that an export
//! and the list can never disagree and memory stays flat however many rows there are.
//!
//! The file is RFC 4180 (quoted where needed, CRLF line ends), UTF-8; money is in major units
//! beside a `currency` column, times are RFC 3339 UTC, and a text cell that a spreadsheet would
//! read as a formula is prefixed with `'` (OWASP's CSV injection advice).

use serde::Serialize;
use serde_json::{json, Value};

use super::model::{CustomerDto, LicenseKeyDto, OrderDto, SubscriptionDto};
use super::requests::{ListCustomersRequest, ListLicenseKeysRequest, ListOrdersRequest, ListSubscriptionsRequest};
use super::PaymentService;
use staffroom_auth::audit::AuditAction;
use staffroom_auth::Actor;
use staffroom_base::error::{Error, Result};

/// Rows read from the cache at a time: large enough that a 50,000-row export is a hundred
/// reads, small enough that one page is a few hundred kilobytes.
pub const EXPORT_PAGE: u32 = 500;

/// The byte order mark the file starts with: without it, Excel reads a CSV file in the
/// computer's legacy code page and garbles every accent ("ZoÃ«"); LibreOffice, Numbers and CSV
/// libraries read it as UTF-8's mark.
pub const UTF8_BOM: &[u8] = b"\xef\xbb\xbf";

/// A list to export, with its filters (the list's own request, without paging).
#[derive(Debug, Clone)]
pub enum ExportList {
    Orders(ListOrdersRequest),
    Customers(ListCustomersRequest),
    Subscriptions(ListSubscriptionsRequest),
    LicenseKeys(ListLicenseKeysRequest),
}

impl ExportList {
    /// The list's name in paths and file names.
    pub fn name(&self) -> &'static str {
        match self {
            ExportList::Orders(_) => "orders",
            ExportList::Customers(_) => "customers",
            ExportList::Subscriptions(_) => "subscriptions",
            ExportList::LicenseKeys(_) => "license-keys",
        }
    }

    /// The export's file name: `<list>-<YYYY-MM-DD>.csv`.
    pub fn file_name(&self, today: chrono::NaiveDate) -> String {
        format!("{}-{}.csv", self.name(), today.format("%Y-%m-%d"))
    }

    /// Refuses paging: an export is every matching row.
    pub fn check(&self) -> Result<()> {
        let (page, limit) = match self {
            ExportList::Orders(r) => (r.page, r.limit),
            ExportList::Customers(r) => (r.page, r.limit),
            ExportList::Subscriptions(r) => (r.page, r.limit),
            ExportList::LicenseKeys(r) => (r.page, r.limit),
        };
        let paged: Vec<_> = [("page", page), ("limit", limit)]
            .into_iter()
            .filter(|(_, value)| value.is_some())
            .map(|(name, _)| {
                staffroom_base::error::FieldError::new(name, "is not taken by an export: it has every row")
            })
            .collect();
        if paged.is_empty() {
            Ok(())
        } else {
            Err(Error::invalid(paged))
        }
    }

    /// The filters as the audit keeps them (none of them is a secret).
    fn filters(&self) -> Value {
        let value = match self {
            ExportList::Orders(r) => serde_json::to_value(r),
            ExportList::Customers(r) => serde_json::to_value(r),
            ExportList::Subscriptions(r) => serde_json::to_value(r),
            ExportList::LicenseKeys(r) => serde_json::to_value(r),
        };
        value.unwrap_or(Value::Null)
    }

    fn header(&self) -> &'static [&'static str] {
        match self {
            ExportList::Orders(_) => ORDER_COLUMNS,
            ExportList::Customers(_) => CUSTOMER_COLUMNS,
            ExportList::Subscriptions(_) => SUBSCRIPTION_COLUMNS,
            ExportList::LicenseKeys(_) => LICENSE_KEY_COLUMNS,
        }
    }

    /// One page of rows, as cells, and how many rows match in all.
    async fn page(&self, service: &PaymentService, page: u32) -> Result<(Vec<Vec<Cell>>, u64)> {
        let paged = (Some(page), Some(EXPORT_PAGE));
        Ok(match self {
            ExportList::Orders(r) => {
                let list =
                    service.list_orders(&ListOrdersRequest { page: paged.0, limit: paged.1, ..r.clone() }).await?;
                (list.orders.iter().map(order_row).collect(), list.meta.total_items)
            }
            ExportList::Customers(r) => {
                let request = ListCustomersRequest { page: paged.0, limit: paged.1, ..r.clone() };
                let list = service.list_customers(&request).await?;
                (list.customers.iter().map(customer_row).collect(), list.meta.total_items)
            }
            ExportList::Subscriptions(r) => {
                let request = ListSubscriptionsRequest { page: paged.0, limit: paged.1, ..r.clone() };
                let list = service.list_subscriptions(&request).await?;
                (list.subscriptions.iter().map(subscription_row).collect(), list.meta.total_items)
            }
            ExportList::LicenseKeys(r) => {
                let request = ListLicenseKeysRequest { page: paged.0, limit: paged.1, ..r.clone() };
                let list = service.list_license_keys(&request).await?;
                (list.license_keys.iter().map(license_key_row).collect(), list.meta.total_items)
            }
        })
    }
}

/// An export under way: the header and the first page are read when it starts (so a bad
/// filter or a failing cache is an error before any byte is sent), then a page per chunk.
pub struct CsvExport {
    service: PaymentService,
    list: ExportList,
    /// The next page to read; none when every row has been read.
    next_page: Option<u32>,
    /// What was read when the export started and is not yet handed out.
    first: Option<Vec<u8>>,
    total: u64,
    rows: u64,
}

/// How far an export is: rows written of all that matched when it started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ExportProgress {
    pub rows: u64,
    pub total: u64,
}

impl CsvExport {
    /// The list's name (`orders`, …).
    pub fn name(&self) -> &'static str {
        self.list.name()
    }

    /// The file's name, for today.
    pub fn file_name(&self) -> String {
        self.list.file_name(chrono::Utc::now().date_naive())
    }

    pub fn progress(&self) -> ExportProgress {
        ExportProgress { rows: self.rows, total: self.total.max(self.rows) }
    }

    /// The next part of the file, or `None` when it is whole.
    pub async fn next_chunk(&mut self) -> Result<Option<Vec<u8>>> {
        if let Some(first) = self.first.take() {
            return Ok(Some(first));
        }
        let Some(page) = self.next_page else { return Ok(None) };
        let (rows, total) = self.list.page(&self.service, page).await?;
        self.total = total;
        Ok(Some(self.take(page, rows)?))
    }

    /// Writes a page's rows and works out whether another page follows.
    fn take(&mut self, page: u32, rows: Vec<Vec<Cell>>) -> Result<Vec<u8>> {
        let full = rows.len() as u32 == EXPORT_PAGE;
        self.rows += rows.len() as u64;
        self.next_page = (full && self.rows < self.total).then_some(page + 1);
        write_rows(None, &rows)
    }
}

impl PaymentService {
    /// Starts an export of `list` for `actor`: checks the filters, reads the first page and
    /// audits it ("exported 212 refunded orders": every row that matched, as the file will hold
    /// them all unless its reader stops).
    pub async fn export(&self, actor: &Actor, list: ExportList) -> Result<CsvExport> {
        list.check()?;
        let (rows, total) = list.page(self, 1).await?;
        let mut export = CsvExport { service: self.clone(), list, next_page: Some(1), first: None, total, rows: 0 };
        let mut first = UTF8_BOM.to_vec();
        first.extend(write_rows(Some(export.list.header()), &[])?);
        first.extend(export.take(1, rows)?);
        export.first = Some(first);
        let detail = json!({ "rows": total, "filters": export.list.filters() });
        self.audit
            .record(actor.audit_name(), AuditAction::ListExport, Some(export.name()), "success", Some(detail))
            .await;
        Ok(export)
    }
}

/// A cell: text from people or the provider (a name, an e-mail, a product), which may need
/// neutralising, or a figure this code wrote (money, a count, a time, a status).
#[derive(Debug, Clone, PartialEq)]
enum Cell {
    Text(String),
    Figure(String),
}

impl Cell {
    fn text(value: impl Into<String>) -> Cell {
        Cell::Text(value.into())
    }
    fn figure(value: impl ToString) -> Cell {
        Cell::Figure(value.to_string())
    }
    fn maybe(value: Option<impl ToString>) -> Cell {
        Cell::Figure(value.map(|v| v.to_string()).unwrap_or_default())
    }
    fn money(cents: i64) -> Cell {
        Cell::Figure(major_units(cents))
    }

    /// The cell as written: text a spreadsheet would run as a formula gets a leading `'`.
    fn written(&self) -> std::borrow::Cow<'_, str> {
        match self {
            Cell::Text(text) if starts_like_a_formula(text) => format!("'{text}").into(),
            Cell::Text(text) | Cell::Figure(text) => text.into(),
        }
    }
}

/// Whether a spreadsheet would read `text` as a formula (OWASP: `=`, `+`, `-`, `@`, tab, CR).
pub fn starts_like_a_formula(text: &str) -> bool {
    text.starts_with(['=', '+', '-', '@', '\t', '\r'])
}

/// Cents as decimal major units: `3300` → `33.00`, `-5` → `-0.05`.
pub fn major_units(cents: i64) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    format!("{sign}{}.{:02}", cents.unsigned_abs() / 100, cents.unsigned_abs() % 100)
}

/// CSV of an optional header and `rows`: RFC 4180, CRLF.
fn write_rows(header: Option<&[&str]>, rows: &[Vec<Cell>]) -> Result<Vec<u8>> {
    let mut writer = csv::WriterBuilder::new().terminator(csv::Terminator::CRLF).from_writer(Vec::new());
    let failed = |e: csv::Error| Error::internal("export", e);
    if let Some(header) = header {
        writer.write_record(header).map_err(failed)?;
    }
    for row in rows {
        writer.write_record(row.iter().map(|cell| cell.written().into_owned())).map_err(failed)?;
    }
    writer.into_inner().map_err(|e| Error::internal("export", e.into_error()))
}

const ORDER_COLUMNS: &[&str] = &[
    "orderNumber",
    "reference",
    "createdAt",
    "status",
    "providerStatus",
    "customerName",
    "customerEmail",
    "items",
    "currency",
    "subtotal",
    "discountTotal",
    "tax",
    "total",
    "refundedAmount",
    "paidAt",
    "refundedAt",
    "id",
];

fn order_row(order: &OrderDto) -> Vec<Cell> {
    let items = order
        .items
        .iter()
        .map(|item| {
            let product = item.product_name.as_deref().unwrap_or(&item.product_id);
            match item.variant_name.as_deref().filter(|v| !v.is_empty()) {
                Some(variant) => format!("{product} — {variant} × {}", item.quantity),
                None => format!("{product} × {}", item.quantity),
            }
        })
        .collect::<Vec<_>>()
        .join("; ");
    vec![
        Cell::maybe(order.order_number),
        Cell::text(&order.order_id),
        Cell::figure(&order.created_at),
        Cell::figure(order.status.as_str()),
        Cell::maybe(order.provider_status.as_deref()),
        Cell::text(order.name.clone().unwrap_or_default()),
        Cell::text(&order.email),
        Cell::text(items),
        Cell::figure(&order.currency),
        Cell::money(order.subtotal),
        Cell::money(order.discount_total),
        Cell::money(order.tax),
        Cell::money(order.total),
        Cell::money(order.refunded_amount),
        Cell::maybe(order.paid_at.as_deref()),
        Cell::maybe(order.refunded_at.as_deref()),
        Cell::text(&order.id),
    ]
}

const CUSTOMER_COLUMNS: &[&str] =
    &["id", "name", "email", "status", "country", "createdAt", "currency", "totalRevenue", "mrr"];

fn customer_row(customer: &CustomerDto) -> Vec<Cell> {
    vec![
        Cell::text(&customer.id),
        Cell::text(&customer.name),
        Cell::text(&customer.email),
        Cell::figure(&customer.status),
        Cell::maybe(customer.country.as_deref()),
        Cell::figure(&customer.created_at),
        Cell::figure(&customer.currency),
        Cell::money(customer.total_revenue),
        Cell::money(customer.mrr),
    ]
}

const SUBSCRIPTION_COLUMNS: &[&str] = &[
    "id",
    "status",
    "providerStatus",
    "customerName",
    "customerEmail",
    "product",
    "variant",
    "currency",
    "price",
    "interval",
    "intervalCount",
    "renewsAt",
    "endsAt",
    "createdAt",
    "paymentProcessor",
];

fn subscription_row(subscription: &SubscriptionDto) -> Vec<Cell> {
    vec![
        Cell::text(&subscription.id),
        Cell::figure(subscription.status.as_str()),
        Cell::figure(&subscription.provider_status),
        Cell::text(subscription.customer_name.clone().unwrap_or_default()),
        Cell::text(subscription.customer_email.clone().unwrap_or_default()),
        Cell::text(subscription.product_name.clone().unwrap_or_default()),
        Cell::text(subscription.variant_name.clone().unwrap_or_default()),
        Cell::maybe(subscription.currency.as_deref()),
        Cell::Figure(subscription.price.map(major_units).unwrap_or_default()),
        Cell::maybe(subscription.interval.as_deref()),
        Cell::maybe(subscription.interval_count),
        Cell::figure(&subscription.renews_at),
        Cell::maybe(subscription.ends_at.as_deref()),
        Cell::figure(&subscription.created_at),
        Cell::maybe(subscription.payment_processor.as_deref()),
    ]
}

const LICENSE_KEY_COLUMNS: &[&str] = &[
    "id",
    "key",
    "status",
    "disabled",
    "activationLimit",
    "activationUsage",
    "expiresAt",
    "customerName",
    "customerEmail",
    "product",
    "providerOrderId",
    "createdAt",
];

fn license_key_row(key: &LicenseKeyDto) -> Vec<Cell> {
    vec![
        Cell::text(&key.id),
        Cell::text(&key.key_short),
        Cell::figure(&key.status),
        Cell::figure(key.disabled),
        Cell::maybe(key.activation_limit),
        Cell::figure(key.activation_usage),
        Cell::maybe(key.expires_at.as_deref()),
        Cell::text(&key.customer_name),
        Cell::text(&key.customer_email),
        Cell::text(key.product_name.clone().unwrap_or_default()),
        Cell::text(&key.provider_order_id),
        Cell::figure(&key.created_at),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn money_is_in_major_units() {
        assert_eq!(major_units(3300), "33.00");
        assert_eq!(major_units(5), "0.05");
        assert_eq!(major_units(-1205), "-12.05");
        assert_eq!(major_units(0), "0.00");
    }

    #[test]
    fn hostile_text_is_neutralised_and_quoted_and_figures_are_not() {
        let rows = vec![vec![
            Cell::text("=HYPERLINK(\"http://x\",\"a\")"),
            Cell::text("+1"),
            Cell::text("-2"),
            Cell::text("@SUM(A1)"),
            Cell::text("\tTab"),
            Cell::text("\rCR"),
            Cell::text("Zoë, \"the\" Martin\nsecond line"),
            Cell::money(-50),
        ]];
        let written = String::from_utf8(write_rows(None, &rows).unwrap()).unwrap();
        assert_eq!(
            written,
            "\"'=HYPERLINK(\"\"http://x\"\",\"\"a\"\")\",'+1,'-2,'@SUM(A1),'\tTab,\"'\rCR\",\
             \"Zoë, \"\"the\"\" Martin\nsecond line\",-0.50\r\n"
        );
    }

    proptest! {
        /// Whatever a name holds, the file reads back as the same cells (a neutralised one with
        /// its `'`), and no written cell starts like a formula.
        #[test]
        fn any_text_reads_back_as_written(cells in proptest::collection::vec(".{0,12}", 1..6)) {
            let row: Vec<Cell> = cells.iter().map(Cell::text).collect();
            let header: Vec<&str> = cells.iter().map(|_| "h").collect();
            let mut written = UTF8_BOM.to_vec();
            written.extend(write_rows(Some(&header), &[row]).unwrap());
            let mut reader = csv::ReaderBuilder::new().from_reader(&written[..]);
            let record = reader.records().next().unwrap().unwrap();
            prop_assert_eq!(record.len(), cells.len());
            for (read, given) in record.iter().zip(&cells) {
                if starts_like_a_formula(given) {
                    prop_assert_eq!(read, format!("'{given}"));
                } else {
                    prop_assert_eq!(read, given.as_str());
                }
                prop_assert!(!starts_like_a_formula(read));
            }
        }
    }
}
