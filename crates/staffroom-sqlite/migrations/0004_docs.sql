-- Documents: the last revision read of each document (readable offline), and drafts of
-- unsaved edits per staff member, with the revision they were made against.

CREATE TABLE doc_cache (
    document_id   TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    revision_id   TEXT NOT NULL,
    document_json TEXT NOT NULL,
    fetched_at    TEXT NOT NULL
) STRICT;

CREATE TABLE doc_drafts (
    user_id          TEXT NOT NULL,
    document_id      TEXT NOT NULL,
    base_revision_id TEXT NOT NULL,
    -- The document the edits were made against, so a rebase works after a restart.
    base_json        TEXT NOT NULL,
    blocks_json      TEXT NOT NULL,
    updated_at       TEXT NOT NULL,
    PRIMARY KEY (user_id, document_id)
) STRICT;
