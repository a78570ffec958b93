-- An organization's orders by time bucket, counted by the database
-- (decisions §68): per organization, bucket (updated_at shifted right by
-- sqlstore's orderBucketShift bits, about 19 hours) and status, how many
-- orders there are. A page of orders asked by number finds the bucket
-- holding its position from these sums and walks only inside it, instead
-- of walking every order before the position. Kept by triggers in the
-- writing transaction, as kept_counts (migration 0036), so sums read in a
-- page's snapshot are the rows of that snapshot. On PostgreSQL a writer's
-- shares go to its connection's stripe (pg_backend_pid() % 16); SQLite's
-- one writer uses stripe 0.
CREATE TABLE kept_order_buckets (
    org_id BIGINT NOT NULL,
    bucket BIGINT NOT NULL,
    status TEXT NOT NULL,
    stripe INTEGER NOT NULL,
    n      BIGINT NOT NULL,
    PRIMARY KEY (org_id, bucket, status, stripe)
){{without_rowid}};
-- The triggers, in each engine's spelling (sqlstore/kept_order_buckets.go),
-- one statement a line.
{{kept_order_buckets}}
-- The buckets of the orders already there, after the triggers and in
-- their transaction (see migration 0036: a write committed between a
-- count taken first and the triggers would be missed by both).
{{kept_order_buckets_fill}}
