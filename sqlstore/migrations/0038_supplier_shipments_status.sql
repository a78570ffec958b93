-- A supplier's shipments in a status (GET /shipments?status=..., decisions
-- §52), in the list's order: the page and its total are one index range of
-- that status's shipments, not a walk of every shipment of the supplier
-- until enough match. changed_xid rides along for the poll window.
CREATE INDEX supplier_shipments_status ON supplier_shipments (supplier_org_id, status, updated_at, id, changed_xid);
