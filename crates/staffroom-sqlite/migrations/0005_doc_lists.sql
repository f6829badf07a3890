-- Documents: the last answer of each document list (a folder, an order, a page) and of the
-- folder list, so the Documents screen still shows them, marked stale, while Google is out of
-- reach. Bounded by the code to the most recently read.

CREATE TABLE doc_list_cache (
    list_key   TEXT PRIMARY KEY,
    list_json  TEXT NOT NULL,
    fetched_at TEXT NOT NULL
) STRICT;
