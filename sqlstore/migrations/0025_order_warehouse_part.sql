-- An order may mix rows of the retailer's warehouse and rows its suppliers
-- ship (decisions §38). Its status then derives from its rows; the
-- warehouse part's own status (Created, Submitted, Delivered, Cancelled,
-- Error) is in the order's document and, for the warehouse engine's sweep,
-- here: '' for every order that is not mixed. Only open warehouse parts
-- are indexed, as orders_open indexes open orders.
ALTER TABLE orders ADD COLUMN warehouse_status TEXT NOT NULL DEFAULT '';
CREATE INDEX orders_warehouse_open ON orders (warehouse_status, ready_at) WHERE warehouse_status IN ('Created', 'Submitted');
