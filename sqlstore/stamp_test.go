package sqlstore_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/testdb"
)

// frozenClock never moves, the worst case for stamps taken from a clock.
type frozenClock struct{ t time.Time }

func (c frozenClock) Now(parcelgate.Environment) time.Time { return c.t }

// decisions §6: modification stamps strictly increase in commit order, per
// environment, even when the clock stands still and writers run at once.
func TestStampsStrictlyIncrease(t *testing.T) {
	for _, engine := range testdb.Engines {
		t.Run(engine, func(t *testing.T) {
			db := testdb.Open(t, engine, frozenClock{time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
			ctx := context.Background()
			var mu sync.Mutex
			var stamps []time.Time
			var wg sync.WaitGroup
			for range 8 {
				wg.Go(func() {
					for range 10 {
						s, err := db.NextStampForTest(ctx, parcelgate.Production)
						if err != nil {
							t.Error(err)
							return
						}
						mu.Lock()
						stamps = append(stamps, s)
						mu.Unlock()
					}
				})
			}
			wg.Wait()
			seen := map[time.Time]bool{}
			for _, s := range stamps {
				if seen[s] {
					t.Fatalf("stamp %v handed out twice", s)
				}
				seen[s] = true
			}
			if len(seen) != 80 {
				t.Fatalf("%d stamps", len(seen))
			}
			other, err := db.NextStampForTest(ctx, parcelgate.Test)
			if err != nil || !other.Equal(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)) {
				t.Fatalf("test environment's first stamp %v %v: environments share a clock", other, err)
			}
		})
	}
}

// Issue 13: when one instance moves the sandbox clock and another has not
// read the move yet, a stamp the lagging instance takes is still after
// every stamp taken on the moved clock: time never runs backwards for
// change stamps.
func TestStampsAcrossInstancesWithAMovedClock(t *testing.T) {
	testdb.EachDSN(t, func(t *testing.T, dsn string, engine string) {
		ctx := context.Background()
		ahead, lagging := new(parcelgate.SandboxClock), new(parcelgate.SandboxClock)
		a := testdb.OpenAt(t, dsn, ahead)
		b := testdb.OpenAt(t, dsn, lagging)
		if _, err := a.AdvanceClock(ctx, parcelgate.Test, 24*time.Hour); err != nil {
			t.Fatal(err)
		}
		moved, err := a.NextStampForTest(ctx, parcelgate.Test)
		if err != nil {
			t.Fatal(err)
		}
		// b's copy of the clock is a day behind until it reads the move.
		if lagging.Offset(parcelgate.Test) != 0 {
			t.Skip("b read the move already")
		}
		late, err := b.NextStampForTest(ctx, parcelgate.Test)
		if err != nil {
			t.Fatal(err)
		}
		if !late.After(moved) {
			t.Fatalf("lagging instance stamped %v, not after %v", late, moved)
		}
		if err := b.RefreshClock(ctx); err != nil || lagging.Offset(parcelgate.Test) != 24*time.Hour {
			t.Fatalf("after a refresh b's offset is %v (%v)", lagging.Offset(parcelgate.Test), err)
		}
	})
}
