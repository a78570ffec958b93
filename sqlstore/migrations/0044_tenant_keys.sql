-- A reset job (decisions §54) takes an organization's rows in batches in
-- id order, each batch after the last one's greatest id: on PostgreSQL a
-- batch that took "any n rows of the organization" by an index on the
-- organization alone walked past every row the batches before it had
-- deleted (dead index entries until a vacuum, each a heap fetch), so a
-- reset cost the square of the organization's rows. With the id in the
-- index, a batch starts after the last one and reads n entries. The
-- (org_id) indexes of migration 0022 become (org_id, id), which serve
-- everything they served; orders had no index on the organization alone.
CREATE INDEX tracking_moves_org_id ON tracking_moves (org_id, id);
DROP INDEX tracking_moves_org;
CREATE INDEX codes_org_id ON codes (org_id, id);
DROP INDEX codes_org;
CREATE INDEX orders_org_id ON orders (org_id, id);
