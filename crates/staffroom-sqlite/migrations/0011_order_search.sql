-- Searching and summing 50,000 orders in milliseconds (SPEC section 11).
--
-- The orders' e-mails and names in a trigram index: a search for part of either ("ada",
-- "müller") reads the index instead of every row, in any case. Kept in step with `orders` by
-- the triggers below (an external-content FTS5 table holds no copy of the text).
CREATE VIRTUAL TABLE orders_text USING fts5(email, name, content = 'orders', tokenize = 'trigram');
INSERT INTO orders_text (orders_text) VALUES ('rebuild');

CREATE TRIGGER orders_text_insert AFTER INSERT ON orders BEGIN
    INSERT INTO orders_text (rowid, email, name) VALUES (new.rowid, new.email, new.name);
END;
CREATE TRIGGER orders_text_delete AFTER DELETE ON orders BEGIN
    INSERT INTO orders_text (orders_text, rowid, email, name) VALUES ('delete', old.rowid, old.email, old.name);
END;
CREATE TRIGGER orders_text_update AFTER UPDATE OF email, name ON orders BEGIN
    INSERT INTO orders_text (orders_text, rowid, email, name) VALUES ('delete', old.rowid, old.email, old.name);
    INSERT INTO orders_text (rowid, email, name) VALUES (new.rowid, new.email, new.name);
END;

-- The summary reads only this index: paid orders by day with their amounts and rates.
CREATE INDEX orders_for_sales ON orders(status, created_at, currency, total, refunded_amount, currency_rate);

-- The provider's status as a filter ("refunded", "fraudulent"), newest first.
CREATE INDEX orders_by_provider_status ON orders(provider_status, created_at);
