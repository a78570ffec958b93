package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

// datedOrders reads every page of GET /ecommerce/v3/orders?query by next
// link (size 2), each order's external ID and orderDate, and the first
// page's total.
func (m *merchant) datedOrders(query string) (ids []string, dates []time.Time, total int64) {
	m.T.Helper()
	path := "/ecommerce/v3/orders?" + query + "&size=2"
	for first := true; path != ""; first = false {
		var p struct {
			Links   []struct{ Rel, Href string }
			Content []struct {
				ExternalID string    `json:"externalId"`
				OrderDate  time.Time `json:"orderDate"`
			}
			Page struct{ TotalElements int64 }
		}
		m.do("GET", path, nil).Expect(http.StatusOK).JSON(&p)
		if first {
			total = p.Page.TotalElements
		}
		for _, o := range p.Content {
			ids, dates = append(ids, o.ExternalID), append(dates, o.OrderDate)
		}
		path = nextPath(m.T, p.Links)
	}
	return ids, dates, total
}

// interface §4.3, decisions §37, §69: a list filtered by order dates
// starts its walk at the smallest stamp among its orders, kept between
// pages with its total; its pages (by next link and by number) are the
// unfiltered list's orders in the window, in the list's order, and its
// total their number, after orders in and out of the window are made and
// moved (each move stamps the order past every other), an operator's
// reset and restore. Another tenant's orders are never in it.
func TestOrderDatePagesAreTheListsOrdersInTheWindow(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		a := newMerchant(t, e, parcelgate.Test, tenantA)
		b := newMerchant(t, e, parcelgate.Test, tenantB)
		base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		order := func(m *merchant, own string, day int) string {
			body := m.orderBody(own, 1)
			body["orderDate"] = base.AddDate(0, 0, day).Format(time.RFC3339)
			return m.create(body).ExternalID
		}
		var ids []string
		// Orders made out of date order, so the window's orders are
		// spread over the list in stamp order.
		for i, day := range []int{-5, 3, -1, 0, 9, 2, -3, 5, 1, 4, -2, 7} {
			ids = append(ids, order(a, fmt.Sprintf("D%d", i), day))
			if i%4 == 0 {
				order(b, fmt.Sprintf("E%d", i), day)
			}
		}
		from, to := base, base.AddDate(0, 0, 5)
		window := "from=" + url.QueryEscape(from.Format(time.RFC3339)) + "&to=" + url.QueryEscape(to.Format(time.RFC3339))
		check := func(when string) {
			t.Helper()
			all, dates, _ := a.datedOrders("x=1")
			var want []string
			for i, id := range all {
				if !dates[i].Before(from) && dates[i].Before(to) {
					want = append(want, id)
				}
			}
			got, _, total := a.datedOrders(window)
			if !slices.Equal(got, want) || total != int64(len(want)) {
				t.Fatalf("%s: by next link %v (total %d), want %v", when, got, total, want)
			}
			if byNumber := a.walkByNumber(window, 2); len(want) > 0 && !slices.Equal(byNumber, want) {
				t.Fatalf("%s: by page number %v, want %v", when, byNumber, want)
			}
			for _, m := range []*merchant{b} {
				if other, _, _ := m.datedOrders(window); slices.ContainsFunc(other, func(id string) bool { return slices.Contains(want, id) }) {
					t.Fatalf("%s: %s's list holds %s's orders: %v", when, m.bid, a.bid, other)
				}
			}
		}
		check("after creates")
		// The window's oldest order moves to the end of the list; one out
		// of the window moves too; then a new order dated in the window,
		// and one dated before it.
		a.setStatus(ids[3], "Submitted").Expect(http.StatusOK)
		check("after the oldest in the window moved")
		a.setStatus(ids[0], "Submitted").Expect(http.StatusOK)
		ids = append(ids, order(a, "D20", 1), order(a, "D21", -9))
		check("after moves and orders in and out of the window")
		a.do("DELETE", "/ecommerce/v3/orders/"+ids[8], nil).Expect(http.StatusOK)
		check("after a cancel")

		e.Admin("POST", orgPath(tenantA, "/snapshots"), map[string]any{"name": "dated"}).Expect(http.StatusCreated)
		e.Admin("POST", orgPath(tenantA, "/reset"), nil).Expect(http.StatusOK)
		if got, _, total := a.datedOrders(window); len(got) != 0 || total != 0 {
			t.Fatalf("after the reset: %v, total %d", got, total)
		}
		e.Admin("POST", orgPath(tenantA, "/snapshots/dated/restore"), nil).Expect(http.StatusOK)
		check("after the restore")
	})
}

