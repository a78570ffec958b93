-- The web console (/console): server-side sessions, so that any instance
-- behind a load balancer knows a signed-in browser and signing out ends the
-- session everywhere; and two indexes for the console's order list.

-- A session is known by the SHA-256 of its cookie value: a copy of this
-- table does not let anyone sign in. kind is 'operator' (the admin token)
-- or 'account' (a service account, named by username). environment and
-- business_id are the tenant an operator is looking at ('' for none).
CREATE TABLE console_sessions (
    id_hash     TEXT PRIMARY KEY,
    kind        TEXT NOT NULL,
    username    TEXT NOT NULL DEFAULT '',
    environment TEXT NOT NULL DEFAULT '',
    business_id TEXT NOT NULL DEFAULT '',
    created_at  BIGINT NOT NULL,
    seen_at     BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL
);
CREATE INDEX console_sessions_expiry ON console_sessions (expires_at);

-- The console lists an organization's orders newest first, optionally of
-- some statuses, and counts them by status: one index range each.
CREATE INDEX console_orders_status ON orders (org_id, status, updated_at, id);
-- Finding an order by the value of any of its references.
CREATE INDEX console_order_refs_value ON order_refs (org_id, value);
