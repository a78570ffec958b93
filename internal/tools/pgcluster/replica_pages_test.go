package pgcluster_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// merchant is an organization of the test environment with one warehouse
// (WH1) holding product P1, and a merchant's token, read through one
// instance.
type merchant struct {
	*apitest.Env
	bid, token string
}

const merchantBID = "7654321-2"

// newMerchant creates the merchant through e, with stock for its orders.
func newMerchant(e *apitest.Env) *merchant {
	e.T.Helper()
	e.Admin("POST", "/admin/v1/organizations", map[string]any{"environment": parcelgate.Test, "businessId": merchantBID, "name": "Shop",
		"address": map[string]any{"name": "Shop", "streetAddress": "Kauppakatu 1", "postalCode": "00100", "postOffice": "Helsinki", "country": "FI", "email": "shop@example.com"}}).Expect(http.StatusCreated)
	e.Catalog(parcelgate.Test, merchantBID, "WH1", parcelgate.CatalogWarehouse, merchantBID)
	m := &merchant{Env: e, bid: merchantBID, token: e.EcomToken(parcelgate.Test, merchantBID, parcelgate.RoleMerchant)}
	m.do("PUT", "/ecommerce/v3/inventory", []any{map[string]any{
		"product":  map[string]any{"externalId": "P1", "descriptions": map[string]any{"en": map[string]any{"name": "Product P1"}}},
		"balances": []any{map[string]any{"retailerId": merchantBID, "catalogExternalId": "WH1", "quantity": 10000}},
	}}).Expect(http.StatusOK)
	return m
}

// on is the same merchant and token read through another instance.
func (m *merchant) on(e *apitest.Env) *merchant { return &merchant{Env: e, bid: m.bid, token: m.token} }

func (m *merchant) do(method, path string, body any) *apitest.Response {
	m.T.Helper()
	return m.Do(apitest.Request{Method: method, Path: path, Body: body, Bearer: m.token})
}

// create creates order own of one row of P1 and returns its external ID.
func (m *merchant) create(own string) string {
	m.T.Helper()
	var o parcelgate.Order
	m.do("PUT", "/ecommerce/v3/order", map[string]any{
		"externalId": own,
		"deliveryAddress": map[string]any{"name": "Maija Meikäläinen", "streetAddress": "Kotikatu 2", "postalCode": "00200",
			"postOffice": "Helsinki", "country": "FI", "telephone": "+358401234567", "email": "maija@example.com"},
		"serviceCode": "2103",
		"rows":        []any{map[string]any{"externalProductId": "P1", "externalWarehouseId": "WH1", "quantity": 1}},
	}).Expect(http.StatusOK).JSON(&o)
	return o.ExternalID
}

type orderPage struct {
	Links   []struct{ Rel, Href string }
	Content []struct {
		ExternalID string `json:"externalId"`
	}
	Page struct{ TotalPages int64 }
}

func (m *merchant) page(path string) (ids []string, next string, pages int64) {
	m.T.Helper()
	var p orderPage
	m.do("GET", path, nil).Expect(http.StatusOK).JSON(&p)
	for _, o := range p.Content {
		ids = append(ids, o.ExternalID)
	}
	for _, l := range p.Links {
		if l.Rel == "next" {
			u, err := url.Parse(l.Href)
			if err != nil {
				m.T.Fatal(err)
			}
			next = u.RequestURI()
		}
	}
	return ids, next, p.Page.TotalPages
}

// walkByNumber reads the orders of query by page number, 0, 1, 2… as a
// provider's loop does; walkByNext follows the next links from the first
// page.
func (m *merchant) walkByNumber(query string, size int) []string {
	m.T.Helper()
	var all []string
	for n := 0; ; n++ {
		ids, _, pages := m.page(fmt.Sprintf("/ecommerce/v3/orders?%s&size=%d&page=%d", query, size, n))
		all = append(all, ids...)
		if int64(n+1) >= pages {
			return all
		}
	}
}

func (m *merchant) walkByNext(query string, size int) []string {
	m.T.Helper()
	var all []string
	for path := fmt.Sprintf("/ecommerce/v3/orders?%s&size=%d", query, size); path != ""; {
		var ids []string
		ids, path, _ = m.page(path)
		all = append(all, ids...)
	}
	return all
}

