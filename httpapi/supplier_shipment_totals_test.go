package httpapi_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

// interface §2.6 (page.totalElements, totalPages), decisions §63: a
// supplier's GET /shipments total, with and without a status, comes from
// the kept counts and stays exact while shipments are made and move
// between the pages a client reads; another supplier's shipments are
// never counted.
func TestSupplierShipmentTotalsFromKeptCounts(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		d := newDropship(t, e)
		for i := range 5 {
			d.order(fmt.Sprintf("T%d", i), supplierABID+"-A2", 1)
		}
		d.order("TB", supplierBBID+"-B1", 1)
		totals := func(token, when string, want map[string]int64) {
			t.Helper()
			for query, n := range want {
				for _, page := range []string{"0", "1", "7"} {
					p := d.shipments(token, "?size=2&page="+page+query)
					if p.Page.TotalElements != n || p.Page.TotalPages != (n+1)/2 {
						t.Fatalf("%s: %s page %s: totalElements %d, totalPages %d; want %d", when, query, page, p.Page.TotalElements, p.Page.TotalPages, n)
					}
				}
			}
		}
		totals(d.a, "after orders", map[string]int64{"": 5, "&status=Created": 5, "&status=Cancelled": 0})
		totals(d.b, "after orders", map[string]int64{"": 1, "&status=Created": 1})

		// A write between two pages of one walk: the next page's total
		// counts it.
		first := d.shipments(d.a, "?size=2&page=0&status=Created")
		d.patch(d.a, first.Content[0].ShipmentID, map[string]any{"status": status("Cancelled")}).Expect(http.StatusOK)
		if p := d.shipments(d.a, "?size=2&page=1&status=Created"); p.Page.TotalElements != 4 {
			t.Fatalf("page 1 after a cancel: totalElements %d, want 4", p.Page.TotalElements)
		}
		d.order("T5", supplierABID+"-A2", 1)
		if p := d.shipments(d.a, "?size=2&page=2&status=Created"); p.Page.TotalElements != 5 || p.Page.TotalPages != 3 {
			t.Fatalf("page 2 after an order: totalElements %d, totalPages %d; want 5, 3", p.Page.TotalElements, p.Page.TotalPages)
		}
		totals(d.a, "after a cancel and an order", map[string]int64{"": 6, "&status=Created": 5, "&status=Cancelled": 1, "&status=Created,Cancelled": 6})
		totals(d.b, "after A's writes", map[string]int64{"": 1, "&status=Cancelled": 0})
	})
}
