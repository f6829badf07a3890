-- Lists sort ids in byte order (COLLATE "C"), as SQLite compares, whatever the database's
-- collation; indexes in the database's collation could not serve those sorts, so every page of
-- the subscriptions list sorted the whole table. The same indexes, in the lists' order.
DROP INDEX subscriptions_by_time;
DROP INDEX subscriptions_by_status;
DROP INDEX subscriptions_by_customer;
CREATE INDEX subscriptions_by_time ON subscriptions (created_at, id COLLATE "C");
CREATE INDEX subscriptions_by_status ON subscriptions (status, created_at, id COLLATE "C");
CREATE INDEX subscriptions_by_customer ON subscriptions (customer_id, created_at, id COLLATE "C");
DROP INDEX products_by_status;
CREATE INDEX products_by_status ON products (status, name COLLATE "C", id COLLATE "C");
CREATE INDEX products_by_name ON products (name COLLATE "C", id COLLATE "C");
