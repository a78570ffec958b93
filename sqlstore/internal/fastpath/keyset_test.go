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
	if _, ok, err := c.Start(0, p0, 2, find(PageKey{}, nil)); ok || err != nil || finds != 0 {
		t.Fatalf("page 0: %v %v, %d finds", ok, err, finds)
	}
	c.Record(0, BoundaryKey{Scope: "q", Position: 2}, PageKey{Stamp: 9, ID: 4})
	p1 := BoundaryKey{Scope: "q", Position: 2}
	if k, ok, err := c.Start(0, p1, 2, find(PageKey{}, errors.New("not asked"))); !ok || err != nil || k != (PageKey{Stamp: 9, ID: 4}) || finds != 0 {
		t.Fatalf("page 1 after page 0: %v %v %v, %d finds", k, ok, err, finds)
	}
	for _, other := range []BoundaryKey{{Scope: "q2", Position: 2}, {Scope: "q", Position: 3}} {
		if k, ok, err := c.Start(0, other, 3, find(PageKey{ID: 77}, nil)); !ok || err != nil || k.ID != 77 {
			t.Errorf("%v: %v %v %v, want found afresh", other, k, ok, err)
		}
	}
	if finds != 2 {
		t.Fatalf("%d finds, want 2", finds)
	}
	noRows := errors.New("no rows")
	p9 := BoundaryKey{Scope: "q", Position: 18}
	if _, ok, err := c.Start(0, p9, 2, find(PageKey{}, noRows)); ok || err != noRows {
		t.Fatalf("past the end: %v %v", ok, err)
	}
	if _, ok := c.get(0, p9); ok {
		t.Fatal("a failed find was recorded")
	}
	// A missed page walks from the nearest recorded page before it: page
	// 9 from page 1's start, 8 pages of 2.
	if walked != (walk{PageKey{Stamp: 9, ID: 4}, true, 16}) {
		t.Fatalf("page 9 walked %+v, want from page 1's start, skipping 16", walked)
	}
	p4 := BoundaryKey{Scope: "q3", Position: 8}
	c.Start(0, p4, 2, find(PageKey{ID: 1}, nil))
	if walked != (walk{skip: 8}) {
		t.Fatalf("page 4 of a list with no recorded page 1-3 walked %+v, want from the beginning, skipping 8", walked)
	}
	finds--
	now = now.Add(BoundaryTTL + time.Second)
	if k, ok, _ := c.Start(0, p1, 2, find(PageKey{ID: 5}, nil)); !ok || k.ID != 5 || finds != 4 {
		t.Fatalf("an expired boundary was used: %v, %d finds", k, finds)
	}
}

// Boundaries stay bounded: past BoundaryEntries, expired entries go, and
// when none has expired the map starts over.
func TestBoundariesAreBounded(t *testing.T) {
	now := time.Now()
	c := Boundaries{now: func() time.Time { return now }}
	for i := range BoundaryEntries {
		c.put(0, BoundaryKey{Scope: "q", Position: int64(i + 1)}, PageKey{ID: int64(i)})
	}
	c.put(0, BoundaryKey{Scope: "q", Position: -1}, PageKey{})
	if n := len(c.m); n != 1 {
		t.Fatalf("%d entries after overflow, want 1", n)
	}
}

