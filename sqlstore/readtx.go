package sqlstore

import (
	"context"
	"database/sql"
)

// A read that is made of several statements, such as a page (its total, the
// key it starts after, its rows, then the rows' details), must see one state
// of the database: counted under one state and read under another, a page
// can disagree with its own totals, or find no row where the count promised
// one. inReadTx gives it one read-only transaction:
//
//   - PostgreSQL: REPEATABLE READ, so every statement sees the snapshot
//     taken by the first one.
//   - SQLite: a deferred transaction on a reader connection; in WAL mode the
//     first read fixes the snapshot until the transaction ends, and readers
//     never block the writer.
//
// The transaction travels in ctx, so the reads made inside fn go through
// db.query and db.queryRow unchanged. A nested inReadTx joins the
// transaction already in ctx.
func (db *DB) inReadTx(ctx context.Context, fn func(ctx context.Context) error) error {
	if _, ok := ctx.Value(readTxKey{}).(*sql.Tx); ok {
		return fn(ctx)
	}
	opts := &sql.TxOptions{ReadOnly: true}
	if db.dialect.name == postgresDialect.name {
		opts.Isolation = sql.LevelRepeatableRead
	}
	// The statements earlier read transactions met unprepared are
	// prepared now, while this read holds no connection.
	db.readStmts.prepareQueued(ctx)
	pool, _ := db.readPool(ctx)
	tx, err := pool.BeginTx(ctx, opts)
	if err != nil {
		return err
	}
	// Nothing was written: ending it either way only frees the snapshot.
	defer tx.Rollback()
	return fn(context.WithValue(ctx, readTxKey{}, tx))
}

type readTxKey struct{}

// readConn is what a read runs on: the read transaction in ctx, else the
// replica ctx is routed to (onReplica), else the reader pool.
type readConn interface {
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
}

func (db *DB) readConn(ctx context.Context) readConn {
	if tx, ok := ctx.Value(readTxKey{}).(*sql.Tx); ok {
		return tx
	}
	pool, _ := db.readPool(ctx)
	return pool
}
