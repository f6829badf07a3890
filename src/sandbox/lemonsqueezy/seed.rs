//! The simulator's seeded, deterministic data: one store, products with variants (draft and
//! published, one-off and subscription), customers, and subscriptions in every provider status.

use serde_json::{json, Value};

/// The simulated store's id.
pub const STORE_ID: u64 = 1;

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
    pub name: String,
    pub email: String,
    pub country: String,
}

/// A subscription, in the provider's terms.
#[derive(Debug, Clone)]
pub struct Subscription {
    pub id: u64,
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
}

/// An order (made when a checkout is paid).
#[derive(Debug, Clone)]
pub struct Order {
    pub id: u64,
    pub identifier: String,
    pub order_number: u64,
    pub customer_id: u64,
    pub user_name: String,
    pub user_email: String,
    pub status: &'static str,
    pub total: i64,
    pub product_id: u64,
    pub variant_id: u64,
    pub product_name: String,
    pub variant_name: String,
    pub created_at: String,
    pub updated_at: String,
}

/// Every provider subscription status.
pub const SUBSCRIPTION_STATUSES: [&str; 7] =
    ["on_trial", "active", "paused", "past_due", "unpaid", "cancelled", "expired"];

const ADJECTIVES: [&str; 12] =
    ["Quiet", "Bright", "Nimble", "Golden", "Steady", "Clever", "Swift", "Bold", "Calm", "Lucky", "Crisp", "Cosy"];
const NOUNS: [&str; 10] =
    ["Planner", "Notebook", "Toolkit", "Template", "Course", "Workshop", "Guide", "Bundle", "Journal", "Studio"];
const FIRST: [&str; 12] = ["Ada", "Ben", "Chloé", "Dmitri", "Eve", "Farah", "Gus", "Hana", "Ivo", "Jun", "Kai", "Lena"];
const LAST: [&str; 10] =
    ["Lovelace", "Okafor", "Müller", "Ivanova", "Tanaka", "Silva", "Nguyen", "Haddad", "Berg", "Costa"];
const COUNTRIES: [&str; 6] = ["GB", "US", "DE", "FR", "JP", "BR"];

/// Seconds since the epoch of 2026-01-01T00:00:00Z: all seeded dates are relative to it.
const BASE: i64 = 1_767_225_600;

/// RFC 3339 with the provider's microsecond style.
pub fn stamp(secs: i64) -> String {
    chrono::DateTime::from_timestamp(secs, 0).unwrap_or_default().format("%Y-%m-%dT%H:%M:%S.000000Z").to_string()
}

/// Products: the first ten are subscription plans (monthly and yearly variants), the rest
/// one-off; every sixth is a draft.
pub fn products(count: u64) -> Vec<Product> {
    let mut rng = Rng::new(7);
    (1..=count)
        .map(|id| {
            let name = format!("{} {}", ADJECTIVES[(id as usize * 5) % 12], NOUNS[(id as usize) % 10]);
            let name = if id > 12 { format!("{name} {id}") } else { name };
            let subscription = id <= 10;
            let base_price = 500 + 100 * rng.below(95) as i64;
            let variants = if subscription {
                vec![
                    Variant {
                        id: id * 10 + 1,
                        product_id: id,
                        name: "Monthly".into(),
                        price: base_price,
                        status: "published",
                        is_subscription: true,
                        interval: Some("month"),
                        sort: 0,
                    },
                    Variant {
                        id: id * 10 + 2,
                        product_id: id,
                        name: "Yearly".into(),
                        price: base_price * 10,
                        status: "published",
                        is_subscription: true,
                        interval: Some("year"),
                        sort: 1,
                    },
                ]
            } else {
                let mut v = vec![Variant {
                    id: id * 10 + 1,
                    product_id: id,
                    name: "Standard".into(),
                    price: base_price,
                    status: "published",
                    is_subscription: false,
                    interval: None,
                    sort: 0,
                }];
                if id % 3 == 0 {
                    v.push(Variant {
                        id: id * 10 + 2,
                        product_id: id,
                        name: "Team".into(),
                        price: base_price * 4,
                        status: "published",
                        is_subscription: false,
                        interval: None,
                        sort: 1,
                    });
                }
                if id % 4 == 0 {
                    v.push(Variant {
                        id: id * 10 + 3,
                        product_id: id,
                        name: "Early access".into(),
                        price: base_price / 2,
                        status: "draft",
                        is_subscription: false,
                        interval: None,
                        sort: 2,
                    });
                }
                v
            };
            let created = BASE + id as i64 * 86_400;
            Product {
                id,
                name,
                status: if id % 6 == 0 { "draft" } else { "published" },
                description: format!("<p>Seeded sandbox product number {id}.</p>"),
                created_at: stamp(created),
                updated_at: stamp(created + 3600),
                variants,
            }
        })
        .collect()
}

/// Customers with names from several languages.
pub fn customers(count: u64) -> Vec<Customer> {
    (1..=count)
        .map(|n| {
            let first = FIRST[(n as usize) % FIRST.len()];
            let last = LAST[(n as usize * 7) % LAST.len()];
            Customer {
                id: 1000 + n,
                name: format!("{first} {last}"),
                email: format!("{}.{}{}@example.com", ascii(first), ascii(last), n),
                country: COUNTRIES[(n as usize) % COUNTRIES.len()].to_string(),
            }
        })
        .collect()
}

fn ascii(s: &str) -> String {
    s.to_lowercase().replace(['é', 'è'], "e").replace('ü', "u")
}

/// Subscriptions: statuses cycle through all seven, spread over customers and plans; one in
/// fifty has no customer id, as real data sometimes has.
pub fn subscriptions(count: u64, products: &[Product], customers: &[Customer]) -> Vec<Subscription> {
    let plans: Vec<&Product> = products.iter().filter(|p| p.variants.iter().any(|v| v.is_subscription)).collect();
    let mut rng = Rng::new(11);
    (1..=count)
        .map(|id| {
            let status = SUBSCRIPTION_STATUSES[(id as usize - 1) % SUBSCRIPTION_STATUSES.len()];
            let customer = &customers[(rng.below(customers.len() as u64)) as usize];
            let plan = plans[(rng.below(plans.len() as u64)) as usize];
            let variant = &plan.variants[(id % 2) as usize];
            let created = BASE + (id as i64 * 3_607) % (300 * 86_400);
            // Renewal dates lie ahead (into 2027), so cancelled ones can still be resumed.
            let renews = created + 400 * 86_400;
            let ends_at = match status {
                "cancelled" => Some(stamp(renews)),
                "expired" => Some(stamp(created + 20 * 86_400)),
                _ => None,
            };
            Subscription {
                id,
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
            }
        })
        .collect()
}

/// The store resource.
pub fn store_json(base: &str) -> Value {
    json!({
        "type": "stores", "id": STORE_ID.to_string(),
        "attributes": {
            "name": "Staffroom Sandbox Store", "slug": "staffroom-sandbox", "domain": "sandbox.staffroom.test",
            "url": base, "country": "GB", "currency": "USD", "plan": "fresh",
            "created_at": stamp(BASE), "updated_at": stamp(BASE)
        },
        "links": {"self": format!("{base}/v1/stores/{STORE_ID}")}
    })
}
