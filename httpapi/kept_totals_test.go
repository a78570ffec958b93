package httpapi_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

// orderListPage is one page of GET /ecommerce/v3/orders as a client reads it.
type orderListPage struct {
	Links   []struct{ Rel, Href string }
	Content []struct {
		ExternalID string `json:"externalId"`
	}
	Page struct {
		Size          int
		TotalElements int64
		TotalPages    int64
		Number        int
	}
}

// nextPath is the request URI of the next link of a page's links, ""
// on the last page, as a client following next links reads it.
func nextPath(t testing.TB, links []struct{ Rel, Href string }) string {
	t.Helper()
	for _, l := range links {
		if l.Rel == "next" {
			u, err := url.Parse(l.Href)
			if err != nil {
				t.Fatal(err)
			}
			return u.RequestURI()
		}
	}
	return ""
}

func (m *merchant) orderPage(query string) orderListPage {
	m.T.Helper()
	var p orderListPage
	m.do("GET", "/ecommerce/v3/orders?"+query, nil).Expect(http.StatusOK).JSON(&p)
	return p
}

// walkByNumber reads every page of query by page number, as the provider's
// loop does (interface §4.4 GET rule 1); walkByNext follows the next links.
func (m *merchant) walkByNumber(query string, size int) []string {
	m.T.Helper()
	var ids []string
	for n := 0; ; n++ {
		p := m.orderPage(fmt.Sprintf("%s&size=%d&page=%d", query, size, n))
		for _, o := range p.Content {
			ids = append(ids, o.ExternalID)
		}
		if int64(n+1) >= p.Page.TotalPages {
			return ids
		}
	}
}

func (m *merchant) walkByNext(query string, size int) []string {
	m.T.Helper()
	var ids []string
	path := fmt.Sprintf("/ecommerce/v3/orders?%s&size=%d", query, size)
	for path != "" {
		var p orderListPage
		m.do("GET", path, nil).Expect(http.StatusOK).JSON(&p)
		for _, o := range p.Content {
			ids = append(ids, o.ExternalID)
		}
		path = nextPath(m.T, p.Links)
	}
	return ids
}

// interface §2.6 (page.totalElements, totalPages) and §4.3, decisions §52:
// an order list's total comes from the kept counts and stays exact after
// creates, status moves, an operator's reset and restore, for the list
// unfiltered and by status; one tenant's orders are never counted or
// listed for another; pages by number (a cold deep one included) and by
// next link give the same rows.
func TestOrderTotalsFromKeptCounts(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		a := newMerchant(t, e, parcelgate.Test, tenantA)
		b := newMerchant(t, e, parcelgate.Test, tenantB)
		var ids []string
		for i := range 7 {
			ids = append(ids, a.create(a.orderBody(fmt.Sprintf("A%d", i), 1)).ExternalID)
		}
		b.create(b.orderBody("B1", 1))
		b.create(b.orderBody("B2", 1))
		totals := func(m *merchant, when string, want map[string]int64) {
			t.Helper()
			for query, n := range want {
				for _, page := range []string{"0", "1", "5"} {
					p := m.orderPage(query + "&size=2&page=" + page)
					if p.Page.TotalElements != n || p.Page.TotalPages != (n+1)/2 {
						t.Fatalf("%s: %s %s page %s: totalElements %d, totalPages %d; want %d", when, m.bid, query, page, p.Page.TotalElements, p.Page.TotalPages, n)
					}
				}
			}
		}
		totals(a, "after creates", map[string]int64{"": 7, "status=Created": 7, "status=Delivered": 0, "status=Created,Delivered": 7})
		totals(b, "after creates", map[string]int64{"": 2, "status=Created": 2})
		a.setStatus(ids[2], "Submitted").Expect(http.StatusOK)
		a.setStatus(ids[2], "Delivered").Expect(http.StatusOK)
		a.setStatus(ids[4], "Submitted").Expect(http.StatusOK)
		a.do("DELETE", "/ecommerce/v3/orders/"+ids[5], nil).Expect(http.StatusOK)
		want := map[string]int64{"": 7, "status=Created": 4, "status=Submitted": 1, "status=Delivered": 1, "status=Cancelled": 1, "status=Delivered,Cancelled": 2}
		totals(a, "after status moves", want)
		totals(b, "after A's status moves", map[string]int64{"": 2, "status=Created": 2, "status=Delivered": 0})

		// Pages by number, a cold deep one first (a page size no request
		// used), give the rows the next links give, each once.
		deep := a.orderPage("size=3&page=2")
		byNext := a.walkByNext("status=Created,Submitted,Delivered,Cancelled", 3)
		byNumber := a.walkByNumber("status=Created,Submitted,Delivered,Cancelled", 3)
		if len(byNext) != 7 || !slices.Equal(byNext, byNumber) {
			t.Fatalf("by next links %v, by page numbers %v", byNext, byNumber)
		}
		if len(deep.Content) != 1 || deep.Content[0].ExternalID != byNext[6] {
			t.Fatalf("cold page 2 of 3: %+v, want %s", deep.Content, byNext[6])
		}
		sorted := slices.Sorted(slices.Values(byNext))
		if !slices.Equal(sorted, slices.Sorted(slices.Values(ids))) {
			t.Fatalf("A's list %v, want its own orders %v", byNext, ids)
		}
		for _, id := range b.walkByNext("x=1", 1) {
			if !strings.HasPrefix(id, tenantB) {
				t.Fatalf("B's list holds %s", id)
			}
		}

		e.Admin("POST", orgPath(tenantA, "/snapshots"), map[string]any{"name": "counted"}).Expect(http.StatusCreated)
		e.Admin("POST", orgPath(tenantA, "/reset"), nil).Expect(http.StatusOK)
		totals(a, "after the reset", map[string]int64{"": 0, "status=Created": 0, "status=Delivered": 0})
		totals(b, "after A's reset", map[string]int64{"": 2, "status=Created": 2})
		e.Admin("POST", orgPath(tenantA, "/snapshots/counted/restore"), nil).Expect(http.StatusOK)
		totals(a, "after the restore", want)
		totals(b, "after A's restore", map[string]int64{"": 2})
	})
}

