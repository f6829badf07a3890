-- Staff accounts, sessions and sign-in throttling (SQLite's 0001 and 0007), shared by every
-- replica: a session started on one is live on all, a lock set on one holds on all.

CREATE TABLE users (
    id                  TEXT PRIMARY KEY,
    email               TEXT NOT NULL,
    name                TEXT NOT NULL,
    role                TEXT NOT NULL CHECK (role IN ('admin', 'staff')),
    password_hash       TEXT NOT NULL,
    disabled            BOOLEAN NOT NULL DEFAULT FALSE,
    created_at          TEXT NOT NULL,
    updated_at          TEXT NOT NULL,
    password_changed_at TEXT NOT NULL
);
-- One account per email, whatever its case (SQLite's COLLATE NOCASE).
CREATE UNIQUE INDEX users_by_email ON users (lower(email));

CREATE TABLE sessions (
    id           TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at   BIGINT NOT NULL, -- unix seconds
    last_seen_at BIGINT NOT NULL,
    expires_at   BIGINT NOT NULL, -- absolute end of the session
    revoked_at   BIGINT,
    token_id     TEXT             -- the jti of the session's current token
);
CREATE INDEX sessions_by_user ON sessions (user_id);

CREATE TABLE login_attempts (
    key          TEXT PRIMARY KEY,  -- the account as typed (lower case), a space, the client address
    email        TEXT NOT NULL,
    attempts     BIGINT NOT NULL,
    failures     BIGINT NOT NULL,
    locks        BIGINT NOT NULL,
    locked_until BIGINT NOT NULL,   -- unix seconds; 0 when not locked
    audit_id     BIGINT,            -- the audit entry of the current lock
    refused      BIGINT NOT NULL,
    updated_at   BIGINT NOT NULL
);
CREATE INDEX login_attempts_by_email ON login_attempts (email);

CREATE TABLE account_locks (
    email        TEXT PRIMARY KEY,  -- lower case
    window_start BIGINT NOT NULL,
    failures     BIGINT NOT NULL,
    locked       BOOLEAN NOT NULL   -- until an admin unlocks it
);
