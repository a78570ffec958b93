package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/parcelgate/parcelgate"
)

// readMode compares an authenticated GET of one order with a bare handler
// writing the same bytes.
func readMode(ctx context.Context, c config, e *env) error {
	tok, err := e.merchant(merchantBID, 2)
	if err != nil {
		return err
	}
	var o parcelgate.Order
	if err := e.call("PUT", "/ecommerce/v3/order", tok, rawJSON(orderBody(merchantBID, "READ1", 1, 2)), http.StatusOK, &o); err != nil {
		return err
	}
	path := "/ecommerce/v3/orders/" + o.ID
	var paths []string // with -read-orders: every order's, in turn
	for i := 2; i <= c.readOrders; i++ {
		var more parcelgate.Order
		if err := e.call("PUT", "/ecommerce/v3/order", tok, rawJSON(orderBody(merchantBID, fmt.Sprintf("READ%d", i), 1, 2)), http.StatusOK, &more); err != nil {
			return err
		}
		paths = append(paths, "/ecommerce/v3/orders/"+more.ID)
	}
	if paths != nil {
		paths = append(paths, path)
	}
	req, _ := http.NewRequest("GET", e.url+path, nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := e.client.Do(req)
	if err != nil {
		return err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %d %v", path, resp.StatusCode, err)
	}
	ctype := resp.Header.Get("Content-Type")

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	bare := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ctype)
		w.Write(body)
	})}
	go bare.Serve(ln)
	defer bare.Close()
	bareURL := "http://" + ln.Addr().String() + path

	header := http.Header{"Authorization": {"Bearer " + tok}}
	if _, err := e.caughtUp(); err != nil {
		return err
	}
	fmt.Printf("%s read: GET %s (%d orders in turn), %d-byte body, %d connections, %s per run\n", e.engine, "/ecommerce/v3/orders/{id}", max(1, len(paths)), len(body), c.conns, c.duration)
	// A short warm-up of each, so neither side pays for first connections
	// and cold caches inside the measured runs.
	goGetLoad(bareURL, nil, c.conns, time.Second)
	goGetLoad(e.url+path, header, c.conns, time.Second)
	for run := range c.repeat {
		served := e.replicaReads()
		p0, r0 := e.backendCPU()
		st0, rd0 := e.db.PointReadStats()
		cpu0 := processCPU()
		bareRPS, tool, err := getLoad(ctx, bareURL, nil, c.conns, c.duration, c.useWrk)
		if err != nil {
			return fmt.Errorf("bare: %w", err)
		}
		cpu1 := processCPU()
		var pgRPS float64
		profile := ""
		if run == 0 && c.cpuProfile != "" {
			profile = c.cpuProfile + "." + e.engine
		}
		err = profileDuring(profile, func() error {
			var err error
			pgRPS, _, err = getLoad(ctx, e.url+path, header, c.conns, c.duration, c.useWrk, paths...)
			return err
		})
		if err != nil {
			return fmt.Errorf("parcelgate: %w", err)
		}
		cpu2 := processCPU()
		bareCPU := perRequest(cpu1-cpu0, bareRPS, c.duration)
		pgCPU := perRequest(cpu2-cpu1, pgRPS, c.duration)
		fmt.Printf("  run %d (%s): bare %.0f req/s, parcelgate %.0f req/s, ratio %.2f×; CPU of this process per request: bare %.0f µs, parcelgate %.0f µs, ratio %.2f×; %s\n",
			run+1, tool, bareRPS, pgRPS, pgRPS/bareRPS, bareCPU, pgCPU, bareCPU/pgCPU, loadAverage())
		p1, r1 := e.backendCPU()
		if e.primary != nil {
			fmt.Printf("    database CPU per parcelgate request: primary %.0f µs, replica %.0f µs; reads served by the replica: %d\n",
				perRequest(p1-p0, pgRPS, c.duration), perRequest(r1-r0, pgRPS, c.duration), e.replicaReads()-served)
			if st1, rd1 := e.db.PointReadStats(); st1 > st0 {
				fmt.Printf("    point reads coalesced: %d reads in %d statements, %.1f a statement\n", rd1-rd0, st1-st0, float64(rd1-rd0)/float64(st1-st0))
			}
		}
	}
	return nil
}

