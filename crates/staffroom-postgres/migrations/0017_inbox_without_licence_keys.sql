-- Deliveries about licence keys kept before keys were understood still hold each whole key, a
-- customer's credential that is never kept (the short form stays): take it out.
UPDATE webhook_events
SET body = convert_to(((convert_from(body, 'UTF8'))::jsonb #- '{data,attributes,key}')::text, 'UTF8')
WHERE resource_type = 'license-keys';
