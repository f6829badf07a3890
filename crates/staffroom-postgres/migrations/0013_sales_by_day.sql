-- The Overview's money over any range in milliseconds (SPEC section 11): paid orders summed by
-- UTC day and currency, kept in step with `orders` by the trigger below, so a summary of 180
-- days reads a few hundred rows instead of every paid order. `converted_*` hold each order's
-- amount at its own rate to US dollars, rounded per order (an order without a rate counts as
-- it is), exactly as the summary summed them from `orders` before. A day whose paid orders all
-- went keeps a row of zeros, which the summary skips.
--
-- Writers of paid orders of the same day wait for each other on that day's row until they
-- commit: the receiver applies one event per transaction, so the wait is one commit long.
CREATE TABLE sales_by_day (
    day TEXT NOT NULL,
    currency TEXT NOT NULL,
    orders BIGINT NOT NULL,
    gross BIGINT NOT NULL,
    refunds BIGINT NOT NULL,
    converted_gross BIGINT NOT NULL,
    converted_refunds BIGINT NOT NULL,
    PRIMARY KEY (day, currency)
);

-- One order's amount at its own rate, as the summary has always rounded it.
CREATE FUNCTION converted_amount(amount BIGINT, rate TEXT) RETURNS BIGINT
    LANGUAGE sql IMMUTABLE
    AS $$ SELECT CASE WHEN rate IS NULL THEN amount ELSE ROUND(amount * CAST(rate AS DOUBLE PRECISION))::BIGINT END $$;

INSERT INTO sales_by_day
SELECT substr(created_at, 1, 10), currency, COUNT(*), SUM(total), SUM(refunded_amount),
       SUM(converted_amount(total, currency_rate)), SUM(converted_amount(refunded_amount, currency_rate))
FROM orders WHERE status = 'paid'
GROUP BY 1, 2;

-- An update takes the old row out and puts the new one in (either only when paid).
CREATE FUNCTION sales_by_day_follow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        IF OLD.status = 'paid' THEN
            UPDATE sales_by_day SET
                orders = orders - 1, gross = gross - OLD.total, refunds = refunds - OLD.refunded_amount,
                converted_gross = converted_gross - converted_amount(OLD.total, OLD.currency_rate),
                converted_refunds = converted_refunds - converted_amount(OLD.refunded_amount, OLD.currency_rate)
            WHERE day = substr(OLD.created_at, 1, 10) AND currency = OLD.currency;
        END IF;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        IF NEW.status = 'paid' THEN
            INSERT INTO sales_by_day AS s
            VALUES (substr(NEW.created_at, 1, 10), NEW.currency, 1, NEW.total, NEW.refunded_amount,
                    converted_amount(NEW.total, NEW.currency_rate), converted_amount(NEW.refunded_amount, NEW.currency_rate))
            ON CONFLICT (day, currency) DO UPDATE SET
                orders = s.orders + 1, gross = s.gross + excluded.gross, refunds = s.refunds + excluded.refunds,
                converted_gross = s.converted_gross + excluded.converted_gross,
                converted_refunds = s.converted_refunds + excluded.converted_refunds;
        END IF;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER sales_by_day_follow
AFTER INSERT OR DELETE OR UPDATE OF status, created_at, currency, total, refunded_amount, currency_rate ON orders
FOR EACH ROW EXECUTE FUNCTION sales_by_day_follow();
