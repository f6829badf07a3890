//! The store Staffroom is connected to, and the one way to the provider's writes.
//!
//! A Lemon Squeezy API key sees every store of its account, so an id given to Staffroom (by a
//! screen, a team server's client or a script) may name another store's subscription, licence
//! key or variant. Here that is checked once for everyone:
//! - a read by id goes through [`StoreScope::read`], which answers another store's resource, or
//!   one that names no store, as not found (nothing about it is said);
//! - a write to a resource (update, delete, refund) takes the [`Ours`] that read returned, so a
//!   write without the check does not compile;
//! - a creation is made in this store here, and a list is asked for this store's and keeps only
//!   those.
//!
//! The raw client stays private to this module; what else reads the provider (the children of a
//! resource already checked, lists the provider cannot filter by store) says so by its name.

use serde_json::{json, Map, Value};

use super::client::{self, LemonSqueezyClient, Pages};
use super::jsonapi::{Document, Resource};
use staffroom_base::error::{Error, ErrorCode, Result};
use staffroom_base::secrets::{Secret, Secrets};

/// What the provider keeps per store, by its API's path (which is also the resource's `type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Product,
    Order,
    Subscription,
    SubscriptionInvoice,
    Customer,
    LicenseKey,
    Discount,
    Checkout,
    Webhook,
}

impl Kind {
    /// The API's path, and each resource's `type`.
    pub fn path(self) -> &'static str {
        match self {
            Kind::Product => "products",
            Kind::Order => "orders",
            Kind::Subscription => "subscriptions",
            Kind::SubscriptionInvoice => "subscription-invoices",
            Kind::Customer => "customers",
            Kind::LicenseKey => "license-keys",
            Kind::Discount => "discounts",
            Kind::Checkout => "checkouts",
            Kind::Webhook => "webhooks",
        }
    }

    /// What staff call one.
    fn noun(self) -> &'static str {
        match self {
            Kind::Product => "product",
            Kind::Order => "order",
            Kind::Subscription => "subscription",
            Kind::SubscriptionInvoice => "invoice",
            Kind::Customer => "customer",
            Kind::LicenseKey => "licence key",
            Kind::Discount => "discount",
            Kind::Checkout => "checkout",
            Kind::Webhook => "webhook",
        }
    }

    /// The refusal of an id that is not this store's (or not the provider's at all): the same
    /// words either way, so that nothing tells whether another store has it.
    pub fn not_found(self, id: &str) -> Error {
        Error::not_found(format!("No {} {id} in this store", self.noun()))
    }
}

/// A resource read by id and found to be the connected store's: what a write to it takes.
#[derive(Debug, Clone)]
pub struct Ours {
    kind: Kind,
    resource: Resource,
}

impl Ours {
    pub fn into_resource(self) -> Resource {
        self.resource
    }

    fn path(&self) -> String {
        format!("{}/{}", self.kind.path(), self.resource.id)
    }
}

impl std::ops::Deref for Ours {
    type Target = Resource;

    fn deref(&self) -> &Resource {
        &self.resource
    }
}

/// The provider, as seen from the connected store.
#[derive(Clone)]
pub struct StoreScope {
    client: LemonSqueezyClient,
    secrets: Secrets,
}

impl StoreScope {
    pub fn new(client: LemonSqueezyClient, secrets: Secrets) -> StoreScope {
        StoreScope { client, secrets }
    }

    /// The same scope reading in bulk (see [`LemonSqueezyClient::for_bulk_reads`]).
    pub fn for_bulk_reads(&self) -> StoreScope {
        StoreScope { client: self.client.for_bulk_reads(), ..self.clone() }
    }

    /// The connected store's id.
    pub async fn store_id(&self) -> Result<String> {
        let id = self.secrets.read("lemonsqueezy_store_id").await?;
        id.map(|s| s.expose().trim().to_string()).filter(|s| !s.is_empty()).ok_or_else(|| {
            Error::new(
                ErrorCode::Unauthorized,
                "No Lemon Squeezy store is connected; an admin connects one in Settings",
            )
            .with_details(json!({ "provider": client::PROVIDER }))
        })
    }

    /// The connected store itself (`GET /v1/stores/:id`).
    pub async fn store(&self) -> Result<Resource> {
        self.client.get_one(&format!("stores/{}", self.store_id().await?)).await
    }

