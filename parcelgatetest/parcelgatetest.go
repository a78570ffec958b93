// Package parcelgatetest runs a real parcelgate server inside a Go test,
// the way net/http/httptest runs an http.Handler: the full server (every
// surface, the operator API) over an in-memory database (or the one
// WithDatabase names) seeded with a test tenant, on a local address, gone
// when the test ends.
//
// A test points its code (or the SDK, package client) at Server.URL with the
// tenant's credentials, and drives the sandbox through Server.Admin: move
// the clock, move an order, inject a fault, reset the tenant.
//
//	func TestMyIntegration(t *testing.T) {
//		srv := parcelgatetest.NewServer(t)
//		// configure the code under test with srv.URL and srv.Tenant ...
//		srv.Admin.InjectFault(parcelgatetest.Fault{Route: "/{version}/labelless", Status: 503, Count: 1})
//		// ... and see it retry.
//	}
//
// Orders move only when the test moves them (Admin.SetOrderStatus), unless
// WithWarehouse starts the warehouse engine. The clock is an environment clock:
// Admin.AdvanceClock makes a token expire or an EOS product leave a
// catalog at once.
package parcelgatetest

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/demo"
	"github.com/parcelgate/parcelgate/fulfillment"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/adminclient"
	"github.com/parcelgate/parcelgate/internal/inproc"
)

// Tenant is the seeded organization of the test environment and its
// credentials (the --demo tenant).
type Tenant struct {
	Environment string // "test"
	BusinessID  string
	// ClientID and ClientSecret open the gateway token service
	// (POST /api/v1/token).
	ClientID, ClientSecret string
	// Username and Password open the ecom token service (GET /auth/token);
	// the account holds every role.
	Username, Password string
	// WarehouseID is the tenant's warehouse catalog, with stock.
	WarehouseID string
	// Shipment is the tracking number of a seeded shipment.
	Shipment string
	// A retailer organization with a catalog the tenant publishes to.
	RetailerID, RetailerUsername, RetailerPassword, RetailCatalogID string
}

// Server is a running parcelgate. Close it, or let NewServer's test end.
type Server struct {
	// URL is the base URL of every surface, e.g. http://127.0.0.1:40123.
	URL string
	// AdminToken opens the operator API (/admin/v1).
	AdminToken string
	Tenant     Tenant
	Admin      *Admin

	in *inproc.Server
}

// Option changes how a Server starts.
type Option func(*options)

type options struct {
	warehouse *fulfillment.Config
	dsn       string
}

// WithWarehouse starts the warehouse engine: an order is Submitted
// submitAfter after it is created and Delivered deliverAfter later (by the
// environment clock, so AdvanceClock hurries it).
func WithWarehouse(submitAfter, deliverAfter time.Duration) Option {
	return func(o *options) {
		o.warehouse = &fulfillment.Config{SubmitAfter: submitAfter, DeliverAfter: deliverAfter}
	}
}

// WithDatabase serves the database dsn instead of a new in-memory one,
// e.g. "sqlite:/tmp/x/parcelgate.db" or a PostgreSQL URL, as serve's
// --db takes it. It is migrated and seeded with the test tenant, which
// must not be there yet.
func WithDatabase(dsn string) Option {
	return func(o *options) { o.dsn = dsn }
}

