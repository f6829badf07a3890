-- Orders: what the checkout promised (its store, the variant's price before tax and discounts,
-- test or live mode), so that a payment event is checked against it before the order turns paid;
-- and why an order waits for review when an event did not match.

ALTER TABLE orders ADD COLUMN store_id TEXT;
ALTER TABLE orders ADD COLUMN subtotal INTEGER;
ALTER TABLE orders ADD COLUMN test_mode INTEGER CHECK (test_mode IN (0, 1));
ALTER TABLE orders ADD COLUMN review TEXT;
