package fulfillment

import (
	"testing"
	"time"
)

// decisions §70: the next look is when the store said the next thing is
// due, never sooner than the least interval after the last look began
// (writes that woke it are taken together, a failed move waits), and never
// later than the re-check for other instances' writes.
func TestNextLook(t *testing.T) {
	p := pace{min: time.Second, recheck: 10 * time.Second}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name string
		next time.Time
		want time.Time
	}{
		{"nothing waits: the re-check", time.Time{}, start.Add(10 * time.Second)},
		{"due in 3 s", start.Add(3 * time.Second), start.Add(3 * time.Second)},
		{"due after the re-check", start.Add(time.Hour), start.Add(10 * time.Second)},
		{"due at once (left behind): after the interval", start, start.Add(time.Second)},
		{"due before the look began", start.Add(-time.Minute), start.Add(time.Second)},
	} {
		if got := p.nextLook(start, c.next); !got.Equal(c.want) {
			t.Errorf("%s: next look at %s, want %s", c.name, got.Sub(start), c.want.Sub(start))
		}
	}
}

func TestEarliest(t *testing.T) {
	a, b := time.Unix(10, 0), time.Unix(20, 0)
	for _, c := range []struct{ x, y, want time.Time }{
		{time.Time{}, time.Time{}, time.Time{}},
		{a, time.Time{}, a},
		{time.Time{}, b, b},
		{a, b, a},
		{b, a, a},
	} {
		if got := earliest(c.x, c.y); !got.Equal(c.want) {
			t.Errorf("earliest(%v, %v) = %v", c.x, c.y, got)
		}
	}
}
