// Package httpapi serves parcelgate's HTTP surfaces: the two token services,
// the gateway APIs (sending codes, shipment data, errand codes), the ecom API
// (warehouse orders, products, stock, catalogs) and the operator API, on one
// router. Each surface has its own file and its own error shape.
package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/auth"
	"github.com/parcelgate/parcelgate/internal/adminguard"
)

// Services are what the server needs from storage: one field per root
// service it uses, each a small interface a test can replace, and the
// operational calls. internal/wiring fills them from sqlstore's services;
// every field but Tracking and SupplierShipments must be set.
type Services struct {
	Organizations OrganizationStore
	Credentials   parcelgate.CredentialService
	Catalogs      parcelgate.CatalogService
	Orders        OrderWriter
	// OrderAnswers are the order reads answered as encoded bytes (the
	// most frequent reads; see answers.go).
	OrderAnswers OrderAnswers
	Shipments    ShipmentStore
	Codes        CodeStore
	Inventory    InventoryStore
	Controls     parcelgate.ControlService
	Faults       parcelgate.FaultService
	Journal      parcelgate.JournalService
	TokenKeys    TokenKeyStore
	Database     Database
	// Tracking is the Tracking API's store (decisions §30); nil leaves the
	// Tracking API unserved.
	Tracking parcelgate.TrackingService
	// PickupPoints finds pick-up points for every surface and decision
	// that reads them (decisions §32): the provider's network, the same
	// for every tenant, held in memory (package pickup). Required.
	PickupPoints parcelgate.PickupPointFinder
	// Estimates is the delivery estimate model of the estimation routes,
	// the pick-up point estimates and the tracking journeys (decisions
	// §19). Required.
	Estimates parcelgate.DeliveryEstimator
	// SupplierShipments serve dropshipping's Shipments API v3 (decisions
	// §34); nil leaves its routes out.
	SupplierShipments parcelgate.DropshipService
}

// OrderAnswers are FindOrder and ListOrders as an encoding encodes each
// order, reusing the encoded answer while the stored order is unchanged.
type OrderAnswers interface {
	// FindOrderAnswer is FindOrder as enc encodes it.
	FindOrderAnswer(ctx context.Context, c *parcelgate.Caller, id string, enc parcelgate.OrderEncoding) ([]byte, error)
	// ListOrderAnswers is ListOrders with each order as enc encodes it.
	ListOrderAnswers(ctx context.Context, c *parcelgate.Caller, q parcelgate.OrderQuery, p parcelgate.PageRequest, enc parcelgate.OrderEncoding) (parcelgate.Page[[]byte], error)
}

// TokenKeyStore keeps the keys tokens are signed with, shared by every
// instance.
type TokenKeyStore interface {
	TokenKeys(ctx context.Context) ([]auth.Key, error)
	RotateTokenKey(ctx context.Context, c *parcelgate.Caller) (uint32, error)
}

// Database is the health of the database behind the services.
type Database interface {
	Ping(ctx context.Context) error
	// Unavailable reports whether err says the database is out of reach
	// or did not answer within the request's deadline (answered 503).
	Unavailable(err error) bool
}

