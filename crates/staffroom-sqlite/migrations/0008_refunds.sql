-- Refunds: how much of an order has been refunded (in cents), as Lemon Squeezy reports it.
ALTER TABLE orders ADD COLUMN refunded_amount INTEGER NOT NULL DEFAULT 0;
