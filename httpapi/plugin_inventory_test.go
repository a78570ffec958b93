package httpapi_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// The provider's WooCommerce warehouse plugin and its PHP library, as they
// call the product API: these tests send exactly what the plugin sends and
// assert what it reads back.

const (
	merchantM = "1234567-1" // the warehouse-service merchant: supplier and its own retailer
	merchantN = "7654321-2" // another merchant, for the cross-tenant checks
)

// pluginEnv is a merchant with its Posti warehouse WH1, as the warehouse
// service sets one up, and another merchant N with its own WH1.
type pluginEnv struct {
	inventoryEnv
	m, n string // the merchants' ecom tokens
}

func newPluginEnv(t *testing.T, e *apitest.Env) pluginEnv {
	e.Catalog(parcelgate.Production, merchantM, "WH1", parcelgate.CatalogPosti, merchantM)
	e.Catalog(parcelgate.Production, merchantN, "WH1", parcelgate.CatalogPosti, merchantN)
	return pluginEnv{inventoryEnv{Env: e},
		e.EcomToken(parcelgate.Production, merchantM, parcelgate.RoleMerchant),
		e.EcomToken(parcelgate.Production, merchantN, parcelgate.RoleMerchant)}
}

// pluginProduct is the product the plugin builds from a simple WooCommerce
// product (collect_products_simple): status ACTIVE, an empty EAN, the
// shop's currency and flags, and measurements it could not read as null.
func pluginProduct(sku, status string) map[string]any {
	return map[string]any{
		"externalId":             sku,
		"descriptions":           map[string]any{"en": map[string]any{"name": "Hoodie " + sku, "description": "Warm"}},
		"eanCode":                "",
		"unitOfMeasure":          "KPL",
		"status":                 status,
		"recommendedRetailPrice": 45.0,
		"currency":               "EUR",
		"distributor":            "",
		"isFragile":              false,
		"isDangerousGoods":       false,
		"isOversized":            false,
		"measurements":           map[string]any{"weight": 0.5, "length": nil, "width": nil, "height": nil},
	}
}

// pluginPublish is the envelope the plugin sends to publish a product to a
// warehouse: one balance without quantity.
func pluginPublish(sku, retailer, warehouse string) map[string]any {
	return map[string]any{"product": pluginProduct(sku, "ACTIVE"), "balances": []any{
		map[string]any{"retailerId": retailer, "catalogExternalId": warehouse, "wholesalePrice": 30.5, "currency": "EUR"}}}
}

// pluginErrors sends what the plugin sends and reads the answer as it does
// (contains_error: an integer index per entry not applied).
func (e pluginEnv) pluginErrors(method, path, tok string, body any) map[int]httpapi.EntryError {
	e.T.Helper()
	var errs []httpapi.EntryError
	e.Do(apitest.Request{Method: method, Path: path, Bearer: tok, Body: body}).Expect(200).JSON(&errs)
	if errs == nil {
		e.T.Fatalf("%s %s answered no array", method, path)
	}
	out := map[int]httpapi.EntryError{}
	for _, x := range errs {
		out[x.Index] = x
	}
	return out
}

