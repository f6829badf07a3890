//! The store's discount codes (SPEC section 11): read by the sync with their redemptions, listed
//! from the cache, made and deleted by admins. Lemon Squeezy sends no webhook for discounts, so
//! what is made or deleted here is written to the cache at once, and the sync catches up with
//! changes made in its dashboard.

use serde::Serialize;
use serde_json::{json, Map, Value};

use super::model::{self, DiscountDto, DiscountRedemptionDto, PageMeta};
use super::requests::{CreateDiscountRequest, ListDiscountsRequest};
use super::scope::Kind;
use super::store::{like_pattern, DiscountQuery};
use super::sync::{SyncReporter, SyncStep};
use super::{validate_id, PaymentService};
use staffroom_auth::audit::AuditAction;
use staffroom_auth::Actor;
use staffroom_base::error::{Error, ErrorCode, Result};
use staffroom_base::time::now_rfc3339;

/// `GET /discounts`.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct DiscountList {
    pub discounts: Vec<DiscountDto>,
    /// The store's currency, which fixed amounts are in.
    pub currency: String,
    pub meta: PageMeta,
}

/// `{discount}`.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct DiscountEnvelope {
    pub discount: DiscountDto,
}

impl PaymentService {
    /// The store's discounts, every page each sync (a store has tens, not thousands; reading
    /// them all is also how one deleted in the dashboard leaves the cache), then their
    /// redemptions, newest first: all the first time, after that until a page with none made
    /// since the last sync.
    pub(super) async fn read_discounts(&self, report: &SyncReporter) -> Result<(usize, u32)> {
        let outcome = async {
            let started = now_rfc3339();
            let query = [("include", "variants".to_string())];
            let on_page = |read, total| report.step(SyncStep::Discounts, read, total);
            let (resources, mut requests) = self.provider.list(Kind::Discount, &query, on_page).await?;
            let discounts: Vec<DiscountDto> = resources.iter().map(model::discount_from).collect();
            let ours: std::collections::HashSet<String> = discounts.iter().map(|d| d.id.clone()).collect();
            let read = discounts.len();
            self.db.replace_discounts(discounts, started.clone(), now_rfc3339()).await?;

            // Redemptions have no store filter: those of another store's discounts are skipped.
            let since = self.db.sync_state("discount_redemptions").await?.synced_at;
            let since = since.as_deref().and_then(super::customers::a_minute_before);
            let mut pages = self.provider.children_pages("discount-redemptions", &[]);
            while let Some(page) = pages.next().await? {
                report.step(SyncStep::Discounts, pages.read, None);
                let redemptions: Vec<DiscountRedemptionDto> = page.iter().map(model::redemption_from).collect();
                let had_new = redemptions.iter().any(|r| {
                    let made = chrono::DateTime::parse_from_rfc3339(&r.created_at).ok();
                    since.zip(made).is_none_or(|(since, made)| made >= since)
                });
                let kept = redemptions.into_iter().filter(|r| ours.contains(&r.discount_id)).collect();
                self.db.insert_redemptions(kept).await?;
                if !had_new {
                    break;
                }
            }
            requests += pages.read;
            self.db.record_sync("discounts", started.clone(), None).await?;
            self.db.record_sync("discount_redemptions", started, None).await?;
            Ok::<_, Error>((read, requests))
        }
        .await;
        if let Err(err) = &outcome {
            self.db.record_sync("discounts", now_rfc3339(), Some(err.message.clone())).await?;
        }
        outcome
    }

    /// `GET /discounts`: from the cache, newest first, searched by code or name.
    pub async fn list_discounts(&self, request: &ListDiscountsRequest) -> Result<DiscountList> {
        let (page, limit) = (request.page.unwrap_or(1), request.limit.unwrap_or(10));
        let query = DiscountQuery { page, limit, search: request.search.as_deref().map(like_pattern) };
        let (discounts, total) = self.db.list_discounts(query).await?;
        let meta = self.meta_for("discounts", PageMeta::new(page, limit, total), false).await?;
        let currency = self.db.meta("lemonsqueezy_currency").await?.unwrap_or_else(|| "USD".into());
        Ok(DiscountList { discounts, currency, meta })
    }

