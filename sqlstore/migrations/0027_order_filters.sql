-- The provider's Orders V3 list filters and rows by EAN (decisions §37).
--
-- order_date is the order's orderDate (microseconds since the epoch), copied
-- out of the document for the from/to filters; orders stored before are
-- read from their document (to the millisecond on SQLite).
ALTER TABLE orders ADD COLUMN order_date BIGINT NOT NULL DEFAULT 0;
UPDATE orders SET order_date = COALESCE({{order_date_of_doc}}, inserted_at);

-- Every list of orders is one organization's in stamp order (updated_at,
-- id). The two indexes that gave that order, alone and after a status,
-- now carry order_date too, so a from/to window is tested in the index,
-- on the entries the list reads in its own order, never by reading the
-- orders themselves. They replace the narrower ones, which every query
-- that used those reads the same way.
CREATE INDEX orders_dated ON orders (org_id, updated_at, id, order_date);
DROP INDEX orders_updated;
CREATE INDEX orders_status_dated ON orders (org_id, status, updated_at, id, order_date);
DROP INDEX console_orders_status;

-- An order row named by productEANCode finds its product among those of
-- the row's catalog's suppliers: one seek per supplier and EAN. The index
-- by (environment, ean_code) read every tenant's products with the EAN.
CREATE INDEX products_supplier_ean ON products (supplier_org_id, ean_code);
