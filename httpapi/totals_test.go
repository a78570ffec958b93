package httpapi_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

// interface §2.6 (page.totalElements), interface §3 (EOS) rule 1, decisions §8: a
// catalog's total is kept between pages only while it is still exact. It
// follows every kind of change: a new balance, a removal from the
// catalog, an end of sale (still listed for 14 days), and the clock alone
// taking an end-of-sale product out of the list, with no write at all.
// Every read asks for page 0 and page 1 of the same query, as a client
// walking the catalog does, so a stale count would be reused.
func TestCatalogTotalsStayExact(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		const supplier, retailer = "1234567-1", "0737546-2"
		e.Catalog(parcelgate.Production, retailer, "SHOP", parcelgate.CatalogDropship, supplier)
		sup := e.EcomToken(parcelgate.Production, supplier, parcelgate.RoleSupplier)
		ret := e.EcomToken(parcelgate.Production, retailer, parcelgate.RoleRetailer)
		publish := func(ids ...string) {
			var body []any
			for _, id := range ids {
				body = append(body, map[string]any{"product": map[string]any{"externalId": id, "descriptions": map[string]any{"en": map[string]any{"name": "Product " + id}}},
					"balances": []any{map[string]any{"retailerId": retailer, "catalogExternalId": "SHOP", "quantity": 5}}})
			}
			e.Do(apitest.Request{Method: "PUT", Path: "/ecommerce/v3/inventory", Bearer: sup, Body: body}).Expect(http.StatusOK)
		}
		total := func(want int64, when string) {
			t.Helper()
			for _, path := range []string{"/ecommerce/v3/catalogs/SHOP/balances?size=2&page=0", "/ecommerce/v3/catalogs/SHOP/balances?size=2&page=1", "/ecommerce/v3/catalogs/SHOP/products?size=2&page=0"} {
				var p struct{ Page struct{ TotalElements int64 } }
				e.Do(apitest.Request{Method: "GET", Path: path, Bearer: ret}).Expect(http.StatusOK).JSON(&p)
				if p.Page.TotalElements != want {
					t.Fatalf("%s: %s: totalElements %d, want %d", when, path, p.Page.TotalElements, want)
				}
			}
		}
		publish("P-1", "P-2", "P-3")
		total(3, "after publishing three")
		publish("P-4")
		total(4, "after publishing a fourth")
		e.Do(apitest.Request{Method: "DELETE", Path: "/ecommerce/v3/inventory/balances?productExternalId=P-4", Bearer: sup}).Expect(http.StatusOK)
		total(3, "after removing P-4 from the catalog")
		e.Do(apitest.Request{Method: "DELETE", Path: "/ecommerce/v3/inventory", Bearer: sup, Body: []any{map[string]any{"product": map[string]any{"externalId": "P-1", "status": "EOS"}}}}).Expect(http.StatusOK)
		total(3, "right after P-1's end of sale (listed for 14 days)")
		e.Clock.Advance(parcelgate.EOSVisibility - time.Minute)
		// Tokens live an hour: the clock's jump outlives them.
		ret = e.EcomToken(parcelgate.Production, retailer, parcelgate.RoleRetailer)
		total(3, "a minute before P-1's 14 days end")
		e.Clock.Advance(2 * time.Minute)
		total(2, "after P-1's 14 days, with no write")
		sup = e.EcomToken(parcelgate.Production, supplier, parcelgate.RoleSupplier)
		for i := range 3 {
			publish(fmt.Sprintf("Q-%d", i))
		}
		total(5, "after three more")
	})
}
