package httpapi_test

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// interface §4.4 GET rule 1, decisions §8, §68: a page of orders asked by
// number and cold (no page boundary recorded before it, so the store
// finds its start through the kept bucket sums) holds the rows that
// following the next links reaches at that position, when the orders
// span several buckets of about 19 hours, status moves have restamped
// some into the newest bucket, another tenant's orders share the
// buckets, a burst of orders fills one bucket (decisions §74), orders
// span several eras of about 51 days (decisions §77), and the
// list is unfiltered or by statuses, before and after an operator's reset
// and restore; a page past the end is empty. After the restore, the lists
// read before it are read again: the boundaries their pages recorded are
// of an epoch the restore's commit moved (decisions §73), so none starts
// a page before the restored orders.
func TestColdPagesByNumberAcrossBuckets(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		// The fence refresh reads the jobs' newest stamp once, at the first
		// tenant's request, and not again within the test: the epoch moves
		// by the restore's own commit on this instance.
		e.DB.SetJobLimits(sqlstore.JobLimits{FenceRefresh: time.Hour})
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
		// decisions §77: orders in three more eras (2^42 µs, about 51
		// days), so a page's era is found from the era sums, and the
		// status moves below restamp orders of older eras into the
		// newest.
		for g := range 3 {
			e.Admin("POST", "/admin/v1/clock", map[string]any{"advance": "1300h", "environment": "test"}).Expect(http.StatusOK)
			a.token = e.EcomToken(parcelgate.Test, tenantA, parcelgate.RoleMerchant)
			b.token = e.EcomToken(parcelgate.Test, tenantB, parcelgate.RoleMerchant)
			for i := range 3 {
				ids = append(ids, a.create(a.orderBody(fmt.Sprintf("E%dN%d", g, i), 1)).ExternalID)
			}
			b.create(b.orderBody(fmt.Sprintf("BE%d", g), 1))
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
			a.coldPagesAgree(t, when, query, []int{3, 5}, len(ids))
		}
		for _, query := range []string{"x=1", "status=Created", "status=Submitted,Delivered,Cancelled"} {
			agree("after moves", query)
		}
		// An operator's reset and restore write the orders in bulk (the
		// restore stamps them anew): lists not read before, and the lists
		// read above, whose pages recorded a boundary at every position
		// (decisions §73).
		e.Admin("POST", orgPath(tenantA, "/snapshots"), map[string]any{"name": "buckets"}).Expect(http.StatusCreated)
		e.Admin("POST", orgPath(tenantA, "/reset"), nil).Expect(http.StatusOK)
		if p := a.orderPage("y=1&size=3&page=1"); len(p.Content) != 0 || p.Page.TotalElements != 0 {
			t.Fatalf("after the reset: %+v", p)
		}
		e.Admin("POST", orgPath(tenantA, "/snapshots/buckets/restore"), nil).Expect(http.StatusOK)
		for _, query := range []string{"status=Submitted,Created", "status=Created,Cancelled,Delivered", "x=1", "status=Created", "status=Submitted,Delivered,Cancelled"} {
			agree("after a reset and a restore", query)
		}
	})
}

// decisions §8, §73: instances share nothing but the database. The page
// boundaries instance B recorded while a client read a tenant's orders by
// page number are of an epoch that instance A's reset and restore of the
// tenant end on B too: B's fence refresh reads the newest stamp of the
// operator's resets and restores, and a changed one moves B's epoch, so
// after one refresh period B's pages by number, read last to first (each
// finding only what was recorded before it), hold what the next links
// reach, not the first rows again.
func TestAnotherInstancesBoundariesOutliveNoRestore(t *testing.T) {
	apitest.EachShared(t, 2, func(t *testing.T, envs []*apitest.Env) {
		first, second := envs[0], envs[1]
		const refresh = 50 * time.Millisecond
		second.DB.SetJobLimits(sqlstore.JobLimits{FenceRefresh: refresh})
		a := newMerchant(t, first, parcelgate.Test, tenantA)
		b := newMerchant(t, first, parcelgate.Test, tenantB)
		var ids []string
		for i := range 9 {
			ids = append(ids, a.create(a.orderBody(fmt.Sprintf("N%d", i), 1)).ExternalID)
		}
		b.create(b.orderBody("B1", 1))
		a.setStatus(ids[2], "Submitted").Expect(http.StatusOK)
		onSecond := &merchant{Env: second, env: a.env, bid: a.bid, token: a.token}
		queries, sizes := []string{"x=1", "status=Created"}, []int{2, 3}
		// A client looping page=0,1,2… on B: every position of both sizes
		// gets a boundary there.
		for _, query := range queries {
			for _, size := range sizes {
				if got, want := onSecond.walkByNumber(query, size), onSecond.walkByNext(query, size); !slices.Equal(got, want) {
					t.Fatalf("before: %s by %d: by number %v, by next links %v", query, size, got, want)
				}
			}
		}
		first.Admin("POST", orgPath(tenantA, "/snapshots"), map[string]any{"name": "other"}).Expect(http.StatusCreated)
		first.Admin("POST", orgPath(tenantA, "/reset"), nil).Expect(http.StatusOK)
		first.Admin("POST", orgPath(tenantA, "/snapshots/other/restore"), nil).Expect(http.StatusOK)
		time.Sleep(2 * refresh)
		for _, query := range queries {
			onSecond.coldPagesAgree(t, "after A's reset and restore, on B", query, sizes, len(ids))
		}
	})
}

// coldPagesAgree reads every page by number of m's orders filtered by
// query, for each size, last to first, so that none finds a boundary
// recorded before it (a walk by links records them), and checks each
// holds what a client following the next links reaches at its position
// (count: about how many orders the list holds, for its last pages).
func (m *merchant) coldPagesAgree(t *testing.T, when, query string, sizes []int, count int) {
	t.Helper()
	cold := map[[2]int][]string{}
	for _, size := range sizes {
		for n := count/size + 1; n >= 0; n-- {
			var got []string
			for _, o := range m.orderPage(fmt.Sprintf("%s&size=%d&page=%d", query, size, n)).Content {
				got = append(got, o.ExternalID)
			}
			cold[[2]int{size, n}] = got
		}
	}
	byNext := m.walkByNext(query, 2)
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