// processCPU is the user and system CPU time this process has used. With
// wrk driving the load it is the server's alone, a figure that a busy
// shared machine disturbs much less than requests per second: the time a
// request costs rather than the time it waits for a core.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// perRequest is cpu spread over the requests of a run, in microseconds.
func perRequest(cpu time.Duration, rps float64, d time.Duration) float64 {
	n := rps * d.Seconds()
	if n == 0 {
		return 0
	}
	return float64(cpu.Microseconds()) / n
}

// rawJSON is a body already encoded.
type rawJSON []byte

func (r rawJSON) MarshalJSON() ([]byte, error) { return r, nil }

const (
	supplierA = "1234567-1"
	retailerR = "0737546-2"
)

// bigCatalog makes supplierA, retailerR and retailerR's catalog BIG that
// supplierA publishes to: the catalog the walk and the bulk load fill.
func (e *env) bigCatalog() error {
	if err := e.organization(supplierA); err != nil {
		return err
	}
	if err := e.organization(retailerR); err != nil {
		return err
	}
	return e.catalog(retailerR, "BIG", parcelgate.CatalogDropship, supplierA)
}

// walkMode walks a catalog of c.balances balances page by page, as the
// spec's client loops page=0..N-1.
func walkMode(ctx context.Context, c config, e *env) error {
	if err := e.bigCatalog(); err != nil {
		return err
	}
	t0 := time.Now()
	if err := fillCatalog(ctx, e, c.balances); err != nil {
		return err
	}
	fmt.Printf("%s walk: %d balances written in %s\n", e.engine, c.balances, time.Since(t0).Round(time.Millisecond))
	tok, err := e.ecomToken(retailerR, parcelgate.RoleRetailer)
	if err != nil {
		return err
	}
	pages := (c.balances + parcelgate.DefaultPageSize - 1) / parcelgate.DefaultPageSize
	if _, err := e.caughtUp(); err != nil {
		return err
	}
	if c.walkers > 1 {
		return concurrentWalks(e, c, tok, pages)
	}
	for walk := range c.walks {
		profile := ""
		if walk == 0 && c.cpuProfile != "" {
			profile = c.cpuProfile + ".walk." + e.engine
		}
		if err := profileDuring(profile, func() error { return walkOnce(e, c, tok, pages, walk) }); err != nil {
			return err
		}
	}
	return nil
}

// concurrentWalks has c.walkers clients walk the catalog at once, c.walks
// times, and prints how long each round took.
func concurrentWalks(e *env, c config, tok string, pages int) error {
	for walk := range c.walks {
		served := e.replicaReads()
		p0, r0 := e.backendCPU()
		start := time.Now()
		errs := make(chan error, c.walkers)
		var wg sync.WaitGroup
		for range c.walkers {
			wg.Go(func() { errs <- walkOnce(e, c, tok, pages, walk) })
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				return err
			}
		}
		d := time.Since(start)
		p1, r1 := e.backendCPU()
		fmt.Printf("%s walk round %d: %d walkers × %d balances in %s, %.0f balances/s in all; database CPU: primary %s, replica %s; %s\n",
			e.engine, walk+1, c.walkers, c.balances, d.Round(10*time.Millisecond), float64(c.walkers*c.balances)/d.Seconds(), p1-p0, r1-r0, loadAverage())
		if len(e.opts) > 0 {
			fmt.Printf("    pages served by the replica: %d of %d\n", e.replicaReads()-served, c.walkers*pages)
		}
	}
	return nil
}

