//! The store's licence keys (SPEC section 11): read by the sync and the `license_key_*` events,
//! listed and searched from the cache (short forms only), shown whole with the machines they are
//! activated on when staff ask (read afresh, audited, never kept), and disabled, enabled, or
//! given another limit or expiry by admins.

use serde::Serialize;
use serde_json::{json, Map, Value};

use super::model::{self, LicenseKeyDetail, LicenseKeyDto, PageMeta};
use super::requests::{ListLicenseKeysRequest, UpdateLicenseKeyRequest};
use super::scope::Kind;
use super::store::{like_pattern, LicenseKeyQuery};
use super::sync::{SyncReporter, SyncStep};
use super::{validate_id, PaymentService};
use staffroom_auth::audit::AuditAction;
use staffroom_auth::Actor;
use staffroom_base::error::{Error, Result};
use staffroom_base::time::now_rfc3339;

/// The `meta` key of when every page of licence keys was last read.
const READ_IN_FULL: &str = "license_keys_read_in_full_at";

/// `GET /license-keys`.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct LicenseKeyList {
    pub license_keys: Vec<LicenseKeyDto>,
    pub meta: PageMeta,
}

/// `{licenseKey}`, with the full key and the machines.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct LicenseKeyDetailEnvelope {
    pub license_key: LicenseKeyDetail,
}

/// `{licenseKey}`, as lists show it.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct LicenseKeyEnvelope {
    pub license_key: LicenseKeyDto,
}

/// What staff search keys by: an e-mail, or the key's short form; a whole key pasted in is
/// found by its last 12 characters, which its short form keeps.
fn search_patterns(text: &str) -> (String, String) {
    let key_part = if text.chars().count() > 12 && text.contains('-') {
        let tail: String = text.chars().rev().take(12).collect::<Vec<_>>().into_iter().rev().collect();
        like_pattern(&tail)
    } else {
        like_pattern(text)
    };
    (like_pattern(text), key_part)
}

impl PaymentService {
    /// The store's licence keys. The provider lists them by id (its docs say newest first, its
    /// links `sort=id`), so every page is read on the first sync and once a day; in between,
    /// from the newest end (the first page when its ids fall, else the last page backwards)
    /// until a page with nothing new, and the `license_key_*` events tell of changes to older
    /// ones.
    pub(super) async fn read_license_keys(&self, report: &SyncReporter) -> Result<(usize, u32)> {
        let outcome = async {
            let started = now_rfc3339();
            let every_page = super::customers::older_than_a_day(self.db.meta(READ_IN_FULL).await?.as_deref());
            let (mut read, mut requests) = (0, 0);
            if every_page {
                let mut pages = self.provider.pages(Kind::LicenseKey, &[]).await?;
                while let Some(page) = pages.next().await? {
                    report.step(SyncStep::LicenseKeys, pages.read(), pages.total());
                    let keys: Vec<LicenseKeyDto> = page.iter().map(model::license_key_from).collect();
                    read += keys.len();
                    self.db.upsert_license_keys(keys, now_rfc3339()).await?;
                }
                requests = pages.read();
                self.db.set_meta(READ_IN_FULL, started.clone()).await?;
            } else {
                // A key made or changed since the last sync (less a minute for the provider's
                // clock) is new; reading stops after a page (past the first) with nothing new.
                let since = self.db.sync_state("license_keys").await?.synced_at;
                let since = since.as_deref().and_then(super::customers::a_minute_before);
                let new = |k: &LicenseKeyDto| {
                    let updated = chrono::DateTime::parse_from_rfc3339(&k.updated_at).ok();
                    since.zip(updated).is_none_or(|(since, updated)| updated >= since)
                };
                let page = |n: u32| {
                    let query = [("page[size]", "100".to_string()), ("page[number]", n.to_string())];
                    async move { self.provider.first_page(Kind::LicenseKey, &query).await }
                };
                let (resources, first) = page(1).await?;
                let last = first.last_page().unwrap_or(1);
                let ids: Vec<u64> = resources.iter().filter_map(|r| r.id.parse().ok()).collect();
                let newest_first = ids.windows(2).next().is_none_or(|w| w[0] > w[1]);
                let mut number = 1;
                let mut resources = Some(resources);
                while let Some(page_read) = resources.take() {
                    requests += 1;
                    report.step(SyncStep::LicenseKeys, requests, None);
                    let keys: Vec<LicenseKeyDto> = page_read.iter().map(model::license_key_from).collect();
                    let had_new = keys.iter().any(new);
                    read += keys.len();
                    self.db.upsert_license_keys(keys, now_rfc3339()).await?;
                    if let Some(next) = next_page(newest_first, number, last, had_new) {
                        number = next;
                        resources = Some(page(next).await?.0);
                    }
                }
            }
            self.db.record_sync("license_keys", started, None).await?;
            Ok::<_, Error>((read, requests))
        }
        .await;
        if let Err(err) = &outcome {
            self.db.record_sync("license_keys", now_rfc3339(), Some(err.message.clone())).await?;
        }
        outcome
    }

