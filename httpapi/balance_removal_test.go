package httpapi_test

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// polled is a balance as a poller reads it.
type polled = apitest.PolledBalance

type polledPage = httpapi.Page[polled]

type polledItemPage = httpapi.Page[struct {
	Product  map[string]any `json:"product"`
	Balances []polled       `json:"balances"`
}]

// newest is the newest modifiedDate in bs, or since when none is newer.
func newest(since string, bs []polled) string {
	for _, b := range bs {
		since = max(since, b.ModifiedDate)
	}
	return since
}

func (e inventoryEnv) deleteBalances(query string) []parcelgate.Balance {
	e.T.Helper()
	var out []parcelgate.Balance
	e.Do(apitest.Request{Method: "DELETE", Path: "/ecommerce/v3/inventory/balances?" + query, Bearer: e.supplier}).Expect(200).JSON(&out)
	return out
}

func since(stamp string) string { return "modifiedFromDate=" + url.QueryEscape(stamp) }

// decisions §6, interface §4.4 DELETE balances rule 2: removing a product from
// catalogs is a change. A retailer (and the supplier) polling with the
// newest modifiedDate it has seen gets the balance with removed: true and
// quantity 0; plain reads no longer show it; publishing it again revives
// it with the new values and a new stamp.
func TestBalanceRemovalReachesPollers(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e0 *apitest.Env) {
		e := newInventoryEnv(t, e0)
		e.Catalog(parcelgate.Production, retailerS, "SHOP", parcelgate.CatalogDropship, supplierA)
		shopS := e.EcomToken(parcelgate.Production, retailerS, parcelgate.RoleRetailer)
		var body []any
		for _, id := range []string{"P-1", "P-2", "P-3"} {
			body = append(body, map[string]any{"product": product(id), "balances": []any{
				map[string]any{"retailerId": retailerR, "catalogExternalId": "SHOP", "quantity": 5, "wholesalePrice": 2.5, "currency": "EUR"}}})
		}
		body[0].(map[string]any)["balances"] = append(body[0].(map[string]any)["balances"].([]any),
			map[string]any{"retailerId": retailerS, "catalogExternalId": "SHOP", "quantity": 6})
		e.put(e.supplier, body).Expect(200)
		var bp polledPage
		e.get(e.retailer, "/ecommerce/v3/catalogs/SHOP/balances").Expect(200).JSON(&bp)
		cursor := newest("", bp.Content)
		e.get(e.supplier, "/ecommerce/v3/inventory/balances").Expect(200).JSON(&bp)
		supplierCursor := newest("", bp.Content)

		// Rule 2: no catalog, no retailer: from every catalog.
		if got := e.deleteBalances("productExternalId=P-1"); len(got) != 2 {
			t.Fatalf("removed %+v", got)
		}
		isRemovedP1 := func(what string, b polled, after string) {
			t.Helper()
			if b.ProductExternalID != "P-1" || !b.Removed || b.Quantity != 0 || b.Allocated != 0 || b.ModifiedDate <= after {
				t.Errorf("%s: %+v, want P-1 removed with quantity 0 stamped after %s", what, b, after)
			}
		}
		for _, path := range []string{"/ecommerce/v3/catalogs/SHOP/balances", "/ecommerce/v3/catalogs/balances", "/v3/catalogs/SHOP/balances"} {
			e.get(e.retailer, path+"?"+since(cursor)).Expect(200).JSON(&bp)
			if bp.Page.TotalElements != 1 || len(bp.Content) != 1 {
				t.Fatalf("%s: the poller sees %+v", path, bp)
			}
			isRemovedP1(path, bp.Content[0], cursor)
		}
		tombstone := bp.Content[0].ModifiedDate
		var ip polledItemPage
		e.get(e.retailer, "/ecommerce/v3/catalogs/SHOP/products?"+since(cursor)).Expect(200).JSON(&ip)
		if len(ip.Content) != 1 || len(ip.Content[0].Balances) != 1 || ip.Content[0].Product["externalId"] != "P-1" {
			t.Fatalf("products poll: %+v", ip)
		}
		isRemovedP1("products poll", ip.Content[0].Balances[0], cursor)
		e.get(shopS, "/ecommerce/v3/catalogs/SHOP/balances?"+since(cursor)).Expect(200).JSON(&bp)
		if len(bp.Content) != 1 {
			t.Fatalf("the other retailer's poll: %+v", bp)
		}
		isRemovedP1("other retailer", bp.Content[0], cursor)
		e.get(e.supplier, "/ecommerce/v3/inventory/balances?"+since(supplierCursor)).Expect(200).JSON(&bp)
		if len(bp.Content) != 2 {
			t.Fatalf("the supplier's poll: %+v", bp)
		}
		for _, b := range bp.Content {
			isRemovedP1("supplier poll", b, supplierCursor)
		}
		// Polling on from the removal: nothing new. Removing again changes
		// nothing, so it is no new change either.
		if got := e.deleteBalances("productExternalId=P-1"); len(got) != 0 {
			t.Fatalf("removed again: %+v", got)
		}
		e.get(e.retailer, "/ecommerce/v3/catalogs/SHOP/balances?"+since(tombstone)).Expect(200).JSON(&bp)
		if bp.Page.TotalElements != 0 {
			t.Fatalf("after the removal: %+v", bp)
		}

		// Plain reads treat the removed balance as absent.
		for _, path := range []string{"/ecommerce/v3/catalogs/SHOP/balances", "/ecommerce/v3/catalogs/balances", "/ecommerce/v3/catalogs/SHOP/products",
			"/ecommerce/v3/inventory/balances", "/ecommerce/v3/inventory?retailerId=" + retailerR + "&catalogExternalId=SHOP"} {
			var page httpapi.Page[map[string]any]
			e.get(tokenFor(e, path), path).Expect(200).JSON(&page)
			if page.Page.TotalElements != 2 || len(page.Content) != 2 || strings.Contains(fmt.Sprint(page.Content), "P-1") || strings.Contains(fmt.Sprint(page.Content), "removed") {
				t.Errorf("%s lists %+v", path, page)
			}
		}
		e.get(e.retailer, "/ecommerce/v3/catalogs/SHOP/balances?productExternalId=P-1").Expect(200).JSON(&bp)
		if bp.Page.TotalElements != 0 {
			t.Errorf("filtered by product: %+v", bp)
		}
		e.get(shopS, "/ecommerce/v3/catalogs/SHOP/products").Expect(200).JSON(&ip)
		if ip.Page.TotalElements != 0 {
			t.Errorf("the other retailer's catalog: %+v", ip)
		}
		var item itemJSON
		e.get(e.supplier, "/ecommerce/v3/inventory/P-1").Expect(200).JSON(&item)
		if len(item.Balances) != 0 {
			t.Errorf("the product still lists %+v", item.Balances)
		}

		// Publishing again revives the balance with the entry's values: a
		// price given before the removal is not carried over.
		var bals []polled
		e.putBalances(e.supplier, []any{map[string]any{"productExternalId": "P-1", "retailerId": retailerR, "catalogExternalId": "SHOP", "quantity": 4}}).Expect(200).JSON(&bals)
		if len(bals) != 1 || bals[0].Removed || bals[0].Quantity != 4 || bals[0].Allocated != 0 || bals[0].WholesalePrice != "" || bals[0].Currency != "" || bals[0].ModifiedDate <= tombstone {
			t.Fatalf("revived %+v", bals)
		}
		e.get(e.retailer, "/ecommerce/v3/catalogs/SHOP/balances?"+since(tombstone)).Expect(200).JSON(&bp)
		if len(bp.Content) != 1 || bp.Content[0].Removed || bp.Content[0].Quantity != 4 {
			t.Fatalf("the poller sees the revival as %+v", bp)
		}
		e.get(e.retailer, "/ecommerce/v3/catalogs/SHOP/balances").Expect(200).JSON(&bp)
		if bp.Page.TotalElements != 3 {
			t.Fatalf("after the revival: %+v", bp.Page)
		}
		// So does an envelope of PUT /inventory, in the other retailer's catalog.
		items := e.putItems(e.supplier, []any{map[string]any{"product": product("P-1"), "balances": []any{
			map[string]any{"retailerId": retailerS, "catalogExternalId": "SHOP", "quantity": 1, "wholesalePrice": 3, "currency": "SEK"}}}})
		if len(items[0].Balances) != 2 || items[0].Balances[1].RetailerID != retailerS || items[0].Balances[1].Quantity != 1 || items[0].Balances[1].Removed {
			t.Fatalf("revived by PUT /inventory: %+v", items[0].Balances)
		}
	})
}

