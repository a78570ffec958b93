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

// Finding one order by its service ID or its externalId (spec
// 4.3 GET /orders/{id}, either form) is an index seek for each ID on both
// engines, whatever the number of the merchant's orders: the plan never
// reads the organization's orders one by one.
func TestOrderLookupSeeksByIndex(t *testing.T) {
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
			plan, err := db.ExplainOrderLookupForTest(ctx, c.OrgID, c.BusinessID, "S17")
			if err != nil {
				t.Fatal(err)
			}
			for _, index := range []string{"orders_org_order_id", "orders_own_id"} {
				if !strings.Contains(plan, index) {
					t.Errorf("the plan does not seek by %s:\n%s", index, plan)
				}
			}
			if strings.Contains(plan, "(org_id=?)") || strings.Contains(plan, "Seq Scan") {
				t.Errorf("the plan reads the organization's orders:\n%s", plan)
			}
			for _, id := range []string{"SEED17", "S17", "1234567-1-S17"} {
				// Seeded order n is stamped n µs after base.
				if o, err := sqlstore.NewOrderService(db).FindOrder(ctx, c, id); err != nil || !o.Metadata.InsertDate.Equal(base.Add(17*time.Microsecond)) {
					t.Errorf("FindOrder(%s): %v, %v", id, o.Metadata.InsertDate, err)
				}
			}
			other := testOrg(t, db, parcelgate.Production, "7654321-2")
			if _, err := sqlstore.NewOrderService(db).FindOrder(ctx, other, "SEED17"); parcelgate.ErrorCode(err) != parcelgate.ENOTFOUND {
				t.Errorf("another organization found the order: %v", err)
			}
		})
	}
}