// The plugin knows a warehouse by catalogType "Posti"
// (has_warehouse, get_stock_type); the operator API still takes
// "Warehouse" for it.
func TestPluginWarehouseCatalogType(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e0 *apitest.Env) {
		e := newPluginEnv(t, e0)
		var c map[string]any
		e.Admin("POST", "/admin/v1/catalogs", map[string]any{"retailerId": merchantM, "catalogExternalId": "WH2", "catalogType": "Warehouse", "supplierIds": []string{merchantM}}).Expect(201).JSON(&c)
		if c["catalogType"] != "Posti" {
			t.Fatalf("Warehouse created as %v", c["catalogType"])
		}
		e.Admin("POST", "/admin/v1/catalogs", map[string]any{"retailerId": merchantM, "catalogExternalId": "STORE1", "catalogType": "store", "supplierIds": []string{merchantM}}).Expect(201).JSON(&c)
		if c["catalogType"] != "Store" {
			t.Fatalf("store created as %v", c["catalogType"])
		}
		r := e.Admin("POST", "/admin/v1/catalogs", map[string]any{"retailerId": merchantM, "catalogExternalId": "X", "catalogType": "Depot"}).Expect(400)
		if fieldsOf(t, r)["catalogType"] != -1 {
			t.Errorf("bad type: %s", r.Body)
		}
		// getWarehouses: GET /catalogs?role=RETAILER, content[].externalId,
		// catalogName, catalogType, retailerId.
		var page httpapi.Page[map[string]any]
		e.get(e.m, "/ecommerce/v3/catalogs?role=RETAILER").Expect(200).JSON(&page)
		types := map[string]any{}
		for _, w := range page.Content {
			types[w["externalId"].(string)] = w["catalogType"]
			if w["retailerId"] != merchantM || w["catalogName"] == "" {
				t.Errorf("warehouse %+v", w)
			}
		}
		if len(types) != 3 || types["WH1"] != "Posti" || types["WH2"] != "Posti" || types["STORE1"] != "Store" {
			t.Fatalf("warehouses %v", types)
		}
		// Another merchant sees only its own.
		e.get(e.n, "/ecommerce/v3/catalogs?role=RETAILER").Expect(200).JSON(&page)
		if len(page.Content) != 1 || page.Content[0]["catalogType"] != "Posti" {
			t.Fatalf("merchant N sees %+v", page.Content)
		}
		var all struct{ Content []map[string]any }
		e.Admin("GET", "/admin/v1/catalogs?retailerId="+merchantM, nil).Expect(200).JSON(&all)
		if len(all.Content) != 3 {
			t.Fatalf("operator list %+v", all)
		}
		for _, c := range all.Content {
			if c["catalogType"] == "Warehouse" {
				t.Errorf("operator list answers Warehouse: %+v", c)
			}
		}
	})
}

// PUT /inventory answers the entries not applied, each
// with its integer index; the plugin links every other entry. Each entry
// is atomic; only a body that is not an array is refused whole.
func TestPluginPutInventoryErrorList(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e0 *apitest.Env) {
		e := newPluginEnv(t, e0)
		noName := pluginProduct("WOO8", "ACTIVE")
		delete(noName, "descriptions")
		errs := e.pluginErrors("PUT", "/ecommerce/v3/inventory", e.m, []any{
			pluginPublish("WOO6", merchantM, "WH1"),
			pluginPublish("WOO7", merchantM, "NOWH"), // a warehouse the merchant does not have
			map[string]any{"product": noName},
			map[string]any{"product": pluginProduct("WOO9", "ACTIVE")}, // no warehouse: product only
			pluginPublish("WOO10", merchantN, "WH1"),                   // another merchant's warehouse
		})
		if len(errs) != 3 || errs[1].Field != "balances[0].catalogExternalId" || errs[2].Field != "product.descriptions" || errs[4].Field != "balances[0].catalogExternalId" {
			t.Fatalf("errors %+v", errs)
		}
		for _, id := range []string{"WOO6", "WOO9"} {
			e.get(e.m, "/ecommerce/v3/inventory/"+id).Expect(200)
		}
		for _, id := range []string{"WOO7", "WOO8", "WOO10"} {
			e.get(e.m, "/ecommerce/v3/inventory/"+id).Expect(404) // nothing half-applied
		}
		var one itemJSON
		e.get(e.m, "/ecommerce/v3/inventory/WOO6").Expect(200).JSON(&one)
		if len(one.Balances) != 1 || one.Balances[0].CatalogExternalID != "WH1" || one.Balances[0].WholesalePrice != "30.5" || one.Product["distributor"] != "" {
			t.Fatalf("WOO6 %+v", one)
		}
		// All applied: an empty list.
		if errs := e.pluginErrors("PUT", "/ecommerce/v3/inventory", e.m, []any{pluginPublish("WOO6", merchantM, "WH1")}); len(errs) != 0 {
			t.Fatalf("errors %+v", errs)
		}
		// Not an array at all, or over the limits: refused whole.
		r := e.Do(apitest.Request{Method: "PUT", Path: "/ecommerce/v3/inventory", Bearer: e.m, Body: map[string]any{"product": pluginProduct("WOO6", "ACTIVE")}}).Expect(400)
		if fieldsOf(t, r)["(body)"] != -1 {
			t.Errorf("object body: %s", r.Body)
		}
		// Merchant N has no WOO6; its entry naming M's warehouse fails.
		e.get(e.n, "/ecommerce/v3/inventory/WOO6").Expect(404)
		if errs := e.pluginErrors("PUT", "/ecommerce/v3/inventory", e.n, []any{pluginPublish("WOO6", merchantM, "WH1")}); len(errs) != 1 || errs[0].Field != "balances[0].catalogExternalId" {
			t.Fatalf("N publishing to M's warehouse: %+v", errs)
		}
	})
}

