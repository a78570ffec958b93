-- A supplier's dropshipping shipments by status, counted by the database
-- (decisions §63), as migration 0036 counts orders: the total of a
-- supplier's GET /shipments, with or without a status, is a read of a few
-- kept_counts entries instead of a count of the supplier's shipments.
--
-- The poll window's held-back rows (the changes of writers still running
-- when the list looked, stamp.go) are subtracted from the kept count on
-- PostgreSQL; they are found from this index, by their tickets.
CREATE INDEX supplier_shipments_changed_xid ON supplier_shipments (supplier_org_id, changed_xid);
-- The triggers, in each engine's spelling (sqlstore/kept_counts.go), one
-- statement a line.
{{kept_counts_0049}}
-- The counts of the rows already there, after the triggers and in their
-- transaction (see migration 0036: a write committed between a count
-- taken first and the triggers would be missed by both).
INSERT INTO kept_counts (kind, environment, org_id, status, stripe, n) SELECT 'supplier_shipments', environment, supplier_org_id, status, id % 8, COUNT(*) FROM supplier_shipments GROUP BY environment, supplier_org_id, status, id % 8;