// Config holds the settings of a Server.
type Config struct {
	// PublicURL is the base URL clients reach the server at; the gateway
	// token's provider_fi.targets are built from it. Empty means the URL of
	// each token request.
	PublicURL string
	// Versions are the gateway API versions served (decisions §2).
	Versions []string
	// AdminToken opens the operator API.
	AdminToken string
	// AdminTokenHash, when set, opens it instead: the adminguard.Hash of
	// a token generated at an earlier start, of which only the hash is
	// kept.
	AdminTokenHash []byte
	// OffsetClock is the server's clock, when environments' clocks may
	// be moved (the test environment's on any server, production's only
	// with Sandbox).
	OffsetClock *parcelgate.OffsetClock
	// Sandbox is set when the server runs with --sandbox (decisions §21):
	// production's data is disposable too, so resets, restores, faults
	// and clock moves may act on it. Without it they act only on the
	// test environment.
	Sandbox bool
	// TrustedProxies are the networks whose X-Forwarded-For is believed
	// when the failures of admin-token guesses are counted by client
	// address.
	TrustedProxies []netip.Prefix
	// MaxBodyBytes caps request bodies (413 beyond).
	MaxBodyBytes int64
	// MaxHeaderBytes caps the request line and headers (431 beyond, in the
	// JSON error shape of the path's surface); default 64 KiB. The
	// http.Server in front must read more than this (HeaderReadLimit), or
	// it answers 431 itself, in plain text, before the request gets here.
	MaxHeaderBytes int
	// RateLimit is the requests per second each credential may make to the
	// APIs, with bursts of twice that; 0 turns the limit off.
	RateLimit float64
	// NoJournal turns the request journal off.
	NoJournal bool
	// JournalPerTenant is how many calls the journal keeps per
	// organization; 0 means parcelgate.JournalPerTenant.
	JournalPerTenant int
	// DBTimeout is the deadline of each request's database work (serve
	// --db-timeout): a request the database does not answer within it is
	// answered 503 instead of waiting on. 0 sets none.
	DBTimeout time.Duration
	// ActiveCodesMaxAge is how long the parcelgate_active_codes figure of
	// /metrics is kept before a scrape counts again (codemetric.go); 0
	// counts on every scrape.
	ActiveCodesMaxAge time.Duration
	// Replicas reports the database's read replicas for /readyz and
	// /metrics; nil when there are none.
	Replicas func() []ReplicaState
}

// Server is the HTTP API. Build it with New.
type Server struct {
	orgs         OrganizationStore
	credentials  parcelgate.CredentialService
	catalogs     parcelgate.CatalogService
	orders       OrderWriter
	answers      OrderAnswers
	shipments    ShipmentStore
	codes        CodeStore
	inventory    InventoryStore
	controls     parcelgate.ControlService
	faults       parcelgate.FaultService
	journalStore parcelgate.JournalService
	tokenKeys    TokenKeyStore
	database     Database
	tracking     parcelgate.TrackingService
	// supplierShipments is dropshipping's Shipments API v3 (decisions §34).
	supplierShipments parcelgate.DropshipService

	keys   *auth.Keyring
	clock  parcelgate.Clock
	log    *slog.Logger
	cfg    Config
	mux    *http.ServeMux
	reg    *prometheus.Registry
	metric metrics

	limit         *limiter
	guard         *adminguard.Guard
	faultCache    faultCache
	journal       *journal // nil when off
	patterns      []string
	mounts        []mount
	lastKeyReload atomic.Int64 // unix nanoseconds
	handler       http.Handler
	gzip          func(http.Handler) http.HandlerFunc
	pickups       parcelgate.PickupPointFinder
	estimates     parcelgate.DeliveryEstimator
}

// New returns a server over the services of svc. keys must hold the
// current token keys (svc.TokenKeys').
func New(svc Services, keys *auth.Keyring, clock parcelgate.Clock, log *slog.Logger, cfg Config) *Server {
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = 16 << 20
	}
	if cfg.MaxHeaderBytes <= 0 {
		cfg.MaxHeaderBytes = 64 << 10
	}
	if clock == nil {
		clock = parcelgate.SystemClock{}
	}
	if len(cfg.Versions) == 0 {
		cfg.Versions = parcelgate.DefaultVersions
	}
	cfg.PublicURL = strings.TrimRight(cfg.PublicURL, "/")
	s := &Server{
		orgs: svc.Organizations, credentials: svc.Credentials, catalogs: svc.Catalogs,
		orders: svc.Orders, answers: svc.OrderAnswers, shipments: svc.Shipments, codes: svc.Codes,
		inventory: svc.Inventory, controls: svc.Controls, faults: svc.Faults, journalStore: svc.Journal,
		tokenKeys: svc.TokenKeys, database: svc.Database, tracking: svc.Tracking, pickups: svc.PickupPoints, estimates: svc.Estimates, supplierShipments: svc.SupplierShipments,
		keys: keys, clock: clock, log: log, cfg: cfg, mux: http.NewServeMux(), limit: newLimiter(cfg.RateLimit), gzip: newGzip()}
	s.reg = prometheus.NewRegistry()
	s.metric = newMetrics(s.reg)
	if cfg.Replicas != nil {
		s.reg.MustRegister(newReplicaCollector(cfg.Replicas))
	}
	if cfg.AdminTokenHash != nil {
		s.guard = adminguard.NewHashed(cfg.AdminTokenHash, cfg.TrustedProxies, log)
	} else {
		s.guard = adminguard.New(cfg.AdminToken, cfg.TrustedProxies, log)
	}
	s.reg.MustRegister(s.guard.Collectors()...)
	if !cfg.NoJournal {
		if cfg.JournalPerTenant <= 0 {
			s.cfg.JournalPerTenant = parcelgate.JournalPerTenant
		}
		s.journal = newJournal(svc.Journal, log, s.cfg.JournalPerTenant, s.reg)
	}
	s.routes()
	s.handler = s.middleware(s.mux)
	return s
}

