package sqlstore

import (
	"context"
	"time"

	"github.com/parcelgate/parcelgate"
)

// NextStampForTest takes one stamp in a transaction of its own.
func (db *DB) NextStampForTest(ctx context.Context, env parcelgate.Environment) (time.Time, error) {
	var t time.Time
	err := db.inTx(ctx, func(tx *Tx) error {
		var err error
		t, err = tx.nextStamp(ctx, env)
		return err
	})
	return t, err
}

// SeedOrdersForTest inserts n Created orders of the organization with one
// statement (set-based), stamped 1 µs apart from base, for benchmarks over
// large listings.
func (db *DB) SeedOrdersForTest(ctx context.Context, env parcelgate.Environment, orgID int64, businessID string, n int, base time.Time, doc string) error {
	_, err := db.exec(ctx, `WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < ?)
		INSERT INTO orders (order_id, environment, org_id, external_id, status, status_at, auto_submit, content_hash, doc, inserted_at, updated_at, ready_at)
		SELECT 'SEED' || n, ?, ?, ? || '-S' || n, 'Created', CAST(? AS BIGINT) + n, 0, 'seed', ?, CAST(? AS BIGINT) + n, CAST(? AS BIGINT) + n, CAST(? AS BIGINT) + n FROM s`,
		n, string(env), orgID, businessID, micros(base), doc, micros(base), micros(base), micros(base))
	if err != nil {
		return err
	}
	// As autovacuum would after a load this size: plans need statistics,
	// and PostgreSQL's index-only scans a visibility map.
	stmt := `ANALYZE`
	if db.dialect.name == "postgres" {
		stmt = `VACUUM ANALYZE orders`
	}
	_, err = db.exec(ctx, stmt)
	return err
}
