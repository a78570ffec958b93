package fastpath

import (
	"errors"
	"math"
	"testing"
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

// decisions §69: a list's floor (the smallest stamp among its rows) is
// kept with its total under the one proof: reused while the scope's
// newest stamp is the one they were counted at, both counted afresh
// otherwise; a count the store could not prove keepable is neither kept
// nor answered from a kept one.
func TestFloorsAreKeptWithTheirTotals(t *testing.T) {
	var c Counts
	k := CountKey{Scope: "orders|7", Filters: "o.order_date >= ?[1];"}
	counted := 0
	count := func(n, floor int64) func() (int64, int64, error) {
		return func() (int64, int64, error) { counted++; return n, floor, nil }
	}
	step := func(newest int64, keep bool, n, floor, wantN, wantFloor int64, wantCounted int) {
		t.Helper()
		gotN, gotFloor, err := c.TotalFloor(k, newest, keep, count(n, floor))
		if err != nil || gotN != wantN || gotFloor != wantFloor || counted != wantCounted {
			t.Fatalf("newest %d keep %v: %d, %d, %v (counted %d); want %d, %d (counted %d)", newest, keep, gotN, gotFloor, err, counted, wantN, wantFloor, wantCounted)
		}
	}
	step(10, true, 3, 100, 3, 100, 1)
	step(10, true, 9, 900, 3, 100, 1) // proved unchanged: the kept pair
	step(11, true, 4, 105, 4, 105, 2) // a write: both afresh
	step(11, false, 5, 90, 5, 90, 3)  // not provable: counted, not answered from the kept
	step(11, true, 6, 60, 4, 105, 3)  // and the kept pair was left as it was
	if _, _, err := c.TotalFloor(k, 12, true, func() (int64, int64, error) { return 0, 0, errors.New("late") }); err == nil {
		t.Fatal("a failed count answered")
	}
	step(12, true, 7, 70, 7, 70, 4)
}