// HeaderReadLimit is the MaxHeaderBytes to give the http.Server in front:
// four times the server's own cap, so headers a little over the cap are
// read and answered 431 in JSON by the server, and only far larger ones get
// net/http's own plain-text 431.
func (s *Server) HeaderReadLimit() int { return 4 * s.cfg.MaxHeaderBytes }

// AdminGuard checks the admin token and throttles guessing it; the
// console's operator sign-in shares it, so both count one address's
// failures together.
func (s *Server) AdminGuard() *adminguard.Guard { return s.guard }

// Registry is the Prometheus registry the server's metrics live in, so the
// wiring can add metrics of other packages to /metrics.
func (s *Server) Registry() *prometheus.Registry { return s.reg }

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// handle registers h for pattern, and for every /ecommerce/v3/... pattern the
// same handler under /v3/... (interface §4.4 writes both). Every route goes
// through here, so Routes can list them, and is wrapped by Server.routed,
// which takes the request over from the router inside its dispatch (a
// handler registered on s.mux directly is called once, and its answer,
// which the middleware takes for the router's own, is replaced by a 500:
// see TestUnroutedHandlerIsNeverRunTwice).
func (s *Server) handle(pattern string, h http.Handler) {
	s.mux.Handle(pattern, s.routed(h))
	s.patterns = append(s.patterns, pattern)
	method, path, ok := strings.Cut(pattern, " ")
	if ok && strings.HasPrefix(path, "/ecommerce/v3/") {
		alias := method + " " + strings.TrimPrefix(path, "/ecommerce")
		s.mux.Handle(alias, s.routed(h))
		s.patterns = append(s.patterns, alias)
	}
}

// Mount serves h for every path under prefix ("/console" serves /console
// and /console/...), behind the server's middleware (request IDs, logs,
// metrics, the body cap) but outside its router: the web console routes its
// own HTML pages, which are no API operations, so Routes does not list them
// and openapi.yaml does not describe them. Call it before serving.
func (s *Server) Mount(prefix string, h http.Handler) {
	s.mounts = append(s.mounts, mount{strings.TrimRight(prefix, "/"), h})
}

type mount struct {
	prefix string
	h      http.Handler
}

// mounted returns the handler mounted at a prefix of path, or nil.
func (s *Server) mounted(path string) (string, http.Handler) {
	for _, m := range s.mounts {
		if path == m.prefix || strings.HasPrefix(path, m.prefix+"/") {
			return m.prefix, m.h
		}
	}
	return "", nil
}

// Routes lists the pattern of every route the server serves, "METHOD /path".
func (s *Server) Routes() []string { return slices.Clone(s.patterns) }

func (s *Server) routes() {
	s.operationalRoutes()
	s.frontDoorRoutes()
	s.tokenRoutes()
	s.adminRoutes()
	s.sandboxRoutes()
	s.orderRoutes()
	s.codeRoutes()
	s.shippingRoutes()
	if s.tracking != nil {
		s.trackingRoutes()
	}
	s.inventoryRoutes()
	s.catalogRoutes()
	s.locationRoutes()
	s.pickupPointRoutes()
	s.estimateRoutes()
	s.supplierShipmentRoutes()
}

// supportedVersion reports whether the gateway API version v is served.
func (s *Server) supportedVersion(v string) bool { return slices.Contains(s.cfg.Versions, v) }

// ReloadKeys reads the token keys from the store into the keyring. The
// wiring calls it periodically; the auth middleware calls it when a token
// names a key this instance has not seen (a rotation elsewhere).
func (s *Server) ReloadKeys(ctx context.Context) error {
	keys, err := s.tokenKeys.TokenKeys(ctx)
	if err != nil {
		return err
	}
	s.keys.Replace(keys)
	s.lastKeyReload.Store(time.Now().UnixNano())
	return nil
}
