-- Operator jobs (decisions §54): a reset, snapshot or restore too long for
-- one request's transaction runs as a job, in batches of bounded size,
-- each committed with the job's progress. The row is the job's whole
-- state: any instance resumes a job whose lease ran out (its holder
-- stopped), from the progress its last batch committed.
CREATE TABLE operator_jobs (
    id          TEXT PRIMARY KEY,
    kind        TEXT NOT NULL,
    environment TEXT NOT NULL,
    -- 0 for an environment's reset
    org_id      BIGINT NOT NULL DEFAULT 0,
    business_id TEXT NOT NULL DEFAULT '',
    snapshot    TEXT NOT NULL DEFAULT '',
    catalogs    INTEGER NOT NULL DEFAULT 0,
    -- queued, running, done, failed
    state       TEXT NOT NULL,
    -- 1 while the tenant's (the environment's) API answers 503
    fenced      INTEGER NOT NULL DEFAULT 0,
    -- JSON: where the job is (phase, step, cursors) and its counts
    progress    TEXT NOT NULL DEFAULT '',
    -- JSON: the finished job's result
    result      TEXT NOT NULL DEFAULT '',
    error_code  TEXT NOT NULL DEFAULT '',
    error       TEXT NOT NULL DEFAULT '',
    -- the instance holding the job, until lease_until (microseconds)
    owner       TEXT NOT NULL DEFAULT '',
    lease_until BIGINT NOT NULL DEFAULT 0,
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL,
    finished_at BIGINT NOT NULL DEFAULT 0
);
-- The jobs an instance may take, and the fenced tenants every instance
-- reads each second: few rows whatever the history.
CREATE INDEX operator_jobs_open ON operator_jobs (state, lease_until) WHERE state IN ('queued', 'running');
CREATE INDEX operator_jobs_tenant ON operator_jobs (environment, org_id, created_at);

-- A snapshot's rows in chunks of bounded size (snapshot_tables.data is ''
-- for a chunked snapshot; one written before this migration keeps its
-- table whole there, and is read as before).
CREATE TABLE snapshot_chunks (
    snapshot_id BIGINT NOT NULL REFERENCES snapshots (id),
    table_name  TEXT NOT NULL,
    seq         INTEGER NOT NULL,
    row_count   BIGINT NOT NULL,
    data        TEXT NOT NULL,
    PRIMARY KEY (snapshot_id, table_name, seq)
);

-- A snapshot being taken is saved under a name no snapshot can have
-- (NAME~JOB) with ready 0, and takes its name when complete.
ALTER TABLE snapshots ADD COLUMN ready INTEGER NOT NULL DEFAULT 1;
