//go:build !race

// Not under the race detector: the failover tests bound every answer at
// --db-timeout + 1 s, which instrumented servers on a busy machine miss for
// reasons of their own; .ci/run runs them without it.

package failover_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// dbTimeout is the instances' --db-timeout: a request waits this long for
// the database at most, then is answered 503 with Retry-After.
const dbTimeout = 2 * time.Second

// answerLimit is the longest an answer may take, in the gap too.
const answerLimit = dbTimeout + time.Second

const (
	merchant = "1234567-1" // creates orders and publishes stock
	retailer = "0737546-2" // polls the stock published to its catalog
	// stockFor is what the warehouse product the orders take holds at
	// first: quantity + allocated stays this, whatever happens.
	stockFor = 1_000_000
	clients  = 16
)

// fleet is two parcelgate instances on the formation's URL, and the
// tokens the load uses.
type fleet struct {
	envs          []*apitest.Env
	merchant, ret string
}

// openFleet opens two instances over url, each its own store, the
// fixtures made once through a third without the request deadline.
func openFleet(t *testing.T, url string, fixtures bool, opts ...sqlstore.Option) *fleet {
	t.Helper()
	open := func(deadline bool) *apitest.Env {
		clock := new(parcelgate.OffsetClock)
		db, err := sqlstore.Open(context.Background(), url, clock, append([]sqlstore.Option{sqlstore.ConnectTimeout(dbTimeout), sqlstore.DBTimeout(dbTimeout)}, opts...)...)
		if err != nil {
			t.Fatalf("open %s: %v", url, err)
		}
		t.Cleanup(func() { db.Close() })
		if err := db.Migrate(context.Background()); err != nil {
			t.Fatal(err)
		}
		return apitest.NewWithDB(t, db, clock, func(c *httpapi.Config) {
			if deadline {
				c.DBTimeout = dbTimeout
			}
		})
	}
	setup := open(false)
	fl := &fleet{envs: []*apitest.Env{open(true), open(true)}}
	if fixtures {
		setup.Catalog(parcelgate.Production, merchant, "WH1", parcelgate.CatalogWarehouse, merchant)
		setup.Catalog(parcelgate.Production, retailer, "SHOP", parcelgate.CatalogDropship, merchant)
		fl.merchant = setup.EcomToken(parcelgate.Production, merchant, parcelgate.RoleMerchant, parcelgate.RoleSupplier)
		setup.Do(apitest.Request{Method: "PUT", Path: "/ecommerce/v3/inventory", Bearer: fl.merchant, Body: []any{map[string]any{
			"product":  product("P-ORD"),
			"balances": []any{map[string]any{"retailerId": merchant, "catalogExternalId": "WH1", "quantity": stockFor}},
		}}}).Expect(200)
	}
	fl.merchant = setup.EcomToken(parcelgate.Production, merchant, parcelgate.RoleMerchant, parcelgate.RoleSupplier)
	fl.ret = setup.EcomToken(parcelgate.Production, retailer, parcelgate.RoleRetailer)
	return fl
}

func product(id string) map[string]any {
	return map[string]any{"externalId": id, "eanCode": "640" + id, "descriptions": map[string]any{"en": map[string]any{"name": "Product " + id}}}
}

// answer is one request of the load and what came of it.
type answer struct {
	write      bool
	start, end time.Time
	status     int
	problem    string
}

// load is the 16 clients of a case: 8 create orders, 4 publish stock,
// 2 poll orders and 2 poll the retailer's stock for changes, each client
// on one instance of the two (half on each).
type load struct {
	t     *testing.T
	fl    *fleet
	name  string
	stop  atomic.Bool
	wg    sync.WaitGroup
	mu    sync.Mutex
	calls []answer
	// acked are the orders answered 200; tried the stock each publisher
	// sent, acked what was answered 200 (quantities only grow).
	acked                 []string
	stockAcked, stockSent [4]int
	orderPolls            [2]*orderPoller
	stockPolls            [2]*stockPoller
}

