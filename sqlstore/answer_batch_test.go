package sqlstore_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// Decisions §24: point reads of orders on PostgreSQL that arrive while a
// read's statement is in flight go to the database together, in the next
// statement. These tests hold the first statement (the store's hook) so
// that the others queue behind it, deterministically.

// twoTenants makes two organizations of one environment, each with orders
// of the same externalIds E1..En, and returns them with each order's
// service ID by organization and externalId.
func twoTenants(t testing.TB, db *sqlstore.DB, n int) (a, b *parcelgate.Caller, svc map[*parcelgate.Caller]map[string]string) {
	t.Helper()
	a = testOrg(t, db, parcelgate.Production, "1234567-1")
	b = testOrg(t, db, parcelgate.Production, "7654321-2")
	svc = map[*parcelgate.Caller]map[string]string{a: {}, b: {}}
	for _, c := range []*parcelgate.Caller{a, b} {
		for i := 1; i <= n; i++ {
			ext := fmt.Sprintf("E%d", i)
			o, err := sqlstore.NewOrderService(db).CreateOrder(context.Background(), c, testOrderRequest(t, c, ext))
			if err != nil {
				t.Fatal(err)
			}
			svc[c][ext] = o.ID
		}
	}
	return a, b, svc
}

// encoding is f as an encoding of orders called name.
func encoding(name string, f func(*parcelgate.Order) ([]byte, error)) parcelgate.OrderEncoding {
	return parcelgate.OrderEncoding{Name: name, Encode: f}
}

// idRender answers an order as its service ID and externalId.
func idRender(o *parcelgate.Order) ([]byte, error) { return []byte(o.ID + "|" + o.ExternalID), nil }

// holdFirst is a point-read hook that holds the first statement until
// release is closed, and records how many reads each statement carried.
type holdFirst struct {
	mu      sync.Mutex
	sizes   []int
	entered chan struct{}
	release chan struct{}
}

func newHoldFirst() *holdFirst {
	return &holdFirst{entered: make(chan struct{}), release: make(chan struct{})}
}

func (h *holdFirst) hook(reads int) {
	h.mu.Lock()
	h.sizes = append(h.sizes, reads)
	first := len(h.sizes) == 1
	h.mu.Unlock()
	if first {
		close(h.entered)
		<-h.release
	}
}

func (h *holdFirst) statements() []int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]int(nil), h.sizes...)
}

// waitQueued waits until n reads wait for the next statement.
func waitQueued(db *sqlstore.DB, n int) {
	for db.QueuedPointReadsForTest() != n {
		runtime.Gosched()
	}
}

// One statement carries the reads of two organizations whose orders have
// the same externalIds: each read gets its own organization's order, by
// service ID or externalId, never the other's (another tenant's order
// answers like a missing one, interface §4.3), and reads of one key share it.
func TestPointReadsTogetherKeepEachTenant(t *testing.T) {
	testdb.Each(t, nil, func(t *testing.T, db *sqlstore.DB) {
		if db.Dialect() != "postgres" {
			t.Skip("SQLite reads each order alone (decisions §24)")
		}
		ctx := context.Background()
		a, b, svc := twoTenants(t, db, 4)
		h := newHoldFirst()
		db.PointReadHookForTest(h.hook)

		type read struct {
			c, other *parcelgate.Caller
			id, want string // want "": not found
			got      string
			err      error
		}
		var reads []*read
		for _, c := range []*parcelgate.Caller{a, b} {
			other := map[*parcelgate.Caller]*parcelgate.Caller{a: b, b: a}[c]
			for i := 1; i <= 4; i++ {
				ext := fmt.Sprintf("E%d", i)
				want := svc[c][ext] + "|" + ext
				reads = append(reads,
					&read{c: c, id: ext, want: want},
					&read{c: c, id: ext, want: want}, // the same key twice
					&read{c: c, id: svc[c][ext], want: want},
					&read{c: c, id: svc[other][ext]}, // the other tenant's order
				)
			}
			reads = append(reads, &read{c: c, id: "NOPE"})
		}
		var wg sync.WaitGroup
		first := &read{c: a, id: "E1", want: svc[a]["E1"] + "|E1"}
		wg.Go(func() {
			body, err := sqlstore.NewOrderService(db).FindOrderAnswer(ctx, first.c, first.id, encoding("idRender", idRender))
			first.got, first.err = string(body), err
		})
		<-h.entered
		for _, r := range reads {
			wg.Go(func() {
				body, err := sqlstore.NewOrderService(db).FindOrderAnswer(ctx, r.c, r.id, encoding("idRender", idRender))
				r.got, r.err = string(body), err
			})
		}
		waitQueued(db, len(reads))
		close(h.release)
		wg.Wait()
		for _, r := range append(reads, first) {
			switch {
			case r.want == "" && parcelgate.ErrorCode(r.err) != parcelgate.ENOTFOUND:
				t.Errorf("org %d read %s: %q, %v; want not found", r.c.OrgID, r.id, r.got, r.err)
			case r.want != "" && (r.err != nil || r.got != r.want):
				t.Errorf("org %d read %s: %q, %v; want %q", r.c.OrgID, r.id, r.got, r.err, r.want)
			}
		}
		if got := h.statements(); len(got) != 2 || got[0] != 1 || got[1] != len(reads) {
			t.Fatalf("reads per statement: %v, want [1 %d]", got, len(reads))
		}
	})
}

