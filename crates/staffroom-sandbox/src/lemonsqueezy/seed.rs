//! The simulator's seeded, deterministic data, shaped like a real account's: the store Staffroom
//! sells through and a second store the same API key sees; products whose only variant is the
//! `pending` "default" one (most real products), products with several published variants
//! beside their pending default, draft products and variants; customers; subscriptions in every
//! provider status, some paid through PayPal, one in fifty without a customer id.

use serde_json::{json, Value};

/// The simulated store's id (the one Staffroom is configured with).
pub const STORE_ID: u64 = 1;
/// Another store of the same account: an API key sees every store of its account.
pub const OTHER_STORE_ID: u64 = 2;
/// The other store's products start at this id.
const OTHER_STORE_PRODUCTS: u64 = 500;

/// A tiny deterministic generator (SplitMix64): the same seed gives the same shop every run.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    /// A float in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A product with its variants.
#[derive(Debug, Clone)]
pub struct Product {
    pub id: u64,
    pub store_id: u64,
    pub name: String,
    pub status: &'static str,
    pub description: String,
    pub created_at: String,
    pub updated_at: String,
    pub variants: Vec<Variant>,
}

/// A variant (the thing a checkout sells).
#[derive(Debug, Clone)]
pub struct Variant {
    pub id: u64,
    pub product_id: u64,
    pub name: String,
    pub price: i64,
    pub status: &'static str,
    pub is_subscription: bool,
    pub interval: Option<&'static str>,
    pub sort: u32,
}

/// A customer.
#[derive(Debug, Clone)]
pub struct Customer {
    pub id: u64,
    pub store_id: u64,
    pub name: String,
    pub email: String,
    pub country: String,
    /// The e-mail marketing status: `subscribed`, `unsubscribed`, `archived`,
    /// `requires_verification`, `invalid_email` or `bounced`.
    pub status: &'static str,
    /// When the customer first bought: their first order or subscription.
    pub created_at: String,
}

/// A subscription, in the provider's terms.
#[derive(Debug, Clone)]
pub struct Subscription {
    pub id: u64,
    pub store_id: u64,
    /// `stripe` or `paypal`: PayPal subscriptions change only once the customer confirms.
    pub payment_processor: &'static str,
    pub customer_id: Option<u64>,
    pub order_id: u64,
    pub product_id: u64,
    pub variant_id: u64,
    pub product_name: String,
    pub variant_name: String,
    pub user_name: String,
    pub user_email: String,
    pub status: &'static str,
    pub pause: Option<(String, Option<String>)>,
    pub trial_ends_at: Option<String>,
    pub renews_at: String,
    pub ends_at: Option<String>,
    pub created_at: String,
    pub updated_at: String,
    /// Where the customer confirms a change the API could not make (PayPal), once one was asked.
    pub confirm_change_url: Option<String>,
}

/// An order: seeded history, or made when a checkout is paid.
#[derive(Debug, Clone)]
pub struct Order {
    pub id: u64,
    pub store_id: u64,
    pub identifier: String,
    /// The number on the customer's receipt: a sequence of its store.
    pub order_number: u64,
    pub customer_id: u64,
    pub user_name: String,
    pub user_email: String,
    pub status: &'static str,
    /// What the customer was charged in, and its rate to US dollars (the `*_usd` amounts).
    pub currency: String,
    pub currency_rate: f64,
    /// The variant's price, before tax and discounts.
    pub subtotal: i64,
    pub discount_total: i64,
    pub tax: i64,
    /// What the customer paid: subtotal − discounts + tax.
    pub total: i64,
    pub tax_name: Option<&'static str>,
    pub tax_rate: &'static str,
    pub refunded_amount: i64,
    pub refunded_at: Option<String>,
    pub product_id: u64,
    pub variant_id: u64,
    pub product_name: String,
    pub variant_name: String,
    pub created_at: String,
    pub updated_at: String,
    /// The checkout's custom data, which the order's webhooks carry as `meta.custom_data`.
    pub custom: serde_json::Map<String, serde_json::Value>,
}

/// Every provider subscription status.
pub const SUBSCRIPTION_STATUSES: [&str; 7] =
    ["on_trial", "active", "paused", "past_due", "unpaid", "cancelled", "expired"];

const ADJECTIVES: [&str; 12] =
    ["Quiet", "Bright", "Nimble", "Golden", "Steady", "Clever", "Swift", "Bold", "Calm", "Lucky", "Crisp", "Cosy"];
const NOUNS: [&str; 10] =
    ["Planner", "Notebook", "Toolkit", "Template", "Course", "Workshop", "Guide", "Bundle", "Journal", "Studio"];
