package console_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/auth"
	"github.com/parcelgate/parcelgate/console"
	"github.com/parcelgate/parcelgate/demo"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/internal/wiring"
)

const adminToken = "console-test-admin-token"

// env is a running server with the console mounted, over a database
// seeded with the demo tenants, under --fulfillment manual: orders move
// only when a test moves them.
type env struct {
	t   testing.TB
	db  *testdb.DB
	dsn string // the database's, for a connection of a test's own
	// store is what the console holds: the store's services as the root's
	// interfaces; tests seed and check through them.
	store console.Services
	// api is what the API holds: the services at their full width, for
	// seeding what the console only reads.
	api      httpapi.Services
	clock    *parcelgate.OffsetClock // the server's (sandbox) clock
	sessions *testClock              // the console sessions' clock
	url      string
}

func newEnv(t testing.TB, engine string) *env {
	t.Helper()
	return newEnvMode(t, engine, true)
}

// newEnvMode is newEnv on a server started with --sandbox or without it
// (decisions §21).
func newEnvMode(t testing.TB, engine string, sandbox bool) *env {
	t.Helper()
	return newEnvConfig(t, engine, sandbox, nil)
}

// newEnvConfig is newEnvMode with the server's configuration changed by
// configure (nil: as it is).
func newEnvConfig(t testing.TB, engine string, sandbox bool, configure func(*httpapi.Config)) *env {
	t.Helper()
	return newEnvServices(t, engine, sandbox, configure)
}

// newEnvServices is newEnvConfig with the console's services wired with
// opts (wiring.Console's configuration).
func newEnvServices(t testing.TB, engine string, sandbox bool, configure func(*httpapi.Config), opts ...wiring.ConsoleOption) *env {
	t.Helper()
	clock := new(parcelgate.OffsetClock)
	db, dsn := testdb.OpenDSN(t, engine, clock)
	ctx := context.Background()
	if _, err := demo.Seed(ctx, wiring.Demo(db), parcelgate.DefaultVersions); err != nil {
		t.Fatalf("seed: %v", err)
	}
	api := wiring.HTTP(db)
	keys, err := api.TokenKeys.TokenKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	cfg := httpapi.Config{AdminToken: adminToken, OffsetClock: clock, Sandbox: sandbox}
	if configure != nil {
		configure(&cfg)
	}
	srv := httpapi.New(api, auth.NewKeyring(keys), clock, log, cfg)
	sessions := new(testClock)
	store := wiring.Console(db, opts...)
	srv.Mount(console.Prefix, console.New(store, console.Config{
		AdminToken: adminToken, AdminGuard: srv.AdminGuard(), Clock: clock, OffsetClock: clock, Sandbox: sandbox, SessionNow: sessions.Now,
		ManualFulfillment: true, PollInterval: 100 * time.Millisecond, Log: log,
	}))
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return &env{t: t, db: db, dsn: dsn, store: store, api: api, clock: clock, sessions: sessions, url: hs.URL}
}

// browser is an HTTP client with its own cookies that does not follow
// redirects, so a test sees each answer.
type browser struct {
	e *env
	c *http.Client
}

