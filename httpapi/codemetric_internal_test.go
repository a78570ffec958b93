package httpapi

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
)

// issue 39, decisions §43: the active codes of an environment are counted
// at most once per max age — a scrape within it is given the kept figure
// and the time it was counted — and afresh by the first scrape after; a
// failed count shows no figure, never an old one as if new; a max age of
// 0 counts on every scrape.
func TestActiveCodesAreCountedOncePerMaxAge(t *testing.T) {
	now := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	active, counts := int64(5), 0
	var fail error
	c := newCodeCounts(time.Minute, func(_ context.Context, env parcelgate.Environment) (int64, error) {
		counts++
		return active, fail
	}, func(parcelgate.Environment, error) {})
	c.now = func() time.Time { return now }
	get := func(want int64, at time.Time, wantCounts int) {
		t.Helper()
		n, ok := c.get(parcelgate.Production)
		if !ok || n.n != want || !n.at.Equal(at) || counts != wantCounts {
			t.Fatalf("got %d counted at %s (ok %v) after %d counts; want %d at %s after %d", n.n, n.at, ok, counts, want, at, wantCounts)
		}
	}
	start := now
	get(5, start, 1)
	active, now = 7, now.Add(59*time.Second)
	get(5, start, 1) // kept: counted 59 s ago
	now = now.Add(time.Second)
	get(7, now, 2) // a minute old: counted afresh
	if _, ok := c.get(parcelgate.Test); !ok || counts != 3 {
		t.Fatalf("another environment is counted for itself: %d counts", counts)
	}

	fail, now = errors.New("database away"), now.Add(time.Minute)
	if n, ok := c.get(parcelgate.Production); ok {
		t.Fatalf("a failed count showed %+v", n)
	}
	fail = nil
	get(7, now, 5) // not the figure from before the failure: counted again

	c.maxAge, active = 0, 9
	get(9, now, 6)
	get(9, now, 7)
}
