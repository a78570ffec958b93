-- The operator controls, shared by every instance.

-- How far each environment's environment clock is ahead of the wall clock. Only
-- servers started with --sandbox-clock read it; it only grows.
CREATE TABLE sandbox_clock (
    environment TEXT PRIMARY KEY,
    offset_us   BIGINT NOT NULL
);
INSERT INTO sandbox_clock (environment, offset_us) VALUES ('production', 0), ('test', 0);

-- Saved copies of one organization's data. Each table's rows are kept as one
-- JSON document (columns and rows), so a table added later is one entry in
-- sqlstore's tenant table list, not a new snapshot table.
CREATE TABLE snapshots (
    id          {{serial}},
    org_id      BIGINT NOT NULL REFERENCES organizations (id),
    name        TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    objects     BIGINT NOT NULL,
    UNIQUE (org_id, name)
);

CREATE TABLE snapshot_tables (
    snapshot_id BIGINT NOT NULL REFERENCES snapshots (id),
    table_name  TEXT NOT NULL,
    row_count   BIGINT NOT NULL,
    data        TEXT NOT NULL,
    PRIMARY KEY (snapshot_id, table_name)
);

-- Injected faults: a matching request is answered with status (after
-- latency) before it is handled; status 0 only adds latency.
CREATE TABLE faults (
    id           TEXT PRIMARY KEY,
    environment  TEXT NOT NULL,
    org_id       BIGINT NOT NULL DEFAULT 0,
    business_id  TEXT NOT NULL DEFAULT '',
    method       TEXT NOT NULL DEFAULT '',
    route        TEXT NOT NULL DEFAULT '',
    status       INTEGER NOT NULL,
    latency_us   BIGINT NOT NULL DEFAULT 0,
    retry_after  INTEGER NOT NULL DEFAULT 0,
    probability  DOUBLE PRECISION NOT NULL DEFAULT 0,
    remaining    BIGINT NOT NULL DEFAULT -1,
    fired        BIGINT NOT NULL DEFAULT 0,
    created_at   BIGINT NOT NULL,
    expires_at   BIGINT NOT NULL DEFAULT 0
);
