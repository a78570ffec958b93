package httpapi_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
	"github.com/parcelgate/parcelgate/sqlstore"
)

const (
	supplierA = "1234567-1"
	supplierB = "7654321-2"
	retailerR = "0737546-2"
	retailerS = "SE5560360793"
)

// inventoryEnv is a supplier A and a retailer R with catalog SHOP open to A
// (and B), in production.
type inventoryEnv struct {
	*apitest.Env
	supplier, retailer string
}

func newInventoryEnv(t *testing.T, e *apitest.Env) inventoryEnv {
	e.Catalog(parcelgate.Production, retailerR, "SHOP", parcelgate.CatalogDropship, supplierA, supplierB)
	return inventoryEnv{e,
		e.EcomToken(parcelgate.Production, supplierA, parcelgate.RoleSupplier),
		e.EcomToken(parcelgate.Production, retailerR, parcelgate.RoleRetailer)}
}

func product(id string, extra ...string) map[string]any {
	p := map[string]any{"externalId": id, "eanCode": "640" + id, "descriptions": map[string]any{"en": map[string]any{"name": "Product " + id}}}
	for i := 0; i+1 < len(extra); i += 2 {
		p[extra[i]] = extra[i+1]
	}
	return p
}

// publishNumbered publishes products P-00 … P-(n-1) to the retailer's
// SHOP, product i with quantity(i) in stock.
func (e inventoryEnv) publishNumbered(n int, quantity func(i int) int) {
	e.T.Helper()
	var body []any
	for i := range n {
		body = append(body, map[string]any{"product": product(fmt.Sprintf("P-%02d", i)), "balances": []any{map[string]any{"retailerId": retailerR, "catalogExternalId": "SHOP", "quantity": quantity(i)}}})
	}
	e.put(e.supplier, body).Expect(200)
}

func (e inventoryEnv) put(tok string, body any) *apitest.Response {
	e.T.Helper()
	return e.Do(apitest.Request{Method: "PUT", Path: "/ecommerce/v3/inventory", Body: body, Bearer: tok})
}

// publishP1ToThreeCatalogs opens retailer S's SHOP (dropship) and OUTLET
// (of type outlet) to supplier A too, and publishes P-1 to R's SHOP with
// quantity 1, S's SHOP with 2 and S's OUTLET with 3.
func (e inventoryEnv) publishP1ToThreeCatalogs(outlet parcelgate.CatalogType) {
	e.T.Helper()
	e.Catalog(parcelgate.Production, retailerS, "SHOP", parcelgate.CatalogDropship, supplierA)
	e.Catalog(parcelgate.Production, retailerS, "OUTLET", outlet, supplierA)
	e.put(e.supplier, []any{map[string]any{"product": product("P-1"), "balances": []any{
		map[string]any{"retailerId": retailerR, "catalogExternalId": "SHOP", "quantity": 1},
		map[string]any{"retailerId": retailerS, "catalogExternalId": "SHOP", "quantity": 2},
		map[string]any{"retailerId": retailerS, "catalogExternalId": "OUTLET", "quantity": 3},
	}}}).Expect(200)
}

// items GETs a page of products with their balances, answered 200.
func (e inventoryEnv) items(tok, path string) itemPage {
	e.T.Helper()
	var page itemPage
	e.get(tok, path).Expect(200).JSON(&page)
	return page
}

// putItems PUTs envelopes that must all apply (the answer lists no failed
// entry, decisions §6) and reads the products back as GET /inventory shows
// them, in the order they were created.
func (e inventoryEnv) putItems(tok string, body []any) []itemJSON {
	e.T.Helper()
	var failed []httpapi.EntryError
	e.put(tok, body).Expect(200).JSON(&failed)
	if failed == nil || len(failed) != 0 {
		e.T.Fatalf("PUT /inventory left out entries: %+v", failed)
	}
	var ids []string
	for _, env := range body {
		ids = append(ids, url.QueryEscape(env.(map[string]any)["product"].(map[string]any)["externalId"].(string)))
	}
	page := e.items(tok, "/ecommerce/v3/inventory?productExternalId="+strings.Join(ids, ","))
	return page.Content
}

func (e inventoryEnv) putBalances(tok string, body any) *apitest.Response {
	e.T.Helper()
	return e.Do(apitest.Request{Method: "PUT", Path: "/ecommerce/v3/inventory/balances", Body: body, Bearer: tok})
}

func (e inventoryEnv) get(tok, path string) *apitest.Response {
	e.T.Helper()
	return e.Do(apitest.Request{Method: "GET", Path: path, Bearer: tok})
}

type balancePage = httpapi.Page[parcelgate.Balance]

type itemJSON struct {
	Product  map[string]any       `json:"product"`
	Balances []parcelgate.Balance `json:"balances"`
}

type itemPage = httpapi.Page[itemJSON]

