package httpapi_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

// Interface §4.4 GET rule 1 (pages by number): a page read by
// number while the supplier ends the sale of half its products and
// publishes them again answers 200 with a page that agrees with its own
// totals: totalElements says how many entries the list has, and the page
// holds exactly the entries those totals put on it (none past the end).
// Before pages were read in one snapshot, the count and the page were two
// reads, and a count that still saw the products followed by a boundary
// lookup that no longer did answered 500 ("sql: no rows in result set").
//
// Every request names the products in an order of its own, so each one is
// a new list to the page-boundary cache and finds its page afresh, as a
// client jumping to a page or moved to another instance does.
func TestPageByNumberAgreesWithItsTotalsWhileProductsComeAndGo(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e0 *apitest.Env) {
		e := newInventoryEnv(t, e0)
		const products, flipping = 40, 20
		entry := func(id string) map[string]any {
			return map[string]any{"product": product(id), "balances": []any{map[string]any{"retailerId": retailerR, "catalogExternalId": "SHOP", "quantity": 5}}}
		}
		var all, republish, eos []any
		var names []string
		for i := range products {
			id := fmt.Sprintf("P-%02d", i)
			names = append(names, id)
			all = append(all, entry(id))
			if i >= products-flipping {
				republish = append(republish, entry(id))
				eos = append(eos, map[string]any{"product": map[string]any{"externalId": id, "status": "EOS"}})
			}
		}
		e.put(e.supplier, all).Expect(200)

		var stop atomic.Bool
		var cycles atomic.Int64
		var writer sync.WaitGroup
		writer.Go(func() {
			for !stop.Load() {
				e.Do(apitest.Request{Method: "DELETE", Path: "/ecommerce/v3/inventory", Bearer: e.supplier, Body: eos}).Expect(200)
				e.put(e.supplier, republish).Expect(200)
				cycles.Add(1)
			}
		})

		var failures, shortPages atomic.Int64
		var readers sync.WaitGroup
		for w := range 2 {
			readers.Go(func() {
				rng := rand.New(rand.NewPCG(uint64(w), 11))
				for i := range 150 {
					order := make([]string, products)
					for j, k := range rng.Perm(products) {
						order[j] = names[k]
					}
					size := 1 + rng.IntN(products/2)
					// The last page while every product is live: past the
					// end while half of them are EOS.
					page := (products - 1) / size
					path := "/ecommerce/v3/inventory"
					if i%2 == 1 {
						path = "/ecommerce/v3/inventory/balances"
					}
					r := e.Do(apitest.Request{Method: "GET", Bearer: e.supplier,
						Path: fmt.Sprintf("%s?productExternalId=%s&size=%d&page=%d", path, strings.Join(order, ","), size, page)})
					if r.Status != 200 {
						if failures.Add(1) <= 3 {
							t.Errorf("GET %s page %d size %d: %d %s", path, page, size, r.Status, r.Body)
						}
						continue
					}
					var p struct {
						Content []any `json:"content"`
						Page    struct {
							TotalElements int64 `json:"totalElements"`
						} `json:"page"`
					}
					r.JSON(&p)
					want := max(0, min(int64(size), p.Page.TotalElements-int64(page*size)))
					if int64(len(p.Content)) != want {
						if shortPages.Add(1) <= 3 {
							t.Errorf("GET %s page %d size %d: totalElements %d put %d entries on this page, it holds %d",
								path, page, size, p.Page.TotalElements, want, len(p.Content))
						}
					}
				}
			})
		}
		readers.Wait()
		stop.Store(true)
		writer.Wait()
		if cycles.Load() == 0 {
			t.Fatal("the writer never ended a sale and published again: the test proves nothing")
		}
		if n := failures.Load() + shortPages.Load(); n > 0 {
			t.Errorf("%d of 300 pages failed or disagreed with their totals (%d writer cycles)", n, cycles.Load())
		}
		t.Logf("%d EOS/re-publish cycles during 300 page reads", cycles.Load())
	})
}
