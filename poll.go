package parcelgate

import (
	"slices"
	"time"
)

// ChangeWindow is the part of a change feed one change poll may return
// (interface §4.3 updatedFrom, 4.4 modifiedFromDate; decisions §6, change
// polling): the store filters by it and by nothing else of the kind.
type ChangeWindow struct {
	// After: only changes stamped strictly after this many microseconds
	// since 1970 (stamps are whole microseconds).
	After int64
	// SettledBelow: only changes whose writer's ticket is below it; 0 for
	// no bound.
	SettledBelow int64
}

// Writers is what a store whose writers commit out of stamp order
// (PostgreSQL, sqlstore/stamp.go) reports of the transactions that may
// still commit a change, for PollWindow. Transaction IDs are 64-bit (epoch
// and counter) where the database gives them so, 32-bit where it gives
// only the counter.
type Writers struct {
	// Standby: the poll reads a hot standby, which sees the primary's
	// transactions but not their locks.
	Standby bool
	// Xmin, Xmax and InProgress are the poll's snapshot: every ID below
	// Xmin had ended, InProgress were running, every ID from Xmax on was
	// not yet assigned.
	Xmin, Xmax int64
	InProgress []int64
	// Running are the transactions running when the store looked, after
	// the snapshot was taken; Stamping those of them that hold or wait for
	// the environment's change clock (every stamped writer holds it from
	// before its ticket to its end).
	Running, Stamping []uint32
	// ReadAfter: the poll reads its rows with a snapshot taken after the
	// store looked (a transaction of its own, begun later), not with this
	// snapshot.
	ReadAfter bool
}

// PollWindow decides which changes a poll that asks for those after from
// may return. w is nil where the store commits in stamp order.
//
// Strictly after from, to the microsecond: a stamp equal to from was
// already seen by the client that passes it, and a from with a finer
// fraction than stamps have (a client's own clock) keeps every stamp past
// it.
//
// Where writers commit out of stamp order, a change is returned only once
// no writer that may still commit a smaller stamp is running: writers take
// tickets in stamp order, each at least its own ID, so a change whose
// ticket is below every stamping writer still running, and below every
// writer that ended after the snapshot (which the snapshot may not show),
// has no smaller stamp still to come, and every smaller one is in the
// snapshot. When the rows are read with a snapshot taken after the store
// looked, every writer that ended before the look is in it, and writers
// that ended in between need not be counted: they do not hold the poll
// back, as other applications' transactions do not. A writer with no ID yet takes its ticket and stamp after all
// of these. Transactions that never stamp do not hold polls back. A
// standby cannot tell stamping writers from others: there no change
// written by a transaction still running at the snapshot's oldest is
// returned (Xmin). The proof: docs/decisions.md, "Change polling without
// serialized writers".
func PollWindow(from time.Time, w *Writers) ChangeWindow {
	win := ChangeWindow{After: from.UnixMicro()}
	if w == nil {
		return win
	}
	if w.Standby {
		win.SettledBelow = w.Xmin
		return win
	}
	bound := w.Xmax
	for _, x := range w.Stamping {
		bound = min(bound, nearXID(x, w.Xmax))
	}
	if !w.ReadAfter {
		for _, x := range w.InProgress {
			if !slices.Contains(w.Running, uint32(x)) {
				bound = min(bound, x)
			}
		}
	}
	win.SettledBelow = bound
	return win
}

// nearXID is the 64-bit ID whose counter is x nearest to near: IDs in use
// at one time are within 2^31 of each other.
func nearXID(x uint32, near int64) int64 {
	return near + int64(int32(x-uint32(near)))
}
