package sqlstore

import (
	"context"
	"time"

	"github.com/parcelgate/parcelgate"
)

// nextStamp returns the modification stamp for a change written in tx: the
// clock's time, or one microsecond past the last stamp of env when the clock
// has not moved past it.
//
// This is how change polling never misses a change (decisions §6): a client
// that asks for changes strictly after the newest stamp it has seen must see
// every later commit. Stamps taken from the wall clock alone do not give
// that: on PostgreSQL, a transaction may take its stamp, stall, and commit
// after a later-stamped one that a poller already read. Here the UPDATE
// locks env's row in change_clock until tx ends, so the transactions that
// take stamps in one environment commit one at a time in stamp order, and a
// stamp visible to a poller is never followed by the commit of a smaller
// one. (On SQLite the single writer connection already orders them.)
//
// Transactions that change balances or orders take their stamp first,
// before touching those rows: every such writer then locks in one order
// (change clock, then rows), so two of them can never deadlock, and the
// read-then-write steps inside them need no row locks of their own. The
// price is that stamped writes of one environment commit one at a time;
// they are short, and reads never wait for them.
func (tx *Tx) nextStamp(ctx context.Context, env parcelgate.Environment) (time.Time, error) {
	now := micros(tx.db.clock.Now(env))
	var us int64
	err := tx.QueryRow(ctx, `UPDATE change_clock SET last_us = CASE WHEN last_us >= ? THEN last_us + 1 ELSE ? END WHERE environment = ? RETURNING last_us`, now, now, string(env)).Scan(&us)
	if err != nil {
		return time.Time{}, err
	}
	return fromMicros(us), nil
}