const FIRST: [&str; 24] = [
    "Ada", "Ben", "Chloé", "Dmitri", "Eve", "Farah", "Gus", "Hana", "Ivo", "Jun", "Kai", "Lena", "Marta", "Nils",
    "Olu", "Priya", "Quentin", "Rosa", "Sven", "Tomás", "Uma", "Viktor", "Wen", "Yara",
];
const LAST: [&str; 20] = [
    "Lovelace",
    "Okafor",
    "Müller",
    "Ivanova",
    "Tanaka",
    "Silva",
    "Nguyen",
    "Haddad",
    "Berg",
    "Costa",
    "O'Brien",
    "García",
    "Kowalski",
    "Johansson",
    "Rossi",
    "Dubois",
    "Kim",
    "Mensah",
    "van Dijk",
    "Novák",
];
const COUNTRIES: [&str; 6] = ["GB", "US", "DE", "FR", "JP", "BR"];

/// Seconds since the epoch of 2026-01-01T00:00:00Z: all seeded dates are relative to it.
const BASE: i64 = 1_767_225_600;

/// RFC 3339 with the provider's microsecond style.
pub fn stamp(secs: i64) -> String {
    chrono::DateTime::from_timestamp(secs, 0).unwrap_or_default().format("%Y-%m-%dT%H:%M:%S.000000Z").to_string()
}

fn variant(product_id: u64, n: u64, name: &str, price: i64, status: &'static str, sort: u32) -> Variant {
    Variant {
        id: product_id * 10 + n,
        product_id,
        name: name.into(),
        price,
        status,
        is_subscription: false,
        interval: None,
        sort,
    }
}

/// Products of our store: the first ten are subscription plans (monthly and yearly variants),
/// the rest one-off; every sixth is a draft. Every product keeps its `pending` default variant
/// (listed by the API beside the published ones, as Lemon Squeezy's own packages have to filter
/// out); most one-off products have nothing else, so their pending default is what sells.
pub fn products(count: u64) -> Vec<Product> {
    let mut rng = Rng::new(7);
    let mut products: Vec<Product> = (1..=count)
        .map(|id| {
            let name = format!("{} {}", ADJECTIVES[(id as usize * 5) % 12], NOUNS[(id as usize) % 10]);
            let name = if id > 12 { format!("{name} {id}") } else { name };
            let base_price = 500 + 100 * rng.below(95) as i64;
            let mut variants = vec![variant(id, 0, "Default", base_price, "pending", 0)];
            if id <= 10 {
                for (n, (label, interval, price)) in
                    [("Monthly", "month", base_price), ("Yearly", "year", base_price * 10)].into_iter().enumerate()
                {
                    let mut v = variant(id, n as u64 + 1, label, price, "published", n as u32 + 1);
                    v.is_subscription = true;
                    v.interval = Some(interval);
                    variants.push(v);
                }
            } else if id % 3 == 0 {
                variants.push(variant(id, 1, "Standard", base_price, "published", 1));
                variants.push(variant(id, 2, "Team", base_price * 4, "published", 2));
            }
            if id > 10 && id % 4 == 0 {
                variants.push(variant(id, 3, "Early access", base_price / 2, "draft", 3));
            }
            let created = BASE + id as i64 * 86_400;
            Product {
                id,
                store_id: STORE_ID,
                name,
                status: if id % 6 == 0 { "draft" } else { "published" },
                description: format!("<p>Seeded sandbox product number {id}.</p>"),
                created_at: stamp(created),
                updated_at: stamp(created + 3600),
                variants,
            }
        })
        .collect();
    // The account's other store: the API key sees its products and variants too.
    for n in 1..=3u64 {
        let id = OTHER_STORE_PRODUCTS + n;
        let created = BASE + n as i64 * 43_200;
        products.push(Product {
            id,
            store_id: OTHER_STORE_ID,
            name: format!("Side project {}", ["Poster", "Zine", "Sticker pack"][n as usize - 1]),
            status: "published",
            description: "<p>Sold in the account's other store.</p>".into(),
            created_at: stamp(created),
            updated_at: stamp(created),
            variants: vec![variant(id, 0, "Default", 1200 + 300 * n as i64, "pending", 0)],
        });
    }
    // And a membership it bills monthly: the key sees those subscriptions too.
    let id = OTHER_STORE_PRODUCTS + 4;
    let mut monthly = variant(id, 1, "Monthly", 400, "published", 1);
    (monthly.is_subscription, monthly.interval) = (true, Some("month"));
    products.push(Product {
        id,
        store_id: OTHER_STORE_ID,
        name: "Side project Membership".into(),
        status: "published",
        description: "<p>A monthly membership of the account's other store.</p>".into(),
        created_at: stamp(BASE + 5 * 43_200),
        updated_at: stamp(BASE + 5 * 43_200),
        variants: vec![variant(id, 0, "Default", 400, "pending", 0), monthly],
    });
    products
}

