package sqlstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// decisions §52: the kept counts follow every write of the counted tables,
// whoever makes it: here set-based SQL as psql or a bulk load would run
// it (inserts of many rows in one statement, status moves of many rows,
// deletes), not the services. After each step every kept count equals a
// fresh count of the rows, and Tallies answers each caller only its scope.
func TestKeptCountsFollowEveryWrite(t *testing.T) {
	testdb.Each(t, nil, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		exec := rawExec(t, db)
		check := func(when string) {
			t.Helper()
			requireKeptExact(t, db, when, nil)
		}
		orgs := sqlstore.NewOrganizationService(db)
		op := parcelgate.AllOperator()
		big := &parcelgate.Organization{Environment: parcelgate.Production, BusinessID: "1234567-1", Name: "Big"}
		if err := orgs.CreateOrganization(ctx, op, big); err != nil {
			t.Fatal(err)
		}
		small := &parcelgate.Organization{Environment: parcelgate.Production, BusinessID: "0737546-2", Name: "Small"}
		if err := orgs.CreateOrganization(ctx, op, small); err != nil {
			t.Fatal(err)
		}
		other := &parcelgate.Organization{Environment: parcelgate.Test, BusinessID: "1234567-1", Name: "Big's test"}
		if err := orgs.CreateOrganization(ctx, op, other); err != nil {
			t.Fatal(err)
		}
		check("organizations")
		base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
		if err := db.SeedOrdersForTest(ctx, parcelgate.Production, big.ID, big.BusinessID, 500, base, `{}`); err != nil {
			t.Fatal(err)
		}
		for _, st := range []string{"Created", "Submitted", "Delivered"} {
			exec(`INSERT INTO orders (order_id, environment, org_id, external_id, own_id, status, status_at, auto_submit, content_hash, doc, inserted_at, updated_at, ready_at) VALUES (?, 'production', ?, ?, ?, ?, 1, 0, 'x', '{}', 1, 1, 1)`,
				"SMALL"+st, small.ID, small.BusinessID+"-"+st, st, st)
		}
		check("orders seeded")
		// decisions §63: orders by warehouse, once per order and warehouse
		// however many rows name it; rows replaced as a re-send does.
		exec(`INSERT INTO order_rows (order_pk, line, product_external_id, warehouse_external_id, quantity) SELECT id, 0, 'P', 'WH1', 1 FROM orders WHERE org_id = ?`, big.ID)
		exec(`INSERT INTO order_rows (order_pk, line, product_external_id, warehouse_external_id, quantity) SELECT id, 1, 'P', CASE WHEN id % 4 = 0 THEN 'WH1' ELSE 'SHOP' END, 1 FROM orders WHERE org_id = ? AND id % 2 = 0`, big.ID)
		exec(`INSERT INTO order_rows (order_pk, line, product_external_id, warehouse_external_id, quantity) SELECT id, 0, 'P', 'WH1', 1 FROM orders WHERE org_id = ?`, small.ID)
		check("order rows")
		exec(`DELETE FROM order_rows WHERE order_pk IN (SELECT id FROM orders WHERE org_id = ? AND id % 6 = 0) AND line = 1`, big.ID)
		exec(`DELETE FROM order_rows WHERE order_pk IN (SELECT id FROM orders WHERE org_id = ? AND id % 5 = 0) AND line = 0`, big.ID)
		exec(`INSERT INTO order_rows (order_pk, line, product_external_id, warehouse_external_id, quantity) SELECT id, 2, 'P', 'WH2', 1 FROM orders WHERE org_id = ? AND id % 5 = 0`, big.ID)
		check("order rows replaced")
		exec(`UPDATE orders SET status = 'Delivered' WHERE org_id = ? AND id % 3 = 0`, big.ID)
		exec(`UPDATE orders SET status = 'Cancelled' WHERE org_id = ? AND id % 7 = 0`, big.ID)
		exec(`UPDATE orders SET updated_at = updated_at + 1 WHERE org_id = ?`, big.ID)
		check("status moves")
		exec(`INSERT INTO products (environment, supplier_org_id, external_id, status, document, created_at, modified_at) VALUES ('production', ?, 'A', 'ACTIVE', '{}', 1, 1), ('production', ?, 'B', 'ACTIVE', '{}', 1, 1), ('production', ?, 'C', 'ACTIVE', '{}', 1, 1)`, big.ID, big.ID, small.ID)
		exec(`UPDATE products SET status = 'EOS' WHERE supplier_org_id = ? AND external_id = 'A'`, big.ID)
		// decisions §69: a supplier's ACTIVE products with a live balance,
		// by catalog: balances inserted many to a statement (live and
		// tombstones), removed and revived, products moved out of ACTIVE
		// and back, balances deleted.
		exec(`INSERT INTO catalogs (environment, retailer_org_id, external_id, name, catalog_type, created_at) VALUES ('production', ?, 'WH1', 'W', 'warehouse', 1), ('production', ?, 'WH1', 'W', 'warehouse', 1), ('production', ?, 'SHOP', 'S', 'dropship', 1)`, big.ID, small.ID, small.ID)
		exec(`INSERT INTO products (environment, supplier_org_id, external_id, status, document, created_at, modified_at) VALUES ('production', ?, 'D', 'ACTIVE', '{}', 1, 1), ('production', ?, 'E', 'ACTIVE', '{}', 1, 1)`, big.ID, big.ID)
		exec(`INSERT INTO balances (product_id, catalog_id, supplier_org_id, retailer_org_id, product_external_id, modified_at, removed_at)
			SELECT p.id, c.id, p.supplier_org_id, c.retailer_org_id, p.external_id, 1, CASE WHEN p.external_id = 'E' AND c.external_id = 'SHOP' THEN 5 ELSE 0 END
			FROM products p CROSS JOIN catalogs c WHERE p.supplier_org_id IN (?, ?)`, big.ID, small.ID)
		check("balances")
		exec(`UPDATE balances SET removed_at = 9, modified_at = 2 WHERE product_external_id IN ('B', 'D') AND catalog_id IN (SELECT id FROM catalogs WHERE external_id = 'WH1')`)
		exec(`UPDATE balances SET removed_at = 0, modified_at = 3 WHERE product_external_id = 'E'`)
		exec(`UPDATE balances SET quantity = 4, modified_at = 4`)
		check("balances removed and revived")
		exec(`UPDATE products SET status = 'EOS' WHERE supplier_org_id = ? AND external_id IN ('B', 'E')`, big.ID)
		exec(`UPDATE products SET status = 'ACTIVE' WHERE supplier_org_id = ? AND external_id IN ('A', 'B')`, big.ID)
		exec(`UPDATE products SET modified_at = 5`)
		check("products moved")
		exec(`DELETE FROM balances WHERE catalog_id IN (SELECT id FROM catalogs WHERE retailer_org_id = ?) AND product_external_id <> 'C'`, small.ID)
		check("balances deleted")
		exec(`DELETE FROM balances WHERE product_id IN (SELECT id FROM products WHERE supplier_org_id = ?)`, small.ID)
		exec(`INSERT INTO shipments (org_id, environment, tracking_number, service_code, sender, receiver, status, created_at) VALUES (?, 'production', 'T1', '2103', '{}', '{}', 'Created', 1), (?, 'production', 'T2', '2103', '{}', '{}', 'Created', 1)`, big.ID, big.ID)
		exec(`UPDATE shipments SET status = 'Delivered' WHERE org_id = ? AND tracking_number = 'T1'`, big.ID)
		check("products and shipments")
		// decisions §63: a supplier's dropshipping shipments by status.
		exec(`INSERT INTO supplier_shipments (shipment_id, environment, supplier_org_id, retailer_org_id, order_pk, status, doc, inserted_at, updated_at, ready_at)
			SELECT 'S' || id, 'production', ?, org_id, id, CASE WHEN id % 2 = 0 THEN 'Created' ELSE 'Shipping' END, '{}', 1, 1, 1 FROM orders WHERE org_id = ? AND id % 5 = 0`, small.ID, big.ID)
		exec(`UPDATE supplier_shipments SET status = 'Delivered' WHERE supplier_org_id = ? AND id % 3 = 0`, small.ID)
		exec(`UPDATE supplier_shipments SET updated_at = updated_at + 1 WHERE supplier_org_id = ?`, small.ID)
		check("supplier shipments")
		exec(`DELETE FROM supplier_shipments WHERE supplier_org_id = ? AND id % 2 = 1`, small.ID)
		check("supplier shipments deleted")
		exec(`DELETE FROM supplier_shipments WHERE order_pk IN (SELECT id FROM orders WHERE org_id = ? AND id % 2 = 0)`, big.ID)
		exec(`DELETE FROM order_rows WHERE order_pk IN (SELECT id FROM orders WHERE org_id = ? AND id % 2 = 0)`, big.ID)
		exec(`DELETE FROM orders WHERE org_id = ? AND id % 2 = 0`, big.ID)
		exec(`DELETE FROM shipments WHERE org_id = ? AND tracking_number = 'T2'`, big.ID)
		exec(`DELETE FROM products WHERE supplier_org_id = ?`, small.ID)
		check("deletes")

		tallies := sqlstore.NewTallyService(db)
		sum := func(c *parcelgate.Caller, q parcelgate.TallyQuery, org int64, statuses ...string) int64 {
			t.Helper()
			ts, err := tallies.Tallies(ctx, c, q)
			if err != nil {
				t.Fatal(err)
			}
			return parcelgate.TallySum(ts, org, statuses...)
		}
		smallCaller := &parcelgate.Caller{Kind: parcelgate.KindOperator, OrgID: small.ID, Environment: parcelgate.Production, Scope: parcelgate.ScopeOrganization}
		if n := sum(smallCaller, parcelgate.TallyQuery{Kind: parcelgate.TallyOrders}, small.ID); n != 3 {
			t.Errorf("small's orders: %d, want 3", n)
		}
		// Another organization's counts answer as if it had no rows.
		if n := sum(smallCaller, parcelgate.TallyQuery{Kind: parcelgate.TallyOrders, OrgIDs: []int64{big.ID}}, big.ID); n != 0 {
			t.Errorf("small reads big's orders: %d", n)
		}
		env := parcelgate.EnvironmentOperator(parcelgate.Production)
		if n := sum(env, parcelgate.TallyQuery{Kind: parcelgate.TallyOrganizations}, 0); n != 2 {
			t.Errorf("production organizations: %d, want 2", n)
		}
		if n := sum(env, parcelgate.TallyQuery{Kind: parcelgate.TallyOrders, OrgIDs: []int64{other.ID}}, other.ID); n != 0 {
			t.Errorf("the production operator reads a test organization's orders: %d", n)
		}
		if n := sum(env, parcelgate.TallyQuery{Kind: parcelgate.TallyProducts, OrgIDs: []int64{big.ID}}, big.ID, "ACTIVE"); n != 3 {
			t.Errorf("big's ACTIVE products: %d, want 3 (A, B, D)", n)
		}
		if n := sum(op, parcelgate.TallyQuery{Kind: parcelgate.TallyOrganizations}, 0); n != 3 {
			t.Errorf("organizations of every environment: %d, want 3", n)
		}
		if _, err := tallies.Tallies(ctx, &parcelgate.Caller{Kind: parcelgate.KindEcom, OrgID: small.ID, Environment: parcelgate.Production, Scope: parcelgate.ScopeOrganization, Roles: []parcelgate.Role{parcelgate.RoleRetailer}}, parcelgate.TallyQuery{Kind: parcelgate.TallyOrganizations}); parcelgate.ErrorCode(err) != parcelgate.EFORBIDDEN {
			t.Errorf("a retailer counts the organizations: %v", err)
		}
	})
}
