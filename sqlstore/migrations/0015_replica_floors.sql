-- Read-your-writes on PostgreSQL replicas (sqlstore/replica.go): after a
-- write made for an organization commits, the primary's WAL position is
-- recorded here; a replica serves the organization's reads only once it
-- has replayed past it. Written only when replicas are configured; unused
-- on SQLite. No foreign key: bookkeeping that must never stand in the way
-- of removing an organization.
CREATE TABLE replica_floors (
    org_id BIGINT PRIMARY KEY,
    lsn    BIGINT NOT NULL
);
