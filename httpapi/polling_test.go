package httpapi_test

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/apitest"
)

// DESIGN §6, spec 4.4 GET rule 3: a retailer that polls modifiedFromDate
// with the newest modifiedDate it has seen never misses a change, made by
// the supplier or by orders, while several writers run at once. The poller
// pages with small pages by number, as the spec's loop does, so changes
// land while it is between pages. At the end, what it saw must equal the
// final state.
func TestInventoryChangePollingNeverMisses(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e0 *apitest.Env) {
		e := newInventoryEnv(t, e0)
		const products = 12
		var body []any
		for i := range products {
			body = append(body, map[string]any{"product": product(fmt.Sprintf("P-%02d", i)), "balances": []any{map[string]any{"retailerId": retailerR, "catalogExternalId": "SHOP", "quantity": 1000}}})
		}
		e.put(e.supplier, body).Expect(200)

		type state struct{ quantity, allocated int64 }
		seen := map[string]state{}
		since := ""
		poll := func() {
			for page := 0; ; page++ {
				path := fmt.Sprintf("/ecommerce/v3/catalogs/SHOP/balances?size=3&page=%d", page)
				if since != "" {
					path += "&modifiedFromDate=" + url.QueryEscape(since)
				}
				var bp balancePage
				e.get(e.retailer, path).Expect(200).JSON(&bp)
				for _, b := range bp.Content {
					seen[b.ProductExternalID] = state{b.Quantity, b.Allocated}
					if s := parcelgate.FormatStamp(b.ModifiedAt); s > since {
						since = s
					}
				}
				if int64(page+1) >= bp.Page.TotalPages {
					return
				}
			}
		}
		poll()

		var done atomic.Bool
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Go(func() {
				rng := rand.New(rand.NewPCG(uint64(w), 7))
				for n := range 25 {
					p := fmt.Sprintf("P-%02d", rng.IntN(products))
					if w%2 == 0 {
						r := e.Do(apitest.Request{Method: "PUT", Path: "/ecommerce/v3/inventory/balances", Bearer: e.supplier,
							Body: []any{map[string]any{"productExternalId": p, "quantity": 500 + w*100 + n}}})
						if r.Status != 200 {
							t.Errorf("supplier write: %d %s", r.Status, r.Body)
						}
						continue
					}
					if _, err := e.DB.MoveStock(t.Context(), parcelgate.Production, supplierA, p, retailerR, "SHOP", -1, 1); err != nil {
						t.Errorf("order allocation: %v", err)
					}
				}
			})
		}
		go func() { wg.Wait(); done.Store(true) }()
		for !done.Load() {
			poll()
		}
		poll()

		var final balancePage
		e.get(e.retailer, "/ecommerce/v3/catalogs/SHOP/balances").Expect(200).JSON(&final)
		if len(final.Content) != products {
			t.Fatalf("%d balances", len(final.Content))
		}
		for _, b := range final.Content {
			if got, want := seen[b.ProductExternalID], (state{b.Quantity, b.Allocated}); got != want {
				t.Errorf("%s: the poller saw %+v, the final state is %+v: a change was missed", b.ProductExternalID, got, want)
			}
		}
	})
}
