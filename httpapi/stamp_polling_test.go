package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

// decisions §6: orders take their organization's clock and
// suppliers' stock writes the environment's; both write the balances of a
// merchant's warehouse. A poller of that catalog that always passes the
// newest modifiedDate it has seen never misses a change while order
// creations and cancellations (organization clock), the merchant's stock
// writes (environment clock) and another merchant's orders (a clock of its
// own) run at once. At the end what it saw equals the final state.
func TestPollingNeverMissesWithOrgAndEnvironmentWriters(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		const shop, other = "1234567-1", "0737546-2"
		tok := stampMerchant(t, e, shop)
		otherTok := stampMerchant(t, e, other)
		order := func(bid, token, own, product string) *apitest.Response {
			return e.Do(apitest.Request{Method: "PUT", Path: "/ecommerce/v3/order", Bearer: token, Body: map[string]any{
				"externalId": bid + "-" + own,
				"deliveryAddress": map[string]any{"name": "Maija Meikäläinen", "streetAddress": "Kotikatu 2", "postalCode": "00200",
					"postOffice": "Helsinki", "country": "FI", "email": "maija@example.com"},
				"serviceCode": "2103",
				"rows":        []any{map[string]any{"externalProductId": bid + "-" + product, "externalWarehouseId": "WH1", "quantity": 1}},
			}})
		}

		type state struct{ quantity, allocated int64 }
		seen := map[string]state{}
		cursor := ""
		poll := func() {
			cursor = e.PollBalances("/ecommerce/v3/catalogs/WH1/balances", tok, 1, cursor, func(b apitest.PolledBalance) {
				seen[b.ProductExternalID] = state{b.Quantity, b.Allocated}
			})
		}
		var orders atomic.Int64
		apitest.PollDuring(4, func(w int) {
			for n := range 15 {
				own := fmt.Sprintf("W%dN%d", w, n)
				product := []string{"P1", "P2"}[n%2]
				switch w {
				case 0, 1:
					// Orders of the shop: allocation, and every third cancelled,
					// which returns its stock.
					if r := order(shop, tok, own, product); r.Status != http.StatusOK {
						t.Errorf("order %s: %d %s", own, r.Status, r.Body)
						return
					}
					orders.Add(1)
					if n%3 == 0 {
						e.Do(apitest.Request{Method: "DELETE", Path: "/ecommerce/v3/orders/" + shop + "-" + own, Bearer: tok}).Expect(http.StatusOK)
					}
				case 2:
					// The shop's own stock writes: the environment's clock.
					e.Do(apitest.Request{Method: "PUT", Path: "/ecommerce/v3/inventory/balances", Bearer: tok, Body: []any{map[string]any{
						"productExternalId": shop + "-" + product, "retailerId": shop, "catalogExternalId": "WH1", "quantity": 1000 + n}}}).Expect(http.StatusOK)
				case 3:
					// Another merchant's orders, on a clock of their own.
					if r := order(other, otherTok, own, product); r.Status != http.StatusOK {
						t.Errorf("other merchant's order %s: %d %s", own, r.Status, r.Body)
					}
				}
			}
		}, poll)
		if orders.Load() == 0 {
			t.Fatal("no order was placed: the test proves nothing")
		}

		var final struct {
			Content []struct {
				ProductExternalID string `json:"productExternalId"`
				Quantity          int64  `json:"quantity"`
				Allocated         int64  `json:"allocated"`
			} `json:"content"`
		}
		e.Do(apitest.Request{Method: "GET", Path: "/ecommerce/v3/catalogs/WH1/balances", Bearer: tok}).Expect(http.StatusOK).JSON(&final)
		if len(final.Content) != 2 {
			t.Fatalf("%d balances in WH1", len(final.Content))
		}
		for _, b := range final.Content {
			want := state{b.Quantity, b.Allocated}
			if got := seen[b.ProductExternalID]; got != want {
				t.Errorf("%s: the poller saw %+v, the final state is %+v: a change was missed", b.ProductExternalID, got, want)
			}
		}
	})
}

// stampMerchant creates merchant bid with warehouse WH1 stocking P1 and
// P2, and returns its token.
func stampMerchant(t *testing.T, e *apitest.Env, bid string) string {
	t.Helper()
	e.Catalog(parcelgate.Production, bid, "WH1", parcelgate.CatalogWarehouse, bid)
	tok := e.EcomToken(parcelgate.Production, bid, parcelgate.RoleMerchant)
	var items []any
	for _, p := range []string{"P1", "P2"} {
		items = append(items, map[string]any{
			"product":  map[string]any{"externalId": bid + "-" + p, "descriptions": map[string]any{"en": map[string]any{"name": "Product " + p}}},
			"balances": []any{map[string]any{"retailerId": bid, "catalogExternalId": "WH1", "quantity": 1000, "wholesalePrice": json.Number("2.50"), "currency": "EUR"}},
		})
	}
	e.Do(apitest.Request{Method: "PUT", Path: "/ecommerce/v3/inventory", Bearer: tok, Body: items}).Expect(http.StatusOK)
	return tok
}