    /// The account behind `key` (the stored key when `None`), above every store: who it is
    /// (`GET /v1/users/me`), whether the key is a test-mode key (its `meta.test_mode`), and
    /// every store the key sees (`GET /v1/stores`). What connecting a store checks.
    pub async fn account(&self, key: Option<Secret>) -> Result<(Resource, bool, Vec<Resource>)> {
        let client = match key {
            Some(key) => self.client.with_key(key),
            None => self.client.clone(),
        };
        let me = client.get("users/me", &[]).await?;
        let test_mode = me.meta.as_ref().and_then(|m| m.get("test_mode")).and_then(Value::as_bool).unwrap_or(false);
        let (stores, _) = client.get_all("stores", &[]).await?;
        Ok((me.resource()?, test_mode, stores))
    }

    /// `kind` `id` as the provider has it now, if it is this store's; else `not_found`.
    pub async fn read(&self, kind: Kind, id: &str) -> Result<Ours> {
        let store_id = self.store_id().await?;
        let resource = match self.client.get_one(&format!("{}/{id}", kind.path())).await {
            Err(err) if err.code == ErrorCode::NotFound => return Err(kind.not_found(id)),
            other => other?,
        };
        if !in_store(&resource, &store_id) {
            return Err(kind.not_found(id));
        }
        Ok(Ours { kind, resource })
    }

    /// A variant of one of this store's products, with that product. A variant names no store
    /// of its own: it is this store's when its product is.
    pub async fn read_variant(&self, id: &str) -> Result<(Resource, Ours)> {
        let not_ours = || Error::not_found(format!("No variant {id} in this store"));
        let variant = match self.client.get_one(&format!("variants/{id}")).await {
            Err(err) if err.code == ErrorCode::NotFound => return Err(not_ours()),
            other => other?,
        };
        let product_id = variant.str("product_id").ok_or_else(not_ours)?;
        match self.read(Kind::Product, &product_id).await {
            Ok(product) => Ok((variant, product)),
            Err(err) if err.code == ErrorCode::NotFound => Err(not_ours()),
            Err(err) => Err(err),
        }
    }

    /// `PATCH`es `attributes` onto one of ours; the provider's answer.
    pub async fn update(&self, ours: &Ours, attributes: Value) -> Result<Resource> {
        let body = json!({"data": {"type": ours.kind.path(), "id": ours.resource.id, "attributes": attributes}});
        self.client.patch(&ours.path(), &body).await
    }

    /// `DELETE`s one of ours that answers with its new state (a subscription, cancelled).
    pub async fn delete(&self, ours: &Ours) -> Result<Resource> {
        self.client.delete(&ours.path()).await
    }

    /// `DELETE`s one of ours that answers `204 No Content` (a discount).
    pub async fn delete_nothing(&self, ours: &Ours) -> Result<()> {
        self.client.delete_nothing(&ours.path()).await
    }

    /// `POST`s `action` (`refund`) of one of ours, once: when the answer is lost the caller
    /// reads the resource again to see whether it happened.
    pub async fn act_once(&self, ours: &Ours, action: &str, attributes: Map<String, Value>) -> Result<Resource> {
        let body = json!({"data": {"type": ours.kind.path(), "id": ours.resource.id, "attributes": attributes}});
        self.client.post_once(&format!("{}/{action}", ours.path()), &body).await
    }

    /// Creates a `kind` in this store, once, with `attributes` and any `relationships` besides
    /// the store's (variants it is limited to, the variant a checkout sells).
    pub async fn create_once(
        &self,
        kind: Kind,
        attributes: Value,
        mut relationships: Map<String, Value>,
    ) -> Result<Resource> {
        let store_id = self.store_id().await?;
        relationships.insert("store".into(), json!({"data": {"type": "stores", "id": store_id}}));
        let body = json!({"data": {"type": kind.path(), "attributes": attributes, "relationships": relationships}});
        self.client.post_once(kind.path(), &body).await
    }

    /// Every `kind` of this store that `query` asks for, telling `on_page` as pages arrive
    /// (read, of how many); and how many requests it took.
    pub async fn list(
        &self,
        kind: Kind,
        query: &[(&str, String)],
        on_page: impl Fn(u32, Option<u32>),
    ) -> Result<(Vec<Resource>, u32)> {
        let store_id = self.store_id().await?;
        let query = with_store(query, &store_id);
        let (all, requests) = self.client.get_all_observed(kind.path(), &query, on_page).await?;
        Ok((all.into_iter().filter(|r| in_store(r, &store_id)).collect(), requests))
    }

