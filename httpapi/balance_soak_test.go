package httpapi_test

import (
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

// soakTime is how long a soak runs: a few seconds in the normal suite, as
// long as PARCELGATE_SOAK says (a Go duration, e.g. 10m) when hunting a
// rare failure on a loaded machine.
func soakTime(t *testing.T, normal time.Duration) time.Duration {
	s := os.Getenv("PARCELGATE_SOAK")
	if s == "" {
		return normal
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		t.Fatalf("PARCELGATE_SOAK=%q: %v", s, err)
	}
	return d
}

// interface §4.4 GET balances rule 1, DELETE inventory (EOS) and PUT inventory:
// four readers page through balances named by a list (two products that
// come and go, one that never existed) while the supplier ends the sale of
// both with EOS and publishes them again, over and over. Every read answers
// 200 with a page that agrees with its own totals; never a 5xx. This race
// once answered 500 in 4 of 11,032 requests on a loaded machine: the soak
// runs it for a few seconds in the suite, and for PARCELGATE_SOAK when
// hunting.
func TestBalancesByListWhileProductsEndAndReturnSoak(t *testing.T) {
	balanceRaceSoak(t, 0)
}

// The same race on servers whose --db-timeout is so short that requests
// pass it all the time, at every point of their reads and writes (a loaded
// machine makes serve's 5 s just as short for a few requests): each such
// request is answered 503 with Retry-After, never 500. The race's rare 5xx
// was one of these: a write transaction whose deadline passed between its
// last statement and its commit was rolled back by database/sql, and the
// commit's "transaction has already been committed or rolled back" was
// answered 500.
func TestBalancesByListWhileProductsEndAndReturnUnderDeadlinesSoak(t *testing.T) {
	balanceRaceSoak(t, 2*time.Millisecond)
}

// balanceRaceSoak runs the race; with dbTimeout, on servers with that
// --db-timeout, where a 503 with Retry-After is a right answer too.
func balanceRaceSoak(t *testing.T, dbTimeout time.Duration) {
	d := soakTime(t, 3*time.Second)
	apitest.Each(t, func(t *testing.T, e0 *apitest.Env) {
		e := newInventoryEnv(t, e0)
		entry := func(id string) map[string]any {
			return map[string]any{"product": product(id), "balances": []any{map[string]any{"retailerId": retailerR, "catalogExternalId": "SHOP", "quantity": 5}}}
		}
		publish := []any{entry("K1"), entry("K2")}
		eos := []any{
			map[string]any{"product": map[string]any{"externalId": "K1", "status": "EOS"}},
			map[string]any{"product": map[string]any{"externalId": "K2", "status": "EOS"}},
		}
		e.put(e.supplier, publish).Expect(200)
		// The fixtures above were made without a deadline; with one, the
		// race runs on servers over the same database whose deadlines
		// are dbTimeout and 2, 4 and 8 times it, so requests pass them at
		// every point of their work.
		servers := []*apitest.Env{e.Env}
		if dbTimeout > 0 {
			servers = nil
			for _, k := range []time.Duration{1, 2, 4, 8} {
				servers = append(servers, apitest.NewWithDB(t, e0.DB, e0.Clock, func(c *httpapi.Config) { c.DBTimeout = k * dbTimeout }))
			}
		}
		on := func(i int64) inventoryEnv {
			return inventoryEnv{servers[i%int64(len(servers))], e.supplier, e.retailer}
		}

		deadline := time.Now().Add(d)
		var stop atomic.Bool
		var cycles, reads, failures, unavailable atomic.Int64
		fail := func(format string, args ...any) {
			if failures.Add(1) <= 5 {
				t.Errorf(format, args...)
			}
		}
		// ok reports whether r is a 200; a 503 with Retry-After is counted
		// when the servers have a deadline, anything else fails.
		ok := func(what string, r *apitest.Response) bool {
			if r.Status == 200 {
				return true
			}
			if dbTimeout > 0 && r.Status == 503 && r.Header.Get("Retry-After") != "" {
				unavailable.Add(1)
				return false
			}
			fail("%s: %d %s", what, r.Status, r.Body)
			return false
		}
		var wg sync.WaitGroup
		wg.Go(func() {
			for !stop.Load() {
				n := cycles.Load()
				ok("DELETE inventory (EOS)", on(n).Do(apitest.Request{Method: "DELETE", Path: "/ecommerce/v3/inventory", Bearer: e.supplier, Body: eos}))
				ok("PUT inventory", on(n+1).put(e.supplier, publish))
				cycles.Add(1)
			}
		})
		for range 4 {
			wg.Go(func() {
				for !stop.Load() {
					r := on(reads.Load()).Do(apitest.Request{Method: "GET", Bearer: e.supplier,
						Path: "/ecommerce/v3/inventory/balances?page=1&size=1&productExternalId=K1,K2,X"})
					reads.Add(1)
					if !ok("GET balances page 1 of K1,K2,X", r) {
						continue
					}
					var p struct {
						Content []any `json:"content"`
						Page    struct {
							TotalElements int64 `json:"totalElements"`
						} `json:"page"`
					}
					r.JSON(&p)
					// Page 1 of size 1 holds the second entry: there is
					// one exactly when both products are live.
					if want := max(0, min(1, p.Page.TotalElements-1)); int64(len(p.Content)) != want {
						fail("GET balances page 1 of K1,K2,X: totalElements %d, %d entries on page 1", p.Page.TotalElements, len(p.Content))
					}
				}
			})
		}
		for time.Now().Before(deadline) && failures.Load() == 0 {
			time.Sleep(50 * time.Millisecond)
		}
		stop.Store(true)
		wg.Wait()
		if cycles.Load() == 0 || reads.Load() == 0 {
			t.Fatalf("%d writer cycles, %d reads: the race never ran", cycles.Load(), reads.Load())
		}
		t.Logf("%s: %d reads, %d EOS/re-publish cycles, %d answered 503 (deadline %s), %d failures", d, reads.Load(), cycles.Load(), unavailable.Load(), dbTimeout, failures.Load())
	})
}