// Many concurrent reads of the orders of two organizations with the same
// externalIds: each gets exactly its own organization's order, on both
// engines (on PostgreSQL, in statements shared with the other tenant's
// reads).
func TestPointReadsOfTwoTenantsUnderLoad(t *testing.T) {
	testdb.Each(t, nil, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		const orders = 12
		a, b, svc := twoTenants(t, db, orders)
		var most atomic.Int64
		db.PointReadHookForTest(func(reads int) {
			for m := most.Load(); int64(reads) > m && !most.CompareAndSwap(m, int64(reads)); m = most.Load() {
			}
		})
		var wg sync.WaitGroup
		for range 32 {
			wg.Go(func() {
				for range 100 {
					c, other := a, b
					if rand.IntN(2) == 0 {
						c, other = b, a
					}
					ext := fmt.Sprintf("E%d", 1+rand.IntN(orders))
					want := svc[c][ext] + "|" + ext
					id := ext
					switch rand.IntN(3) {
					case 1:
						id = svc[c][ext]
					case 2:
						id, want = svc[other][ext], ""
					}
					body, err := sqlstore.NewOrderService(db).FindOrderAnswer(ctx, c, id, encoding("idRender", idRender))
					if want == "" && parcelgate.ErrorCode(err) != parcelgate.ENOTFOUND {
						t.Errorf("org %d read the other tenant's %s: %q, %v", c.OrgID, id, body, err)
						return
					}
					if want != "" && (err != nil || string(body) != want) {
						t.Errorf("org %d read %s: %q, %v; want %q", c.OrgID, id, body, err, want)
						return
					}
				}
			})
		}
		wg.Wait()
		t.Logf("most reads in one statement: %d", most.Load())
	})
}