    /// `GET /license-keys`: from the cache, newest first.
    pub async fn list_license_keys(&self, request: &ListLicenseKeysRequest) -> Result<LicenseKeyList> {
        let (page, limit) = (request.page.unwrap_or(1), request.limit.unwrap_or(10));
        let query = LicenseKeyQuery {
            page,
            limit,
            order_id: request.order_id.clone(),
            customer_id: request.customer_id.clone(),
            status: request.status.map(|s| s.as_str().to_string()),
            now: expiry_clock(),
            search: request.search.as_deref().map(search_patterns),
        };
        let now = query.now.clone();
        let (license_keys, total) = self.db.list_license_keys(query).await?;
        let license_keys = license_keys.into_iter().map(|k| as_of(k, &now)).collect();
        let meta = self.meta_for("license_keys", PageMeta::new(page, limit, total), false).await?;
        Ok(LicenseKeyList { license_keys, meta })
    }

    /// `GET /license-keys/{id}`: the whole key and the machines it is activated on, read from
    /// the provider (the whole key is never kept), and audited: who saw which key.
    pub async fn get_license_key(&self, actor: &Actor, id: &str) -> Result<LicenseKeyDetail> {
        validate_id("id", id)?;
        let read = async {
            let resource = self.provider.read(Kind::LicenseKey, id).await?.into_resource();
            let query = [("filter[license_key_id]", id.to_string())];
            let (instances, _) = self.provider.children("license-key-instances", &query).await?;
            Ok::<_, Error>((resource, instances))
        }
        .await;
        let outcome = read.as_ref().map_or_else(staffroom_auth::audit::failure, |_| "success".to_string());
        let (resource, instances) = match read {
            Ok(read) => read,
            Err(err) => {
                self.audit.record(actor.audit_name(), AuditAction::LicenseKeyReveal, Some(id), &outcome, None).await;
                return Err(err);
            }
        };
        let key = resource.str("key").unwrap_or_default();
        let mut read = model::license_key_from(&resource);
        self.db.upsert_license_keys(vec![read.clone()], now_rfc3339()).await?;
        // As the provider has it now, with our order's id and the product's name from the cache.
        if let Some(cached) = self.db.license_key(id.to_string()).await? {
            (read.order_id, read.product_name) = (cached.order_id, cached.product_name);
        }
        let detail = json!({"keyShort": read.key_short, "customer": read.customer_email});
        self.audit.record(actor.audit_name(), AuditAction::LicenseKeyReveal, Some(id), &outcome, Some(detail)).await;
        let instances = instances.iter().map(model::license_instance_from).collect();
        Ok(LicenseKeyDetail { license_key: as_of(read, &expiry_clock()), key, instances })
    }

    /// `PATCH /license-keys/{id}` (admins): disable or enable one of this store's keys, change
    /// how many machines it may be activated on, or when it expires (in the future). A key is
    /// disabled or enabled from the state the provider has now; asking for the state it is
    /// already in is refused. Audited, refusals too.
    pub async fn update_license_key(&self, actor: &Actor, request: &UpdateLicenseKeyRequest) -> Result<LicenseKeyDto> {
        actor.require_admin()?;
        let id = request.id.as_str();
        validate_id("id", id)?;
        let attributes = changes(request);
        let updated = match &attributes {
            Ok(attributes) => self.send_license_key_update(id, request, attributes.clone()).await,
            Err(refused) => Err(refused.clone()),
        };
        let outcome = updated.as_ref().map_or_else(staffroom_auth::audit::failure, |_| "success".to_string());
        let detail = attributes.ok().map(Value::Object);
        self.audit.record(actor.audit_name(), AuditAction::LicenseKeyUpdate, Some(id), &outcome, detail).await;
        let mut read = model::license_key_from(&updated?);
        self.db.upsert_license_keys(vec![read.clone()], now_rfc3339()).await?;
        // The provider's answer, not the cache: a `license_key_updated` of an earlier change
        // told in the same second may have just overwritten it (times have whole seconds).
        if let Some(cached) = self.db.license_key(id.to_string()).await? {
            (read.order_id, read.product_name) = (cached.order_id, cached.product_name);
        }
        Ok(as_of(read, &expiry_clock()))
    }

