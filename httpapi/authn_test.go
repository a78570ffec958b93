package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/auth"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/pickup"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// probeServer is a server with probe routes behind each auth wrapper, so
// the middleware can be tested on its own.
type probeServer struct {
	*Server
	url string
}

// servicesOf is the server's services over db, as internal/wiring gives
// them (which this package's own tests cannot import).
func servicesOf(db *sqlstore.DB) Services {
	s := sqlstore.NewServices(db, pickup.Network{})
	return Services{
		Organizations: s.Organizations, Credentials: s.Credentials, Catalogs: s.Catalogs,
		Orders: s.Orders, OrderAnswers: s.Orders, Shipments: s.Shipments, Codes: s.Codes,
		Inventory: s.Inventory, Controls: s.Controls, Faults: s.Faults, Journal: s.Journal,
		TokenKeys: s.TokenKeys, Database: db, Tracking: s.Tracking, SupplierShipments: s.SupplierShipments,
	}
}

func newProbeServer(t testing.TB, db *sqlstore.DB, clock parcelgate.Clock) *probeServer {
	t.Helper()
	keys, err := sqlstore.NewTokenKeyService(db).TokenKeys(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s := New(servicesOf(db), auth.NewKeyring(keys), clock, slog.New(slog.NewTextHandler(io.Discard, nil)), Config{AdminToken: "adm"})
	echo := func(w http.ResponseWriter, r *http.Request) error {
		c := caller(r)
		writeJSON(w, 200, map[string]any{"subject": c.Subject, "env": c.Environment, "businessId": c.BusinessID})
		return nil
	}
	// Registered as Server.handle does (through Server.routed), without
	// adding the probes to the routes Routes lists.
	s.mux.Handle("GET /{version}/probe", s.routed(s.gateway(echo)))
	s.mux.Handle("GET /parcel/v1/probe", s.routed(s.errand(parcelgate.Production, echo)))
	s.mux.Handle("GET /parcel-uat/v1/probe", s.routed(s.errand(parcelgate.Test, echo)))
	// The probe needs an action of the retailer role alone.
	s.handle("GET /ecommerce/v3/probe", s.ecom(parcelgate.ActionReadAllCatalogs, echo))
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	return &probeServer{s, hs.URL}
}

func (p *probeServer) get(t *testing.T, path, token string) (int, http.Header, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("GET", p.url+path, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	json.NewDecoder(resp.Body).Decode(&m)
	return resp.StatusCode, resp.Header, m
}

// seed creates an organization with a gateway client (versions) and a
// service account (roles) in env and returns tokens of both from the real
// token endpoints.
func seed(t *testing.T, p *probeServer, env parcelgate.Environment, bid string, versions []string, roles ...parcelgate.Role) (gatewayTok, ecomTok string) {
	t.Helper()
	ctx := context.Background()
	if err := p.orgs.CreateOrganization(ctx, parcelgate.EnvironmentOperator(env), &parcelgate.Organization{Environment: env, BusinessID: bid, Name: "x"}); err != nil && parcelgate.ErrorCode(err) != parcelgate.ECONFLICT {
		t.Fatal(err)
	}
	var grants []parcelgate.VersionGrant
	for _, v := range versions {
		grants = append(grants, parcelgate.VersionGrant{Version: v, Tier: 1})
	}
	id, secret := auth.NewClientID(), auth.NewClientSecret()
	if err := p.credentials.CreateGatewayClient(ctx, parcelgate.EnvironmentOperator(env), &parcelgate.GatewayClient{ClientID: id, Environment: env, BusinessID: bid, Versions: grants}, auth.HashSecret(secret)); err != nil {
		t.Fatal(err)
	}
	resp, err := http.PostForm(p.url+"/api/v1/token", url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}})
	if err != nil {
		t.Fatal(err)
	}
	var gt GatewayToken
	json.NewDecoder(resp.Body).Decode(&gt)
	resp.Body.Close()

	user := testdb.Name("u")
	hash, _ := auth.HashPassword("password-123456")
	if err := p.credentials.CreateServiceAccount(ctx, parcelgate.EnvironmentOperator(env), &parcelgate.ServiceAccount{Username: user, Environment: env, BusinessID: bid, Roles: roles}, hash); err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("GET", p.url+"/auth/token", nil)
	req.SetBasicAuth(user, "password-123456")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var et EcomToken
	json.NewDecoder(resp.Body).Decode(&et)
	resp.Body.Close()
	if gt.AccessToken == "" || et.AccessToken == "" {
		t.Fatalf("seed: no tokens")
	}
	return gt.AccessToken, et.AccessToken
}

