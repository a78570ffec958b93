package client

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/oauth2"
)

// These tests drive the Client against small scripted servers, for what a
// real server does not do on demand: fail, throttle, refuse tokens.

// sleeps records the waits of a Client instead of waiting.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) all() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

// scripted starts a server whose API answers with h and whose ecom token
// service hands out tok-1, tok-2, ...; it returns a Client of it that
// records its waits.
func scripted(t *testing.T, h http.HandlerFunc, cfg Config) (*Client, *sleeps, *atomic.Int32) {
	t.Helper()
	var issued atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("GET /auth/token", func(w http.ResponseWriter, r *http.Request) {
		if u, p, _ := r.BasicAuth(); u != "user" || p != "pass" {
			w.WriteHeader(401)
			fmt.Fprint(w, `{"status":401,"error":"Unauthorized","message":"Bad credentials"}`)
			return
		}
		n := issued.Add(1)
		fmt.Fprintf(w, `{"access_token":"tok-%d","token_type":"bearer","expires_in":3600,"scope":"internal"}`, n)
	})
	mux.Handle("/", h)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	cfg.BaseURL = srv.URL
	if cfg.Username == "" {
		cfg.Username, cfg.Password = "user", "pass"
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := new(sleeps)
	c.transport.sleep = s.sleep
	return c, s, &issued
}

func get(c *Client, path string, out any) error {
	return c.do(context.Background(), request{surface: ecom, method: "GET", path: path}, out)
}

// failing answers status (with header) n times, then 200 {"ok":true}.
func failing(n int32, status int, header ...string) (http.HandlerFunc, *atomic.Int32) {
	var calls atomic.Int32
	return func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) <= n {
			for i := 0; i+1 < len(header); i += 2 {
				w.Header().Set(header[i], header[i+1])
			}
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"status":%d,"error":"%s","message":"try later"}`, status, http.StatusText(status))
			return
		}
		fmt.Fprint(w, `{"ok":true}`)
	}, &calls
}

func TestRetryTransientStatuses(t *testing.T) {
	for _, status := range []int{429, 502, 503, 504} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			h, calls := failing(2, status)
			c, s, _ := scripted(t, h, Config{Retry: RetryPolicy{BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second}})
			var out struct{ OK bool }
			if err := get(c, "/x", &out); err != nil || !out.OK {
				t.Fatalf("get: %v %+v", err, out)
			}
			if calls.Load() != 3 {
				t.Errorf("%d calls, want 3", calls.Load())
			}
			waits := s.all()
			if len(waits) != 2 {
				t.Fatalf("waits %v, want 2", waits)
			}
			// Full jitter: each wait lies between zero and its doubling cap.
			for i, w := range waits {
				if ceiling := 100 * time.Millisecond << i; w < 0 || w > ceiling {
					t.Errorf("wait %d = %v, want within [0, %v]", i, w, ceiling)
				}
			}
		})
	}
}

func TestRetryBackoffCapped(t *testing.T) {
	p := RetryPolicy{BaseDelay: time.Second, MaxDelay: 3 * time.Second}.withDefaults()
	for n := 1; n < 100; n++ {
		if d := p.backoff(n); d < 0 || d > 3*time.Second {
			t.Fatalf("backoff(%d) = %v", n, d)
		}
	}
}

func TestRetryAfterHonoured(t *testing.T) {
	h, calls := failing(1, 429, "Retry-After", "7")
	c, s, _ := scripted(t, h, Config{Retry: RetryPolicy{MaxDelay: 10 * time.Second}})
	if err := get(c, "/x", nil); err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 2 {
		t.Errorf("%d calls, want 2", calls.Load())
	}
	if w := s.all(); len(w) != 1 || w[0] != 7*time.Second {
		t.Errorf("waits %v, want [7s]", w)
	}

	date := time.Now().Add(5 * time.Second).UTC().Format(http.TimeFormat)
	if d := retryAfter(http.Header{"Retry-After": {date}}, time.Now()); d < 3*time.Second || d > 5*time.Second {
		t.Errorf("Retry-After as HTTP date: %v", d)
	}
}

func TestRetryAfterBeyondMaxDelayIsReturned(t *testing.T) {
	h, calls := failing(5, 429, "Retry-After", "120")
	c, s, _ := scripted(t, h, Config{Retry: RetryPolicy{MaxDelay: 10 * time.Second}})
	err := get(c, "/x", nil)
	e, ok := errors.AsType[*Error](err)
	if !ok || e.StatusCode != 429 || e.RetryAfter != 120*time.Second || !e.Temporary() {
		t.Fatalf("err = %#v", err)
	}
	if calls.Load() != 1 || len(s.all()) != 0 {
		t.Errorf("%d calls, waits %v; want one call, no wait", calls.Load(), s.all())
	}
}

func TestRetryAttemptsBounded(t *testing.T) {
	h, calls := failing(100, 503)
	c, s, _ := scripted(t, h, Config{Retry: RetryPolicy{MaxAttempts: 3}})
	err := get(c, "/x", nil)
	if e, ok := errors.AsType[*Error](err); !ok || e.StatusCode != 503 || e.Message != "try later" {
		t.Fatalf("err = %v", err)
	}
	if calls.Load() != 3 || len(s.all()) != 2 {
		t.Errorf("%d calls, %d waits; want 3 and 2", calls.Load(), len(s.all()))
	}

	h, calls = failing(100, 503)
	c, _, _ = scripted(t, h, Config{Retry: RetryPolicy{MaxAttempts: 1}})
	get(c, "/x", nil)
	if calls.Load() != 1 {
		t.Errorf("MaxAttempts 1: %d calls", calls.Load())
	}
}

// Only calls safe to repeat are repeated: a POST that reached the server is
// not, unless the operation marks it idempotent; a PUT marked unsafe is not.
func TestRetryOnlyIdempotent(t *testing.T) {
	cases := []struct {
		method     string
		idempotent *bool
		calls      int32
	}{
		{"GET", nil, 2}, {"PUT", nil, 2}, {"DELETE", nil, 2},
		{"POST", nil, 1}, {"PATCH", nil, 1},
		{"POST", ptr(true), 2}, {"PUT", ptr(false), 1},
	}
	for _, tc := range cases {
		h, calls := failing(1, 503)
		c, _, _ := scripted(t, h, Config{})
		err := c.do(context.Background(), request{surface: ecom, method: tc.method, path: "/x", body: map[string]int{"a": 1}, idempotent: tc.idempotent}, nil)
		if calls.Load() != tc.calls {
			t.Errorf("%s idempotent=%v: %d calls, want %d (err %v)", tc.method, tc.idempotent, calls.Load(), tc.calls, err)
		}
	}
}

func TestRetryResendsBody(t *testing.T) {
	var bodies []string
	var mu sync.Mutex
	h := func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		json.NewDecoder(r.Body).Decode(&m)
		mu.Lock()
		bodies = append(bodies, fmt.Sprint(m))
		n := len(bodies)
		mu.Unlock()
		if n == 1 {
			w.WriteHeader(502)
			return
		}
		w.WriteHeader(200)
	}
	c, _, _ := scripted(t, h, Config{})
	if err := c.do(context.Background(), request{surface: ecom, method: "PUT", path: "/x", body: map[string]int{"a": 1}}, nil); err != nil {
		t.Fatal(err)
	}
	if len(bodies) != 2 || bodies[0] != bodies[1] || bodies[1] != "map[a:1]" {
		t.Errorf("bodies %q", bodies)
	}
}

// A connection that cannot be made at all is retried for any call: the
// request never left.
func TestRetryConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c, err := New(Config{BaseURL: "http://" + addr, EcomTokenSource: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "x"}), Retry: RetryPolicy{MaxAttempts: 3}})
	if err != nil {
		t.Fatal(err)
	}
	s := new(sleeps)
	c.transport.sleep = s.sleep
	err = c.do(context.Background(), request{surface: ecom, method: "POST", path: "/x", body: 1}, nil)
	if err == nil || !notSent(err) {
		t.Fatalf("err = %v, want a dial error", err)
	}
	if len(s.all()) != 2 {
		t.Errorf("waits %v, want 2", s.all())
	}
}

// Each attempt is bounded by the timeout; an attempt that runs out is
// retried when the call is safe to repeat.
func TestAttemptTimeout(t *testing.T) {
	var calls atomic.Int32
	h := func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			<-r.Context().Done() // hang until the client gives up
			return
		}
		fmt.Fprint(w, `{}`)
	}
	c, _, _ := scripted(t, h, Config{Timeout: 100 * time.Millisecond})
	if err := get(c, "/x", nil); err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 2 {
		t.Errorf("%d calls, want 2", calls.Load())
	}
}

// The caller's context ends the call, waits included.
func TestContextCancelsRetries(t *testing.T) {
	h, _ := failing(100, 503)
	c, _, _ := scripted(t, h, Config{Retry: RetryPolicy{MaxAttempts: 10}})
	ctx, cancel := context.WithCancel(context.Background())
	c.transport.sleep = func(context.Context, time.Duration) error { cancel(); return context.Canceled }
	err := c.do(ctx, request{surface: ecom, method: "GET", path: "/x"}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// A refused token is dropped and the call made once more with a new one;
// a second refusal is the caller's.
func TestUnauthorizedRefreshesOnce(t *testing.T) {
	var seen []string
	var mu sync.Mutex
	h := func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization"))
		mu.Unlock()
		if r.Header.Get("Authorization") == "Bearer tok-1" || r.URL.Path == "/never" {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
			w.WriteHeader(401)
			fmt.Fprint(w, `{"status":401,"error":"Unauthorized","message":"The access token has expired; request a new one."}`)
			return
		}
		fmt.Fprint(w, `{}`)
	}
	c, _, issued := scripted(t, h, Config{})
	// POST, which is never retried otherwise: a refused token means the
	// server did nothing.
	if err := c.do(context.Background(), request{surface: ecom, method: "POST", path: "/x", body: 1}, nil); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(seen) != "[Bearer tok-1 Bearer tok-2]" || issued.Load() != 2 {
		t.Fatalf("authorizations %v, %d tokens issued", seen, issued.Load())
	}
	err := get(c, "/never", nil)
	if e, ok := errors.AsType[*Error](err); !ok || e.StatusCode != 401 || e.Code != "Unauthorized" {
		t.Fatalf("err = %v", err)
	}
	if issued.Load() != 3 {
		t.Errorf("%d tokens issued, want 3", issued.Load())
	}
}

// Concurrent calls share one token, and calls refused together with the
// same token cause one new fetch.
func TestTokenSharedAcrossGoroutines(t *testing.T) {
	var refused atomic.Bool
	h := func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "Bearer tok-1" && refused.Load() {
			w.WriteHeader(401)
			return
		}
		fmt.Fprint(w, `{}`)
	}
	c, _, issued := scripted(t, h, Config{})
	run := func() {
		var wg sync.WaitGroup
		for range 20 {
			wg.Go(func() {
				if err := get(c, "/x", nil); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
	}
	run()
	if issued.Load() != 1 {
		t.Fatalf("%d tokens issued for 20 calls, want 1", issued.Load())
	}
	refused.Store(true)
	run()
	if issued.Load() != 2 {
		t.Errorf("%d tokens issued after a refusal, want 2", issued.Load())
	}
}

func TestErrorBodies(t *testing.T) {
	cases := []struct {
		name, body string
		status     int
		want       Error
	}{
		{"gateway", `{"errorCode":"VALIDATION_ERROR","message":"Validation failed","details":[{"field":"searchCriteria.trackingNumber","message":"is required"}]}`, 400,
			Error{StatusCode: 400, Code: "VALIDATION_ERROR", Message: "Validation failed", Fields: []FieldError{{Field: "searchCriteria.trackingNumber", Message: "is required"}}}},
		{"gateway without details", `{"errorCode":"NOT_FOUND","message":"Shipment not found","details":null}`, 404,
			Error{StatusCode: 404, Code: "NOT_FOUND", Message: "Shipment not found"}},
		{"ecom", `{"timestamp":"2025-04-01T00:00:00.000000Z","status":400,"error":"Bad Request","message":"Validation failed","path":"/ecommerce/v3/inventory","errors":[{"index":1,"field":"product.externalId","message":"is required"}]}`, 400,
			Error{StatusCode: 400, Code: "Bad Request", Message: "Validation failed", Fields: []FieldError{{Index: ptr(1), Field: "product.externalId", Message: "is required"}}}},
		{"oauth", `{"error":"invalid_client","error_description":"Client authentication failed."}`, 401,
			Error{StatusCode: 401, Code: "invalid_client", Message: "Client authentication failed."}},
		{"not json", "<html>bad gateway</html>", 418,
			Error{StatusCode: 418, Message: "I'm a teapot"}},
		{"plain text", "upstream reset", 418,
			Error{StatusCode: 418, Message: "upstream reset"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("X-Request-ID", "req-1")
				w.WriteHeader(tc.status)
				fmt.Fprint(w, tc.body)
			}
			c, _, _ := scripted(t, h, Config{})
			err := get(c, "/x", nil)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v, not an *Error", err)
			}
			got := *e
			if got.RequestID != "req-1" || got.Method != "GET" || !strings.HasSuffix(got.URL, "/x") || string(got.Body) != tc.body {
				t.Errorf("request details: %+v", got)
			}
			if got.StatusCode != tc.want.StatusCode || got.Code != tc.want.Code || got.Message != tc.want.Message || fmt.Sprint(fields(got.Fields)) != fmt.Sprint(fields(tc.want.Fields)) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
			if !strings.Contains(e.Error(), tc.want.Message) || !strings.Contains(e.Error(), "req-1") {
				t.Errorf("Error() = %q", e.Error())
			}
		})
	}
}

func fields(fs []FieldError) []string {
	var out []string
	for _, f := range fs {
		idx := -1
		if f.Index != nil {
			idx = *f.Index
		}
		out = append(out, fmt.Sprintf("%d %s %s", idx, f.Field, f.Message))
	}
	return out
}

// Answers come compressed when they are large (interface §4.4 GET rule 4); the
// Client asks for gzip and reads it.
func TestGzip(t *testing.T) {
	h := func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			t.Errorf("Accept-Encoding %q", r.Header.Get("Accept-Encoding"))
		}
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		fmt.Fprintf(zw, `{"content":["%s"]}`, strings.Repeat("a", 5000))
		zw.Close()
	}
	c, _, _ := scripted(t, h, Config{})
	var out struct{ Content []string }
	if err := get(c, "/x", &out); err != nil || len(out.Content) != 1 || len(out.Content[0]) != 5000 {
		t.Fatalf("err %v, %d items", err, len(out.Content))
	}
}

func TestTokenRefused(t *testing.T) {
	c, _, _ := scripted(t, func(http.ResponseWriter, *http.Request) {}, Config{Username: "user", Password: "wrong"})
	err := get(c, "/x", nil)
	if e, ok := errors.AsType[*Error](err); !ok || e.StatusCode != 401 || e.Message != "Bad credentials" {
		t.Fatalf("err = %v", err)
	}
}

func TestConfig(t *testing.T) {
	c, err := New(Config{BaseURL: "http://pg.example/", Environment: Test, EcomTestURL: "https://ecom-test.example"})
	if err != nil {
		t.Fatal(err)
	}
	if c.base(gateway) != "http://pg.example/2025-04" || c.base(errand) != "http://pg.example/parcel-uat" || c.base(ecom) != "https://ecom-test.example" {
		t.Errorf("bases %q %q %q", c.base(gateway), c.base(errand), c.base(ecom))
	}
	c, _ = New(Config{GatewayURL: "https://gw.example", ErrandURL: "https://connect.example", EcomURL: "https://ecom.example", EcomTestURL: "https://ecom-test.example", Version: "2026-04"})
	if c.base(gateway) != "https://gw.example/2026-04" || c.base(errand) != "https://connect.example/parcel" || c.base(ecom) != "https://ecom.example" {
		t.Errorf("bases %q %q %q", c.base(gateway), c.base(errand), c.base(ecom))
	}
	for _, bad := range []Config{{Version: "2025-4"}, {Environment: "staging"}, {BaseURL: "ftp://x"}, {ClientID: "a", ClientSecret: "b"}, {Username: "u"},
		{BaseURL: "http://x", ClientID: "a"}, {BaseURL: "http://x", Password: "p"}, {Username: "u", Password: "p"}} {
		if _, err := New(bad); err == nil {
			t.Errorf("New(%+v) accepted", bad)
		}
	}
	if err := c.do(context.Background(), request{surface: ecom, method: "GET", path: "/x"}, nil); !errors.Is(err, ErrNoCredentials) {
		t.Errorf("call without credentials: %v", err)
	}
}

// The provider's real gateway answers the version targets under posti_fi;
// the SDK reads them there when provider_fi is absent.
func TestGatewayTokenTargetsUnderPostiFI(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/v1/token", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"access_token":"gw-1","token_type":"Bearer","expires_in":3600,"posti_fi":{"targets":{"2025-04":{"url":"https://gw.example/2025-04","tier":2}}}}`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	c, err := New(Config{BaseURL: srv.URL, ClientID: "id", ClientSecret: "secret"})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := c.GatewayToken(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := tok.Targets["2025-04"]; got.URL != "https://gw.example/2025-04" || got.Tier != 2 || len(tok.Targets) != 1 {
		t.Fatalf("targets %+v", tok.Targets)
	}
}

// The first field error is often the message itself: the error string says
// it once.
func TestErrorStringSaysEachProblemOnce(t *testing.T) {
	e := &Error{StatusCode: 400, Code: "VALIDATION_ERROR", Message: "trackingNumber: must be 4-35 characters",
		Fields: []FieldError{{Field: "trackingNumber", Message: "must be 4-35 characters"}, {Field: "parcels[0].packageCode", Message: "unknown package code"}}}
	got := e.Error()
	if strings.Count(got, "must be 4-35 characters") != 1 || !strings.Contains(got, "parcels[0].packageCode: unknown package code") {
		t.Errorf("%q", got)
	}
	e.Message = "Bad Request"
	if got := e.Error(); !strings.Contains(got, "; trackingNumber: must be 4-35 characters") {
		t.Errorf("a field error not in the message is left out: %q", got)
	}
}
