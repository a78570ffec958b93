package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/auth"
	"github.com/parcelgate/parcelgate/console"
	"github.com/parcelgate/parcelgate/demo"
	"github.com/parcelgate/parcelgate/fulfillment"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/adminguard"
	"github.com/parcelgate/parcelgate/internal/wiring"
	"github.com/parcelgate/parcelgate/sqlstore"
)

type serveConfig struct {
	addr         string
	db           string
	adminToken   string
	publicURL    string
	fulfillment  string
	demo         bool
	sandboxClock bool
	versions     string
	maxBody      int64
	logLevel     string
	rateLimit    float64
	// dbTimeout is each request's deadline for its database work, and
	// how long opening a PostgreSQL connection may take.
	dbTimeout time.Duration
	// dbMaxConns bounds the instance's PostgreSQL connections (0: the
	// store's default).
	dbMaxConns int
	// dbReplicas are read replicas' URLs; dbReplicaMaxLag how far behind
	// one may be and serve; dbPooler: a pooler in transaction mode is in
	// front of the database (sqlstore.Pooler).
	dbReplicas      []string
	dbReplicaMaxLag time.Duration
	dbPooler        bool
	submitAfter     time.Duration
	deliverAfter    time.Duration
	// delaysGiven is set when either delay came from a flag or the
	// environment; --demo shortens only delays nobody chose.
	delaysGiven bool

	// codeRetention is how long a code lives undelivered (decisions §5).
	codeRetention time.Duration
	// activeCodesMaxAge is how long /metrics keeps its count of active
	// codes (decisions §43).
	activeCodesMaxAge time.Duration

	// journal keeps the last journalSize API calls of each organization.
	journal     bool
	journalSize int

	// sandbox declares every environment's data disposable (decisions
	// §21); sandboxClock is its older name, and sets it too.
	sandbox bool
	// trustedProxies are the networks whose X-Forwarded-For is believed.
	trustedProxies string
	proxies        []netip.Prefix
}

// The warehouse's pace under --demo unless chosen: short enough to watch an
// order go from Created to Delivered while reading the README.
const (
	demoSubmitAfter  = 3 * time.Second
	demoDeliverAfter = 10 * time.Second
)