    /// The first page of `kind` of this store that `query` asks for, as the provider sends it
    /// (with its `meta`), keeping only this store's.
    pub async fn first_page(&self, kind: Kind, query: &[(&str, String)]) -> Result<(Vec<Resource>, Document)> {
        let store_id = self.store_id().await?;
        let document = self.client.get(kind.path(), &with_store(query, &store_id)).await?;
        let resources = document.resources()?.into_iter().filter(|r| in_store(r, &store_id)).collect();
        Ok((resources, document))
    }

    /// `kind` of this store, a page of 100 at a time, for a reader that may stop early.
    pub async fn pages(&self, kind: Kind, query: &[(&str, String)]) -> Result<StorePages<'_>> {
        let store_id = self.store_id().await?;
        let pages = self.client.pages(kind.path(), &with_store(query, &store_id));
        Ok(StorePages { pages, store_id })
    }

    /// A list the provider cannot filter by store, whose every item belongs to what `query`
    /// names, already checked to be this store's (a product's variants, a licence key's
    /// instances), or whose items the caller keeps only when they belong to this store's
    /// (discount redemptions).
    pub async fn children(&self, path: &str, query: &[(&str, String)]) -> Result<(Vec<Resource>, u32)> {
        self.client.get_all(path, query).await
    }

    /// [`StoreScope::children`], telling `on_page` as pages arrive.
    pub async fn children_observed(
        &self,
        path: &str,
        query: &[(&str, String)],
        on_page: impl Fn(u32, Option<u32>),
    ) -> Result<(Vec<Resource>, u32)> {
        self.client.get_all_observed(path, query, on_page).await
    }

    /// [`StoreScope::children`], one page of 100 at a time.
    pub fn children_pages<'a>(&'a self, path: &'a str, query: &[(&str, String)]) -> Pages<'a> {
        self.client.pages(path, query)
    }

    /// The first page of [`StoreScope::children`], with its `meta` (a count).
    pub async fn children_page(&self, path: &str, query: &[(&str, String)]) -> Result<Document> {
        self.client.get(path, query).await
    }
}

/// Pages of a list of this store's, each keeping only this store's.
pub struct StorePages<'a> {
    pages: Pages<'a>,
    store_id: String,
}

impl StorePages<'_> {
    /// The next page, or `None` at the end.
    pub async fn next(&mut self) -> Result<Option<Vec<Resource>>> {
        let store_id = &self.store_id;
        Ok(self.pages.next().await?.map(|page| page.into_iter().filter(|r| in_store(r, store_id)).collect()))
    }

    /// Pages read so far (each one request).
    pub fn read(&self) -> u32 {
        self.pages.read
    }

    /// How many pages there are, at least those read (once the first has said).
    pub fn total(&self) -> Option<u32> {
        self.pages.total.map(|t| t.max(self.pages.read))
    }
}

/// Whether `resource` is `store_id`'s. One that names no store is not: every kind read through
/// here carries its `store_id` at the provider.
fn in_store(resource: &Resource, store_id: &str) -> bool {
    resource.str("store_id").is_some_and(|store| store == store_id)
}

fn with_store<'q>(query: &[(&'q str, String)], store_id: &str) -> Vec<(&'q str, String)> {
    let mut query = query.to_vec();
    query.push(("filter[store_id]", store_id.to_string()));
    query
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resource(store: Option<Value>) -> Resource {
        let mut attributes = json!({"name": "x"});
        if let Some(store) = store {
            attributes["store_id"] = store;
        }
        Resource::from_value(&json!({"type": "subscriptions", "id": "7", "attributes": attributes})).unwrap()
    }

    #[test]
    fn only_a_resource_naming_this_store_is_ours() {
        assert!(in_store(&resource(Some(json!(1))), "1"));
        assert!(in_store(&resource(Some(json!("1"))), "1"));
        assert!(!in_store(&resource(Some(json!(2))), "1"), "another store's");
        assert!(!in_store(&resource(Some(json!(11))), "1"), "a store whose id starts alike");
        assert!(!in_store(&resource(None), "1"), "one that names no store");
        assert!(!in_store(&resource(Some(Value::Null)), "1"), "a null store");
    }

    #[test]
    fn another_store_s_id_reads_as_not_found_in_the_same_words() {
        let refused = Kind::Subscription.not_found("42");
        assert_eq!(refused.code, ErrorCode::NotFound);
        assert_eq!(refused.message, "No subscription 42 in this store");
    }
}