    /// `POST /discounts` (admins). The code must name one discount: Lemon Squeezy has been seen
    /// to accept a second discount with a code already in use, so the store's discounts are
    /// read first and a code in use is refused on the `code` field. A fixed amount above a price
    /// it can apply to (of the variants it is limited to, or of every variant of the store) is
    /// refused on `amount`. Made once: when the answer is lost, the discount is looked for by
    /// its code before anything is sent again. Audited, refusals too.
    pub async fn create_discount(&self, actor: &Actor, request: &CreateDiscountRequest) -> Result<DiscountDto> {
        actor.require_admin()?;
        let new = NewDiscount::checked(request);
        let result = match &new {
            Ok(new) => self.send_new_discount(new, request.variant_ids.as_deref().unwrap_or_default()).await,
            Err(refused) => Err(refused.clone()),
        };
        let target = match &result {
            Ok(made) => made.id.clone(),
            Err(_) => request.code.clone(),
        };
        if let Ok(made) = &result {
            self.db.upsert_discount(made.clone(), now_rfc3339()).await?;
        }
        let outcome = result.as_ref().map_or_else(staffroom_auth::audit::failure, |_| "success".to_string());
        let currency = self.db.meta("lemonsqueezy_currency").await?.unwrap_or_else(|| "USD".into());
        let detail = json!({
            "code": request.code,
            "amount": request.amount,
            "amountType": request.amount_type.as_str(),
            "currency": currency,
        });
        self.audit.record(actor.audit_name(), AuditAction::DiscountCreate, Some(&target), &outcome, Some(detail)).await;
        result
    }

    async fn send_new_discount(&self, new: &NewDiscount, variant_ids: &[String]) -> Result<DiscountDto> {
        if let Some(taken) = self.discount_with_code(&new.code).await? {
            return Err(Error::invalid_field(
                "code",
                format!("{} is already the code of “{}”; choose another", new.code, taken.name),
            ));
        }
        self.check_prices(new, variant_ids).await?;
        let (attributes, relationships) = new.body(variant_ids);
        let mut made = match self.provider.create_once(Kind::Discount, attributes, relationships).await {
            Ok(made) => model::discount_from(&made),
            // The answer was lost (a time-out or a failure after it was made): look before
            // telling the admin it failed, so that trying again cannot make two.
            Err(err) if err.code == ErrorCode::IntegrationError => {
                self.discount_with_code(&new.code).await?.ok_or(err)?
            }
            Err(err) => return Err(field_of_refusal(err)),
        };
        // The answer names no variants unless asked to include them; they are the ones sent.
        made.variant_ids = variant_ids.to_vec();
        Ok(made)
    }

    /// `DELETE /discounts/{id}` (admins), of one of this store's. One already gone at the
    /// provider leaves the cache too and is answered 404. Audited, refusals too.
    pub async fn delete_discount(&self, actor: &Actor, id: &str) -> Result<()> {
        actor.require_admin()?;
        validate_id("id", id)?;
        let cached = self.db.discount(id.to_string()).await?;
        let outcome = async {
            let ours = match self.provider.read(Kind::Discount, id).await {
                Err(err) if err.code == ErrorCode::NotFound => {
                    self.db.delete_discount(id.to_string()).await?;
                    return Err(Error::not_found(format!(
                        "No discount {id} in this store: it may have been deleted already"
                    )));
                }
                other => other?,
            };
            self.provider.delete_nothing(&ours).await?;
            self.db.delete_discount(id.to_string()).await
        }
        .await;
        let outcome_text = outcome.as_ref().map_or_else(staffroom_auth::audit::failure, |_| "success".to_string());
        let detail = cached.map(|d| json!({"code": d.code, "name": d.name}));
        self.audit.record(actor.audit_name(), AuditAction::DiscountDelete, Some(id), &outcome_text, detail).await;
        outcome
    }