// Bare product IDs. The plugin sends the SKU (WOO6) and
// reads balances by it; either form names the product, scoped to the
// caller; another business's prefix is refused. POST /inventory/migrate
// drops the prefix of products created in the old form.
func TestPluginBareProductIDs(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e0 *apitest.Env) {
		e := newPluginEnv(t, e0)
		if errs := e.pluginErrors("PUT", "/ecommerce/v3/inventory", e.m, []any{
			pluginPublish("WOO6", merchantM, "WH1"),
			pluginPublish(merchantM+"-OLD1", merchantM, "WH1"), // created before the ID migration
			pluginPublish(merchantN+"-WOO7", merchantM, "WH1"), // another business's prefix
		}); len(errs) != 1 || errs[2].Field != "product.externalId" {
			t.Fatalf("errors %+v", errs)
		}
		for _, id := range []string{"WOO6", merchantM + "-WOO6", "OLD1", merchantM + "-OLD1"} {
			e.get(e.m, "/ecommerce/v3/inventory/"+id).Expect(200)
		}
		e.putBalances(e.m, []any{map[string]any{"productExternalId": merchantM + "-WOO6", "catalogExternalId": "WH1", "retailerId": merchantM, "quantity": 7}}).Expect(200)
		// getBalances (sync_stock_by_ids): /catalogs/balances?productExternalId=a,b
		var bp balancePage
		e.get(e.m, "/ecommerce/v3/catalogs/balances?productExternalId=WOO6,OLD1").Expect(200).JSON(&bp)
		got := map[string]int64{}
		for _, b := range bp.Content {
			got[b.ProductExternalID] = b.Quantity
		}
		if len(got) != 2 || got["WOO6"] != 7 || got[merchantM+"-OLD1"] != 0 {
			t.Fatalf("balances by bare IDs: %+v", bp.Content)
		}
		e.get(e.m, "/ecommerce/v3/catalogs/WH1/balances?productExternalId="+merchantM+"-WOO6").Expect(200).JSON(&bp)
		if len(bp.Content) != 1 || bp.Content[0].ProductExternalID != "WOO6" {
			t.Fatalf("balances by the prefixed ID: %+v", bp.Content)
		}
		var ip itemPage
		e.get(e.m, "/ecommerce/v3/inventory?productExternalId=WOO6,"+merchantM+"-OLD1").Expect(200).JSON(&ip)
		if ip.Page.TotalElements != 2 {
			t.Fatalf("inventory by either form: %+v", ip)
		}
		// Scoped to the caller: N reads none of M's products in either form.
		for _, id := range []string{"WOO6", merchantM + "-WOO6", "OLD1"} {
			e.get(e.n, "/ecommerce/v3/inventory/"+id).Expect(404)
		}
		e.get(e.n, "/ecommerce/v3/catalogs/balances?productExternalId=WOO6,"+merchantM+"-WOO6").Expect(200).JSON(&bp)
		if len(bp.Content) != 0 {
			t.Fatalf("N reads M's balances: %+v", bp.Content)
		}
		// The plugin polls with its own timestamp format, e.g.
		// 2026-04-01T12:00:00.000+03:00: the newest stamp it has seen.
		var pp polledPage
		e.get(e.m, "/ecommerce/v3/catalogs/balances").Expect(200).JSON(&pp)
		newestSeen, err := time.Parse(time.RFC3339Nano, newest("", pp.Content))
		if err != nil {
			t.Fatal(err)
		}
		cursor := newestSeen.In(time.FixedZone("EEST", 3*3600)).Format("2006-01-02T15:04:05.000000-07:00")
		// The migration, as the plugin posts it (body ""), then idempotent.
		var mig struct {
			Migrated  []string         `json:"migrated"`
			Conflicts []map[string]any `json:"conflicts"`
		}
		e.Do(apitest.Request{Method: "POST", Path: "/ecommerce/v3/inventory/migrate", Bearer: e.m, Body: `""`}).Expect(200).JSON(&mig)
		if len(mig.Migrated) != 1 || mig.Migrated[0] != "OLD1" || len(mig.Conflicts) != 0 {
			t.Fatalf("migrate: %+v", mig)
		}
		var one itemJSON
		e.get(e.m, "/ecommerce/v3/inventory/"+merchantM+"-OLD1").Expect(200).JSON(&one)
		if one.Product["externalId"] != "OLD1" || len(one.Balances) != 1 || one.Balances[0].ProductExternalID != "OLD1" {
			t.Fatalf("after the migration: %+v", one)
		}
		// A retailer polling sees the balance under its new ID.
		e.get(e.m, "/ecommerce/v3/catalogs/balances?modifiedFromDate="+url.QueryEscape(cursor)).Expect(200).JSON(&bp)
		if len(bp.Content) != 1 || bp.Content[0].ProductExternalID != "OLD1" {
			t.Fatalf("poll after the migration: %+v", bp.Content)
		}
		e.Do(apitest.Request{Method: "POST", Path: "/v3/inventory/migrate", Bearer: e.m}).Expect(200).JSON(&mig)
		if len(mig.Migrated) != 0 {
			t.Fatalf("second migration: %+v", mig)
		}
		// N's migration touches nothing of M's.
		e.Do(apitest.Request{Method: "POST", Path: "/ecommerce/v3/inventory/migrate", Bearer: e.n}).Expect(200).JSON(&mig)
		if len(mig.Migrated) != 0 {
			t.Fatalf("N migrated %+v", mig)
		}
		// A retailer may not migrate a supplier's products.
		ret := e.EcomToken(parcelgate.Production, retailerR, parcelgate.RoleRetailer)
		e.Do(apitest.Request{Method: "POST", Path: "/ecommerce/v3/inventory/migrate", Bearer: ret}).Expect(403)
	})
}

