-- Dropshipping (decisions §34): one shipment per supplier of a retailer's
-- order, made in the order's transaction. The shipment is stored as the
-- document the Shipments API answers (with the order rows it ships); what
-- lists, the automatic supplier and the copy-back need is in columns.

CREATE TABLE supplier_shipments (
    id              {{serial}},
    -- the service's shipment ID (shipmentId), unique per environment
    shipment_id     TEXT NOT NULL,
    environment     TEXT NOT NULL,
    -- clientId: the supplier who ships and alone reads and writes it
    supplier_org_id BIGINT NOT NULL REFERENCES organizations (id),
    -- metadata.sourceOrganization: the retailer whose order it comes from
    retailer_org_id BIGINT NOT NULL REFERENCES organizations (id),
    order_pk        BIGINT NOT NULL REFERENCES orders (id),
    status          TEXT NOT NULL,
    doc             TEXT NOT NULL,
    inserted_at     BIGINT NOT NULL,
    -- modification stamp (nextOrgStamp): the order of GET /shipments?from=
    updated_at      BIGINT NOT NULL,
    -- when the automatic supplier's current wait began
    ready_at        BIGINT NOT NULL,
    -- the writer's ticket (see migration 0016): change polls on PostgreSQL
    changed_xid     BIGINT NOT NULL DEFAULT 0,
    UNIQUE (environment, shipment_id)
);
-- status and changed_xid ride along so a status filter and the change
-- poll's window (stamp.go) are checked in the index: a count is index-only.
CREATE INDEX supplier_shipments_updated ON supplier_shipments (supplier_org_id, updated_at, id, status, changed_xid);
CREATE INDEX supplier_shipments_order ON supplier_shipments (order_pk);
-- The automatic supplier's work: only open shipments are indexed.
CREATE INDEX supplier_shipments_open ON supplier_shipments (environment, ready_at) WHERE status IN ('Created', 'Submitted', 'Viewed', 'Picking', 'Packing', 'Shipping');

-- The automatic supplier is switched on per organization (the supplier).
CREATE TABLE auto_suppliers (
    org_id     BIGINT PRIMARY KEY REFERENCES organizations (id),
    -- seconds from the shipment's creation to its confirmation
    delay_s    BIGINT NOT NULL
);
{{shipment_tickets}}
