-- The warehouse engine's sweep (DueOrders, decisions §43), one partial
-- index per status it moves orders out of, holding only the orders that
-- can become due: Created with autoSubmit, and Submitted. Each predicate
-- is an equality that the sweep's statement writes out as a literal, which
-- both engines can prove implies it. orders_open (status, ready_at) WHERE
-- status IN (...) was never used: SQLite proves a partial index only from
-- terms equal to its predicate's (an IN is not taken apart), PostgreSQL
-- not from a bound parameter, and the sweep bound the status — so every
-- sweep, twice a second, read and sorted every order of the database. The
-- environment leads and the sweep's order (ready_at, id) follows, so an
-- environment with nothing due reads no row.
DROP INDEX orders_open;
CREATE INDEX orders_due_created ON orders (environment, ready_at, id) WHERE status = 'Created' AND auto_submit = 1;
CREATE INDEX orders_due_submitted ON orders (environment, ready_at, id) WHERE status = 'Submitted';
