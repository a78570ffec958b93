package fastpath

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// An answer is found only under its whole key and the very version it was
// rendered from; the WAL-index shortcut only under the header it was last
// confirmed under.
func TestAnswersAreExact(t *testing.T) {
	var c Answers
	k := AnswerKey{Encoding: "json", Org: 1, ID: "A1"}
	v := Version{PK: 7, Stamp: 100}
	w := WALStamp{walIndexFormat, 1}
	c.Put(k, v, []byte("a"), w)
	if b, ok := c.Get(k, v, WALStamp{}); !ok || string(b) != "a" {
		t.Fatalf("same key and version: %q, %v", b, ok)
	}
	for _, other := range []AnswerKey{{Encoding: "xml", Org: 1, ID: "A1"}, {Encoding: "json", Org: 2, ID: "A1"}, {Encoding: "json", Org: 1, PK: 7}} {
		if _, ok := c.Get(other, v, WALStamp{}); ok {
			t.Errorf("%+v found the answer of %+v", other, k)
		}
	}
	if _, ok := c.Get(k, Version{PK: 7, Stamp: 101}, WALStamp{}); ok {
		t.Error("a newer stamp of the row found the older answer")
	}
	if _, ok := c.Get(k, Version{PK: 8, Stamp: 100}, WALStamp{}); ok {
		t.Error("another row with the same stamp found the answer")
	}
	if _, ok := c.Unchanged(k, w); !ok {
		t.Error("the header it was put under did not confirm it")
	}
	w2 := WALStamp{walIndexFormat, 2}
	if _, ok := c.Unchanged(k, w2); ok {
		t.Error("a later header confirmed it without a read")
	}
	c.Get(k, v, w2) // read again under w2: confirmed there
	if _, ok := c.Unchanged(k, w2); !ok {
		t.Error("a read under a new header did not confirm it")
	}
}

// Reads that wait behind a statement go in the next one together, each
// getting its own key's row; a failed statement fails each read in it; a
// waiter whose context ends leaves.
func TestCoalescerBatchesAndKeepsEachKey(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	var batches [][]int
	c := &Coalescer[int, int]{Timeout: time.Minute}
	c.Fetch = func(ctx context.Context, keys []int, rows []int, found []bool) error {
		mu.Lock()
		first := len(batches) == 0
		batches = append(batches, append([]int(nil), keys...))
		mu.Unlock()
		if first {
			<-release
		}
		for i, k := range keys {
			if k == 13 {
				return errors.New("unlucky")
			}
			if k%2 == 0 {
				rows[i], found[i] = k*10, true
			}
		}
		return nil
	}
	ctx := context.Background()
	var wg sync.WaitGroup
	wg.Go(func() {
		if v, ok, err := c.Read(ctx, 2); v != 20 || !ok || err != nil {
			t.Errorf("read 2: %d, %v, %v", v, ok, err)
		}
	})
	for c.Queued() == 0 && func() bool { mu.Lock(); defer mu.Unlock(); return len(batches) == 0 }() {
		time.Sleep(time.Millisecond)
	}
	gone, cancel := context.WithCancel(ctx)
	for _, k := range []int{4, 5, 4, 99} {
		wg.Go(func() {
			rctx := ctx
			if k == 99 {
				rctx = gone
			}
			v, ok, err := c.Read(rctx, k)
			switch {
			case k == 99:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("cancelled read: %d, %v, %v", v, ok, err)
				}
			case k%2 == 0 && (v != k*10 || !ok || err != nil), k%2 == 1 && (ok || err != nil):
				t.Errorf("read %d: %d, %v, %v", k, v, ok, err)
			}
		})
	}
	for c.Queued() < 4 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	for c.Queued() > 3 {
		time.Sleep(time.Millisecond)
	}
	close(release)
	wg.Wait()
	mu.Lock()
	if len(batches) != 2 || len(batches[1]) != 2 {
		t.Fatalf("statements %v: want the first alone, then 4 and 5 once each", batches)
	}
	mu.Unlock()
	if _, _, err := c.Read(ctx, 13); err == nil {
		t.Error("a failed statement answered its read")
	}
	if st, rd := c.Stats(); st != 3 || rd != 5 {
		t.Errorf("stats %d statements, %d reads; want 3, 5", st, rd)
	}
}
