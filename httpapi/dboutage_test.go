package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
	"github.com/parcelgate/parcelgate/internal/tools/tcpproxy"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// The faults of the database: PostgreSQL reached through a TCP
// proxy the test controls, so it can go away mid-load and come back.

// outageTimeout is the servers' --db-timeout in these tests.
const outageTimeout = time.Second

// outageSlack is what a request may take beyond the timeout on a loaded
// test machine (the race detector, other tests). It bounds a hang; it is
// not a measurement.
const outageSlack = 4 * time.Second

type outageEnv struct {
	inventoryEnv
	proxy   *tcpproxy.Proxy
	gateway string
}

// newOutageEnv starts a server over PostgreSQL reached through a proxy.
func newOutageEnv(t *testing.T) outageEnv {
	dsn := testdb.PostgresSchema(t)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	proxy := tcpproxy.Start(t, u.Host)
	u.Host = proxy.Addr()
	clock := new(parcelgate.OffsetClock)
	db, err := sqlstore.Open(t.Context(), u.String(), clock, sqlstore.ConnectTimeout(outageTimeout))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	// The fixtures are made on a server without the deadline, so that a
	// slow password hash on a loaded machine cannot fail the set-up; the
	// load runs on a second instance over the same database, which has it.
	setup := newInventoryEnv(t, apitest.NewWithDB(t, db, clock))
	gateway := setup.GatewayToken(parcelgate.Production, supplierA)
	e := setup
	e.Env = apitest.NewWithDB(t, db, clock, func(c *httpapi.Config) { c.DBTimeout = outageTimeout })
	return outageEnv{e, proxy, gateway}
}

// outageCall is one request of the load and what came of it.
type outageCall struct {
	req      apitest.Request
	gateway  bool
	product  string // the product a write creates
	status   int
	took     time.Duration
	problems []string
}

// do makes c and checks its answer: a 2xx, or a 503 in the surface's
// error shape with Retry-After, within the timeout and its slack.
func (e outageEnv) do(c *outageCall) {
	start := time.Now()
	r := e.Do(c.req)
	c.status, c.took = r.Status, time.Since(start)
	if c.took > outageTimeout+outageSlack {
		c.problems = append(c.problems, fmt.Sprintf("took %s, over the %s timeout", c.took, outageTimeout))
	}
	switch {
	case r.Status >= 200 && r.Status < 300:
	case r.Status == 503:
		if r.Header.Get("Retry-After") == "" {
			c.problems = append(c.problems, "503 without Retry-After")
		}
		if c.gateway {
			var g httpapi.GatewayError
			if json.Unmarshal(r.Body, &g) != nil || g.ErrorCode != "SERVICE_UNAVAILABLE" {
				c.problems = append(c.problems, "503 not in the gateway shape: "+string(r.Body))
			}
		} else {
			var ec httpapi.EcomError
			if json.Unmarshal(r.Body, &ec) != nil || ec.Status != 503 || ec.Path == "" || ec.Message == "" {
				c.problems = append(c.problems, "503 not in the ecom shape: "+string(r.Body))
			}
		}
	default:
		c.problems = append(c.problems, fmt.Sprintf("answered %d %s", r.Status, r.Body))
	}
}

// load runs writers and readers until stop, and returns every outageCall made.
// Each write creates a product of its own, so an acknowledged write is one
// that can be looked for afterwards.
func (e outageEnv) load(stop *atomic.Bool, acked, failed *atomic.Int64) func() []*outageCall {
	var mu sync.Mutex
	var calls []*outageCall
	var wg sync.WaitGroup
	record := func(c *outageCall) {
		mu.Lock()
		calls = append(calls, c)
		mu.Unlock()
	}
	for w := range 3 {
		wg.Go(func() {
			// Bounded, whatever happens to stop.
			for n := 0; n < 2000 && !stop.Load(); n++ {
				id := fmt.Sprintf("W%d-%d", w, n)
				c := &outageCall{product: id, req: apitest.Request{Method: "PUT", Path: "/ecommerce/v3/inventory", Bearer: e.supplier, Body: []any{
					map[string]any{"product": product(id), "balances": []any{map[string]any{"retailerId": retailerR, "catalogExternalId": "SHOP", "quantity": n + 1}}}}}}
				e.do(c)
				record(c)
				if c.status == 200 {
					acked.Add(1)
				} else {
					failed.Add(1)
				}
			}
		})
	}
	wg.Go(func() {
		for n := 0; n < 4000 && !stop.Load(); n++ {
			c := &outageCall{req: apitest.Request{Method: "GET", Path: "/ecommerce/v3/catalogs/SHOP/balances?size=5", Bearer: e.retailer}}
			if n%2 == 1 {
				c = &outageCall{gateway: true, req: apitest.Request{Method: "GET", Path: "/2025-04/shipments/JJFI" + fmt.Sprint(10000+n), Bearer: e.gateway}}
			}
			e.do(c)
			if c.gateway && c.status == 404 {
				c.status = 200 // no such shipment: an answer from the database
				c.problems = nil
			}
			record(c)
		}
	})
	return func() []*outageCall {
		wg.Wait()
		return calls
	}
}

