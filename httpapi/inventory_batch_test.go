package httpapi_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

// interface §4.4 PUT balances rules 1-5, applied in order: the writes of one
// request are batched, and each balance must end as applying the entries
// one by one would leave it: a publish followed by updates of it, rule 4
// reaching a catalog published earlier in the same request, a revival
// followed by an update, a product named in two envelopes.
func TestInventoryEntriesApplyInOrder(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e0 *apitest.Env) {
		e := newInventoryEnv(t, e0)
		e.Catalog(parcelgate.Production, retailerS, "OUTLET", parcelgate.CatalogStore, supplierA)
		e.put(e.supplier, []any{
			map[string]any{"product": product("P-1"), "balances": []any{map[string]any{"retailerId": retailerR, "catalogExternalId": "SHOP", "quantity": 1, "wholesalePrice": 1, "currency": "EUR"}}},
			map[string]any{"product": product("P-2"), "balances": []any{map[string]any{"retailerId": retailerS, "catalogExternalId": "OUTLET", "quantity": 9, "wholesalePrice": 9}}},
		}).Expect(200)
		allocate(t, e.Env, supplierA, "P-1", retailerR, "SHOP", 1)
		e.deleteBalances("productExternalId=P-2")

		var bals []parcelgate.Balance
		e.putBalances(e.supplier, []any{
			// P-1: publish to OUTLET, then rule 4 reaches SHOP and OUTLET,
			// then a price for OUTLET only, then allocated 0 in SHOP.
			map[string]any{"productExternalId": "P-1", "retailerId": retailerS, "catalogExternalId": "OUTLET", "quantity": 5},
			map[string]any{"productExternalId": "P-1", "quantity": 7},
			map[string]any{"productExternalId": "P-1", "retailerId": retailerS, "wholesalePrice": 2.5},
			map[string]any{"productExternalId": "P-1", "retailerId": retailerR, "catalogExternalId": "SHOP", "allocated": 0, "currency": "SEK"},
			// P-2: revive OUTLET (no price carried over), then update it.
			map[string]any{"productExternalId": "P-2", "catalogExternalId": "OUTLET", "currency": "EUR"},
			map[string]any{"productExternalId": "P-2", "quantity": 3},
		}).Expect(200).JSON(&bals)
		type got struct {
			product, catalog    string
			quantity, allocated int64
			price, currency     string
		}
		var answer []got
		for _, b := range bals {
			answer = append(answer, got{b.ProductExternalID, b.CatalogExternalID, b.Quantity, b.Allocated, string(b.WholesalePrice), b.Currency})
		}
		want := []got{
			{"P-1", "OUTLET", 7, 0, "2.5", ""},
			{"P-1", "SHOP", 7, 0, "1", "SEK"},
			{"P-2", "OUTLET", 3, 0, "", "EUR"},
		}
		if fmt.Sprint(answer) != fmt.Sprint(want) {
			t.Fatalf("answered %+v\nwant       %+v", answer, want)
		}
		// The same through envelopes; P-3 is named twice: the last content
		// wins and both envelopes' balances apply, in order.
		items := e.putItems(e.supplier, []any{
			map[string]any{"product": product("P-3", "unitOfMeasure", "PCS"), "balances": []any{map[string]any{"retailerId": retailerR, "catalogExternalId": "SHOP", "quantity": 1}}},
			map[string]any{"product": product("P-4")},
			map[string]any{"product": product("P-3", "unitOfMeasure", "KG"), "balances": []any{map[string]any{"quantity": 2, "wholesalePrice": 4}}},
		})
		if len(items) != 2 || items[0].Product["externalId"] != "P-3" || items[0].Product["unitOfMeasure"] != "KG" ||
			len(items[0].Balances) != 1 || items[0].Balances[0].Quantity != 2 || items[0].Balances[0].WholesalePrice != "4" || items[1].Product["externalId"] != "P-4" {
			t.Fatalf("envelopes: %+v", items)
		}
	})
}

// decisions §6, interface §4.4 PUT /inventory at the request limits: 2000 products
// with 10,000 balances in one request, more than one statement's worth of
// parameters on either engine, are all written with the request's one
// stamp, and replaced by a second request.
func TestInventoryBulkPutAtTheLimits(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 10,000 balances twice per engine")
	}
	apitest.Each(t, func(t *testing.T, e0 *apitest.Env) {
		e := newInventoryEnv(t, e0)
		catalogs := []string{"C1", "C2", "C3", "C4", "C5"}
		for _, c := range catalogs {
			e.Catalog(parcelgate.Production, retailerR, c, parcelgate.CatalogDropship, supplierA)
		}
		body := func(round int) []any {
			var out []any
			for i := range parcelgate.MaxInventoryEntries {
				var bals []any
				for j, c := range catalogs {
					bals = append(bals, map[string]any{"retailerId": retailerR, "catalogExternalId": c, "quantity": round*100000 + i*5 + j, "wholesalePrice": json.Number(fmt.Sprintf("%d.5", round))})
				}
				out = append(out, map[string]any{"product": product(fmt.Sprintf("B-%04d", i), "unitOfMeasure", fmt.Sprint(round)), "balances": bals})
			}
			return out
		}
		for round := range 2 {
			e.put(e.supplier, body(round)).Expect(200)
			stamps := map[string]bool{}
			n := 0
			for page := 0; ; page++ {
				var bp polledPage
				e.get(e.supplier, fmt.Sprintf("/ecommerce/v3/inventory/balances?page=%d", page)).Expect(200).JSON(&bp)
				for _, b := range bp.Content {
					var i, j int
					fmt.Sscanf(b.ProductExternalID, "B-%04d", &i)
					fmt.Sscanf(b.CatalogExternalID, "C%d", &j)
					if want := int64(round*100000 + i*5 + j - 1); b.Quantity != want || string(b.WholesalePrice) != fmt.Sprintf("%d.5", round) {
						t.Fatalf("round %d: %+v, want quantity %d", round, b, want)
					}
					stamps[b.ModifiedDate] = true
					n++
				}
				if int64(page+1) >= bp.Page.TotalPages {
					break
				}
			}
			if n != parcelgate.MaxBalanceEntries || len(stamps) != 1 {
				t.Fatalf("round %d: %d balances, %d stamps", round, n, len(stamps))
			}
		}
	})
}