// A change committed by another instance before a read begins is in the
// read's answer, however the reads around it are coalesced: a writer on
// one store changes an order again and again (a comment's value), each
// change acknowledged before the next; readers on a second store, all the
// time, check that each answer is at least the change acknowledged when
// their read began, and the writer reads after each change.
func TestPointReadSeesEveryCommitBeforeIt(t *testing.T) {
	testdb.EachDSN(t, func(t *testing.T, dsn, engine string) {
		ctx := context.Background()
		w, r := testdb.OpenAt(t, dsn, nil), testdb.OpenAt(t, dsn, nil)
		c := testOrg(t, w, parcelgate.Production, "1234567-1")
		if _, err := sqlstore.NewOrderService(w).CreateOrder(ctx, c, testOrderRequest(t, c, "A1")); err != nil {
			t.Fatal(err)
		}
		set := func(v int) {
			t.Helper()
			if _, _, err := sqlstore.NewOrderService(w).AddOrderComment(ctx, c, "A1", parcelgate.OrderComment{ExternalID: "v", Value: strconv.Itoa(v), Type: "note"}); err != nil {
				t.Fatal(err)
			}
		}
		render := func(o *parcelgate.Order) ([]byte, error) {
			if i := parcelgate.FindComment(o.Comments, "v"); i >= 0 {
				return []byte(o.Comments[i].Value), nil
			}
			return nil, errors.New("no comment v")
		}
		read := func() (int, error) {
			body, err := sqlstore.NewOrderService(r).FindOrderAnswer(ctx, c, "A1", encoding("render", render))
			if err != nil {
				return 0, err
			}
			return strconv.Atoi(string(body))
		}
		set(0)
		var acked atomic.Int64
		var stop atomic.Bool
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				for !stop.Load() {
					before := acked.Load()
					got, err := read()
					if err != nil || int64(got) < before {
						t.Errorf("a read begun after change %d was acknowledged answered %d, %v", before, got, err)
						return
					}
				}
			})
		}
		for v := 1; v <= 150; v++ {
			set(v)
			acked.Store(int64(v))
			if got, err := read(); err != nil || got < v {
				t.Errorf("the read after change %d answered %d, %v", v, got, err)
				break
			}
		}
		stop.Store(true)
		wg.Wait()
	})
}

// A waiter whose request ends stops waiting and leaves the queue; the
// statement goes on for the others.
func TestPointReadWaiterLeavesWhenCancelled(t *testing.T) {
	testdb.Each(t, nil, func(t *testing.T, db *sqlstore.DB) {
		if db.Dialect() != "postgres" {
			t.Skip("SQLite reads each order alone (decisions §24)")
		}
		ctx := context.Background()
		a, _, svc := twoTenants(t, db, 2)
		h := newHoldFirst()
		db.PointReadHookForTest(h.hook)
		var wg sync.WaitGroup
		wg.Go(func() { sqlstore.NewOrderService(db).FindOrderAnswer(ctx, a, "E1", encoding("idRender", idRender)) })
		<-h.entered
		gone, cancel := context.WithCancel(ctx)
		cancelled := make(chan error, 1)
		go func() {
			_, err := sqlstore.NewOrderService(db).FindOrderAnswer(gone, a, "E1", encoding("idRender", idRender))
			cancelled <- err
		}()
		waitQueued(db, 1)
		var got []byte
		var err error
		wg.Go(func() {
			got, err = sqlstore.NewOrderService(db).FindOrderAnswer(ctx, a, "E2", encoding("idRender", idRender))
		})
		waitQueued(db, 2)
		cancel()
		if err := <-cancelled; !errors.Is(err, context.Canceled) {
			t.Fatalf("the cancelled waiter: %v", err)
		}
		waitQueued(db, 1)
		close(h.release)
		wg.Wait()
		if want := svc[a]["E2"] + "|E2"; err != nil || string(got) != want {
			t.Fatalf("the waiter beside a cancelled one: %q, %v; want %q", got, err, want)
		}
		if got := h.statements(); len(got) != 2 || got[1] != 1 {
			t.Fatalf("reads per statement: %v, want [1 1]", got)
		}
	})
}

// A statement that fails fails every read it carries: none is answered
// "not found" or another read's answer.
func TestPointReadsFailTogether(t *testing.T) {
	testdb.Each(t, nil, func(t *testing.T, db *sqlstore.DB) {
		if db.Dialect() != "postgres" {
			t.Skip("SQLite reads each order alone (decisions §24)")
		}
		ctx := context.Background()
		a, b, _ := twoTenants(t, db, 2)
		h := newHoldFirst()
		db.PointReadHookForTest(h.hook)
		errs := make([]error, 5)
		var wg sync.WaitGroup
		wg.Go(func() {
			_, errs[0] = sqlstore.NewOrderService(db).FindOrderAnswer(ctx, a, "E1", encoding("idRender", idRender))
		})
		<-h.entered
		for i, c := range []*parcelgate.Caller{a, a, b, b} {
			wg.Go(func() {
				_, errs[i+1] = sqlstore.NewOrderService(db).FindOrderAnswer(ctx, c, fmt.Sprintf("E%d", 1+i%2), encoding("idRender", idRender))
			})
		}
		waitQueued(db, 4)
		db.Close()
		close(h.release)
		wg.Wait()
		for i, err := range errs {
			if err == nil || parcelgate.ErrorCode(err) == parcelgate.ENOTFOUND {
				t.Errorf("read %d through a closed store: %v", i, err)
			}
		}
		if got := h.statements(); len(got) != 2 || got[1] != 4 {
			t.Fatalf("reads per statement: %v, want [1 4]", got)
		}
	})
}

