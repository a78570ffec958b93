package sqlstore_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// issue 39: creating an order for a merchant with a big warehouse read
// the merchant's whole catalog on SQLite (balances_catalog, to give the
// statement's ORDER BY id), analyzed or not. The stock step reads each
// row's balance by product and catalog (decisions §55).
func TestOrderStockReadsBalancesByProduct(t *testing.T) {
	for _, engine := range testdb.Engines {
		t.Run(engine, func(t *testing.T) {
			ctx := context.Background()
			db := testdb.Open(t, engine, nil)
			c := testOrg(t, db, parcelgate.Production, "1234567-1")
			rows := []parcelgate.OrderRow{{ExternalProductID: "P1", ExternalWarehouseID: "WH1", Quantity: 1}, {ExternalProductID: "1234567-1-P2", ExternalWarehouseID: "WH1", Quantity: 1}}
			for _, stage := range []string{"empty, never analyzed", "20,000 balances in the warehouse, analyzed", "analyzed, kept as the store keeps statistics"} {
				if engine == "postgres" && strings.HasPrefix(stage, "empty") {
					continue // PostgreSQL plans an empty table by its statistics' default guesses
				}
				if strings.HasPrefix(stage, "20,000") {
					if err := db.SeedWarehouseForTest(ctx, c.Environment, c.OrgID, 20_000); err != nil {
						t.Fatal(err)
					}
				}
				if strings.HasPrefix(stage, "analyzed, kept") {
					// decisions §78: sqlite_stat1 without the samples
					// still gives the product index.
					if err := db.OptimizeForTest(ctx); err != nil {
						t.Fatal(err)
					}
				}
				plan, err := db.ExplainOrderStockForTest(ctx, c.OrgID, c.BusinessID, rows)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(plan, "balances_product_external") || strings.Contains(plan, "balances_catalog") || strings.Contains(plan, "SCAN b") {
					t.Errorf("%s: the stock step does not read balances by product:\n%s", stage, plan)
				}
			}
		})
	}
}

// decisions §55: the automatic supplier's sweep reads a supplier's due
// open shipments from their partial index, in its order: nothing else.
func TestDueShipmentsReadOnlyDueOnes(t *testing.T) {
	for _, engine := range testdb.Engines {
		t.Run(engine, func(t *testing.T) {
			ctx := context.Background()
			db := testdb.Open(t, engine, nil)
			c := testOrg(t, db, parcelgate.Production, "1234567-1")
			for _, generic := range []bool{false, true} {
				if generic && engine != "postgres" {
					continue
				}
				plan, err := db.ExplainDueShipmentsForTest(ctx, c.OrgID, parcelgate.Production, time.Now(), generic)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(plan, "supplier_shipments_auto") {
					t.Errorf("generic %v: the sweep does not read supplier_shipments_auto:\n%s", generic, plan)
				}
				for _, bad := range []string{"TEMP B-TREE", "SCAN ", "Seq Scan", "Sort"} {
					if strings.Contains(plan, bad) {
						t.Errorf("generic %v: the sweep reads past its index (%s):\n%s", generic, bad, plan)
					}
				}
				// decisions §70: when the next shipment is due, from the
				// same index, per supplier that switched it on (the
				// auto_suppliers rows, a handful, are read whole).
				plan, err = db.ExplainNextDueShipmentForTest(ctx, parcelgate.Production, time.Now(), generic)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(plan, "supplier_shipments_auto") {
					t.Errorf("generic %v: the next-due probe does not read supplier_shipments_auto:\n%s", generic, plan)
				}
				for _, bad := range []string{"TEMP B-TREE", "SCAN s", "Seq Scan on supplier_shipments", "Sort"} {
					if strings.Contains(plan, bad) {
						t.Errorf("generic %v: the next-due probe reads past its index (%s):\n%s", generic, bad, plan)
					}
				}
			}
		})
	}
}

// decisions §55: a SQLite database is analyzed when the store opens it
// (PRAGMA optimize=0x10002 once migrated), so its planner never plans a
// grown database without statistics, as issue 39's never-analyzed one.
func TestSQLiteStatisticsAreKeptOnOpen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "stats.db")
	db, err := sqlstore.Open(ctx, "sqlite:"+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	c := testOrg(t, db, parcelgate.Production, "1234567-1")
	doc, _ := json.Marshal(sampleOrder())
	if err := db.SeedOrdersForTest(ctx, c.Environment, c.OrgID, c.BusinessID, 5000, time.Now(), string(doc)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	// As a database the store never analyzed: no statistics at all.
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`DROP TABLE IF EXISTS sqlite_stat1`); err != nil {
		t.Fatal(err)
	}
	raw.Close()

	db, err = sqlstore.Open(ctx, "sqlite:"+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRowForTest(ctx, `SELECT COUNT(*) FROM sqlite_stat1 WHERE tbl = 'orders'`).Scan(&n); err != nil || n == 0 {
		t.Fatalf("the reopened database's orders have no statistics (%d rows, %v)", n, err)
	}
}
