-- The whole store (SPEC section 11): every order of the provider's beside the ones made here,
-- with the number on the customer's receipt, its items, amounts and receipt link. Only an order
-- made here takes an SR- number now, so `number` may be empty: SQLite cannot drop a NOT NULL,
-- so the table is made again (no other table refers to it) and its rows copied across.
CREATE TABLE orders_whole_store (
    id                  TEXT PRIMARY KEY,        -- our id (custom data order_id)
    number              INTEGER UNIQUE,          -- SR-000042, for an order made here
    status              TEXT NOT NULL,           -- pending | paid | failed
    product_id          TEXT NOT NULL,
    variant_id          TEXT NOT NULL,
    customer_id         TEXT,
    email               TEXT NOT NULL,
    name                TEXT,
    billing_address     TEXT,                    -- JSON
    metadata            TEXT,                    -- JSON
    total               INTEGER NOT NULL,
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
    subtotal            INTEGER,                 -- what the checkout promised, before tax and discounts
    test_mode           INTEGER CHECK (test_mode IN (0, 1)),
    review              TEXT,
    refunded_amount     INTEGER NOT NULL DEFAULT 0,
    source              TEXT NOT NULL DEFAULT 'staffroom' CHECK (source IN ('staffroom', 'store')),
    order_number        INTEGER,                 -- the number on the customer's receipt
    items               TEXT NOT NULL DEFAULT '[]', -- JSON: [{productId, variantId, …}]
    discount_total      INTEGER NOT NULL DEFAULT 0,
    tax                 INTEGER NOT NULL DEFAULT 0,
    receipt_url         TEXT,
    currency_rate       TEXT                     -- US dollars per unit of currency, as the provider wrote it
) STRICT;

INSERT INTO orders_whole_store (
    id, number, status, product_id, variant_id, customer_id, email, name, billing_address, metadata, total,
    currency, checkout_id, checkout_url, provider_order_id, provider_status, paid_at, refunded_at, created_by,
    created_at, updated_at, provider_updated_at, store_id, subtotal, test_mode, review, refunded_amount, source
)
SELECT
    id, number, status, product_id, variant_id, customer_id, email, name, billing_address, metadata, total,
    currency, checkout_id, checkout_url, provider_order_id, provider_status, paid_at, refunded_at, created_by,
    created_at, updated_at, provider_updated_at, store_id, subtotal, test_mode, review, refunded_amount,
    -- Orders the provider told us of by webhook were made elsewhere (they keep the number they had).
    CASE WHEN created_by = 'provider' THEN 'store' ELSE 'staffroom' END
FROM orders;

DROP TABLE orders;
ALTER TABLE orders_whole_store RENAME TO orders;
CREATE INDEX orders_by_time ON orders(created_at);
CREATE INDEX orders_by_order_number ON orders(order_number);
CREATE INDEX orders_by_customer ON orders(customer_id, created_at);
CREATE INDEX orders_by_product ON orders(product_id, created_at);

-- A subscription plan's billing interval, for the store's MRR (SPEC section 11).
ALTER TABLE variants ADD COLUMN billing_interval TEXT CHECK (billing_interval IN ('day', 'week', 'month', 'year'));
ALTER TABLE variants ADD COLUMN interval_count INTEGER;
