// Package inproc starts a parcelgate server inside the process, on a
// local address: the full router (httpapi) over a store, with the token
// keys the store holds. It is the one starter of the in-process test
// servers: parcelgatetest's (integrators' tests, the SDK's examples, the
// CLI's client tests) and internal/tools/apitest's (this repository's HTTP
// tests). The load test keeps a plain http.Server of its own: httptest's
// connection tracking would weigh on what it measures.
package inproc

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/auth"
	"github.com/parcelgate/parcelgate/demo"
	"github.com/parcelgate/parcelgate/fulfillment"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/wiring"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// Config says what to start.
type Config struct {
	// DB is the store to serve, left open by Close. When nil, Start opens
	// DSN, migrates it and Close closes it.
	DB *sqlstore.DB
	// DSN is the database Start opens when DB is nil; "" is "memory".
	DSN string
	// Clock is the server's (and the store's, when Start opens it) clock;
	// nil is a new environment clock, which HTTP.OffsetClock then gets too.
	// With DB, give the clock DB was opened with.
	Clock parcelgate.Clock
	// Seed seeds the demo tenants (demo.Seed) with the default versions.
	Seed bool
	// HTTP is the router's configuration.
	HTTP httpapi.Config
	// Log receives the server's log; nil discards it.
	Log *slog.Logger
	// Warehouse, when set, runs the warehouse engine with it until Close.
	Warehouse *fulfillment.Config
}

// Server is a running server. Close it when done.
type Server struct {
	// URL is the base URL of every surface, e.g. http://127.0.0.1:40123.
	URL     string
	DB      *sqlstore.DB
	Clock   parcelgate.Clock
	Handler *httpapi.Server
	HTTP    *httptest.Server

	closers []func() // run last first
}

// Start starts a server as cfg says. On failure what it had started is
// stopped again.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	s := &Server{DB: cfg.DB, Clock: cfg.Clock}
	if s.Clock == nil {
		clock := new(parcelgate.OffsetClock)
		s.Clock, cfg.HTTP.OffsetClock = clock, clock
	}
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	fail := func(err error) (*Server, error) {
		s.Close()
		return nil, err
	}
	if s.DB == nil {
		dsn := cfg.DSN
		if dsn == "" {
			dsn = "memory"
		}
		db, err := sqlstore.Open(ctx, dsn, s.Clock)
		if err != nil {
			return nil, err
		}
		s.DB = db
		s.closers = append(s.closers, func() { db.Close() })
		if err := db.Migrate(ctx); err != nil {
			return fail(err)
		}
	}
	keys, err := sqlstore.NewTokenKeyService(s.DB).TokenKeys(ctx)
	if err != nil {
		return fail(err)
	}
	if cfg.Seed {
		if _, err := demo.Seed(ctx, wiring.Demo(s.DB), parcelgate.DefaultVersions); err != nil {
			return fail(err)
		}
	}
	s.Handler = httpapi.New(wiring.HTTP(s.DB), auth.NewKeyring(keys), s.Clock, log, cfg.HTTP)
	s.closers = append(s.closers, s.Handler.Close)
	s.HTTP = httptest.NewServer(s.Handler)
	s.closers = append(s.closers, s.HTTP.Close)
	s.URL = s.HTTP.URL
	if cfg.Warehouse != nil {
		eng := fulfillment.New(sqlstore.NewOrderService(s.DB), s.Clock, log, *cfg.Warehouse)
		engineCtx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); eng.Run(engineCtx) }()
		s.closers = append(s.closers, func() { cancel(); <-done })
	}
	return s, nil
}

// Close stops the server: the warehouse engine, the listener, the router,
// then the store when Start opened it.
func (s *Server) Close() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
	s.closers = nil
}
