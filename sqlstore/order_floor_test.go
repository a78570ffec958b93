package sqlstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// decisions §22, §63, §69: while the poll window holds back some of a
// merchant's orders (a writer of the environment still running, a later
// order committed), a list by order dates counts its total afresh, less
// the held-back orders it selects, and its page holds neither them nor
// anything else than the window's orders; once the writer ends, the
// total and the page count them again.
func TestOrderDateTotalsLeaveHeldBackOrdersOut(t *testing.T) {
	testdb.Each(t, nil, func(t *testing.T, db *sqlstore.DB) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		c := testOrg(t, db, parcelgate.Production, "1234567-1")
		other := testOrg(t, db, parcelgate.Production, "0737546-2")
		orders := sqlstore.NewOrderService(db)
		day := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
		create := func(own string, date time.Time) {
			t.Helper()
			req := testOrderRequest(t, c, own)
			req.References = nil
			req.OrderDate = date
			if _, err := orders.CreateOrder(ctx, c, req); err != nil {
				t.Fatal(err)
			}
		}
		create("A", day)
		create("B", day.AddDate(0, 0, -3))
		create("C", day.Add(time.Hour))
		q := parcelgate.OrderQuery{OrderedFrom: day, OrderedTo: day.AddDate(0, 0, 1)}
		list := func(when string, want int) {
			t.Helper()
			p, err := orders.ListOrders(ctx, c, q, parcelgate.PageRequest{Size: 10})
			if err != nil {
				t.Fatal(err)
			}
			if p.Total != int64(want) || len(p.Items) != want {
				t.Fatalf("%s: total %d, %d orders; want %d", when, p.Total, len(p.Items), want)
			}
		}
		list("before", 2)
		if db.Dialect() != "postgres" {
			// One writer at a time, and a window that holds nothing back.
			create("D", day.Add(2*time.Hour))
			list("after a new order", 3)
			return
		}
		// Another organization's writer holds the environment's window
		// open while this merchant's new orders commit.
		_, release, err := db.HoldOrgStampForTest(ctx, parcelgate.Production, other.OrgID)
		if err != nil {
			t.Fatal(err)
		}
		create("D", day.Add(2*time.Hour))
		create("E", day.AddDate(0, 0, -5))
		list("while the window holds D back", 2)
		if err := release(); err != nil {
			t.Fatal(err)
		}
		list("after the writer ended", 3)
	})
}
