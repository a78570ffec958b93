package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/auth"
	"github.com/parcelgate/parcelgate/console"
	"github.com/parcelgate/parcelgate/fulfillment"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/adminclient"
	"github.com/parcelgate/parcelgate/internal/tools/pgcluster"
	"github.com/parcelgate/parcelgate/internal/wiring"
	"github.com/parcelgate/parcelgate/sqlstore"
)

const (
	adminToken = "loadtest-admin-token"
	defaultPG  = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
)

// env is parcelgate running in this process over a fresh database.
type env struct {
	engine string
	dsn    string // the store's DSN, for set-based fills
	db     *sqlstore.DB
	srv    *http.Server
	url    string
	client *http.Client
	// op calls the operator API.
	op    *adminclient.Client
	close func()
	opts  []sqlstore.Option // the replica's, with -replica

	// primary and standby reach the database servers outside the store,
	// to find the store's backends (postgres only; standby with -replica).
	primary, standby *sql.DB

	// placedDue is when the orders a measured route placed are due for
	// the warehouse engine (the last one's wait, engineSubmitAfter): the
	// idle measurement begins after it (idleCPU).
	placedDue time.Time
}

// engineSubmitAfter is the server's --submit-after when it runs the
// engines (serve's default).
const engineSubmitAfter = 30 * time.Second

// backendName is the application_name of the store's connections, this
// run's own: the backends of another run on the same server are not
// counted.
var backendName = fmt.Sprintf("parcelgate-loadtest-%d", os.Getpid())

// backendCPU is the CPU time the database processes serving the store's
// connections have used, on the primary and on the replica: what a
// measurement cost each server, apart from the other work of a shared
// machine. Both servers run on this machine, so /proc has them.
func (e *env) backendCPU() (primary, replica time.Duration) {
	sum := func(db *sql.DB) time.Duration {
		if db == nil {
			return 0
		}
		rows, err := db.Query(`SELECT pid FROM pg_stat_activity WHERE application_name = $1`, backendName)
		if err != nil {
			return 0
		}
		defer rows.Close()
		var total time.Duration
		for rows.Next() {
			var pid int
			if rows.Scan(&pid) != nil {
				continue
			}
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
			if err != nil {
				continue
			}
			// Fields after the command's closing parenthesis: utime and
			// stime are the 12th and 13th, in clock ticks (100 a second).
			f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
			if len(f) > 12 {
				var ut, st int64
				fmt.Sscan(f[11], &ut)
				fmt.Sscan(f[12], &st)
				total += time.Duration(ut+st) * 10 * time.Millisecond
			}
		}
		return total
	}
	return sum(e.primary), sum(e.standby)
}

