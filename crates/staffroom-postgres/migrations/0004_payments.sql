-- Payments (SQLite's 0002, 0006 and 0008): the cache of the provider's products, variants and
-- subscriptions, our local orders, and when each resource was last synced. Order numbers come
-- from a sequence, so replicas creating orders at once never take the same one.

CREATE TABLE products (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    slug        TEXT NOT NULL,
    price       BIGINT NOT NULL, -- minor units (cents)
    currency    TEXT NOT NULL,
    status      TEXT NOT NULL,   -- draft | published
    description TEXT,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL,
    synced_at   TEXT NOT NULL
);
CREATE INDEX products_by_status ON products (status, name);

CREATE TABLE variants (
    id              TEXT PRIMARY KEY,
    product_id      TEXT NOT NULL,
    name            TEXT NOT NULL,
    price           BIGINT NOT NULL,
    status          TEXT NOT NULL,
    is_subscription BOOLEAN NOT NULL DEFAULT FALSE,
    sort            BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX variants_by_product ON variants (product_id, sort);

CREATE TABLE subscriptions (
    id               TEXT PRIMARY KEY,
    customer_id      TEXT NOT NULL,
    provider_status  TEXT NOT NULL,
    status           TEXT NOT NULL,
    product_id       TEXT NOT NULL,
    variant_id       TEXT NOT NULL,
    order_id         TEXT,
    user_name        TEXT,
    user_email       TEXT,
    product_name     TEXT,
    variant_name     TEXT,
    pause_mode       TEXT,
    pause_resumes_at TEXT,
    renews_at        TEXT,
    ends_at          TEXT,
    created_at       TEXT NOT NULL,
    updated_at       TEXT NOT NULL,
    synced_at        TEXT NOT NULL
);
CREATE INDEX subscriptions_by_time ON subscriptions (created_at, id);
CREATE INDEX subscriptions_by_status ON subscriptions (status, created_at, id);
CREATE INDEX subscriptions_by_customer ON subscriptions (customer_id, created_at, id);

CREATE TABLE subscription_payments (
    subscription_id TEXT PRIMARY KEY,
    status          TEXT NOT NULL,
    at              TEXT NOT NULL
);

CREATE SEQUENCE order_numbers;

CREATE TABLE orders (
    id                  TEXT PRIMARY KEY,      -- our id (custom data order_id)
    number              BIGINT NOT NULL UNIQUE, -- SR-000042, from order_numbers
    status              TEXT NOT NULL,         -- pending | paid | failed
    product_id          TEXT NOT NULL,
    variant_id          TEXT NOT NULL,
    customer_id         TEXT,
    email               TEXT NOT NULL,
    name                TEXT,
    billing_address     TEXT,                  -- JSON
    metadata            TEXT,                  -- JSON
    total               BIGINT NOT NULL,
    currency            TEXT NOT NULL,
    checkout_id         TEXT,
    checkout_url        TEXT,
    provider_order_id   TEXT UNIQUE,
    provider_status     TEXT,
    paid_at             TEXT,
    refunded_at         TEXT,
    created_by          TEXT,
    created_at          TEXT NOT NULL,
    updated_at          TEXT NOT NULL,
    provider_updated_at TEXT,
    store_id            TEXT,
    subtotal            BIGINT,
    test_mode           BOOLEAN,
    review              TEXT,
    refunded_amount     BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX orders_by_time ON orders (created_at);
CREATE INDEX orders_pending ON orders (created_at) WHERE status = 'pending';

CREATE TABLE sync_state (
    resource     TEXT PRIMARY KEY,
    synced_at    TEXT,
    attempted_at TEXT,
    error        TEXT
);