// Decisions §6: one merchant's orders commit in parallel, out of
// stamp order, on PostgreSQL. Pollers of its orders (updatedFrom) and of
// its warehouse's balances (modifiedFromDate) that always pass the newest
// stamp they have seen never miss a change while many of its clients
// create, replace and cancel orders at once: at the end what each saw
// equals the final state.
func TestPollingNeverMissesWithOneOrganizationsConcurrentCreates(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		const shop = "1234567-1"
		tok := stampMerchant(t, e, shop)
		order := func(own, product string, qty int) *apitest.Response {
			return e.Do(apitest.Request{Method: "PUT", Path: "/ecommerce/v3/order", Bearer: tok, Body: map[string]any{
				"externalId": shop + "-" + own,
				"deliveryAddress": map[string]any{"name": "Maija Meikäläinen", "streetAddress": "Kotikatu 2", "postalCode": "00200",
					"postOffice": "Helsinki", "country": "FI", "email": "maija@example.com"},
				"serviceCode": "2103",
				"rows":        []any{map[string]any{"externalProductId": shop + "-" + product, "externalWarehouseId": "WH1", "quantity": qty}},
			}})
		}

		type balance struct{ quantity, allocated int64 }
		type orderState struct {
			status string
			update string
		}
		balances := map[string]balance{}
		orders := map[string]orderState{}
		balanceCursor, orderCursor := "", ""
		poll := func() {
			balanceCursor = e.PollBalances("/ecommerce/v3/catalogs/WH1/balances", tok, 1, balanceCursor, func(b apitest.PolledBalance) {
				balances[b.ProductExternalID] = balance{b.Quantity, b.Allocated}
			})
			q := "size=7"
			if orderCursor != "" {
				q += "&updatedFrom=" + url.QueryEscape(orderCursor)
			}
			newest := orderCursor
			for q != "" {
				var p httpapi.Page[parcelgate.Order]
				e.Do(apitest.Request{Method: "GET", Path: "/ecommerce/v3/orders?" + q, Bearer: tok}).Expect(http.StatusOK).JSON(&p)
				for _, o := range p.Content {
					u := o.Metadata.UpdateDate.UTC().Format(time.RFC3339Nano)
					orders[o.ExternalID] = orderState{string(o.Status.Value), u}
					if o.Metadata.UpdateDate.After(parseTime(newest)) {
						newest = u
					}
				}
				q = ""
				for _, l := range p.Links {
					if l.Rel == "next" {
						u, _ := url.Parse(l.Href)
						q = u.RawQuery
					}
				}
			}
			orderCursor = newest
		}
		var created atomic.Int64
		apitest.PollDuring(8, func(w int) {
			for n := range 10 {
				own := fmt.Sprintf("W%dN%d", w, n)
				product := []string{"P1", "P2"}[(w+n)%2]
				if r := order(own, product, 1); r.Status != http.StatusOK {
					t.Errorf("order %s: %d %s", own, r.Status, r.Body)
					return
				}
				created.Add(1)
				switch n % 3 {
				case 1:
					order(own, product, 2).Expect(http.StatusOK) // a change of the same order
				case 2:
					e.Do(apitest.Request{Method: "DELETE", Path: "/ecommerce/v3/orders/" + shop + "-" + own, Bearer: tok}).Expect(http.StatusOK)
				}
			}
		}, poll)
		if created.Load() != 80 {
			t.Fatalf("%d orders created of 80", created.Load())
		}

		var final struct {
			Content []struct {
				ProductExternalID   string `json:"productExternalId"`
				Quantity, Allocated int64
			} `json:"content"`
		}
		e.Do(apitest.Request{Method: "GET", Path: "/ecommerce/v3/catalogs/WH1/balances", Bearer: tok}).Expect(http.StatusOK).JSON(&final)
		for _, b := range final.Content {
			if got, want := balances[b.ProductExternalID], (balance{b.Quantity, b.Allocated}); got != want {
				t.Errorf("%s: the balance poller saw %+v, the final state is %+v: a change was missed", b.ProductExternalID, got, want)
			}
		}
		var all httpapi.Page[parcelgate.Order]
		e.Do(apitest.Request{Method: "GET", Path: "/ecommerce/v3/orders?size=2000", Bearer: tok}).Expect(http.StatusOK).JSON(&all)
		if len(all.Content) != 80 {
			t.Fatalf("%d orders", len(all.Content))
		}
		for _, o := range all.Content {
			want := orderState{string(o.Status.Value), o.Metadata.UpdateDate.UTC().Format(time.RFC3339Nano)}
			if got := orders[o.ExternalID]; got != want {
				t.Errorf("order %s: the order poller saw %+v, the final state is %+v: a change was missed", o.ExternalID, got, want)
			}
		}
	})
}

// parseTime reads a time the poller kept, the zero time for none.
func parseTime(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}
