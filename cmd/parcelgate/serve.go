package main

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/auth"
	"github.com/parcelgate/parcelgate/demo"
	"github.com/parcelgate/parcelgate/fulfillment"
	"github.com/parcelgate/parcelgate/httpapi"
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
	submitAfter  time.Duration
	deliverAfter time.Duration
	// delaysGiven is set when either delay came from a flag or the
	// environment; --demo shortens only delays nobody chose.
	delaysGiven bool

	// codeRetention is how long a code lives undelivered (DESIGN §5).
	codeRetention time.Duration

	// journal keeps the last journalSize API calls of each organization.
	journal     bool
	journalSize int
}

// The warehouse's pace under --demo unless chosen: short enough to watch an
// order go from Created to Delivered while reading the README.
const (
	demoSubmitAfter  = 3 * time.Second
	demoDeliverAfter = 10 * time.Second
)

func serveFlags(name string, c *serveConfig) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.StringVar(&c.addr, "addr", "127.0.0.1:8080", "address to listen on")
	fs.StringVar(&c.db, "db", "sqlite:parcelgate.db", "database: sqlite:PATH, memory (gone when the server stops) or a postgres:// URL")
	fs.StringVar(&c.adminToken, "admin-token", "", "bearer token of the operator API (generated and printed when empty)")
	fs.StringVar(&c.publicURL, "public-url", "", "base URL clients reach this server at (default: the URL of each request)")
	fs.StringVar(&c.fulfillment, "fulfillment", "auto", "warehouse engine: auto (orders move on by themselves) or manual (only through the operator API)")
	fs.BoolVar(&c.demo, "demo", false, "seed a demo tenant on an empty database and print its credentials")
	fs.BoolVar(&c.sandboxClock, "sandbox-clock", false, "let POST /admin/v1/clock move the server's time forward")
	fs.StringVar(&c.versions, "versions", strings.Join(parcelgate.DefaultVersions, ","), "gateway API versions served, comma-separated (yyyy-mm)")
	fs.Int64Var(&c.maxBody, "max-body-bytes", 16<<20, "largest request body accepted (413 beyond)")
	fs.StringVar(&c.logLevel, "log-level", "info", "debug, info, warn or error")
	fs.DurationVar(&c.submitAfter, "submit-after", 30*time.Second, "--fulfillment auto: how long an order stays Created before the warehouse takes it (Submitted)")
	fs.DurationVar(&c.deliverAfter, "deliver-after", 2*time.Minute, "--fulfillment auto: how long the warehouse takes to pick and pack a Submitted order (Delivered)")
	fs.Float64Var(&c.rateLimit, "rate-limit", 0, "API requests per second per credential, bursts of twice that (0: no limit)")
	fs.DurationVar(&c.codeRetention, "code-retention", parcelgate.DefaultCodeRetention, "how long a sending or errand code stays active when its shipment is not delivered first")
	fs.BoolVar(&c.journal, "journal", true, "keep a request journal: the last API calls of each organization, secrets redacted (GET /admin/v1/requests)")
	fs.IntVar(&c.journalSize, "journal-size", parcelgate.JournalPerTenant, "how many API calls the request journal keeps per organization")
	return fs
}

func parseServe(name string, args []string, stderr io.Writer) (*serveConfig, error) {
	var c serveConfig
	fs := serveFlags(name, &c)
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	if err := envDefaults(fs); err != nil {
		return nil, err
	}
	if c.journalSize < 1 || c.journalSize > 100000 {
		return nil, fmt.Errorf("--journal-size must be 1-100000, not %d", c.journalSize)
	}
	if c.codeRetention <= 0 {
		return nil, fmt.Errorf("--code-retention must be positive, not %s", c.codeRetention)
	}
	if c.fulfillment != "auto" && c.fulfillment != "manual" {
		return nil, fmt.Errorf("--fulfillment must be auto or manual, not %q", c.fulfillment)
	}
	if c.submitAfter < 0 || c.deliverAfter < 0 {
		return nil, fmt.Errorf("--submit-after and --deliver-after must not be negative")
	}
	fs.Visit(func(f *flag.Flag) {
		c.delaysGiven = c.delaysGiven || f.Name == "submit-after" || f.Name == "deliver-after"
	})
	if c.demo && !c.delaysGiven {
		c.submitAfter, c.deliverAfter = demoSubmitAfter, demoDeliverAfter
	}
	for v := range strings.SplitSeq(c.versions, ",") {
		if !parcelgate.ValidVersion(strings.TrimSpace(v)) {
			return nil, fmt.Errorf("--versions: %q is not a yyyy-mm version", v)
		}
	}
	return &c, nil
}

