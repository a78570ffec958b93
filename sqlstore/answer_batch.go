package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Point reads of orders on PostgreSQL go to the database together
// (decisions §24). A read of one order by key is one indexed row, yet as
// a statement of its own it cost the database as much CPU as the whole
// request cost the server (57-62 µs against 61 µs; issue 23): the round
// trip, the backend's work per statement, the system calls and the
// switches between processes, not the row. Reads that arrive together are
// sent as one statement instead:
//
//   - A read that arrives while no such statement is in flight is sent at
//     once, alone, under its request's own context: an idle server adds
//     nothing to a read.
//   - A read that arrives while one is in flight waits for it to return
//     and goes in the next statement with every other read that waited,
//     up to pointBatchReads of them; the next statement is sent as soon as
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
//   - At most pointQueueReads reads wait; a read past them runs a
//     statement of its own, as every read did before.
//
// Only reads headed to the primary outside a transaction are coalesced: a
// read routed to a replica (after its floor check) and a read in a read
// transaction run as before, and so does everything on SQLite, where a
// read is a function call in the process (and usually skipped: walIndex).

const (
	// pointBatchReads is how many reads one statement carries at most.
	pointBatchReads = 128
	// pointQueueReads is how many reads may wait for the next statement.
	pointQueueReads = 1024
	// pointStatements is how many statements of point reads may be in
	// flight at once. With 2, a read waits only while two are in flight:
	// GET one order under load (cmd/loadtest -mode read) then cost the
	// database 18-20 µs a request against 12-13 µs with 1, for the same
	// throughput. (A closed loop of reads without HTTP between them,
	// BenchmarkFindOrderAnswerTogether, prefers 2: its readers all come
	// back at once, the first alone, the rest behind it.)
	pointStatements = 1
)

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

// pointRead is one read waiting for a statement, and its outcome.
type pointRead struct {
	key   pointKey
	row   orderRow
	found bool
	err   error
	done  chan struct{} // closed once the outcome is set; nil for a read sent at once
}

// pointReads is the queue of the reads waiting for the next statement.
type pointReads struct {
	mu sync.Mutex
	// busy counts the senders: a read sent at once, or a sendLoop. At
	// most pointStatements; a sender that finds the queue empty stops.
	busy  int
	queue []*pointRead
	// off sends every read alone, as before, and hook, when set, is told
	// how many reads each statement carries before it is sent (tests and
	// benchmarks; set before any read).
	off  bool
	hook func(reads int)

	// statements and reads count what was sent (PointReadStats).
	statements, reads atomic.Uint64
}

// PointReadStats reports how many coalesced point-read statements the
// store has sent on PostgreSQL and how many reads they carried.
func (db *DB) PointReadStats() (statements, reads uint64) {
	return db.points.statements.Load(), db.points.reads.Load()
}

// coalesces reports whether a point read for ctx goes through db.points:
// on PostgreSQL, outside a read transaction, headed to the primary.
func (db *DB) coalesces(ctx context.Context) bool {
	if db.dialect.name != "postgres" || db.points.off {
		return false
	}
	if _, inTx := ctx.Value(readTxKey{}).(*sql.Tx); inTx {
		return false
	}
	_, r := db.readPool(ctx)
	return r == nil
}

// readAnswerRow reads the answer columns of the caller's order named by
// k into row; false when there is none.
func (db *DB) readAnswerRow(ctx context.Context, k pointKey, row *orderRow) (bool, error) {
	if !db.coalesces(ctx) {
		err := db.queryRow(db.pointReadContext(ctx), `SELECT `+answerColumns+orderByKey, k.org, k.id, k.org, k.own).Scan(row.answerDest()...)
		if errors.Is(err, sql.ErrNoRows) {
			return false, nil
		}
		return err == nil, err
	}
	r := &pointRead{key: k}
	p := &db.points
	p.mu.Lock()
	if p.busy < pointStatements {
		// Fewer than pointStatements in flight: sent at once, alone.
		p.busy++
		p.mu.Unlock()
		db.readPoints(ctx, []*pointRead{r})
		db.sendQueued()
	} else if len(p.queue) >= pointQueueReads {
		p.mu.Unlock()
		db.readPoints(ctx, []*pointRead{r})
	} else {
		r.done = make(chan struct{})
		p.queue = append(p.queue, r)
		p.mu.Unlock()
		select {
		case <-r.done:
		case <-ctx.Done():
			p.drop(r)
			return false, ctx.Err()
		}
	}
	*row = r.row
	return r.found, r.err
}

// drop takes r out of the queue if it has not been sent yet.
func (p *pointReads) drop(r *pointRead) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, q := range p.queue {
		if q == r {
			p.queue = append(p.queue[:i], p.queue[i+1:]...)
			return
		}
	}
}

// sendQueued is called when the statement in flight has returned: the
// reads that waited for it are sent, pointBatchReads at a time, one
// statement after the other, until none waits.
func (db *DB) sendQueued() {
	if batch := db.points.next(); batch != nil {
		go db.sendLoop(batch)
	}
}

// next takes the next statement's reads out of the queue, or marks the
// queue idle when there are none.
func (p *pointReads) next() []*pointRead {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.queue) == 0 {
		p.busy--
		return nil
	}
	batch := p.queue
	if len(batch) > pointBatchReads {
		batch = batch[:pointBatchReads:pointBatchReads]
		p.queue = append([]*pointRead(nil), p.queue[pointBatchReads:]...)
	} else {
		p.queue = nil
	}
	return batch
}

func (db *DB) sendLoop(batch []*pointRead) {
	for batch != nil {
		ctx, cancel := context.WithTimeout(context.Background(), db.timeout)
		db.readPoints(ctx, batch)
		cancel()
		for _, r := range batch {
			close(r.done)
		}
		batch = db.points.next()
	}
}

// readPoints reads every read's key in one statement and sets each read's
// outcome: its own key's row or none, or the statement's error. Reads of
// the same key share it.
func (db *DB) readPoints(ctx context.Context, batch []*pointRead) {
	orgs := make([]int64, 0, len(batch))
	ids := make([]string, 0, len(batch))
	owns := make([]string, 0, len(batch))
	slot := make([]int, len(batch)) // the key position of each read
	var seen map[pointKey]int
	if len(batch) > 1 {
		seen = make(map[pointKey]int, len(batch))
	}
	for i, r := range batch {
		if s, ok := seen[r.key]; ok {
			slot[i] = s
			continue
		}
		slot[i] = len(orgs)
		if seen != nil {
			seen[r.key] = len(orgs)
		}
		orgs = append(orgs, r.key.org)
		ids = append(ids, r.key.id)
		owns = append(owns, r.key.own)
	}
	db.points.statements.Add(1)
	db.points.reads.Add(uint64(len(batch)))
	if h := db.points.hook; h != nil {
		h(len(batch))
	}
	rows := make([]orderRow, len(orgs))
	found := make([]bool, len(orgs))
	err := db.queryPoints(ctx, orgs, ids, owns, rows, found)
	for i, r := range batch {
		if err != nil {
			r.err = err
			continue
		}
		r.row, r.found = rows[slot[i]], found[slot[i]]
	}
}

func (db *DB) queryPoints(ctx context.Context, orgs []int64, ids, owns []string, out []orderRow, found []bool) error {
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
