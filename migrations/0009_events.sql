-- Live events (GET /api/events), kept 24 hours so that a client reconnecting with the last id
-- it saw misses nothing. AUTOINCREMENT: an id is never given twice, even after pruning.
CREATE TABLE events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at INTEGER NOT NULL,
    kind TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX events_at ON events (at);
