-- Deliveries about licence keys kept before keys were understood still hold each whole key, a
-- customer's credential that is never kept (the short form stays): blank it. Done on the text,
-- not through jsonb, which refuses bodies that JSON allows (a \u0000 escape) and would stop the
-- migration. The old row versions stay until PostgreSQL's vacuum reclaims them.
UPDATE webhook_events
SET body = convert_to(
    regexp_replace(convert_from(body, 'UTF8'), '"key"\s*:\s*"(?:[^"\\]|\\.)*"', '"key":""', 'g'),
    'UTF8')
WHERE resource_type = 'license-keys' AND position('"key"' IN convert_from(body, 'UTF8')) > 0;