// coldPages reads every page by number of query, of size, last to first
// (one past the end included), so that no page finds a boundary this
// walk recorded (a page records where the next one starts): each page
// starts from what was recorded before the walk, or finds its start
// afresh. count: about how many orders the list holds.
func (m *merchant) coldPages(query string, size, count int) map[int][]string {
	m.T.Helper()
	pages := map[int][]string{}
	for n := count/size + 1; n >= 0; n-- {
		pages[n], _, _ = m.page(fmt.Sprintf("/ecommerce/v3/orders?%s&size=%d&page=%d", query, size, n))
	}
	return pages
}

// pagesAgree checks that every page of cold holds what following the next
// links reaches at its position (byNext).
func pagesAgree(t *testing.T, when, query string, size int, cold map[int][]string, byNext []string) {
	t.Helper()
	for n := range len(cold) {
		var want []string
		if from := n * size; from < len(byNext) {
			want = byNext[from:min(from+size, len(byNext))]
		}
		if !slices.Equal(cold[n], want) {
			t.Errorf("%s: %s: page %d of size %d by number %v; by next links %v (the whole list %v)", when, query, n, size, cold[n], want, byNext)
		}
	}
}

// repeated is the IDs ids holds more than once.
func repeated(ids []string) []string {
	seen := map[string]bool{}
	var twice []string
	for _, id := range ids {
		if seen[id] {
			twice = append(twice, id)
		}
		seen[id] = true
	}
	return twice
}

func sorted(ids []string) []string {
	s := slices.Clone(ids)
	slices.Sort(s)
	return s
}