    /// Reads the key (refused unless it is this store's), checks the change against its state
    /// now, and sends it.
    async fn send_license_key_update(
        &self,
        id: &str,
        request: &UpdateLicenseKeyRequest,
        attributes: Map<String, Value>,
    ) -> Result<super::jsonapi::Resource> {
        let now = self.provider.read(Kind::LicenseKey, id).await?;
        // The provider's own flag: a disabled key may also show as expired.
        let disabled_now = now
            .bool("disabled")
            .or_else(|| now.int("disabled").map(|n| n != 0))
            .unwrap_or(now.str("status").as_deref() == Some("disabled"));
        match request.disabled {
            Some(true) if disabled_now => return Err(Error::conflict("This licence key is already disabled", None)),
            Some(false) if !disabled_now => return Err(Error::conflict("This licence key is not disabled", None)),
            _ => {}
        }
        self.provider.update(&now, Value::Object(attributes)).await
    }
}

/// Now, written as the cache writes a whole-second expiry (`…T10:00:00Z`), so that the stores
/// compare the two as text in time order (`…00.123Z` would sort before `…00Z`).
pub(super) fn expiry_clock() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// `key` as it stands at `now`: one whose expiry has passed is expired, though the provider's
/// status has not been read since.
pub(super) fn as_of(mut key: LicenseKeyDto, now: &str) -> LicenseKeyDto {
    let time = |at: &str| chrono::DateTime::parse_from_rfc3339(at).ok();
    let passed = key.expires_at.as_deref().and_then(time).zip(time(now)).is_some_and(|(at, now)| at <= now);
    if passed && !key.disabled && matches!(key.status.as_str(), "active" | "inactive") {
        key.status = "expired".into();
    }
    key
}

/// The page to read after page `read` of `last`, from the newest end: forwards when the first
/// page holds the newest keys; else the last page next, then backwards (page 1, read first, is
/// the oldest). None at the other end, or after a page (past the first) with nothing new.
fn next_page(newest_first: bool, read: u32, last: u32, had_new: bool) -> Option<u32> {
    match (newest_first, read) {
        (true, _) => (had_new && read < last).then_some(read + 1),
        (false, 1) => (last > 1).then_some(last),
        (false, _) => (had_new && read > 2).then_some(read - 1),
    }
}

