package fastpath

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

// A kept count is reused only while the scope's newest stamp is the one it
// was counted at and the cut-off has not reached a row's end of sale
// (decisions §17, §25): any other stamp, an earlier cut-off or one at or
// past the crossing stamp counts afresh.
func TestCountsAreReusedOnlyWhileProvedExact(t *testing.T) {
	var c Counts
	k := CountKey{Scope: "balances b|b.catalog_id = ?", Filters: "b.catalog_id = ?[7];"}
	counted := 0
	count := func(n int64) func() (int64, error) {
		return func() (int64, error) { counted++; return n, nil }
	}
	cross := func() (int64, bool, error) { return 500, true, nil }
	total := func(newest, cutoff, n int64) int64 {
		t.Helper()
		got, err := c.Total(k, newest, cutoff, count(n), cross)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if n := total(10, 100, 3); n != 3 || counted != 1 {
		t.Fatalf("first count: %d, counted %d", n, counted)
	}
	if n := total(10, 100, 99); n != 3 || counted != 1 {
		t.Fatalf("same stamp and cut-off: %d, counted %d; want the kept 3", n, counted)
	}
	if n := total(10, 499, 99); n != 3 || counted != 1 {
		t.Fatalf("cut-off before the crossing stamp: %d, counted %d; want the kept 3", n, counted)
	}
	steps := []struct {
		name           string
		newest, cutoff int64
	}{
		{"a newer stamp", 11, 100},
		{"an older stamp (a restored scope)", 9, 100},
		{"a cut-off that reached the crossing stamp", 10, 500},
		{"a cut-off before the one counted under", 10, 99},
	}
	for i, s := range steps {
		c.Keep(k, Counted(3, 10, 100, 500, true))
		if n := total(s.newest, s.cutoff, int64(40+i)); n != int64(40+i) || counted != 2+i {
			t.Errorf("%s: total %d, counted %d times; want counted afresh", s.name, n, counted)
		}
	}
	// Another scope or other filters never meet the count.
	c.Keep(k, Counted(3, 10, 100, 500, true))
	for _, other := range []CountKey{{Scope: k.Scope, Filters: "b.catalog_id = ?[8];"}, {Scope: "balances b|b.retailer_org_id = ?", Filters: k.Filters}} {
		if _, ok := c.Kept(other, 100); ok {
			t.Errorf("%v found the count of %v", other, k)
		}
	}
}

// Kept hands out only a count whose cut-off range still holds; the stamp is
// the caller's to check (Holds), as a one-statement page does in SQL.
func TestKeptCountsCoverTheirCutOffOnly(t *testing.T) {
	var c Counts
	k := CountKey{Scope: "s", Filters: "f"}
	c.Keep(k, Counted(5, 20, 100, 0, false))
	e, ok := c.Kept(k, math.MaxInt64-1)
	if !ok || e.Cross != math.MaxInt64 || !e.Holds(20, 1000) || e.Holds(21, 1000) {
		t.Fatalf("a count with no crossing stamp: %+v %v", e, ok)
	}
	c.Keep(k, Counted(5, 20, 100, 150, true))
	for cutoff, want := range map[int64]bool{99: false, 100: true, 149: true, 150: false} {
		if _, ok := c.Kept(k, cutoff); ok != want {
			t.Errorf("cut-off %d: kept %v, want %v", cutoff, ok, want)
		}
	}
}

// A failed count or crossing read keeps nothing.
func TestCountErrorsKeepNothing(t *testing.T) {
	var c Counts
	k := CountKey{Scope: "s"}
	boom := errors.New("boom")
	if _, err := c.Total(k, 1, 0, func() (int64, error) { return 0, boom }, nil); err != boom {
		t.Fatalf("count's error: %v", err)
	}
	if _, err := c.Total(k, 1, 0, func() (int64, error) { return 4, nil }, func() (int64, bool, error) { return 0, false, boom }); err != boom {
		t.Fatalf("crossing read's error: %v", err)
	}
	if _, ok := c.Kept(k, 0); ok {
		t.Fatal("a failed count was kept")
	}
}

// A cursor decodes to the key it was made from, for its own kind of list
// only; anything else is refused.
func TestCursorsRoundTrip(t *testing.T) {
	for _, k := range []PageKey{{0, 0}, {1, 1}, {1764000000000000, 412638}, {math.MaxInt64, math.MaxInt64}, {-5, 3}} {
		for _, byStamp := range []bool{false, true} {
			want := k
			if !byStamp {
				want.Stamp = 0
			}
			cur := Cursor(k, byStamp)
			got, ok := ParseCursor(cur, byStamp)
			if !ok || got != want {
				t.Errorf("Cursor(%v, %v) = %q parses to %v %v", k, byStamp, cur, got, ok)
			}
			if _, ok := ParseCursor(cur, !byStamp); ok {
				t.Errorf("%q (byStamp %v) parses as a cursor of the other kind of list", cur, byStamp)
			}
		}
	}
	if got := Cursor(PageKey{Stamp: 36, ID: 35}, true); got != "MTAueg" { // base64 of "10.z"
		// The format is what clients hold in their next links: it must
		// not change.
		t.Errorf("cursor format changed: %q", got)
	}
	for _, bad := range []string{"", "!!", "bm90IGEgbnVtYmVy", "MS4yLjM", strings.Repeat("A", 40)} {
		for _, byStamp := range []bool{false, true} {
			if k, ok := ParseCursor(bad, byStamp); ok {
				t.Errorf("ParseCursor(%q, %v) = %v, want refused", bad, byStamp, k)
			}
		}
	}
}

// Page N's start is recorded by serving page N-1 and found by find only on
// a miss, per scope and size; page 0 needs none; an entry expires after
// BoundaryTTL, and a failed find records nothing.
func TestBoundaries(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := Boundaries{now: func() time.Time { return now }}
	finds := 0
	find := func(k PageKey, err error) func() (PageKey, error) {
		return func() (PageKey, error) { finds++; return k, err }
	}
	p0 := BoundaryKey{Scope: "q", Size: 2, Number: 0}
	if _, ok, err := c.Start(p0, find(PageKey{}, nil)); ok || err != nil || finds != 0 {
		t.Fatalf("page 0: %v %v, %d finds", ok, err, finds)
	}
	cur := c.Next(p0, true, PageKey{Stamp: 9, ID: 4})
	if k, ok := ParseCursor(cur, true); !ok || k != (PageKey{9, 4}) {
		t.Fatalf("next cursor %q: %v %v", cur, k, ok)
	}
	p1 := BoundaryKey{Scope: "q", Size: 2, Number: 1}
	if k, ok, err := c.Start(p1, find(PageKey{}, errors.New("not asked"))); !ok || err != nil || k != (PageKey{9, 4}) || finds != 0 {
		t.Fatalf("page 1 after page 0: %v %v %v, %d finds", k, ok, err, finds)
	}
	for _, other := range []BoundaryKey{{Scope: "q2", Size: 2, Number: 1}, {Scope: "q", Size: 3, Number: 1}} {
		if k, ok, err := c.Start(other, find(PageKey{ID: 77}, nil)); !ok || err != nil || k.ID != 77 {
			t.Errorf("%v: %v %v %v, want found afresh", other, k, ok, err)
		}
	}
	if finds != 2 {
		t.Fatalf("%d finds, want 2", finds)
	}
	noRows := errors.New("no rows")
	p9 := BoundaryKey{Scope: "q", Size: 2, Number: 9}
	if _, ok, err := c.Start(p9, find(PageKey{}, noRows)); ok || err != noRows {
		t.Fatalf("past the end: %v %v", ok, err)
	}
	if _, ok := c.get(p9); ok {
		t.Fatal("a failed find was recorded")
	}
	now = now.Add(BoundaryTTL + time.Second)
	if k, ok, _ := c.Start(p1, find(PageKey{ID: 5}, nil)); !ok || k.ID != 5 || finds != 4 {
		t.Fatalf("an expired boundary was used: %v, %d finds", k, finds)
	}
}

// Boundaries stay bounded: past BoundaryEntries, expired entries go, and
// when none has expired the map starts over.
func TestBoundariesAreBounded(t *testing.T) {
	now := time.Now()
	c := Boundaries{now: func() time.Time { return now }}
	for i := range BoundaryEntries {
		c.put(BoundaryKey{Scope: "q", Size: 1, Number: i + 1}, PageKey{ID: int64(i)})
	}
	c.put(BoundaryKey{Scope: "q", Size: 1, Number: -1}, PageKey{})
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

// fakeResult is a statement's answer of rows, one int each.
type fakeResult struct {
	rows     []int
	at       int
	err      error // from Err
	closed   bool
	affected int64
}

func (r *fakeResult) Next() bool {
	if r.at >= len(r.rows) {
		return false
	}
	r.at++
	return true
}
func (r *fakeResult) Scan(dest ...any) error { *dest[0].(*int) = r.rows[r.at-1]; return nil }
func (r *fakeResult) Err() error             { return r.err }
func (r *fakeResult) Close()                 { r.closed = true }
func (r *fakeResult) Affected() int64        { return r.affected }

// A pipeline reads its answers in the order queued, hands each row to its
// statement's scan, drains rows nobody reads, and stops at the first
// failure with its error as given, opening nothing after it (decisions §27).
func TestPipelineReadsInOrderAndStopsAtTheFirstFailure(t *testing.T) {
	results := []*fakeResult{{rows: []int{1, 2}, affected: 2}, {affected: 5}, {rows: []int{7}, affected: 1}}
	var opened []int
	var seen []int
	open := func(i int) (Result, error) { opened = append(opened, i); return results[i], nil }
	scan := func(i int) ScanFunc {
		if i == 1 {
			return nil
		}
		return func(scan func(...any) error) error {
			var v int
			err := scan(&v)
			seen = append(seen, v)
			return err
		}
	}
	n, err := Pipeline(3, open, scan)
	if err != nil || len(n) != 3 || n[0] != 2 || n[1] != 5 || n[2] != 1 {
		t.Fatalf("counts %v, %v", n, err)
	}
	if len(seen) != 3 || seen[0] != 1 || seen[1] != 2 || seen[2] != 7 || len(opened) != 3 || opened[0] != 0 || opened[2] != 2 {
		t.Fatalf("rows seen %v, opened %v", seen, opened)
	}
	for i, r := range results {
		if !r.closed {
			t.Errorf("result %d left open", i)
		}
	}

	unique := errors.New("unique violation")
	for name, fail := range map[string]func(){
		"open": func() { open = func(i int) (Result, error) { opened = append(opened, i); return nil, unique } },
		"rows": func() { results[0].err = unique },
		"scan": func() { scan = func(int) ScanFunc { return func(func(...any) error) error { return unique } } },
	} {
		results = []*fakeResult{{rows: []int{1}}, {}}
		opened = nil
		open = func(i int) (Result, error) { opened = append(opened, i); return results[i], nil }
		scan = func(int) ScanFunc { return nil }
		fail()
		if n, err := Pipeline(2, open, scan); err != unique || n != nil {
			t.Errorf("%s fails: %v %v, want the driver's error", name, n, err)
		}
		if len(opened) != 1 {
			t.Errorf("%s fails: opened %v, want only the first", name, opened)
		}
		if name != "open" && !results[0].closed {
			t.Errorf("%s fails: the failed result left open", name)
		}
	}
}
