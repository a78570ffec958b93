-- A supplier's products by catalog, counted by the database (decisions
-- §69): per supplier and catalog, how many of the supplier's ACTIVE
-- products have a live balance there, so the total of GET /inventory
-- filtered by catalogExternalId or retailerId is a read of a few entries
-- instead of a probe of every product of the supplier. Striped as
-- kept_counts (migration 0036).
CREATE TABLE kept_catalog_products (
    supplier_org_id BIGINT NOT NULL,
    catalog_id      BIGINT NOT NULL,
    stripe          INTEGER NOT NULL,
    n               BIGINT NOT NULL,
    PRIMARY KEY (supplier_org_id, catalog_id, stripe)
);
-- The triggers, in each engine's spelling (sqlstore/kept_counts.go), one
-- statement a line.
{{kept_catalog_products}}
-- The counts of the rows already there, after the triggers and in their
-- transaction (see migration 0036).
INSERT INTO kept_catalog_products (supplier_org_id, catalog_id, stripe, n) SELECT b.supplier_org_id, b.catalog_id, b.id % 8, COUNT(*) FROM balances b JOIN products p ON p.id = b.product_id WHERE b.removed_at = 0 AND p.status = 'ACTIVE' GROUP BY b.supplier_org_id, b.catalog_id, b.id % 8;
-- The place's catalogs by external ID (every merchant's warehouse is
-- WH1: 2,000 catalogs at issue 39's size), which SQLite otherwise found
-- by an automatic index built for each statement, PostgreSQL by reading
-- the table.
CREATE INDEX catalogs_external ON catalogs (environment, external_id);