// tokenFor is the token that reads path: the supplier's for its own
// routes, the retailer's for catalogs.
func tokenFor(e inventoryEnv, path string) string {
	if strings.HasPrefix(path, "/ecommerce/v3/inventory") {
		return e.supplier
	}
	return e.retailer
}

// decisions §8 with decisions §6: totals and pages count live balances only;
// paging by number (also cold, on another instance) and by the next link
// agree; a change poll pages through the tombstones with its own totals.
func TestBalanceRemovalPaging(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e0 *apitest.Env) {
		e := newInventoryEnv(t, e0)
		e.publishNumbered(25, func(i int) int { return i })
		var bp polledPage
		e.get(e.retailer, "/ecommerce/v3/catalogs/SHOP/balances").Expect(200).JSON(&bp)
		cursor := newest("", bp.Content)
		var live, removed []string
		for i := range 25 {
			id := fmt.Sprintf("P-%02d", i)
			if i%3 == 0 {
				e.deleteBalances("productExternalId=" + id + "&catalogExternalId=SHOP")
				removed = append(removed, id)
			} else {
				live = append(live, id)
			}
		}
		for _, path := range []string{"/ecommerce/v3/catalogs/SHOP/balances", "/ecommerce/v3/catalogs/balances"} {
			byNumber, byLink, total := walkAs(t, e.Env, e.retailer, path, 5)
			if total != 16 || !slices.Equal(byNumber, live) || !slices.Equal(byLink, live) {
				t.Errorf("%s: total %d\nby number %v\nby link %v\nwant %v", path, total, byNumber, byLink, live)
			}
		}
		byNumber, _, total := walkAs(t, e.Env, e.supplier, "/ecommerce/v3/inventory/balances", 5)
		if total != 16 || !slices.Equal(byNumber, live) {
			t.Errorf("supplier: total %d, %v", total, byNumber)
		}
		ip := e.items(e.retailer, "/ecommerce/v3/catalogs/SHOP/products?size=5&page=3")
		if ip.Page.TotalElements != 16 || ip.Page.TotalPages != 4 || len(ip.Content) != 1 || ip.Content[0].Product["externalId"] != live[15] {
			t.Errorf("products page 3: %+v", ip)
		}
		// Another instance, no page boundaries cached: page 3 is found by
		// counting index entries, which must skip the tombstones too.
		other := apitest.NewWithDB(t, e.DB, e.Clock)
		other.Do(apitest.Request{Method: "GET", Path: "/ecommerce/v3/catalogs/SHOP/balances?size=5&page=2", Bearer: e.retailer}).Expect(200).JSON(&bp)
		if len(bp.Content) != 5 || bp.Content[0].ProductExternalID != live[10] {
			t.Errorf("page 2 elsewhere: %+v", bp.Content)
		}
		// The change poll holds the removals, in removal order.
		byNumber, byLink, total := walkAs(t, e.Env, e.retailer, "/ecommerce/v3/catalogs/SHOP/balances?"+since(cursor), 4)
		if total != 9 || !slices.Equal(byNumber, removed) || !slices.Equal(byLink, removed) {
			t.Errorf("poll: total %d\nby number %v\nby link %v\nwant %v", total, byNumber, byLink, removed)
		}
	})
}

