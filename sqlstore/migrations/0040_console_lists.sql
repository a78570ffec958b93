-- The console's and the operator's lists at size (decisions §53): each
-- page reads its own rows from an index that gives its order, whatever the
-- tenant or the environment holds.
--
-- The products the console shows a supplier: its own, every status,
-- newest first by id (products_listing has the status between the
-- supplier and the id, so it gives that order for one status only).
CREATE INDEX products_supplier_id ON products (supplier_org_id, id);
-- The products published to a retailer's catalogs, by product id: the
-- console's second stream of its product list (the two are merged, so the
-- scope's OR no longer makes either engine read every product).
CREATE INDEX balances_retailer_product ON balances (retailer_org_id, product_id, removed_at, eos_at);
-- The request journal filtered by status, newest first, in an
-- environment or of one organization: without these a rare status walked
-- the environment's journal (or the organization's) until enough rows
-- matched. A status class (2xx, 5xx) is the expression status / 100.
CREATE INDEX request_journal_env_status ON request_journal (environment, status, id);
CREATE INDEX request_journal_org_status ON request_journal (org_id, status, id);
CREATE INDEX request_journal_env_class ON request_journal (environment, (status / 100), id);
CREATE INDEX request_journal_org_class ON request_journal (org_id, (status / 100), id);
-- An organization's active codes, counted bounded on the console's
-- overview: the index holds only live codes, by expiry, so the count reads
-- at most its bound of entries.
CREATE INDEX codes_active_org_expiry ON codes (org_id, expires_at) WHERE released_at = 0;
