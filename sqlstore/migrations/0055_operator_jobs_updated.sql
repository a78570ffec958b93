-- The newest change of any operator job (decisions §72): a boundary of a
-- page by number is trusted only while no reset or restore has changed
-- data since it was recorded, and every batch of such a job stamps its
-- job's updated_at in the batch's own transaction. One probe of this
-- index tells a page whether any did.
CREATE INDEX operator_jobs_updated ON operator_jobs (updated_at);
