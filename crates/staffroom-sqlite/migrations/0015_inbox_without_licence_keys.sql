-- Deliveries about licence keys kept before keys were understood still hold each whole key, a
-- customer's credential that is never kept (the short form stays): take it out, and overwrite
-- the space the old bodies held (secure_delete), so the file does not keep them either.
PRAGMA secure_delete = ON;
UPDATE webhook_events
SET body = CAST(json_remove(CAST(body AS TEXT), '$.data.attributes.key') AS BLOB)
WHERE resource_type = 'license-keys' AND json_valid(CAST(body AS TEXT))
  AND json_extract(CAST(body AS TEXT), '$.data.attributes.key') IS NOT NULL;
PRAGMA secure_delete = OFF;
