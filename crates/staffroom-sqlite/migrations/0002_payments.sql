-- Payments: the cache of the provider's products, variants and subscriptions, our local orders,
-- and when each resource was last synced.

CREATE TABLE products (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    slug        TEXT NOT NULL,
    price       INTEGER NOT NULL, -- minor units (cents)
    currency    TEXT NOT NULL,
    status      TEXT NOT NULL,    -- draft | published
    description TEXT,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL,
    synced_at   TEXT NOT NULL
) STRICT;
CREATE INDEX products_by_status ON products(status, name);

CREATE TABLE variants (
    id         TEXT PRIMARY KEY,
    product_id TEXT NOT NULL,
    name       TEXT NOT NULL,
    price      INTEGER NOT NULL,
    status     TEXT NOT NULL,    -- provider's: pending | draft | published
    is_subscription INTEGER NOT NULL DEFAULT 0,
    sort       INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX variants_by_product ON variants(product_id, sort);

CREATE TABLE subscriptions (
    id              TEXT PRIMARY KEY,
    customer_id     TEXT NOT NULL,   -- '' when the provider has none
    provider_status TEXT NOT NULL,
    status          TEXT NOT NULL,   -- the seed's: active | cancelled | expired
    product_id      TEXT NOT NULL,
    variant_id      TEXT NOT NULL,
    order_id        TEXT,
    user_name       TEXT,
    user_email      TEXT,
    product_name    TEXT,
    variant_name    TEXT,
    pause_mode      TEXT,
    pause_resumes_at TEXT,
    renews_at       TEXT,
    ends_at         TEXT,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL,   -- the provider's updated_at: orders webhook events
    synced_at       TEXT NOT NULL
) STRICT;
CREATE INDEX subscriptions_by_time ON subscriptions(created_at, id);
CREATE INDEX subscriptions_by_status ON subscriptions(status, created_at, id);
CREATE INDEX subscriptions_by_customer ON subscriptions(customer_id, created_at, id);

-- The latest payment of each subscription (from subscription_payment_* events). Kept apart so a
-- payment that arrives before its subscription is not lost.
CREATE TABLE subscription_payments (
    subscription_id TEXT PRIMARY KEY,
    status          TEXT NOT NULL,
    at              TEXT NOT NULL
) STRICT;

CREATE TABLE orders (
    id                TEXT PRIMARY KEY,        -- our id (custom data order_id)
    number            INTEGER NOT NULL UNIQUE, -- SR-000042
    status            TEXT NOT NULL,           -- pending | paid | failed
    product_id        TEXT NOT NULL,
    variant_id        TEXT NOT NULL,
    customer_id       TEXT,
    email             TEXT NOT NULL,
    name              TEXT,
    billing_address   TEXT,                    -- JSON
    metadata          TEXT,                    -- JSON
    total             INTEGER NOT NULL,
    currency          TEXT NOT NULL,
    checkout_id       TEXT,
    checkout_url      TEXT,
    provider_order_id TEXT UNIQUE,
    provider_status   TEXT,
    paid_at           TEXT,
    refunded_at       TEXT,
    created_by        TEXT,
    created_at        TEXT NOT NULL,
    updated_at        TEXT NOT NULL,
    provider_updated_at TEXT
) STRICT;
CREATE INDEX orders_by_time ON orders(created_at);

CREATE TABLE sync_state (
    resource    TEXT PRIMARY KEY,  -- products | subscriptions
    synced_at   TEXT,              -- last complete, successful sync
    attempted_at TEXT,
    error       TEXT               -- why the last attempt failed, if it did
) STRICT;
