package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Point reads of orders on PostgreSQL go to the database together
// (decisions §24), through fastpath.Coalescer: a read of one order by key
// is one indexed row, yet as a statement of its own it cost the database
// as much CPU as the whole request cost the server (57-62 µs against 61
// µs). The coalescer's rules, as they apply here:
//
//   - A read that arrives while no such statement is in flight is sent at
//     once, alone, under its request's own context: an idle server adds
//     nothing to a read.
//   - A read that arrives while one is in flight waits for it to return
//     and goes in the next statement with every other read that waited,
//     up to fastpath.BatchReads of them; the next statement is sent as soon as
//     the previous one returns. A statement is never joined once sent, so
//     every read's statement is sent after the read began and sees every
//     commit acknowledged before it (the guarantee of a statement of its
//     own).
//   - Each read keeps its own key and organization: the statement reads
//     each key with the two index seeks of orderByKey and returns the
//     key's position with its row, and a read gets the row of its own
//     position or none.
//   - A waiter whose request ends stops waiting; the statement goes on for
//     the others, under the store's deadline (DBTimeout), not any one
//     request's. A statement that fails fails every read in it.
//   - At most fastpath.QueueReads reads wait; a read past them runs a
//     statement of its own, as every read did before.
//
// Only reads headed to the primary outside a transaction are coalesced: a
// read routed to a replica (after its floor check) and a read in a read
// transaction run as before, and so does everything on SQLite, where a
// read is a function call in the process (and usually skipped: fastpath.WALIndex).

// pointReadsQuery reads the answer columns of each key ($1, $2, $3: the
// organizations, the service IDs and the own IDs, by position), each by
// orderByKey's two index seeks, with the key's position (from 1).
// pointReadsSQL runs it as the function order_answers (migration 0017),
// planned once per connection instead of at every execution: sent as it
// is, it was planned each time (a custom plan; see dialect.go's
// pgPointReads), which cost the database half its CPU per read.
const pointReadsQuery = `SELECT k.n, ` + answerColumns + `
FROM unnest($1::bigint[], $2::text[], $3::text[]) WITH ORDINALITY AS k(org_id, order_id, own_id, n)
CROSS JOIN LATERAL (SELECT ` + answerColumns + ` FROM orders o
	WHERE (o.org_id = k.org_id AND o.order_id = k.order_id) OR (o.org_id = k.org_id AND o.own_id = k.own_id) LIMIT 1) o`

const pointReadsSQL = `SELECT * FROM order_answers($1::bigint[], $2::text[], $3::text[])`

// pointKey is one order as a caller names it: orderByKeyArgs's values.
type pointKey struct {
	org     int64
	id, own string
}

// PointReadStats reports how many coalesced point-read statements the
// store has sent on PostgreSQL and how many reads they carried.
func (db *DB) PointReadStats() (statements, reads uint64) { return db.points.Stats() }

// coalesces reports whether a point read with r goes through db.points:
// on PostgreSQL, on the primary, outside a read transaction.
func coalesces(r reader) bool {
	if r.db.dialect.name != "postgres" || r.db.pointsOff {
		return false
	}
	return r.tx == nil && r.replica == nil
}

// readAnswerRow reads the answer columns of the caller's order named by
// k into row; false when there is none.
func readAnswerRow(ctx context.Context, r reader, k pointKey, row *orderRow) (bool, error) {
	if !coalesces(r) {
		err := r.QueryRow(pointReadContext(ctx, r.db), `SELECT `+answerColumns+orderByKey, k.org, k.id, k.org, k.own).Scan(row.answerDest()...)
		if errors.Is(err, sql.ErrNoRows) {
			return false, nil
		}
		return err == nil, err
	}
	got, found, err := r.db.points.Read(ctx, k)
	*row = got
	return found, err
}

// fetchPoints is db.points' Fetch: every key's row in one statement.
func fetchPoints(ctx context.Context, db *DB, keys []pointKey, out []orderRow, found []bool) error {
	orgs := make([]int64, len(keys))
	ids := make([]string, len(keys))
	owns := make([]string, len(keys))
	for i, k := range keys {
		orgs[i], ids[i], owns[i] = k.org, k.id, k.own
	}
	return queryPoints(ctx, db, orgs, ids, owns, out, found)
}

func queryPoints(ctx context.Context, db *DB, orgs []int64, ids, owns []string, out []orderRow, found []bool) error {
	rows, err := db.query(ctx, pointReadsSQL, orgs, ids, owns)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var n int64
		var row orderRow
		if err := rows.Scan(append([]any{&n}, row.answerDest()...)...); err != nil {
			return err
		}
		if n < 1 || n > int64(len(out)) || found[n-1] {
			return fmt.Errorf("order reads: key position %d of %d answered twice or out of range", n, len(out))
		}
		out[n-1], found[n-1] = row, true
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return rows.Close()
}

// DBTimeout bounds a statement the store runs on behalf of several
// requests at once (the point reads it coalesces on PostgreSQL), which
// carries no one request's deadline: serve passes --db-timeout (0:
// DefaultDBTimeout).
func DBTimeout(d time.Duration) Option {
	return func(o *options) { o.timeout = d }
}

// DefaultDBTimeout is DBTimeout's default, serve's --db-timeout default.
const DefaultDBTimeout = 5 * time.Second
