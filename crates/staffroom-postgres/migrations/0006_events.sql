-- Live events (SQLite keeps them in events.sqlite3): numbered in commit order across replicas
-- (their writers take one lock), kept 24 hours, announced with NOTIFY staffroom_events.

CREATE TABLE events (
    id   BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at   BIGINT NOT NULL, -- unix seconds
    kind TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX events_at ON events (at);
