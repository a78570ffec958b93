package sqlstore

import (
	"context"
	"database/sql"
	"math"

	"github.com/parcelgate/parcelgate/sqlstore/internal/fastpath"
)

// A list's totalElements is exact (interface §2.6), and counting a catalog of
// 412,638 balances is most of the cost of a page (35-40 ms of ~50 ms). A
// client walking the catalog asks the same count 207 times while nothing
// changes, so a count is kept between pages and reused while it is still
// exact, which the store can prove cheaply:
//
//   - Nothing in the list's scope changed: every write that can add a
//     row to a list or take one out of it (a supplier's, an operator's)
//     moves the row's stamp past every stamp before it in that scope's
//     feed (stamp.go), and rows are never deleted (removals are stamped
//     tombstones), so the newest stamp of the scope — one index seek —
//     is unchanged exactly when no such row was written. It is read
//     before counting, so a write that lands in between makes the count
//     look stale, never the other way round. Orders' writes, which on
//     PostgreSQL may commit below the newest stamp, change only quantities
//     and allocations, which no kept count filters on; change polls,
//     whose rows they do change, keep no count (balance.go).
//   - The clock has not moved a row out of the list: lists that hide end-of-
//     sale rows older than a cut-off lose rows as the cut-off moves. The
//     count records the earliest end-of-sale stamp still ahead of its
//     cut-off; until the cut-off reaches it no row can leave.
//
// A count that cannot be proved exact is counted afresh, as every count
// was before.

// countValidity says how a list's count is proved unchanged. The scope
// condition must select a superset of the list's rows (it is usually the
// list's own catalog or organization condition, without its content
// filters) and be served by an index ending in the stamp column.
type countValidity struct {
	// table is the list's table with its alias, "balances b".
	table string
	// scope is the condition, with its arguments.
	scope string
	args  []any
	// stamp is the modification stamp column, "b.modified_at".
	stamp string
	// eos is the end-of-sale column when the list hides rows whose
	// end-of-sale stamp is not after cutoff, "" otherwise.
	eos    string
	cutoff int64
}

type countKey struct{ scope, filters string }

type countEntry struct {
	total  int64
	stamp  int64 // newest stamp of the scope when counted
	cutoff int64 // the cut-off counted with
	cross  int64 // earliest end-of-sale stamp after cutoff
}

// countCache holds counts by query.
type countCache = fastpath.Bounded[countKey, countEntry]

// total counts the rows of q, from the cache when the count is proved
// exact (see above), else afresh.
func (db *DB) total(ctx context.Context, q *keysetQuery) (int64, error) {
	where := q.where.sql()
	count := func() (int64, error) {
		var n int64
		err := db.queryRow(ctx, `SELECT COUNT(*) FROM `+q.table+` WHERE `+where, q.where.args...).Scan(&n)
		return n, err
	}
	v := q.validity
	if v == nil {
		return count()
	}
	var newest sql.NullInt64
	if err := db.queryRow(ctx, `SELECT MAX(`+v.stamp+`) FROM `+v.table+` WHERE `+v.scope, v.args...).Scan(&newest); err != nil {
		return 0, err
	}
	key := countKey{v.table + "|" + v.scope, q.where.scope.String()}
	e, ok := db.counts.Get(key)
	if ok && e.stamp == newest.Int64 && v.cutoff >= e.cutoff && v.cutoff < e.cross {
		return e.total, nil
	}
	n, err := count()
	if err != nil {
		return 0, err
	}
	e = countEntry{total: n, stamp: newest.Int64, cutoff: v.cutoff, cross: math.MaxInt64}
	if v.eos != "" {
		var cross sql.NullInt64
		if err := db.queryRow(ctx, `SELECT MIN(`+v.eos+`) FROM `+v.table+` WHERE `+v.scope+` AND `+v.eos+` > ?`, append(append([]any(nil), v.args...), v.cutoff)...).Scan(&cross); err != nil {
			return 0, err
		}
		if cross.Valid {
			e.cross = cross.Int64
		}
	}
	db.counts.Put(key, e)
	return n, nil
}