/// The provider's attributes for what `request` changes; none, or two that contradict each
/// other, is refused naming the fields.
fn changes(request: &UpdateLicenseKeyRequest) -> Result<Map<String, Value>> {
    let mut attributes = Map::new();
    if let Some(disabled) = request.disabled {
        attributes.insert("disabled".into(), json!(disabled));
    }
    match (request.activation_limit, request.unlimited_activations) {
        (Some(_), Some(true)) => {
            return Err(Error::invalid_field("unlimitedActivations", "cannot be given with an activation limit"))
        }
        (Some(limit), _) => _ = attributes.insert("activation_limit".into(), json!(limit)),
        (None, Some(true)) => _ = attributes.insert("activation_limit".into(), Value::Null),
        _ => {}
    }
    match (&request.expires_at, request.never_expires) {
        (Some(_), Some(true)) => return Err(Error::invalid_field("neverExpires", "cannot be given with an expiry")),
        (Some(at), _) => {
            let at = super::validate::instant(at).ok_or_else(|| Error::invalid_field("expiresAt", "is not a time"))?;
            let passed = chrono::DateTime::parse_from_rfc3339(&at).is_ok_and(|at| at <= chrono::Utc::now());
            if passed {
                return Err(Error::invalid_field(
                    "expiresAt",
                    "is already past: a key that should stop working now is disabled instead",
                ));
            }
            attributes.insert("expires_at".into(), json!(at));
        }
        (None, Some(true)) => _ = attributes.insert("expires_at".into(), Value::Null),
        _ => {}
    }
    if attributes.is_empty() {
        return Err(Error::invalid_field(
            "disabled",
            "nothing to change: give disabled, activationLimit, unlimitedActivations, expiresAt or neverExpires",
        ));
    }
    Ok(attributes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_past_its_expiry_is_expired() {
        let key = |status: &str, expires: Option<&str>| LicenseKeyDto {
            status: status.into(),
            expires_at: expires.map(str::to_string),
            ..model::license_key_from(&super::super::jsonapi::Resource {
                id: "1".into(),
                kind: "license-keys".into(),
                attributes: Default::default(),
                related: Default::default(),
            })
        };
        let now = "2026-11-26T10:00:00.000Z";
        assert_eq!(as_of(key("active", Some("2026-11-01T00:00:00Z")), now).status, "expired");
        assert_eq!(as_of(key("inactive", Some("2026-11-26T09:59:59Z")), now).status, "expired");
        assert_eq!(as_of(key("active", Some("2027-01-01T00:00:00Z")), now).status, "active");
        assert_eq!(as_of(key("disabled", Some("2026-11-01T00:00:00Z")), now).status, "disabled");
        assert_eq!(as_of(key("active", None), now).status, "active");
    }

    #[test]
    fn the_newest_keys_are_read_from_whichever_end_holds_them() {
        // Newest first: forwards while pages hold something new.
        assert_eq!(next_page(true, 1, 5, true), Some(2));
        assert_eq!(next_page(true, 2, 5, false), None);
        assert_eq!(next_page(true, 5, 5, true), None);
        // Oldest first: the last page whatever the first held, then backwards, never page 1 again.
        assert_eq!(next_page(false, 1, 5, false), Some(5));
        assert_eq!(next_page(false, 5, 5, true), Some(4));
        assert_eq!(next_page(false, 4, 5, false), None);
        assert_eq!(next_page(false, 2, 5, true), None);
        assert_eq!(next_page(false, 1, 1, true), None);
    }

    #[test]
    fn a_whole_key_is_found_by_its_short_form() {
        let (email, key) = search_patterns("80e15db5-c796-436b-850c-8f9c98a48abe");
        assert_eq!(key, "%8f9c98a48abe%");
        assert_eq!(email, "%80e15db5-c796-436b-850c-8f9c98a48abe%");
        assert_eq!(search_patterns("ada@example.com").1, "%ada@example.com%");
        assert_eq!(search_patterns("XXXX-8f9c98a48abe").1, "%8f9c98a48abe%");
    }

    #[test]
    fn an_update_changes_something_and_never_two_contradicting_things() {
        let request = |f: fn(&mut UpdateLicenseKeyRequest)| {
            let mut r = UpdateLicenseKeyRequest { id: "1".into(), ..Default::default() };
            f(&mut r);
            changes(&r)
        };
        assert!(request(|_| {}).is_err());
        assert_eq!(
            request(|r| r.disabled = Some(true)).unwrap(),
            json!({"disabled": true}).as_object().unwrap().clone()
        );
        assert_eq!(
            request(|r| r.unlimited_activations = Some(true)).unwrap(),
            json!({"activation_limit": null}).as_object().unwrap().clone()
        );
        assert!(request(|r| (r.activation_limit, r.unlimited_activations) = (Some(3), Some(true))).is_err());
        assert!(request(|r| (r.expires_at, r.never_expires) = (Some("2099-01-01".into()), Some(true))).is_err());
        assert_eq!(
            request(|r| r.expires_at = Some("2099-01-01".into())).unwrap(),
            json!({"expires_at": "2099-01-01T00:00:00Z"}).as_object().unwrap().clone()
        );
        // A key that should stop working now is disabled, not given a past expiry.
        let yesterday = (chrono::Utc::now() - chrono::Duration::days(1)).to_rfc3339();
        let refused =
            changes(&UpdateLicenseKeyRequest { id: "1".into(), expires_at: Some(yesterday), ..Default::default() })
                .unwrap_err();
        assert_eq!(refused.details.unwrap()["fields"][0]["field"], "expiresAt");
        assert_eq!(
            request(|r| r.unlimited_activations = Some(false)).unwrap_err().message,
            changes(&UpdateLicenseKeyRequest { id: "1".into(), ..Default::default() }).unwrap_err().message
        );
    }
}
