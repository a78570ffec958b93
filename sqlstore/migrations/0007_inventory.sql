-- The provider's warehouse catalogs are of type "Posti", the name its own
-- API and real clients use (the WooCommerce warehouse plugin knows a
-- warehouse by it). parcelgate first called the type "Warehouse"; the
-- operator API still accepts that name, and rows stored under it are
-- renamed here so that every read answers "Posti".
UPDATE catalogs SET catalog_type = 'Posti' WHERE catalog_type = 'Warehouse';