func fieldsOf(t *testing.T, r *apitest.Response) map[string]int {
	t.Helper()
	var eb httpapi.EcomError
	r.JSON(&eb)
	out := map[string]int{}
	for _, f := range eb.Errors {
		i := -1
		if f.Index != nil {
			i = *f.Index
		}
		out[f.Field] = i
	}
	return out
}

// interface §4.4 PUT /inventory rules 1-3, interface §2.4: create, publish, read back;
// unknown fields round-trip; the server owns supplierId and status; a
// second PUT replaces the content.
func TestInventoryPutAndRead(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e0 *apitest.Env) {
		e := newInventoryEnv(t, e0)
		p := product("P-1", "unitOfMeasure", "PCS")
		p["supplierId"] = "9999999-9"
		p["status"] = "EOS"
		p["customField"] = map[string]any{"nested": []any{1, "x"}}
		p["measurements"] = map[string]any{"weight": 1.25, "length": 10}
		items := e.putItems(e.supplier, []any{map[string]any{"product": p, "balances": []any{
			map[string]any{"retailerId": retailerR, "catalogExternalId": "SHOP", "quantity": 5, "wholesalePrice": 12.50, "currency": "eur"},
		}}})
		if len(items) != 1 || items[0].Product["supplierId"] != supplierA || items[0].Product["status"] != "ACTIVE" ||
			items[0].Product["customField"] == nil || len(items[0].Balances) != 1 {
			t.Fatalf("put answered %+v", items)
		}
		b := items[0].Balances[0]
		if b.Quantity != 5 || b.Currency != "EUR" || b.WholesalePrice != "12.5" || b.RetailerID != retailerR || b.CatalogExternalID != "SHOP" || b.EANCode != "640P-1" {
			t.Fatalf("balance %+v", b)
		}
		var one itemJSON
		e.get(e.supplier, "/ecommerce/v3/inventory/P-1").Expect(200).JSON(&one)
		if one.Product["unitOfMeasure"] != "PCS" || one.Product["measurements"].(map[string]any)["weight"] != 1.25 {
			t.Fatalf("read back %+v", one.Product)
		}
		// Rule 1: the same message overwrites the content.
		items = e.putItems(e.supplier, []any{map[string]any{"product": product("P-1")}})
		if items[0].Product["unitOfMeasure"] != nil || items[0].Product["customField"] != nil || len(items[0].Balances) != 1 {
			t.Fatalf("replaced %+v", items[0])
		}
		// The /v3 alias serves the same.
		page := e.items(e.supplier, "/v3/inventory")
		if page.Page.TotalElements != 1 || page.Content[0].Product["externalId"] != "P-1" {
			t.Fatalf("list %+v", page)
		}
		// interface §3, "creating a product does not make it visible": P-2 is not published.
		e.put(e.supplier, []any{map[string]any{"product": product("P-2")}}).Expect(200)
		cat := e.items(e.retailer, "/ecommerce/v3/catalogs/SHOP/products")
		if cat.Page.TotalElements != 1 || cat.Content[0].Product["externalId"] != "P-1" || len(cat.Content[0].Balances) != 1 {
			t.Fatalf("catalog products %+v", cat)
		}
	})
}

