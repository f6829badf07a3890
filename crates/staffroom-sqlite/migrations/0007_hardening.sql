-- Hardening. Sign-in attempts are counted before any password is hashed, per account (as typed)
-- and client address, so guesses sent at once cannot outrun the lock, and a stranger locks out
-- only their own address; a per-account ceiling across addresses locks the account until an
-- admin unlocks it. And each session remembers its current token: refreshing one ends the one
-- before it.

CREATE TABLE login_attempts (
    key          TEXT PRIMARY KEY,  -- the account as typed (lower case), a space, the client address
    email        TEXT NOT NULL,
    attempts     INTEGER NOT NULL,  -- attempts let through to the hasher since the last reset
    failures     INTEGER NOT NULL,  -- of those, the ones that failed
    locks        INTEGER NOT NULL,  -- locks so far: each one doubles the wait
    locked_until INTEGER NOT NULL,  -- unix seconds; 0 when not locked
    audit_id     INTEGER,           -- the audit entry of the current lock
    refused      INTEGER NOT NULL,  -- attempts refused during the current lock
    updated_at   INTEGER NOT NULL
) STRICT;
CREATE INDEX login_attempts_by_email ON login_attempts(email);

CREATE TABLE account_locks (
    email        TEXT PRIMARY KEY,  -- lower case
    window_start INTEGER NOT NULL,  -- the start of the hour the failures are counted in
    failures     INTEGER NOT NULL,
    locked       INTEGER NOT NULL CHECK (locked IN (0, 1)) -- 1: until an admin unlocks it
) STRICT;

ALTER TABLE sessions ADD COLUMN token_id TEXT;
