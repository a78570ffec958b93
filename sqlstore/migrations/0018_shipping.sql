-- The shipping API (decisions §29): shipment data made there keeps its
-- pick-up point, additional services (comma-separated codes), the sender's
-- contract number and reference, and the label medium asked for; origin
-- says whether the data came from the shipping API ('shipping'), the
-- shipment data alias ('edi') or a warehouse order ('order'). Each parcel
-- keeps what it holds.
ALTER TABLE shipments ADD COLUMN origin TEXT NOT NULL DEFAULT 'edi';
ALTER TABLE shipments ADD COLUMN pickup_point TEXT NOT NULL DEFAULT '';
ALTER TABLE shipments ADD COLUMN additional_services TEXT NOT NULL DEFAULT '';
ALTER TABLE shipments ADD COLUMN contract_number TEXT NOT NULL DEFAULT '';
ALTER TABLE shipments ADD COLUMN reference TEXT NOT NULL DEFAULT '';
ALTER TABLE shipments ADD COLUMN print_media TEXT NOT NULL DEFAULT '';
ALTER TABLE parcels ADD COLUMN contents TEXT NOT NULL DEFAULT '';

-- Tracking (decisions §30) finds a parcel by its number in the environment,
-- for any organization (the public view), and lists an environment's
-- shipments by creation time (event/date).
CREATE INDEX parcels_parcel_id ON parcels (parcel_id);
CREATE INDEX shipments_env_tracking ON shipments (environment, tracking_number);
CREATE INDEX shipments_env_created ON shipments (environment, created_at);

-- Tracking (decisions §30): the statuses an operator set on a parcel, in
-- order. The journey is otherwise decided from the shipment and the clock
-- when asked; only these moves are stored.
CREATE TABLE tracking_moves (
    id          {{serial}},
    org_id      BIGINT NOT NULL REFERENCES organizations (id),
    environment TEXT NOT NULL,
    shipment_id BIGINT NOT NULL REFERENCES shipments (id),
    parcel_id   TEXT NOT NULL,
    status      TEXT NOT NULL,
    at          BIGINT NOT NULL
);
CREATE INDEX tracking_moves_parcel ON tracking_moves (shipment_id, parcel_id, id);
