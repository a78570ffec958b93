-- The newest stamp of the operator's resets and restores (decisions §73):
-- every batch of one stamps its job's updated_at in the batch's own
-- transaction, and each instance's fence refresh (about once a second)
-- reads the newest, so a reset or restore run on another instance moves
-- this instance's page boundaries' epoch. One probe of this index, not a
-- scan of every job kept.
CREATE INDEX operator_jobs_updated ON operator_jobs (updated_at);
