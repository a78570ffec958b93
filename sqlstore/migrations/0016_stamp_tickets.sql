-- Change stamps without holding a lock to the commit (decisions
-- §6 change polling, sqlstore/stamp.go). An order's transaction used to
-- hold its organization's clock row from its stamp to its commit, so one
-- organization's orders committed one at a time, in stamp order. On
-- PostgreSQL it now takes its stamp, and a ticket, inside a short critical
-- section that ends before the order's writes; a change poll returns only
-- rows whose writer's ticket is below the oldest transaction still running
-- (pg_snapshot_xmin), which is what makes committing out of stamp order
-- safe. changed_xid is that ticket: a transaction ID, 0 for rows written
-- by writers that commit in stamp order (SQLite, and PostgreSQL writers
-- holding the environment's clock exclusively), which need none.
ALTER TABLE balances ADD COLUMN changed_xid BIGINT NOT NULL DEFAULT 0;
ALTER TABLE orders ADD COLUMN changed_xid BIGINT NOT NULL DEFAULT 0;
-- PostgreSQL only (nothing on SQLite): a stamp sequence per environment,
-- the newest stamp taken there, kept outside transactions so that the
-- critical section can end before the commit (seeded past every stamp of
-- the clocks it replaces); and the trigger that writes the transaction's
-- ticket (set by nextOrgStamp, 0 when none) into every row it writes.
{{stamp_tickets}}
