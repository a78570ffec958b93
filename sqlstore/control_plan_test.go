package sqlstore_test

import (
	"context"
	"strings"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
)

// issue 39: a reset, a snapshot and a restore of an organization read and
// delete each table of its data through an index that finds the
// organization's rows (tracking_moves.org_id, supplier_shipments'
// retailer, codes.org_id had none: each statement read the whole table,
// every other tenant's rows included), on both engines.
func TestTenantTablesAreReadByIndex(t *testing.T) {
	for _, engine := range testdb.Engines {
		t.Run(engine, func(t *testing.T) {
			db := testdb.Open(t, engine, nil)
			c := testOrg(t, db, parcelgate.Production, "1234567-1")
			plans, err := db.ExplainTenantTablesForTest(context.Background(), c.OrgID)
			if err != nil {
				t.Fatal(err)
			}
			for q, plan := range plans {
				table := tableOf(q)
				// SQLite: "SCAN t" (a whole table) where "SEARCH t USING
				// ... INDEX" is wanted; PostgreSQL: a Seq Scan, which
				// enable_seqscan = off leaves only when no index serves.
				for _, bad := range []string{"SCAN " + table + "\n", "SCAN " + table + " ", "Seq Scan on " + table + " "} {
					if strings.Contains(plan+"\n", bad) && !strings.Contains(plan, "SCAN "+table+" USING") {
						t.Errorf("%s reads the whole table:\n%s", q, plan)
					}
				}
			}
		})
	}
}

// tableOf is the table a SELECT, DELETE or UPDATE statement names first.
func tableOf(q string) string {
	f := strings.Fields(q)
	for i, w := range f {
		if (w == "FROM" || w == "UPDATE") && i+1 < len(f) {
			return f[i+1]
		}
	}
	return ""
}
