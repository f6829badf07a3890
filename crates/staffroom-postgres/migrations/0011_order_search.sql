-- Summing 50,000 orders in milliseconds (SPEC section 11): the summary reads only this index,
-- paid orders by day with their amounts and rates.
CREATE INDEX orders_for_sales ON orders (status, created_at, currency, total, refunded_amount, currency_rate);

-- The provider's status as a filter ("refunded", "fraudulent"), newest first.
CREATE INDEX orders_by_provider_status ON orders (provider_status, created_at);
