package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/parcelgate/parcelgate/internal/tools/seedgen"
)

// seedConfig is what the seed and size modes fill.
type seedConfig struct {
	scale float64
	sizes seedgen.Sizes // after -scale and the per-entity flags
	seed  uint64
	// dsn, for the seed mode: fill this database and keep it.
	dsn string
	// perRoute and maxRequests bound each measurement of the size mode.
	perRoute    time.Duration
	maxRequests int
}

// seedMode fills a database with the generator and prints what it made
// and how long each table took. With -seed-db the database is that one
// and is kept (serve it with parcelgate serve --db ...); otherwise a new
// one that is dropped afterwards: a measurement of the fill alone.
func seedMode(ctx context.Context, c config, engine string) error {
	fill := func(ctx context.Context, dsn string) error {
		fmt.Printf("%s seed: scale %g, %+v, %s\n", engine, c.seed.scale, c.seed.sizes, loadAverage())
		rep, err := seedgen.Run(ctx, seedgen.Config{DSN: dsn, Sizes: c.seed.sizes, Seed: c.seed.seed})
		if err != nil {
			return err
		}
		fmt.Print(rep)
		fmt.Printf("  filled in %s, %s\n", rep.Took.Round(time.Millisecond), loadAverage())
		return nil
	}
	if c.seed.dsn != "" {
		if strings.HasPrefix(c.seed.dsn, "sqlite:") != (engine == "sqlite") {
			return nil // -seed-db names one database, of one engine
		}
		return fill(ctx, c.seed.dsn)
	}
	e, err := startServer(ctx, engine, serverOpts{journal: c.journal, fill: fill})
	if err != nil {
		return err
	}
	e.close()
	return nil
}

// sizeRoute is one measured route: the path of request n from worker w.
type sizeRoute struct {
	name string
	path func(w, n int) string
	// auth sets the request's credentials.
	auth func(*http.Request)
}

// sizeMode fills a new database at -scale with the generator, serves it
// (API, console, operator API, request journal on, as serve runs) and
// measures each route of issue 39's table for the big merchant and a
// small one: -c connections for -size-d or -size-max requests per route,
// whichever ends first; p50, p99 and the 5xx answers of each. It prints a
// table ready for docs/performance.md.
func sizeMode(ctx context.Context, c config, engine string) error {
	var rep *seedgen.Report
	samples := map[string]*tenantSamples{}
	fill := func(ctx context.Context, dsn string) error {
		var err error
		rep, err = seedgen.Run(ctx, seedgen.Config{DSN: dsn, Sizes: c.seed.sizes, Seed: c.seed.seed})
		if err != nil {
			return err
		}
		fmt.Printf("%s size: filled scale %g (%d rows) in %s, %s\n", engine, c.seed.scale, rep.Rows(), rep.Took.Round(time.Millisecond), loadAverage())
		// The keys the routes look up, read now, before the server opens
		// the database: a second handle on a live SQLite file is what
		// issue 39 found can disturb the server's.
		for _, t := range []seedgen.Tenant{rep.Big, rep.Small} {
			if samples[t.BusinessID], err = readSamples(ctx, engine, dsn, t.BusinessID); err != nil {
				return err
			}
		}
		return nil
	}
	e, err := startServer(ctx, engine, serverOpts{journal: c.journal, fill: fill, console: true})
	if err != nil {
		return err
	}
	defer e.close()
	type row struct {
		route, tenant string
		res           sizeResult
	}
	var rows []row
	for _, t := range []seedgen.Tenant{rep.Big, rep.Small} {
		routes, err := e.sizeRoutes(t, samples[t.BusinessID])
		if err != nil {
			return err
		}
		who := "big"
		if t.BusinessID == rep.Small.BusinessID {
			who = "small"
		}
		for _, r := range routes {
			if who == "small" && strings.HasPrefix(r.name, "operator") && !strings.Contains(r.name, "tenant") {
				continue // the environment's lists: measured once
			}
			res, err := e.measure(c.conns, c.seed.perRoute, c.seed.maxRequests, r)
			if err != nil {
				return fmt.Errorf("%s, %s: %w", r.name, t.BusinessID, err)
			}
			fmt.Printf("  %-5s %-44s %6.0f req/s  p50 %9s  p99 %9s  5xx %d  (%d requests%s)\n", who, r.name, res.rate, ms(res.lat.quantile(0.5)), ms(res.lat.quantile(0.99)), res.fivexx, len(res.lat), res.note())
			rows = append(rows, row{r.name, who, res})
		}
	}
	fmt.Printf("\n%s at scale %g (big merchant %s: %d orders, %d shipments; small %s: %d orders, %d shipments), %d connections, %s or %d requests a route; %s\n\n",
		engine, c.seed.scale, rep.Big.BusinessID, rep.Big.Orders, rep.Big.Shipments, rep.Small.BusinessID, rep.Small.Orders, rep.Small.Shipments, c.conns, c.seed.perRoute, c.seed.maxRequests, loadAverage())
	fmt.Printf("| Route | tenant | %s p50 | p99 | 5xx | other non-200 | requests |\n|---|---|---|---|---|---|---|\n", engine)
	for _, r := range rows {
		fmt.Printf("| %s | %s | %s | %s | %d | %d | %d |\n", r.route, r.tenant, ms(r.res.lat.quantile(0.5)), ms(r.res.lat.quantile(0.99)), r.res.fivexx, r.res.other, len(r.res.lat))
	}
	fmt.Printf("\npeak RSS of this process (server, store and load generator): %d MiB\n\n", maxRSS()>>20)
	return nil
}

