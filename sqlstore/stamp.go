package sqlstore

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/parcelgate/parcelgate"
)

// Modification stamps and the never-miss rule (decisions §6, change polling;
// the proof is in docs/decisions.md, "Change polling without serialized
// writers").
//
// A client that asks for changes strictly after the newest stamp a change
// poll has shown it must see every later commit. Stamps taken from the
// wall clock alone do not give that: on PostgreSQL, a transaction may take
// its stamp, stall, and commit after a later-stamped one that a poller
// already read.
//
// The feeds are per organization: an organization's orders, and the
// balances of its catalogs, of it as a supplier and of it as a retailer.
// Two kinds of writer stamp them:
//
//   - A transaction whose changes reach the feeds of several organizations
//     (a supplier's products and balances, published to retailers; an
//     operator's stock move; sandbox resets) takes the environment's clock
//     EXCLUSIVELY (nextStamp): it waits for every order transaction in
//     flight, holds back new ones, and stamps past every stamp taken
//     before. It commits in stamp order with respect to every other
//     stamped writer. Its ticket, like an order's (below), is a
//     subtransaction's ID assigned while it holds the clock, so larger
//     than every ticket taken before.
//   - An order's transaction (create, re-send, change, preferences, the
//     engine's moves) holds the environment's clock SHARED until it ends,
//     so orders never wait for each other on it, and takes its stamp with
//     nextOrgStamp. On PostgreSQL that is a short critical section, over
//     before the order writes anything: under an advisory lock held in a
//     subtransaction, it takes the next stamp of the environment's
//     sequence and a ticket, a transaction ID assigned inside the section
//     (so tickets and stamps are taken in the same order), and then rolls
//     the subtransaction back, which ends the lock. The ticket is set for
//     the rest of the transaction (parcelgate.ticket) and a trigger writes
//     it into changed_xid of every order and balance row it writes.
//     Orders of one organization commit in parallel, in any order.
//
// A change poll on PostgreSQL returns only rows whose ticket is below the
// ID of every stamping writer still running (every one holds or waits for
// the environment's clock; poll.go, parcelgate.PollWindow): a transaction
// with a smaller stamp than such a row has a smaller ticket, hence an ID
// below that bound, hence has ended, before the poll's read began; and a
// transaction that has not taken its ticket yet will take a larger one,
// with a larger stamp. So the newest stamp a poll shows is never followed
// by the commit of a smaller one.
//
// Writes that must read before they write are safe as before: supplier
// writers exclude every other stamped writer; order writers lock the
// balances and orders they change (FOR UPDATE) and take stock in one
// conditional UPDATE, and two first sends of one order race on its unique
// key or its SO reference's advisory lock (order.go).
//
// On SQLite the single writer connection already orders every
// transaction, and both kinds take the environment's row, as one; tickets
// stay 0 and polls need no bound.

// nextStamp returns the stamp for a change written in tx that may reach
// the feeds of any organization of env: the clock's time, or one
// microsecond past the newest stamp of env and of each of its
// organizations when the clock has not moved past it. tx holds env's
// clock exclusively until it ends.
func nextStamp(ctx context.Context, tx *Tx, env parcelgate.Environment) (time.Time, error) {
	now := micros(tx.db.clock.Now(env))
	if tx.d.name == "postgres" {
		// Lock first, then read the organizations' clocks in a statement
		// of its own: its snapshot is taken after every order transaction
		// that held the row shared has ended, so it sees their stamps.
		var last int64
		if err := tx.QueryRow(ctx, `SELECT last_us FROM change_clock WHERE environment = ? AND pg_advisory_xact_lock(`+clockLockClass+`, `+clockLockKey+`) IS NOT NULL FOR UPDATE`, string(env), string(env)).Scan(&last); err != nil {
			return time.Time{}, err
		}
		seq, err := stampSequence(env)
		if err != nil {
			return time.Time{}, err
		}
		// Past every stamp taken before, by either kind of writer (the
		// sequence; org_clock for stamps taken before migration 0016),
		// and the sequence moved past this one for the writers after.
		var us int64
		err = tx.QueryRow(ctx, `UPDATE change_clock SET last_us = setval('`+seq+`', GREATEST(?, last_us + 1, (SELECT last_value FROM `+seq+`) + 1, (SELECT COALESCE(MAX(last_us), 0) + 1 FROM org_clock WHERE environment = ?))) WHERE environment = ? RETURNING last_us`,
			now, string(env), string(env)).Scan(&us)
		if err != nil {
			return time.Time{}, err
		}
		// The ticket, taken while tx holds the clock: an ID assigned now,
		// larger than every ticket taken before (tx's own ID may have been
		// assigned earlier).
		if _, err := tx.Exec(ctx, `SAVEPOINT stamp`); err != nil {
			return time.Time{}, err
		}
		return fromMicros(us), takeTicket(ctx, tx, env)
	}
	var us int64
	err := tx.QueryRow(ctx, sqliteStamp, now, now, string(env)).Scan(&us)
	if err != nil {
		return time.Time{}, err
	}
	return fromMicros(us), nil
}

