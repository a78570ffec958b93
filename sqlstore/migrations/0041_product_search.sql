-- The console's product search by the start of an externalId, ignoring
-- the case of ASCII letters (decisions §58): each set of the caller's
-- products is one range of an index in byte order ({{byte_order}}: COLLATE
-- "C" on PostgreSQL, whatever the database's collation), in the order the
-- search answers (externalId, then id). A substring had no index and read
-- every product of the caller's.
--
-- The products a supplier supplies.
CREATE INDEX products_supplier_search ON products (supplier_org_id, (UPPER(external_id)){{byte_order}}, id);
-- The products published to a retailer's catalogs (live balances).
CREATE INDEX balances_retailer_search ON balances (retailer_org_id, (UPPER(product_external_id)){{byte_order}}, product_id) WHERE removed_at = 0;
