-- Summing 50,000 orders in milliseconds (SPEC section 11): the summary reads only this index,
-- paid orders by day with their amounts and rates.
CREATE INDEX orders_for_sales ON orders (status, created_at, currency, total, refunded_amount, currency_rate);
