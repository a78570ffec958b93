-- An order may mix rows of the retailer's warehouse and rows its suppliers
-- ship (decisions §38). Its status then derives from its rows; the
-- warehouse part's own status (Created, Submitted, Delivered, Cancelled,
-- Error) is in the order's document and, for the warehouse engine's sweep,
-- here: '' for every order that is not mixed. Only the warehouse parts
-- the engine moves on are indexed, one partial index per status with the
-- very terms the sweep writes as literals (as orders_due_* of 0024), so
-- the sweep reads only what is due.
ALTER TABLE orders ADD COLUMN warehouse_status TEXT NOT NULL DEFAULT '';
CREATE INDEX orders_part_due_created ON orders (environment, ready_at, id) WHERE warehouse_status = 'Created' AND auto_submit = 1;
CREATE INDEX orders_part_due_submitted ON orders (environment, ready_at, id) WHERE warehouse_status = 'Submitted';