func (c *serveConfig) versionList() []string {
	var out []string
	for v := range strings.SplitSeq(c.versions, ",") {
		out = append(out, strings.TrimSpace(v))
	}
	return out
}

func newLogger(w io.Writer, level string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level: %w", err)
	}
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: l})), nil
}

func migrate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, err := parseServe("migrate", args, stderr)
	if err != nil {
		return err
	}
	db, err := sqlstore.Open(ctx, c.db, nil)
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

func serve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, err := parseServe("serve", args, stderr)
	if err != nil {
		return err
	}
	log, err := newLogger(stderr, c.logLevel)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	var clock parcelgate.Clock = parcelgate.SystemClock{}
	var sandbox *parcelgate.SandboxClock
	if c.sandboxClock {
		sandbox = new(parcelgate.SandboxClock)
		clock = sandbox
	}
	db, err := sqlstore.Open(ctx, c.db, clock)
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetCodeRetention(c.codeRetention)
	if err := db.Migrate(ctx); err != nil {
		return err
	}
	keys, err := db.TokenKeys(ctx)
	if err != nil {
		return fmt.Errorf("token keys: %w", err)
	}
	if c.adminToken == "" {
		c.adminToken = rand.Text()
		fmt.Fprintf(stdout, "operator API token (generated; set --admin-token or PARCELGATE_ADMIN_TOKEN to choose one): %s\n", c.adminToken)
	}
	srv := httpapi.New(db, auth.NewKeyring(keys), clock, log, httpapi.Config{
		PublicURL: c.publicURL, Versions: c.versionList(), AdminToken: c.adminToken,
		SandboxClock: sandbox, MaxBodyBytes: c.maxBody, RateLimit: c.rateLimit,
		NoJournal: !c.journal, JournalPerTenant: c.journalSize,
	})
	// The journal's last calls are written before the database closes.
	defer srv.Close()

	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return err
	}
	base := c.publicURL
	if base == "" {
		base = "http://" + ln.Addr().String()
	}
	if c.demo {
		seeded, err := demo.Seed(ctx, db, c.versionList())
		if err != nil {
			ln.Close()
			return err
		}
		if !seeded {
			log.Info("demo tenant already seeded; credentials unchanged")
		}
		demo.PrintWelcome(stdout, base)
	}

	go reloadKeysEvery(ctx, srv, time.Minute, log)

	// The warehouse engine runs on every instance under auto; the store's
	// conditional moves keep each order's steps exactly once (DESIGN §7).
	engineCtx, stopEngine := context.WithCancel(ctx)
	engineDone := make(chan struct{})
	if c.fulfillment == "auto" {
		eng := fulfillment.New(db, clock, log, fulfillment.Config{SubmitAfter: c.submitAfter, DeliverAfter: c.deliverAfter})
		srv.Registry().MustRegister(eng.Collectors()...)
		go func() { defer close(engineDone); eng.Run(engineCtx) }()
	} else {
		close(engineDone)
	}
	// Stop the engine, and let a move in progress end, before the database
	// closes.
	defer func() { stopEngine(); <-engineDone }()

	hs := &http.Server{
		Handler:           srv,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      5 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	log.Info("serving", "addr", ln.Addr().String(), "db", db.Dialect(), "fulfillment", c.fulfillment, "submit_after", c.submitAfter, "deliver_after", c.deliverAfter, "sandbox_clock", c.sandboxClock)

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