/// The account's other store's customers and their subscriptions (to its membership), numbered
/// on from this store's last (the provider numbers every store's alike): an API key sees them as
/// it sees this store's, by id and in lists without a store filter.
pub fn other_store_subscribers(
    products: &[Product],
    last_customer: u64,
    last_subscription: u64,
) -> (Vec<Customer>, Vec<Subscription>) {
    let membership = products.iter().find(|p| p.store_id == OTHER_STORE_ID && p.variants.len() > 1);
    let Some(membership) = membership else { return (Vec::new(), Vec::new()) };
    let plan = &membership.variants[1];
    let people = [("Greta Lindqvist", "SE", "active"), ("Malik Osei", "GH", "cancelled")];
    people
        .iter()
        .enumerate()
        .map(|(n, (name, country, status))| {
            let n = n as u64 + 1;
            let created = BASE + 30 * 86_400 + n as i64 * 3_600;
            let email = format!("{}@example.org", name.to_lowercase().replace(' ', "."));
            let customer = Customer {
                id: last_customer + n,
                store_id: OTHER_STORE_ID,
                name: name.to_string(),
                email: email.clone(),
                country: country.to_string(),
                status: "subscribed",
                created_at: stamp(created),
            };
            let subscription = Subscription {
                id: last_subscription + n,
                store_id: OTHER_STORE_ID,
                payment_processor: "stripe",
                customer_id: Some(customer.id),
                order_id: 90_000 + n,
                product_id: membership.id,
                variant_id: plan.id,
                product_name: membership.name.clone(),
                variant_name: plan.name.clone(),
                user_name: name.to_string(),
                user_email: email,
                status,
                pause: None,
                trial_ends_at: None,
                renews_at: stamp(created + 400 * 86_400),
                ends_at: (*status == "cancelled").then(|| stamp(created + 400 * 86_400)),
                created_at: stamp(created),
                updated_at: stamp(created + 60),
                confirm_change_url: None,
            };
            (customer, subscription)
        })
        .unzip()
}

/// Whether a checkout may sell `v` of `product`: a published variant, or the product's only one.
pub fn sellable(product: &Product, v: &Variant) -> bool {
    v.status == "published" || (v.status == "pending" && product.variants.len() == 1)
}

/// Customers with names from several languages.
pub fn customers(count: u64) -> Vec<Customer> {
    (1..=count)
        .map(|n| {
            let first = FIRST[(n as usize) % FIRST.len()];
            let last = LAST[(n as usize * 7 + n as usize / FIRST.len()) % LAST.len()];
            Customer {
                id: 1000 + n,
                store_id: STORE_ID,
                name: format!("{first} {last}"),
                email: format!("{}.{}{}@example.com", ascii(first), ascii(last), n),
                country: COUNTRIES[(n as usize * 5 + n as usize / 7) % COUNTRIES.len()].to_string(),
                status: customer_status(n),
                created_at: stamp(BASE),
            }
        })
        .collect()
}

/// Most customers are subscribed to the store's e-mails; some unsubscribed, a few archived,
/// bounced, unverified or with an address that does not work, as a real list has.
fn customer_status(n: u64) -> &'static str {
    match n {
        n if n % 53 == 0 => "bounced",
        n if n % 41 == 0 => "archived",
        n if n % 67 == 0 => "requires_verification",
        n if n % 97 == 0 => "invalid_email",
        n if n % 6 == 0 => "unsubscribed",
        _ => "subscribed",
    }
}

/// Each customer's `created_at`: when they first bought (an order or a subscription), as the
/// provider makes a customer at their first checkout.
pub fn date_customers(customers: &mut [Customer], orders: &[Order], subscriptions: &[Subscription]) {
    let mut first: std::collections::HashMap<u64, &str> = std::collections::HashMap::new();
    let bought = orders
        .iter()
        .map(|o| (o.customer_id, o.created_at.as_str()))
        .chain(subscriptions.iter().filter_map(|s| Some((s.customer_id?, s.created_at.as_str()))));
    for (customer, at) in bought {
        let earliest = first.entry(customer).or_insert(at);
        if at < *earliest {
            *earliest = at;
        }
    }
    for customer in customers {
        if let Some(at) = first.get(&customer.id) {
            customer.created_at = at.to_string();
        }
    }
}

/// A name as the local part of an e-mail address.
fn ascii(s: &str) -> String {
    s.to_lowercase()
        .replace(['é', 'è'], "e")
        .replace(['á', 'à'], "a")
        .replace('í', "i")
        .replace('ü', "u")
        .replace(['ö', 'ó'], "o")
        .replace(['\'', ' '], "")
}