// caughtUp waits until the replica, if any, has replayed everything, so
// a measurement reads on it; it returns how many reads it has served.
func (e *env) caughtUp() (uint64, error) {
	if len(e.opts) == 0 {
		return 0, nil
	}
	deadline := time.Now().Add(5 * time.Minute)
	for {
		rs := e.db.Replicas()
		if len(rs) == 1 && rs[0].State == "ok" && rs[0].Lag == 0 {
			return rs[0].Reads, nil
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("the replica has not caught up: %+v", rs)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// replicaReads is how many reads the replica has served.
func (e *env) replicaReads() uint64 {
	var n uint64
	for _, r := range e.db.Replicas() {
		n += r.Reads
	}
	return n
}

func start(ctx context.Context, engine string, journal, replica bool) (*env, error) {
	return startServer(ctx, engine, serverOpts{journal: journal, replica: replica})
}

// serverOpts are what a run's server is started with.
type serverOpts struct {
	journal, replica bool
	// fill, when set, fills the new database before the server opens it
	// (the size mode's generator).
	fill func(ctx context.Context, dsn string) error
	// console mounts the web console, as serve does.
	console bool
	// engines runs the warehouse engine and the automatic supplier at
	// serve's defaults, as serve does.
	engines bool
	// serve runs the server as serve --sandbox does: the database
	// deadline of --db-timeout's default, production disposable.
	serve bool
	// dsn, when set, is the database to serve (kept afterwards) instead
	// of a new one.
	dsn string
}

func startServer(ctx context.Context, engine string, o serverOpts) (*env, error) {
	journal, replica := o.journal, o.replica
	e := &env{engine: engine}
	var cleanup []func()
	e.close = func() {
		for i := len(cleanup) - 1; i >= 0; i-- {
			cleanup[i]()
		}
	}
	fail := func(err error) (*env, error) {
		e.close()
		return nil, err
	}
	switch {
	case o.dsn != "":
		e.dsn = o.dsn
		if engine == "postgres" {
			// The store's connections named, for backendCPU.
			sep := "?"
			if strings.Contains(o.dsn, "?") {
				sep = "&"
			}
			e.dsn = o.dsn + sep + "application_name=" + backendName
			admin, err := sql.Open("pgx", o.dsn)
			if err != nil {
				return nil, err
			}
			cleanup = append(cleanup, func() { admin.Close() })
			e.primary = admin
		}
	case engine == "sqlite":
		dir, err := os.MkdirTemp("", "parcelgate-loadtest-")
		if err != nil {
			return nil, err
		}
		cleanup = append(cleanup, func() { os.RemoveAll(dir) })
		e.dsn = "sqlite:" + filepath.Join(dir, "load.db")
	case engine == "postgres":
		base := os.Getenv("PARCELGATE_TEST_POSTGRES")
		if base == "" {
			base = defaultPG
		}
		admin, err := sql.Open("pgx", base)
		if err != nil {
			return nil, err
		}
		schema := strings.ToLower("load_" + rand.Text()[:12])
		if _, err := admin.ExecContext(ctx, `CREATE SCHEMA `+schema); err != nil {
			admin.Close()
			return nil, fmt.Errorf("postgres at %s: %w", base, err)
		}
		cleanup = append(cleanup, func() {
			admin.Exec(`DROP SCHEMA ` + schema + ` CASCADE`)
			admin.Close()
		})
		// The store's connections are named, so the database processes
		// that serve them can be found (backendCPU).
		named := base + "&application_name=" + backendName
		if !strings.Contains(base, "?") {
			named = base + "?application_name=" + backendName
		}
		if e.dsn, err = sqlstore.WithSearchPath(named, schema); err != nil {
			return fail(err)
		}
		e.primary = admin
		if replica {
			srv, err := pgcluster.StartReplica(base)
			if err != nil {
				return fail(err)
			}
			cleanup = append(cleanup, func() { srv.Stop() })
			rdsn, err := srv.DSN(e.dsn)
			if err != nil {
				return fail(err)
			}
			e.opts = append(e.opts, sqlstore.Replica(rdsn))
			radmin, err := sql.Open("pgx", strings.Replace(rdsn, "application_name="+backendName, "application_name=loadtest-admin", 1))
			if err != nil {
				return fail(err)
			}
			cleanup = append(cleanup, func() { radmin.Close() })
			e.standby = radmin
		}
	default:
		return nil, fmt.Errorf("unknown engine %q", engine)
	}
	if o.fill != nil {
		if err := o.fill(ctx, e.dsn); err != nil {
			return fail(err)
		}
	}
	var clock parcelgate.Clock = parcelgate.SystemClock{}
	opts := e.opts
	hcfg := httpapi.Config{AdminToken: adminToken, NoJournal: !journal}
	ccfg := console.Config{AdminToken: adminToken}
	if o.serve {
		// As serve --sandbox runs: each request's database work bounded
		// by --db-timeout's default (503 past it), production's data
		// disposable so the operator's resets may run.
		sandbox := new(parcelgate.OffsetClock)
		clock = sandbox
		opts = append(opts, sqlstore.ConnectTimeout(sqlstore.DefaultDBTimeout), sqlstore.DBTimeout(sqlstore.DefaultDBTimeout))
		hcfg.DBTimeout, hcfg.Sandbox, hcfg.OffsetClock = sqlstore.DefaultDBTimeout, true, sandbox
		ccfg.Sandbox, ccfg.OffsetClock = true, sandbox
	}
	db, err := sqlstore.Open(ctx, e.dsn, clock, opts...)
	if err != nil {
		return fail(err)
	}
	e.db = db
	cleanup = append(cleanup, func() { db.Close() })
	if err := db.Migrate(ctx); err != nil {
		return fail(err)
	}
	keys, err := sqlstore.NewTokenKeyService(db).TokenKeys(ctx)
	if err != nil {
		return fail(err)
	}
	log := slog.New(slog.NewJSONHandler(io.Discard, nil))
	handler := httpapi.New(wiring.HTTP(db), auth.NewKeyring(keys), clock, log, hcfg)
	if o.console {
		ccfg.AdminGuard, ccfg.Clock, ccfg.Log = handler.AdminGuard(), clock, log
		handler.Mount(console.Prefix, console.New(wiring.Console(db), ccfg))
	}
	cleanup = append(cleanup, handler.Close)
	if o.engines {
		// serve's --submit-after default, 30s; --deliver-after longer
		// than the generator's open window (seven days, as a warehouse
		// that takes days holds them), so its Submitted orders are not all
		// due the moment the server starts: the engine sweeps as serve's
		// does, with nothing due.
		engCtx, stop := context.WithCancel(ctx)
		var done sync.WaitGroup
		eng := fulfillment.New(sqlstore.NewOrderService(db), clock, log, fulfillment.Config{SubmitAfter: engineSubmitAfter, DeliverAfter: 8 * 24 * time.Hour})
		done.Go(func() { eng.Run(engCtx) })
		done.Go(func() { fulfillment.NewSuppliers(sqlstore.NewDropshipService(db), clock, log, 0).Run(engCtx) })
		cleanup = append(cleanup, func() { stop(); done.Wait() })
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fail(err)
	}
	e.srv = &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	go e.srv.Serve(ln)
	cleanup = append(cleanup, func() {
		// Requests still running finish before the router (and its
		// journal) closes behind them.
		sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if e.srv.Shutdown(sctx) != nil {
			e.srv.Close()
		}
	})
	e.url = "http://" + ln.Addr().String()
	e.client = newClient(256)
	e.op = &adminclient.Client{BaseURL: e.url, Token: adminToken, HTTP: e.client}
	return e, nil
}

func newClient(conns int) *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConns: conns, MaxIdleConnsPerHost: conns, DisableCompression: true}, Timeout: 2 * time.Minute}
}

