-- Coalesced point reads of orders (decisions §24,
-- sqlstore/answer_batch.go). PostgreSQL only (nothing on SQLite): the
-- statement of a batch of point reads as a function whose plan is generic,
-- planned once per database connection. Sent as a statement of its own
-- (unnest of array parameters), PostgreSQL planned it again on every
-- execution: the generic plan's estimate (100 keys) always lost to the
-- custom plan's (the keys given), and planning was half the database's CPU
-- per read.
{{point_reads}}