/// Subscriptions: statuses cycle through all seven, spread over customers and plans; one in
/// fifty has no customer id, as real data sometimes has; one in five is paid through PayPal.
pub fn subscriptions(count: u64, products: &[Product], customers: &[Customer]) -> Vec<Subscription> {
    let plans: Vec<&Product> =
        products.iter().filter(|p| p.store_id == STORE_ID && p.variants.iter().any(|v| v.is_subscription)).collect();
    let mut rng = Rng::new(11);
    (1..=count)
        .map(|id| {
            let status = SUBSCRIPTION_STATUSES[(id as usize - 1) % SUBSCRIPTION_STATUSES.len()];
            let customer = &customers[(rng.below(customers.len() as u64)) as usize];
            let plan = plans[(rng.below(plans.len() as u64)) as usize];
            let variant = &plan.variants[1 + (id % 2) as usize];
            let created = BASE + (id as i64 * 3_607) % (300 * 86_400);
            // A placeholder a year ahead: `invoices` makes it the end of the last billed period.
            let renews = created + 400 * 86_400;
            let ends_at = match status {
                "cancelled" => Some(stamp(renews)),
                "expired" => Some(stamp(created + 20 * 86_400)),
                _ => None,
            };
            Subscription {
                id,
                store_id: STORE_ID,
                payment_processor: if id % 5 == 2 { "paypal" } else { "stripe" },
                customer_id: if id % 50 == 0 { None } else { Some(customer.id) },
                order_id: 5000 + id,
                product_id: plan.id,
                variant_id: variant.id,
                product_name: plan.name.clone(),
                variant_name: variant.name.clone(),
                user_name: customer.name.clone(),
                user_email: customer.email.clone(),
                status,
                pause: (status == "paused").then(|| ("void".to_string(), None)),
                trial_ends_at: (status == "on_trial").then(|| stamp(created + 14 * 86_400)),
                renews_at: stamp(renews),
                ends_at,
                created_at: stamp(created),
                updated_at: stamp(created + 60),
                confirm_change_url: None,
            }
        })
        .collect()
}

/// A subscription invoice: one per billing period (SPEC section 11, Sandbox).
#[derive(Debug, Clone)]
pub struct Invoice {
    pub id: u64,
    pub store_id: u64,
    pub subscription_id: u64,
    pub customer_id: Option<u64>,
    pub user_name: String,
    pub user_email: String,
    /// `initial`, `renewal` or `updated`.
    pub billing_reason: &'static str,
    /// `pending`, `paid`, `void`, `refunded` or `partial_refund`.
    pub status: &'static str,
    pub card_brand: Option<&'static str>,
    pub card_last_four: Option<&'static str>,
    pub currency: String,
    pub subtotal: i64,
    pub tax: i64,
    pub total: i64,
    pub refunded_amount: i64,
    pub refunded_at: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

/// The start of billing period `n` (0 the first) of a plan billed every `interval`, from `start`.
pub fn period_start(start: i64, interval: Option<&str>, n: u32) -> i64 {
    let first = chrono::DateTime::from_timestamp(start, 0).unwrap_or_default();
    let months = if interval == Some("year") { 12 * n } else { n };
    first.checked_add_months(chrono::Months::new(months)).unwrap_or(first).timestamp()
}

/// Every subscription's invoices up to `until` (unix seconds): the first payment when it
/// started (or when its trial ended), then a renewal each period while it was live; an expired
/// one stops at its end. A subscription now past due owes its latest renewal (`pending`), an
/// unpaid one's latest was given up (`void`). About one renewal in eleven was refunded in full
/// and one in seven in part, a few days later, as a support desk's history has. Each live
/// subscription's `renews_at` (and a cancelled one's `ends_at`) becomes the end of its last
/// billed period.
pub fn invoices(
    subscriptions: &mut [Subscription],
    products: &[Product],
    customers: &[Customer],
    until: i64,
) -> Vec<Invoice> {
    let mut invoices = Vec::new();
    for sub in subscriptions.iter_mut() {
        let interval = products
            .iter()
            .flat_map(|p| p.variants.iter())
            .find(|v| v.id == sub.variant_id)
            .map(|v| (v.interval, v.price));
        let Some((interval, price)) = interval else { continue };
        if sub.status == "on_trial" {
            continue;
        }
        let started = chrono::DateTime::parse_from_rfc3339(&sub.created_at).map(|t| t.timestamp()).unwrap_or(BASE);
        let stop = match sub.status {
            "expired" => started + 1,
            _ => until.max(started + 1),
        };
        let country = sub.customer_id.and_then(|id| customers.iter().find(|c| c.id == id)).map(|c| c.country.as_str());
        let (_, _, basis_points) = tax_for(country);
        let tax = (price * basis_points + 5_000) / 10_000;
        let card = sub.payment_processor != "paypal";
        let periods: Vec<i64> =
            (0..).map(|n| period_start(started, interval, n)).take_while(|at| *at < stop).take(60).collect();
        let last = periods.len() - 1;
        for (n, at) in periods.iter().copied().enumerate() {
            let id = sub.id * 1_000 + n as u64 + 1;
            let renewal = n > 0;
            let status = match (n == last && renewal, sub.status) {
                (true, "past_due") => "pending",
                (true, "unpaid") => "void",
                _ if renewal && id % 11 == 0 => "refunded",
                _ if renewal && id % 7 == 0 => "partial_refund",
                _ => "paid",
            };
            let total = price + tax;
            let refunded_amount = match status {
                "refunded" => total,
                "partial_refund" => total / 2,
                _ => 0,
            };
            let refunded_at = (refunded_amount > 0).then(|| stamp((at + 3 * 86_400).min(until)));
            invoices.push(Invoice {
                id,
                store_id: sub.store_id,
                subscription_id: sub.id,
                customer_id: sub.customer_id,
                user_name: sub.user_name.clone(),
                user_email: sub.user_email.clone(),
                billing_reason: if renewal { "renewal" } else { "initial" },
                status,
                card_brand: card.then_some("visa"),
                card_last_four: card.then_some("4242"),
                currency: "USD".into(),
                subtotal: price,
                tax,
                total,
                refunded_amount,
                updated_at: refunded_at.clone().unwrap_or_else(|| stamp(at + 60)),
                refunded_at,
                created_at: stamp(at),
            });
        }
        if sub.status != "expired" {
            sub.renews_at = stamp(period_start(started, interval, periods.len() as u32));
            if sub.status == "cancelled" {
                sub.ends_at = Some(sub.renews_at.clone());
            }
        }
    }
    invoices
}

/// A licence key and the machines it is activated on.
#[derive(Debug, Clone)]
pub struct LicenseKey {
    pub id: u64,
    pub store_id: u64,
    pub customer_id: u64,
    pub order_id: u64,
    pub order_item_id: u64,
    pub product_id: u64,
    pub user_name: String,
    pub user_email: String,
    pub key: String,
    /// `None` is unlimited.
    pub activation_limit: Option<i64>,
    pub disabled: bool,
    pub expires_at: Option<String>,
    pub instances: Vec<Instance>,
    pub created_at: String,
    pub updated_at: String,
}

/// One activation of a licence key: a machine.
#[derive(Debug, Clone)]
pub struct Instance {
    pub id: u64,
    pub identifier: String,
    pub name: String,
    pub created_at: String,
}

impl LicenseKey {
    /// `inactive`, `active`, `expired` or `disabled`, as the License API names them, at `now`.
    pub fn status(&self, now: i64) -> &'static str {
        let expired = self
            .expires_at
            .as_deref()
            .and_then(|at| chrono::DateTime::parse_from_rfc3339(at).ok())
            .is_some_and(|at| at.timestamp() <= now);
        match () {
            _ if self.disabled => "disabled",
            _ if expired => "expired",
            _ if self.instances.is_empty() => "inactive",
            _ => "active",
        }
    }