func (l *load) record(a answer) {
	l.mu.Lock()
	l.calls = append(l.calls, a)
	l.mu.Unlock()
}

// do makes one request and checks its answer: 2xx, or 503 with
// Retry-After in the ecom error shape, within answerLimit.
func (l *load) do(e *apitest.Env, r apitest.Request) *apitest.Response {
	a := answer{start: time.Now(), write: r.Method != "GET"}
	resp := e.Do(r)
	a.end, a.status = time.Now(), resp.Status
	switch {
	case resp.Status >= 200 && resp.Status < 300:
	case resp.Status == 503:
		var ec httpapi.EcomError
		if resp.Header.Get("Retry-After") == "" {
			a.problem = "503 without Retry-After"
		} else if json.Unmarshal(resp.Body, &ec) != nil || ec.Status != 503 {
			a.problem = "503 not in the ecom error shape: " + string(resp.Body)
		}
	default:
		a.problem = fmt.Sprintf("%s %s answered %d %s", r.Method, r.Path, resp.Status, resp.Body)
	}
	if d := a.end.Sub(a.start); d > answerLimit {
		a.problem += fmt.Sprintf(" %s %s took %s, over --db-timeout + 1 s", r.Method, r.Path, d.Round(time.Millisecond))
	}
	l.record(a)
	return resp
}

func startLoad(t *testing.T, fl *fleet, name string) *load {
	l := &load{t: t, fl: fl, name: name}
	for w := range 8 {
		l.wg.Go(func() {
			e := fl.envs[w%2]
			for n := 0; !l.stop.Load(); n++ {
				id := fmt.Sprintf("%s-%d-%d", name, w, n)
				r := l.do(e, apitest.Request{Method: "POST", Path: "/ecommerce/v3/orders", Bearer: fl.merchant, Body: orderBody(id)})
				if r.Status == 200 {
					l.mu.Lock()
					l.acked = append(l.acked, id)
					l.mu.Unlock()
				} else {
					time.Sleep(20 * time.Millisecond)
				}
			}
		})
	}
	for w := range 4 {
		l.wg.Go(func() {
			e := fl.envs[w%2]
			for !l.stop.Load() {
				l.mu.Lock()
				l.stockSent[w]++
				q := l.stockSent[w]
				l.mu.Unlock()
				r := l.do(e, apitest.Request{Method: "PUT", Path: "/ecommerce/v3/inventory", Bearer: fl.merchant, Body: []any{map[string]any{
					"product":  product(stockID(w)),
					"balances": []any{map[string]any{"retailerId": retailer, "catalogExternalId": "SHOP", "quantity": q}},
				}}})
				if r.Status == 200 {
					l.mu.Lock()
					l.stockAcked[w] = q
					l.mu.Unlock()
				} else {
					time.Sleep(20 * time.Millisecond)
				}
			}
		})
	}
	for w := range 2 {
		p := &orderPoller{l: l, e: fl.envs[w%2], seen: map[string]bool{}}
		l.orderPolls[w] = p
		s := &stockPoller{l: l, e: fl.envs[(w+1)%2], seen: map[string]int{}}
		l.stockPolls[w] = s
		l.wg.Go(func() {
			for !l.stop.Load() {
				if !p.round() {
					time.Sleep(50 * time.Millisecond)
				}
			}
		})
		l.wg.Go(func() {
			for !l.stop.Load() {
				if !s.round() {
					time.Sleep(50 * time.Millisecond)
				}
			}
		})
	}
	return l
}

func stockID(w int) string { return fmt.Sprintf("S-%d", w) }

func orderBody(id string) map[string]any {
	return map[string]any{
		"externalId": id,
		"deliveryAddress": map[string]any{"name": "Maija Meikäläinen", "streetAddress": "Kotikatu 2", "postalCode": "00200",
			"postOffice": "Helsinki", "country": "FI", "telephone": "+358401234567", "email": "maija@example.com"},
		"serviceCode": "2103",
		"rows":        []any{map[string]any{"externalProductId": "P-ORD", "externalWarehouseId": "WH1", "quantity": 1}},
	}
}