// serveFlags declares the flags of serve on fs.
func serveFlags(fs *pflag.FlagSet, c *serveConfig) {
	fs.StringVar(&c.addr, "addr", "127.0.0.1:8080", "address to listen on")
	dbFlag(fs, &c.db)
	fs.StringVar(&c.adminToken, "admin-token", "", "bearer token of the operator API (generated and printed when empty)")
	fs.StringVar(&c.publicURL, "public-url", "", "base URL clients reach this server at (default: the URL of each request)")
	fs.StringVar(&c.fulfillment, "fulfillment", "auto", "warehouse engine: auto (orders move on by themselves) or manual (only through the operator API)")
	fs.BoolVar(&c.demo, "demo", false, "seed a demo tenant on an empty database and print its credentials")
	fs.BoolVar(&c.sandbox, "sandbox", false, "declare every environment's data disposable (an integrator's local or CI server): production too may be reset, restored, faulted and have its clock moved; without it only the test environment may (--demo and --db memory imply it)")
	fs.BoolVar(&c.sandboxClock, "sandbox-clock", false, "the older name of --sandbox")
	fs.StringVar(&c.trustedProxies, "trusted-proxies", "", "comma-separated networks (CIDR) of the reverse proxies in front; only their X-Forwarded-For is believed when wrong admin tokens are counted per client address")
	fs.StringVar(&c.versions, "versions", strings.Join(parcelgate.DefaultVersions, ","), "gateway API versions served, comma-separated (yyyy-mm)")
	fs.Int64Var(&c.maxBody, "max-body-bytes", 16<<20, "largest request body accepted (413 beyond)")
	fs.StringVar(&c.logLevel, "log-level", "info", "debug, info, warn or error")
	fs.DurationVar(&c.submitAfter, "submit-after", 30*time.Second, "--fulfillment auto: how long an order stays Created before the warehouse takes it (Submitted); --demo: 3s")
	fs.DurationVar(&c.deliverAfter, "deliver-after", 2*time.Minute, "--fulfillment auto: how long the warehouse takes to pick and pack a Submitted order (Delivered); --demo: 10s")
	fs.Float64Var(&c.rateLimit, "rate-limit", 0, "API requests per second per credential, bursts of twice that (0: no limit)")
	fs.DurationVar(&c.dbTimeout, "db-timeout", 5*time.Second, "longest a request waits for the database (and a PostgreSQL connection may take to open) before it is answered 503")
	fs.IntVar(&c.dbMaxConns, "db-max-conns", 0, fmt.Sprintf("most PostgreSQL connections this instance opens (0: four per CPU, here %d); a few per database core do the most work", sqlstore.DefaultMaxConns()))
	fs.StringArrayVar(&c.dbReplicas, "db-replica", nil, "a PostgreSQL streaming replica (postgres:// URL) that serves reads; repeat for several (in the environment: URLs separated by spaces)")
	fs.DurationVar(&c.dbReplicaMaxLag, "db-replica-max-lag", sqlstore.DefaultReplicaMaxLag, "a replica further behind the primary than this is skipped (its reads go to the primary) until it catches up")
	fs.BoolVar(&c.dbPooler, "db-pooler", false, "the database URLs reach PostgreSQL through a pooler in transaction mode (PgBouncer pool_mode = transaction): keep no prepared statement across transactions")
	fs.DurationVar(&c.codeRetention, "code-retention", parcelgate.DefaultCodeRetention, "how long a sending or errand code stays active when its shipment is not delivered first")
	fs.DurationVar(&c.activeCodesMaxAge, "active-codes-max-age", time.Minute, "how long /metrics keeps its count of each environment's active codes (parcelgate_active_codes) before a scrape counts again; 0 counts on every scrape")
	fs.BoolVar(&c.journal, "journal", true, "keep a request journal: the last API calls of each organization, secrets redacted (GET /admin/v1/requests)")
	fs.IntVar(&c.journalSize, "journal-size", parcelgate.JournalPerTenant, "how many API calls the request journal keeps per organization")
	fs.VisitAll(func(f *pflag.Flag) { envFlag(fs, f.Name) })
}

func dbFlag(fs *pflag.FlagSet, db *string) {
	fs.StringVar(db, "db", "sqlite:parcelgate.db", "database: sqlite:PATH, memory (gone when the server stops) or a postgres:// URL")
}

// check validates the flags once they are all set, the environment's
// included; a bad value is a usage error.
func (c *serveConfig) check(fs *pflag.FlagSet) error {
	if c.dbTimeout <= 0 {
		return usagef("--db-timeout must be positive, not %s", c.dbTimeout)
	}
	if c.dbMaxConns < 0 || c.dbMaxConns > 10000 {
		return usagef("--db-max-conns must be 0 (the default) to 10000, not %d", c.dbMaxConns)
	}
	var replicas []string
	for _, r := range c.dbReplicas {
		replicas = append(replicas, strings.Fields(r)...)
	}
	c.dbReplicas = replicas
	for _, r := range c.dbReplicas {
		if !strings.HasPrefix(r, "postgres://") && !strings.HasPrefix(r, "postgresql://") {
			return usagef("--db-replica must be a postgres:// URL")
		}
	}
	if len(c.dbReplicas) > 0 && !strings.HasPrefix(c.db, "postgres://") && !strings.HasPrefix(c.db, "postgresql://") {
		return usagef("--db-replica needs a PostgreSQL --db")
	}
	if c.dbReplicaMaxLag <= 0 {
		return usagef("--db-replica-max-lag must be positive, not %s", c.dbReplicaMaxLag)
	}
	if c.journalSize < 1 || c.journalSize > 100000 {
		return usagef("--journal-size must be 1-100000, not %d", c.journalSize)
	}
	if c.codeRetention <= 0 {
		return usagef("--code-retention must be positive, not %s", c.codeRetention)
	}
	if c.activeCodesMaxAge < 0 {
		return usagef("--active-codes-max-age must be 0 or more, not %s", c.activeCodesMaxAge)
	}
	if c.fulfillment != "auto" && c.fulfillment != "manual" {
		return usagef("--fulfillment must be auto or manual, not %q", c.fulfillment)
	}
	if c.submitAfter < 0 || c.deliverAfter < 0 {
		return usagef("--submit-after and --deliver-after must not be negative")
	}
	if _, err := newLogger(io.Discard, c.logLevel); err != nil {
		return usageError{err}
	}
	// A delay set on the command line or in the environment is kept under
	// --demo; --demo shortens only delays nobody chose.
	for _, name := range []string{"submit-after", "deliver-after"} {
		_, inEnv := os.LookupEnv(envName(name))
		c.delaysGiven = c.delaysGiven || fs.Changed(name) || inEnv
	}
	proxies, err := parseProxies(c.trustedProxies)
	if err != nil {
		return err
	}
	c.proxies = proxies
	// A demo or a memory database holds nothing worth keeping.
	c.sandbox = c.sandbox || c.sandboxClock || c.demo || c.db == "memory" || c.db == "sqlite::memory:"
	if c.demo && !c.delaysGiven {
		c.submitAfter, c.deliverAfter = demoSubmitAfter, demoDeliverAfter
	}
	for v := range strings.SplitSeq(c.versions, ",") {
		if !parcelgate.ValidVersion(strings.TrimSpace(v)) {
			return usagef("--versions: %q is not a yyyy-mm version", v)
		}
	}
	return nil
}

