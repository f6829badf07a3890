-- Webhook inbox: every verified delivery, stored with a full sync before it is acknowledged.

CREATE TABLE webhook_events (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    -- meta.webhook_id when the provider sends one, else the SHA-256 of the raw body.
    dedupe_key      TEXT NOT NULL UNIQUE,
    webhook_id      TEXT,
    event_name      TEXT NOT NULL,
    resource_type   TEXT NOT NULL,
    resource_id     TEXT NOT NULL,
    body            BLOB NOT NULL,
    -- 1: X-Signature matched (unverified deliveries are refused and never stored).
    verified        INTEGER NOT NULL CHECK (verified IN (0, 1)),
    received_at     TEXT NOT NULL,
    applied_at      TEXT,
    -- applied | stale | ignored | failed, with a reason after a colon.
    outcome         TEXT,
    order_id        TEXT,
    subscription_id TEXT
) STRICT;
CREATE INDEX webhook_events_unapplied ON webhook_events(id) WHERE applied_at IS NULL;
CREATE INDEX webhook_events_by_order ON webhook_events(order_id) WHERE order_id IS NOT NULL;
CREATE INDEX webhook_events_by_subscription ON webhook_events(subscription_id) WHERE subscription_id IS NOT NULL;