// interface §4.4 PUT balances rules 1-5.
func TestInventoryBalanceRules(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e0 *apitest.Env) {
		e := newInventoryEnv(t, e0)
		e.Catalog(parcelgate.Production, retailerS, "SHOP", parcelgate.CatalogDropship, supplierA)
		e.Catalog(parcelgate.Production, retailerS, "OUTLET", parcelgate.CatalogStore, supplierA)
		e.put(e.supplier, []any{map[string]any{"product": product("P-1")}, map[string]any{"product": product("P-2")}}).Expect(200)
		var bals []parcelgate.Balance
		// Rule 1: publish to several retailers and products in one request.
		e.putBalances(e.supplier, []any{
			map[string]any{"productExternalId": "P-1", "retailerId": retailerR, "catalogExternalId": "SHOP", "quantity": 10, "wholesalePrice": 5, "currency": "EUR"},
			map[string]any{"productExternalId": "P-1", "retailerId": retailerS, "catalogExternalId": "SHOP", "quantity": 20, "wholesalePrice": 6, "currency": "SEK"},
			map[string]any{"productExternalId": "P-1", "retailerId": retailerS, "catalogExternalId": "OUTLET", "quantity": 30},
			map[string]any{"productExternalId": "P-2", "retailerId": retailerR, "catalogExternalId": "SHOP", "quantity": 1},
		}).Expect(200).JSON(&bals)
		if len(bals) != 4 {
			t.Fatalf("published %+v", bals)
		}
		// Rule 2: stock update of one catalog.
		e.putBalances(e.supplier, []any{map[string]any{"productExternalId": "P-1", "retailerId": retailerR, "catalogExternalId": "SHOP", "quantity": 11}}).Expect(200).JSON(&bals)
		if len(bals) != 1 || bals[0].Quantity != 11 || bals[0].WholesalePrice != "5" || bals[0].Currency != "EUR" {
			t.Fatalf("rule 2: %+v", bals)
		}
		// Rule 3: price update for one retailer (no catalog: all of its catalogs).
		e.putBalances(e.supplier, []any{map[string]any{"productExternalId": "P-1", "retailerId": retailerS, "wholesalePrice": 7.25}}).Expect(200).JSON(&bals)
		if len(bals) != 2 || bals[0].WholesalePrice != "7.25" || bals[1].WholesalePrice != "7.25" || bals[0].Quantity != 20 || bals[1].Quantity != 30 {
			t.Fatalf("rule 3: %+v", bals)
		}
		// Rule 4: no catalogExternalId: every catalog where published.
		e.putBalances(e.supplier, []any{map[string]any{"productExternalId": "P-1", "quantity": 3}}).Expect(200).JSON(&bals)
		if len(bals) != 3 {
			t.Fatalf("rule 4: %+v", bals)
		}
		for _, b := range bals {
			if b.Quantity != 3 {
				t.Fatalf("rule 4: %+v", bals)
			}
		}
		// Rule 5: allocations survive a quantity update; allocated: 0 releases.
		allocate(t, e.Env, supplierA, "P-1", retailerR, "SHOP", 2)
		e.putBalances(e.supplier, []any{map[string]any{"productExternalId": "P-1", "retailerId": retailerR, "catalogExternalId": "SHOP", "quantity": 8}}).Expect(200).JSON(&bals)
		if bals[0].Quantity != 8 || bals[0].Allocated != 2 {
			t.Fatalf("rule 5 keep: %+v", bals)
		}
		e.putBalances(e.supplier, []any{map[string]any{"productExternalId": "P-1", "retailerId": retailerR, "catalogExternalId": "SHOP", "quantity": 9, "allocated": 0}}).Expect(200).JSON(&bals)
		if bals[0].Quantity != 9 || bals[0].Allocated != 0 {
			t.Fatalf("rule 5 release: %+v", bals)
		}
		// interface §4.4 GET rule 5: P-1 once per catalog in the supplier's balances.
		var page balancePage
		e.get(e.supplier, "/ecommerce/v3/inventory/balances?productExternalId=P-1").Expect(200).JSON(&page)
		if page.Page.TotalElements != 3 {
			t.Fatalf("supplier balances %+v", page.Page)
		}
		e.get(e.supplier, "/ecommerce/v3/inventory/balances?retailerId="+retailerS+"&catalogExternalId=OUTLET").Expect(200).JSON(&page)
		if page.Page.TotalElements != 1 || page.Content[0].Quantity != 3 {
			t.Fatalf("filtered %+v", page)
		}
		// A catalog ID several retailers use needs retailerId.
		r := e.putBalances(e.supplier, []any{map[string]any{"productExternalId": "P-2", "catalogExternalId": "SHOP", "quantity": 1}}).Expect(400)
		if f := fieldsOf(t, r); f["catalogExternalId"] != 0 {
			t.Fatalf("ambiguous catalog %v", f)
		}
		// OUTLET has one retailer: retailerId may be left out.
		e.putBalances(e.supplier, []any{map[string]any{"productExternalId": "P-2", "catalogExternalId": "OUTLET", "quantity": 4}}).Expect(200).JSON(&bals)
		if bals[0].RetailerID != retailerS {
			t.Fatalf("%+v", bals)
		}
	})
}

// allocate moves stock as a warehouse order does, through the store.
func allocate(t *testing.T, e *apitest.Env, supplier, product, retailer, catalog string, q int64) {
	t.Helper()
	ok, err := sqlstore.NewInventoryService(e.DB).MoveStock(t.Context(), parcelgate.EnvironmentOperator(parcelgate.Production), supplier, product, retailer, catalog, -q, q)
	if err != nil || !ok {
		t.Fatalf("allocate: %v %v", ok, err)
	}
}