func serveCommand() *cobra.Command {
	var c serveConfig
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the server (the default command)",
		Long: `Run the server: every surface of the interface, the operator API, /docs,
/healthz, /readyz and /metrics on one address, and the web console at
/console: see orders, products, stock, shipments and the request journal,
create test orders and products, and move orders through the warehouse's
statuses (integrators in the test environment). GET / points to all of
them. It binds the address first, then opens (and migrates) the database.
With --demo it seeds a demo tenant on an empty database and prints its
credentials and first commands.

The operator controls (reset, snapshot restore, faults, clock moves) always
name their environment. The test environment's data is disposable on any
server; production's only with --sandbox (implied by --demo and --db
memory), so a production deployment started without it refuses them.

Each flag can also be set as PARCELGATE_<NAME>, e.g. PARCELGATE_DB.`,
		Args: rangeArgs(0, 0, "no arguments, only flags"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := c.check(cmd.Flags()); err != nil {
				return err
			}
			return serve(cmd.Context(), &c, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	serveFlags(cmd.Flags(), &c)
	return cmd
}

func migrateCommand() *cobra.Command {
	var db string
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Apply the database migrations and exit",
		Long: `Apply the database migrations and exit. serve also applies them at start;
run migrate first to upgrade the schema before starting new instances.
Migrations run under a lock, so concurrent runs are safe.

--db can also be set as PARCELGATE_DB.`,
		Args: rangeArgs(0, 0, "no arguments, only --db"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return migrate(cmd.Context(), db, cmd.OutOrStdout())
		},
	}
	dbFlag(cmd.Flags(), &db)
	envFlag(cmd.Flags(), "db")
	return cmd
}

func (c *serveConfig) versionList() []string {
	var out []string
	for v := range strings.SplitSeq(c.versions, ",") {
		out = append(out, strings.TrimSpace(v))
	}
	return out
}

// parseProxies reads --trusted-proxies: CIDR networks or single
// addresses, comma-separated.
func parseProxies(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for v := range strings.SplitSeq(s, ",") {
		if v = strings.TrimSpace(v); v == "" {
			continue
		}
		p, err := netip.ParsePrefix(v)
		if err != nil {
			a, aerr := netip.ParseAddr(v)
			if aerr != nil {
				return nil, usagef("--trusted-proxies: %q is not a network such as 10.0.0.0/8 or an address", v)
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

func newLogger(w io.Writer, level string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level: %w", err)
	}
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: l, ReplaceAttr: readableDuration})), nil
}

// readableDuration writes every duration of the logs as text ("1.2ms",
// "10s"), which people read, where the JSON handler would write
// nanoseconds.
func readableDuration(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() == slog.KindDuration {
		return slog.String(a.Key, a.Value.Duration().String())
	}
	return a
}

func migrate(ctx context.Context, dsn string, stdout io.Writer) error {
	db, err := sqlstore.Open(ctx, dsn, nil)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "migrated %s database\n", db.Dialect())
	return nil
}