func (e *env) browser() *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{e: e, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// page is an answer: status, Location, body and headers.
type page struct {
	status   int
	location string
	body     string
	header   http.Header
}

func (b *browser) do(method, path string, form url.Values, header http.Header) page {
	b.e.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, b.e.url+path, body)
	if err != nil {
		b.e.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := b.c.Do(req)
	if err != nil {
		b.e.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return page{resp.StatusCode, resp.Header.Get("Location"), string(raw), resp.Header}
}

func (b *browser) get(path string) page { return b.do(http.MethodGet, path, nil, nil) }

// post sends a form as a same-origin browser form does.
func (b *browser) post(path string, form url.Values) page {
	return b.do(http.MethodPost, path, form, http.Header{"Sec-Fetch-Site": {"same-origin"}, "Origin": {b.e.url}})
}

func (b *browser) signIn(username, password string) page {
	return b.post("/console/sign-in", url.Values{"kind": {"account"}, "username": {username}, "password": {password}})
}

// operator signs in with the admin token and looks at the demo tenant of
// env.
func (b *browser) operator(environment parcelgate.Environment) {
	b.e.t.Helper()
	if p := b.post("/console/sign-in", url.Values{"kind": {"operator"}, "token": {adminToken}}); p.status != http.StatusSeeOther {
		b.e.t.Fatalf("operator sign-in: %d %s", p.status, p.body)
	}
	if p := b.post("/console/tenant", url.Values{"environment": {string(environment)}, "businessId": {demo.Tenants[0].BusinessID}}); p.status != http.StatusSeeOther {
		b.e.t.Fatalf("choose tenant: %d %s", p.status, p.body)
	}
}

// operator is a new browser signed in as the operator, on the first demo
// tenant of environment.
func (e *env) operator(environment parcelgate.Environment) *browser {
	e.t.Helper()
	b := e.browser()
	b.operator(environment)
	return b
}

// order reads an order through the store, as the API would answer it.
func (e *env) order(environment parcelgate.Environment, businessID, id string) *parcelgate.Order {
	e.t.Helper()
	org, err := e.api.Organizations.FindOrganization(context.Background(), parcelgate.EnvironmentOperator(environment), businessID)
	if err != nil {
		e.t.Fatal(err)
	}
	o, err := e.store.Orders.FindOrder(context.Background(), &parcelgate.Caller{OrgID: org.ID, BusinessID: org.BusinessID, Environment: environment, Kind: parcelgate.KindEcom, Roles: []parcelgate.Role{parcelgate.RoleMerchant}}, id)
	if err != nil {
		e.t.Fatal(err)
	}
	return o
}

// foreignOrder places an order of another organization of production
// and returns its service ID; its row names a product nobody stocks, so
// it is stored in Error.
func (e *env) foreignOrder() (businessID, id string) {
	e.t.Helper()
	ctx := context.Background()
	org := &parcelgate.Organization{Environment: parcelgate.Production, BusinessID: "SE5566778899", Name: "Other Shop AB"}
	if err := e.api.Organizations.CreateOrganization(ctx, parcelgate.EnvironmentOperator(org.Environment), org); err != nil {
		e.t.Fatal(err)
	}
	req := &parcelgate.OrderRequest{
		ExternalID:      "SE5566778899-X1",
		References:      []parcelgate.OrderReference{{Name: parcelgate.RefSO, Value: "OTHER-1"}},
		DeliveryAddress: parcelgate.Address{Name: "Sven", StreetAddress: "Gatan 1", PostalCode: "11122", PostOffice: "Stockholm", Country: "SE", Email: "sven@example.com"},
		ServiceCode:     "2103",
		Rows:            []parcelgate.OrderRowRequest{{ExternalProductID: "SE5566778899-P", ExternalWarehouseID: "WH9", Quantity: 1}},
		AutoSubmit:      true,
	}
	o, err := e.store.Orders.CreateOrder(ctx, &parcelgate.Caller{Subject: "other", OrgID: org.ID, BusinessID: org.BusinessID, Environment: parcelgate.Production, Kind: parcelgate.KindEcom, Roles: []parcelgate.Role{parcelgate.RoleMerchant}}, req)
	if err != nil {
		e.t.Fatal(err)
	}
	return org.BusinessID, o.ID
}

func mustContain(t testing.TB, p page, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(p.body, w) {
			t.Fatalf("page (status %d) does not contain %q:\n%s", p.status, w, p.body)
		}
	}
}

// testClock is the wall clock plus an offset a test moves forward.
type testClock struct{ offset atomic.Int64 }

func (c *testClock) Now() time.Time          { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *testClock) Advance(d time.Duration) { c.offset.Add(int64(d)) }
