package sqlstore_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// decisions §8, §73: a page read whose page boundaries' epoch moves while
// it reads (here as its first row is read, as a reset or restore
// committed elsewhere and seen by the fence refresh would move it) does
// not stand on the boundary it looked up before: it is read again, blind,
// its start found afresh in the rows of one snapshot. Page 0 of six orders
// records where page 1 starts (after the second order); the first order
// then moves to the end of the list. Read by that boundary, page 1 is the
// third and fourth orders, what a client following the next links reads;
// read across a move, it is the rows at its position now: the fourth and
// fifth.
func TestAPageReadAcrossAnEpochMoveIsReadAgain(t *testing.T) {
	testdb.Each(t, nil, func(t *testing.T, db *sqlstore.DB) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		c := testOrg(t, db, parcelgate.Production, "1234567-1")
		orders := sqlstore.NewOrderService(db)
		var ids []string
		for i := range 6 {
			o, err := orders.CreateOrder(ctx, c, testOrderRequest(t, c, fmt.Sprintf("E%d", i)))
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, o.ExternalID)
		}
		page := func(when string, n int, move bool, want []string) {
			t.Helper()
			got, err := db.OrderPageByNumberForTest(ctx, c.OrgID, n, 2, move)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s: page %d %v, want %v", when, n, got, want)
			}
		}
		page("first", 0, false, ids[:2])
		if _, _, err := orders.AddOrderComment(ctx, c, ids[0], parcelgate.OrderComment{ExternalID: "C1", Value: "to the end", Type: "note"}); err != nil {
			t.Fatal(err)
		}
		page("by the boundary page 0 recorded", 1, false, ids[2:4])
		page("across a move of the epoch", 1, true, ids[3:5])
		page("after the move", 1, false, ids[3:5])
	})
}
