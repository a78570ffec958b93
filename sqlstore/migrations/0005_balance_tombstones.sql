-- Removing a product from a catalog (DELETE /inventory/balances) leaves a
-- tombstone instead of deleting the balance: removed_at holds the removal
-- stamp (0 while the balance is live), quantity and allocated are 0. Change
-- polls (modifiedFromDate) list tombstones, so a retailer polling its
-- catalog learns that the product left it (decisions §6); every other read
-- treats them as absent. Publishing the product to the catalog again
-- revives the row. Tombstones are kept: a poller may come back after any
-- pause, and a tombstone costs what the balance it replaces did.
ALTER TABLE balances ADD COLUMN removed_at BIGINT NOT NULL DEFAULT 0;

-- The lists by immutable key leave tombstones out; removed_at joins eos_at
-- in their indexes so they are still counted and paged from the index
-- alone. The change-feed indexes need no change: change polls keep
-- tombstones.
DROP INDEX balances_catalog;
CREATE INDEX balances_catalog ON balances (catalog_id, id, eos_at, removed_at);
DROP INDEX balances_retailer;
CREATE INDEX balances_retailer ON balances (retailer_org_id, id, eos_at, removed_at);
DROP INDEX balances_supplier;
CREATE INDEX balances_supplier ON balances (supplier_org_id, eos_at, removed_at, id);
