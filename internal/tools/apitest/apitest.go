// Package apitest runs a real parcelgate server for tests: the full router
// over a real store (SQLite and PostgreSQL, see testdb), reached over HTTP.
// Every response is checked against openapi/openapi.yaml, so a test that
// exercises a route also proves the published description is right.
package apitest

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/inproc"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/openapi"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// AdminToken is the operator token of every test server.
const AdminToken = "test-admin-token"

// Env is one running server over one store.
type Env struct {
	T      testing.TB
	DB     *sqlstore.DB
	Server *httpapi.Server
	HTTP   *httptest.Server
	Clock  *parcelgate.OffsetClock
	URL    string
	// DSN is the database's, when the server was started by EachShared or
	// Instance (to start more instances over it).
	DSN string
}

// Option changes the configuration of a test server.
type Option func(*httpapi.Config)

// NotSandbox starts the server as serve does without --sandbox: the
// production environment refuses resets, restores, faults and clock moves
// (decisions §21).
func NotSandbox(c *httpapi.Config) { c.Sandbox = false }

// Each runs fn against a fresh server on each engine.
func Each(t *testing.T, fn func(t *testing.T, e *Env), opts ...Option) {
	t.Helper()
	for _, engine := range testdb.Engines {
		t.Run(engine, func(t *testing.T) {
			fn(t, New(t, engine, opts...))
		})
	}
}

// New starts a server over a new database of engine. Its clock is a
// environment clock tests may advance.
func New(t testing.TB, engine string, opts ...Option) *Env {
	t.Helper()
	clock := new(parcelgate.OffsetClock)
	db, dsn := testdb.OpenDSN(t, engine, clock)
	e := NewWithDB(t, db, clock, opts...)
	e.DSN = dsn
	return e
}

// NewWithDB starts a server over db; several servers over one db behave as
// instances behind a load balancer.
func NewWithDB(t testing.TB, db *sqlstore.DB, clock *parcelgate.OffsetClock, opts ...Option) *Env {
	t.Helper()
	if clock == nil {
		clock = new(parcelgate.OffsetClock)
	}
	// A test server is a sandbox (serve --sandbox) unless the test asks
	// for a production server with NotSandbox.
	cfg := httpapi.Config{AdminToken: AdminToken, OffsetClock: clock, Sandbox: true}
	for _, o := range opts {
		o(&cfg)
	}
	var log *slog.Logger
	if testing.Verbose() {
		log = slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	s, err := inproc.Start(context.Background(), inproc.Config{DB: db, Clock: clock, HTTP: cfg, Log: log})
	if err != nil {
		t.Fatalf("apitest: %v", err)
	}
	t.Cleanup(s.Close)
	return &Env{T: t, DB: db, Server: s.Handler, HTTP: s.HTTP, Clock: clock, URL: s.URL}
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(b)))
	return len(b), nil
}

// Request is one call. Body is marshalled as JSON unless it is a string or
// []byte, which are sent as they are.
type Request struct {
	Method      string
	Path        string
	Body        any
	ContentType string // default application/json when there is a body
	Bearer      string
	Basic       *[2]string
	Header      http.Header
	// Undocumented skips the OpenAPI check, for calls that deliberately hit
	// no route.
	Undocumented bool
}

// Response is what came back, body decompressed.
type Response struct {
	t      testing.TB
	Status int
	Header http.Header
	Body   []byte
}

