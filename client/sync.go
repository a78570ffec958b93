package client

import (
	"context"
	"iter"
	"time"
)

// pollSync returns a Sync over a list of items stamped by stamp and read
// with list for the query q, whose lower time bound from sets (and whose
// page it resets). The list must come in modification order when it has a
// lower bound.
func pollSync[T, Q any](q *Q, cursor time.Time, from func(*Q, time.Time), list func(context.Context, *Q) iter.Seq2[T, error], stamp func(T) time.Time) *Sync[T] {
	var base Q
	if q != nil {
		base = *q
	}
	return &Sync[T]{
		Cursor: cursor,
		list: func(ctx context.Context, after time.Time) iter.Seq2[T, error] {
			q := base
			from(&q, after)
			return list(ctx, &q)
		},
		stamp:  stamp,
		sorted: true,
	}
}

// Sync follows the changes of a list that is polled by modification time
// (orders by updatedFrom, balances by modifiedFromDate; interface §6). Each call
// of Changes yields what changed after Cursor and moves Cursor on to the
// newest modification time the caller has been given, so that polling with
// the same Sync never misses a change.
//
// Persist Cursor between runs and set it again on a new Sync to resume. A
// Sync is not safe for concurrent use.
type Sync[T any] struct {
	// Cursor is the modification time up to which every change has been
	// yielded; the zero time means from the beginning.
	Cursor time.Time

	list  func(ctx context.Context, after time.Time) iter.Seq2[T, error]
	stamp func(T) time.Time
	// sorted says the list comes in modification order, so Cursor can
	// follow each item; otherwise it moves only when the list is read to
	// its end.
	sorted bool
}

// Changes returns an iterator over the items changed after Cursor, in the
// order the server lists them.
//
// When the caller stops early or an error ends the iteration, Cursor keeps
// what was yielded so far; an item that shares its modification time with
// one not yet yielded may then come again in the next call, but none is
// missed.
func (s *Sync[T]) Changes(ctx context.Context) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var (
			pending T
			have    bool
			newest  = s.Cursor
			zero    T
		)
		// commit moves the cursor past consumed unless the item after it,
		// not yet yielded, has the same time.
		commit := func(consumed T, next *T) {
			if !s.sorted {
				return
			}
			st := s.stamp(consumed)
			if (next == nil || s.stamp(*next).After(st)) && st.After(s.Cursor) {
				s.Cursor = st
			}
		}
		after := s.Cursor
		if after.IsZero() {
			// Asking from the epoch rather than without a bound keeps the
			// list in modification order, which it may not be otherwise.
			after = time.Unix(0, 0).UTC()
		}
		for item, err := range s.list(ctx, after) {
			if err != nil {
				if have && !yield(pending, nil) {
					return
				}
				yield(zero, err)
				return
			}
			if st := s.stamp(item); st.After(newest) {
				newest = st
			}
			if have {
				more := yield(pending, nil)
				commit(pending, &item)
				if !more {
					return
				}
			}
			pending, have = item, true
		}
		if have {
			more := yield(pending, nil)
			commit(pending, nil)
			if !more {
				return
			}
		}
		if newest.After(s.Cursor) {
			s.Cursor = newest
		}
	}
}