// walkAs reads every page of path with tok, by page number and by the next
// link, and returns the product IDs in order and the total.
func walkAs(t *testing.T, e *apitest.Env, tok, path string, size int) (byNumber, byLink []string, total int64) {
	t.Helper()
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	for n := 0; ; n++ {
		var bp polledPage
		e.Do(apitest.Request{Method: "GET", Path: fmt.Sprintf("%s%ssize=%d&page=%d", path, sep, size, n), Bearer: tok}).Expect(200).JSON(&bp)
		if want := (bp.Page.TotalElements + int64(size) - 1) / int64(size); bp.Page.TotalPages != want {
			t.Fatalf("%s: %+v", path, bp.Page)
		}
		total = bp.Page.TotalElements
		for _, b := range bp.Content {
			byNumber = append(byNumber, b.ProductExternalID)
		}
		if int64(n+1) >= bp.Page.TotalPages {
			break
		}
	}
	return byNumber, followNext(e, tok, fmt.Sprintf("%s%ssize=%d", path, sep, size)), total
}

// followNext reads the balance list at path, then every page its next
// links lead to (interface §2.6), each answered 200, and returns the balances'
// product IDs in the order read.
func followNext(e *apitest.Env, tok, path string) (ids []string) {
	e.T.Helper()
	for next := path; next != ""; {
		var bp polledPage
		e.Do(apitest.Request{Method: "GET", Path: next, Bearer: tok}).Expect(200).JSON(&bp)
		next = ""
		for _, l := range bp.Links {
			if l.Rel == "next" {
				u, _ := url.Parse(l.Href)
				next = u.RequestURI()
			}
		}
		for _, b := range bp.Content {
			ids = append(ids, b.ProductExternalID)
		}
	}
	return ids
}

