//! The payment area's DTOs in the seed's shapes (camelCase, cents, RFC 3339 `Z`, string ids),
//! and the mapping from the provider's resources.

use serde::{Deserialize, Serialize};

use super::jsonapi::Resource;

/// Pagination meta of the lists; `stale` and `syncedAt` when served from the cache.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct PageMeta {
    pub current_page: u32,
    pub total_pages: u32,
    pub total_items: u64,
    /// The provider could not be reached: this is the last cached answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub stale: Option<bool>,
    /// When the cached data was last synced from the provider.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub synced_at: Option<String>,
}

impl PageMeta {
    /// Meta for `page` of `limit` items out of `total`.
    pub fn new(page: u32, limit: u32, total: u64) -> Self {
        let total_pages = total.div_ceil(limit.max(1) as u64) as u32;
        PageMeta { current_page: page, total_pages, total_items: total, stale: None, synced_at: None }
    }
}

staffroom_base::text_enum! {
    /// Where a local order stands (a refund keeps it `paid`, with `refundedAmount`).
    pub enum OrderStatus {
        Pending = "pending",
        Paid = "paid",
        Failed = "failed",
    }
}

impl OrderStatus {
    /// The local status of a Lemon Squeezy order status (refunded orders were paid).
    pub fn of_provider(provider: &str) -> OrderStatus {
        match provider {
            "paid" | "refunded" | "partial_refund" => OrderStatus::Paid,
            "failed" | "fraudulent" => OrderStatus::Failed,
            _ => OrderStatus::Pending,
        }
    }
}

staffroom_base::text_enum! {
    /// Where an order was made: here (with its `SR-` reference and checkout), or anywhere else
    /// the store sells (its storefront, a checkout link).
    pub enum OrderSource {
        Staffroom = "staffroom",
        Store = "store",
    }
}

staffroom_base::text_enum! {
    /// The orders `GET /orders?status=` lists: the seed's three local statuses, or one the
    /// provider alone has (matched on `providerStatus`).
    pub enum OrderStatusFilter {
        Pending = "pending",
        Paid = "paid",
        Failed = "failed",
        Refunded = "refunded",
        PartialRefund = "partial_refund",
        Fraudulent = "fraudulent",
    }
}

staffroom_base::text_enum! {
    /// What a discount's amount is: a percentage, or cents of the store's currency.
    pub enum DiscountAmountType {
        Percent = "percent",
        Fixed = "fixed",
    }
}

staffroom_base::text_enum! {
    /// Which of a subscription's payments a discount applies to: the first, the first
    /// `durationInMonths` months' worth, or all.
    pub enum DiscountDuration {
        Once = "once",
        Repeating = "repeating",
        Forever = "forever",
    }
}

/// One line of an order: what was sold, how many, at what price (cents, the order's currency).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct OrderItem {
    pub product_id: String,
    pub variant_id: String,
    pub product_name: Option<String>,
    pub variant_name: Option<String>,
    pub quantity: i64,
    pub price: i64,
}

/// The items of a provider order: its `first_order_item` (Lemon Squeezy orders made through a
/// checkout have one line; the rest are at `/v1/order-items`).
pub fn order_items(resource: &Resource) -> Vec<OrderItem> {
    let Some(item) = resource.attributes.get("first_order_item").and_then(|i| i.as_object()) else {
        return Vec::new();
    };
    let id = |key: &str| item.get(key).and_then(super::jsonapi::id_of).unwrap_or_default();
    let text = |key: &str| item.get(key).and_then(|v| v.as_str()).map(str::to_string);
    vec![OrderItem {
        product_id: id("product_id"),
        variant_id: id("variant_id"),
        product_name: text("product_name"),
        variant_name: text("variant_name"),
        quantity: item.get("quantity").and_then(|q| q.as_i64()).unwrap_or(1),
        price: item.get("price").and_then(|p| p.as_i64()).unwrap_or(0),
    }]
}

