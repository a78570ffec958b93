package sqlstore

import (
	"context"
	"time"

	"github.com/parcelgate/parcelgate"
)

// Modification stamps and the never-miss rule (decisions §6, change polling).
//
// A client that asks for changes strictly after the newest stamp it has
// seen must see every later commit. Stamps taken from the wall clock alone
// do not give that: on PostgreSQL, a transaction may take its stamp,
// stall, and commit after a later-stamped one that a poller already read.
// So the transactions whose changes appear in one change feed take their
// stamps under one lock, held until they end: they commit one at a time,
// in stamp order, and a stamp visible to a poller is never followed by the
// commit of a smaller one in the same feed.
//
// The feeds are per organization: an organization's orders, and the
// balances of its catalogs, of it as a supplier and of it as a retailer.
// The locks follow them:
//
//   - An order's transaction (create, re-send, change, preferences, the
//     engine's moves) changes only feeds of the order's organization: the
//     order, and the balances of its own warehouse catalogs. It takes the
//     organization's clock (nextOrgStamp): its row in org_clock, locked
//     until the transaction ends, with the environment's change_clock row
//     held SHARED. Orders of different organizations never wait for each
//     other.
//   - A transaction whose changes reach the feeds of several organizations
//     (a supplier's products and balances, published to retailers; an
//     operator's stock move) takes the environment's row EXCLUSIVELY
//     (nextStamp): it waits for every order transaction in flight and holds
//     back new ones, and stamps past every organization's clock.
//
// Any two transactions that write the same row share a lock: a row lives
// in the feeds of its organizations, and a writer holds the clock of every
// feed it writes into. Every writer takes its clock before touching rows,
// so the lock order is always clock, then rows: no two writers deadlock,
// and the read-then-write steps inside them need no row locks of their
// own. Reads never wait for any of it.
//
// On SQLite the single writer connection already orders every
// transaction, and both kinds take the environment's row, as one.

// nextStamp returns the stamp for a change written in tx that may reach
// the feeds of any organization of env: the clock's time, or one
// microsecond past the newest stamp of env and of each of its
// organizations when the clock has not moved past it. tx holds env's
// clock exclusively until it ends.
func (tx *Tx) nextStamp(ctx context.Context, env parcelgate.Environment) (time.Time, error) {
	now := micros(tx.db.clock.Now(env))
	if tx.d.name == "postgres" {
		// Lock first, then read the organizations' clocks in a statement
		// of its own: its snapshot is taken after every order transaction
		// that held the row shared has ended, so it sees their stamps.
		var last int64
		if err := tx.QueryRow(ctx, `SELECT last_us FROM change_clock WHERE environment = ? AND pg_advisory_xact_lock(`+clockLockClass+`, hashtext(?)) IS NOT NULL FOR UPDATE`, string(env), string(env)).Scan(&last); err != nil {
			return time.Time{}, err
		}
		var us int64
		err := tx.QueryRow(ctx, `UPDATE change_clock SET last_us = GREATEST(?, last_us + 1, (SELECT COALESCE(MAX(last_us), 0) + 1 FROM org_clock WHERE environment = ?)) WHERE environment = ? RETURNING last_us`,
			now, string(env), string(env)).Scan(&us)
		if err != nil {
			return time.Time{}, err
		}
		return fromMicros(us), nil
	}
	var us int64
	err := tx.QueryRow(ctx, `UPDATE change_clock SET last_us = CASE WHEN last_us >= ? THEN last_us + 1 ELSE ? END WHERE environment = ? RETURNING last_us`, now, now, string(env)).Scan(&us)
	if err != nil {
		return time.Time{}, err
	}
	return fromMicros(us), nil
}

// clockLockClass is the first key of the environments' advisory clock
// locks (the two-key form, a space apart from single-key advisory locks);
// the second is the hash of the environment's name.
const clockLockClass = "1348693077"

// nextOrgStamp returns the stamp for a change written in tx that reaches
// only the feeds of organization orgID of env (an order and its stock):
// the clock's time, or one microsecond past the newest stamp of the
// organization and of env's last exclusive writer. tx holds the
// organization's clock, and env's shared, until it ends.
func (tx *Tx) nextOrgStamp(ctx context.Context, env parcelgate.Environment, orgID int64) (time.Time, error) {
	if tx.d.name != "postgres" {
		return tx.nextStamp(ctx, env)
	}
	now := micros(tx.db.clock.Now(env))
	// FOR SHARE waits for an exclusive writer of env and then reads the row
	// as it committed; ON CONFLICT DO UPDATE waits for the organization's
	// previous writer and then updates its row as it committed. One round
	// trip, as the environment's clock was.
	//
	// Row locks alone would let a stream of shared holders starve an
	// exclusive writer (a new FOR SHARE never waits behind a waiting FOR
	// UPDATE). So both kinds first take the environment's advisory lock, in
	// the same mode: PostgreSQL's lock manager queues a shared request
	// behind a waiting exclusive one. It is taken in the scan's condition,
	// before the row lock; the row lock is still what gives the row as
	// committed.
	var us int64
	err := tx.QueryRow(ctx, `WITH e AS (SELECT last_us FROM change_clock WHERE environment = ? AND pg_advisory_xact_lock_shared(`+clockLockClass+`, hashtext(?)) IS NOT NULL FOR SHARE)
		INSERT INTO org_clock (org_id, environment, last_us) SELECT ?, ?, GREATEST(?, e.last_us + 1) FROM e
		ON CONFLICT (org_id) DO UPDATE SET last_us = GREATEST(org_clock.last_us + 1, excluded.last_us)
		RETURNING last_us`, string(env), string(env), orgID, string(env), now).Scan(&us)
	if err != nil {
		return time.Time{}, err
	}
	return fromMicros(us), nil
}