// interface §4.4 PUT balances rules 3-4 with DELETE balances rule 2: an update
// without catalogExternalId reaches the catalogs where the product is
// published, not those it was removed from; their tombstones keep quantity
// 0 and their removal stamp.
func TestBalanceRemovalSkippedByUpdates(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e0 *apitest.Env) {
		e := newInventoryEnv(t, e0)
		e.publishP1ToThreeCatalogs(parcelgate.CatalogStore)
		e.deleteBalances("productExternalId=P-1&retailerId=" + retailerS + "&catalogExternalId=OUTLET")
		var bp polledPage
		e.get(e.supplier, "/ecommerce/v3/inventory/balances?"+since("2000-01-01T00:00:00Z")+"&catalogExternalId=OUTLET").Expect(200).JSON(&bp)
		if len(bp.Content) != 1 || !bp.Content[0].Removed {
			t.Fatalf("tombstone %+v", bp)
		}
		tombstone := bp.Content[0]

		// Rule 4: stock in every catalog where published.
		var bals []parcelgate.Balance
		e.putBalances(e.supplier, []any{map[string]any{"productExternalId": "P-1", "quantity": 7}}).Expect(200).JSON(&bals)
		if len(bals) != 2 || bals[0].CatalogExternalID != "SHOP" || bals[1].CatalogExternalID != "SHOP" || bals[0].Quantity != 7 || bals[1].Quantity != 7 {
			t.Fatalf("rule 4: %+v", bals)
		}
		// Rule 3: the price for one retailer, every catalog of it.
		e.putBalances(e.supplier, []any{map[string]any{"productExternalId": "P-1", "retailerId": retailerS, "wholesalePrice": 4}}).Expect(200).JSON(&bals)
		if len(bals) != 1 || bals[0].RetailerID != retailerS || bals[0].CatalogExternalID != "SHOP" {
			t.Fatalf("rule 3: %+v", bals)
		}
		// A product update restamps the product's balances, not its tombstones.
		e.put(e.supplier, []any{map[string]any{"product": product("P-1", "unitOfMeasure", "PCS")}}).Expect(200)
		e.get(e.supplier, "/ecommerce/v3/inventory/balances?"+since(tombstone.ModifiedDate)+"&catalogExternalId=OUTLET").Expect(200).JSON(&bp)
		if len(bp.Content) != 0 {
			t.Fatalf("the tombstone changed: %+v", bp.Content)
		}
		// Removed everywhere: nothing left to update without a catalog.
		e.deleteBalances("productExternalId=P-1")
		r := e.putBalances(e.supplier, []any{map[string]any{"productExternalId": "P-1", "quantity": 1}}).Expect(400)
		if f := fieldsOf(t, r); f["catalogExternalId"] != 0 {
			t.Fatalf("%v", f)
		}
		// End of sale leaves tombstones as they are too: removed stays removed.
		e.Do(apitest.Request{Method: "DELETE", Path: "/ecommerce/v3/inventory", Bearer: e.supplier, Body: []any{map[string]any{"product": map[string]any{"externalId": "P-1", "status": "EOS"}}}}).Expect(200)
		e.put(e.supplier, []any{map[string]any{"product": product("P-1")}}).Expect(200)
		ip := e.items(e.retailer, "/ecommerce/v3/catalogs/SHOP/products")
		if ip.Page.TotalElements != 0 {
			t.Fatalf("an EOS and revived product came back to a catalog it was removed from: %+v", ip)
		}
	})
}