    /// "XXXX-" and the key's last 12 characters, as the API shortens it.
    pub fn key_short(&self) -> String {
        format!("XXXX-{}", &self.key[self.key.len().saturating_sub(12)..])
    }
}

/// The licence terms of a product that sells licence keys: how many machines a key may be
/// activated on (a variant named "Team" on ten), and how many months it lasts (`None`: for
/// ever). Four of the store's one-off products sell them; the rest do not.
pub fn licence_terms(product_id: u64, variant_name: &str) -> Option<(i64, Option<u32>)> {
    let months = match product_id {
        13 => Some(3),
        // The account's other store sells keys too (its zine's digital edition).
        17 | 21 | 502 => Some(12),
        25 => None,
        _ => return None,
    };
    Some((if variant_name == "Team" { 10 } else { 3 }, months))
}

const MACHINES: [&str; 8] = [
    "MacBook Pro",
    "DESKTOP-4F2KQ7",
    "ubuntu-workstation",
    "Studio iMac",
    "ThinkPad X1",
    "office-pc-02",
    "Mac mini (build)",
    "surface-laptop",
];

/// A licence key for each paid order of a product that sells them (SPEC section 11, Sandbox):
/// activated on none to all of its machines; disabled when the order was refunded in full, and
/// one in twenty-three by hand; a three-month licence bought long enough ago has expired.
pub fn license_keys(orders: &[Order], until: i64) -> Vec<LicenseKey> {
    let mut keys = store_license_keys(orders, STORE_ID, 3_001, Rng::new(31), until);
    // The account's other store's keys, numbered on after this store's (ids are the provider's,
    // across stores), from a generator of their own so this store's keys stay as they were.
    let next = keys.last().map_or(3_001, |k| k.id + 1);
    keys.extend(store_license_keys(orders, OTHER_STORE_ID, next, Rng::new(37), until));
    keys
}