// The plugin removes a product with PUT /inventory,
// product.status EOS and no balances; the same effect as DELETE
// /inventory (interface §3): quantity 0, gone from the supplier's reads, shown
// with status EOS to the catalog.
func TestPluginEndOfSaleByPut(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e0 *apitest.Env) {
		e := newPluginEnv(t, e0)
		e.pluginErrors("PUT", "/ecommerce/v3/inventory", e.m, []any{pluginPublish("WOO6", merchantM, "WH1"), pluginPublish("WOO7", merchantM, "WH1")})
		e.putBalances(e.m, []any{map[string]any{"productExternalId": "WOO6", "quantity": 5}, map[string]any{"productExternalId": "WOO7", "quantity": 5}}).Expect(200)
		errs := e.pluginErrors("PUT", "/ecommerce/v3/inventory", e.m, []any{
			map[string]any{"product": pluginProduct("WOO6", "EOS")},
			map[string]any{"product": map[string]any{"externalId": "NEVER", "status": "EOS"}},
		})
		if len(errs) != 1 || errs[1].Field != "product.externalId" {
			t.Fatalf("errors %+v", errs)
		}
		e.get(e.m, "/ecommerce/v3/inventory/WOO6").Expect(404)
		var cp itemPage
		e.get(e.m, "/ecommerce/v3/catalogs/WH1/products").Expect(200).JSON(&cp)
		status := map[string]string{}
		for _, it := range cp.Content {
			status[it.Product["externalId"].(string)] = it.Product["status"].(string)
			if it.Product["externalId"] == "WOO6" && it.Balances[0].Quantity != 0 {
				t.Errorf("EOS product with stock %+v", it.Balances)
			}
		}
		if status["WOO6"] != "EOS" || status["WOO7"] != "ACTIVE" {
			t.Fatalf("catalog %v", status)
		}
		// N cannot end M's product.
		if errs := e.pluginErrors("PUT", "/ecommerce/v3/inventory", e.n, []any{map[string]any{"product": pluginProduct("WOO7", "EOS")}}); len(errs) != 1 {
			t.Fatalf("N ended M's product: %+v", errs)
		}
		e.get(e.m, "/ecommerce/v3/inventory/WOO7").Expect(200)
		// Publishing again revives it, as after DELETE /inventory.
		e.pluginErrors("PUT", "/ecommerce/v3/inventory", e.m, []any{pluginPublish("WOO6", merchantM, "WH1")})
		e.get(e.m, "/ecommerce/v3/inventory/WOO6").Expect(200)
	})
}

