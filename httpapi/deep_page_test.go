package httpapi_test

import (
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

// interface §4.4 GET rule 1, decisions §8, §68: a page of orders asked by
// number and cold (no page boundary recorded before it, so the store
// finds its start through the kept bucket sums) holds the rows that
// following the next links reaches at that position, when the orders
// span several buckets of about 19 hours, status moves have restamped
// some into the newest bucket, another tenant's orders share the
// buckets, a burst of orders fills one bucket (decisions §74), and the
// list is unfiltered or by statuses,
// before and after
// an operator's reset and restore; a page past the end is empty.
func TestColdPagesByNumberAcrossBuckets(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		a := newMerchant(t, e, parcelgate.Test, tenantA)
		b := newMerchant(t, e, parcelgate.Test, tenantB)
		var ids []string
		for day := range 4 {
			for i := range 6 {
				ids = append(ids, a.create(a.orderBody(fmt.Sprintf("D%dN%d", day, i), 1)).ExternalID)
			}
			b.create(b.orderBody(fmt.Sprintf("B%d", day), 1))
			// More than a bucket: the next day's orders are in another.
			e.Admin("POST", "/admin/v1/clock", map[string]any{"advance": "25h", "environment": "test"}).Expect(http.StatusOK)
			// A token lives an hour of its environment's clock.
			a.token = e.EcomToken(parcelgate.Test, tenantA, parcelgate.RoleMerchant)
			b.token = e.EcomToken(parcelgate.Test, tenantB, parcelgate.RoleMerchant)
		}
		// decisions §74: a burst in one bucket, 40 orders in 40 minutes,
		// five every five minutes (over spans of both finer levels; the
		// store reads their sums for a bucket of more than orderWalkMax
		// orders, which TestKeptOrderBucketsFollowEveryWrite proves at
		// every position).
		for g := range 8 {
			for i := range 5 {
				ids = append(ids, a.create(a.orderBody(fmt.Sprintf("R%dN%d", g, i), 1)).ExternalID)
			}
			e.Admin("POST", "/admin/v1/clock", map[string]any{"advance": "5m", "environment": "test"}).Expect(http.StatusOK)
		}
		a.token = e.EcomToken(parcelgate.Test, tenantA, parcelgate.RoleMerchant)
		b.token = e.EcomToken(parcelgate.Test, tenantB, parcelgate.RoleMerchant)
		for _, i := range []int{1, 7, 8, 14, 20, 27, 41} {
			a.setStatus(ids[i], "Submitted").Expect(http.StatusOK)
		}
		a.setStatus(ids[8], "Delivered").Expect(http.StatusOK)
		a.do("DELETE", "/ecommerce/v3/orders/"+ids[2], nil).Expect(http.StatusOK)
		b.create(b.orderBody("B4", 1))

		agree := func(when, query string) {
			t.Helper()
			// Cold pages first, last to first, so that none finds a
			// boundary recorded before it (a walk by links records them).
			cold := map[[2]int][]string{}
			for _, size := range []int{3, 5} {
				for n := len(ids)/size + 1; n >= 0; n-- {
					p := a.orderPage(fmt.Sprintf("%s&size=%d&page=%d", query, size, n))
					var got []string
					for _, o := range p.Content {
						got = append(got, o.ExternalID)
					}
					cold[[2]int{size, n}] = got
				}
			}
			byNext := a.walkByNext(query, 2)
			if len(byNext) == 0 {
				t.Fatalf("%s: %s: no orders", when, query)
			}
			for k, got := range cold {
				size, n := k[0], k[1]
				var want []string
				if from := n * size; from < len(byNext) {
					want = byNext[from:min(from+size, len(byNext))]
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s: %s: page %d of size %d by number %v; by next links %v (the whole list %v)", when, query, n, size, got, want, byNext)
				}
			}
		}
		for _, query := range []string{"x=1", "status=Created", "status=Submitted,Delivered,Cancelled"} {
			agree("after moves", query)
		}
		// An operator's reset and restore write the orders in bulk (the
		// restore stamps them anew). Lists not read before: a boundary
		// recorded before the reset is its list's for fastpath.BoundaryTTL
		// (§8), so the unfiltered list is not read again here.
		e.Admin("POST", orgPath(tenantA, "/snapshots"), map[string]any{"name": "buckets"}).Expect(http.StatusCreated)
		e.Admin("POST", orgPath(tenantA, "/reset"), nil).Expect(http.StatusOK)
		if p := a.orderPage("y=1&size=3&page=1"); len(p.Content) != 0 || p.Page.TotalElements != 0 {
			t.Fatalf("after the reset: %+v", p)
		}
		e.Admin("POST", orgPath(tenantA, "/snapshots/buckets/restore"), nil).Expect(http.StatusOK)
		agree("after a reset and a restore", "status=Submitted,Created")
		agree("after a reset and a restore", "status=Created,Cancelled,Delivered")
	})
}