// Decisions §24: the statement of the coalesced point reads is planned
// once per database connection, not at every execution. Sent as a
// statement of its own PostgreSQL re-planned it every time (its custom plan
// always looked cheaper than the generic one), which was half the
// database's CPU per read; it runs as order_answers, whose own setting
// forces the generic plan, and only while it runs (nothing of the session
// changes, so the same holds through a pooler in transaction mode).
func TestPointReadsArePlannedOnce(t *testing.T) {
	testdb.EachDSN(t, func(t *testing.T, dsn, engine string) {
		if engine != "postgres" {
			t.Skip("PostgreSQL only: SQLite prepares each statement once already")
		}
		db := testdb.OpenAt(t, dsn, nil)
		conf, err := db.PointReadsFunctionConfigForTest(context.Background())
		if err != nil {
			t.Fatalf("the coalesced reads' function: %v", err)
		}
		if !slices.Contains(conf, "plan_cache_mode=force_generic_plan") {
			t.Fatalf("order_answers runs with %q, want plan_cache_mode=force_generic_plan", conf)
		}
		// And the coalesced reads go through it.
		c := testOrg(t, db, parcelgate.Production, "1234567-1")
		if _, err := sqlstore.NewOrderService(db).CreateOrder(context.Background(), c, testOrderRequest(t, c, "A1")); err != nil {
			t.Fatal(err)
		}
		if err := db.ExecForTest(context.Background(), `DROP FUNCTION order_answers`); err != nil {
			t.Fatal(err)
		}
		if _, err := sqlstore.NewOrderService(db).FindOrderAnswer(context.Background(), c, "A1", encoding("idRender", idRender)); err == nil {
			t.Fatal("a point read answered without order_answers")
		}
	})
}

// Two encodings of one order never share bytes: the cache keys an answer
// by the encoding that made it, on a point read and in a list.
func TestOrderAnswerKeysByEncoding(t *testing.T) {
	testdb.Each(t, nil, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		c := testOrg(t, db, parcelgate.Production, "1234567-1")
		orders := sqlstore.NewOrderService(db)
		if _, err := orders.CreateOrder(ctx, c, testOrderRequest(t, c, "A1")); err != nil {
			t.Fatal(err)
		}
		a := encoding("a", func(o *parcelgate.Order) ([]byte, error) { return []byte("a:" + o.ExternalID), nil })
		b := encoding("b", func(o *parcelgate.Order) ([]byte, error) { return []byte("b:" + o.ExternalID), nil })
		for range 2 {
			for _, enc := range []parcelgate.OrderEncoding{a, b} {
				body, err := orders.FindOrderAnswer(ctx, c, "A1", enc)
				if want := enc.Name + ":A1"; err != nil || string(body) != want {
					t.Fatalf("FindOrderAnswer(%s) = %q, %v; want %q", enc.Name, body, err, want)
				}
				page, err := orders.ListOrderAnswers(ctx, c, parcelgate.OrderQuery{}, parcelgate.PageRequest{Size: 10}, enc)
				if want := enc.Name + ":A1"; err != nil || len(page.Items) != 1 || string(page.Items[0]) != want {
					t.Fatalf("ListOrderAnswers(%s) = %q, %v; want [%q]", enc.Name, page.Items, err, want)
				}
			}
		}
	})
}