// decisions §73: a boundary is used and recorded only in the epoch it was
// found in. A read that took the epoch before a moving commit began holds
// no more once it has begun, and looks nothing up nor records anything,
// during the commit and after it; one that took it while the commit was
// under way never holds; after the commit every boundary is forgotten and
// the next read records afresh. Moved (another instance's commit) does
// the same at once.
func TestBoundariesOfAMovedEpochAreNeitherUsedNorRecorded(t *testing.T) {
	var c Boundaries
	k := BoundaryKey{Scope: "q", Position: 2}
	finds := 0
	find := func(id int64) func(PageKey, bool, int64) (PageKey, error) {
		return func(from PageKey, fromSet bool, skip int64) (PageKey, error) {
			finds++
			if fromSet || skip != k.Position {
				t.Fatalf("walked from %v (%v), skipping %d: want from the beginning", from, fromSet, skip)
			}
			return PageKey{ID: id}, nil
		}
	}
	before := c.Epoch()
	c.Record(before, k, PageKey{ID: 1})
	if got, _, _ := c.Start(before, k, 2, find(9)); got.ID != 1 || finds != 0 {
		t.Fatalf("in its epoch: %v, %d finds", got, finds)
	}
	end := c.Moving()
	during := c.Epoch()
	for _, e := range []Epoch{before, during} {
		if c.Holds(e) {
			t.Fatalf("epoch %x holds during a moving commit", e)
		}
		if got, _, _ := c.Start(e, k, 2, find(2)); got.ID != 2 {
			t.Fatalf("epoch %x during the commit used %v", e, got)
		}
		c.Record(e, BoundaryKey{Scope: "q", Position: 4}, PageKey{ID: 3})
	}
	end(NoPosition)
	end(NoPosition) // once only
	after := c.Epoch()
	if !c.Holds(after) || c.Holds(before) || c.Holds(during) || after == before {
		t.Fatalf("after the commit: epochs %x %x %x, now %x", before, during, after, c.state.Load())
	}
	if len(c.m) != 0 {
		t.Fatalf("%d boundaries kept after a move: %v", len(c.m), c.m)
	}
	for _, e := range []Epoch{before, during, Blind} {
		c.Record(e, k, PageKey{ID: 4})
		if got, _, _ := c.Start(e, k, 2, find(5)); got.ID != 5 {
			t.Fatalf("epoch %x after the commit used %v", e, got)
		}
	}
	if len(c.m) != 0 {
		t.Fatalf("recorded in a moved epoch: %v", c.m)
	}
	if got, _, _ := c.Start(after, k, 2, find(6)); got.ID != 6 {
		t.Fatalf("the new epoch's first read: %v", got)
	}
	if got, _, _ := c.Start(after, k, 2, find(7)); got.ID != 6 {
		t.Fatalf("the new epoch's second read found %v, not the first's", got)
	}
	c.Moved(NoPosition)
	if c.Holds(after) || len(c.m) != 0 {
		t.Fatalf("Moved kept epoch %x or %d boundaries", after, len(c.m))
	}
	if got, _, _ := c.Start(c.Epoch(), k, 2, find(8)); got.ID != 8 {
		t.Fatalf("after Moved: %v", got)
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

// decisions §73: NotReplayed says whether a replica that has replayed a
// position may miss a move: short of the highest WAL position known at or
// after a move's commit (moves may end in any order), or, for a move whose
// position is not known, within the window after it.
func TestNotReplayed(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := Boundaries{now: func() time.Time { return now }}
	if c.NotReplayed(0, time.Hour) {
		t.Fatal("never moved, yet a replica that replayed nothing may miss a move")
	}
	c.Moved(200)
	if !c.NotReplayed(199, time.Hour) {
		t.Fatal("a replica short of a move's position was taken as having replayed it")
	}
	if c.NotReplayed(200, time.Hour) {
		t.Fatal("a replica at a move's position, its position known, was kept blind by the window")
	}
	// Two commits under way, ending in the other order: the higher
	// position stays.
	end1, end2 := c.Moving(), c.Moving()
	end2(400)
	end1(300)
	if !c.NotReplayed(399, time.Hour) || c.NotReplayed(400, time.Hour) {
		t.Fatal("the highest position of the moves is not the one kept")
	}
	// A move whose position is not known: the window, from its end.
	end := c.Moving()
	now = now.Add(time.Minute)
	if c.NotReplayed(400, time.Second) {
		t.Fatal("a commit under way has not moved the epoch's end yet")
	}
	end(NoPosition)
	now = now.Add(time.Second)
	if !c.NotReplayed(400, 2*time.Second) || c.NotReplayed(400, time.Second) {
		t.Fatal("a move of no known position a second ago: want within 2s and not within 1s")
	}
	c.Moved(NoPosition)
	if !c.NotReplayed(1<<40, time.Millisecond) {
		t.Fatal("a move elsewhere of no known position just now: want the window")
	}
	if !c.NotReplayed(399, 0) {
		t.Fatal("a move of no known position made the known one forgotten")
	}
}