// decisions §2, §4: a gateway token opens the versions it lists (403 for
// another served version, 404 for one not served), never the ecom API; an
// ecom token never the gateway.
func TestAuthKindsVersionsAndRoles(t *testing.T) {
	testdb.Each(t, nil, func(t *testing.T, db *sqlstore.DB) {
		p := newProbeServer(t, db, nil)
		gw, ec := seed(t, p, parcelgate.Production, "1234567-1", []string{"2025-04"}, parcelgate.RoleRetailer)
		_, merchantOnly := seed(t, p, parcelgate.Production, "1234567-1", []string{"2025-04"}, parcelgate.RoleMerchant)

		if s, _, m := p.get(t, "/2025-04/probe", gw); s != 200 || m["businessId"] != "1234567-1" || m["env"] != "production" {
			t.Fatalf("gateway token on its version: %d %v", s, m)
		}
		if s, _, m := p.get(t, "/2026-04/probe", gw); s != 403 || m["errorCode"] != "FORBIDDEN" {
			t.Fatalf("version outside the token's targets: %d %v", s, m)
		}
		if s, _, m := p.get(t, "/2019-01/probe", gw); s != 404 || !strings.Contains(m["message"].(string), "2025-04") {
			t.Fatalf("unknown version: %d %v", s, m)
		}
		if s, h, m := p.get(t, "/2025-04/probe", ec); s != 401 || m["errorCode"] != "INVALID_TOKEN" || !strings.Contains(h.Get("WWW-Authenticate"), `error="invalid_token"`) {
			t.Fatalf("ecom token on the gateway: %d %v", s, m)
		}
		if s, _, m := p.get(t, "/ecommerce/v3/probe", gw); s != 401 || m["status"] != float64(401) {
			t.Fatalf("gateway token on the ecom API: %d %v", s, m)
		}
		for _, path := range []string{"/ecommerce/v3/probe", "/v3/probe"} {
			if s, _, m := p.get(t, path, ec); s != 200 || m["businessId"] != "1234567-1" {
				t.Fatalf("ecom token with its role on %s: %d %v", path, s, m)
			}
		}
		if s, _, m := p.get(t, "/ecommerce/v3/probe", merchantOnly); s != 403 || !strings.Contains(m["message"].(string), "retailer") {
			t.Fatalf("ecom token without the role: %d %v", s, m)
		}
		if s, h, m := p.get(t, "/ecommerce/v3/probe", ""); s != 401 || h.Get("WWW-Authenticate") == "" || m["path"] != "/ecommerce/v3/probe" {
			t.Fatalf("no token: %d %v", s, m)
		}
	})
}

