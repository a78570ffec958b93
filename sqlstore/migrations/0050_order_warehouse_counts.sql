-- Orders by warehouse, counted by the database (decisions §63): per
-- organization, warehouse (an order row's warehouse_external_id) and the
-- order's status, how many orders have a row of that warehouse, so the
-- total of GET /orders?warehouseExternalId= (with or without a status) is
-- a read of a few entries. Striped as kept_counts (migration 0036).
CREATE TABLE kept_warehouse_counts (
    environment TEXT NOT NULL,
    org_id      BIGINT NOT NULL,
    warehouse   TEXT NOT NULL,
    status      TEXT NOT NULL,
    stripe      INTEGER NOT NULL,
    n           BIGINT NOT NULL,
    PRIMARY KEY (environment, org_id, warehouse, status, stripe)
);
-- The triggers, in each engine's spelling (sqlstore/kept_counts.go), one
-- statement a line.
{{kept_warehouse_counts}}
-- The counts of the rows already there, after the triggers and in their
-- transaction (see migration 0036).
INSERT INTO kept_warehouse_counts (environment, org_id, warehouse, status, stripe, n) SELECT o.environment, o.org_id, w.wh, o.status, o.id % 8, COUNT(*) FROM (SELECT DISTINCT order_pk, warehouse_external_id AS wh FROM order_rows) w JOIN orders o ON o.id = w.order_pk GROUP BY o.environment, o.org_id, w.wh, o.status, o.id % 8;