// decisions §6, interface §4.4 PUT /inventory "all-or-nothing"; issue "Bad input":
// every problem with its index, nothing applied.
func TestInventoryBadInput(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e0 *apitest.Env) {
		e := newInventoryEnv(t, e0)
		e.Catalog(parcelgate.Production, retailerS, "CLOSED", parcelgate.CatalogDropship, supplierB)
		e.put(e.supplier, []any{map[string]any{"product": product("P-1")}}).Expect(200)
		// Each entry stands alone (decisions §6, as the warehouse plugin reads
		// the answer): the valid first entry is applied, the others are
		// listed with their index and every problem, and not applied.
		var failed []httpapi.EntryError
		e.put(e.supplier, []any{
			map[string]any{"product": product("OK-1")},
			map[string]any{"product": product("bad id!")},
			map[string]any{"product": product("ABCDEFGHIJKLMNOPQRSTU")},
			map[string]any{"balances": []any{}},
			map[string]any{"product": map[string]any{"externalId": "NONAME"}},
			map[string]any{"product": product("OK-2"), "balances": []any{map[string]any{"retailerId": retailerR, "catalogExternalId": "SHOP", "quantity": "five"}}},
			map[string]any{"product": product("OK-3"), "balances": []any{map[string]any{"retailerId": retailerR, "catalogExternalId": "SHOP", "quantity": -1}}},
			map[string]any{"product": product("OK-4"), "balances": []any{map[string]any{"retailerId": retailerR, "catalogExternalId": "SHOP", "quantity": 1.5}}},
			map[string]any{"product": product("OK-5"), "balances": []any{map[string]any{"retailerId": retailerR, "catalogExternalId": "SHOP", "wholesalePrice": "cheap"}}},
			map[string]any{"product": map[string]any{"externalId": "T", "isFragile": "yes", "descriptions": map[string]any{"en": map[string]any{"name": "n"}}}},
		}).Expect(200).JSON(&failed)
		want := map[string]int{"product.externalId": 2, "product": 3, "product.descriptions": 4, "balances[0].quantity": 7, "balances[0].wholesalePrice": 8, "product.isFragile": 9}
		got := map[string]int{}
		n := 0
		for i, f := range failed {
			if f.Index != i+1 || len(f.Errors) == 0 || f.Field != f.Errors[0].Field || f.Message != f.Errors[0].Message {
				t.Errorf("entry error %d: %+v", i, f)
			}
			for _, fe := range f.Errors {
				got[fe.Field] = f.Index
				n++
			}
		}
		for f, i := range want {
			if got[f] != i {
				t.Errorf("field %s: index %d, want %d (all: %v)", f, got[f], i, got)
			}
		}
		if len(failed) != 9 || n != 9 {
			t.Errorf("%d entries with %d errors, want 9 and 9: %+v", len(failed), n, failed)
		}
		// Unknown catalog, and a catalog not open to this supplier: the same
		// answer; the valid first entry is applied, the others not.
		e.put(e.supplier, []any{
			map[string]any{"product": product("OK-1")},
			map[string]any{"product": product("OK-2"), "balances": []any{map[string]any{"retailerId": retailerR, "catalogExternalId": "NOPE"}}},
			map[string]any{"product": product("OK-3"), "balances": []any{map[string]any{"retailerId": retailerS, "catalogExternalId": "CLOSED"}}},
		}).Expect(200).JSON(&failed)
		if len(failed) != 2 || failed[0].Index != 1 || failed[1].Index != 2 || failed[1].Field != "balances[0].catalogExternalId" || !strings.Contains(failed[1].Message, "no catalog") {
			t.Fatalf("catalog errors %+v", failed)
		}
		page := e.items(e.supplier, "/ecommerce/v3/inventory")
		if page.Page.TotalElements != 2 || page.Content[1].Product["externalId"] != "OK-1" {
			t.Fatalf("stored other than P-1 and OK-1: %+v", page)
		}
		var r *apitest.Response
		var eb httpapi.EcomError
		// PUT balances: unknown product, not published (rule 4), allocated other than 0.
		r = e.putBalances(e.supplier, []any{
			map[string]any{"productExternalId": "P-1", "retailerId": retailerR, "catalogExternalId": "SHOP", "quantity": 1},
			map[string]any{"productExternalId": "NOPE", "retailerId": retailerR, "catalogExternalId": "SHOP", "quantity": 1},
			map[string]any{"productExternalId": "P-1", "quantity": 1, "retailerId": retailerS},
			map[string]any{"productExternalId": "P-1", "retailerId": retailerR, "catalogExternalId": "SHOP", "allocated": 3},
			map[string]any{"retailerId": retailerR, "catalogExternalId": "SHOP"},
			map[string]any{"productExternalId": "P-1", "retailerId": "123", "catalogExternalId": "SHOP", "currency": "euro"},
			"not an object",
		}).Expect(400)
		got = fieldsOf(t, r)
		for f, i := range map[string]int{"allocated": 3, "productExternalId": 4, "retailerId": 5, "currency": 5, "(entry)": 6} {
			if got[f] != i {
				t.Errorf("balances field %s: index %d, want %d (all: %v)", f, got[f], i, got)
			}
		}
		r = e.putBalances(e.supplier, []any{
			map[string]any{"productExternalId": "P-1", "retailerId": retailerR, "catalogExternalId": "SHOP", "quantity": 1},
			map[string]any{"productExternalId": "NOPE", "retailerId": retailerR, "catalogExternalId": "SHOP", "quantity": 1},
			map[string]any{"productExternalId": "P-1", "quantity": 1, "retailerId": retailerS},
		}).Expect(400)
		r.JSON(&eb)
		if len(eb.Errors) != 2 || *eb.Errors[0].Index != 1 || *eb.Errors[1].Index != 2 {
			t.Fatalf("balance errors %+v", eb.Errors)
		}
		var bp balancePage
		e.get(e.supplier, "/ecommerce/v3/inventory/balances").Expect(200).JSON(&bp)
		if bp.Page.TotalElements != 0 {
			t.Fatalf("a failed request published: %+v", bp)
		}
		// Bodies and query parameters.
		for name, body := range map[string]string{"not json": "[", "object": `{"product":{}}`, "empty array": "[]", "empty": ""} {
			r := e.Do(apitest.Request{Method: "PUT", Path: "/ecommerce/v3/inventory", Body: body, Bearer: e.supplier, ContentType: "application/json"})
			if r.Status != 400 {
				t.Errorf("%s: %d %s", name, r.Status, r.Body)
			}
		}
		for _, q := range []string{"page=x", "size=-1", "page=1.5", "modifiedFromDate=yesterday", "productExternalId=a%20b", "retailerId=12", "catalogExternalId=a/b", "after=zzz"} {
			e.get(e.supplier, "/ecommerce/v3/inventory/balances?"+q).Expect(400)
		}
		e.get(e.retailer, "/ecommerce/v3/catalogs?role=OWNER").Expect(400)
		// DELETE: status other than EOS, missing externalId.
		r = e.Do(apitest.Request{Method: "DELETE", Path: "/ecommerce/v3/inventory", Bearer: e.supplier, Body: []any{
			map[string]any{"product": map[string]any{"externalId": "P-1", "status": "EOS"}},
			map[string]any{"product": map[string]any{"externalId": "P-1", "status": "DELETED"}},
			map[string]any{"product": map[string]any{"status": "EOS"}},
		}}).Expect(400)
		got = fieldsOf(t, r)
		if got["product.status"] != 1 || got["product.externalId"] != 2 {
			t.Fatalf("delete errors %v", got)
		}
		e.get(e.supplier, "/ecommerce/v3/inventory/P-1").Expect(200)
		e.Do(apitest.Request{Method: "DELETE", Path: "/ecommerce/v3/inventory/balances", Bearer: e.supplier}).Expect(400)
	})
}

