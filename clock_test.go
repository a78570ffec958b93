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