// NewServer starts a server for the test and stops it when the test ends;
// a failure to start fails the test.
func NewServer(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s, err := Start(opts...)
	if err != nil {
		t.Fatalf("parcelgatetest: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// Start starts a server outside a test (in an Example or a TestMain). The
// caller closes it.
func Start(opts ...Option) (*Server, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	s := &Server{AdminToken: rand.Text()}
	in, err := inproc.Start(context.Background(), inproc.Config{DSN: o.dsn, Seed: true,
		HTTP: httpapi.Config{AdminToken: s.AdminToken, Sandbox: true}, Warehouse: o.warehouse})
	if err != nil {
		return nil, err
	}
	s.in, s.URL = in, in.URL
	d := demo.Tenants[1]
	s.Tenant = Tenant{Environment: string(d.Environment), BusinessID: d.BusinessID, ClientID: d.ClientID, ClientSecret: d.ClientSecret,
		Username: d.Username, Password: d.Password, WarehouseID: d.WarehouseID, Shipment: d.Shipment,
		RetailerID: d.RetailerID, RetailerUsername: d.RetailerUsername, RetailerPassword: d.RetailerPassword, RetailCatalogID: d.RetailCatalogID}
	s.Admin = &Admin{s: s, c: &adminclient.Client{BaseURL: s.URL, Token: s.AdminToken, HTTP: in.HTTP.Client()}}
	return s, nil
}

// Close stops the server; its data is gone unless WithDatabase kept it.
func (s *Server) Close() { s.in.Close() }

// Client is an HTTP client for the server.
func (s *Server) Client() *http.Client { return s.in.HTTP.Client() }

// Admin drives the sandbox through the operator API. Its calls act on the
// seeded tenant in the test environment.
type Admin struct {
	s *Server
	c *adminclient.Client
}

// AdvanceClock moves the test environment's clock forward by d.
func (a *Admin) AdvanceClock(d time.Duration) error {
	return a.call("POST", "/admin/v1/clock", map[string]any{"advance": d.String(), "environment": "test"}, nil)
}

// SetOrderStatus moves an order of the tenant (by its externalId or
// service ID) as the warehouse would: Submitted, Delivered (packed into
// parcels with tracking codes) or Cancelled; Error with a reason.
func (a *Admin) SetOrderStatus(id, status, reason string) error {
	body := map[string]any{"environment": "test", "businessId": a.s.Tenant.BusinessID, "externalId": id, "value": status}
	if reason != "" {
		body["reason"] = reason
	}
	return a.call("POST", "/admin/v1/orders/status", body, nil)
}

// Fault is a failure to inject (POST /admin/v1/faults) for the tenant's
// calls. Zero fields do not narrow it.
type Fault struct {
	Method      string // GET, PUT, POST, PATCH or DELETE
	Route       string // a route pattern, e.g. "/{version}/labelless", or a path
	Status      int    // 429, 500, 502, 503 or 504; 0 only delays
	Latency     time.Duration
	RetryAfter  int     // seconds
	Probability float64 // the share of matching calls that fail
	Count       int     // how many calls fail; with neither, every one
}

// InjectFault makes the tenant's matching calls fail, and returns the
// fault's ID for RemoveFault.
func (a *Admin) InjectFault(f Fault) (string, error) {
	body := map[string]any{"environment": "test", "businessId": a.s.Tenant.BusinessID}
	if f.Method != "" {
		body["method"] = f.Method
	}
	if f.Route != "" {
		body["route"] = f.Route
	}
	if f.Status != 0 {
		body["status"] = f.Status
	}
	if f.Latency > 0 {
		body["latency"] = f.Latency.String()
	}
	if f.RetryAfter > 0 {
		body["retryAfter"] = f.RetryAfter
	}
	if f.Probability > 0 {
		body["probability"] = f.Probability
	}
	if f.Count > 0 {
		body["count"] = f.Count
	}
	var out struct{ ID string }
	err := a.call("POST", "/admin/v1/faults", body, &out)
	return out.ID, err
}

// RemoveFault removes an injected fault.
func (a *Admin) RemoveFault(id string) error {
	return a.call("DELETE", "/admin/v1/faults/"+url.PathEscape(id), nil, nil)
}

// Reset empties the tenant's orders, products, balances, shipments and
// codes; its credentials and catalogs stay.
func (a *Admin) Reset() error {
	return a.call("POST", a.org("/reset"), nil, nil)
}

// Snapshot saves the tenant's data under name.
func (a *Admin) Snapshot(name string) error {
	return a.call("POST", a.org("/snapshots"), map[string]any{"name": name}, nil)
}

// Restore puts the tenant's data back as the snapshot name saved it. The
// snapshot "demo" is the seeded state.
func (a *Admin) Restore(name string) error {
	return a.call("POST", a.org("/snapshots/"+url.PathEscape(name)+"/restore"), nil, nil)
}

// Request is one call of the request journal.
type Request = parcelgate.JournalEntry

// Request returns a call of the tenant the server journaled, by the
// X-Request-ID of its answer. Calls are journaled just after they are answered: it waits up to
// two seconds for one.
func (a *Admin) Request(requestID string) (*Request, error) {
	var e Request
	var err error
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		err = a.call("GET", "/admin/v1/requests/"+url.PathEscape(requestID)+"?environment=test&businessId="+url.QueryEscape(a.s.Tenant.BusinessID), nil, &e)
		if err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	return &e, nil
}

func (a *Admin) org(rest string) string {
	return "/admin/v1/organizations/" + url.PathEscape(a.s.Tenant.BusinessID) + rest + "?environment=test"
}

// Error is an operator API call that was refused.
type Error struct {
	Status int
	Body   string
}

func (e *Error) Error() string {
	return fmt.Sprintf("parcelgatetest: operator API answered %d: %s", e.Status, e.Body)
}

func (a *Admin) call(method, path string, body, out any) error {
	err := a.c.Call(context.Background(), method, path, body, out)
	if e, ok := errors.AsType[*adminclient.Error](err); ok {
		return &Error{Status: e.Status, Body: string(e.Body)}
	}
	return err
}
