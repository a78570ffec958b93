package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"runtime/pprof"
	"strings"
	"sync"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/demo"
	"github.com/parcelgate/parcelgate/internal/tools/seedgen"
	"github.com/parcelgate/parcelgate/internal/wiring"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// seedConfig is what the seed and size modes fill and measure.
type seedConfig struct {
	scale float64
	sizes seedgen.Sizes // after -scale and the per-entity flags
	seed  uint64
	// dsn: fill this database and keep it (seed); measure it, filling it
	// first when it is empty (size).
	dsn string
	// perRoute and maxRequests bound each measurement of the size mode.
	perRoute    time.Duration
	maxRequests int
	// routes, when set, chooses the measured routes by name.
	routes *regexp.Regexp
	// tenants: which of big, small and demo are measured.
	tenants map[string]bool
	// ops: which operator operations run (small, big, env); opTimeout
	// bounds each.
	ops       map[string]bool
	opTimeout time.Duration
	// idle is how long the idle server's CPU is measured (0: not).
	idle time.Duration
	// engines runs the warehouse engine and the automatic supplier in
	// the server, as serve does.
	engines bool
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
		fmt.Printf("  filled in %s, %s; peak RSS of this process %d MiB\n", rep.Took.Round(time.Millisecond), loadAverage(), peakRSS()>>20)
		return nil
	}
	if c.seed.dsn != "" {
		if !dsnOf(c.seed.dsn, engine) {
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

// dsnOf reports whether dsn is a database of engine.
func dsnOf(dsn, engine string) bool {
	return strings.HasPrefix(dsn, "sqlite:") == (engine == "sqlite")
}

// sizeMode measures issue 39's routes at size on engine: it fills a new
// database at -scale with the generator (or, with -seed-db, measures that
// database, filling it first when it is empty), serves it as serve does
// (API, console, operator API, request journal, the warehouse engine and
// the automatic supplier) and measures each route for the big merchant
// and a small one: -c connections for -size-d or -size-max requests per
// route, whichever ends first; p50, p99 and the 5xx answers of each. Then
// the idle server's CPU, and the operator's snapshot, reset and restore of
// the small tenant, the big one and the environment (each bounded by
// -size-op-timeout, a 202 job followed to its end), with the process's
// memory before and after. With demo in -size-tenants the same routes are
// measured on a server over the demo seed, for the comparison issue 39's
// "done" asks. The figures go into sizeSummary, printed at the end.
func sizeMode(ctx context.Context, c config, engine string) error {
	if c.seed.dsn != "" && !dsnOf(c.seed.dsn, engine) {
		return nil // -seed-db names one database, of one engine
	}
	sum := summary.engine(engine)
	var tenants []*sizeTenant
	prepare := func(ctx context.Context, dsn string) error {
		big, small, err := seedgen.Tenants(ctx, dsn)
		if err != nil {
			return err
		}
		if big == nil {
			rep, err := seedgen.Run(ctx, seedgen.Config{DSN: dsn, Sizes: c.seed.sizes, Seed: c.seed.seed})
			if err != nil {
				return err
			}
			sum.fill = fmt.Sprintf("filled at scale %g, %d rows in %s (%s; peak RSS of the process so far %d MiB)", c.seed.scale, rep.Rows(), rep.Took.Round(100*time.Millisecond), loadAverage(), peakRSS()>>20)
			fmt.Printf("%s size: %s\n", engine, sum.fill)
			fmt.Print(rep) // each table's rows and time
			big, small = &rep.Big, &rep.Small
		} else {
			sum.fill = "a database filled before (-seed-db)"
			fmt.Printf("%s size: measuring %s, filled before\n", engine, c.seed.dsn)
		}
		for label, t := range map[string]*seedgen.Tenant{"big": big, "small": small} {
			if !c.seed.tenants[label] {
				continue
			}
			st := &sizeTenant{label: label, businessID: t.BusinessID, clientID: t.ClientID, secret: t.ClientSecret, username: t.Username, password: t.Password, warehouse: "WH1"}
			if st.keys, err = readSamples(ctx, engine, dsn, t.BusinessID, st.warehouse); err != nil {
				return err
			}
			tenants = append(tenants, st)
		}
		// big first
		if len(tenants) == 2 && tenants[0].label != "big" {
			tenants[0], tenants[1] = tenants[1], tenants[0]
		}
		return nil
	}
	if c.seed.tenants["big"] || c.seed.tenants["small"] {
		e, err := startServer(ctx, engine, serverOpts{journal: c.journal, fill: prepare, console: true, engines: c.seed.engines, dsn: c.seed.dsn, serve: true})
		if err != nil {
			return err
		}
		err = e.sizeRun(c, sum, tenants, c.seed.dsn != "")
		e.close()
		if err != nil {
			return err
		}
	}
	if c.seed.tenants["demo"] {
		if err := demoRun(ctx, c, engine, sum); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
	}
	return nil
}

// sizeRun measures the routes for tenants, then the idle server, then the
// operator's operations.
func (e *env) sizeRun(c config, sum *engineSummary, tenants []*sizeTenant, kept bool) error {
	// The server's memory from here on, not the generator's before it.
	freeMemory()
	resetPeakRSS()
	sum.rssStart = currentRSS()
	since := time.Now()
	for i, t := range tenants {
		if err := e.measureRoutes(c, sum, t, i == 0, since); err != nil {
			return err
		}
	}
	if len(tenants) > 0 {
		fmt.Printf("\n%s at size, big %s (%d orders), small %s (%d orders), %d connections, %s or %d requests a route; %s\n",
			e.engine, tenants[0].businessID, tenants[0].keys.orderCount, tenants[len(tenants)-1].businessID, tenants[len(tenants)-1].keys.orderCount, c.conns, c.seed.perRoute, c.seed.maxRequests, loadAverage())
	}
	if c.seed.idle > 0 {
		e.idleCPU(c.seed.idle, sum)
	}
	var big, small *sizeTenant
	for _, t := range tenants {
		switch t.label {
		case "big":
			big = t
		case "small":
			small = t
		}
	}
	ops := c.seed.ops
	if kept && ops == nil {
		// A kept database: only what leaves it as it was.
		ops = map[string]bool{"small": true}
	} else if ops == nil {
		ops = map[string]bool{"small": true, "big": true, "env": true}
	}
	if small != nil && ops["small"] {
		e.tenantOps(c, sum, small)
	}
	if big != nil && ops["big"] {
		e.tenantOps(c, sum, big)
	}
	if ops["env"] {
		sum.ops = append(sum.ops, e.operatorOp("reset of the environment", "POST", "/admin/v1/reset?environment=production", nil, c.seed.opTimeout))
		sum.ops[len(sum.ops)-1].print(e.engine)
	}
	sum.peakRSS = peakRSS()
	return nil
}

// measureRoutes measures every route of t (the environment's with the
// first tenant only).
func (e *env) measureRoutes(c config, sum *engineSummary, t *sizeTenant, first bool, since time.Time) error {
	routes, err := e.sizeRoutes(t, since)
	if err != nil {
		return err
	}
	for _, r := range routes {
		if c.seed.routes != nil && !c.seed.routes.MatchString(r.name) {
			continue
		}
		if r.env && !first {
			continue
		}
		// The environment's routes of the generated data in their own
		// column (printed in the big tenant's); the demo server's in the
		// demo's.
		col := t.label
		if r.env && t.label != "demo" {
			col = "env"
		}
		if r.skip != "" {
			summary.put(r.name, e.engine, col, sizeCell{skip: r.skip})
			fmt.Printf("  %-5s %-44s not measured: %s\n", t.label, r.name, r.skip)
			continue
		}
		limit := c.seed.maxRequests
		if r.limit > 0 {
			limit = min(limit, r.limit)
		}
		if r.prime > 0 {
			if _, err := e.measure(1, time.Hour, r.prime, r); err != nil {
				return fmt.Errorf("%s, %s: priming: %w", r.name, t.businessID, err)
			}
		}
		res, err := e.measure(c.conns, c.seed.perRoute, limit, r)
		if err != nil {
			return fmt.Errorf("%s, %s: %w", r.name, t.businessID, err)
		}
		if r.method == "PUT" && len(res.lat) > 0 {
			// Orders placed (autoSubmit, the default): the engine
			// submits them engineSubmitAfter from now.
			e.placedDue = time.Now().Add(engineSubmitAfter)
		}
		fmt.Printf("  %-5s %-44s %6.0f req/s  p50 %9s  p99 %9s  5xx %d  (%d requests, %d bytes each%s%s)\n", t.label, r.name, res.rate, ms(res.lat.quantile(0.5)), ms(res.lat.quantile(0.99)), res.fivexx, len(res.lat), res.bytes/int64(max(1, len(res.lat))), res.rowsNote(), res.note())
		summary.put(r.name, e.engine, col, sizeCell{p50: res.lat.quantile(0.5), p99: res.lat.quantile(0.99), n: len(res.lat), fivexx: res.fivexx, timeouts: res.timeouts, other: res.other, status: res.firstStatus, rows: res.rows})
	}
	return nil
}

// demoRun measures the routes on a server over the demo seed (serve
// --demo's), for its production tenant: the "seed data" of issue 39's
// comparison.
func demoRun(ctx context.Context, c config, engine string, sum *engineSummary) error {
	t := demo.Tenants[0]
	st := &sizeTenant{label: "demo", businessID: t.BusinessID, clientID: t.ClientID, secret: t.ClientSecret, username: t.Username, password: t.Password, warehouse: t.WarehouseID}
	// The demo is seeded and its samples read before the server opens
	// the database, as the size run's are.
	seed := func(ctx context.Context, dsn string) error {
		db, err := sqlstore.Open(ctx, dsn, parcelgate.SystemClock{})
		if err != nil {
			return err
		}
		err = db.Migrate(ctx)
		if err == nil {
			_, err = demo.Seed(ctx, wiring.Demo(db), parcelgate.DefaultVersions)
		}
		db.Close()
		if err != nil {
			return err
		}
		st.keys, err = readSamples(ctx, engine, dsn, st.businessID, st.warehouse)
		return err
	}
	e, err := startServer(ctx, engine, serverOpts{journal: c.journal, fill: seed, console: true, engines: c.seed.engines, serve: true})
	if err != nil {
		return err
	}
	defer e.close()
	return e.measureRoutes(c, sum, st, true, time.Now())
}

// tenantOps snapshots, resets and restores t, each bounded by
// -size-op-timeout.
func (e *env) tenantOps(c config, sum *engineSummary, t *sizeTenant) {
	org := "/admin/v1/organizations/" + t.businessID
	// A name of this run's own: a kept database may hold an earlier one's.
	name := fmt.Sprintf("size-%s-%d", t.label, time.Now().Unix())
	snap := e.operatorOp("snapshot of the "+t.label+" tenant", "POST", org+"/snapshots?environment=production", []byte(`{"name":"`+name+`"}`), c.seed.opTimeout)
	snap.print(e.engine)
	reset := e.operatorOp("reset of the "+t.label+" tenant", "POST", org+"/reset?environment=production", nil, c.seed.opTimeout)
	reset.print(e.engine)
	sum.ops = append(sum.ops, snap, reset)
	if !snap.ok() {
		sum.ops = append(sum.ops, opResult{name: "restore of the " + t.label + " tenant", outcome: "not run: no snapshot"})
		return
	}
	restore := e.operatorOp("restore of the "+t.label+" tenant", "POST", org+"/snapshots/"+name+"/restore?environment=production", nil, c.seed.opTimeout)
	restore.print(e.engine)
	sum.ops = append(sum.ops, restore)
}

// sizeResult is one route's measurement.
type sizeResult struct {
	lat         latencies
	rate        float64
	fivexx      int
	timeouts    int    // requests without an answer in 30 s
	bytes       int64  // of the answers' bodies
	other       int    // answers neither 2xx nor 5xx
	firstStatus int    // the status of the first of those
	firstBad    string // the first of those, for the note
	rows        string // the first 2xx answer's rows (sizeRoute.rows)
}

func (r sizeResult) rowsNote() string {
	if r.rows == "" {
		return ""
	}
	return ", " + r.rows
}

func (r sizeResult) note() string {
	var s string
	if r.timeouts > 0 {
		s = fmt.Sprintf("; %d without an answer in 30 s", r.timeouts)
	}
	if r.other > 0 {
		s += fmt.Sprintf("; %d other non-2xx, first: %s", r.other, r.firstBad)
	}
	return s
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
	method := r.method
	if method == "" {
		method = "GET"
	}
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
				var body io.Reader
				if r.body != nil {
					body = bytes.NewReader(r.body(w, n))
				}
				req, _ := http.NewRequest(method, e.url+r.path(w, n), body)
				if body != nil {
					req.Header.Set("Content-Type", "application/json")
				}
				r.auth(req)
				t0 := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					// A request the client gave up on (30 s) is counted
					// with its time, as a 5xx is, and the route goes on;
					// any other failure of the connection ends it.
					mu.Lock()
					if e, ok := err.(interface{ Timeout() bool }); ok && e.Timeout() {
						res.lat = append(res.lat, time.Since(t0))
						res.timeouts++
						mu.Unlock()
						continue
					}
					firstErr = cmpErr(firstErr, err)
					mu.Unlock()
					return
				}
				raw, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				took := time.Since(t0)
				mu.Lock()
				res.lat = append(res.lat, took)
				res.bytes += int64(len(raw))
				if r.rows != nil && res.rows == "" && resp.StatusCode/100 == 2 {
					res.rows = r.rows(raw)
				}
				switch {
				case resp.StatusCode >= 500:
					res.fivexx++
				case resp.StatusCode/100 != 2:
					res.other++
					if res.firstBad == "" {
						res.firstStatus = resp.StatusCode
						res.firstBad = fmt.Sprintf("%d %s %s", resp.StatusCode, req.URL.RequestURI(), short(raw))
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

// idleCPU measures the CPU the server uses over d with no request: this
// process's (the load generator is idle) and, on PostgreSQL, the
// database processes serving its connections. It begins once nothing is
// due: after the journal's last writes, and after the warehouse engine
// submitted the orders a route placed (due engineSubmitAfter after they
// were placed) — work, not idling, which the figure counted before
// (decisions §70).
func (e *env) idleCPU(d time.Duration, sum *engineSummary) {
	time.Sleep(max(5*time.Second, time.Until(e.placedDue)+5*time.Second))
	if opProfile != "" {
		// What the idle server spends its CPU on (-cpuprofile).
		if f, err := os.Create(opProfile + ".idle." + e.engine); err == nil && pprof.StartCPUProfile(f) == nil {
			defer func() {
				pprof.StopCPUProfile()
				f.Close()
			}()
		}
	}
	cpu0, db0 := processCPU(), dbCPU(e)
	time.Sleep(d)
	cpu, dbc := processCPU()-cpu0, dbCPU(e)-db0
	sum.idle = fmt.Sprintf("%.2f s of CPU over %s (%.1f%% of a core)", cpu.Seconds(), d, 100*cpu.Seconds()/d.Seconds())
	if e.engine == "postgres" {
		sum.idle += fmt.Sprintf(", PostgreSQL's processes serving it %.2f s (%.1f%%)", dbc.Seconds(), 100*dbc.Seconds()/d.Seconds())
	}
	sum.idle += ", " + loadAverage()
	fmt.Printf("  idle server: %s\n", sum.idle)
}
