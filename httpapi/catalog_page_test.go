package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

// interface §4.4 GET /catalogs/{catalogId}/balances and GET /catalogs, decisions
// §25: an instance names a catalog it has served by the ID it found for it,
// and checks that ID in the page's own statement. A catalog removed and
// made again under the same external ID by another instance (a sandbox
// reset with catalogs=true) is a new catalog: the instance that served the
// old one answers 404 while it is gone and the new one's balances and
// total once it exists, never the old catalog's page. Each retailer sees
// only its own catalog of that name, and the catalogs list only the
// caller's catalogs, as retailer or as supplier.
func TestCatalogPageFollowsARecreatedCatalog(t *testing.T) {
	apitest.EachShared(t, 2, func(t *testing.T, es []*apitest.Env) {
		admin, reader := es[0], es[1]
		const supplierX, supplierY, retailer, other = "1234567-1", "7654321-2", "0737546-2", "2345678-0"
		env := parcelgate.Test
		publish := func(supplier, retailer string, ids ...string) {
			t.Helper()
			tok := admin.EcomToken(env, supplier, parcelgate.RoleSupplier)
			var body []any
			for _, id := range ids {
				body = append(body, map[string]any{"product": map[string]any{"externalId": id, "descriptions": map[string]any{"en": map[string]any{"name": "Product " + id}}},
					"balances": []any{map[string]any{"retailerId": retailer, "catalogExternalId": "SHOP", "quantity": 5}}})
			}
			admin.Do(apitest.Request{Method: "PUT", Path: "/ecommerce/v3/inventory", Bearer: tok, Body: body}).Expect(http.StatusOK)
		}
		type balancePage struct {
			Content []struct{ ProductExternalID, SupplierID, RetailerID string }
			Page    struct{ TotalElements int64 }
		}
		page := func(retailer string, status int, when string, want ...string) {
			t.Helper()
			tok := reader.EcomToken(env, retailer, parcelgate.RoleRetailer)
			for _, path := range []string{"/ecommerce/v3/catalogs/SHOP/balances?size=10", "/ecommerce/v3/catalogs/SHOP/products?size=10"} {
				r := reader.Do(apitest.Request{Method: "GET", Path: path, Bearer: tok}).Expect(status)
				if status != http.StatusOK {
					continue
				}
				var p balancePage
				r.JSON(&p)
				var got []string
				for _, b := range p.Content {
					got = append(got, b.ProductExternalID)
				}
				if p.Page.TotalElements != int64(len(want)) || len(got) != len(want) {
					t.Fatalf("%s: %s of %s: %v (total %d), want %v", when, path, retailer, got, p.Page.TotalElements, want)
				}
				if path == "/ecommerce/v3/catalogs/SHOP/balances?size=10" {
					for i, b := range p.Content {
						if b.ProductExternalID != want[i] || b.RetailerID != retailer {
							t.Fatalf("%s: %s of %s: %+v, want %v", when, path, retailer, p.Content, want)
						}
					}
				}
			}
		}

		admin.Catalog(env, retailer, "SHOP", parcelgate.CatalogDropship, supplierX)
		admin.Catalog(env, other, "SHOP", parcelgate.CatalogDropship, supplierX)
		publish(supplierX, retailer, "X-1", "X-2")
		publish(supplierX, other, "O-1")
		page(retailer, http.StatusOK, "first read", "X-1", "X-2")
		page(other, http.StatusOK, "the other retailer's SHOP", "O-1")

		admin.Admin("POST", orgPath(retailer, "/reset")+"&catalogs=true", nil).Expect(http.StatusOK)
		page(retailer, http.StatusNotFound, "catalog removed")
		page(other, http.StatusOK, "the other retailer's SHOP after the reset", "O-1")

		admin.Catalog(env, retailer, "SHOP", parcelgate.CatalogDropship, supplierY)
		publish(supplierY, retailer, "Y-1")
		page(retailer, http.StatusOK, "catalog made again", "Y-1")
		page(other, http.StatusOK, "the other retailer's SHOP at the end", "O-1")

		// The catalogs list, by role: each caller's own catalogs only.
		catalogs := func(who string, role parcelgate.Role, query string, wantRetailers ...string) {
			t.Helper()
			tok := reader.EcomToken(env, who, role)
			var p struct {
				Content []map[string]any
				Page    struct{ TotalElements int64 }
			}
			reader.Do(apitest.Request{Method: "GET", Path: "/ecommerce/v3/catalogs" + query, Bearer: tok}).Expect(http.StatusOK).JSON(&p)
			if p.Page.TotalElements != int64(len(wantRetailers)) || len(p.Content) != len(wantRetailers) {
				t.Fatalf("%s's catalogs%s: %+v (total %d), want retailers %v", who, query, p.Content, p.Page.TotalElements, wantRetailers)
			}
			for i, c := range p.Content {
				if c["retailerId"] != wantRetailers[i] {
					t.Fatalf("%s's catalogs%s: %+v, want retailers %v", who, query, p.Content, wantRetailers)
				}
			}
		}
		catalogs(retailer, parcelgate.RoleRetailer, "", retailer)
		catalogs(other, parcelgate.RoleRetailer, "", other)
		catalogs(supplierY, parcelgate.RoleSupplier, "?role=SUPPLIER", retailer)
		catalogs(supplierX, parcelgate.RoleSupplier, "?role=SUPPLIER", other)
		catalogs(supplierY, parcelgate.RoleRetailer, "")
	})
}
