-- The store's customers (SPEC section 11), with the provider's own revenue and MRR figures, and
-- how each subscription is paid.
CREATE TABLE customers (
    id            TEXT PRIMARY KEY,           -- the provider's customer id
    name          TEXT NOT NULL,
    email         TEXT NOT NULL,
    status        TEXT NOT NULL,              -- e-mail marketing status: subscribed | unsubscribed | archived | …
    country       TEXT,
    total_revenue INTEGER NOT NULL DEFAULT 0, -- US cents: the provider's total_revenue_currency
    mrr           INTEGER NOT NULL DEFAULT 0, -- US cents
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL,
    synced_at     TEXT NOT NULL
) STRICT;
CREATE INDEX customers_by_time ON customers(created_at);
CREATE INDEX customers_by_email ON customers(email);

ALTER TABLE subscriptions ADD COLUMN payment_processor TEXT; -- stripe | paypal
ALTER TABLE subscriptions ADD COLUMN card_brand TEXT;
ALTER TABLE subscriptions ADD COLUMN card_last_four TEXT;
-- Whose orders the provider changed since the last sync (their customers' figures did too).
CREATE INDEX orders_by_provider_update ON orders(provider_updated_at);
