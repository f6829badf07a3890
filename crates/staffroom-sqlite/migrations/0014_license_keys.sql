-- The store's licence keys (SPEC section 11): short forms only (the full key is read from the
-- provider when staff ask for it, never kept), read by the sync and kept current by
-- `license_key_*` events.
CREATE TABLE license_keys (
    id                TEXT PRIMARY KEY,         -- the provider's licence key id
    key_short         TEXT NOT NULL,            -- "XXXX-" and the key's last 12 characters
    status            TEXT NOT NULL,            -- inactive | active | expired | disabled
    disabled          INTEGER NOT NULL DEFAULT 0, -- by hand (the provider's flag)
    activation_limit  INTEGER,                  -- NULL: unlimited
    activation_usage  INTEGER NOT NULL DEFAULT 0,
    expires_at        TEXT,
    provider_order_id TEXT NOT NULL,
    customer_id       TEXT NOT NULL,
    user_name         TEXT NOT NULL,
    user_email        TEXT NOT NULL,
    product_id        TEXT NOT NULL,
    created_at        TEXT NOT NULL,
    updated_at        TEXT NOT NULL,
    synced_at         TEXT NOT NULL
) STRICT;
CREATE INDEX license_keys_by_time ON license_keys(created_at);
CREATE INDEX license_keys_of_order ON license_keys(provider_order_id);
CREATE INDEX license_keys_of_customer ON license_keys(customer_id, created_at);
