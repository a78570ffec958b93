-- The orders a poll window holds back (decisions §22, §52): those whose
-- writer's ticket is not below the window's bound, a few of the newest.
-- A list's total is the kept count less these, found here by an index
-- range instead of a count of every order of the organization. On SQLite
-- every ticket is 0 and the window holds nothing back.
CREATE INDEX orders_changed_xid ON orders (org_id, changed_xid);
