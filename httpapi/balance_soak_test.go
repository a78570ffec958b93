package httpapi_test

import (
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate/internal/apitest"
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

// spec 4.4 GET balances rule 1, DELETE inventory (EOS) and PUT inventory:
// four readers page through balances named by a list (two products that
// come and go, one that never existed) while the supplier ends the sale of
// both with EOS and publishes them again, over and over. Every read answers
// 200 with a page that agrees with its own totals; never a 5xx. This race
// once answered 500 in 4 of 11,032 requests on a loaded machine: the soak
// runs it for a few seconds in the suite, and for PARCELGATE_SOAK when
// hunting.
func TestBalancesByListWhileProductsEndAndReturnSoak(t *testing.T) {
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

		deadline := time.Now().Add(d)
		var stop atomic.Bool
		var cycles, reads, failures atomic.Int64
		fail := func(format string, args ...any) {
			if failures.Add(1) <= 5 {
				t.Errorf(format, args...)
			}
		}
		var wg sync.WaitGroup
		wg.Go(func() {
			for !stop.Load() {
				if r := e.Do(apitest.Request{Method: "DELETE", Path: "/ecommerce/v3/inventory", Bearer: e.supplier, Body: eos}); r.Status != 200 {
					fail("DELETE inventory (EOS): %d %s", r.Status, r.Body)
				}
				if r := e.put(e.supplier, publish); r.Status != 200 {
					fail("PUT inventory: %d %s", r.Status, r.Body)
				}
				cycles.Add(1)
			}
		})
		for range 4 {
			wg.Go(func() {
				for !stop.Load() {
					r := e.Do(apitest.Request{Method: "GET", Bearer: e.supplier,
						Path: "/ecommerce/v3/inventory/balances?page=1&size=1&productExternalId=K1,K2,X"})
					reads.Add(1)
					if r.Status != 200 {
						fail("GET balances page 1 of K1,K2,X: %d %s", r.Status, r.Body)
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
		t.Logf("%s: %d reads, %d EOS/re-publish cycles, %d failures", d, reads.Load(), cycles.Load(), failures.Load())
	})
}
