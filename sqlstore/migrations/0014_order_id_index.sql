-- Finding one order by either of its IDs. An order is named by
-- its service ID (order_id) or its externalId (own_id, the bare form), and
-- every lookup is scoped to the caller's organization. Only (environment,
-- order_id) was indexed, which a lookup by organization cannot use, so
-- both engines read every order of the organization to find one: a read
-- that grew with the merchant. With (org_id, order_id) beside
-- (org_id, own_id), each half of the lookup is one index seek.
CREATE INDEX orders_org_order_id ON orders (org_id, order_id);