// waitFor polls until cond holds, at most limit times, a little apart.
func waitFor(t *testing.T, what string, limit int, cond func() bool) {
	t.Helper()
	for range limit {
		if cond() {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("gave up waiting for %s", what)
}

func (e outageEnv) ready() int {
	return e.Do(apitest.Request{Method: "GET", Path: "/readyz"}).Status
}

// outage runs the load, takes the database away with takeAway once writes
// have been acknowledged, checks that requests are answered 503 and that
// /readyz says so, brings it back, and checks that parcelgate recovers by
// itself and that every write it acknowledged is there.
func outage(t *testing.T, takeAway func(outageEnv)) {
	e := newOutageEnv(t)
	var stop atomic.Bool
	var acked, failed atomic.Int64
	wait := e.load(&stop, &acked, &failed)
	defer func() {
		stop.Store(true)
		wait()
	}()

	waitFor(t, "writes before the outage", 400, func() bool { return acked.Load() >= 10 })
	takeAway(e)
	before := failed.Load()
	waitFor(t, "writes refused during the outage", 400, func() bool { return failed.Load() >= before+6 })
	if s := e.ready(); s != 503 {
		t.Errorf("/readyz during the outage: %d, want 503", s)
	}

	e.proxy.Restore()
	waitFor(t, "/readyz to recover", 400, func() bool { return e.ready() == 200 })
	after := acked.Load()
	waitFor(t, "writes after the database returned", 400, func() bool { return acked.Load() >= after+10 })
	stop.Store(true)
	calls := wait()

	var problems, refused int
	for _, c := range calls {
		for _, p := range c.problems {
			if problems++; problems <= 5 {
				t.Errorf("%s %s: %s", c.req.Method, c.req.Path, p)
			}
		}
		if c.status == 503 {
			refused++
		}
	}
	if problems > 5 {
		t.Errorf("and %d more problems", problems-5)
	}
	if refused == 0 {
		t.Fatal("no request was answered 503: the outage was not seen")
	}

	// Nothing acknowledged is lost; the reads go through the proxy too,
	// so they also prove the pool recovered.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var missing int
	for _, c := range calls {
		if c.product == "" || c.status != 200 {
			continue
		}
		r := e.Do(apitest.Request{Method: "GET", Path: "/ecommerce/v3/inventory/" + c.product, Bearer: e.supplier})
		if r.Status != 200 {
			if missing++; missing <= 5 {
				t.Errorf("acknowledged write of %s: now %d %s", c.product, r.Status, r.Body)
			}
		}
		if ctx.Err() != nil {
			t.Fatal("checking the acknowledged writes took over 30s")
		}
	}
	t.Logf("%d calls, %d answered 503, %d writes acknowledged, %d missing", len(calls), refused, acked.Load(), missing)
}

// Faults of the database: the database's connections are cut
// and new ones refused mid-load (a crash or restart). Requests are answered
// 503 fast in their surface's shape, /readyz says 503 then 200, the pool
// recovers by itself, and no acknowledged write is lost.
func TestDatabaseCutMidLoad(t *testing.T) {
	outage(t, func(e outageEnv) { e.proxy.Cut() })
}

// Faults of the database: the database goes silent mid-load (a
// partition or a hung server: connections stay open, nothing comes back).
// No request waits longer than --db-timeout (plus slack) for it; each is
// answered 503, and all recovers when the database answers again.
func TestDatabaseSilentMidLoad(t *testing.T) {
	outage(t, func(e outageEnv) { e.proxy.Stall() })
}