// interface §3 (EOS) rules 1-3, interface §8: deleted-product visibility 14 days; a
// later PUT revives it.
func TestInventoryEOS(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e0 *apitest.Env) {
		e := newInventoryEnv(t, e0)
		e.put(e.supplier, []any{
			map[string]any{"product": product("P-1"), "balances": []any{map[string]any{"retailerId": retailerR, "catalogExternalId": "SHOP", "quantity": 7}}},
			map[string]any{"product": product("P-2"), "balances": []any{map[string]any{"retailerId": retailerR, "catalogExternalId": "SHOP", "quantity": 3}}},
		}).Expect(200)
		var items []itemJSON
		e.Do(apitest.Request{Method: "DELETE", Path: "/v3/inventory", Bearer: e.supplier, Body: []any{map[string]any{"product": map[string]any{"externalId": "P-1", "status": "EOS"}}}}).Expect(200).JSON(&items)
		if len(items) != 1 || items[0].Product["status"] != "EOS" || items[0].Balances[0].Quantity != 0 {
			t.Fatalf("delete answered %+v", items)
		}
		// Rule 3: gone from the supplier's reads.
		e.get(e.supplier, "/ecommerce/v3/inventory/P-1").Expect(404)
		page := itemPage{}
		e.get(e.supplier, "/ecommerce/v3/inventory").Expect(200).JSON(&page)
		if page.Page.TotalElements != 1 {
			t.Fatalf("supplier still lists %+v", page)
		}
		var bp balancePage
		e.get(e.supplier, "/ecommerce/v3/inventory/balances").Expect(200).JSON(&bp)
		if bp.Page.TotalElements != 1 {
			t.Fatalf("supplier balances %+v", bp.Page)
		}
		// Rule 1: the retailer sees it with status EOS and balance 0.
		e.get(e.retailer, "/ecommerce/v3/catalogs/SHOP/products?productExternalId=P-1").Expect(200).JSON(&page)
		if page.Page.TotalElements != 1 || page.Content[0].Product["status"] != "EOS" || page.Content[0].Balances[0].Quantity != 0 {
			t.Fatalf("retailer view %+v", page)
		}
		// Deleting again is harmless; an unknown product is 404 with its index.
		e.Do(apitest.Request{Method: "DELETE", Path: "/ecommerce/v3/inventory", Bearer: e.supplier, Body: []any{map[string]any{"product": map[string]any{"externalId": "P-1", "status": "EOS"}}}}).Expect(200)
		r := e.Do(apitest.Request{Method: "DELETE", Path: "/ecommerce/v3/inventory", Bearer: e.supplier, Body: []any{
			map[string]any{"product": map[string]any{"externalId": "P-2", "status": "EOS"}},
			map[string]any{"product": map[string]any{"externalId": "NOPE", "status": "EOS"}}}}).Expect(404)
		if f := fieldsOf(t, r); f["product.externalId"] != 1 {
			t.Fatalf("%v", f)
		}
		e.get(e.supplier, "/ecommerce/v3/inventory/P-2").Expect(200)
		// Rule 2: after 14 days, no more. (Tokens live an hour: new ones.)
		e.Clock.Advance(14*24*time.Hour - time.Minute)
		e.retailer = e.EcomToken(parcelgate.Production, retailerR, parcelgate.RoleRetailer)
		e.supplier = e.EcomToken(parcelgate.Production, supplierA, parcelgate.RoleSupplier)
		e.get(e.retailer, "/ecommerce/v3/catalogs/SHOP/products").Expect(200).JSON(&page)
		if page.Page.TotalElements != 2 {
			t.Fatalf("before 14 days: %+v", page.Page)
		}
		e.Clock.Advance(2 * time.Minute)
		e.get(e.retailer, "/ecommerce/v3/catalogs/SHOP/products").Expect(200).JSON(&page)
		if page.Page.TotalElements != 1 || page.Content[0].Product["externalId"] != "P-2" {
			t.Fatalf("after 14 days: %+v", page)
		}
		// A later PUT revives it (still published, quantity 0 until set).
		e.put(e.supplier, []any{map[string]any{"product": product("P-1")}}).Expect(200)
		e.get(e.retailer, "/ecommerce/v3/catalogs/SHOP/products?productExternalId=P-1").Expect(200).JSON(&page)
		if page.Page.TotalElements != 1 || page.Content[0].Product["status"] != "ACTIVE" || page.Content[0].Balances[0].Quantity != 0 {
			t.Fatalf("revived %+v", page)
		}
	})
}