// listsOnTheReplica waits until a list of m's orders, read on the
// replica, holds exactly want. A hot standby cannot tell which running
// transactions stamp rows, so a list read there holds back every change
// of a transaction newer than the oldest one running anywhere on the
// server, another database's included (decisions §22): a long COPY of
// another test's database holds our orders back for as long as it runs.
// The list waited on is of another scope (status filter) than the lists
// the test reads by number, so it uses and records none of their page
// boundaries.
func (m *merchant) listsOnTheReplica(want []string) {
	m.T.Helper()
	for deadline := time.Now().Add(3 * time.Minute); ; {
		ids, _, _ := m.page("/ecommerce/v3/orders?status=Created,Submitted,Delivered,Cancelled&size=100")
		if slices.Equal(sorted(ids), sorted(want)) {
			return
		}
		if time.Now().After(deadline) {
			m.T.Fatalf("three minutes after the replica replayed them, its list of orders is %v, not %v", ids, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// decisions §73 ("Reads on a PostgreSQL replica"): an operator's reset or
// restore commits with no caller and leaves no replica floor, so a replica
// whose replay is behind the restore's commit still shows the tenant's
// orders of before it, under the epoch the commit moved. Until the
// replica's replay position, as last seen, is at or past the primary's WAL
// position recorded with the move (read after the commit, or by the fence
// refresh that saw it), a page read on a replica neither uses nor records
// a boundary (reader.mayShowBeforeMove); once it is, such reads use and
// record boundaries again, however recent the move (the time window this
// replaced kept every page read there blind for the minute of lag allowed
// here and two monitor periods): else the pages a client reads by number on the paused replica record
// boundaries that are keys of the rows of before, and once the replica has
// replayed the restore (which stamps every order anew, §54) a page by
// number read from one starts before every restored order — the first
// rows again.
//
// On a real primary and streaming replica, through the router, on two
// instances reading on the replica: A runs the restore (its own commit
// moves A's epoch; A's fence refresh is left out, an hour), B sees it by
// its fence refresh (every 50 ms). The merchant's orders span four
// buckets. Its pages are read by number and by next link while replay is
// paused behind the restore (they show the orders of before it, and agree
// with each other), then, replay resumed, every page by number is read
// cold, last to first, and must hold what the next links reach.
func TestPagesByNumberOnAReplicaPausedBehindARestore(t *testing.T) {
	c := newCluster(t, nil, time.Minute)
	a, b := c.instance(), c.instance()
	a.DB.SetJobLimits(sqlstore.JobLimits{FenceRefresh: time.Hour})
	const refresh = 50 * time.Millisecond
	b.DB.SetJobLimits(sqlstore.JobLimits{FenceRefresh: refresh})
	ma := newMerchant(a)
	var restored []string
	for day := range 4 {
		for i := range 6 {
			restored = append(restored, ma.create(fmt.Sprintf("D%dN%d", day, i)))
		}
		// More than a bucket (about 19 hours): the next day's orders are
		// in another.
		a.Admin("POST", "/admin/v1/clock", map[string]any{"advance": "25h", "environment": "test"}).Expect(http.StatusOK)
		// A token lives an hour of its environment's clock.
		ma.token = a.EcomToken(parcelgate.Test, merchantBID, parcelgate.RoleMerchant)
	}
	for _, db := range c.instances {
		if err := db.RefreshClock(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	a.Admin("POST", "/admin/v1/organizations/"+merchantBID+"/snapshots?environment=test", map[string]any{"name": "before"}).Expect(http.StatusCreated)
	// What the restore takes back: new orders, a cancellation, status moves
	// (each restamps its order into the newest bucket).
	var added []string
	for i := range 4 {
		added = append(added, ma.create(fmt.Sprintf("X%d", i)))
	}
	ma.do("DELETE", "/ecommerce/v3/orders/"+restored[3], nil).Expect(http.StatusOK)
	for _, i := range []int{1, 8, 14} {
		a.Admin("POST", "/admin/v1/orders/status", map[string]any{"environment": parcelgate.Test, "businessId": merchantBID, "externalId": restored[i], "value": "Submitted"}).Expect(http.StatusOK)
	}
	c.caughtUp()
	c.usable()
	onB := ma.on(b)
	merchants := []struct {
		name string
		m    *merchant
	}{{"A", ma}, {"B", onB}}
	onB.listsOnTheReplica(append(slices.Clone(restored), added...))

	queries, sizes := []string{"x=1", "status=Created"}, []int{3, 5}
	// Before: every list walked by number and by next link on both
	// instances, on the replica (boundaries recorded at every position).
	before := map[string][]string{}
	for _, query := range queries {
		for _, on := range merchants {
			name, m := on.name, on.m
			for _, size := range sizes {
				byNumber, byNext := m.walkByNumber(query, size), m.walkByNext(query, size)
				if !slices.Equal(byNumber, byNext) {
					t.Fatalf("before, on %s: %s by %d: by number %v, by next links %v", name, query, size, byNumber, byNext)
				}
				before[query] = byNext
			}
		}
	}
	if all := before["x=1"]; len(all) != len(restored)+len(added) || !slices.Contains(all, added[0]) {
		t.Fatalf("before the restore the list holds %v", all)
	}

	c.pause()
	a.Admin("POST", "/admin/v1/organizations/"+merchantBID+"/snapshots/before/restore?environment=test", nil).Expect(http.StatusOK)
	// B moves its epoch at its first tenant request after a refresh
	// period.
	time.Sleep(2 * refresh)
	onB.page("/ecommerce/v3/orders?size=1")

	// Paused: the replica still shows the orders of before the restore,
	// and a client looping page=0,1,2… there reads what the next links
	// reach, no row twice, none skipped.
	served := c.reads()
	for _, query := range queries {
		for _, on := range merchants {
			name, m := on.name, on.m
			for _, size := range sizes {
				byNumber, byNext := m.walkByNumber(query, size), m.walkByNext(query, size)
				if !slices.Equal(byNumber, byNext) || !slices.Equal(byNext, before[query]) {
					t.Fatalf("paused behind the restore, on %s: %s by %d: by number %v, by next links %v, before the restore %v", name, query, size, byNumber, byNext, before[query])
				}
			}
		}
	}
	if c.reads() == served {
		t.Fatal("the replica served none of the pages read while it was paused")
	}
	for _, db := range c.instances {
		if st := db.Replicas(); st[0].State != "ok" {
			t.Fatalf("the paused replica is %+v: the pages were not all read on it", st)
		}
	}

	c.resume()
	c.caughtUp()
	onB.listsOnTheReplica(restored)
	// Replayed: every page by number, read cold (last to first), holds
	// what the next links reach, on both instances; then a loop.
	served = c.reads()
	for _, query := range queries {
		for _, on := range merchants {
			name, m := on.name, on.m
			when := "after the replica replayed the restore, on " + name
			for _, size := range sizes {
				cold := m.coldPages(query, size, len(restored))
				byNext := m.walkByNext(query, size)
				if twice := repeated(byNext); len(twice) > 0 || query == "x=1" && !slices.Equal(sorted(byNext), sorted(restored)) {
					t.Fatalf("%s: %s by next links %v (twice: %v), restored %v", when, query, byNext, twice, restored)
				}
				pagesAgree(t, when, query, size, cold, byNext)
				if byNumber := m.walkByNumber(query, size); !slices.Equal(byNumber, byNext) {
					t.Errorf("%s: %s by %d: by number %v, by next links %v", when, query, size, byNumber, byNext)
				}
			}
		}
	}
	if c.reads() == served {
		t.Fatal("the replica served none of the pages read after it replayed the restore")
	}
	t.Logf("orders %d (restored) and %d (before the restore); replica reads %d", len(restored), len(before["x=1"]), c.reads())
}
