-- The console's parcels area lists dropshipping shipments (decisions §51):
-- a supplier's shipments and a retailer's suppliers' shipments, newest
-- first by id, a page at a time from a cursor. These indexes give that
-- order within the organization on either side, so a page reads its 51
-- rows whatever the organization holds (on PostgreSQL the retailer's
-- index of migration 0023 found the rows but not their order: every page
-- sorted the organization's shipments). The new retailer index serves
-- everything 0023's did (a tenant's reset, snapshot and restore), so that
-- one goes.
CREATE INDEX supplier_shipments_supplier_id ON supplier_shipments (supplier_org_id, id);
CREATE INDEX supplier_shipments_retailer_id ON supplier_shipments (retailer_org_id, id);
DROP INDEX supplier_shipments_retailer;