    /// A code staff give with a new order names a discount the checkout will take: one of the
    /// store's (as the provider has them now), published, started, not expired, not used up, and
    /// for this variant. Each refusal says which.
    pub(super) async fn check_discount_code(&self, code: &str, variant_id: &str) -> Result<()> {
        let refuse = |why: String| Err(Error::invalid_field("discountCode", why));
        let Some(discount) = self.discount_with_code(code).await? else {
            return refuse(format!("no discount has the code {code}"));
        };
        let now = chrono::Utc::now();
        let at = |t: &Option<String>| t.as_deref().and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok());
        if discount.status != "published" {
            return refuse(format!("{code} is a draft"));
        }
        if at(&discount.starts_at).is_some_and(|starts| starts > now) {
            return refuse(format!("{code} cannot be used before {}", discount.starts_at.unwrap_or_default()));
        }
        if at(&discount.expires_at).is_some_and(|expires| expires <= now) {
            return refuse(format!("{code} expired on {}", discount.expires_at.unwrap_or_default()));
        }
        if !discount.variant_ids.is_empty() && !discount.variant_ids.iter().any(|v| v == variant_id) {
            return refuse(format!("{code} does not apply to this product"));
        }
        if let Some(max) = discount.max_redemptions {
            // The discount is this store's (read above): its redemptions are too.
            let query = [("filter[discount_id]", discount.id.clone()), ("page[size]", "1".to_string())];
            let used = self.provider.children_page("discount-redemptions", &query).await?;
            let used = used.meta.as_ref().and_then(|m| m.pointer("/page/total")).and_then(Value::as_i64).unwrap_or(0);
            if used >= max {
                return refuse(format!("{code} has been used all {max} times it may be"));
            }
        }
        Ok(())
    }

    /// The store's discount with `code`, as the provider has them now (with its variants).
    async fn discount_with_code(&self, code: &str) -> Result<Option<DiscountDto>> {
        let query = [("include", "variants".to_string())];
        let (all, _) = self.provider.list(Kind::Discount, &query, |_, _| {}).await?;
        Ok(all.iter().find(|r| r.str("code").is_some_and(|c| c.eq_ignore_ascii_case(code))).map(model::discount_from))
    }

    /// Every variant a discount is limited to is one of the store's, and a fixed amount is no
    /// more than any price it can apply to: those variants' prices, or, when it names none, the
    /// price of every variant the store sells.
    async fn check_prices(&self, new: &NewDiscount, variant_ids: &[String]) -> Result<()> {
        let mut prices = Vec::new();
        for id in variant_ids {
            validate_id("variantIds", id)?;
            let (variant, product) = match self.provider.read_variant(id).await {
                Err(err) if err.code == ErrorCode::NotFound => {
                    return Err(Error::invalid_field("variantIds", format!("variant {id} is not one of this store's")))
                }
                other => other?,
            };
            prices.push(Price {
                product: product.str("name").unwrap_or_default(),
                variant: variant.str("name").unwrap_or_default(),
                cents: variant.int("price").unwrap_or(0),
            });
        }
        if new.amount_type != "fixed" {
            return Ok(());
        }
        if variant_ids.is_empty() {
            prices = self.store_prices().await?;
        }
        let Some(cheapest) = prices.into_iter().filter(|p| p.cents > 0).min_by_key(|p| p.cents) else {
            return Ok(());
        };
        if new.amount <= cheapest.cents {
            return Ok(());
        }
        let currency = self.currency().await?;
        let reach = if variant_ids.is_empty() { "the store's cheapest product, " } else { "" };
        Err(Error::invalid_field(
            "amount",
            format!(
                "{} off is more than the price of {reach}{} — {} ({})",
                model::format_money(new.amount, &currency),
                cheapest.product,
                cheapest.variant,
                model::format_money(cheapest.cents, &currency)
            ),
        ))
    }

    /// The price of every variant the store sells (published products' published variants, or
    /// a product's only one), as the provider has them now.
    async fn store_prices(&self) -> Result<Vec<Price>> {
        let (products, _) = self.provider.list(Kind::Product, &[], |_, _| {}).await?;
        let published: std::collections::HashMap<String, String> = products
            .iter()
            .filter(|p| p.str("status").as_deref() == Some("published"))
            .map(|p| (p.id.clone(), p.str("name").unwrap_or_default()))
            .collect();
        let (variants, _) = self.provider.children("variants", &[]).await?;
        // What is shown is what sells, but for drafts: a product's pending "default" variant is
        // kept only where it is the product's one variant.
        let shown = model::shown_variants(variants.iter().map(model::variant_from).collect());
        Ok(shown
            .into_iter()
            .filter(|(_, variant, _)| variant.status != "draft")
            .filter_map(|(product_id, variant, _)| {
                let product = published.get(&product_id)?.clone();
                Some(Price { product, variant: variant.name, cents: variant.price })
            })
            .collect())
    }
}

/// A price a discount can apply to.
struct Price {
    product: String,
    variant: String,
    cents: i64,
}

/// A discount's attributes, checked together (what one field allows depends on another).
struct NewDiscount {
    name: String,
    code: String,
    amount: i64,
    amount_type: String,
    duration: String,
    duration_in_months: i64,
    starts_at: Option<String>,
    expires_at: Option<String>,
    max_redemptions: Option<u32>,
}

