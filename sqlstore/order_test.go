package sqlstore_test

import (
	"context"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/pickup"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// Migration 0006: orders stored before it carry {businessId}-{own ID}; the
// backfill gives each its own ID, so the bare form real clients send since
// the provider's ID migration finds them, and a bare re-send is a retry.
func TestOwnIDBackfill(t *testing.T) {
	testdb.Each(t, nil, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		a := testOrg(t, db, parcelgate.Production, "1234567-1")
		b := testOrg(t, db, parcelgate.Production, "7654321-2")
		req := func(c *parcelgate.Caller, id string) *parcelgate.OrderRequest {
			r := &parcelgate.OrderRequest{ExternalID: id, DeliveryAddress: parcelgate.Address{Name: "N", Email: "n@example.com"}, ServiceCode: "2104",
				Rows: []parcelgate.OrderRowRequest{{ExternalProductID: "P1", ExternalWarehouseID: "WH1", Quantity: 1}}, AutoSubmit: true}
			if err := r.Validate(c.BusinessID, pickup.Network{}); err != nil {
				t.Fatal(err)
			}
			return r
		}
		oa, err := sqlstore.NewOrderService(db).CreateOrder(ctx, a, req(a, a.BusinessID+"-A1"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sqlstore.NewOrderService(db).CreateOrder(ctx, a, req(a, a.BusinessID+"-A2")); err != nil {
			t.Fatal(err)
		}
		ob, err := sqlstore.NewOrderService(db).CreateOrder(ctx, b, req(b, b.BusinessID+"-A1"))
		if err != nil {
			t.Fatal(err)
		}
		if err := db.RerunOwnIDBackfillForTest(ctx); err != nil {
			t.Fatal(err)
		}
		for c, want := range map[*parcelgate.Caller]string{a: oa.ID, b: ob.ID} {
			got, err := sqlstore.NewOrderService(db).FindOrder(ctx, c, "A1")
			if err != nil || got.ID != want {
				t.Fatalf("%s A1: %+v %v", c.BusinessID, got, err)
			}
		}
		again, err := sqlstore.NewOrderService(db).CreateOrder(ctx, a, req(a, "A1"))
		if err != nil || again.ID != oa.ID || again.ExternalID != a.BusinessID+"-A1" {
			t.Fatalf("bare re-send: %+v %v", again, err)
		}
	})
}
