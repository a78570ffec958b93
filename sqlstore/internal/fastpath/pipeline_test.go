package fastpath

import (
	"errors"
	"testing"
)

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
