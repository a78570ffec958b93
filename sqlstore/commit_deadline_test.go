package sqlstore_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// A request's database deadline that passes between a transaction's last
// statement and its commit: database/sql rolls the transaction back by
// itself when the deadline passes, and Commit then says only "transaction
// has already been committed or rolled back". The store reports the
// deadline, so the request is answered 503 with Retry-After, not 500 (the
// failover tests met it as a 500 while a node rejoined under load).
func TestCommitAfterTheDeadlineIsUnavailable(t *testing.T) {
	testdb.Each(t, nil, func(t *testing.T, db *sqlstore.DB) {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		err := db.WriteTxForTest(ctx, func(ctx context.Context) error {
			<-ctx.Done()
			// database/sql's watcher rolls the transaction back.
			time.Sleep(100 * time.Millisecond)
			return nil
		})
		if err == nil {
			t.Fatal("a transaction whose deadline passed before its commit committed")
		}
		if errors.Is(err, sql.ErrTxDone) || !errors.Is(err, context.DeadlineExceeded) || !db.Unavailable(err) {
			t.Fatalf("commit after the deadline: %v (unavailable: %v), want the deadline, answered 503", err, db.Unavailable(err))
		}
	})
}
