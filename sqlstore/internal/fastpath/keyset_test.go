package fastpath

import (
	"errors"
	"testing"
	"time"
)

// Page N's start is recorded by serving page N-1 and found by find only on
// a miss, per scope and size; page 0 needs none; an entry expires after
// BoundaryTTL, and a failed find records nothing.
func TestBoundaries(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := Boundaries{now: func() time.Time { return now }}
	finds := 0
	type walk struct {
		from    PageKey
		fromSet bool
		skip    int64
	}
	var walked walk
	find := func(k PageKey, err error) func(PageKey, bool, int64) (PageKey, error) {
		return func(from PageKey, fromSet bool, skip int64) (PageKey, error) {
			finds++
			walked = walk{from, fromSet, skip}
			return k, err
		}
	}
	p0 := BoundaryKey{Scope: "q", Position: 0}
	if _, ok, err := c.Start(p0, 2, find(PageKey{}, nil)); ok || err != nil || finds != 0 {
		t.Fatalf("page 0: %v %v, %d finds", ok, err, finds)
	}
	c.Record(BoundaryKey{Scope: "q", Position: 2}, PageKey{Stamp: 9, ID: 4})
	p1 := BoundaryKey{Scope: "q", Position: 2}
	if k, ok, err := c.Start(p1, 2, find(PageKey{}, errors.New("not asked"))); !ok || err != nil || k != (PageKey{Stamp: 9, ID: 4}) || finds != 0 {
		t.Fatalf("page 1 after page 0: %v %v %v, %d finds", k, ok, err, finds)
	}
	for _, other := range []BoundaryKey{{Scope: "q2", Position: 2}, {Scope: "q", Position: 3}} {
		if k, ok, err := c.Start(other, 3, find(PageKey{ID: 77}, nil)); !ok || err != nil || k.ID != 77 {
			t.Errorf("%v: %v %v %v, want found afresh", other, k, ok, err)
		}
	}
	if finds != 2 {
		t.Fatalf("%d finds, want 2", finds)
	}
	noRows := errors.New("no rows")
	p9 := BoundaryKey{Scope: "q", Position: 18}
	if _, ok, err := c.Start(p9, 2, find(PageKey{}, noRows)); ok || err != noRows {
		t.Fatalf("past the end: %v %v", ok, err)
	}
	if _, ok := c.get(p9); ok {
		t.Fatal("a failed find was recorded")
	}
	// A missed page walks from the nearest recorded page before it: page
	// 9 from page 1's start, 8 pages of 2.
	if walked != (walk{PageKey{Stamp: 9, ID: 4}, true, 16}) {
		t.Fatalf("page 9 walked %+v, want from page 1's start, skipping 16", walked)
	}
	p4 := BoundaryKey{Scope: "q3", Position: 8}
	c.Start(p4, 2, find(PageKey{ID: 1}, nil))
	if walked != (walk{skip: 8}) {
		t.Fatalf("page 4 of a list with no recorded page 1-3 walked %+v, want from the beginning, skipping 8", walked)
	}
	finds--
	now = now.Add(BoundaryTTL + time.Second)
	if k, ok, _ := c.Start(p1, 2, find(PageKey{ID: 5}, nil)); !ok || k.ID != 5 || finds != 4 {
		t.Fatalf("an expired boundary was used: %v, %d finds", k, finds)
	}
}

// Boundaries stay bounded: past BoundaryEntries, expired entries go, and
// when none has expired the map starts over.
func TestBoundariesAreBounded(t *testing.T) {
	now := time.Now()
	c := Boundaries{now: func() time.Time { return now }}
	for i := range BoundaryEntries {
		c.put(BoundaryKey{Scope: "q", Position: int64(i + 1)}, PageKey{ID: int64(i)})
	}
	c.put(BoundaryKey{Scope: "q", Position: -1}, PageKey{})
	if n := len(c.m); n != 1 {
		t.Fatalf("%d entries after overflow, want 1", n)
	}
}

// One statement on an engine of round trips for pages up to OnePageRows,
// and for a list of a few rows on every engine (decisions §25).
func TestOneStatement(t *testing.T) {
	for _, c := range []struct {
		roundTrips, fewRows bool
		size                int
		want                bool
	}{
		{true, false, OnePageRows, true},
		{true, false, OnePageRows + 1, false},
		{false, false, 1, false},
		{false, true, 2000, true},
		{true, true, 2000, true},
	} {
		if got := OneStatement(c.roundTrips, c.fewRows, c.size); got != c.want {
			t.Errorf("OneStatement(%v, %v, %d) = %v", c.roundTrips, c.fewRows, c.size, got)
		}
	}
}