// sqliteStamp takes env's next stamp on SQLite (arguments: the clock's
// time twice, env), for either kind of writer.
const sqliteStamp = `UPDATE change_clock SET last_us = CASE WHEN last_us >= ? THEN last_us + 1 ELSE ? END WHERE environment = ? RETURNING last_us`

// clockLockKey is the second key of env's advisory clock locks (the
// parameter is env's name): advisory locks are the database's, so the key
// names the schema too, and deployments in schemas of one database do not
// wait for each other.
const clockLockKey = `hashtext(current_schema() || '/' || ?)`

// clockLockClass is the first key of the environments' advisory clock
// locks (the two-key form, a space apart from single-key advisory locks);
// the second is clockLockKey.
const clockLockClass = "1348693077"

// nextOrgStamp returns the stamp for a change written in tx that reaches
// only the feeds of organization orgID of env (an order and its stock):
// the clock's time, or one microsecond past the newest stamp of env. tx
// holds env's clock shared until it ends; on PostgreSQL it holds nothing
// else: it takes its stamp and ticket in a critical section that ends
// here (see the note at the top). It must run before tx writes anything,
// so that the ticket is assigned inside the section.
func nextOrgStamp(ctx context.Context, tx *Tx, env parcelgate.Environment, orgID int64) (time.Time, error) {
	var us int64
	s, err := orgStampStep(tx, env, &us)
	if err != nil {
		return time.Time{}, err
	}
	if _, err := pipeline(ctx, tx, s); err != nil {
		return time.Time{}, err
	}
	return fromMicros(us), nil
}

// orgStampStep is nextOrgStamp as a step of a pipeline, whose stamp is *us
// once it has run. The steps before it in tx must write nothing.
func orgStampStep(tx *Tx, env parcelgate.Environment, us *int64) (step, error) {
	now := micros(tx.db.clock.Now(env))
	if tx.d.name != "postgres" {
		// The environment's row, as nextStamp takes it.
		return step{q: sqliteStamp, args: []any{now, now, string(env)}, scan: func(scan func(...any) error) error { return scan(us) }}, nil
	}
	if _, err := stampSequence(env); err != nil {
		return step{}, err
	}
	// The environment's clock shared (a fair lock: a waiting exclusive
	// writer holds back new shared ones), then inside a subtransaction the
	// section's lock, the stamp from env's sequence and the ticket; the
	// subtransaction's end ends the lock. Neither lock assigns a
	// transaction ID. One statement: parcelgate_org_stamp, migration 0016
	// (dialect.go).
	var ticket int64
	return step{q: `SELECT us, ticket FROM parcelgate_org_stamp(?, ?)`, args: []any{string(env), now},
		scan: func(scan func(...any) error) error { return scan(us, &ticket) }}, nil
}

// ticketUpdate assigns, inside the savepoint "stamp", a subtransaction's
// ID, by an update the savepoint's rollback undoes, and returns it with
// the transaction's own.
const ticketUpdate = `UPDATE change_clock SET last_us = last_us WHERE environment = ? RETURNING pg_current_xact_id()::text::bigint AS top, xmin::text::bigint AS sub`

// takeTicket takes tx's ticket inside the savepoint "stamp", which the
// caller has set while it holds a lock that orders the stamps of env, and
// ends the savepoint, with every lock taken since it. The ticket is the ID
// of a subtransaction assigned now, by an update the rollback undoes:
// larger than tx's own ID, assigned in the order of the stamps. It is set
// for the rest of tx, for the trigger that writes it into the rows tx
// writes (migration 0016).
func takeTicket(ctx context.Context, tx *Tx, env parcelgate.Environment) error {
	var top, sub int64
	if err := tx.QueryRow(ctx, ticketUpdate, string(env)).Scan(&top, &sub); err != nil {
		return err
	}
	return endTicket(ctx, tx, top, sub)
}

// endTicket ends the savepoint "stamp" and sets the ticket for the rest of
// tx: the subtransaction's ID sub, in its 64-bit form.
func endTicket(ctx context.Context, tx *Tx, top, sub int64) error {
	_, err := tx.Exec(ctx, `ROLLBACK TO SAVEPOINT stamp; RELEASE SAVEPOINT stamp; SELECT set_config('parcelgate.ticket', '`+strconv.FormatInt(fullXID(top, sub), 10)+`', true)`)
	return err
}

// ticketLockClass is the first key of the environments' advisory locks of
// the stamp's critical section (see clockLockClass).
const ticketLockClass = "1348693078"

// stampSequence is the name of env's stamp sequence (migration 0016).
func stampSequence(env parcelgate.Environment) (string, error) {
	if !slices.Contains(parcelgate.Environments, env) {
		return "", fmt.Errorf("stamp: unknown environment %q", env)
	}
	return "change_stamp_" + string(env), nil
}

// fullXID is the 64-bit form (epoch and 32-bit ID, as pg_current_xact_id
// gives) of sub, a 32-bit transaction ID assigned no earlier than top, a
// 64-bit one: in top's epoch, or the next when the 32-bit counter wrapped
// between them.
func fullXID(top, sub int64) int64 {
	epoch := top >> 32
	if uint32(sub) < uint32(top) {
		epoch++
	}
	return epoch<<32 | int64(uint32(sub))
}
