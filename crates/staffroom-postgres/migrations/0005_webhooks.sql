-- The webhook inbox (SQLite's 0003): every verified delivery, stored once (unique key) whichever
-- replica received it, committed before it is acknowledged.

CREATE TABLE webhook_events (
    id              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    dedupe_key      TEXT NOT NULL UNIQUE,
    webhook_id      TEXT,
    event_name      TEXT NOT NULL,
    resource_type   TEXT NOT NULL,
    resource_id     TEXT NOT NULL,
    body            BYTEA NOT NULL,
    verified        BOOLEAN NOT NULL,
    received_at     TEXT NOT NULL,
    applied_at      TEXT,
    outcome         TEXT,
    order_id        TEXT,
    subscription_id TEXT
);
CREATE INDEX webhook_events_unapplied ON webhook_events (id) WHERE applied_at IS NULL;
CREATE INDEX webhook_events_by_order ON webhook_events (order_id) WHERE order_id IS NOT NULL;
CREATE INDEX webhook_events_by_subscription ON webhook_events (subscription_id) WHERE subscription_id IS NOT NULL;
