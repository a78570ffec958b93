package sqlstore

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate/sqlstore/internal/fastpath"
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
			errs <- db.primary().readTx(ctx, func(r reader) error {
				// Every connection is now a transaction's.
				inside.Done()
				inside.Wait()
				qctx, qcancel := context.WithTimeout(ctx, 5*time.Second)
				defer qcancel()
				var got int
				if err := r.QueryRow(qctx, fmt.Sprintf("SELECT %d + ?", i), 1).Scan(&got); err != nil {
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
	if err := db.primary().readTx(ctx, func(reader) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if st, _ := db.readStmts.lookup("SELECT 0 + ?"); st == nil {
		t.Error("a statement met inside a read transaction was not prepared afterwards")
	}
}

// A reader inside a read transaction joins it, so everything a page hands
// its reader to (the count, the start, the rows, the rows' details) reads
// in the page's snapshot; the primary's reader is in none.
func TestReadTxJoinsTheReadersTransaction(t *testing.T) {
	ctx := context.Background()
	db, err := openMemory()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if p := db.primary(); p.tx != nil || p.replica != nil {
		t.Fatalf("the primary's reader is %+v", p)
	}
	err = db.primary().readTx(ctx, func(outer reader) error {
		if outer.tx == nil {
			t.Error("readTx handed a reader outside a transaction")
		}
		return outer.readTx(ctx, func(inner reader) error {
			if inner.tx != outer.tx {
				t.Error("a nested readTx began a second transaction")
			}
			var n int
			return inner.QueryRow(ctx, "SELECT 1").Scan(&n)
		})
	})
	if err != nil {
		t.Fatal(err)
	}
}

// decisions §73: a replica may still show a tenant's rows of before an
// operator's reset or restore for as long as it may lag, so a page read
// there takes the new epoch over old rows. For that long after a move a
// page read on a replica neither uses nor records a boundary (the epoch it
// takes is fastpath.Blind); on the primary, and on a replica once the
// window has passed, it takes the epoch as before.
func TestPageReadsOnAReplicaAreBlindWhileItMayLagAMove(t *testing.T) {
	db := &DB{replicas: &replicaSet{maxLag: time.Millisecond}}
	onReplica, onPrimary := reader{db: db, replica: &replica{}}, reader{db: db}
	if onReplica.pageEpoch() == fastpath.Blind {
		t.Fatal("before any move, a replica's page read is blind")
	}
	db.pages.Moved()
	if got := onReplica.pageEpoch(); got != fastpath.Blind {
		t.Fatalf("just after a move, a replica's page read takes epoch %d, want blind", got)
	}
	if !db.pages.Holds(onPrimary.pageEpoch()) {
		t.Fatal("just after a move, the primary's page read takes an epoch that does not hold")
	}
	// The window: maxLag and two monitor periods (at least 50 ms each).
	time.Sleep(db.replicas.maxLag + 2*db.replicas.monitorEvery() + 20*time.Millisecond)
	if got := onReplica.pageEpoch(); !db.pages.Holds(got) {
		t.Fatalf("after the window, a replica's page read takes epoch %d, which does not hold", got)
	}
}