staffroom_base::text_enum! {
    /// A product's status.
    pub enum ProductStatus {
        Draft = "draft",
        Published = "published",
    }
}

staffroom_base::text_enum! {
    /// A subscription's status as the seed shows it (the provider's own is `providerStatus`).
    pub enum SubscriptionStatus {
        Active = "active",
        Cancelled = "cancelled",
        Expired = "expired",
    }
}

staffroom_base::text_enum! {
    /// The subscriptions `GET /subscriptions?status=` lists: a seed status (`active` is every
    /// live one: on trial, active, paused, past due or unpaid), or one of the provider's own
    /// (matched on `providerStatus`).
    pub enum SubscriptionStatusFilter {
        Active = "active",
        Cancelled = "cancelled",
        Expired = "expired",
        OnTrial = "on_trial",
        Paused = "paused",
        PastDue = "past_due",
        Unpaid = "unpaid",
    }
}

impl SubscriptionStatusFilter {
    /// The seed status to match, or else the provider's.
    pub fn split(self) -> (Option<SubscriptionStatus>, Option<&'static str>) {
        match self {
            SubscriptionStatusFilter::Active => (Some(SubscriptionStatus::Active), None),
            SubscriptionStatusFilter::Cancelled => (Some(SubscriptionStatus::Cancelled), None),
            SubscriptionStatusFilter::Expired => (Some(SubscriptionStatus::Expired), None),
            other => (None, Some(other.as_str())),
        }
    }
}

staffroom_base::text_enum! {
    /// A customer's status at the provider: whether the store may e-mail them.
    pub enum CustomerStatus {
        Subscribed = "subscribed",
        Unsubscribed = "unsubscribed",
        Archived = "archived",
        RequiresVerification = "requires_verification",
        InvalidEmail = "invalid_email",
        Bounced = "bounced",
    }
}

/// A customer of the store (SPEC section 11). `totalRevenue` and `mrr` are the provider's own
/// figures (`total_revenue_currency` and `mrr`, US cents), not worked out here.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct CustomerDto {
    pub id: String,
    pub name: String,
    pub email: String,
    /// The provider's e-mail marketing status (`subscribed`, `unsubscribed`, `archived`,
    /// `requires_verification`, `invalid_email`, `bounced`).
    pub status: String,
    /// ISO 3166-1 alpha-2.
    pub country: Option<String>,
    pub created_at: String,
    pub updated_at: String,
    /// Cents: what the customer's orders brought in, less refunds.
    pub total_revenue: i64,
    /// Cents a month, from the customer's live subscriptions.
    pub mrr: i64,
    /// The currency of `totalRevenue` and `mrr`: the provider counts both in US dollars.
    pub currency: String,
    /// The customer's billing portal, signed for 24 hours: only on an answer just read from the
    /// provider (`GET /customers/{id}` while it is reachable), never kept.
    pub portal_url: Option<String>,
}

/// A customer from the provider's resource.
pub fn customer_from(resource: &Resource) -> CustomerDto {
    CustomerDto {
        id: resource.id.clone(),
        name: resource.str("name").unwrap_or_default(),
        email: resource.str("email").unwrap_or_default(),
        status: resource.str("status").unwrap_or_else(|| "subscribed".into()),
        country: resource.str("country").filter(|c| !c.is_empty()),
        created_at: normalise_time(resource.str("created_at")).unwrap_or_default(),
        updated_at: normalise_time(resource.str("updated_at")).unwrap_or_default(),
        total_revenue: resource.int("total_revenue_currency").unwrap_or(0),
        mrr: resource.int("mrr").unwrap_or(0),
        currency: "USD".into(),
        portal_url: url(resource, "customer_portal"),
    }
}

/// One of a resource's `urls`.
fn url(resource: &Resource, name: &str) -> Option<String> {
    resource.attributes.get("urls")?.get(name)?.as_str().map(str::to_owned)
}

