package sqlstore_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// decisions §37: every filter of the Orders V3 list is served by an index
// that also gives the list's order (the organization's orders by stamp),
// on both engines: the page is read in index order and stops at its size
// (no sort of the organization's orders), and a from/to window is tested
// in the index, never on the orders' rows. Neither the page nor its count
// scans the table, and SQLite never sorts; PostgreSQL sorts only what an
// index range of the filter found, when it expects few.
func TestOrderListFiltersUseTheListIndex(t *testing.T) {
	for _, engine := range testdb.Engines {
		t.Run(engine, func(t *testing.T) {
			ctx := context.Background()
			db := testdb.Open(t, engine, nil)
			c := testOrg(t, db, parcelgate.Production, "1234567-1")
			doc, _ := json.Marshal(sampleOrder())
			base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			if err := db.SeedOrdersForTest(ctx, c.Environment, c.OrgID, c.BusinessID, 20_000, base, string(doc)); err != nil {
				t.Fatal(err)
			}
			// Another merchant's orders, so that the organization's are a
			// part of the table, as in production.
			other := testOrg(t, db, parcelgate.Test, "7654321-2")
			if err := db.SeedOrdersForTest(ctx, other.Environment, other.OrgID, other.BusinessID, 100_000, base, string(doc)); err != nil {
				t.Fatal(err)
			}
			for _, org := range []int64{other.OrgID, c.OrgID} {
				if err := db.DateSeededOrdersForTest(ctx, org); err != nil {
					t.Fatal(err)
				}
			}
			day := base.Add(24 * time.Hour)
			for name, q := range map[string]parcelgate.OrderQuery{
				"from":        {OrderedFrom: day},
				"from+to":     {OrderedFrom: day, OrderedTo: day.Add(time.Hour)},
				"status":      {Statuses: []parcelgate.OrderStatus{parcelgate.OrderDelivered}},
				"partial":     {Statuses: []parcelgate.OrderStatus{parcelgate.OrderPartiallyDelivered}},
				"status+from": {Statuses: []parcelgate.OrderStatus{parcelgate.OrderDelivered}, OrderedFrom: day},
				"statuses":    {Statuses: []parcelgate.OrderStatus{parcelgate.OrderCreated, parcelgate.OrderSubmitted}},
				"sales":       {DocumentType: parcelgate.DocumentSalesOrder},
				"purchase":    {DocumentType: parcelgate.DocumentPurchaseOrder},
				"updated+to":  {UpdatedFrom: base, UpdatedTo: day, OrderedTo: day},
			} {
				page, count, err := db.ExplainOrderListForTest(ctx, c, q)
				if err != nil {
					t.Fatal(err)
				}
				for what, plan := range map[string]string{"page": page, "count": count} {
					if q.DocumentType == parcelgate.DocumentPurchaseOrder {
						// Nothing to read: PostgreSQL answers from a false
						// one-time filter, SQLite from the list's index.
						continue
					}
					if what == "page" && !strings.Contains(plan, "orders_dated") && !strings.Contains(plan, "orders_status_dated") {
						t.Errorf("%s: the %s is not read from the list's indexes:\n%s", name, what, plan)
					}
					if strings.Contains(plan, "Seq Scan") || strings.Contains(plan, "SCAN o") || strings.Contains(plan, "TEMP B-TREE") {
						t.Errorf("%s: the %s reads or sorts the orders:\n%s", name, what, plan)
					}
				}
			}
		})
	}
}

// provider Orders V3, decisions §37: a row by productEANCode finds its
// product with an index seek per supplier and EAN (products_supplier_ean)
// and per ID (the products' unique key), from the retailer's catalogs:
// never a scan of a merchant's products, nor another tenant's.
func TestRowProductsByEANSeekByIndex(t *testing.T) {
	for _, engine := range testdb.Engines {
		t.Run(engine, func(t *testing.T) {
			ctx := context.Background()
			db := testdb.Open(t, engine, nil)
			c := testOrg(t, db, parcelgate.Production, "1234567-1")
			other := testOrg(t, db, parcelgate.Production, "7654321-2")
			for _, org := range []int64{c.OrgID, other.OrgID} {
				if err := db.SeedProductsForTest(ctx, parcelgate.Production, org, 20_000); err != nil {
					t.Fatal(err)
				}
			}
			plan, err := db.ExplainRowProductsForTest(ctx, c.OrgID, parcelgate.RowProductLookup{Catalogs: []string{"WH1"}, EANs: []string{"64000017"}, IDs: []string{"P17", "1234567-1-P17"}})
			if err != nil {
				t.Fatal(err)
			}
			for _, index := range []string{"products_supplier_ean"} {
				if !strings.Contains(plan, index) {
					t.Errorf("the plan does not seek by %s:\n%s", index, plan)
				}
			}
			if strings.Contains(plan, "Seq Scan on products") || strings.Contains(plan, "SCAN p") {
				t.Errorf("the plan reads a merchant's products:\n%s", plan)
			}
			t.Logf("%s", plan)
		})
	}
}

// decisions §37: migration 0027 copies each stored order's orderDate out of
// its document, on both engines, so from/to find the orders stored before
// it; and every write keeps the column to the microsecond.
func TestOrderDateBackfill(t *testing.T) {
	for _, engine := range testdb.Engines {
		t.Run(engine, func(t *testing.T) {
			ctx := context.Background()
			db := testdb.Open(t, engine, nil)
			c := testOrg(t, db, parcelgate.Production, "1234567-1")
			orders := sqlstore.NewOrderService(db)
			dates := map[string]string{"A": "2021-09-07T13:01:22.282Z", "B": "2021-09-08T10:00:00.5+03:00", "C": "2021-09-09T00:00:00.123456Z"}
			ids := map[string]string{}
			for own, date := range dates {
				req := testOrderRequest(t, c, own)
				req.References = nil
				req.OrderDate, _ = time.Parse(time.RFC3339Nano, date)
				o, err := orders.CreateOrder(ctx, c, req)
				if err != nil {
					t.Fatal(err)
				}
				ids[own] = o.ID
			}
			written := map[string]int64{}
			for own, id := range ids {
				us, err := db.OrderDateColumnForTest(ctx, c.OrgID, id)
				want, _ := time.Parse(time.RFC3339Nano, dates[own])
				if err != nil || us != want.UnixMicro() {
					t.Fatalf("%s: order_date %d, %v, want %d", own, us, err, want.UnixMicro())
				}
				written[own] = us
			}
			if err := db.RerunOrderDateBackfillForTest(ctx, c.OrgID); err != nil {
				t.Fatal(err)
			}
			for own, id := range ids {
				us, err := db.OrderDateColumnForTest(ctx, c.OrgID, id)
				// SQLite's date functions read the document to the millisecond.
				if d := us - written[own]; err != nil || d < -500 || d > 500 {
					t.Errorf("%s: backfilled %d, written %d (%v)", own, us, written[own], err)
				}
			}
			from, _ := time.Parse(time.RFC3339Nano, dates["A"])
			to, _ := time.Parse(time.RFC3339Nano, "2021-09-09T00:00:00Z")
			page, err := orders.ListOrders(ctx, c, parcelgate.OrderQuery{OrderedFrom: from, OrderedTo: to}, parcelgate.PageRequest{Size: 10})
			if err != nil || page.Total != 2 || len(page.Items) != 2 {
				t.Fatalf("from/to after the backfill: %d %v", page.Total, err)
			}
		})
	}
}
