package sqlstore_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/sqlstore"
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

// decisions §6: an order's transaction takes its organization's
// clock, so orders of different organizations never wait for each other:
// organization B takes stamps while A's transaction holds A's clock. Only
// PostgreSQL runs writers in parallel; SQLite's single writer connection
// orders every transaction by design.
func TestOrgStampsDoNotWaitForOtherOrganizations(t *testing.T) {
	db := testdb.Open(t, "postgres", frozenClock{time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
	// A hang guard only: the test fails on a wait, however long it is.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a, b := stampOrg(t, db, "1234567-1"), stampOrg(t, db, "0737546-2")
	held, release, err := db.HoldOrgStampForTest(ctx, parcelgate.Production, a)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := db.NextOrgStampForTest(ctx, parcelgate.Production, b)
	if err != nil {
		release()
		t.Fatalf("organization B's stamp while A's transaction is open: %v (it waited for A's clock)", err)
	}
	after := make(chan time.Time, 1)
	go func() {
		s, err := db.NextOrgStampForTest(ctx, parcelgate.Production, a)
		if err != nil {
			t.Error(err)
		}
		after <- s
	}()
	if err := release(); err != nil {
		t.Fatal(err)
	}
	sa := <-after
	if !sa.After(held) {
		t.Fatalf("A's next stamp %v is not after the stamp %v its clock held", sa, held)
	}
	env, err := db.NextStampForTest(ctx, parcelgate.Production)
	if err != nil {
		t.Fatal(err)
	}
	if !env.After(sa) || !env.After(sb) {
		t.Fatalf("the environment's stamp %v is not after the organizations' %v, %v", env, sa, sb)
	}
	if next, err := db.NextOrgStampForTest(ctx, parcelgate.Production, b); err != nil || !next.After(env) {
		t.Fatalf("B's stamp %v after the environment's %v: %v", next, env, err)
	}
}

// decisions §6: in each organization's feeds, the stamps of its order
// transactions and of the environment-wide writers (suppliers' products
// and balances) never repeat, under a clock that stands still and with all
// of them writing at once.
func TestOrgAndEnvironmentStampsNeverRepeat(t *testing.T) {
	for _, engine := range testdb.Engines {
		t.Run(engine, func(t *testing.T) {
			db := testdb.Open(t, engine, frozenClock{time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
			ctx := context.Background()
			orgs := []int64{stampOrg(t, db, "1234567-1"), stampOrg(t, db, "0737546-2")}
			var mu sync.Mutex
			byOrg := map[int64][]time.Time{}
			var envStamps []time.Time
			var wg sync.WaitGroup
			for i := range 6 {
				wg.Go(func() {
					for range 10 {
						if i < 2 {
							s, err := db.NextStampForTest(ctx, parcelgate.Production)
							if err != nil {
								t.Error(err)
								return
							}
							mu.Lock()
							envStamps = append(envStamps, s)
							mu.Unlock()
							continue
						}
						org := orgs[i%2]
						s, err := db.NextOrgStampForTest(ctx, parcelgate.Production, org)
						if err != nil {
							t.Error(err)
							return
						}
						mu.Lock()
						byOrg[org] = append(byOrg[org], s)
						mu.Unlock()
					}
				})
			}
			wg.Wait()
			for _, org := range orgs {
				seen := map[time.Time]bool{}
				for _, s := range append(byOrg[org], envStamps...) {
					if seen[s] {
						t.Fatalf("stamp %v handed out twice in the feeds of organization %d", s, org)
					}
					seen[s] = true
				}
				if len(seen) != 40 {
					t.Fatalf("organization %d: %d stamps, want 40", org, len(seen))
				}
			}
		})
	}
}

func stampOrg(t *testing.T, db *sqlstore.DB, businessID string) int64 {
	t.Helper()
	o := &parcelgate.Organization{Environment: parcelgate.Production, BusinessID: businessID, Name: "Org " + businessID}
	if err := sqlstore.NewOrganizationService(db).CreateOrganization(context.Background(), parcelgate.EnvironmentOperator(o.Environment), o); err != nil {
		t.Fatal(err)
	}
	return o.ID
}

// When one instance moves the environment clock and another has not
// read the move yet, a stamp the lagging instance takes is still after
// every stamp taken on the moved clock: time never runs backwards for
// change stamps.
func TestStampsAcrossInstancesWithAMovedClock(t *testing.T) {
	testdb.EachDSN(t, func(t *testing.T, dsn string, engine string) {
		ctx := context.Background()
		ahead, lagging := new(parcelgate.OffsetClock), new(parcelgate.OffsetClock)
		a := testdb.OpenAt(t, dsn, ahead)
		b := testdb.OpenAt(t, dsn, lagging)
		if _, err := sqlstore.NewControlService(a).AdvanceClock(ctx, parcelgate.EnvironmentOperator(parcelgate.Test), 24*time.Hour); err != nil {
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

// Decisions §6: one organization's order transactions no longer
// wait for each other: a second one takes its stamp while the first is
// still open, and its stamp is the later. PostgreSQL only, as above.
func TestOneOrganizationsStampsDoNotWaitForEachOther(t *testing.T) {
	db := testdb.Open(t, "postgres", frozenClock{time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
	// A hang guard only: under the old design the second stamp waited for
	// the first transaction's commit, forever here.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a := stampOrg(t, db, "1234567-1")
	held, release, err := db.HoldOrgStampForTest(ctx, parcelgate.Production, a)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	next, err := db.NextOrgStampForTest(ctx, parcelgate.Production, a)
	if err != nil {
		t.Fatalf("a second stamp of the organization while its first transaction is open: %v (it waited)", err)
	}
	if !next.After(held) {
		t.Fatalf("second stamp %v is not after the first %v", next, held)
	}
}
