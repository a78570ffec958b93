package sqlstore

import (
	"context"
	"database/sql"

	"github.com/parcelgate/parcelgate/sqlstore/internal/fastpath"
)

// A list's total is exact (interface §2.6) and is kept between pages while
// the store can prove it unchanged (fastpath.Counts, decisions §17): the
// scope's newest change stamp, one index seek, is read no later than the
// count, and the count records the earliest end-of-sale stamp still ahead
// of its cut-off. Every write that can add a row to a kept list or take one
// out of it (a supplier's, an operator's) moves the row's stamp past every
// stamp before it in that scope's feed (stamp.go), and rows are never
// deleted (removals are stamped tombstones). Orders' writes, which on
// PostgreSQL may commit below the newest stamp, change only quantities and
// allocations, which no kept count filters on; change polls, whose rows
// they do change, keep no count (balance.go). This file builds the SQL
// that reads them.

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

// countKey names q's kept count.
func (q *keysetQuery) countKey() fastpath.CountKey {
	v := q.validity
	return fastpath.CountKey{Scope: v.table + "|" + v.scope, Filters: q.where.scope.String()}
}

// total counts the rows of q, from the kept count when it is proved exact,
// else afresh.
func total(ctx context.Context, r reader, q *keysetQuery) (int64, error) {
	where := q.where.sql()
	count := func() (int64, error) {
		var n int64
		err := r.QueryRow(ctx, `SELECT COUNT(*) FROM `+q.table+` WHERE `+where, q.where.args...).Scan(&n)
		return n, err
	}
	v := q.validity
	if v == nil {
		return count()
	}
	var newest sql.NullInt64
	if err := r.QueryRow(ctx, `SELECT MAX(`+v.stamp+`) FROM `+v.table+` WHERE `+v.scope, v.args...).Scan(&newest); err != nil {
		return 0, err
	}
	var cross func() (int64, bool, error)
	if v.eos != "" {
		cross = func() (int64, bool, error) {
			var x sql.NullInt64
			err := r.QueryRow(ctx, `SELECT MIN(`+v.eos+`) FROM `+v.table+` WHERE `+v.scope+` AND `+v.eos+` > ?`, append(append([]any(nil), v.args...), v.cutoff)...).Scan(&x)
			return x.Int64, x.Valid, err
		}
	}
	return r.db.counts.Total(q.countKey(), newest.Int64, v.cutoff, count, cross)
}
