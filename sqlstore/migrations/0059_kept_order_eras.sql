-- An organization's orders by era, a level above the buckets of migration
-- 0052 (decisions §77): rows of kept_order_spans at shift 42 (sqlstore's
-- orderEraShift: 2^42 µs, about 51 days, 64 buckets), per organization,
-- era and status. A page of orders asked by number reads the era sums to
-- its position, then the buckets of that one era, instead of every
-- bucket of the organization's history before it. Kept by the spans'
-- triggers of migration 0058, made again with the eras' level in the
-- same upsert; striped the same way on PostgreSQL.
-- The triggers (SQLite) or trigger functions (PostgreSQL, after the
-- orders' writers' lock), in each engine's spelling
-- (sqlstore/kept_order_buckets.go), one statement a line.
{{kept_order_eras}}
-- The eras of the orders already there, from their buckets, after the
-- triggers and in their transaction (see migration 0036).
{{kept_order_eras_fill}}