func serve(ctx context.Context, c *serveConfig, stdout, stderr io.Writer) error {
	log, err := newLogger(stderr, c.logLevel)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	// Bind first: with the address taken, fail before a database is created
	// or seeded and before an admin token is printed.
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return err
	}
	defer ln.Close()

	// Every server has a clock per environment that may run ahead: the
	// test environment's may be moved on any server, production's only
	// under --sandbox (decisions §21).
	sandbox := new(parcelgate.OffsetClock)
	var clock parcelgate.Clock = sandbox
	opts := []sqlstore.Option{sqlstore.CodeRetention(c.codeRetention), sqlstore.ConnectTimeout(c.dbTimeout), sqlstore.DBTimeout(c.dbTimeout), sqlstore.MaxConns(c.dbMaxConns), sqlstore.ReplicaMaxLag(c.dbReplicaMaxLag)}
	for _, r := range c.dbReplicas {
		opts = append(opts, sqlstore.Replica(r))
	}
	if c.dbPooler {
		opts = append(opts, sqlstore.Pooler())
	}
	db, err := sqlstore.Open(ctx, c.db, clock, opts...)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		return err
	}
	if db.AutovacuumOff(ctx) {
		// decisions §55: plans at size need current statistics.
		log.Warn("PostgreSQL runs with autovacuum off: run ANALYZE (and VACUUM) after big loads, or the planner plans growing tables from stale statistics")
	}
	if off := sandbox.Offset(parcelgate.Production); off > 0 && !c.sandbox {
		// Production's clock was moved on a --sandbox server using this
		// database. Time never goes back (tokens, stamps and lockouts
		// assume it), so the offset stays; the operator must know.
		log.Warn("production clock runs ahead of the wall clock: it was moved on a --sandbox server using this database, and time never goes back", "offset", off.String())
	}
	keys, err := sqlstore.NewTokenKeyService(db).TokenKeys(ctx)
	if err != nil {
		return fmt.Errorf("token keys: %w", err)
	}
	// Without --admin-token, the token generated at the first start on
	// this database is kept (hashed) and opens the operator API at every
	// later start; it is printed only when it is made.
	var adminHash []byte
	if c.adminToken == "" {
		token := rand.Text()
		kept, err := sqlstore.NewAdminTokenService(db).Keep(ctx, adminguard.Hash(token))
		if err != nil {
			return fmt.Errorf("admin token: %w", err)
		}
		adminHash = kept
		if bytes.Equal(kept, adminguard.Hash(token)) {
			fmt.Fprintf(stdout, "operator API token (generated and kept for this database; set --admin-token or PARCELGATE_ADMIN_TOKEN to choose one): %s\n", token)
		} else {
			fmt.Fprintf(stdout, "operator API token: the one generated and printed at this database's first start (set --admin-token or PARCELGATE_ADMIN_TOKEN to choose one)\n")
		}
	}
	srv := httpapi.New(wiring.HTTP(db), auth.NewKeyring(keys), clock, log, httpapi.Config{
		PublicURL: c.publicURL, Versions: c.versionList(), AdminToken: c.adminToken, AdminTokenHash: adminHash,
		OffsetClock: sandbox, Sandbox: c.sandbox, TrustedProxies: c.proxies, MaxBodyBytes: c.maxBody, RateLimit: c.rateLimit, DBTimeout: c.dbTimeout,
		NoJournal: !c.journal, JournalPerTenant: c.journalSize, Replicas: replicaStates(db), ActiveCodesMaxAge: c.activeCodesMaxAge,
	})
	srv.Mount(console.Prefix, console.New(wiring.Console(db), console.Config{
		AdminToken: c.adminToken, AdminGuard: srv.AdminGuard(), Clock: clock, OffsetClock: sandbox, Sandbox: c.sandbox, Versions: c.versionList(), Log: log,
		ManualFulfillment: c.fulfillment == "manual", SubmitAfter: c.submitAfter, DeliverAfter: c.deliverAfter,
	}))
	// The journal's last calls are written before the database closes.
	defer srv.Close()

	base := c.publicURL
	if base == "" {
		base = "http://" + ln.Addr().String()
	}
	if c.demo {
		seeded, err := demo.Seed(ctx, wiring.Demo(db), c.versionList())
		if err != nil {
			return err
		}
		if !seeded {
			log.Info("demo tenant already seeded; credentials unchanged")
		}
		demo.PrintWelcome(stdout, base, seeded)
		fmt.Fprintf(stdout, "Web console: %s%s/ — sign in with username %s and password %s, or as operator with the admin token\n\n", base, console.Prefix, demo.Tenants[0].Username, demo.Tenants[0].Password)
	} else {
		fmt.Fprintf(stdout, "Web console: %s%s/ (sign in with a service account, or as operator with the admin token)\n", base, console.Prefix)
	}

	go reloadKeysEvery(ctx, srv, time.Minute, log)

	// The warehouse engine runs on every instance under auto; the store's
	// conditional moves keep each order's steps exactly once (decisions §7).
	engineCtx, stopEngine := context.WithCancel(ctx)
	engineDone := make(chan struct{})
	if c.fulfillment == "auto" {
		eng := fulfillment.New(sqlstore.NewOrderService(db), clock, log, fulfillment.Config{SubmitAfter: c.submitAfter, DeliverAfter: c.deliverAfter})
		srv.Registry().MustRegister(eng.Collectors()...)
		go func() { defer close(engineDone); eng.Run(engineCtx) }()
	} else {
		close(engineDone)
	}
	// The automatic supplier runs on every instance: it confirms only the
	// shipments of organizations the operator switched it on for
	// (decisions §34), each once (conditional moves, as the engine's).
	suppliersDone := make(chan struct{})
	go func() {
		defer close(suppliersDone)
		fulfillment.NewSuppliers(sqlstore.NewDropshipService(db), clock, log, 0).Run(engineCtx)
	}()
	// Operator jobs (decisions §54) whose instance stopped are taken over
	// by any instance once their lease runs out: it looks for jobs started
	// elsewhere every 10 s, shorter than a lease (decisions §70).
	jobsDone := make(chan struct{})
	go func() { defer close(jobsDone); db.RunJobs(engineCtx, 10*time.Second) }()
	// Stop the engine, the automatic supplier and the job runner, and let
	// a move in progress end, before the database closes.
	defer func() { stopEngine(); <-engineDone; <-suppliersDone; <-jobsDone }()

	hs := &http.Server{
		Handler:           srv,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      5 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    srv.HeaderReadLimit(), // the server answers 431 in JSON below this
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	log.Info("serving", "addr", ln.Addr().String(), "db", db.Dialect(), "fulfillment", c.fulfillment, "submit_after", c.submitAfter.String(), "deliver_after", c.deliverAfter.String(), "code_retention", c.codeRetention.String(), "sandbox", c.sandbox)

	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// replicaStates reports db's read replicas to /readyz and /metrics; nil
// without any.
func replicaStates(db *sqlstore.DB) func() []httpapi.ReplicaState {
	if db.Replicas() == nil {
		return nil
	}
	return func() []httpapi.ReplicaState {
		var out []httpapi.ReplicaState
		for _, r := range db.Replicas() {
			out = append(out, httpapi.ReplicaState{Name: r.Name, State: r.State, Lag: r.Lag, Reads: r.Reads, Failures: r.Failures})
		}
		return out
	}
}

// reloadKeysEvery keeps the keyring in step with the database, so a key
// rotated on another instance is used here within one interval.
func reloadKeysEvery(ctx context.Context, srv *httpapi.Server, every time.Duration, log *slog.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := srv.ReloadKeys(ctx); err != nil && ctx.Err() == nil {
				log.Warn("reloading token keys", "err", err)
			}
		}
	}
}