/// A product variant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct VariantDto {
    pub id: String,
    pub name: String,
    /// Cents.
    pub price: i64,
    /// The provider's variant status: pending, draft or published.
    pub status: String,
    pub is_subscription: bool,
    /// A subscription plan's billing interval (`day`, `week`, `month` or `year`) and how many of
    /// them one payment covers.
    pub interval: Option<String>,
    pub interval_count: Option<i64>,
}

/// The seed's Product, plus its variants on the detail route.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ProductDto {
    pub id: String,
    pub name: String,
    pub slug: String,
    /// Cents, as Lemon Squeezy reports the product's price (its variants' lowest).
    pub price: i64,
    pub currency: String,
    pub price_formatted: String,
    pub status: ProductStatus,
    pub created_at: String,
    pub updated_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub variants: Option<Vec<VariantDto>>,
}

/// The seed's Subscription, plus the provider's own status and what staff need to see.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionDto {
    pub id: String,
    /// The provider's customer id ("" when the provider has none).
    pub customer_id: String,
    pub status: SubscriptionStatus,
    /// The provider's status: on_trial, active, paused, past_due, unpaid, cancelled, expired.
    pub provider_status: String,
    pub product_id: String,
    pub variant_id: String,
    pub renews_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub ends_at: Option<String>,
    pub created_at: String,
    pub updated_at: String,
    pub product_name: Option<String>,
    pub variant_name: Option<String>,
    pub customer_name: Option<String>,
    pub customer_email: Option<String>,
    /// void or free, while paused.
    pub pause_mode: Option<String>,
    pub pause_resumes_at: Option<String>,
    pub last_payment_status: Option<String>,
    pub last_payment_at: Option<String>,
    /// Cents per interval: the plan's (variant's) price.
    pub price: Option<i64>,
    /// `day`, `week`, `month` or `year`: the plan's billing interval, every `intervalCount`.
    pub interval: Option<String>,
    pub interval_count: Option<i64>,
    /// The price's currency: the store's.
    pub currency: Option<String>,
    /// `stripe` or `paypal`.
    pub payment_processor: Option<String>,
    /// The card's brand and last four digits (none for PayPal).
    pub card_brand: Option<String>,
    pub card_last_four: Option<String>,
    /// Where the customer updates their card, and their billing portal: signed for 24 hours,
    /// so only on an answer just read from the provider (`GET /subscriptions/{id}`), never kept.
    pub update_payment_method_url: Option<String>,
    pub portal_url: Option<String>,
}

/// A subscription's invoice (SPEC section 11): the first payment, each renewal, and a plan change
/// billed at once (`/v1/subscription-invoices`, also the data of `subscription_payment_*` events).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct InvoiceDto {
    pub id: String,
    pub subscription_id: String,
    /// The provider's customer id ("" when the provider has none).
    pub customer_id: String,
    /// `initial`, `renewal` or `updated` (a plan change).
    pub billing_reason: String,
    /// `pending`, `paid`, `void`, `refunded` or `partial_refund`.
    pub status: String,
    /// Cents, the invoice's currency, with tax and less discounts.
    pub total: i64,
    /// Cents refunded so far (0 when none).
    pub refunded_amount: i64,
    pub currency: String,
    /// The card's brand and last four digits (none for PayPal).
    pub card_brand: Option<String>,
    pub card_last_four: Option<String>,
    /// The customer's invoice, once there is one.
    pub invoice_url: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

/// An invoice's status in the SPEC's words: the official Laravel package names a partly refunded
/// invoice `partial_refunded`; orders (and the SPEC) say `partial_refund`.
pub fn invoice_status(provider: &str) -> String {
    match provider {
        "partial_refunded" => "partial_refund".into(),
        other => other.into(),
    }
}