// interface §4.4 DELETE balances rules 1-2.
func TestInventoryDeleteBalances(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e0 *apitest.Env) {
		e := newInventoryEnv(t, e0)
		e.publishP1ToThreeCatalogs(parcelgate.CatalogDropship)
		del := func(q string) []parcelgate.Balance {
			var out []parcelgate.Balance
			e.Do(apitest.Request{Method: "DELETE", Path: "/v3/inventory/balances?" + q, Bearer: e.supplier}).Expect(200).JSON(&out)
			return out
		}
		if got := del("productExternalId=P-1&retailerId=" + retailerS + "&catalogExternalId=SHOP"); len(got) != 1 || got[0].Quantity != 2 {
			t.Fatalf("one catalog: %+v", got)
		}
		allocate(t, e.Env, supplierA, "P-1", retailerS, "OUTLET", 1)
		e.Do(apitest.Request{Method: "DELETE", Path: "/ecommerce/v3/inventory/balances?productExternalId=P-1", Bearer: e.supplier}).Expect(409)
		e.putBalances(e.supplier, []any{map[string]any{"productExternalId": "P-1", "retailerId": retailerS, "catalogExternalId": "OUTLET", "allocated": 0}}).Expect(200)
		// Rule 2: without catalog and retailer, from all catalogs.
		if got := del("productExternalId=P-1"); len(got) != 2 {
			t.Fatalf("all: %+v", got)
		}
		if got := del("productExternalId=P-1"); len(got) != 0 {
			t.Fatalf("again: %+v", got)
		}
		e.Do(apitest.Request{Method: "DELETE", Path: "/ecommerce/v3/inventory/balances?productExternalId=NOPE", Bearer: e.supplier}).Expect(404)
		page := e.items(e.retailer, "/ecommerce/v3/catalogs/SHOP/products")
		if page.Page.TotalElements != 0 {
			t.Fatalf("still in the catalog: %+v", page)
		}
	})
}

