package parcelgate

import (
	"testing"
	"time"
)

// A move of the clock is forward only, at most MaxAdvance at once, and
// the clock runs at most MaxAdvance ahead of the wall clock in all
// (decisions §21): the move that would pass it is refused, the one that
// reaches it exactly is not.
func TestDecideAdvance(t *testing.T) {
	for _, c := range []struct {
		offset, d time.Duration
		want      time.Duration
		ok        bool
	}{
		{0, time.Hour, time.Hour, true},
		{time.Hour, 336 * time.Hour, 337 * time.Hour, true},
		{0, 0, 0, false},
		{0, -time.Hour, 0, false},
		{0, MaxAdvance + 1, 0, false},
		{MaxAdvance - time.Hour, time.Hour, MaxAdvance, true},
		{MaxAdvance - time.Hour, time.Hour + time.Microsecond, 0, false},
		{MaxAdvance, time.Microsecond, 0, false},
	} {
		got, err := DecideAdvance(Test, c.offset, c.d)
		if c.ok && (err != nil || got != c.want) {
			t.Errorf("DecideAdvance(%v, %v) = %v, %v; want %v", c.offset, c.d, got, err, c.want)
		}
		if !c.ok && ErrorCode(err) != EINVALID {
			t.Errorf("DecideAdvance(%v, %v) = %v, %v; want EINVALID", c.offset, c.d, got, err)
		}
	}
}

// decisions §70: a move of either environment's time closes what Moved
// returned before it, so an engine sleeping until something is due by that
// time looks again; taking the offset already held is no move.
func TestOffsetClockMovedSignalsEachMove(t *testing.T) {
	var c OffsetClock
	closed := func(ch <-chan struct{}) bool {
		select {
		case <-ch:
			return true
		default:
			return false
		}
	}
	m := c.Moved()
	c.Observe(Test, 0)
	if closed(m) {
		t.Fatal("Moved closed when the offset did not change")
	}
	c.Observe(Test, time.Hour)
	if !closed(m) {
		t.Fatal("Moved not closed when the test environment's time moved")
	}
	m = c.Moved()
	c.Observe(Test, time.Minute) // behind the offset held: ignored
	if closed(m) {
		t.Fatal("Moved closed by an offset behind the one held")
	}
	c.Advance(time.Second)
	if !closed(m) {
		t.Fatal("Moved not closed by Advance")
	}
	if closed(c.Moved()) {
		t.Fatal("a new Moved is closed before the next move")
	}
}