// walkOnce pages through the whole catalog once by page number and prints
// what it took.
func walkOnce(e *env, c config, tok string, pages, walk int) error {
	var mem runtime.MemStats
	runtime.GC()
	var peak uint64
	var first, last time.Duration
	start := time.Now()
	for p := range pages {
		t := time.Now()
		var page struct {
			Page struct{ TotalElements, TotalPages int }
		}
		if err := e.call("GET", fmt.Sprintf("/ecommerce/v3/catalogs/BIG/balances?page=%d", p), tok, nil, http.StatusOK, &page); err != nil {
			return err
		}
		if page.Page.TotalElements != c.balances || page.Page.TotalPages != pages {
			return fmt.Errorf("page %d: totalElements %d, totalPages %d; want %d, %d", p, page.Page.TotalElements, page.Page.TotalPages, c.balances, pages)
		}
		switch p {
		case 0:
			first = time.Since(t)
		case pages - 1:
			last = time.Since(t)
		}
		runtime.ReadMemStats(&mem)
		peak = max(peak, mem.HeapInuse)
	}
	fmt.Printf("  walk %d: %d pages in %s (first page %s, last page %s), peak heap %.1f MiB, %s\n",
		walk+1, pages, time.Since(start).Round(10*time.Millisecond), ms(first), ms(last), float64(peak)/(1<<20), loadAverage())
	return nil
}

// fillCatalog writes n products of supplier A, each published to
// retailer R's catalog BIG, with two set-based statements.
func fillCatalog(ctx context.Context, e *env, n int) error {
	driver, dsn := "pgx", e.dsn
	if e.engine == "sqlite" {
		driver, dsn = "sqlite", strings.TrimPrefix(dsn, "sqlite:")
	}
	raw, err := sql.Open(driver, dsn)
	if err != nil {
		return err
	}
	defer raw.Close()
	now := time.Now().UnixMicro()
	stmts := []string{
		fmt.Sprintf(`INSERT INTO products (environment, supplier_org_id, external_id, ean_code, status, document, deleted_at, created_at, modified_at)
			WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %d)
			SELECT 'production', o.id, 'B' || n.i, '64' || n.i, 'ACTIVE', '{"externalId":"B' || n.i || '","eanCode":"64' || n.i || '","descriptions":{"en":{"name":"Bench product ' || n.i || '"}}}', 0, %d, %d
			FROM n, organizations o WHERE o.environment = 'production' AND o.business_id = '%s'`, n, now, now, supplierA),
		fmt.Sprintf(`INSERT INTO balances (product_id, catalog_id, supplier_org_id, retailer_org_id, product_external_id, quantity, allocated, wholesale_price, currency, eos_at, modified_at)
			SELECT p.id, c.id, p.supplier_org_id, c.retailer_org_id, p.external_id, p.id %% 100, 0, '9.90', 'EUR', 0, %d + p.id
			FROM products p, catalogs c WHERE c.external_id = 'BIG'`, now),
	}
	if e.engine == "postgres" {
		stmts = append(stmts, `VACUUM ANALYZE products`, `VACUUM ANALYZE balances`)
	} else {
		stmts = append(stmts, `ANALYZE`)
	}
	for _, s := range stmts {
		if _, err := raw.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("fill: %w", err)
		}
	}
	return nil
}

// orderKind is how the clients of an order load share products and
// organizations.
type orderKind int

const (
	spread  orderKind = iota // one merchant, each client its own two products
	perOrg                   // each client a merchant of its own
	hotSpot                  // one merchant, every client the same two products
)

