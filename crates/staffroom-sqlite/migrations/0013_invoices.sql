-- The subscriptions' invoices (SPEC section 11): the first payment, each renewal, a plan change
-- billed at once; read by the sync and kept current by `subscription_payment_*` events.
CREATE TABLE invoices (
    id              TEXT PRIMARY KEY,           -- the provider's invoice id
    subscription_id TEXT NOT NULL,
    customer_id     TEXT NOT NULL,              -- '' when the provider has none
    billing_reason  TEXT NOT NULL,              -- initial | renewal | updated
    status          TEXT NOT NULL,              -- pending | paid | void | refunded | partial_refund
    total           INTEGER NOT NULL,           -- cents, the invoice's currency
    refunded_amount INTEGER NOT NULL DEFAULT 0,
    currency        TEXT NOT NULL,
    card_brand      TEXT,
    card_last_four  TEXT,
    invoice_url     TEXT,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL,
    synced_at       TEXT NOT NULL
) STRICT;
CREATE INDEX invoices_of_subscription ON invoices(subscription_id, created_at);
CREATE INDEX invoices_of_customer ON invoices(customer_id, created_at);