/// The keys of `store`'s paid orders of products that sell them, numbered from `first`.
fn store_license_keys(orders: &[Order], store: u64, first: u64, mut rng: Rng, until: i64) -> Vec<LicenseKey> {
    orders
        .iter()
        .filter(|o| o.store_id == store && matches!(o.status, "paid" | "refunded" | "partial_refund"))
        .filter_map(|o| Some((o, licence_terms(o.product_id, &o.variant_name)?)))
        .enumerate()
        .map(|(n, (o, (limit, months)))| {
            let id = first + n as u64;
            let created = chrono::DateTime::parse_from_rfc3339(&o.created_at).map(|t| t.timestamp()).unwrap_or(BASE);
            let expires = months.map(|m| period_start(created, Some("month"), m));
            let used = rng.below(limit as u64 + 1) as usize;
            let instances = (0..used)
                .map(|i| Instance {
                    id: id * 100 + i as u64,
                    identifier: uuid_from(&mut rng),
                    name: format!(
                        "{} · {}",
                        o.user_name.split(' ').next().unwrap_or("Buyer"),
                        MACHINES[(n + i) % MACHINES.len()]
                    ),
                    created_at: stamp((created + 600 + i as i64 * 86_400).min(until)),
                })
                .collect();
            LicenseKey {
                id,
                store_id: o.store_id,
                customer_id: o.customer_id,
                order_id: o.id,
                order_item_id: o.id + 100_000_000,
                product_id: o.product_id,
                user_name: o.user_name.clone(),
                user_email: o.user_email.clone(),
                key: uuid_from(&mut rng).to_uppercase(),
                activation_limit: Some(limit),
                disabled: o.status == "refunded" || n % 23 == 22,
                expires_at: expires.map(stamp),
                instances,
                created_at: o.created_at.clone(),
                updated_at: o.updated_at.clone(),
            }
        })
        .collect()
}

/// How far back the seeded order history reaches (SPEC section 11, Sandbox).
pub const HISTORY_DAYS: i64 = 180;

/// The first seeded order's id and number; later orders count on from the highest.
const FIRST_ORDER_ID: u64 = 2_000_001;
const FIRST_ORDER_NUMBER: u64 = 1_001;

/// The store's past (SPEC section 11, Sandbox): `count` orders over the [`HISTORY_DAYS`] days
/// before `until` (unix seconds: the sandbox's first start, so the last 30 days always hold
/// sales), spread evenly with jitter, from any of `customers`. Mostly paid; about one in twelve
/// refunded in full and one in sixteen in part (a few days later), one in sixteen failed, one in
/// a hundred fraudulent; one in eight with a discount; VAT where the buyer's country has it;
/// half of the eurozone buyers charged in euros at the day's rate; one in fifty in the account's
/// other store. The same arguments give the same orders.
pub fn history(count: u64, until: i64, products: &[Product], customers: &[Customer]) -> Vec<Order> {
    let one_offs = |store: u64| -> Vec<(&Product, &Variant)> {
        products
            .iter()
            .filter(|p| p.store_id == store && p.status == "published")
            .flat_map(|p| p.variants.iter().filter(move |v| sellable(p, v) && !v.is_subscription).map(move |v| (p, v)))
            .collect()
    };
    let (ours, theirs) = (one_offs(STORE_ID), one_offs(OTHER_STORE_ID));
    if ours.is_empty() || customers.is_empty() {
        return Vec::new();
    }
    let mut rng = Rng::new(23);
    let start = until - HISTORY_DAYS * 86_400;
    let step = (HISTORY_DAYS * 86_400) / count.max(1) as i64;
    let mut numbers = [FIRST_ORDER_NUMBER, FIRST_ORDER_NUMBER];
    (0..count)
        .map(|n| {
            let created = (start + n as i64 * step + rng.below(step.max(1) as u64) as i64).min(until - 60);
            let other_store = !theirs.is_empty() && rng.below(50) == 0;
            let (store, sold) = if other_store { (OTHER_STORE_ID, &theirs) } else { (STORE_ID, &ours) };
            let (product, variant) = sold[rng.below(sold.len() as u64) as usize];
            let customer = &customers[rng.below(customers.len() as u64) as usize];
            let eurozone = matches!(customer.country.as_str(), "DE" | "FR");
            let currency = if other_store || (eurozone && rng.below(2) == 0) { "EUR" } else { store_currency(store) };
            let currency_rate = if currency == "EUR" { 1.05 + (rng.below(600) as f64) / 10_000.0 } else { 1.0 };
            let discount_total =
                if rng.below(8) == 0 { variant.price * [10, 15, 20, 25][rng.below(4) as usize] / 100 } else { 0 };
            let (tax_name, tax_rate, basis_points) = tax_for(Some(&customer.country));
            let tax = ((variant.price - discount_total) * basis_points + 5_000) / 10_000;
            let total = variant.price - discount_total + tax;
            let status = match rng.below(100) {
                0 => "fraudulent",
                1..=6 => "failed",
                7..=14 => "refunded",
                15..=20 => "partial_refund",
                _ => "paid",
            };
            let (refunded_at, refunded_amount) = refund(&mut rng, status, total, created, until);
            let number = &mut numbers[(store == OTHER_STORE_ID) as usize];
            *number += 1;
            Order {
                id: FIRST_ORDER_ID + n,
                store_id: store,
                identifier: uuid_from(&mut rng),
                order_number: *number - 1,
                customer_id: customer.id,
                user_name: customer.name.clone(),
                user_email: customer.email.clone(),
                status,
                currency: currency.to_string(),
                currency_rate,
                subtotal: variant.price,
                discount_total,
                tax,
                total,
                tax_name,
                tax_rate,
                refunded_amount,
                refunded_at: refunded_at.map(stamp),
                product_id: product.id,
                variant_id: variant.id,
                product_name: product.name.clone(),
                variant_name: variant.name.clone(),
                created_at: stamp(created),
                updated_at: stamp(refunded_at.unwrap_or(created + 5)),
                custom: serde_json::Map::new(),
            }
        })
        .collect()
}

