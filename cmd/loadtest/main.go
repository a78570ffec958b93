// Command loadtest measures parcelgate under load on this machine and prints
// the figures docs/performance.md records. It starts parcelgate in-process
// (the real router over a real store, SQLite in a temporary directory or
// PostgreSQL in a schema of its own that is dropped afterwards), seeds what a
// mode needs over the operator and ecom APIs, and drives it over loopback
// HTTP.
//
// Modes (-mode, comma-separated; default read):
//
//	read    an authenticated GET /ecommerce/v3/orders/{id} (-read-orders:
//	        of that many orders in turn), and a bare
//	        net/http handler writing the same bytes, one after the other in
//	        the same run: req/s of each and the ratio. Uses wrk when it is on
//	        PATH (-wrk=false to use the built-in generator).
//	walk    a retailer walks a catalog of -balances balances (412,638: 207
//	        pages of 2000) by page number: the whole walk, first and last
//	        page, peak heap of the process. -walkers clients walk at once.
//	create  -clients clients of one merchant, each ordering its own two
//	        products (2-row orders): orders/s, p50, p99.
//	create-orgs
//	        -clients clients, each a merchant of its own: orders/s, p50, p99.
//	create-one-org
//	        one merchant's creates from 1 client, then from -clients clients
//	        (each its own two products): orders/s of each, the ratio, p99.
//	hot     -hot-clients clients ordering the same product: orders/s, p50,
//	        p99.
//	bulk    a supplier loads -balances products, each with a balance in one
//	        catalog, by PUT /inventory of 2000 entries at a time into a
//	        growing catalog: each request's time along the way, the whole.
//	bulk-balances
//	        the same over PUT /inventory/balances, the products stored first.
//	pickup  the gateway's Pick-up Point API over the national data set:
//	        each search mode (postcode, coordinates and radius, rectangle,
//	        free text, lockers with filters and extensions) from -clients
//	        clients: searches/s, p50, p99; then the whole country listing
//	        paged by its token.
//	track   the Tracking API: -track-shipments shipments of two parcels
//	        made over the shipping API, each with its order number, then
//	        -clients clients look parcels up by number, by sender
//	        reference and with find: lookups/s, p50, p99 of each.
//	list    list pages under load: a supplier's GET /inventory, a
//	        retailer's catalog page and catalogs, a merchant's orders, each
//	        a page of -list-size over -c connections: req/s and CPU per
//	        request of each.
//	shipments
//	        a supplier with -shipments shipments (one per retailer order
//	        from its dropshipping catalog) polls GET /ecommerce/v3/shipments
//	        from the newest stamp, from the middle and without from over -c
//	        connections: req/s, p50, p99 of each.
//	idle    a server with -idle-orders warehouse orders (300,000), none
//	        due, the warehouse engine and the automatic supplier running
//	        at serve's defaults: one engine step's time, and the CPU the
//	        server (and PostgreSQL's processes serving it) used over -d.
//	tenant  the operator's snapshot, reset and restore of a small
//	        organization next to one with -big-rows (300,000) tracking
//	        moves, codes and supplier shipments: the median of each.
//	seed    fills a database with the generator of production volumes
//	        (internal/tools/seedgen) at -scale of issue 39's large set (2,000
//	        organizations, one holding half; 1,000,000 shipments, 2,000,000
//	        parcels; 300,000 orders), each volume overridable
//	        (-seed-orders, -seed-shipments, ...): rows and time per table.
//	        With -seed-db the database is that one and is kept, for
//	        parcelgate serve --db; otherwise a new one, dropped afterwards.
//	size    fills a new database as seed does (or measures -seed-db's,
//	        filling it when it holds no fill), serves it as serve --sandbox
//	        does (API, console, operator API, journal, the warehouse engine,
//	        the 5 s database deadline) and measures issue 39's routes for
//	        the big merchant and a small one, and on a server over the
//	        demo seed (-size-tenants): -c connections, each route for
//	        -size-d or -size-max requests, whichever ends first; p50, p99,
//	        5xx. Then the idle server's CPU (-size-idle) and the operator's
//	        snapshot, reset and restore of each tenant and the reset of the
//	        environment (-size-ops, each bounded by -size-op-timeout, a 202
//	        job followed to its end), with the memory before and after. At
//	        the end one markdown table of every engine and tenant
//	        (-size-routes chooses routes by name).
//
// With -replica (PostgreSQL) the store reads on a streaming replica of the
// database that the run starts (internal/tools/pgcluster), as serve
// --db-replica does; the replica must have caught up before each
// measurement, and the figures say how many reads it served.
//
// Example: go run ./cmd/loadtest -engine sqlite,postgres -mode read,create,hot
//
// PostgreSQL is reached at PARCELGATE_TEST_POSTGRES or the local server
// (postgres://postgres@127.0.0.1:5432/test).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/parcelgate/parcelgate/internal/tools/seedgen"
)

