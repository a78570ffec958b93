-- A retailer's reset, snapshot and restore take its orders' supplier
-- shipments with them (decisions §34), found by the retailer: the table had
-- indexes by supplier and by order only, so each of those statements read
-- every shipment of the database (issue 39; decisions §43). A plain CREATE
-- INDEX on PostgreSQL, as 0022 says why.
CREATE INDEX supplier_shipments_retailer ON supplier_shipments (retailer_org_id);