/// An invoice from the provider's resource.
pub fn invoice_from(resource: &Resource) -> InvoiceDto {
    InvoiceDto {
        id: resource.id.clone(),
        subscription_id: resource.str("subscription_id").unwrap_or_default(),
        customer_id: resource.str("customer_id").unwrap_or_default(),
        billing_reason: resource.str("billing_reason").unwrap_or_else(|| "renewal".into()),
        status: invoice_status(&resource.str("status").unwrap_or_else(|| "pending".into())),
        total: resource.int("total").unwrap_or(0),
        refunded_amount: resource.int("refunded_amount").unwrap_or(0),
        currency: resource.str("currency").unwrap_or_else(|| "USD".into()),
        card_brand: resource.str("card_brand").filter(|b| !b.is_empty()),
        card_last_four: resource.str("card_last_four").filter(|b| !b.is_empty()),
        invoice_url: url(resource, "invoice_url"),
        created_at: normalise_time(resource.str("created_at")).unwrap_or_default(),
        updated_at: normalise_time(resource.str("updated_at")).unwrap_or_default(),
    }
}

staffroom_base::text_enum! {
    /// A licence key's status (the License API's four).
    pub enum LicenseKeyStatus {
        Inactive = "inactive",
        Active = "active",
        Expired = "expired",
        Disabled = "disabled",
    }
}

/// A licence key (SPEC section 11), as staff see it in lists: its short form only. The full key
/// is read from the provider when asked for ([`LicenseKeyDetail`]) and never kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct LicenseKeyDto {
    pub id: String,
    /// "XXXX-" and the key's last 12 characters.
    pub key_short: String,
    /// `inactive` (on no machine), `active`, `expired` or `disabled`.
    pub status: String,
    /// Disabled by hand (the provider's own flag: such a key may also be reported expired).
    pub disabled: bool,
    /// How many machines it may be activated on (none: unlimited).
    pub activation_limit: Option<i64>,
    /// How many it is activated on.
    pub activation_usage: i64,
    /// When it stops working (none: never).
    pub expires_at: Option<String>,
    /// Our order's id, when the order is cached.
    pub order_id: Option<String>,
    pub provider_order_id: String,
    /// The provider's customer id.
    pub customer_id: String,
    pub customer_name: String,
    pub customer_email: String,
    pub product_id: String,
    /// The cached product's name.
    pub product_name: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

/// A machine a licence key is activated on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct LicenseInstanceDto {
    pub id: String,
    /// The name the activating app gave it.
    pub name: String,
    /// The `instance_id` the License API answered when it was activated.
    pub identifier: String,
    pub created_at: String,
}

/// A licence key with its full key and the machines it is activated on, read afresh.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct LicenseKeyDetail {
    #[serde(flatten)]
    pub license_key: LicenseKeyDto,
    pub key: String,
    pub instances: Vec<LicenseInstanceDto>,
}

/// A licence key from the provider's resource (without the full key, which is not kept).
pub fn license_key_from(resource: &Resource) -> LicenseKeyDto {
    LicenseKeyDto {
        id: resource.id.clone(),
        key_short: resource.str("key_short").unwrap_or_default(),
        status: resource.str("status").unwrap_or_else(|| "inactive".into()),
        // The docs' example writes 0 or 1, their description "true".
        disabled: resource
            .bool("disabled")
            .or_else(|| resource.int("disabled").map(|n| n != 0))
            .unwrap_or(resource.str("status").as_deref() == Some("disabled")),
        activation_limit: resource.int("activation_limit"),
        activation_usage: resource.int("instances_count").unwrap_or(0),
        expires_at: normalise_time(resource.str("expires_at")),
        order_id: None,
        provider_order_id: resource.str("order_id").unwrap_or_default(),
        customer_id: resource.str("customer_id").unwrap_or_default(),
        customer_name: resource.str("user_name").unwrap_or_default(),
        customer_email: resource.str("user_email").unwrap_or_default(),
        product_id: resource.str("product_id").unwrap_or_default(),
        product_name: None,
        created_at: normalise_time(resource.str("created_at")).unwrap_or_default(),
        updated_at: normalise_time(resource.str("updated_at")).unwrap_or_default(),
    }
}

/// A machine a key is activated on, from the provider's resource.
pub fn license_instance_from(resource: &Resource) -> LicenseInstanceDto {
    LicenseInstanceDto {
        id: resource.id.clone(),
        name: resource.str("name").unwrap_or_default(),
        identifier: resource.str("identifier").unwrap_or_default(),
        created_at: normalise_time(resource.str("created_at")).unwrap_or_default(),
    }
}