// call makes one request and decodes a JSON answer into out (when not
// nil); a status other than want is an error.
func (e *env) call(method, path, bearer string, body any, want int, out any) error {
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, e.url+path, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := e.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != want {
		return fmt.Errorf("%s %s: %d, want %d: %.500s", method, path, resp.StatusCode, want, raw)
	}
	if out != nil {
		return json.Unmarshal(raw, out)
	}
	return nil
}

// admin calls the operator API; any 2xx answer is success.
func (e *env) admin(method, path string, body, out any) error {
	return e.op.Call(context.Background(), method, path, body, out)
}

// organization creates an organization of the production environment.
func (e *env) organization(businessID string) error {
	return e.admin("POST", "/admin/v1/organizations", map[string]any{"environment": "production", "businessId": businessID, "name": "Load " + businessID}, nil)
}

// catalog creates a catalog of retailer open to suppliers.
func (e *env) catalog(retailer, id string, typ parcelgate.CatalogType, suppliers ...string) error {
	return e.admin("POST", "/admin/v1/catalogs", map[string]any{"environment": "production", "retailerId": retailer, "catalogExternalId": id, "catalogType": typ, "supplierIds": suppliers}, nil)
}

// ecomToken returns a token of a new service account of businessID.
func (e *env) ecomToken(businessID string, role parcelgate.Role) (string, error) {
	var a struct{ Username, Password string }
	if err := e.admin("POST", "/admin/v1/service-accounts", map[string]any{"environment": "production", "businessId": businessID, "username": "load" + strings.ToLower(rand.Text()[:10]), "roles": []parcelgate.Role{role}}, &a); err != nil {
		return "", err
	}
	req, _ := http.NewRequest("GET", e.url+"/auth/token", nil)
	req.SetBasicAuth(a.Username, a.Password)
	resp, err := e.client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var tok httpapi.EcomToken
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET /auth/token: %d", resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(&tok); err != nil {
		return "", err
	}
	return tok.AccessToken, nil
}

// merchantBID is the merchant of the order modes: it stocks its own
// warehouse WH1.
const merchantBID = "1234567-1"

// merchant creates the merchant bid, its warehouse and products P1..Pn
// with plenty of stock, and returns its token.
func (e *env) merchant(bid string, products int) (string, error) {
	if err := e.organization(bid); err != nil {
		return "", err
	}
	if err := e.catalog(bid, "WH1", parcelgate.CatalogWarehouse, bid); err != nil {
		return "", err
	}
	tok, err := e.ecomToken(bid, parcelgate.RoleMerchant)
	if err != nil {
		return "", err
	}
	var items []any
	for i := 1; i <= products; i++ {
		items = append(items, map[string]any{
			"product":  map[string]any{"externalId": fmt.Sprintf("%s-P%d", bid, i), "descriptions": map[string]any{"en": map[string]any{"name": fmt.Sprintf("Product %d", i)}}},
			"balances": []any{map[string]any{"retailerId": bid, "catalogExternalId": "WH1", "quantity": 1_000_000_000, "wholesalePrice": json.Number("2.50"), "currency": "EUR"}},
		})
	}
	return tok, e.call("PUT", "/ecommerce/v3/inventory", tok, items, http.StatusOK, nil)
}

// orderBody is an order of merchant bid with externalId own and one row
// of each of the products.
func orderBody(bid, own string, products ...int) []byte {
	var rows []any
	for _, p := range products {
		rows = append(rows, map[string]any{"externalProductId": fmt.Sprintf("%s-P%d", bid, p), "externalWarehouseId": "WH1", "quantity": 1})
	}
	raw, _ := json.Marshal(map[string]any{
		"externalId": bid + "-" + own,
		"references": []any{map[string]any{"name": "SO", "value": "SO-" + own}},
		"deliveryAddress": map[string]any{"name": "Maija Meikäläinen", "streetAddress": "Kotikatu 2", "postalCode": "00200",
			"postOffice": "Helsinki", "country": "FI", "telephone": "+358401234567", "email": "maija@example.com"},
		"serviceCode": "2103",
		"rows":        rows,
	})
	return raw
}
