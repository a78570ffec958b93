package sqlstore

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Every connection of the reader pool held by a read transaction, and each
// transaction meeting a statement not yet prepared: preparing it on the
// pool would wait for a connection none of them frees. This is the race of
// four balance readers with a supplier ending and re-publishing products,
// which hung on SQLite's four reader connections (and answered 503 at the
// request deadline). Each read must run on its own transaction instead.
func TestReadTransactionsNeverWaitOnThePoolToPrepare(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	db, err := openSQLite(ctx, filepath.Join(t.TempDir(), "p.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if db.readStmts.pool == nil {
		t.Skip("this build's SQLite dialect does not prepare statements")
	}
	n := db.read.Stats().MaxOpenConnections
	var inside, wg sync.WaitGroup
	inside.Add(n)
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			errs <- db.inReadTx(ctx, func(ctx context.Context) error {
				// Every connection is now a transaction's.
				inside.Done()
				inside.Wait()
				qctx, qcancel := context.WithTimeout(ctx, 5*time.Second)
				defer qcancel()
				var got int
				if err := db.queryRow(qctx, fmt.Sprintf("SELECT %d + ?", i), 1).Scan(&got); err != nil {
					return err
				}
				if got != i+1 {
					return fmt.Errorf("read %d answered %d", i, got)
				}
				return nil
			})
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("a read inside a read transaction of a full pool: %v", err)
		}
	}
	// What they met unprepared is prepared before the next read
	// transaction begins.
	if err := db.inReadTx(ctx, func(context.Context) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if st, _ := db.readStmts.lookup("SELECT 0 + ?"); st == nil {
		t.Error("a statement met inside a read transaction was not prepared afterwards")
	}
}
