-- An organization's orders by time span, finer than the buckets of
-- migration 0052 (decisions §74): per organization, level (a shift of
-- updated_at: sqlstore's orderSpanShifts, 2^30 and 2^24 µs), span and
-- status, how many orders there are. A page of orders asked by number
-- finds its bucket from the buckets' sums and, while the bucket or span
-- found holds more than a thousand orders, its span at the next level
-- from the sums of that one's 64 spans, and walks inside the last found:
-- a burst of orders within one bucket no longer makes the walk as long
-- as the burst. Kept by triggers in the writing transaction, as the
-- buckets are; striped the same way on PostgreSQL.
CREATE TABLE kept_order_spans (
    org_id BIGINT NOT NULL,
    shift  INTEGER NOT NULL,
    span   BIGINT NOT NULL,
    status TEXT NOT NULL,
    stripe INTEGER NOT NULL,
    n      BIGINT NOT NULL,
    PRIMARY KEY (org_id, shift, span, status, stripe)
){{without_rowid}};
-- The triggers, in each engine's spelling (sqlstore/kept_order_buckets.go),
-- one statement a line; the buckets' triggers of 0052 are made again
-- with the fold of a row a write empties.
{{kept_order_spans}}
-- The spans of the orders already there, after the triggers and in their
-- transaction (see migration 0036), and the bucket rows emptied before.
{{kept_order_spans_fill}}