// decisions §4: expired and tampered tokens are 401 with
// WWW-Authenticate: Bearer error="invalid_token".
func TestAuthExpiredAndTampered(t *testing.T) {
	testdb.Each(t, nil, func(t *testing.T, db *sqlstore.DB) {
		clock := new(parcelgate.OffsetClock)
		p := newProbeServer(t, db, clock)
		gw, _ := seed(t, p, parcelgate.Production, "1234567-1", []string{"2025-04"}, parcelgate.RoleSupplier)
		tampered := []byte(gw)
		tampered[len(tampered)/2] ^= 1
		for name, tok := range map[string]string{"tampered": string(tampered), "garbage": "not-a-token", "truncated": gw[:20]} {
			s, h, m := p.get(t, "/2025-04/probe", tok)
			if s != 401 || m["errorCode"] != "INVALID_TOKEN" || !strings.Contains(h.Get("WWW-Authenticate"), `error="invalid_token"`) {
				t.Errorf("%s: %d %v %q", name, s, m, h.Get("WWW-Authenticate"))
			}
		}
		// A minute's margin: the real clock runs on under the sandbox
		// offset, and a loaded CI machine can take seconds per request.
		clock.Advance(parcelgate.TokenLifetime - time.Minute)
		if s, _, _ := p.get(t, "/2025-04/probe", gw); s != 200 {
			t.Fatalf("token refused before its expiry: %d", s)
		}
		clock.Advance(time.Minute)
		s, h, m := p.get(t, "/2025-04/probe", gw)
		if s != 401 || m["errorCode"] != "EXPIRED" || !strings.Contains(h.Get("WWW-Authenticate"), `error="invalid_token"`) {
			t.Fatalf("expired token: %d %v", s, m)
		}
	})
}

// decisions §3: the errand-code path segment selects the environment; a token
// of the other one is told which path to use.
func TestErrandEnvironmentPath(t *testing.T) {
	testdb.Each(t, nil, func(t *testing.T, db *sqlstore.DB) {
		p := newProbeServer(t, db, nil)
		prod, _ := seed(t, p, parcelgate.Production, "1234567-1", []string{"2025-04"}, parcelgate.RoleSupplier)
		test, _ := seed(t, p, parcelgate.Test, "1234567-1", []string{"2025-04"}, parcelgate.RoleSupplier)
		if s, _, m := p.get(t, "/parcel/v1/probe", prod); s != 200 || m["env"] != "production" {
			t.Fatalf("production token on parcel: %d %v", s, m)
		}
		if s, _, m := p.get(t, "/parcel-uat/v1/probe", test); s != 200 || m["env"] != "test" {
			t.Fatalf("test token on parcel-uat: %d %v", s, m)
		}
		if s, _, m := p.get(t, "/parcel/v1/probe", test); s != 403 || !strings.Contains(m["message"].(string), "/parcel-uat/v1/") {
			t.Fatalf("test token on parcel: %d %v", s, m)
		}
		if s, _, m := p.get(t, "/parcel-uat/v1/probe", prod); s != 403 || !strings.Contains(m["message"].(string), "/parcel/v1/") {
			t.Fatalf("production token on parcel-uat: %d %v", s, m)
		}
	})
}

// Tokens are sealed with keys stored in the database: a token minted by one
// instance opens on another, and a key rotated on one instance is picked up
// by the others as soon as a token names it, while tokens of the retired key
// keep working until they expire.
func TestTokensAcrossInstancesAndRotation(t *testing.T) {
	testdb.Each(t, nil, func(t *testing.T, db *sqlstore.DB) {
		a := newProbeServer(t, db, nil)
		b := newProbeServer(t, db, nil)
		old, _ := seed(t, a, parcelgate.Production, "1234567-1", []string{"2025-04"}, parcelgate.RoleSupplier)
		if s, _, _ := b.get(t, "/2025-04/probe", old); s != 200 {
			t.Fatalf("token of instance A refused by instance B: %d", s)
		}
		if _, err := sqlstore.NewTokenKeyService(db).RotateTokenKey(context.Background(), parcelgate.AllOperator()); err != nil {
			t.Fatal(err)
		}
		if err := a.ReloadKeys(context.Background()); err != nil {
			t.Fatal(err)
		}
		b.lastKeyReload.Store(0)
		fresh, _ := seed(t, a, parcelgate.Production, "1234567-1", []string{"2025-04"}, parcelgate.RoleSupplier)
		if fresh[:8] == old[:8] {
			t.Fatalf("token after rotation carries the old key id")
		}
		if s, _, _ := b.get(t, "/2025-04/probe", fresh); s != 200 {
			t.Fatalf("token of the rotated key refused by the other instance: %d", s)
		}
		if s, _, _ := b.get(t, "/2025-04/probe", old); s != 200 {
			t.Fatalf("token of the retired key refused during the overlap: %d", s)
		}
	})
}

