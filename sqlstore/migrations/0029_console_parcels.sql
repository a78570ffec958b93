-- The console's parcels area (decisions §40). A tenant's shipments are
-- listed newest first by id, a page at a time from a cursor: this index
-- gives that order within the organization, so a page reads its 51 rows
-- whatever the organization holds (without it SQLite sorted the
-- organization's shipments in a temporary B-tree and PostgreSQL sorted
-- them all). A shipment's page lists every code it held, active or not:
-- the active ones have codes_active_holder, the others had no index that
-- kept the read to the shipment's own rows.
CREATE INDEX shipments_org_id ON shipments (org_id, id);
CREATE INDEX codes_org_tracking ON codes (org_id, tracking_number, created_at);