/// When and how much of a seeded order was refunded: one to five days after the sale, or for a
/// recent sale part of the way to `until`, so that refunds are spread over time as real ones are
/// (not all at one moment); in part, 20 to 60 % of the total.
fn refund(rng: &mut Rng, status: &str, total: i64, created: i64, until: i64) -> (Option<i64>, i64) {
    let refunded_at = matches!(status, "refunded" | "partial_refund").then(|| {
        let days_later = created + (1 + rng.below(5) as i64) * 86_400;
        if days_later < until {
            days_later
        } else {
            created + (until - created) / 2
        }
    });
    let refunded_amount = match status {
        "refunded" => total,
        "partial_refund" => (total * (20 + rng.below(41) as i64) / 100).max(1),
        _ => 0,
    };
    (refunded_at, refunded_amount)
}

/// A version 4 UUID from `rng`, so that seeded identifiers are the same on every run.
fn uuid_from(rng: &mut Rng) -> String {
    let (a, b) = (rng.next(), rng.next());
    format!(
        "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0xfff,
        0x8000 | ((b >> 48) & 0x3fff),
        b & 0xffff_ffff_ffff
    )
}

/// US dollars per unit of `currency` for an order made now (a fixed rate: the simulator has no
/// market).
pub fn usd_rate(currency: &str) -> f64 {
    if currency == "EUR" {
        1.08
    } else {
        1.0
    }
}

/// The currency of a store.
pub fn store_currency(store: u64) -> &'static str {
    if store == OTHER_STORE_ID {
        "EUR"
    } else {
        "USD"
    }
}

/// Tax the simulated store charges a buyer from `country` on top of the price (Lemon Squeezy is
/// the merchant of record and adds VAT where it applies): (name, rate as the API writes it,
/// basis points).
pub fn tax_for(country: Option<&str>) -> (Option<&'static str>, &'static str, i64) {
    match country {
        Some("GB" | "FR") => (Some("VAT"), "20.00", 2000),
        Some("DE") => (Some("VAT"), "19.00", 1900),
        _ => (None, "0.00", 0),
    }
}

