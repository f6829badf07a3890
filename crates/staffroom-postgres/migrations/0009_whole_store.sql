-- The whole store (SPEC section 11): every order of the provider's beside the ones made here,
-- with the number on the customer's receipt, its items, amounts and receipt link. Only an order
-- made here takes an SR- number now.
ALTER TABLE orders ALTER COLUMN number DROP NOT NULL;
ALTER TABLE orders ADD COLUMN source TEXT NOT NULL DEFAULT 'staffroom' CHECK (source IN ('staffroom', 'store'));
ALTER TABLE orders ADD COLUMN order_number BIGINT;
ALTER TABLE orders ADD COLUMN items TEXT NOT NULL DEFAULT '[]'; -- JSON: [{productId, variantId, …}]
ALTER TABLE orders ADD COLUMN discount_total BIGINT NOT NULL DEFAULT 0;
ALTER TABLE orders ADD COLUMN tax BIGINT NOT NULL DEFAULT 0;
ALTER TABLE orders ADD COLUMN receipt_url TEXT;
ALTER TABLE orders ADD COLUMN currency_rate TEXT; -- US dollars per unit of currency, as the provider wrote it
-- Orders the provider told us of by webhook were made elsewhere (they keep the number they had).
UPDATE orders SET source = 'store' WHERE created_by = 'provider';
CREATE INDEX orders_by_order_number ON orders (order_number);
CREATE INDEX orders_by_customer ON orders (customer_id, created_at);
CREATE INDEX orders_by_product ON orders (product_id, created_at);

-- A subscription plan's billing interval, for the store's MRR (SPEC section 11).
ALTER TABLE variants ADD COLUMN billing_interval TEXT CHECK (billing_interval IN ('day', 'week', 'month', 'year'));
ALTER TABLE variants ADD COLUMN interval_count BIGINT;