/// A discount code of the store, as the sync and Staffroom's own changes last told, with how
/// often it was used.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct DiscountDto {
    pub id: String,
    pub name: String,
    /// What customers type at checkout: capital letters and digits.
    pub code: String,
    /// A percentage (`percent`) or cents of the store's currency (`fixed`).
    pub amount: i64,
    /// `percent` or `fixed`.
    pub amount_type: String,
    /// For subscriptions: `once` (the first payment), `repeating` (for `durationInMonths`) or
    /// `forever`.
    pub duration: String,
    pub duration_in_months: i64,
    pub starts_at: Option<String>,
    pub expires_at: Option<String>,
    /// How many times it may be redeemed (none: no limit).
    pub max_redemptions: Option<i64>,
    /// The variants it is limited to (empty: every product).
    pub variant_ids: Vec<String>,
    /// `draft` or `published`.
    pub status: String,
    pub created_at: String,
    pub updated_at: String,
    /// How many times it was redeemed, of the redemptions cached.
    pub redemption_count: u64,
    /// The latest redemptions, newest first (at most 20).
    pub redemptions: Vec<DiscountRedemptionDto>,
}

/// A discount applied to an order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct DiscountRedemptionDto {
    pub id: String,
    pub discount_id: String,
    pub provider_order_id: String,
    /// Our order's id, its number and buyer, when the order is cached.
    pub order_id: Option<String>,
    pub order_number: Option<i64>,
    pub customer_email: Option<String>,
    /// Cents taken off, in `currency` (the order's; the store's when the order is not cached).
    pub amount: i64,
    pub currency: Option<String>,
    pub created_at: String,
}

/// A discount from the provider's resource (its variants when the answer included them), with
/// no redemptions yet.
pub fn discount_from(resource: &Resource) -> DiscountDto {
    let limited = resource.bool("is_limited_redemptions").unwrap_or(false);
    DiscountDto {
        id: resource.id.clone(),
        name: resource.str("name").unwrap_or_default(),
        code: resource.str("code").unwrap_or_default(),
        amount: resource.int("amount").unwrap_or(0),
        amount_type: resource.str("amount_type").unwrap_or_else(|| "percent".into()),
        duration: resource.str("duration").unwrap_or_else(|| "once".into()),
        duration_in_months: resource.int("duration_in_months").unwrap_or(1),
        starts_at: normalise_time(resource.str("starts_at")),
        expires_at: normalise_time(resource.str("expires_at")),
        max_redemptions: resource.int("max_redemptions").filter(|_| limited),
        variant_ids: if resource.bool("is_limited_to_products").unwrap_or(false) {
            resource.related_ids("variants")
        } else {
            Vec::new()
        },
        status: resource.str("status").unwrap_or_else(|| "published".into()),
        created_at: normalise_time(resource.str("created_at")).unwrap_or_default(),
        updated_at: normalise_time(resource.str("updated_at")).unwrap_or_default(),
        redemption_count: 0,
        redemptions: Vec::new(),
    }
}

/// A redemption from the provider's resource (the order's side is filled from the cache).
pub fn redemption_from(resource: &Resource) -> DiscountRedemptionDto {
    DiscountRedemptionDto {
        id: resource.id.clone(),
        discount_id: resource.str("discount_id").unwrap_or_default(),
        provider_order_id: resource.str("order_id").unwrap_or_default(),
        order_id: None,
        order_number: None,
        customer_email: None,
        amount: resource.int("amount").unwrap_or(0),
        currency: None,
        created_at: normalise_time(resource.str("created_at")).unwrap_or_default(),
    }
}

/// A webhook event applied to an order, for its history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct OrderEvent {
    pub event_name: String,
    pub received_at: String,
    pub outcome: Option<String>,
}

