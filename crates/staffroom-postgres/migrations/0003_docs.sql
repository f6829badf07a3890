-- Documents (SQLite's 0004 and 0005): the last revision read of each document, drafts of
-- unsaved edits per staff member, and the last answer of each document list.

CREATE TABLE doc_cache (
    document_id   TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    revision_id   TEXT NOT NULL,
    document_json TEXT NOT NULL,
    fetched_at    TEXT NOT NULL
);

CREATE TABLE doc_drafts (
    user_id          TEXT NOT NULL,
    document_id      TEXT NOT NULL,
    base_revision_id TEXT NOT NULL,
    base_json        TEXT NOT NULL,
    blocks_json      TEXT NOT NULL,
    updated_at       TEXT NOT NULL,
    PRIMARY KEY (user_id, document_id)
);

CREATE TABLE doc_list_cache (
    list_key   TEXT PRIMARY KEY,
    list_json  TEXT NOT NULL,
    fetched_at TEXT NOT NULL
);
CREATE INDEX doc_list_cache_by_time ON doc_list_cache (fetched_at);