// decisions §3: another tenant's object answers exactly like a missing one;
// roles decide who may do what.
func TestInventoryTenancy(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e0 *apitest.Env) {
		e := newInventoryEnv(t, e0)
		e.Catalog(parcelgate.Production, retailerS, "PRIVATE", parcelgate.CatalogDropship, supplierB)
		otherSupplier := e.EcomToken(parcelgate.Production, supplierB, parcelgate.RoleSupplier)
		otherRetailer := e.EcomToken(parcelgate.Production, retailerS, parcelgate.RoleRetailer)
		testSupplier := e.EcomToken(parcelgate.Test, supplierA, parcelgate.RoleSupplier)
		testRetailer := e.EcomToken(parcelgate.Test, retailerR, parcelgate.RoleRetailer)
		e.put(e.supplier, []any{map[string]any{"product": product("P-1"), "balances": []any{map[string]any{"retailerId": retailerR, "catalogExternalId": "SHOP", "quantity": 5}}}}).Expect(200)

		// Other supplier, same business ID in the test environment.
		for _, tok := range []string{otherSupplier, testSupplier} {
			missing := e.get(tok, "/ecommerce/v3/inventory/P-1").Expect(404)
			never := e.get(tok, "/ecommerce/v3/inventory/NEVER").Expect(404)
			var a, b httpapi.EcomError
			missing.JSON(&a)
			never.JSON(&b)
			if strings.ReplaceAll(a.Message, "P-1", "X") != strings.ReplaceAll(b.Message, "NEVER", "X") {
				t.Errorf("%q vs %q", a.Message, b.Message)
			}
			var bp balancePage
			e.get(tok, "/ecommerce/v3/inventory/balances").Expect(200).JSON(&bp)
			if bp.Page.TotalElements != 0 {
				t.Errorf("sees another supplier's balances: %+v", bp)
			}
			r := e.putBalances(tok, []any{map[string]any{"productExternalId": "P-1", "quantity": 0}}).Expect(400)
			if f := fieldsOf(t, r); f["productExternalId"] != 0 {
				t.Errorf("%v", f)
			}
			e.Do(apitest.Request{Method: "DELETE", Path: "/ecommerce/v3/inventory/balances?productExternalId=P-1", Bearer: tok}).Expect(404)
			e.Do(apitest.Request{Method: "DELETE", Path: "/ecommerce/v3/inventory", Bearer: tok, Body: []any{map[string]any{"product": map[string]any{"externalId": "P-1", "status": "EOS"}}}}).Expect(404)
		}
		// Same externalId for another supplier is another product.
		e.put(otherSupplier, []any{map[string]any{"product": product("P-1"), "balances": []any{map[string]any{"retailerId": retailerR, "catalogExternalId": "SHOP", "quantity": 9}}}}).Expect(200)
		var bp balancePage
		e.get(e.retailer, "/ecommerce/v3/catalogs/SHOP/balances?productExternalId=P-1").Expect(200).JSON(&bp)
		if bp.Page.TotalElements != 2 || bp.Content[0].SupplierID != supplierA || bp.Content[1].SupplierID != supplierB {
			t.Fatalf("two suppliers' P-1: %+v", bp.Content)
		}
		// Catalog not open to the supplier: rejected like an unknown one.
		r := e.putBalances(e.supplier, []any{map[string]any{"productExternalId": "P-1", "retailerId": retailerS, "catalogExternalId": "PRIVATE", "quantity": 1}}).Expect(400)
		var eb httpapi.EcomError
		r.JSON(&eb)
		r2 := e.putBalances(e.supplier, []any{map[string]any{"productExternalId": "P-1", "retailerId": retailerS, "catalogExternalId": "NOSUCH", "quantity": 1}}).Expect(400)
		var eb2 httpapi.EcomError
		r2.JSON(&eb2)
		if strings.ReplaceAll(eb.Errors[0].Message, "PRIVATE", "X") != strings.ReplaceAll(eb2.Errors[0].Message, "NOSUCH", "X") {
			t.Errorf("%q vs %q", eb.Errors[0].Message, eb2.Errors[0].Message)
		}
		// Other retailer, same business ID in the test environment.
		for _, tok := range []string{otherRetailer, testRetailer} {
			e.get(tok, "/ecommerce/v3/catalogs/SHOP/balances").Expect(404)
			e.get(tok, "/ecommerce/v3/catalogs/SHOP/products").Expect(404)
			e.get(tok, "/ecommerce/v3/catalogs/balances").Expect(200).JSON(&bp)
			if bp.Page.TotalElements != 0 {
				t.Errorf("other retailer sees %+v", bp)
			}
		}
		// Roles: a retailer may not write products; a supplier may not read catalogs.
		e.put(e.retailer, []any{map[string]any{"product": product("X")}}).Expect(403)
		e.get(e.supplier, "/ecommerce/v3/catalogs/SHOP/balances").Expect(403)
		// GET /catalogs by role.
		var cp httpapi.Page[parcelgate.CatalogEntry]
		e.get(e.supplier, "/ecommerce/v3/catalogs?role=supplier").Expect(200).JSON(&cp)
		if cp.Page.TotalElements != 1 || cp.Content[0].ExternalID != "SHOP" || cp.Content[0].SupplierID != supplierA || cp.Content[0].RetailerID != retailerR {
			t.Fatalf("catalogs as supplier %+v", cp)
		}
		e.get(e.retailer, "/v3/catalogs").Expect(200).JSON(&cp)
		if cp.Page.TotalElements != 1 || len(cp.Content[0].SupplierIDs) != 2 {
			t.Fatalf("catalogs as retailer %+v", cp)
		}
	})
}

// decisions §6: in the warehouse service the merchant is supplier and
// retailer of its own Warehouse catalog; a merchant-only account reads only
// its Warehouse catalogs.
func TestInventoryMerchantWarehouse(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		e.Catalog(parcelgate.Production, supplierA, "WH1", parcelgate.CatalogWarehouse, supplierA)
		e.Catalog(parcelgate.Production, supplierA, "STORE", parcelgate.CatalogStore, supplierA)
		m := e.EcomToken(parcelgate.Production, supplierA, parcelgate.RoleMerchant)
		ie := inventoryEnv{Env: e}
		ie.put(m, []any{map[string]any{"product": product("1234567-1-A"), "balances": []any{
			map[string]any{"retailerId": supplierA, "catalogExternalId": "WH1", "quantity": 4},
			map[string]any{"retailerId": supplierA, "catalogExternalId": "STORE", "quantity": 1}}}}).Expect(200)
		var bp balancePage
		ie.get(m, "/ecommerce/v3/catalogs/WH1/balances").Expect(200).JSON(&bp)
		if bp.Page.TotalElements != 1 || bp.Content[0].Quantity != 4 {
			t.Fatalf("%+v", bp)
		}
		ie.get(m, "/ecommerce/v3/catalogs/STORE/balances").Expect(404)
		ie.get(m, "/ecommerce/v3/catalogs/balances").Expect(200).JSON(&bp)
		if bp.Page.TotalElements != 1 {
			t.Fatalf("merchant sees %+v", bp.Page)
		}
	})
}