// pages reads a change poll to its end, following next links (README,
// Warehouse orders: polling), and hands each page's content to each. It
// reports false when any page was not answered 200: the round is then
// dropped and the cursor stays.
func (l *load) pages(e *apitest.Env, bearer, path string, each func(json.RawMessage)) bool {
	var items []json.RawMessage
	for path != "" {
		r := l.do(e, apitest.Request{Method: "GET", Path: path, Bearer: bearer})
		if r.Status != 200 {
			return false
		}
		var p httpapi.Page[json.RawMessage]
		r.JSON(&p)
		items = append(items, p.Content...)
		path = ""
		for _, link := range p.Links {
			if link.Rel == "next" {
				u, err := url.Parse(link.Href)
				if err != nil {
					l.t.Errorf("next link %q: %v", link.Href, err)
					return false
				}
				path = u.RequestURI()
			}
		}
	}
	for _, it := range items {
		each(it)
	}
	return true
}

// orderPoller polls the merchant's orders changed since its cursor (spec
// 4.3, updatedFrom), as a shop's integration does.
type orderPoller struct {
	l      *load
	e      *apitest.Env
	cursor string
	seen   map[string]bool
}

// round polls once; it reports whether it read anything new.
func (p *orderPoller) round() bool {
	path := "/ecommerce/v3/orders?size=500"
	if p.cursor != "" {
		path += "&updatedFrom=" + url.QueryEscape(p.cursor)
	}
	newest := p.cursor
	ok := p.l.pages(p.e, p.l.fl.merchant, path, func(raw json.RawMessage) {
		var o struct {
			ExternalID string `json:"externalId"`
			Metadata   struct {
				UpdateDate string `json:"updateDate"`
			} `json:"metadata"`
		}
		json.Unmarshal(raw, &o)
		p.seen[o.ExternalID] = true
		if t := stampOf(o.Metadata.UpdateDate); t > stampOf(newest) {
			newest = o.Metadata.UpdateDate
		}
	})
	found := stampOf(newest) > stampOf(p.cursor)
	if ok {
		p.cursor = newest
	}
	return ok && found
}

// stampOf orders ISO 8601 times of any offset.
func stampOf(s string) int64 {
	if s == "" {
		return 0
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0
	}
	return t.UnixMicro()
}

// stockPoller polls the retailer's catalog for balances changed since its
// cursor (interface §4.4 GET rule 3, modifiedFromDate), keeping the newest
// quantity of each product.
type stockPoller struct {
	l      *load
	e      *apitest.Env
	cursor string
	seen   map[string]int
}

func (p *stockPoller) round() bool {
	path := "/ecommerce/v3/catalogs/SHOP/balances?size=500"
	if p.cursor != "" {
		path += "&modifiedFromDate=" + url.QueryEscape(p.cursor)
	}
	newest := p.cursor
	ok := p.l.pages(p.e, p.l.fl.ret, path, func(raw json.RawMessage) {
		var b apitest.PolledBalance
		json.Unmarshal(raw, &b)
		if t := stampOf(b.ModifiedDate); t >= stampOf(newest) {
			newest = b.ModifiedDate
		}
		p.seen[b.ProductExternalID] = int(b.Quantity)
	})
	found := stampOf(newest) > stampOf(p.cursor)
	if ok {
		p.cursor = newest
	}
	return ok && found
}

// result is one case's figures.
type result struct {
	name             string
	writesAgain      time.Duration // from the fault to the first order acknowledged that was sent after it
	gap, gap503      int           // answers from the fault to writes again; of them 503
	answers, errors  int           // all answers of the case; 503s among them
	slowest          time.Duration
	acked, missing   int
	missedPolls      int
	stockInvariantOK bool
}

var results []result

