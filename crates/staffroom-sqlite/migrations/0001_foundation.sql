-- Foundation: installation metadata, staff accounts, sessions, login throttling, audit log.
-- Migrations are additive only: never drop or rename what an older binary may still read.

CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) STRICT;

CREATE TABLE users (
    id                  TEXT PRIMARY KEY,
    email               TEXT NOT NULL UNIQUE COLLATE NOCASE,
    name                TEXT NOT NULL,
    role                TEXT NOT NULL CHECK (role IN ('admin', 'staff')),
    password_hash       TEXT NOT NULL,
    disabled            INTEGER NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1)),
    created_at          TEXT NOT NULL,
    updated_at          TEXT NOT NULL,
    password_changed_at TEXT NOT NULL
) STRICT;

CREATE TABLE sessions (
    id           TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at   INTEGER NOT NULL, -- unix seconds
    last_seen_at INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL, -- absolute end of the session
    revoked_at   INTEGER
) STRICT;
CREATE INDEX sessions_by_user ON sessions(user_id);

-- Keyed by the lower-cased email as typed, so unknown emails are throttled exactly like known ones.
CREATE TABLE login_throttle (
    email        TEXT PRIMARY KEY,
    failures     INTEGER NOT NULL,
    locked_until INTEGER NOT NULL, -- unix seconds; 0 when not locked
    updated_at   INTEGER NOT NULL
) STRICT;

CREATE TABLE audit_log (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    at      TEXT NOT NULL,
    actor   TEXT NOT NULL,
    action  TEXT NOT NULL,
    target  TEXT,
    outcome TEXT NOT NULL,
    detail  TEXT
) STRICT;
CREATE INDEX audit_by_time ON audit_log(at);