// maxRSS is the peak resident memory of this process, in bytes.
func maxRSS() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Maxrss << 10 // kilobytes on Linux
}

// sizeRoutes are the routes of issue 39's table for tenant t, with
// numbers, references and order IDs of t's own read from the database.
func (e *env) sizeRoutes(t seedgen.Tenant, keys *tenantSamples) ([]sizeRoute, error) {
	tok, err := e.login(t)
	if err != nil {
		return nil, err
	}
	cookie, err := e.consoleSession(t)
	if err != nil {
		return nil, err
	}
	orders, numbers, refs := keys.orders, keys.numbers, keys.refs
	bearer := func(tok string) func(*http.Request) {
		return func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+tok) }
	}
	ecom, admin := bearer(tok), bearer(adminToken)
	session := func(r *http.Request) { r.AddCookie(cookie) }
	fixed := func(p string) func(int, int) string { return func(int, int) string { return p } }
	pick := func(prefix string, keys []string) func(int, int) string {
		return func(w, n int) string { return prefix + url.PathEscape(keys[(w*7919+n)%len(keys)]) }
	}
	// A deep page, cold: each request a page size no request before it
	// used, so no page boundary of its query is known, at about the
	// middle of the merchant's orders.
	deep := func(w, n int) string {
		size := 20 + (w*1000+n)%180
		return fmt.Sprintf("/ecommerce/v3/orders?size=%d&page=%d", size, max(0, t.Orders/size/2))
	}
	return []sizeRoute{
		{"API orders, first page", fixed("/ecommerce/v3/orders"), ecom},
		{"API orders, status=Delivered", fixed("/ecommerce/v3/orders?status=Delivered"), ecom},
		{"API orders, a deep page, cold", deep, ecom},
		{"API GET one order", pick("/ecommerce/v3/orders/", orders), ecom},
		{"API inventory", fixed("/ecommerce/v3/inventory"), ecom},
		{"API catalog balances (WH1)", fixed("/ecommerce/v3/catalogs/WH1/balances"), ecom},
		{"API supplier shipments, status=Created", fixed("/ecommerce/v3/shipments?status=Created"), ecom},
		{"Tracking by number", pick("/tracking/7/shipments/trackingnumber/", numbers), ecom},
		{"Tracking senderreference", pick("/tracking/7/shipments/senderreference/", refs), ecom},
		{"Tracking find", pick("/tracking/7/shipments/find/", refs), ecom},
		{"Console overview", fixed("/console/"), session},
		{"Console shipments", fixed("/console/shipments"), session},
		{"Console orders", fixed("/console/orders"), session},
		{"Console products", fixed("/console/products"), session},
		{"operator organizations", fixed("/admin/v1/organizations"), admin},
		{"operator journal, status=503", fixed("/admin/v1/requests?environment=production&status=503"), admin},
		{"operator journal of the tenant, status=404", fixed("/admin/v1/requests?businessId=" + t.BusinessID + "&status=404"), admin},
	}, nil
}

