package fulfillment

import (
	"context"
	"time"
)

// DefaultRecheck is how long the warehouse engine and the automatic
// supplier sleep at most when they know of nothing due sooner (decisions
// §70). Their own instance wakes them at each write that may make
// something due sooner, and a move of the clock wakes them too; what
// another instance writes they find at their next look. That instance
// runs its engines too, woken by its own write, so the bound matters only
// where it does not (it stopped, or runs --fulfillment manual): an order
// written there is moved at most DefaultRecheck less its delay late,
// which is never at serve's delays (30 s, 2 min).
const DefaultRecheck = 10 * time.Second

// pace spaces a background loop's looks: at least min apart, so that a
// busy instance's writes, each waking the loop, are taken a batch at a
// time as a ticker of min took them; at most recheck apart, the bound on
// finding another instance's writes; in between, at the time the store
// said the next thing is due.
type pace struct {
	min, recheck time.Duration
}

// nextLook is when the look after one that began at start is due, when
// the store said the next thing is due at next (wall time; zero: nothing
// waits).
func (p pace) nextLook(start, next time.Time) time.Time {
	at := start.Add(p.recheck)
	if !next.IsZero() && next.Before(at) {
		at = next
	}
	if floor := start.Add(p.min); at.Before(floor) {
		at = floor
	}
	return at
}

// wait sleeps until nextLook(start, next), or until wake or moved is
// closed (a write of this instance, a move of the clock; nil never is),
// then no earlier than min after start. It reports false when ctx ended.
func (p pace) wait(ctx context.Context, start, next time.Time, wake, moved <-chan struct{}) bool {
	t := time.NewTimer(time.Until(p.nextLook(start, next)))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	case <-wake:
	case <-moved:
	}
	floor := time.NewTimer(time.Until(start.Add(p.min)))
	defer floor.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-floor.C:
		return true
	}
}

// movingClock is a clock whose time may jump forward
// (parcelgate.OffsetClock): Moved is closed at its next move.
type movingClock interface {
	Moved() <-chan struct{}
}

// clockMoves returns the channel closed at clock's next move, nil for a
// clock that never jumps.
func clockMoves(clock any) <-chan struct{} {
	if m, ok := clock.(movingClock); ok {
		return m.Moved()
	}
	return nil
}

// earliest is the earlier of two times, the zero time standing for none.
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}
