package fastpath

import "math"

// Counts keeps lists' totals between pages (decisions §17, §25). A list's
// total is exact (interface §2.6), and counting a catalog of 412,638
// balances was most of the cost of a page; a client walking it asks the
// same count at every page while nothing changes. A kept count is reused
// only while it is provably the count the database would give:
//
//   - Nothing in the list's scope changed: every write that can add a row
//     to the list or take one out of it moves the row's change stamp past
//     every stamp before it in the scope, and rows are never deleted
//     (removals are stamped tombstones), so the scope's newest stamp is
//     unchanged exactly when no such row was written. The store reads it
//     no later than the count (before it, or in the same statement), so a
//     write that lands in between makes the count look stale, never the
//     other way round.
//   - The clock has not moved a row out of the list: a list that hides
//     rows whose end-of-sale stamp is not after a cut-off loses rows as the
//     cut-off moves. A count records the earliest end-of-sale stamp still
//     ahead of its cut-off (Cross); until the cut-off reaches it, no row
//     can leave.
//
// The version is read from the stored rows for every page (the newest
// stamp), never a list of writes kept by hand: a write by another instance
// or by hand in psql moves it just the same. A count that cannot be proved
// exact is counted afresh. The store builds the SQL that reads the stamp,
// the count and the crossing stamp; Counts only keeps and checks.
type Counts struct {
	m Bounded[CountKey, Count]
}

// CountKey names a kept count: the list's scope condition (the superset
// its stamp is read over) and its filters. The store puts in it whatever
// scopes the list to the caller, so one caller's count is never another's.
type CountKey struct{ Scope, Filters string }

// Count is a list's total and what proves it still exact.
type Count struct {
	Total int64
	// Stamp is the scope's newest change stamp, read no later than Total.
	Stamp int64
	// Cutoff is the end-of-sale cut-off the list was counted under.
	Cutoff int64
	// Cross is the earliest end-of-sale stamp after Cutoff in the scope;
	// math.MaxInt64 when there is none (or the list hides no rows by it).
	Cross int64
	// Floor, for a list in stamp order that keeps it (TotalFloor), is the
	// smallest stamp among its rows: no row of the list sorts before it
	// while the count holds, so a page may start its walk there.
	Floor int64
}

// Counted is the count total of a list read with the scope's newest stamp
// under cutoff, and the earliest end-of-sale stamp after cutoff (cross,
// when hasCross).
func Counted(total, stamp, cutoff, cross int64, hasCross bool) Count {
	c := Count{Total: total, Stamp: stamp, Cutoff: cutoff, Cross: math.MaxInt64}
	if hasCross {
		c.Cross = cross
	}
	return c
}

// covers reports whether no row can have left the list by the clock
// between the count's cut-off and cutoff.
func (c Count) covers(cutoff int64) bool { return cutoff >= c.Cutoff && cutoff < c.Cross }

// Holds reports whether c is the list's total when the scope's newest
// stamp is stamp and its cut-off is cutoff.
func (c Count) Holds(stamp, cutoff int64) bool { return c.Stamp == stamp && c.covers(cutoff) }

// Kept returns the count kept for k if the cut-off has not moved a row out
// of it: it is exact if the scope's newest stamp is still its Stamp, which
// the caller checks (in the page's own statement, see Holds).
func (c *Counts) Kept(k CountKey, cutoff int64) (Count, bool) {
	e, ok := c.m.Get(k)
	if !ok || !e.covers(cutoff) {
		return Count{}, false
	}
	return e, true
}

// Keep keeps n as the count of k.
func (c *Counts) Keep(k CountKey, n Count) { c.m.Put(k, n) }

// Total returns the total of the list k under cutoff, where newest is the
// scope's newest stamp, read before this call: the kept count when it
// holds, else count(), kept with the crossing stamp cross() reads (cross
// nil: the list hides no row by the clock).
func (c *Counts) Total(k CountKey, newest, cutoff int64, count func() (int64, error), cross func() (int64, bool, error)) (int64, error) {
	if e, ok := c.m.Get(k); ok && e.Holds(newest, cutoff) {
		return e.Total, nil
	}
	n, err := count()
	if err != nil {
		return 0, err
	}
	var x int64
	var hasX bool
	if cross != nil {
		if x, hasX, err = cross(); err != nil {
			return 0, err
		}
	}
	c.Keep(k, Counted(n, newest, cutoff, x, hasX))
	return n, nil
}

// TotalFloor is Total for a list in stamp order that hides no row by the
// clock and whose count also reads the smallest stamp among its rows
// (floor, 0 when there are none): both are kept under the one proof, the
// scope's newest stamp, and returned together. keep false counts without
// keeping (the store could not prove the count would stay exact), and
// never returns a kept count either.
func (c *Counts) TotalFloor(k CountKey, newest int64, keep bool, count func() (total, floor int64, err error)) (int64, int64, error) {
	if e, ok := c.m.Get(k); keep && ok && e.Holds(newest, 0) {
		return e.Total, e.Floor, nil
	}
	n, floor, err := count()
	if err != nil {
		return 0, 0, err
	}
	if keep {
		e := Counted(n, newest, 0, 0, false)
		e.Floor = floor
		c.Keep(k, e)
	}
	return n, floor, nil
}
