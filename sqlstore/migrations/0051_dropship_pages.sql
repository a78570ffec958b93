-- The console's dropshipping list (decisions §67): a page of a supplier's
-- or a retailer's shipments, newest first, is read from one of these
-- indexes in their order whatever the planner estimates. The list orders
-- and pages by id + 0, which only these indexes give: the primary key
-- gives id's order but not this one, so no plan walks the whole table
-- backwards filtering by organization (PostgreSQL's generic plan did,
-- for either side, when it took an organization's share to be large).
-- The organization and the environment, the list's whole filter, are the
-- index's first columns. 0035's (supplier_org_id, id) and
-- (retailer_org_id, id) stay: a tenant's reset, snapshot and restore
-- read by them.
CREATE INDEX supplier_shipments_supplier_page ON supplier_shipments (supplier_org_id, environment, (id + 0));
CREATE INDEX supplier_shipments_retailer_page ON supplier_shipments (retailer_org_id, environment, (id + 0));
