package sqlstore

import (
	"context"
	"database/sql"

	"github.com/parcelgate/parcelgate/sqlstore/internal/fastpath"
)

// reader is where a read runs, as *Tx is where a write runs: the primary
// (db.primary()), the replica readOnReplica chose for a caller, or a read
// transaction on either (readTx). A function that reads takes the reader
// after the context, as one that writes takes the *Tx, so where a
// service method reads is written in its code, and everything the method
// hands the reader to reads in the same place: a page's window, count,
// start and rows on one server (decisions §20, §22), in one snapshot
// inside a read transaction.
type reader struct {
	db      *DB
	replica *replica // nil: the primary
	tx      *sql.Tx  // nil: no read transaction
	// epoch is the page boundaries' epoch taken as tx began, before its
	// snapshot (decisions §73); blind: the read uses and records no
	// boundary (pageEpoch).
	epoch fastpath.Epoch
	blind bool
}

// primary is the reader of the primary: its reader pool, outside any
// transaction. db.query and db.queryRow read through it.
func (db *DB) primary() reader { return reader{db: db} }

// pool is the pool r's reads run on outside a read transaction: the
// replica's, or the primary's reader pool.
func (r reader) pool() *sql.DB {
	if r.replica != nil {
		return r.replica.pool
	}
	return r.db.read
}

// readTx runs fn with a reader inside one read-only transaction on r's
// server, or with r itself when r is inside one already (a page's extra
// reads join the page's transaction).
//
// A read that is made of several statements, such as a page (its total, the
// key it starts after, its rows, then the rows' details), must see one state
// of the database: counted under one state and read under another, a page
// can disagree with its own totals, or find no row where the count promised
// one. The transaction is
//
//   - PostgreSQL: REPEATABLE READ, so every statement sees the snapshot
//     taken by the first one.
//   - SQLite: a deferred transaction on a reader connection; in WAL mode the
//     first read fixes the snapshot until the transaction ends, and readers
//     never block the writer.
func (r reader) readTx(ctx context.Context, fn func(r reader) error) error {
	if r.tx != nil {
		return fn(r)
	}
	opts := &sql.TxOptions{ReadOnly: true}
	if r.db.dialect.name == postgresDialect.name {
		opts.Isolation = sql.LevelRepeatableRead
	}
	// The statements earlier read transactions met unprepared are
	// prepared now, while this read holds no connection.
	r.db.readStmts.prepareQueued(ctx)
	// Before the snapshot, which the first statement takes (decisions
	// §73).
	r.epoch = r.db.pages.Epoch()
	r.blind = r.blind || r.mayShowBeforeMove()
	tx, err := r.pool().BeginTx(ctx, opts)
	if err != nil {
		return err
	}
	// Nothing was written: ending it either way only frees the snapshot.
	defer tx.Rollback()
	r.tx = tx
	return fn(r)
}

// pageEpoch is the page boundaries' epoch of a page read with r
// (decisions §73): the one its read transaction took as it began, else
// (a page read outside one) the epoch now, before the page's first
// statement; fastpath.Blind when r is reading a page again after its
// epoch moved, or reads a replica that may not have replayed the move.
func (r reader) pageEpoch() fastpath.Epoch {
	switch {
	case r.blind:
		return fastpath.Blind
	case r.tx != nil:
		return r.epoch
	}
	// The epoch first, then whether the replica replayed its moves: each
	// move's position is set before its epoch is.
	e := r.db.pages.Epoch()
	if r.mayShowBeforeMove() {
		return fastpath.Blind
	}
	return e
}

// mayShowBeforeMove reports whether r reads a replica that may not have
// replayed every move of the page boundaries' epoch r took just before
// (decisions §73). Each move records a WAL position of the primary at or
// after its commit (Tx.rewrites, seeRewrites); a replica whose replay
// position, as the monitor (or pick) last saw it, is at or past the
// highest of them has replayed every such commit before the read's
// snapshot, which it takes later. When a move's position is not known
// (its read failed), the fallback is time: a replica serves reads while
// it lags at most maxLag as the monitor last measured it, so for that
// long after the move, and two monitor periods more. Blind, the read
// neither uses nor records a boundary: the recorded ones are keys of the
// new rows, and its own would be keys of the old.
func (r reader) mayShowBeforeMove() bool {
	if r.replica == nil || r.db.replicas == nil {
		return false
	}
	rs := r.db.replicas
	return r.db.pages.NotReplayed(r.replica.replayed.Load(), rs.maxLag+2*rs.monitorEvery())
}

// Query and QueryRow run a read in r's read transaction, else on r's pool.
// Inside a read transaction a statement not yet prepared runs unprepared
// and is queued (stmtCache.inTx), never prepared there: preparing takes a
// second connection of the pool, and when every connection is held by a
// read transaction that wants one, none is ever freed — the reads then
// wait until their deadline (answered 503), or forever without one.
func (r reader) Query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if r.tx != nil {
		if st := r.db.readStmts.inTx(q); st != nil {
			return r.tx.StmtContext(ctx, st).QueryContext(ctx, args...)
		}
		return r.tx.QueryContext(ctx, r.db.dialect.rebind(q), args...)
	}
	if st := r.preparedOutsideTx(ctx, q); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return r.pool().QueryContext(ctx, r.db.dialect.rebind(q), args...)
}

func (r reader) QueryRow(ctx context.Context, q string, args ...any) *sql.Row {
	if r.tx != nil {
		if st := r.db.readStmts.inTx(q); st != nil {
			return r.tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
		}
		return r.tx.QueryRowContext(ctx, r.db.dialect.rebind(q), args...)
	}
	if st := r.preparedOutsideTx(ctx, q); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return r.pool().QueryRowContext(ctx, r.db.dialect.rebind(q), args...)
}

// preparedOutsideTx is the reader pool's prepared statement of q, for a
// read on the primary outside a transaction; nil on a replica, whose pool
// has none (and on engines whose driver keeps them itself).
func (r reader) preparedOutsideTx(ctx context.Context, q string) *sql.Stmt {
	if r.replica != nil {
		return nil
	}
	return r.db.readStmts.get(ctx, q)
}
