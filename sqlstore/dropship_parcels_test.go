package sqlstore_test

import (
	"context"
	"strings"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
)

// decisions §51: the parcels area's dropshipping list reads a page from
// the index of its side, (supplier_org_id, id) or (retailer_org_id, id),
// in its order: no scan of the table, no sort of the organization's
// shipments, on both engines.
func TestDropshipListReadsItsSideIndex(t *testing.T) {
	for _, engine := range testdb.Engines {
		t.Run(engine, func(t *testing.T) {
			db := testdb.Open(t, engine, nil)
			c := testOrg(t, db, parcelgate.Production, "1234567-1")
			for _, asRetailer := range []bool{false, true} {
				want := "supplier_shipments_supplier_id"
				if asRetailer {
					want = "supplier_shipments_retailer_id"
				}
				plans, err := db.ExplainDropshipListForTest(context.Background(), c.Environment, c.OrgID, asRetailer)
				if err != nil {
					t.Fatal(err)
				}
				for _, plan := range plans {
					if !strings.Contains(plan, want) {
						t.Errorf("not read from %s:\n%s", want, plan)
					}
					for _, bad := range []string{"Seq Scan", "SCAN supplier_shipments\n", "TEMP B-TREE", "Sort"} {
						if strings.Contains(plan+"\n", bad) {
							t.Errorf("%s in the plan:\n%s", bad, plan)
						}
					}
				}
			}
		})
	}
}
