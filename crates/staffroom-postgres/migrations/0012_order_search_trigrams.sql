-- Finding an order or a customer by part of an e-mail or a name in milliseconds (SPEC section
-- 11): trigram indexes serve `ILIKE '%…%'`. pg_trgm ships with PostgreSQL and is a trusted
-- extension (13 and later): the database's owner may create it. A role that may not gets a
-- notice and searches that read the whole table, still correct.
DO $$
BEGIN
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
EXCEPTION WHEN insufficient_privilege OR undefined_file THEN
    RAISE NOTICE 'pg_trgm cannot be created (%): order search reads the whole table', SQLERRM;
END $$;

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
        CREATE INDEX IF NOT EXISTS orders_email_trigrams ON orders USING gin (email gin_trgm_ops);
        CREATE INDEX IF NOT EXISTS orders_name_trigrams ON orders USING gin (name gin_trgm_ops);
        CREATE INDEX IF NOT EXISTS customers_email_trigrams ON customers USING gin (email gin_trgm_ops);
        CREATE INDEX IF NOT EXISTS customers_name_trigrams ON customers USING gin (name gin_trgm_ops);
    END IF;
END $$;