// interface §2.6 and §4.3, decisions §63: an order list filtered by
// warehouse, order dates, updatedTo or a reference has an exact total
// while orders are made, moved, re-stamped, reset and restored between
// the pages a client reads (the total is kept between pages only while
// it is provably unchanged); another tenant's orders are never counted.
func TestFilteredOrderTotalsStayExact(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		a := newMerchant(t, e, parcelgate.Test, tenantA)
		b := newMerchant(t, e, parcelgate.Test, tenantB)
		var ids []string
		var last parcelgate.Order
		for i := range 5 {
			last = a.create(a.orderBody(fmt.Sprintf("F%d", i), 1))
			ids = append(ids, last.ExternalID)
		}
		b.create(b.orderBody("G1", 1))
		day := last.OrderDate.UTC()
		dates := "from=" + url.QueryEscape(day.Add(-24*time.Hour).Format(time.RFC3339)) + "&to=" + url.QueryEscape(day.Add(24*time.Hour).Format(time.RFC3339))
		upTo := "updatedTo=" + url.QueryEscape(last.Metadata.UpdateDate.UTC().Format(time.RFC3339Nano))
		totals := func(m *merchant, when string, want map[string]int64) {
			t.Helper()
			for query, n := range want {
				for _, page := range []string{"0", "1", "4"} {
					p := m.orderPage(query + "&size=2&page=" + page)
					if p.Page.TotalElements != n || p.Page.TotalPages != (n+1)/2 {
						t.Fatalf("%s: %s %s page %s: totalElements %d, totalPages %d; want %d", when, m.bid, query, page, p.Page.TotalElements, p.Page.TotalPages, n)
					}
				}
			}
		}
		wh, whCreated := "warehouseExternalId=WH1", "warehouseExternalId=WH1&status=Created"
		totals(a, "after creates", map[string]int64{wh: 5, whCreated: 5, "warehouseExternalId=WH9": 0, dates: 5, upTo: 5, "refName=SO&refValue=SO-F1": 1})
		totals(b, "after creates", map[string]int64{wh: 1, dates: 1})

		// Writes between the pages of one walk: each next page's total
		// counts them.
		a.orderPage(whCreated + "&size=2&page=0")
		a.setStatus(ids[1], "Submitted").Expect(http.StatusOK)
		if p := a.orderPage(whCreated + "&size=2&page=1"); p.Page.TotalElements != 4 {
			t.Fatalf("after a move: totalElements %d, want 4", p.Page.TotalElements)
		}
		a.orderPage(upTo + "&size=2&page=0")
		a.do("DELETE", "/ecommerce/v3/orders/"+ids[3], nil).Expect(http.StatusOK)
		if p := a.orderPage(upTo + "&size=2&page=1"); p.Page.TotalElements != 3 {
			t.Fatalf("after two orders were written past updatedTo: totalElements %d, want 3", p.Page.TotalElements)
		}
		a.create(a.orderBody("F5", 1))
		want := map[string]int64{wh: 6, whCreated: 4, dates: 6, upTo: 3, "refName=SO&refValue=SO-F5": 1}
		totals(a, "after moves and an order", want)
		totals(b, "after A's writes", map[string]int64{wh: 1, dates: 1, "refName=SO&refValue=SO-F5": 0})

		e.Admin("POST", orgPath(tenantA, "/snapshots"), map[string]any{"name": "filtered"}).Expect(http.StatusCreated)
		e.Admin("POST", orgPath(tenantA, "/reset"), nil).Expect(http.StatusOK)
		totals(a, "after the reset", map[string]int64{wh: 0, dates: 0, upTo: 0})
		e.Admin("POST", orgPath(tenantA, "/snapshots/filtered/restore"), nil).Expect(http.StatusOK)
		// A restore stamps every order anew (polls see them again), so
		// none is updated before updatedTo.
		want[upTo] = 0
		totals(a, "after the restore", want)
	})
}