// interface §2.6, interface §4.4 GET rule 1, decisions §8: pages by number and by the next
// link agree; stable order; a page past the end is empty with totals.
func TestInventoryPaging(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e0 *apitest.Env) {
		e := newInventoryEnv(t, e0)
		e.publishNumbered(25, func(i int) int { return i })
		var byNumber []string
		for n := 0; n < 3; n++ {
			var bp balancePage
			e.get(e.retailer, fmt.Sprintf("/ecommerce/v3/catalogs/SHOP/balances?size=10&page=%d", n)).Expect(200).JSON(&bp)
			if bp.Page.TotalElements != 25 || bp.Page.TotalPages != 3 || bp.Page.Number != n {
				t.Fatalf("page %d: %+v", n, bp.Page)
			}
			for _, b := range bp.Content {
				byNumber = append(byNumber, b.ProductExternalID)
			}
		}
		byLink := followNext(e.Env, e.retailer, "/ecommerce/v3/catalogs/SHOP/balances?size=10")
		if len(byNumber) != 25 || strings.Join(byNumber, ",") != strings.Join(byLink, ",") {
			t.Fatalf("by number %v\nby link %v", byNumber, byLink)
		}
		// A fresh instance over the same database (no page boundaries
		// cached) answers page 2 the same.
		other := apitest.NewWithDB(t, e.DB, e.Clock)
		var bp balancePage
		other.Do(apitest.Request{Method: "GET", Path: "/ecommerce/v3/catalogs/SHOP/balances?size=10&page=2", Bearer: e.retailer}).Expect(200).JSON(&bp)
		if len(bp.Content) != 5 || bp.Content[0].ProductExternalID != byNumber[20] {
			t.Fatalf("page 2 elsewhere: %+v", bp.Content)
		}
		e.get(e.retailer, "/ecommerce/v3/catalogs/SHOP/balances?size=10&page=9").Expect(200).JSON(&bp)
		if len(bp.Content) != 0 || bp.Page.TotalElements != 25 || bp.Page.TotalPages != 3 {
			t.Fatalf("past the end %+v", bp)
		}
		// Updates do not move rows between pages.
		e.putBalances(e.supplier, []any{map[string]any{"productExternalId": "P-00", "quantity": 99}}).Expect(200)
		e.get(e.retailer, "/ecommerce/v3/catalogs/SHOP/balances?size=10&page=0").Expect(200).JSON(&bp)
		if bp.Content[0].ProductExternalID != "P-00" || bp.Content[0].Quantity != 99 {
			t.Fatalf("order moved: %+v", bp.Content[0])
		}
		// interface §4.4 GET rule 2: filters.
		e.get(e.retailer, "/ecommerce/v3/catalogs/SHOP/balances?productExternalId=P-01,P-02&productExternalId=P-03").Expect(200).JSON(&bp)
		if bp.Page.TotalElements != 3 {
			t.Fatalf("productExternalId filter %+v", bp.Page)
		}
		e.get(e.retailer, "/ecommerce/v3/catalogs/SHOP/balances?eanCode=640P-04").Expect(200).JSON(&bp)
		if bp.Page.TotalElements != 1 || bp.Content[0].ProductExternalID != "P-04" {
			t.Fatalf("eanCode filter %+v", bp)
		}
		ip := e.items(e.supplier, "/ecommerce/v3/inventory?size=7&page=3")
		if ip.Page.TotalElements != 25 || len(ip.Content) != 4 {
			t.Fatalf("inventory paging %+v", ip.Page)
		}
	})
}

// interface §4.4 GET rule 4: large lists come back gzip-compressed when asked.
func TestInventoryGzip(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e0 *apitest.Env) {
		e := newInventoryEnv(t, e0)
		e.publishNumbered(50, func(i int) int { return i })
		r := e.Do(apitest.Request{Method: "GET", Path: "/v3/catalogs/SHOP/products", Bearer: e.retailer, Header: http.Header{"Accept-Encoding": {"gzip,deflate"}}}).Expect(200)
		var ip itemPage
		r.JSON(&ip)
		if r.Header.Get("Content-Encoding") != "gzip" || len(ip.Content) != 50 {
			t.Fatalf("encoding %q, %d items", r.Header.Get("Content-Encoding"), len(ip.Content))
		}
	})
}
