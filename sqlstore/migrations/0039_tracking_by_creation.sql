-- The Tracking API's parcels by their shipments' creation (event/date,
-- reservations/status; decisions §59), in the searches' order
-- (created_at, id): a page from a recorded key is an index range, and a
-- cold start= walks this index and the parcels' (shipment_id, position)
-- only, never a sort of the organization's shipments. environment is
-- constant within an organization; it is here so the walk needs no row.
CREATE INDEX shipments_org_created ON shipments (org_id, environment, created_at, id);
