-- The Overview's money over any range in milliseconds (SPEC section 11): paid orders summed by
-- UTC day and currency, kept in step with `orders` by the triggers below, so a summary of 180
-- days reads a few hundred rows instead of every paid order. `converted_*` hold each order's
-- amount at its own rate to US dollars, rounded per order (an order without a rate counts as
-- it is), exactly as the summary summed them from `orders` before. A day whose paid orders all
-- went keeps a row of zeros, which the summary skips.
CREATE TABLE sales_by_day (
    day TEXT NOT NULL,
    currency TEXT NOT NULL,
    orders INTEGER NOT NULL,
    gross INTEGER NOT NULL,
    refunds INTEGER NOT NULL,
    converted_gross INTEGER NOT NULL,
    converted_refunds INTEGER NOT NULL,
    PRIMARY KEY (day, currency)
) WITHOUT ROWID;

INSERT INTO sales_by_day
SELECT substr(created_at, 1, 10), currency, COUNT(*), SUM(total), SUM(refunded_amount),
       SUM(CASE WHEN currency_rate IS NULL THEN total
                ELSE CAST(ROUND(total * CAST(currency_rate AS REAL)) AS INTEGER) END),
       SUM(CASE WHEN currency_rate IS NULL THEN refunded_amount
                ELSE CAST(ROUND(refunded_amount * CAST(currency_rate AS REAL)) AS INTEGER) END)
FROM orders WHERE status = 'paid'
GROUP BY 1, 2;

CREATE TRIGGER sales_by_day_insert AFTER INSERT ON orders WHEN new.status = 'paid' BEGIN
    INSERT INTO sales_by_day
    SELECT substr(new.created_at, 1, 10), new.currency, 1, new.total, new.refunded_amount,
           CASE WHEN new.currency_rate IS NULL THEN new.total
                ELSE CAST(ROUND(new.total * CAST(new.currency_rate AS REAL)) AS INTEGER) END,
           CASE WHEN new.currency_rate IS NULL THEN new.refunded_amount
                ELSE CAST(ROUND(new.refunded_amount * CAST(new.currency_rate AS REAL)) AS INTEGER) END
    WHERE true
    ON CONFLICT (day, currency) DO UPDATE SET
        orders = orders + 1, gross = gross + excluded.gross, refunds = refunds + excluded.refunds,
        converted_gross = converted_gross + excluded.converted_gross,
        converted_refunds = converted_refunds + excluded.converted_refunds;
END;

CREATE TRIGGER sales_by_day_delete AFTER DELETE ON orders WHEN old.status = 'paid' BEGIN
    UPDATE sales_by_day SET
        orders = orders - 1, gross = gross - old.total, refunds = refunds - old.refunded_amount,
        converted_gross = converted_gross - CASE WHEN old.currency_rate IS NULL THEN old.total
            ELSE CAST(ROUND(old.total * CAST(old.currency_rate AS REAL)) AS INTEGER) END,
        converted_refunds = converted_refunds - CASE WHEN old.currency_rate IS NULL THEN old.refunded_amount
            ELSE CAST(ROUND(old.refunded_amount * CAST(old.currency_rate AS REAL)) AS INTEGER) END
    WHERE day = substr(old.created_at, 1, 10) AND currency = old.currency;
END;

-- An update takes the old row out and puts the new one in (either only when paid).
CREATE TRIGGER sales_by_day_update
AFTER UPDATE OF status, created_at, currency, total, refunded_amount, currency_rate ON orders BEGIN
    UPDATE sales_by_day SET
        orders = orders - 1, gross = gross - old.total, refunds = refunds - old.refunded_amount,
        converted_gross = converted_gross - CASE WHEN old.currency_rate IS NULL THEN old.total
            ELSE CAST(ROUND(old.total * CAST(old.currency_rate AS REAL)) AS INTEGER) END,
        converted_refunds = converted_refunds - CASE WHEN old.currency_rate IS NULL THEN old.refunded_amount
            ELSE CAST(ROUND(old.refunded_amount * CAST(old.currency_rate AS REAL)) AS INTEGER) END
    WHERE old.status = 'paid' AND day = substr(old.created_at, 1, 10) AND currency = old.currency;
    INSERT INTO sales_by_day
    SELECT substr(new.created_at, 1, 10), new.currency, 1, new.total, new.refunded_amount,
           CASE WHEN new.currency_rate IS NULL THEN new.total
                ELSE CAST(ROUND(new.total * CAST(new.currency_rate AS REAL)) AS INTEGER) END,
           CASE WHEN new.currency_rate IS NULL THEN new.refunded_amount
                ELSE CAST(ROUND(new.refunded_amount * CAST(new.currency_rate AS REAL)) AS INTEGER) END
    WHERE new.status = 'paid'
    ON CONFLICT (day, currency) DO UPDATE SET
        orders = orders + 1, gross = gross + excluded.gross, refunds = refunds + excluded.refunds,
        converted_gross = converted_gross + excluded.converted_gross,
        converted_refunds = converted_refunds + excluded.converted_refunds;
END;