// DELETE /inventory/balances with the plugin's body
// (get_balances_for_removal), answered as the plugin reads it
// (contains_error by index); the query form keeps working.
func TestPluginRemoveFromWarehouse(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e0 *apitest.Env) {
		e := newPluginEnv(t, e0)
		e.pluginErrors("PUT", "/ecommerce/v3/inventory", e.m, []any{pluginPublish("WOO6", merchantM, "WH1"), pluginPublish("WOO7", merchantM, "WH1")})
		e.pluginErrors("PUT", "/ecommerce/v3/inventory", e.n, []any{pluginPublish("WOO6", merchantN, "WH1")})
		errs := e.pluginErrors("DELETE", "/ecommerce/v3/inventory/balances", e.m, []any{
			map[string]any{"productExternalId": "WOO6", "catalogExternalId": "WH1", "retailerId": merchantM},
			map[string]any{"productExternalId": "NOPE", "catalogExternalId": "WH1", "retailerId": merchantM},
			map[string]any{"catalogExternalId": "WH1", "retailerId": merchantM},
			map[string]any{"productExternalId": "WOO7", "catalogExternalId": "WH1", "retailerId": "12"},
		})
		if len(errs) != 3 || errs[1].Field != "productExternalId" || errs[2].Field != "productExternalId" || errs[3].Field != "retailerId" {
			t.Fatalf("errors %+v", errs)
		}
		var one itemJSON
		e.get(e.m, "/ecommerce/v3/inventory/WOO6").Expect(200).JSON(&one)
		if len(one.Balances) != 0 {
			t.Fatalf("WOO6 still in WH1: %+v", one.Balances)
		}
		e.get(e.m, "/ecommerce/v3/inventory/WOO7").Expect(200).JSON(&one)
		if len(one.Balances) != 1 {
			t.Fatalf("WOO7 removed by an invalid entry: %+v", one.Balances)
		}
		// N's WOO6 is N's own, untouched; N cannot remove M's WOO7.
		e.get(e.n, "/ecommerce/v3/inventory/WOO6").Expect(200).JSON(&one)
		if len(one.Balances) != 1 {
			t.Fatalf("N's WOO6: %+v", one.Balances)
		}
		errs = e.pluginErrors("DELETE", "/ecommerce/v3/inventory/balances", e.n, []any{map[string]any{"productExternalId": "WOO7", "catalogExternalId": "WH1", "retailerId": merchantM}})
		if len(errs) != 1 || errs[0].Field != "productExternalId" {
			t.Fatalf("N removing M's WOO7: %+v", errs)
		}
		// Allocations of open orders keep the entry out, with a clear
		// reason, until released (interface §4.4 PUT balances rule 5).
		e.putBalances(e.m, []any{map[string]any{"productExternalId": "WOO7", "quantity": 3}}).Expect(200)
		if ok, err := sqlstore.NewInventoryService(e.DB).MoveStock(t.Context(), parcelgate.EnvironmentOperator(parcelgate.Production), merchantM, "WOO7", merchantM, "WH1", -1, 1); err != nil || !ok {
			t.Fatal(ok, err)
		}
		errs = e.pluginErrors("DELETE", "/ecommerce/v3/inventory/balances", e.m, []any{map[string]any{"productExternalId": "WOO7", "catalogExternalId": "WH1", "retailerId": merchantM}})
		if len(errs) != 1 || !strings.Contains(errs[0].Message, "allocated") {
			t.Fatalf("removing allocated stock: %+v", errs)
		}
		e.putBalances(e.m, []any{map[string]any{"productExternalId": "WOO7", "allocated": 0}}).Expect(200)
		// The query form still answers the removed balances.
		var removed []parcelgate.Balance
		e.Do(apitest.Request{Method: "DELETE", Path: "/ecommerce/v3/inventory/balances?productExternalId=WOO7&catalogExternalId=WH1", Bearer: e.m}).Expect(200).JSON(&removed)
		if len(removed) != 1 || removed[0].ProductExternalID != "WOO7" {
			t.Fatalf("query form: %+v", removed)
		}
		// Not an array: refused whole, naming the body.
		r := e.Do(apitest.Request{Method: "DELETE", Path: "/ecommerce/v3/inventory/balances", Bearer: e.m, Body: map[string]any{"productExternalId": "WOO7"}}).Expect(400)
		if fieldsOf(t, r)["(body)"] != -1 {
			t.Errorf("object body: %s", r.Body)
		}
		// Neither a query nor a body.
		e.Do(apitest.Request{Method: "DELETE", Path: "/ecommerce/v3/inventory/balances", Bearer: e.m}).Expect(400)
	})
}
