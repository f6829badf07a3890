-- Team mode's schema (SPEC section 10), PostgreSQL's own: the same tables as the SQLite
-- migrations beside this directory, in PostgreSQL's types. Additive only, like those. Tables
-- arrive here as their stores are ported; each file is applied once, in order.

CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE audit_log (
    id      BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at      TEXT NOT NULL,
    actor   TEXT NOT NULL,
    action  TEXT NOT NULL,
    target  TEXT,
    outcome TEXT NOT NULL,
    detail  TEXT
);
CREATE INDEX audit_by_time ON audit_log (at);