// BenchmarkTokenValidation measures what every API request pays to
// establish its caller: opening the token, no database round trip.
func BenchmarkTokenValidation(b *testing.B) {
	// A real server: authenticate also asks the store for injected faults.
	s := newProbeServer(b, testdb.Open(b, "sqlite", nil), parcelgate.SystemClock{}).Server
	now := time.Now()
	tok, _ := s.keys.Seal(&parcelgate.Caller{Subject: "pg_x", OrgID: 1, BusinessID: "1234567-1", Environment: parcelgate.Production, Kind: parcelgate.KindEcom, Roles: parcelgate.Roles, IssuedAt: now, ExpiresAt: now.Add(time.Hour)})
	req := httptest.NewRequest("GET", "/ecommerce/v3/probe", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	b.ReportAllocs()
	for b.Loop() {
		if _, f := s.authenticate(req, parcelgate.KindEcom); f != nil {
			b.Fatal(f.message)
		}
	}
}

// decisions §8: the optional per-credential rate limit answers 429 with
// Retry-After in the surface's shape; other credentials are not affected.
func TestRateLimit(t *testing.T) {
	db := testdb.Open(t, "sqlite", nil)
	p := newProbeServer(t, db, nil)
	p.limit = newLimiter(1) // bursts of 2
	gw, ec := seed(t, p, parcelgate.Production, "1234567-1", []string{"2025-04"}, parcelgate.RoleRetailer)
	other, _ := seed(t, p, parcelgate.Production, "1234567-1", []string{"2025-04"}, parcelgate.RoleSupplier)
	for i := range 2 {
		if s, _, _ := p.get(t, "/2025-04/probe", gw); s != 200 {
			t.Fatalf("request %d within the burst: %d", i, s)
		}
	}
	s, h, m := p.get(t, "/2025-04/probe", gw)
	if s != 429 || h.Get("Retry-After") != "1" || m["errorCode"] != "TOO_MANY_REQUESTS" {
		t.Fatalf("over the limit: %d %v %v", s, h.Get("Retry-After"), m)
	}
	if s, _, _ := p.get(t, "/2025-04/probe", other); s != 200 {
		t.Fatalf("another credential limited: %d", s)
	}
	for range 2 {
		p.get(t, "/ecommerce/v3/probe", ec)
	}
	if s, h, m := p.get(t, "/ecommerce/v3/probe", ec); s != 429 || h.Get("Retry-After") == "" || m["status"] != float64(429) {
		t.Fatalf("ecom over the limit: %d %v", s, m)
	}
}

// Server.routed: a request is looked up once, by the router, whose route
// handlers take it over inside its dispatch (decisions §26). A handler put
// on the router without Server.handle is called once, as the router calls
// every handler, but nothing takes the request over: its answer is taken
// for the router's own, not one the router gives, and replaced by a 500,
// so the mistake shows in the first test that calls it.
func TestUnroutedHandlerIsNeverRunTwice(t *testing.T) {
	p := newProbeServer(t, testdb.Open(t, "sqlite", nil), nil)
	var calls atomic.Int32
	p.mux.HandleFunc("POST /raw", func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(http.StatusCreated)
	})
	rec := httptest.NewRecorder()
	p.ServeHTTP(rec, httptest.NewRequest("POST", "/raw", nil))
	if n := calls.Load(); n != 1 {
		t.Fatalf("the unrouted handler ran %d times", n)
	}
	if rec.Code != http.StatusInternalServerError {
		t.Fatalf("status %d, want 500 naming the mistake", rec.Code)
	}
	// The router's own answers still pass: no route, a wrong method.
	for _, c := range []struct {
		method, path string
		want         int
	}{{"GET", "/no/such/route", 404}, {"DELETE", "/ecommerce/v3/probe", 405}} {
		rec := httptest.NewRecorder()
		p.ServeHTTP(rec, httptest.NewRequest(c.method, c.path, nil))
		if rec.Code != c.want {
			t.Errorf("%s %s: %d, want %d", c.method, c.path, rec.Code, c.want)
		}
	}
}
