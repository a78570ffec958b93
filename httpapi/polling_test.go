package httpapi_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// decisions §6, interface §4.4 GET rule 3 and DELETE balances rule 2: a retailer
// that polls modifiedFromDate with the newest modifiedDate it has seen
// never misses a change, made by the supplier or by orders, removals from
// the catalog and re-publications included, while several writers run at
// once. The poller pages with small pages by number, as the spec's loop
// does, so changes land while it is between pages. At the end, what it saw,
// leaving out what it saw removed, must equal the final state.
func TestInventoryChangePollingNeverMisses(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e0 *apitest.Env) {
		e := newInventoryEnv(t, e0)
		const products = 12
		e.publishNumbered(products, func(int) int { return 1000 })

		type state struct {
			quantity, allocated int64
			removed             bool
		}
		seen := map[string]state{}
		cursor := ""
		// poll reads every page of one query, then moves the cursor to the
		// newest modifiedDate it saw: moving it between pages of one loop
		// would shift the pages under the loop.
		poll := func() {
			cursor = e.PollBalances("/ecommerce/v3/catalogs/SHOP/balances", e.retailer, 3, cursor, func(b apitest.PolledBalance) {
				seen[b.ProductExternalID] = state{b.Quantity, b.Allocated, b.Removed}
			})
		}
		var removals atomic.Int64
		apitest.PollDuring(4, func(w int) {
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for n := range 25 {
				p := fmt.Sprintf("P-%02d", rng.IntN(products))
				put := func(entry map[string]any, ok ...int) {
					entry["productExternalId"] = p
					r := e.Do(apitest.Request{Method: "PUT", Path: "/ecommerce/v3/inventory/balances", Bearer: e.supplier, Body: []any{entry}})
					if r.Status != 200 && !slices.Contains(ok, r.Status) {
						t.Errorf("supplier write %v: %d %s", entry, r.Status, r.Body)
					}
				}
				switch w {
				case 0:
					// Stock of the catalog by name: revives a removed balance.
					put(map[string]any{"retailerId": retailerR, "catalogExternalId": "SHOP", "quantity": 500 + n})
				case 1:
					if _, err := sqlstore.NewInventoryService(e.DB).MoveStock(t.Context(), parcelgate.EnvironmentOperator(parcelgate.Production), supplierA, p, retailerR, "SHOP", -1, 1); err != nil {
						t.Errorf("order allocation: %v", err)
					}
				case 2:
					// Rule 4: every catalog where published; none when removed.
					put(map[string]any{"quantity": 700 + n}, 400)
				case 3:
					// Release and remove; an allocation landing in between
					// makes the removal 409.
					put(map[string]any{"allocated": 0}, 400)
					r := e.Do(apitest.Request{Method: "DELETE", Path: "/ecommerce/v3/inventory/balances?productExternalId=" + p, Bearer: e.supplier})
					switch r.Status {
					case 200:
						removals.Add(1)
					case 409:
					default:
						t.Errorf("removal: %d %s", r.Status, r.Body)
					}
				}
			}
		}, poll)
		if removals.Load() == 0 {
			t.Fatalf("no removal happened: the test proves nothing")
		}

		var final polledPage
		e.get(e.retailer, "/ecommerce/v3/catalogs/SHOP/balances").Expect(200).JSON(&final)
		live := map[string]state{}
		for _, b := range final.Content {
			live[b.ProductExternalID] = state{b.Quantity, b.Allocated, false}
		}
		for i := range products {
			p := fmt.Sprintf("P-%02d", i)
			want, ok := live[p]
			if !ok {
				want = state{removed: true}
			}
			if got := seen[p]; got != want {
				t.Errorf("%s: the poller saw %+v, the final state is %+v: a change was missed", p, got, want)
			}
		}
		t.Logf("%d removals, %d live at the end", removals.Load(), len(live))
	})
}
