package fastpath

import (
	"testing"
	"unsafe"
)

// A header a writer is midway through (its two copies differ), or one of
// another format, is never trusted: the store reads instead.
func TestWALStampTrustsOnlyAWholeHeader(t *testing.T) {
	words := make([]uint32, 2*walHeaderWords)
	mem := unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), 4*len(words))
	w := &WALIndex{mem: mem}
	header := func(change uint32) {
		for i := range walHeaderWords {
			words[i], words[walHeaderWords+i] = 0, 0
		}
		words[0], words[walHeaderWords] = walIndexFormat, walIndexFormat
		words[2], words[walHeaderWords+2] = change, change
	}
	header(7)
	s, ok := w.Stamp()
	if !ok || s[2] != 7 {
		t.Fatalf("whole header: %v, %v", s, ok)
	}
	// SQLite writes the second copy first: a reader between the two
	// writes sees them differ.
	words[walHeaderWords+2] = 8
	if _, ok := w.Stamp(); ok {
		t.Fatal("a header midway through a write was trusted")
	}
	words[2] = 8
	if s2, ok := w.Stamp(); !ok || s2 == s {
		t.Fatalf("after a commit: %v, %v (was %v)", s2, ok, s)
	}
	header(9)
	words[0], words[walHeaderWords] = 3007001, 3007001
	if _, ok := w.Stamp(); ok {
		t.Fatal("a header of another format was trusted")
	}
}