// Do makes the call and checks the response against the OpenAPI document.
func (e *Env) Do(r Request) *Response {
	e.T.Helper()
	var body io.Reader
	ct := r.ContentType
	switch b := r.Body.(type) {
	case nil:
	case string:
		body = strings.NewReader(b)
	case []byte:
		body = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			e.T.Fatalf("apitest: marshal body: %v", err)
		}
		body = bytes.NewReader(raw)
		if ct == "" {
			ct = "application/json"
		}
	}
	if ct == "" && body != nil {
		ct = "application/json"
	}
	req, err := http.NewRequest(r.Method, e.URL+r.Path, body)
	if err != nil {
		e.T.Fatalf("apitest: %v", err)
	}
	for k, v := range r.Header {
		req.Header[k] = v
	}
	if ct != "" && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", ct)
	}
	if r.Bearer != "" {
		req.Header.Set("Authorization", "Bearer "+r.Bearer)
	}
	if r.Basic != nil {
		req.SetBasicAuth(r.Basic[0], r.Basic[1])
	}
	resp, err := e.HTTP.Client().Do(req)
	if err != nil {
		e.T.Fatalf("apitest: %s %s: %v", r.Method, r.Path, err)
	}
	defer resp.Body.Close()
	var rd io.Reader = resp.Body
	if resp.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(resp.Body)
		if err != nil {
			e.T.Fatalf("apitest: gzip: %v", err)
		}
		rd = zr
	}
	raw, err := io.ReadAll(rd)
	if err != nil {
		e.T.Fatalf("apitest: read body: %v", err)
	}
	out := &Response{t: e.T, Status: resp.StatusCode, Header: resp.Header, Body: raw}
	// Every JSON answer must be valid JSON in valid UTF-8 (encoding/json's
	// Valid alone does not check the encoding): text that is not UTF-8, once
	// stored, was served as broken JSON.
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") && (!utf8.Valid(raw) || !json.Valid(raw)) {
		e.T.Errorf("apitest: %s %s → %d answered invalid JSON: %q", r.Method, r.Path, out.Status, truncate(raw))
	}
	if !r.Undocumented {
		if err := checkSpec(req, out); err != nil {
			e.T.Errorf("apitest: %s %s → %d does not match openapi.yaml: %v\nbody: %s", r.Method, r.Path, out.Status, err, truncate(raw))
		}
	}
	return out
}

func truncate(b []byte) string {
	if len(b) > 2000 {
		return string(b[:2000]) + "..."
	}
	return string(b)
}

// Expect fails the test unless the status is want, and returns r.
func (r *Response) Expect(want int) *Response {
	r.t.Helper()
	if r.Status != want {
		r.t.Fatalf("status %d, want %d; body: %s", r.Status, want, truncate(r.Body))
	}
	return r
}

// JSON decodes the body into v.
func (r *Response) JSON(v any) {
	r.t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		r.t.Fatalf("decode %s: %v", truncate(r.Body), err)
	}
}

// Map decodes the body as a JSON object.
func (r *Response) Map() map[string]any {
	r.t.Helper()
	var m map[string]any
	r.JSON(&m)
	return m
}

var (
	specOnce   sync.Once
	specRouter routers.Router
	specErr    error
)

func loadSpec() (routers.Router, error) {
	specOnce.Do(func() {
		loader := openapi3.NewLoader()
		doc, err := loader.LoadFromData(openapi.Spec)
		if err != nil {
			specErr = fmt.Errorf("load openapi.yaml: %w", err)
			return
		}
		if err := doc.Validate(context.Background()); err != nil {
			specErr = fmt.Errorf("openapi.yaml is not valid: %w", err)
			return
		}
		specRouter, specErr = gorillamux.NewRouter(doc)
	})
	return specRouter, specErr
}

// checkSpec checks that the route is described and the response is one it
// describes, status, headers and body.
func checkSpec(req *http.Request, resp *Response) error {
	router, err := loadSpec()
	if err != nil {
		return err
	}
	route, params, err := router.FindRoute(req)
	if err != nil {
		return fmt.Errorf("route not described: %w", err)
	}
	in := &openapi3filter.RequestValidationInput{
		Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{ExcludeRequestBody: true, AuthenticationFunc: openapi3filter.NoopAuthenticationFunc},
	}
	return openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 resp.Status,
		Header:                 resp.Header,
		Body:                   io.NopCloser(bytes.NewReader(resp.Body)),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	})
}

// Admin calls the operator API.
func (e *Env) Admin(method, path string, body any) *Response {
	e.T.Helper()
	return e.Do(Request{Method: method, Path: path, Body: body, Bearer: AdminToken})
}

// Org creates an organization (once) and returns its business ID.
func (e *Env) Org(env parcelgate.Environment, businessID string) string {
	e.T.Helper()
	r := e.Admin("POST", "/admin/v1/organizations", map[string]any{"environment": env, "businessId": businessID, "name": "Org " + businessID})
	if r.Status != http.StatusCreated && r.Status != http.StatusConflict {
		e.T.Fatalf("create organization %s: %d %s", businessID, r.Status, r.Body)
	}
	return businessID
}

