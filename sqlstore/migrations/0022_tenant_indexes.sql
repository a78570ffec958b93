-- A reset, a snapshot and a restore of an organization (control_reset.go's
-- tenantTables) read and delete its rows of each table by the
-- organization: tracking moves and codes had no index that finds them (the
-- codes' holder index holds only unreleased codes), so each of those
-- statements read the whole table, every other tenant's rows included
-- (issue 39; decisions §43).
--
-- On PostgreSQL these are plain CREATE INDEX: the migration runner applies
-- each migration in a transaction, where CREATE INDEX CONCURRENTLY cannot
-- run, so the build holds off writes to the table while it lasts.
CREATE INDEX tracking_moves_org ON tracking_moves (org_id);
CREATE INDEX codes_org ON codes (org_id);
