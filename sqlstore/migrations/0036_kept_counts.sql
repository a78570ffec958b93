-- Counts kept by the database (decisions §52): how many orders an
-- organization has in each status (and its environment), its shipments by
-- status, a supplier's products by status (ACTIVE, EOS), and an
-- environment's organizations. Triggers keep them on every write, in the
-- writing transaction, whatever path wrote (the services, an operator's
-- reset or restore, the data generator's bulk load, psql by hand), so a
-- count read in a snapshot is the count of the rows in that snapshot.
--
-- Each count is striped: a row's share goes to stripe id % 8, and a count
-- is the sum of its stripes, so one merchant's concurrent writers on
-- PostgreSQL update different rows instead of queueing on one. org_id 0 is
-- an environment's count (every organization of it); status is '' for a
-- count without statuses.
CREATE TABLE kept_counts (
    kind        TEXT NOT NULL,
    environment TEXT NOT NULL,
    org_id      BIGINT NOT NULL,
    status      TEXT NOT NULL,
    stripe      INTEGER NOT NULL,
    n           BIGINT NOT NULL,
    PRIMARY KEY (kind, environment, org_id, status, stripe)
);
-- The triggers, in each engine's spelling (sqlstore/kept_counts.go), one
-- statement a line.
{{kept_counts}}
-- The counts of the rows already there, taken after the triggers exist and
-- in their transaction: on PostgreSQL creating a trigger locks the table
-- against writers until the migration commits, so no write falls between
-- the count and the first trigger (counted first, a write committed in
-- between would be missed by both).
INSERT INTO kept_counts (kind, environment, org_id, status, stripe, n) SELECT 'orders', environment, org_id, status, id % 8, COUNT(*) FROM orders GROUP BY environment, org_id, status, id % 8;
INSERT INTO kept_counts (kind, environment, org_id, status, stripe, n) SELECT 'orders', environment, 0, status, id % 8, COUNT(*) FROM orders GROUP BY environment, status, id % 8;
INSERT INTO kept_counts (kind, environment, org_id, status, stripe, n) SELECT 'shipments', environment, org_id, status, id % 8, COUNT(*) FROM shipments GROUP BY environment, org_id, status, id % 8;
INSERT INTO kept_counts (kind, environment, org_id, status, stripe, n) SELECT 'products', environment, supplier_org_id, status, id % 8, COUNT(*) FROM products GROUP BY environment, supplier_org_id, status, id % 8;
INSERT INTO kept_counts (kind, environment, org_id, status, stripe, n) SELECT 'organizations', environment, 0, '', id % 8, COUNT(*) FROM organizations GROUP BY environment, id % 8;
