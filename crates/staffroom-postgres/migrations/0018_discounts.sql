-- The store's discount codes and the orders that redeemed them (SPEC section 11): read by the
-- sync (the provider sends no webhook for either) and written when staff make or delete one.
CREATE TABLE discounts (
    id                 TEXT PRIMARY KEY,        -- the provider's discount id
    name               TEXT NOT NULL,
    code               TEXT NOT NULL,
    amount             BIGINT NOT NULL,         -- a percentage, or cents
    amount_type        TEXT NOT NULL,           -- percent | fixed
    duration           TEXT NOT NULL,           -- once | repeating | forever
    duration_in_months BIGINT NOT NULL,
    starts_at          TEXT,
    expires_at         TEXT,
    max_redemptions    BIGINT,                  -- NULL: no limit
    variant_ids        TEXT NOT NULL,           -- JSON array; empty: every product
    status             TEXT NOT NULL,           -- draft | published
    created_at         TEXT NOT NULL,
    updated_at         TEXT NOT NULL,
    synced_at          TEXT NOT NULL
);
CREATE INDEX discounts_by_time ON discounts(created_at);

-- Kept when their discount goes: they are the orders' history.
CREATE TABLE discount_redemptions (
    id                TEXT PRIMARY KEY,         -- the provider's redemption id
    discount_id       TEXT NOT NULL,
    provider_order_id TEXT NOT NULL,
    amount            BIGINT NOT NULL,          -- cents taken off, the order's currency
    created_at        TEXT NOT NULL
);
CREATE INDEX discount_redemptions_of_discount ON discount_redemptions(discount_id, created_at);