/// A store resource, with every attribute and relationship of the documented store object.
pub fn store_json(base: &str, id: u64) -> Option<Value> {
    let (name, slug, country, nicename) = match id {
        STORE_ID => ("Staffroom Sandbox Store", "staffroom-sandbox", "GB", "United Kingdom"),
        OTHER_STORE_ID => ("Side Project Shop", "side-project", "DE", "Germany"),
        _ => return None,
    };
    let relationships: serde_json::Map<String, Value> =
        ["products", "orders", "subscriptions", "discounts", "license-keys", "webhooks"]
            .iter()
            .map(|r| {
                let links = json!({"links": {"related": format!("{base}/v1/stores/{id}/{r}"), "self": format!("{base}/v1/stores/{id}/relationships/{r}")}});
                (r.to_string(), links)
            })
            .collect();
    Some(json!({
        "type": "stores", "id": id.to_string(),
        "attributes": {
            "name": name, "slug": slug, "domain": format!("{slug}.staffroom.test"), "url": base,
            "avatar_url": format!("{base}/avatars/{slug}.png"), "plan": "fresh", "country": country,
            "country_nicename": nicename, "currency": store_currency(id), "total_sales": 0, "total_revenue": 0,
            "thirty_day_sales": 0, "thirty_day_revenue": 0, "created_at": stamp(BASE), "updated_at": stamp(BASE)
        },
        "relationships": relationships,
        "links": {"self": format!("{base}/v1/stores/{id}")}
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    const UNTIL: i64 = 1_795_000_000;

    fn shop() -> (Vec<Product>, Vec<Customer>, Vec<Order>) {
        let (products, customers) = (products(30), customers(460));
        let orders = history(1_600, UNTIL, &products, &customers);
        (products, customers, orders)
    }

    /// Licence keys for the products that sell them, with activations, some disabled or expired.
    #[test]
    fn licence_keys_come_with_the_orders_of_products_that_sell_them() {
        let (_, _, orders) = shop();
        let keys = license_keys(&orders, UNTIL);
        assert!(keys.len() > 100, "{}", keys.len());
        let statuses: std::collections::BTreeSet<&str> = keys.iter().map(|k| k.status(UNTIL)).collect();
        assert_eq!(statuses.into_iter().collect::<Vec<_>>(), ["active", "disabled", "expired", "inactive"]);
        for key in &keys {
            let order = orders.iter().find(|o| o.id == key.order_id).unwrap();
            assert!(licence_terms(order.product_id, &order.variant_name).is_some());
            assert!(key.instances.len() as i64 <= key.activation_limit.unwrap());
            assert_eq!(key.key_short().len(), 17);
            assert!(key.key.ends_with(&key.key_short()[5..]));
            if order.status == "refunded" {
                assert_eq!(key.status(UNTIL), "disabled");
            }
        }
    }

    /// An invoice per billing period of each subscription (SPEC section 11, Sandbox).
    #[test]
    fn each_subscription_has_an_invoice_per_period_and_renews_after_the_last() {
        let (products, customers, _) = shop();
        let mut subs = subscriptions(245, &products, &customers[..60]);
        let invoices = invoices(&mut subs, &products, &customers, UNTIL);
        assert!(invoices.len() > 700, "{}", invoices.len());
        let ids: std::collections::HashSet<u64> = invoices.iter().map(|i| i.id).collect();
        assert_eq!(ids.len(), invoices.len(), "ids are unique");
        for sub in &subs {
            let theirs: Vec<&Invoice> = invoices.iter().filter(|i| i.subscription_id == sub.id).collect();
            if sub.status == "on_trial" {
                assert!(theirs.is_empty());
                continue;
            }
            assert_eq!(theirs[0].billing_reason, "initial");
            assert_eq!(theirs[0].created_at, sub.created_at, "the first payment when it started");
            assert!(theirs[1..].iter().all(|i| i.billing_reason == "renewal"));
            let last = theirs.last().unwrap();
            match sub.status {
                "expired" => assert_eq!(theirs.len(), 1),
                "past_due" if theirs.len() > 1 => assert_eq!(last.status, "pending"),
                "unpaid" if theirs.len() > 1 => assert_eq!(last.status, "void"),
                _ => assert!(sub.renews_at > last.created_at && sub.renews_at > stamp(UNTIL - 1), "{sub:?}"),
            }
            for i in &theirs {
                assert!(i.refunded_amount <= i.total && i.created_at.as_str() < stamp(UNTIL).as_str());
                assert_eq!(i.status == "refunded", i.refunded_amount == i.total && i.total > 0);
            }
        }
        let renewals = invoices.iter().filter(|i| i.billing_reason == "renewal");
        let (refunded, partly) = renewals.fold((0, 0), |(r, p), i| match i.status {
            "refunded" => (r + 1, p),
            "partial_refund" => (r, p + 1),
            _ => (r, p),
        });
        assert!(refunded > 10 && partly > 10, "{refunded} refunded, {partly} partly");
    }

    #[test]
    fn the_history_is_what_spec_11_asks_for() {
        let (_, customers, orders) = shop();
        assert_eq!(orders.len(), 1_600);
        let buyers: std::collections::HashSet<u64> = orders.iter().map(|o| o.customer_id).collect();
        assert!(buyers.len() >= 400, "{} customers bought", buyers.len());
        assert!(customers.iter().all(|c| c.email.is_ascii()), "addresses are plain ASCII");
        let start = stamp(UNTIL - HISTORY_DAYS * 86_400);
        assert!(orders.iter().all(|o| o.created_at >= start && o.created_at < stamp(UNTIL)));
        let last_30_days = stamp(UNTIL - 30 * 86_400);
        assert!(orders.iter().filter(|o| o.created_at >= last_30_days).count() > 200, "recent sales");
        for status in ["paid", "refunded", "partial_refund", "failed", "fraudulent"] {
            assert!(orders.iter().any(|o| o.status == status), "no {status} order");
        }
        assert!(orders.iter().any(|o| o.discount_total > 0) && orders.iter().any(|o| o.tax > 0));
        assert!(orders.iter().any(|o| o.currency == "EUR" && o.store_id == STORE_ID && o.currency_rate > 1.0));
        assert!(orders.iter().any(|o| o.store_id == OTHER_STORE_ID));
    }

    #[test]
    fn each_order_adds_up() {
        let (_, _, orders) = shop();
        for o in &orders {
            assert_eq!(o.total, o.subtotal - o.discount_total + o.tax, "order {}", o.id);
            let refunded = matches!(o.status, "refunded" | "partial_refund");
            assert_eq!(o.refunded_at.is_some(), refunded, "order {}", o.id);
            assert!(o.refunded_amount <= o.total && (o.refunded_amount == o.total) == (o.status == "refunded"));
            assert!(o.refunded_at.as_deref().is_none_or(|at| at > o.created_at.as_str() && at < stamp(UNTIL).as_str()));
        }
        // Each store numbers its own orders, in the order they were placed.
        for store in [STORE_ID, OTHER_STORE_ID] {
            let numbers: Vec<u64> = orders.iter().filter(|o| o.store_id == store).map(|o| o.order_number).collect();
            assert!(numbers.windows(2).all(|w| w[1] == w[0] + 1), "store {store}");
        }
    }

    #[test]
    fn the_same_start_gives_the_same_history() {
        let (a, b) = (shop().2, shop().2);
        let key = |o: &Order| (o.id, o.identifier.clone(), o.total, o.status, o.created_at.clone());
        assert_eq!(a.iter().map(key).collect::<Vec<_>>(), b.iter().map(key).collect::<Vec<_>>());
    }
}
