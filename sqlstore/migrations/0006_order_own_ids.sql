-- Real clients send an order's externalId bare (1005) or with the business
-- ID ({businessId}-1005); both name one order of the caller. own_id is the
-- externalId without the caller's business ID: the key an order is found
-- and kept unique by, whichever form a request uses. Orders stored before
-- carry the prefix, which is cut here.
ALTER TABLE orders ADD COLUMN own_id TEXT NOT NULL DEFAULT '';

UPDATE orders SET own_id = substr(external_id, (SELECT length(g.business_id) FROM organizations g WHERE g.id = orders.org_id) + 2)
WHERE substr(external_id, 1, (SELECT length(g.business_id) + 1 FROM organizations g WHERE g.id = orders.org_id))
    = (SELECT g.business_id || '-' FROM organizations g WHERE g.id = orders.org_id);
UPDATE orders SET own_id = external_id WHERE own_id = '';

CREATE UNIQUE INDEX orders_own_id ON orders (org_id, own_id);
