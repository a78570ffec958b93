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
// operator's reset or restore until it has replayed the move's commit, so a
// page read there would take the new epoch over old rows. Each move records
// a WAL position of the primary at or after its commit; a page read on a
// replica whose replay position (as last seen) is short of the highest one
// neither uses nor records a boundary (the epoch it takes is
// fastpath.Blind), and once the replica has replayed it the read takes the
// epoch at once, however recent the move. On the primary it takes the
// epoch as before. A move whose position is not known (its read failed)
// falls back to the time the replica may lag, and two monitor periods.
func TestPageReadsOnAReplicaAreBlindWhileItMayLagAMove(t *testing.T) {
	db := &DB{replicas: &replicaSet{maxLag: time.Hour}}
	rep := &replica{}
	rep.advance(100)
	onReplica, onPrimary := reader{db: db, replica: rep}, reader{db: db}
	if onReplica.pageEpoch() == fastpath.Blind {
		t.Fatal("before any move, a replica's page read is blind")
	}
	// Moved elsewhere, seen by the fence refresh at position 200.
	db.pages.Moved(200)
	if got := onReplica.pageEpoch(); got != fastpath.Blind {
		t.Fatalf("a replica at 100 after a move at 200: its page read takes epoch %d, want blind", got)
	}
	if !db.pages.Holds(onPrimary.pageEpoch()) {
		t.Fatal("just after a move, the primary's page read takes an epoch that does not hold")
	}
	rep.advance(199)
	if got := onReplica.pageEpoch(); got != fastpath.Blind {
		t.Fatalf("a replica at 199 after a move at 200: epoch %d, want blind", got)
	}
	// Replayed: not blind, an hour's lag allowed and the move just made.
	rep.advance(200)
	if got := onReplica.pageEpoch(); !db.pages.Holds(got) {
		t.Fatalf("a replica that replayed the move: its page read takes epoch %d, which does not hold", got)
	}
	// Moved here by a commit, its position read after it: during the
	// commit no epoch holds; after it, blind until replayed.
	end := db.pages.Moving()
	if got := onReplica.pageEpoch(); db.pages.Holds(got) {
		t.Fatal("a replica's page read during a moving commit takes an epoch that holds")
	}
	end(300)
	if got := onReplica.pageEpoch(); got != fastpath.Blind {
		t.Fatalf("a replica at 200 after a commit at 300: epoch %d, want blind", got)
	}
	rep.advance(300)
	if got := onReplica.pageEpoch(); !db.pages.Holds(got) {
		t.Fatalf("a replica that replayed the commit: epoch %d, which does not hold", got)
	}
	// No position known: blind for the lag allowed and two monitor
	// periods (at least 50 ms each), whatever the replica replayed.
	db.replicas.maxLag = time.Millisecond
	db.pages.Moved(fastpath.NoPosition)
	rep.advance(1 << 40)
	if got := onReplica.pageEpoch(); got != fastpath.Blind {
		t.Fatalf("just after a move of no known position, a replica's page read takes epoch %d, want blind", got)
	}
	time.Sleep(db.replicas.maxLag + 2*db.replicas.monitorEvery() + 20*time.Millisecond)
	if got := onReplica.pageEpoch(); !db.pages.Holds(got) {
		t.Fatalf("after the window, a replica's page read takes epoch %d, which does not hold", got)
	}
}