/// The seed's Order, plus what the detail route shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct OrderDto {
    /// Our order id (also the checkout's custom data `order_id`).
    pub id: String,
    /// A human-readable reference, e.g. SR-000042.
    pub order_id: String,
    pub status: OrderStatus,
    /// Cents: the variant's price until paid, then the amount actually charged (with tax,
    /// less discounts).
    pub total: i64,
    pub currency: String,
    pub checkout_url: String,
    pub created_at: String,
    pub email: String,
    pub name: Option<String>,
    pub product_id: String,
    pub variant_id: String,
    pub customer_id: Option<String>,
    pub provider_order_id: Option<String>,
    pub paid_at: Option<String>,
    /// When the order was last refunded (in full or in part).
    pub refunded_at: Option<String>,
    /// Cents refunded so far (0 when none).
    #[serde(default)]
    pub refunded_amount: i64,
    pub updated_at: String,
    /// Why the order waits for a person's review: a payment event did not match its checkout
    /// (another store, variant, currency, price or mode), so it was not marked paid.
    pub review: Option<String>,
    /// Where the order was made.
    pub source: OrderSource,
    /// The provider's status: pending, failed, paid, refunded, partial_refund or fraudulent
    /// (none before the provider has the order).
    pub provider_status: Option<String>,
    /// The number on the customer's receipt (the store's own sequence), once the provider has it.
    pub order_number: Option<i64>,
    pub items: Vec<OrderItem>,
    /// Cents, the order's currency: `total` = `subtotal` − `discountTotal` + `tax`.
    pub subtotal: i64,
    pub discount_total: i64,
    pub tax: i64,
    /// The customer's receipt, once paid.
    pub receipt_url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub events: Option<Vec<OrderEvent>>,
}

/// The seed's three subscription statuses from the provider's seven.
pub fn seed_status(provider_status: &str) -> SubscriptionStatus {
    match provider_status {
        "cancelled" => SubscriptionStatus::Cancelled,
        "expired" => SubscriptionStatus::Expired,
        // on_trial, active, paused, past_due, unpaid, and anything new that is not an end.
        _ => SubscriptionStatus::Active,
    }
}

/// The provider's timestamps (`…00.000000Z`) normalised to RFC 3339 UTC with `Z`.
pub fn normalise_time(value: Option<String>) -> Option<String> {
    let value = value?;
    match chrono::DateTime::parse_from_rfc3339(&value) {
        Ok(t) => Some(t.with_timezone(&chrono::Utc).to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)),
        Err(_) => Some(value),
    }
}

/// Money as people read it.
pub fn format_money(cents: i64, currency: &str) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    let symbol = match currency {
        "USD" => "$",
        "EUR" => "€",
        "GBP" => "£",
        _ => "",
    };
    let amount = format!("{}.{:02}", cents.abs() / 100, cents.abs() % 100);
    if symbol.is_empty() {
        format!("{sign}{amount} {currency}")
    } else {
        format!("{sign}{symbol}{amount}")
    }
}

/// A subscription from the provider's resource.
pub fn subscription_from(resource: &Resource) -> SubscriptionDto {
    let provider_status = resource.str("status").unwrap_or_else(|| "active".into());
    let pause = resource.attributes.get("pause").and_then(|p| p.as_object());
    SubscriptionDto {
        id: resource.id.clone(),
        customer_id: resource.str("customer_id").unwrap_or_default(),
        status: seed_status(&provider_status),
        provider_status,
        product_id: resource.str("product_id").unwrap_or_default(),
        variant_id: resource.str("variant_id").unwrap_or_default(),
        renews_at: normalise_time(resource.str("renews_at")).unwrap_or_default(),
        ends_at: normalise_time(resource.str("ends_at")),
        created_at: normalise_time(resource.str("created_at")).unwrap_or_default(),
        updated_at: normalise_time(resource.str("updated_at")).unwrap_or_default(),
        product_name: resource.str("product_name"),
        variant_name: resource.str("variant_name"),
        customer_name: resource.str("user_name"),
        customer_email: resource.str("user_email"),
        pause_mode: pause.and_then(|p| p.get("mode")).and_then(|m| m.as_str()).map(str::to_string),
        pause_resumes_at: normalise_time(
            pause.and_then(|p| p.get("resumes_at")).and_then(|m| m.as_str()).map(str::to_string),
        ),
        last_payment_status: None,
        last_payment_at: None,
        // The plan's price and interval are the cached variant's (joined when read).
        price: None,
        interval: None,
        interval_count: None,
        currency: None,
        payment_processor: resource.str("payment_processor"),
        card_brand: resource.str("card_brand").filter(|b| !b.is_empty()),
        card_last_four: resource.str("card_last_four").filter(|b| !b.is_empty()),
        update_payment_method_url: url(resource, "update_payment_method"),
        portal_url: url(resource, "customer_portal"),
    }
}