// login is t's ecom token.
func (e *env) login(t seedgen.Tenant) (string, error) {
	req, _ := http.NewRequest("GET", e.url+"/auth/token", nil)
	req.SetBasicAuth(t.Username, t.Password)
	resp, err := e.client.Do(req)
	if err != nil {
		return "", err
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := decodeJSON(resp, &tok); err != nil {
		return "", err
	}
	return tok.AccessToken, nil
}

// consoleSession signs the operator in to the console with the admin
// token and chooses t's organization, as an operator looking into a
// tenant does (the console shows shipments to the operator and to gateway
// clients, not to service accounts), and returns the session's cookie.
func (e *env) consoleSession(t seedgen.Tenant) (*http.Cookie, error) {
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.PostForm(e.url+"/console/sign-in", url.Values{"kind": {"operator"}, "token": {adminToken}})
	if err != nil {
		return nil, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	var session *http.Cookie
	for _, ck := range resp.Cookies() {
		if ck.Name == "parcelgate_console" && ck.Value != "" {
			session = ck
		}
	}
	if session == nil {
		return nil, fmt.Errorf("console sign-in of the operator: %d, no session", resp.StatusCode)
	}
	req, _ := http.NewRequest("POST", e.url+"/console/tenant", strings.NewReader(url.Values{"environment": {"production"}, "businessId": {t.BusinessID}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(session)
	if resp, err = noRedirect.Do(req); err != nil {
		return nil, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode >= 400 {
		return nil, fmt.Errorf("console: choosing %s: %d", t.BusinessID, resp.StatusCode)
	}
	return session, nil
}

// tenantSamples are up to 500 of an organization's newest order IDs,
// parcel numbers and shipment references.
type tenantSamples struct{ orders, numbers, refs []string }

// readSamples reads bid's samples from the database at dsn.
func readSamples(ctx context.Context, engine, dsn, bid string) (*tenantSamples, error) {
	driver := "pgx"
	if engine == "sqlite" {
		driver, dsn = "sqlite", strings.TrimPrefix(dsn, "sqlite:")
	}
	raw, err := sql.Open(driver, dsn)
	if err != nil {
		return nil, err
	}
	defer raw.Close()
	var org int64
	if err := raw.QueryRowContext(ctx, `SELECT id FROM organizations WHERE environment = 'production' AND business_id = '`+bid+`'`).Scan(&org); err != nil {
		return nil, err
	}
	read := func(q string) ([]string, error) {
		rows, err := raw.QueryContext(ctx, fmt.Sprintf(q, org))
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				return nil, err
			}
			out = append(out, s)
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("%s has none: %s", bid, q)
		}
		return out, rows.Err()
	}
	var k tenantSamples
	if k.orders, err = read(`SELECT order_id FROM orders WHERE org_id = %d ORDER BY id DESC LIMIT 500`); err != nil {
		return nil, err
	}
	if k.numbers, err = read(`SELECT parcel_id FROM parcels WHERE org_id = %d ORDER BY shipment_id DESC LIMIT 500`); err != nil {
		return nil, err
	}
	if k.refs, err = read(`SELECT reference FROM shipments WHERE org_id = %d AND reference <> '' ORDER BY id DESC LIMIT 500`); err != nil {
		return nil, err
	}
	return &k, nil
}

// sizeResult is one route's measurement.
type sizeResult struct {
	lat      latencies
	rate     float64
	fivexx   int
	other    int    // answers neither 200 nor 5xx
	firstBad string // the first of those, for the note
	timedOut bool
}

func (r sizeResult) note() string {
	if r.other == 0 {
		return ""
	}
	return fmt.Sprintf("; %d other non-200, first: %s", r.other, r.firstBad)
}

// measure runs conns workers for d or until maxRequests requests were
// sent, whichever comes first; every answer's time counts, 5xx ones
// included.
func (e *env) measure(conns int, d time.Duration, maxRequests int, r sizeRoute) (sizeResult, error) {
	client := newClient(conns)
	client.Timeout = 30 * time.Second
	var mu sync.Mutex
	var res sizeResult
	var sent int
	start := time.Now()
	deadline := start.Add(d)
	var wg sync.WaitGroup
	var firstErr error
	for w := range conns {
		wg.Go(func() {
			for n := 0; ; n++ {
				mu.Lock()
				if sent >= maxRequests || time.Now().After(deadline) {
					mu.Unlock()
					return
				}
				sent++
				mu.Unlock()
				req, _ := http.NewRequest("GET", e.url+r.path(w, n), nil)
				r.auth(req)
				t0 := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					mu.Lock()
					firstErr = cmpErr(firstErr, err)
					mu.Unlock()
					return
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				took := time.Since(t0)
				mu.Lock()
				res.lat = append(res.lat, took)
				switch {
				case resp.StatusCode >= 500:
					res.fivexx++
				case resp.StatusCode != http.StatusOK:
					res.other++
					if res.firstBad == "" {
						res.firstBad = fmt.Sprintf("%d %s %.200s", resp.StatusCode, req.URL.RequestURI(), body)
					}
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	res.rate = float64(len(res.lat)) / time.Since(start).Seconds()
	return res, firstErr
}