// runCase runs the load, does fault once orders are being acknowledged,
// waits until writes succeed again and then for after (the formation
// settling, a node returning), then checks everything the load was
// answered against the database, row by row.
func runCase(t *testing.T, f *formation, fl *fleet, name string, fault func(), after func()) result {
	t.Helper()
	l := startLoad(t, fl, name)
	stopped := false
	defer func() {
		if !stopped {
			l.stop.Store(true)
			l.wg.Wait()
		}
	}()
	waitUntil(t, "orders acknowledged before the fault", 60*time.Second, func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		return len(l.acked) >= 20
	})
	faultAt := time.Now()
	fault()
	var again time.Time
	waitUntil(t, "writes to succeed again", 90*time.Second, func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		for _, a := range l.calls {
			if a.status == 200 && a.start.After(faultAt) && (again.IsZero() || a.end.Before(again)) && a.write && a.status == 200 {
				again = a.end
			}
		}
		return !again.IsZero()
	})
	if after != nil {
		after()
	}
	time.Sleep(time.Second)
	l.stop.Store(true)
	l.wg.Wait()
	stopped = true

	res := result{name: name, writesAgain: again.Sub(faultAt), stockInvariantOK: true}
	var problems []string
	for _, a := range l.calls {
		res.answers++
		if a.status != 200 {
			res.errors++
		}
		if !a.end.Before(faultAt) && !a.start.After(again) {
			res.gap++
			if a.status == 503 {
				res.gap503++
			}
		}
		res.slowest = max(res.slowest, a.end.Sub(a.start))
		if a.problem != "" {
			problems = append(problems, a.problem)
		}
	}
	if len(problems) > 0 {
		t.Errorf("%d answers broke the rules (2xx, or 503 with Retry-After within %s), e.g. %q", len(problems), answerLimit, problems[:min(5, len(problems))])
	}

	// Row by row, on whichever node is the primary now.
	db, err := sql.Open("pgx", f.url()+"&connect_timeout=2")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	present := map[string]bool{}
	rows, err := db.QueryContext(ctx, `SELECT external_id FROM orders WHERE external_id LIKE $1`, name+"-%")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		rows.Scan(&id)
		present[id] = true
	}
	rows.Close()
	res.acked = len(l.acked)
	for _, id := range l.acked {
		if !present[id] {
			res.missing++
			if res.missing <= 5 {
				t.Errorf("order %s was acknowledged (200) and is not on the primary after the failover", id)
			}
		}
	}
	// Stock: the orders' warehouse product holds what it held, between
	// what is left and what the orders allocated; each published
	// quantity is the last acknowledged, or one sent after it (a write
	// answered 503 may have committed).
	var quantity, allocated, orders int64
	if err := db.QueryRowContext(ctx, `SELECT quantity, allocated FROM balances WHERE product_external_id LIKE '%P-ORD' AND removed_at = 0`).Scan(&quantity, &allocated); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM orders WHERE allocated = 1`).Scan(&orders); err != nil {
		t.Fatal(err)
	}
	if quantity+allocated != stockFor || allocated != orders {
		res.stockInvariantOK = false
		t.Errorf("warehouse stock: quantity %d + allocated %d != %d, or allocated != %d orders holding stock", quantity, allocated, stockFor, orders)
	}
	final := map[string]int{}
	for w := range 4 {
		var q int
		if err := db.QueryRowContext(ctx, `SELECT quantity FROM balances WHERE product_external_id LIKE '%' || $1 AND removed_at = 0`, stockID(w)).Scan(&q); err != nil {
			t.Fatal(err)
		}
		final[stockID(w)] = q
		if q < l.stockAcked[w] || q > l.stockSent[w] {
			res.stockInvariantOK = false
			t.Errorf("%s holds %d: the last acknowledged quantity was %d, the last sent %d", stockID(w), q, l.stockAcked[w], l.stockSent[w])
		}
	}
	// The pollers poll on until nothing new comes; then each must have
	// seen every acknowledged order and each product's final stock.
	for _, p := range l.orderPolls {
		for i := 0; i < 50 && (p.round() || i == 0); i++ {
		}
		for _, id := range l.acked {
			if !p.seen[id] {
				res.missedPolls++
				if res.missedPolls <= 5 {
					t.Errorf("an order poller never saw acknowledged order %s", id)
				}
			}
		}
	}
	for _, p := range l.stockPolls {
		for i := 0; i < 50 && (p.round() || i == 0); i++ {
		}
		for id, q := range final {
			if p.seen[id] != q {
				res.missedPolls++
				t.Errorf("a stock poller's newest %s is %d, the catalog holds %d", id, p.seen[id], q)
			}
		}
	}
	t.Logf("%s: writes again after %.2f s; %d answers in the gap (%d of them 503); %d answers in all, %d 503, slowest %s; %d orders acknowledged, %d missing; stock invariants %v; polls that missed a change %d",
		name, res.writesAgain.Seconds(), res.gap, res.gap503, res.answers, res.errors, res.slowest.Round(time.Millisecond), res.acked, res.missing, res.stockInvariantOK, res.missedPolls)
	results = append(results, res)
	return res
}

func waitUntil(t *testing.T, what string, limit time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up after %s waiting for %s", limit, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestFailover loses the primary in every way a primary goes, one after
// the other on one formation, each under 16 clients on two instances
// (docs/scaling.md, Automatic failover; figures in docs/performance.md).
// Each case proves: writes succeed again by themselves; every answer in the
// gap is 2xx or 503 with Retry-After, never 500, none slower than
// --db-timeout + 1 s; no acknowledged order is missing on the new primary
// (row by row); the stock invariants hold; no change poll missed a change.
func TestFailover(t *testing.T) {
	f := startFormation(t)
	fl := openFleet(t, f.url(), true)

	t.Run("postmaster killed", func(t *testing.T) {
		p := f.primary()
		runCase(t, f, fl, "pm", func() { f.killPostmaster(p) }, func() { f.waitStable(2 * time.Minute) })
	})
	var lost *node
	t.Run("node killed", func(t *testing.T) {
		lost = f.primary()
		runCase(t, f, fl, "node", func() { lost.proc.kill() }, nil)
	})
	t.Run("old primary returns as standby", func(t *testing.T) {
		if lost == nil || lost.proc.running() {
			t.Skip("no node was lost")
		}
		var back time.Duration
		runCase(t, f, fl, "back", func() { f.restart(lost) }, func() {
			start := time.Now()
			f.waitStable(2 * time.Minute)
			back = time.Since(start)
		})
		t.Logf("the old primary was a standby again after %.1f s", back.Seconds())
	})
	t.Run("primary partitioned", func(t *testing.T) {
		p := f.primary()
		runCase(t, f, fl, "part", func() { f.partition(p) }, func() {
			if f.primary() == p {
				t.Errorf("the partitioned node is still the primary")
			}
			f.heal(p)
			f.waitStable(2 * time.Minute)
		})
	})
	t.Run("replica promoted, new standby", func(t *testing.T) {
		// Instances that read on the standby (--db-replica), named with
		// every node that may become a standby, the third one before it
		// exists: target_session_attrs=prefer-standby reads on a standby
		// where there is one.
		p := f.primary()
		third := f.reserve()
		var standbys []string
		for _, n := range f.nodes {
			if n != p {
				standbys = append(standbys, n.addr())
			}
		}
		replica := "postgres://postgres@" + strings.Join(standbys, ",") + "/parcelgate?sslmode=disable&target_session_attrs=prefer-standby"
		rfl := openFleet(t, f.url(), false, sqlstore.Replica(replica), sqlstore.ReplicaMaxLag(5*time.Second))
		runCase(t, f, rfl, "promo", func() { p.proc.kill() }, func() {
			f.create(third)
			f.waitStable(3 * time.Minute)
		})
	})
	if os.Getenv("PARCELGATE_FAILOVER_FIGURES") != "" {
		var b strings.Builder
		for _, r := range results {
			fmt.Fprintf(&b, "| %s | %.2f | %d (%d × 503) | %d | %d | %v | %d |\n", r.name, r.writesAgain.Seconds(), r.gap, r.gap503, r.acked, r.missing, r.stockInvariantOK, r.missedPolls)
		}
		t.Logf("figures:\n%s", b.String())
	}
}