/// A variant from the provider's resource.
pub fn variant_from(resource: &Resource) -> (String, VariantDto, i64) {
    let product_id = resource.str("product_id").unwrap_or_default();
    let dto = VariantDto {
        id: resource.id.clone(),
        name: resource.str("name").unwrap_or_default(),
        price: resource.int("price").unwrap_or(0),
        status: resource.str("status").unwrap_or_else(|| "published".into()),
        is_subscription: resource.bool("is_subscription").unwrap_or(false),
        interval: resource.str("interval").filter(|i| ["day", "week", "month", "year"].contains(&i.as_str())),
        interval_count: resource.int("interval_count").filter(|n| *n > 0),
    };
    (product_id, dto, resource.int("sort").unwrap_or(0))
}

/// The variants staff see, by product: a product's `pending` "default" variant only when it is
/// the product's one variant (then it is what sells); beside published variants Lemon Squeezy
/// still lists it, but it is not for sale.
pub fn shown_variants(variants: Vec<(String, VariantDto, i64)>) -> Vec<(String, VariantDto, i64)> {
    let mut per_product: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (product, _, _) in &variants {
        *per_product.entry(product.clone()).or_default() += 1;
    }
    variants.into_iter().filter(|(product, v, _)| v.status != "pending" || per_product[product] == 1).collect()
}

/// A product from the provider's resource (variants attached separately).
pub fn product_from(resource: &Resource, currency: &str) -> ProductDto {
    let price = resource.int("price").unwrap_or(0);
    ProductDto {
        id: resource.id.clone(),
        name: resource.str("name").unwrap_or_default(),
        slug: resource.str("slug").unwrap_or_default(),
        price,
        currency: currency.to_string(),
        price_formatted: format_money(price, currency),
        status: match resource.str("status").as_deref() {
            Some("published") => ProductStatus::Published,
            _ => ProductStatus::Draft,
        },
        created_at: normalise_time(resource.str("created_at")).unwrap_or_default(),
        updated_at: normalise_time(resource.str("updated_at")).unwrap_or_default(),
        variants: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_provider_status_maps() {
        let cases = [
            ("on_trial", "active"),
            ("active", "active"),
            ("paused", "active"),
            ("past_due", "active"),
            ("unpaid", "active"),
            ("cancelled", "cancelled"),
            ("expired", "expired"),
        ];
        for (provider, seed) in cases {
            assert_eq!(seed_status(provider).as_str(), seed, "{provider}");
        }
    }

    #[test]
    fn times_and_money() {
        assert_eq!(normalise_time(Some("2026-02-28T09:02:52.000000Z".into())).as_deref(), Some("2026-02-28T09:02:52Z"));
        assert_eq!(normalise_time(Some("2026-02-28T10:02:52+01:00".into())).as_deref(), Some("2026-02-28T09:02:52Z"));
        assert_eq!(format_money(1999, "USD"), "$19.99");
        assert_eq!(format_money(5, "SEK"), "0.05 SEK");
        assert_eq!(PageMeta::new(1, 10, 0).total_pages, 0);
        assert_eq!(PageMeta::new(1, 10, 21).total_pages, 3);
    }
}