// GatewayClient creates an organization if needed and a gateway client for
// it, and returns its credentials.
func (e *Env) GatewayClient(env parcelgate.Environment, businessID string, versions ...string) (id, secret string) {
	e.T.Helper()
	e.Org(env, businessID)
	body := map[string]any{"environment": env, "businessId": businessID}
	if versions != nil {
		body["versions"] = versions
	}
	var c struct{ ClientID, ClientSecret string }
	e.Admin("POST", "/admin/v1/gateway-clients", body).Expect(http.StatusCreated).JSON(&c)
	return c.ClientID, c.ClientSecret
}

// GatewayToken returns a gateway access token of a new client of the
// organization (created if needed).
func (e *Env) GatewayToken(env parcelgate.Environment, businessID string, versions ...string) string {
	e.T.Helper()
	id, secret := e.GatewayClient(env, businessID, versions...)
	var tok httpapi.GatewayToken
	e.Do(Request{Method: "POST", Path: "/api/v1/token", ContentType: "application/x-www-form-urlencoded",
		Body: "grant_type=client_credentials&client_id=" + id + "&client_secret=" + secret}).Expect(http.StatusOK).JSON(&tok)
	return tok.AccessToken
}

// ServiceAccount creates an organization if needed and a service account
// with roles, and returns its username and password.
func (e *Env) ServiceAccount(env parcelgate.Environment, businessID string, roles ...parcelgate.Role) (username, password string) {
	e.T.Helper()
	e.Org(env, businessID)
	username = testdb.Name("user")
	var a struct{ Username, Password string }
	e.Admin("POST", "/admin/v1/service-accounts", map[string]any{"environment": env, "businessId": businessID, "username": username, "roles": roles}).Expect(http.StatusCreated).JSON(&a)
	return a.Username, a.Password
}

// EcomToken returns an ecom access token of a new service account with roles.
func (e *Env) EcomToken(env parcelgate.Environment, businessID string, roles ...parcelgate.Role) string {
	e.T.Helper()
	u, p := e.ServiceAccount(env, businessID, roles...)
	var tok httpapi.EcomToken
	e.Do(Request{Method: "GET", Path: "/auth/token", Basic: &[2]string{u, p}}).Expect(http.StatusOK).JSON(&tok)
	return tok.AccessToken
}

// Catalog creates a catalog of retailer open to suppliers.
func (e *Env) Catalog(env parcelgate.Environment, retailerID, catalogID string, typ parcelgate.CatalogType, suppliers ...string) {
	e.T.Helper()
	e.Org(env, retailerID)
	for _, s := range suppliers {
		e.Org(env, s)
	}
	e.Admin("POST", "/admin/v1/catalogs", map[string]any{"environment": env, "retailerId": retailerID, "catalogExternalId": catalogID, "catalogType": typ, "supplierIds": suppliers}).Expect(http.StatusCreated)
}

// BasicHeader is the value of an HTTP Basic Authorization header.
func BasicHeader(user, pass string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
}

// EachShared runs fn on each engine with n servers, each with a store and a
// environment clock of its own, over one database: instances of one deployment,
// sharing nothing but the database.
func EachShared(t *testing.T, n int, fn func(t *testing.T, envs []*Env), opts ...Option) {
	t.Helper()
	for _, engine := range testdb.Engines {
		t.Run(engine, func(t *testing.T) {
			if engine == "memory" {
				t.Skip("a memory database belongs to the one store that opened it")
			}
			first := new(parcelgate.OffsetClock)
			db, dsn := testdb.OpenDSN(t, engine, first)
			envs := []*Env{NewWithDB(t, db, first, opts...)}
			envs[0].DSN = dsn
			for len(envs) < n {
				envs = append(envs, Instance(t, dsn, opts...))
			}
			fn(t, envs)
		})
	}
}

// Instance starts one more server, with a store and an environment clock of its
// own, over the database at dsn: another instance, or the same one after a
// restart.
func Instance(t testing.TB, dsn string, opts ...Option) *Env {
	t.Helper()
	clock := new(parcelgate.OffsetClock)
	db, err := sqlstore.Open(context.Background(), dsn, clock)
	if err != nil {
		t.Fatalf("apitest: open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatalf("apitest: migrate: %v", err)
	}
	e := NewWithDB(t, db, clock, opts...)
	e.DSN = dsn
	return e
}