// decisions §7 with interface §4.4 DELETE balances rule 2: an order row naming a
// product removed from its warehouse is like one naming a product never
// stocked there: the order is stored Error, nothing is allocated; once the
// product is published again the order can be sent again and allocates.
func TestBalanceRemovalAndOrders(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		m := newMerchant(t, e, parcelgate.Production, merchantBID)
		// An allocation blocks the removal (409) until it is released.
		held := m.create(m.orderBody("H1", 3))
		m.do("DELETE", "/ecommerce/v3/inventory/balances?productExternalId="+merchantBID+"-P1", nil).Expect(409)
		m.do("PUT", "/ecommerce/v3/inventory/balances", []any{map[string]any{"productExternalId": merchantBID + "-P1", "catalogExternalId": "WH1", "allocated": 0}}).Expect(200)
		m.do("DELETE", "/ecommerce/v3/inventory/balances?productExternalId="+merchantBID+"-P1&catalogExternalId=WH1", nil).Expect(200)
		var bp polledPage
		m.do("GET", "/ecommerce/v3/catalogs/WH1/balances?"+since("2000-01-01T00:00:00Z")+"&productExternalId="+merchantBID+"-P1", nil).Expect(200).JSON(&bp)
		if len(bp.Content) != 1 || !bp.Content[0].Removed {
			t.Fatalf("tombstone %+v", bp)
		}
		tombstone := bp.Content[0].ModifiedDate

		o := m.create(m.orderBody("R1", 1))
		if o.Status.Value != parcelgate.OrderError || !strings.Contains(o.Status.Reason, "not stocked in warehouse WH1") {
			t.Fatalf("order of a removed product: %+v", o.Status)
		}
		if ok, err := sqlstore.NewInventoryService(e.DB).MoveStock(t.Context(), parcelgate.EnvironmentOperator(parcelgate.Production), merchantBID, merchantBID+"-P1", merchantBID, "WH1", -1, 1); ok || err != nil {
			t.Fatalf("MoveStock on a removed balance: %v %v", ok, err)
		}
		// The order that held stock before the removal ends: its release
		// finds nothing to return and leaves the tombstone as it is.
		m.do("DELETE", "/ecommerce/v3/orders/"+held.ExternalID, nil).Expect(200)
		m.do("GET", "/ecommerce/v3/catalogs/WH1/balances?"+since(tombstone), nil).Expect(200).JSON(&bp)
		if len(bp.Content) != 0 {
			t.Fatalf("the tombstone changed: %+v", bp.Content)
		}

		m.stock("P1", "WH1", 10, "2.50")
		var re parcelgate.Order
		m.do("POST", "/ecommerce/v3/orders/"+o.ExternalID, nil).Expect(200).JSON(&re)
		if b := m.balance("P1"); re.Status.Value != parcelgate.OrderCreated || b.Quantity != 9 || b.Allocated != 1 {
			t.Fatalf("reopened %+v, balance %+v", re.Status, b)
		}
	})
}
