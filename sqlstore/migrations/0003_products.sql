-- Products, balances (stock and price per retailer catalog). See
-- sqlstore/product.go and sqlstore/balance.go.

-- A product is keyed by (supplier, external_id) and stored as the JSON
-- document its supplier sent; ean_code and status are copied out of it for
-- filtering. deleted_at is when it became EOS (0 while ACTIVE).
CREATE TABLE products (
    id              {{serial}},
    environment     TEXT NOT NULL,
    supplier_org_id BIGINT NOT NULL REFERENCES organizations (id),
    external_id     TEXT NOT NULL,
    ean_code        TEXT NOT NULL DEFAULT '',
    status          TEXT NOT NULL DEFAULT 'ACTIVE',
    document        TEXT NOT NULL,
    deleted_at      BIGINT NOT NULL DEFAULT 0,
    created_at      BIGINT NOT NULL,
    modified_at     BIGINT NOT NULL,
    UNIQUE (supplier_org_id, external_id)
);
CREATE INDEX products_listing ON products (supplier_org_id, status, id);
CREATE INDEX products_ean ON products (environment, ean_code);

-- A balance is one product in one catalog (the catalog names its
-- retailer). supplier_org_id, retailer_org_id, product_external_id and
-- eos_at copy immutable or product-level facts so that every list is one
-- index range on this table: counted and paged by key without joins.
-- quantity is available stock, allocated is reserved by open orders; both
-- whole units. modified_at is the modification stamp (nextStamp) that
-- retailers poll with modifiedFromDate; every change of the row, of its
-- product, or by an order moves it.
CREATE TABLE balances (
    id                  {{serial}},
    product_id          BIGINT NOT NULL REFERENCES products (id),
    catalog_id          BIGINT NOT NULL REFERENCES catalogs (id),
    supplier_org_id     BIGINT NOT NULL REFERENCES organizations (id),
    retailer_org_id     BIGINT NOT NULL REFERENCES organizations (id),
    product_external_id TEXT NOT NULL,
    quantity            BIGINT NOT NULL DEFAULT 0,
    allocated           BIGINT NOT NULL DEFAULT 0,
    wholesale_price     TEXT,
    currency            TEXT,
    eos_at              BIGINT NOT NULL DEFAULT 0,
    modified_at         BIGINT NOT NULL,
    CHECK (quantity >= 0 AND allocated >= 0),
    UNIQUE (product_id, catalog_id)
);
-- Lists by immutable key (id) and change feeds by (modified_at, id), per
-- catalog, per retailer and per supplier. eos_at rides along so the
-- visibility test of EOS products is answered from the index.
CREATE INDEX balances_catalog ON balances (catalog_id, id, eos_at);
CREATE INDEX balances_catalog_changes ON balances (catalog_id, modified_at, id, eos_at);
CREATE INDEX balances_retailer ON balances (retailer_org_id, id, eos_at);
CREATE INDEX balances_retailer_changes ON balances (retailer_org_id, modified_at, id, eos_at);
CREATE INDEX balances_supplier ON balances (supplier_org_id, eos_at, id);
CREATE INDEX balances_supplier_changes ON balances (supplier_org_id, eos_at, modified_at, id);
-- Filtering a large list by productExternalId, and the order allocation's
-- lookup of a product's balance in a catalog.
CREATE INDEX balances_product_external ON balances (product_external_id, catalog_id);