// orderMode creates 2-row orders with clients clients for c.duration.
func orderMode(ctx context.Context, c config, e *env, clients int, kind orderKind) error {
	bids := make([]string, clients)
	toks := make([]string, clients)
	switch kind {
	case perOrg:
		for w := range clients {
			// Foreign business IDs: any two letters and up to 18 more.
			bids[w] = fmt.Sprintf("LT%06d", w+1)
			tok, err := e.merchant(bids[w], 2)
			if err != nil {
				return err
			}
			toks[w] = tok
		}
	default:
		products := 2 * clients
		if kind == hotSpot {
			products = 2
		}
		tok, err := e.merchant(merchantBID, products)
		if err != nil {
			return err
		}
		for w := range clients {
			bids[w], toks[w] = merchantBID, tok
		}
	}
	names := map[orderKind][2]string{
		spread:  {"create", "one merchant, each client its own two products"},
		perOrg:  {"create-orgs", "each client a merchant of its own"},
		hotSpot: {"hot", "one merchant, all clients the same two products"},
	}
	name, what := names[kind][0], names[kind][1]
	fmt.Printf("%s %s: %d clients, 2-row orders, %s, %s per run\n", e.engine, name, clients, what, c.duration)
	for run := range c.repeat {
		lat, err := postLoad(e, "PUT", "/ecommerce/v3/order", toks, clients, c.duration, func(w, n int) []byte {
			own := fmt.Sprintf("%d.%d.%d", run, w, n)
			switch kind {
			case spread:
				return orderBody(bids[w], own, 2*w+1, 2*w+2)
			default:
				return orderBody(bids[w], own, 1, 2)
			}
		})
		if err != nil {
			return err
		}
		fmt.Printf("  run %d: %.0f orders/s, p50 %s, p99 %s (%d orders), %s\n", run+1, float64(len(lat))/c.duration.Seconds(), ms(lat.quantile(0.5)), ms(lat.quantile(0.99)), len(lat), loadAverage())
	}
	return nil
}

// oneOrgMode compares one merchant's order creates from one client with
// those from clients clients at once (each client its own two products),
// in the same database: orders/s of each, the ratio, and the p99 of the
// many.
func oneOrgMode(ctx context.Context, c config, e *env, clients int) error {
	tok, err := e.merchant(merchantBID, 2*clients)
	if err != nil {
		return err
	}
	fmt.Printf("%s create-one-org: one merchant, 1 client vs %d, each client its own two products, 2-row orders, %s per run\n", e.engine, clients, c.duration)
	run := func(run, n int) (latencies, error) {
		toks := make([]string, n)
		for w := range toks {
			toks[w] = tok
		}
		return postLoad(e, "PUT", "/ecommerce/v3/order", toks, n, c.duration, func(w, i int) []byte {
			// An externalId has at most 20 characters, the business ID's 10
			// among them.
			tag := "m"
			if n == 1 {
				tag = "o"
			}
			return orderBody(merchantBID, fmt.Sprintf("%d%s%d.%d", run, tag, w, i), 2*w+1, 2*w+2)
		})
	}
	// cpu runs n clients and reports, per order, the CPU of this process
	// (the server and the load's clients) and of the database backends
	// serving the store.
	cpu := func(r, n int, profile string) (lat latencies, proc, db float64, err error) {
		p0, _ := e.backendCPU()
		c0 := processCPU()
		err = profileDuring(profile, func() error {
			var err error
			lat, err = run(r, n)
			return err
		})
		c1 := processCPU()
		p1, _ := e.backendCPU()
		if k := float64(len(lat)); k > 0 {
			proc, db = float64((c1-c0).Microseconds())/k, float64((p1-p0).Microseconds())/k
		}
		return lat, proc, db, err
	}
	for r := range c.repeat {
		one, oneProc, oneDB, err := cpu(r, 1, "")
		if err != nil {
			return err
		}
		profile := ""
		if r == 0 && c.cpuProfile != "" {
			profile = c.cpuProfile + ".create-one-org." + e.engine
		}
		many, manyProc, manyDB, err := cpu(r, clients, profile)
		if err != nil {
			return err
		}
		oneRate, manyRate := float64(len(one))/c.duration.Seconds(), float64(len(many))/c.duration.Seconds()
		fmt.Printf("  run %d: 1 client %.0f orders/s (p99 %s); %d clients %.0f orders/s, p50 %s, p99 %s; ratio %.2f×, %s\n",
			r+1, oneRate, ms(one.quantile(0.99)), clients, manyRate, ms(many.quantile(0.5)), ms(many.quantile(0.99)), manyRate/oneRate, loadAverage())
		fmt.Printf("    CPU per order: this process (server and clients) %.0f µs with 1 client, %.0f µs with %d; database %.0f µs, %.0f µs\n",
			oneProc, manyProc, clients, oneDB, manyDB)
	}
	return nil
}
