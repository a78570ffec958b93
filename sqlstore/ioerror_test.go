package sqlstore_test

import (
	"context"
	"fmt"
	"testing"

	sqlite3 "modernc.org/sqlite/lib"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// issue 39: a transient I/O error of SQLite (SQLITE_IOERR and its family;
// what a process outside the store could cause was SQLITE_IOERR_IN_PAGE,
// a fault on the mapped -shm file) is tried again when the write had not
// begun, and is otherwise the database being unavailable — answered 503
// with Retry-After by the API and the console, never 500. The faults are
// SQLite's own, injected at its WAL-index sites (modernc's SehInject).
func TestSQLiteIOErrorIsRetriedOrUnavailable(t *testing.T) {
	ctx := context.Background()
	db, _ := testdb.OpenDSN(t, "sqlite", nil)
	c := testOrg(t, db, parcelgate.Production, "1234567-1")
	orders := sqlstore.NewOrderService(db)
	t.Cleanup(func() { sqlite3.SehInject(0) })

	// A fault as the write transaction begins: tried again, done.
	sqlite3.SehInject(1)
	if err := db.WriteTxForTest(ctx, func(ctx context.Context) error { return nil }); err != nil {
		t.Fatalf("a write whose begin met an I/O error: %v", err)
	}
	if sqlite3.SehPending() != 0 {
		t.Fatal("the injected fault did not fire")
	}

	// A fault at each later site of an order's create: it is created, or
	// the error is the database being unavailable.
	fired, failed := 0, 0
	for n := int32(1); n <= 12; n++ {
		sqlite3.SehInject(n)
		_, err := orders.CreateOrder(ctx, c, testOrderRequest(t, c, fmt.Sprintf("F%d", n)))
		if sqlite3.SehPending() == 0 {
			fired++
		}
		sqlite3.SehInject(0)
		if err != nil {
			failed++
			if !db.Unavailable(err) {
				t.Errorf("fault at site %d: %v is not the database being unavailable (a 500)", n, err)
			}
			t.Logf("fault at site %d: %v", n, err)
		}
	}
	if fired == 0 {
		t.Fatal("no injected fault fired")
	}
	t.Logf("%d faults fired, %d creates failed as unavailable", fired, failed)
	// The store goes on.
	if _, err := orders.CreateOrder(ctx, c, testOrderRequest(t, c, "after")); err != nil {
		t.Fatal(err)
	}
}
