package httpapi_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

// The service decides who may act, before what was sent (interface §5.2,
// decisions §57): a caller whose roles do not allow a route is refused
// with 403 in the words of the root's table whatever its body, query or
// path, as the early check answered before the services took it over;
// a caller that may act gets its input's own 400 or 404.
func TestServiceDecidesBeforeInput(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		e.Catalog(parcelgate.Production, retailerR, "SHOP", parcelgate.CatalogDropship, supplierA)
		supplier := e.EcomToken(parcelgate.Production, supplierA, parcelgate.RoleSupplier)
		retailer := e.EcomToken(parcelgate.Production, retailerR, parcelgate.RoleRetailer)
		tokens := map[parcelgate.Role]string{parcelgate.RoleSupplier: supplier, parcelgate.RoleRetailer: retailer}
		other := map[parcelgate.Role]parcelgate.Role{parcelgate.RoleSupplier: parcelgate.RoleRetailer, parcelgate.RoleRetailer: parcelgate.RoleSupplier}
		for _, c := range []struct {
			method, path string
			body         any
			// forbidden is a role the route's action does not allow;
			// the other role of the two may act and gets want.
			forbidden parcelgate.Role
			action    parcelgate.Action
			want      int
		}{
			{"PUT", "/ecommerce/v3/order", "{", parcelgate.RoleSupplier, parcelgate.ActionPlaceOrders, 400},
			{"POST", "/ecommerce/v3/orders", `{"rows":[]}`, parcelgate.RoleSupplier, parcelgate.ActionPlaceOrders, 400},
			{"GET", "/ecommerce/v3/orders?updatedFrom=yesterday", nil, parcelgate.RoleSupplier, parcelgate.ActionReadOrders, 400},
			{"PUT", "/ecommerce/v3/orders/X1", `{"status":{"value":"Delivered"}}`, parcelgate.RoleSupplier, parcelgate.ActionPlaceOrders, 400},
			{"POST", "/ecommerce/v3/orders/X1", "[", parcelgate.RoleSupplier, parcelgate.ActionPlaceOrders, 400},
			{"PATCH", "/ecommerce/v3/orders/X1/preferences", `{"autoSubmit":"yes"}`, parcelgate.RoleSupplier, parcelgate.ActionPlaceOrders, 400},
			{"POST", "/ecommerce/v3/orders/X1/comments", `{}`, parcelgate.RoleSupplier, parcelgate.ActionPlaceOrders, 400},
			{"PUT", "/ecommerce/v3/inventory", `{}`, parcelgate.RoleRetailer, parcelgate.ActionManageProducts, 400},
			{"GET", "/ecommerce/v3/inventory?modifiedFromDate=x", nil, parcelgate.RoleRetailer, parcelgate.ActionReadProducts, 400},
			{"DELETE", "/ecommerce/v3/inventory", `[{"product":{"externalId":"P-1","status":"ACTIVE"}}]`, parcelgate.RoleRetailer, parcelgate.ActionManageProducts, 400},
			{"GET", "/ecommerce/v3/inventory/" + "ID-LONGER-THAN-TWENTY-CHARACTERS", nil, parcelgate.RoleRetailer, parcelgate.ActionReadProducts, 404},
			{"PUT", "/ecommerce/v3/inventory/balances", `[{"productExternalId":"P-1","quantity":-1}]`, parcelgate.RoleRetailer, parcelgate.ActionPublishBalances, 400},
			{"GET", "/ecommerce/v3/inventory/balances?modifiedFromDate=x", nil, parcelgate.RoleRetailer, parcelgate.ActionReadProducts, 400},
			{"DELETE", "/ecommerce/v3/inventory/balances?productExternalId=", nil, parcelgate.RoleRetailer, parcelgate.ActionPublishBalances, 400},
			{"DELETE", "/ecommerce/v3/inventory/balances", "{", parcelgate.RoleRetailer, parcelgate.ActionPublishBalances, 400},
			{"GET", "/ecommerce/v3/catalogs/balances?modifiedFromDate=x", nil, parcelgate.RoleSupplier, parcelgate.ActionReadWarehouseCatalogs, 400},
			{"GET", "/ecommerce/v3/catalogs/SHOP/balances?modifiedFromDate=x", nil, parcelgate.RoleSupplier, parcelgate.ActionReadWarehouseCatalogs, 400},
			{"GET", "/ecommerce/v3/catalogs/ID-LONGER-THAN-TWENTY-CHARACTERS/products", nil, parcelgate.RoleSupplier, parcelgate.ActionReadWarehouseCatalogs, 404},
			{"GET", "/ecommerce/v3/shipments?status=Lost", nil, parcelgate.RoleRetailer, parcelgate.ActionSupplyShipments, 400},
			{"PATCH", "/ecommerce/v3/shipments/1", "{", parcelgate.RoleRetailer, parcelgate.ActionSupplyShipments, 400},
			{"PUT", "/ecommerce/v3/shipments/1", "{", parcelgate.RoleRetailer, parcelgate.ActionSupplyShipments, 400},
			{"POST", "/ecommerce/v3/shipments/1/events", "[]", parcelgate.RoleRetailer, parcelgate.ActionSupplyShipments, 400},
		} {
			name := c.method + " " + c.path
			req := apitest.Request{Method: c.method, Path: c.path, Bearer: tokens[c.forbidden], Undocumented: true}
			if c.body != nil {
				req.Body = c.body
			}
			got := e.Do(req)
			var m map[string]any
			_ = json.Unmarshal(got.Body, &m)
			want := parcelgate.ErrorMessage((&parcelgate.Caller{Kind: parcelgate.KindEcom, Roles: []parcelgate.Role{c.forbidden}}).May(c.action))
			if got.Status != http.StatusForbidden || m["message"] != want {
				t.Errorf("%s as %s: %d %s, want 403 %q", name, c.forbidden, got.Status, got.Body, want)
			}
			req.Bearer = tokens[other[c.forbidden]]
			if got := e.Do(req); got.Status != c.want {
				t.Errorf("%s as %s (who may act): %d %s, want %d", name, other[c.forbidden], got.Status, got.Body, c.want)
			}
		}
		// A batch whose every entry fails its reading writes nothing,
		// and still only for a caller who may act.
		for _, c := range []struct {
			method, path, body string
		}{
			{"PUT", "/ecommerce/v3/inventory", `[1, "x"]`},
			{"DELETE", "/ecommerce/v3/inventory/balances", `[1]`},
		} {
			if got := e.Do(apitest.Request{Method: c.method, Path: c.path, Body: c.body, Bearer: retailer, Undocumented: true}); got.Status != http.StatusForbidden {
				t.Errorf("%s %s %s as retailer: %d %s, want 403", c.method, c.path, c.body, got.Status, got.Body)
			}
			if got := e.Do(apitest.Request{Method: c.method, Path: c.path, Body: c.body, Bearer: supplier, Undocumented: true}); got.Status != http.StatusOK {
				t.Errorf("%s %s %s as supplier: %d %s, want 200 naming the entries", c.method, c.path, c.body, got.Status, got.Body)
			}
		}
	})
}