// inventoryWalk reads every page of GET /ecommerce/v3/inventory?query of
// the caller tok by page number (size 2), each product's external ID and
// its balances' catalogs and retailers, and the first page's total.
func inventoryWalk(t *testing.T, e *apitest.Env, tok, query string) (ids []string, places [][]string, total int64) {
	t.Helper()
	for n := 0; ; n++ {
		var p struct {
			Content []struct {
				Product  struct{ ExternalID string } `json:"product"`
				Balances []struct {
					CatalogExternalID string `json:"catalogExternalId"`
					RetailerID        string `json:"retailerId"`
				} `json:"balances"`
			}
			Page struct{ TotalElements, TotalPages int64 }
		}
		body := e.Do(apitest.Request{Method: "GET", Path: fmt.Sprintf("/ecommerce/v3/inventory?%s&size=2&page=%d", query, n), Bearer: tok}).Expect(http.StatusOK).Body
		if err := json.Unmarshal(body, &p); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			total = p.Page.TotalElements
		}
		for _, it := range p.Content {
			var at []string
			for _, b := range it.Balances {
				at = append(at, b.RetailerID+"/"+b.CatalogExternalID)
			}
			ids, places = append(ids, it.Product.ExternalID), append(places, at)
		}
		if int64(n+1) >= p.Page.TotalPages {
			return ids, places, total
		}
	}
}

// interface §4.4 GET rules 1-3, decisions §69: the inventory filtered by
// catalogExternalId, retailerId or both has a total kept by the database
// (one catalog of the place holding the supplier's products) or counted
// (several): either way the number of products the walk finds, which are
// the unfiltered inventory's products with a balance in the place, after
// products are added, balances removed and published again, products end
// their sale and come back, and a retailer's catalogs are reset.
func TestInventoryPlaceTotalsStayExact(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		a := newMerchant(t, e, parcelgate.Test, tenantA)
		// B's catalogs sell A's products: SHOP, and one named WH1 as A's
		// warehouse is.
		e.Catalog(parcelgate.Test, tenantB, "SHOP", parcelgate.CatalogDropship, tenantA)
		e.Catalog(parcelgate.Test, tenantB, "WH1", parcelgate.CatalogDropship, tenantA)
		publish := func(own, retailer, catalog string) {
			t.Helper()
			a.do("PUT", "/ecommerce/v3/inventory", []any{map[string]any{"product": map[string]any{"externalId": a.bid + "-" + own},
				"balances": []any{map[string]any{"retailerId": retailer, "catalogExternalId": catalog, "quantity": 3}}}}).Expect(http.StatusOK)
		}
		for i := 3; i <= 8; i++ {
			a.stock(fmt.Sprintf("P%d", i), "WH1", 10, "1.00")
		}
		for _, own := range []string{"P2", "P4", "P6", "P9"} {
			publish(own, tenantB, "SHOP")
		}
		places := []string{"catalogExternalId=WH1", "catalogExternalId=SHOP", "retailerId=" + tenantB, "retailerId=" + tenantA,
			"retailerId=" + tenantB + "&catalogExternalId=SHOP", "retailerId=" + tenantA + "&catalogExternalId=SHOP", "catalogExternalId=NONE"}
		check := func(when string) {
			t.Helper()
			all, at, _ := inventoryWalk(t, e, a.token, "x=1")
			for _, q := range places {
				v, _ := url.ParseQuery(q)
				var want []string
				for i, id := range all {
					if slices.ContainsFunc(at[i], func(p string) bool {
						return (v.Get("retailerId") == "" || p[:len(v.Get("retailerId"))] == v.Get("retailerId")) &&
							(v.Get("catalogExternalId") == "" || p[len(p)-len(v.Get("catalogExternalId"))-1:] == "/"+v.Get("catalogExternalId"))
					}) {
						want = append(want, id)
					}
				}
				got, _, total := inventoryWalk(t, e, a.token, q)
				if !slices.Equal(got, want) || total != int64(len(want)) {
					t.Fatalf("%s: %s: %v (total %d), want %v", when, q, got, total, want)
				}
			}
		}
		check("after publishing")
		// A's products in B's WH1 too: two catalogs named WH1 hold them.
		publish("P3", tenantB, "WH1")
		publish("P7", tenantB, "WH1")
		check("in two catalogs named WH1")
		a.do("DELETE", "/ecommerce/v3/inventory/balances?productExternalId="+a.bid+"-P4&retailerId="+tenantB+"&catalogExternalId=SHOP", nil).Expect(http.StatusOK)
		a.do("DELETE", "/ecommerce/v3/inventory/balances?productExternalId="+a.bid+"-P5&retailerId="+tenantA+"&catalogExternalId=WH1", nil).Expect(http.StatusOK)
		check("after balances were removed")
		a.do("DELETE", "/ecommerce/v3/inventory", []any{map[string]any{"product": map[string]any{"externalId": a.bid + "-P6", "status": "EOS"}}}).Expect(http.StatusOK)
		a.do("DELETE", "/ecommerce/v3/inventory", []any{map[string]any{"product": map[string]any{"externalId": a.bid + "-P3", "status": "EOS"}}}).Expect(http.StatusOK)
		check("after products ended their sale")
		publish("P4", tenantB, "SHOP")
		publish("P6", tenantB, "SHOP")
		a.stock("P5", "WH1", 4, "1.00")
		check("after products and balances came back")
		e.Admin("POST", orgPath(tenantB, "/reset")+"&catalogs=true", nil).Expect(http.StatusOK)
		check("after the retailer's catalogs were reset")
	})
}
