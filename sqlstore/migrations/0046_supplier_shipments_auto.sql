-- The automatic supplier's sweep (DropshipService.DueShipments) reads, per
-- supplier that has it on, that supplier's open shipments of an
-- environment whose wait has passed, oldest first: this index gives
-- exactly those rows in that order, so a sweep with nothing due reads no
-- shipment. 0019's index by environment alone made each sweep read every
-- open shipment of the environment to apply each supplier's delay to it
-- (issue 39; decisions §55); nothing else reads it, so it goes. The status
-- list is the statement's, term for term, so that SQLite can prove the
-- partial index covers it.
CREATE INDEX supplier_shipments_auto ON supplier_shipments (supplier_org_id, environment, ready_at, id) WHERE status IN ('Created', 'Submitted', 'Viewed', 'Picking', 'Packing', 'Shipping');
DROP INDEX supplier_shipments_open;