impl NewDiscount {
    fn checked(request: &CreateDiscountRequest) -> Result<Self> {
        let mut problems = Vec::new();
        if request.name.trim().is_empty() {
            problems.push(staffroom_base::error::FieldError::new("name", "must not be blank"));
        }
        let amount_type = request.amount_type.as_str().to_string();
        let amount = i64::from(request.amount);
        if amount_type == "percent" && !(1..=100).contains(&amount) {
            problems.push(staffroom_base::error::FieldError::new("amount", "a percentage must be from 1 to 100"));
        }
        let duration = request.duration.map(|d| d.as_str()).unwrap_or("once").to_string();
        let duration_in_months = match (duration.as_str(), request.duration_in_months) {
            ("repeating", Some(months)) => i64::from(months),
            ("repeating", None) => {
                problems.push(staffroom_base::error::FieldError::new(
                    "durationInMonths",
                    "is required for a repeating discount",
                ));
                1
            }
            (_, Some(_)) => {
                problems.push(staffroom_base::error::FieldError::new(
                    "durationInMonths",
                    "only a repeating discount lasts a number of months",
                ));
                1
            }
            (_, None) => 1,
        };
        let instant = |field: &str, value: &Option<String>, problems: &mut Vec<_>| {
            let value = value.as_deref()?;
            let at = super::validate::instant(value);
            if at.is_none() {
                problems.push(staffroom_base::error::FieldError::new(field, "is not a time"));
            }
            at
        };
        let starts_at = instant("startsAt", &request.starts_at, &mut problems);
        let expires_at = instant("expiresAt", &request.expires_at, &mut problems);
        let parse = |at: &Option<String>| at.as_deref().and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok());
        if let (Some(starts), Some(expires)) = (parse(&starts_at), parse(&expires_at)) {
            if expires <= starts {
                problems.push(staffroom_base::error::FieldError::new("expiresAt", "must be after the start"));
            }
        }
        if let Some(expires) = parse(&expires_at) {
            if expires <= chrono::Utc::now() {
                problems.push(staffroom_base::error::FieldError::new("expiresAt", "is already past"));
            }
        }
        if !problems.is_empty() {
            return Err(Error::invalid(problems));
        }
        Ok(NewDiscount {
            name: request.name.trim().to_string(),
            code: request.code.clone(),
            amount,
            amount_type,
            duration,
            duration_in_months,
            starts_at,
            expires_at,
            max_redemptions: request.max_redemptions,
        })
    }

    /// The provider's attributes and relationships (besides the store's): `is_limited_*` say
    /// whether the limits apply (variants sent without `is_limited_to_products` do not limit
    /// the discount).
    fn body(&self, variant_ids: &[String]) -> (Value, Map<String, Value>) {
        let attributes = json!({
            "name": self.name,
            "code": self.code,
            "amount": self.amount,
            "amount_type": self.amount_type,
            "duration": self.duration,
            "duration_in_months": self.duration_in_months,
            "starts_at": self.starts_at,
            "expires_at": self.expires_at,
            "is_limited_redemptions": self.max_redemptions.is_some(),
            "max_redemptions": self.max_redemptions.unwrap_or(0),
            "is_limited_to_products": !variant_ids.is_empty(),
        });
        let mut relationships = Map::new();
        if !variant_ids.is_empty() {
            let variants: Vec<Value> = variant_ids.iter().map(|id| json!({"type": "variants", "id": id})).collect();
            relationships.insert("variants".into(), json!({ "data": variants }));
        }
        (attributes, relationships)
    }
}

/// A refusal that names an attribute (`source.pointer`) is shown on that field of the form.
fn field_of_refusal(err: Error) -> Error {
    let pointer = err.details.as_ref().and_then(|d| d.get("pointer")).and_then(Value::as_str).map(str::to_string);
    let field = match pointer.as_deref().and_then(|p| p.strip_prefix("/data/attributes/")) {
        Some("code") => "code",
        Some("amount") | Some("amount_type") => "amount",
        Some("name") => "name",
        Some("max_redemptions") => "maxRedemptions",
        Some("starts_at") => "startsAt",
        Some("expires_at") => "expiresAt",
        Some("duration_in_months") => "durationInMonths",
        _ if pointer.as_deref() == Some("/data/relationships/variants") => "variantIds",
        _ => return err,
    };
    Error::invalid_field(field, err.message)
}