type config struct {
	engines    []string
	modes      []string
	duration   time.Duration
	conns      int
	useWrk     bool
	cpuProfile string
	balances   int
	walks      int
	clients    int
	hotClients int
	repeat     int
	// trackShipments are the shipments the track mode makes first.
	trackShipments int
	journal        bool
	replica        bool
	walkers        int
	listSize       int
	readOrders     int
	shipments      int
	idleOrders     int
	bigRows        int
	seed           seedConfig
}

func main() {
	var c config
	var engines, modes string
	flag.StringVar(&engines, "engine", "sqlite,postgres", "engines to measure: sqlite, postgres")
	flag.StringVar(&modes, "mode", "read", "what to measure: read, walk, create, create-orgs, create-one-org, hot, bulk, bulk-balances, list, pickup, track, shipments, idle, tenant, seed, size (comma-separated)")
	flag.DurationVar(&c.duration, "d", 10*time.Second, "length of each timed load run")
	flag.IntVar(&c.conns, "c", 32, "connections of the read load")
	flag.BoolVar(&c.useWrk, "wrk", true, "drive the read load with wrk when it is installed")
	flag.StringVar(&c.cpuProfile, "cpuprofile", "", "write a CPU profile of the read load, of the first catalog walk, of the first many-client create-one-org run, of each size operator operation and of the size mode's idle server to this file (suffixed with the mode and engine)")
	flag.IntVar(&c.balances, "balances", 412638, "balances in the walked catalog")
	flag.IntVar(&c.walks, "walks", 3, "whole walks of the catalog")
	flag.IntVar(&c.clients, "clients", 32, "clients of the create mode, each with its own product")
	flag.IntVar(&c.trackShipments, "track-shipments", 2000, "shipments (of two parcels) the track mode makes before it measures")
	flag.IntVar(&c.hotClients, "hot-clients", 64, "clients of the hot mode, all ordering the same product")
	flag.IntVar(&c.repeat, "repeat", 2, "runs of each read and order measurement")
	flag.BoolVar(&c.journal, "journal", true, "keep the request journal, as serve does by default (-journal=false measures without it)")
	flag.BoolVar(&c.replica, "replica", false, "postgres: start a streaming replica of the database (pg_basebackup; needs a replication line in pg_hba.conf) and read on it, as serve --db-replica does")
	flag.IntVar(&c.walkers, "walkers", 1, "walk: clients walking the catalog at once")
	flag.IntVar(&c.listSize, "list-size", 100, "list: entries per page")
	flag.IntVar(&c.shipments, "shipments", 10000, "shipments: the supplier's shipments polled")
	flag.IntVar(&c.bigRows, "big-rows", 300000, "tenant: the big organization's tracking moves, codes and supplier shipments (each)")
	flag.IntVar(&c.idleOrders, "idle-orders", 300000, "idle: warehouse orders in the database, none due")
	flag.IntVar(&c.readOrders, "read-orders", 1, "read: GET this many different orders of the merchant in turn instead of one (needs wrk)")
	flag.Float64Var(&c.seed.scale, "scale", 0.1, "seed, size: the volumes as a share of issue 39's large set (1 = 2,000 organizations, 1,000,000 shipments, 300,000 orders)")
	flag.Uint64Var(&c.seed.seed, "seed", 1, "seed, size: the generator's seed (the same seed and sizes give the same data, its times relative to the time of the fill)")
	flag.StringVar(&c.seed.dsn, "seed-db", "", "seed: fill this database (sqlite:PATH or a postgres:// URL; new, or migrated and empty) and keep it; size: measure this database, filling it first when it holds no fill")
	var over seedgen.Sizes
	flag.IntVar(&over.Orgs, "seed-orgs", 0, "seed, size: organizations (0: by -scale)")
	flag.IntVar(&over.Products, "seed-products", 0, "seed, size: products over every warehouse catalog (0: by -scale)")
	flag.IntVar(&over.PerShop, "seed-per-shop", 0, "seed, size: products a supplier publishes to a dropshipping catalog of the retailers' mean weight, a sample (0: by -scale)")
	flag.IntVar(&over.Orders, "seed-orders", 0, "seed, size: warehouse orders (0: by -scale)")
	flag.IntVar(&over.Shipments, "seed-shipments", 0, "seed, size: shipments, delivered orders' included (0: by -scale)")
	flag.IntVar(&over.Journal, "seed-journal", 0, "seed, size: request journal entries before the journal's cap per organization (0: by -scale)")
	flag.DurationVar(&c.seed.perRoute, "size-d", 3*time.Second, "size: how long each route is measured at most")
	flag.IntVar(&c.seed.maxRequests, "size-max", 3000, "size: requests per route at most")
	var routes, tenants, ops string
	flag.StringVar(&routes, "size-routes", "", "size: measure only the routes whose name matches this regular expression (e.g. 'Console|orders')")
	flag.StringVar(&tenants, "size-tenants", "big,small,demo", "size: the tenants measured: big, small (of the generated data), demo (a server over serve --demo's seed, the comparison of issue 39's done)")
	flag.StringVar(&ops, "size-ops", "", "size: the operator's operations run after the routes: small, big (snapshot, reset, restore of the tenant), env (reset of the environment), none; default all, or small only on a -seed-db database")
	flag.DurationVar(&c.seed.opTimeout, "size-op-timeout", 5*time.Minute, "size: each operator operation (a 202 job followed to its end) at most")
	flag.DurationVar(&c.seed.idle, "size-idle", 30*time.Second, "size: how long the idle server's CPU is measured (0: not)")
	flag.BoolVar(&c.seed.engines, "size-engines", true, "size: run the warehouse engine and the automatic supplier in the server, as serve does")
	flag.Parse()
	opProfile = c.cpuProfile
	if routes != "" {
		re, err := regexp.Compile(routes)
		if err != nil {
			fmt.Fprintln(os.Stderr, "loadtest: -size-routes:", err)
			os.Exit(2)
		}
		c.seed.routes = re
	}
	c.seed.tenants = map[string]bool{}
	for _, t := range strings.Split(tenants, ",") {
		if t = strings.TrimSpace(t); t != "big" && t != "small" && t != "demo" {
			fmt.Fprintf(os.Stderr, "loadtest: -size-tenants: %q is not big, small or demo\n", t)
			os.Exit(2)
		}
		c.seed.tenants[t] = true
	}
	if ops != "" {
		c.seed.ops = map[string]bool{}
		for _, o := range strings.Split(ops, ",") {
			if o = strings.TrimSpace(o); o != "small" && o != "big" && o != "env" && o != "none" {
				fmt.Fprintf(os.Stderr, "loadtest: -size-ops: %q is not small, big, env or none\n", o)
				os.Exit(2)
			}
			c.seed.ops[o] = true
		}
	}
	c.seed.sizes = seedgen.Large.Scale(c.seed.scale)
	for _, o := range []struct{ from, to *int }{{&over.Orgs, &c.seed.sizes.Orgs}, {&over.Products, &c.seed.sizes.Products}, {&over.PerShop, &c.seed.sizes.PerShop},
		{&over.Orders, &c.seed.sizes.Orders}, {&over.Shipments, &c.seed.sizes.Shipments}, {&over.Journal, &c.seed.sizes.Journal}} {
		if *o.from > 0 {
			*o.to = *o.from
		}
	}
	c.engines = strings.Split(engines, ",")
	c.modes = strings.Split(modes, ",")
	if err := run(context.Background(), c); err != nil {
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, c config) error {
	fmt.Printf("loadtest: %s, GOMAXPROCS=%d, %d CPUs, %s\n", runtime.Version(), runtime.GOMAXPROCS(0), runtime.NumCPU(), loadAverage())
	for _, engine := range c.engines {
		for _, mode := range c.modes {
			if err := runMode(ctx, c, engine, mode); err != nil {
				return fmt.Errorf("%s %s: %w", engine, mode, err)
			}
		}
	}
	summary.print()
	fmt.Printf("done, %s\n", loadAverage())
	return nil
}

func runMode(ctx context.Context, c config, engine, mode string) error {
	switch mode {
	case "read", "walk", "create", "create-orgs", "create-one-org", "hot", "bulk", "bulk-balances", "list", "pickup", "track", "shipments", "idle", "tenant":
	case "seed":
		return seedMode(ctx, c, engine)
	case "size":
		return sizeMode(ctx, c, engine)
	default:
		return fmt.Errorf("unknown mode %q", mode)
	}
	env, err := start(ctx, engine, c.journal, c.replica)
	if err != nil {
		return err
	}
	defer env.close()
	switch mode {
	case "read":
		return readMode(ctx, c, env)
	case "walk":
		return walkMode(ctx, c, env)
	case "list":
		return listMode(ctx, c, env)
	case "pickup":
		return pickupMode(ctx, c, env)
	case "shipments":
		return shipmentsMode(ctx, c, env)
	case "track":
		return trackMode(ctx, c, env)
	case "idle":
		return idleMode(ctx, c, env)
	case "tenant":
		return tenantMode(ctx, c, env)
	case "create":
		return orderMode(ctx, c, env, c.clients, spread)
	case "create-orgs":
		return orderMode(ctx, c, env, c.clients, perOrg)
	case "create-one-org":
		return oneOrgMode(ctx, c, env, c.clients)
	case "bulk":
		return bulkMode(ctx, c, env, false)
	case "bulk-balances":
		return bulkMode(ctx, c, env, true)
	default:
		return orderMode(ctx, c, env, c.hotClients, hotSpot)
	}
}

// profileDuring writes a CPU profile of fn to path when path is set.
func profileDuring(path string, fn func() error) error {
	if path == "" {
		return fn()
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := pprof.StartCPUProfile(f); err != nil {
		return err
	}
	err = fn()
	pprof.StopCPUProfile()
	return err
}

// loadAverage is /proc/loadavg's first three fields, to note the machine's
// conditions beside the figures.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "load average unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "load average unknown"
	}
	return "load average " + strings.Join(f[:3], " ")
}
