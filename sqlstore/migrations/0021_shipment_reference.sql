-- Tracking (decisions §30) searches a tenant's parcels by their shipment's
-- reference, case-insensitive (find, senderreference, ordernumber). Without
-- this index each search read every shipment of the environment; with it,
-- the organization's shipments of that reference. The expression is the
-- one the statements compare, UPPER(reference), so both engines use it.
CREATE INDEX shipments_org_reference ON shipments (org_id, UPPER(reference));
