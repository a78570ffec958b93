package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate/demo"
	"github.com/spf13/pflag"
)

// syncBuffer is a bytes.Buffer safe to write from the server goroutine
// while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

var baseURL = regexp.MustCompile(`(?:sandbox at|Web console:) (http://[0-9.:]+)`)

// startServe runs "parcelgate serve" as the README does and returns its
// base URL and a function that stops it and returns its error.
func startServe(t *testing.T, args ...string) (string, *syncBuffer, func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut syncBuffer
	done := make(chan error, 1)
	go func() { done <- run(ctx, append([]string{"serve"}, args...), &out, &errOut) }()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if m := baseURL.FindStringSubmatch(out.String()); m != nil {
			return m[1], &out, func() error { cancel(); return <-done }
		}
		select {
		case err := <-done:
			t.Fatalf("serve stopped: %v\n%s\n%s", err, out.String(), errOut.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	cancel()
	t.Fatalf("serve did not start:\n%s\n%s", out.String(), errOut.String())
	return "", nil, nil
}

// The README's first command: serve --demo prints credentials and a curl
// that gets a token; a second start on the same database keeps them; the
// server stops cleanly on cancellation (SIGTERM).
func TestServeDemo(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "pg.db")
	base, out, stop := startServe(t, "--demo", "--addr", "127.0.0.1:0", "--db", db)
	if !strings.Contains(out.String(), "operator API token (generated") {
		t.Errorf("no generated admin token printed:\n%s", out)
	}
	if !strings.Contains(out.String(), "Created now") {
		t.Errorf("the first start's banner does not say the demo order was just created:\n%s", out)
	}
	resp, err := http.PostForm(base+"/api/v1/token", url.Values{"grant_type": {"client_credentials"}, "client_id": {"demo-client"}, "client_secret": {"demo-client-secret"}})
	if err != nil {
		t.Fatal(err)
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	json.NewDecoder(resp.Body).Decode(&tok)
	resp.Body.Close()
	if resp.StatusCode != 200 || tok.AccessToken == "" {
		t.Fatalf("demo gateway token: %d", resp.StatusCode)
	}
	etok := ecomToken(t, base, "demo-test", "demo-test-password")
	// The sample sales order is placed, its stock allocated.
	req, _ := http.NewRequest("GET", base+"/ecommerce/v3/orders/"+demo.SampleOrder, nil)
	req.Header.Set("Authorization", "Bearer "+etok)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var order struct {
		Status struct{ Value string }
	}
	json.NewDecoder(resp.Body).Decode(&order)
	resp.Body.Close()
	if resp.StatusCode != 200 || (order.Status.Value != "Created" && order.Status.Value != "Submitted" && order.Status.Value != "Delivered") {
		t.Fatalf("demo sample order: %d %+v", resp.StatusCode, order)
	}
	if err := stop(); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	// Restart on the same database: the demo is not seeded twice, and the
	// same credentials still work.
	base, out, stop = startServe(t, "--demo", "--addr", "127.0.0.1:0", "--db", db, "--admin-token", "adm")
	defer stop()
	// The demo order was made at the first start, not now.
	if s := out.String(); strings.Contains(s, "Created now") || !strings.Contains(s, "created when this database was first seeded") {
		t.Errorf("a restart's banner misstates when the demo order was made:\n%s", s)
	}
	resp, err = http.PostForm(base+"/api/v1/token", url.Values{"grant_type": {"client_credentials"}, "client_id": {"demo-client"}, "client_secret": {"demo-client-secret"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("after restart: %d", resp.StatusCode)
	}
	req, _ = http.NewRequest("GET", base+"/admin/v1/organizations", nil)
	req.Header.Set("Authorization", "Bearer adm")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var orgs struct{ Content []any }
	json.NewDecoder(resp.Body).Decode(&orgs)
	resp.Body.Close()
	if len(orgs.Content) != 3 {
		t.Fatalf("production organizations (merchant, retailer, second supplier) after a second --demo start: %d", len(orgs.Content))
	}
	// The demo products are published to the warehouse and to the demo
	// retailer's catalog, where the second supplier publishes one more.
	rtok := ecomToken(t, base, "demo-retailer", "demo-retailer-password")
	req, _ = http.NewRequest("GET", base+"/ecommerce/v3/catalogs/SHOP1/products", nil)
	req.Header.Set("Authorization", "Bearer "+rtok)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var page struct{ Page struct{ TotalElements int } }
	json.NewDecoder(resp.Body).Decode(&page)
	resp.Body.Close()
	if resp.StatusCode != 200 || page.Page.TotalElements != 5 {
		t.Fatalf("demo retail catalog: %d, %d products", resp.StatusCode, page.Page.TotalElements)
	}
}

// The README exports the generated admin token: a restart on the same
// database keeps it working (only its hash is stored) and prints no new
// one; another database gets a token of its own.
func TestServeKeepsGeneratedAdminToken(t *testing.T) {
	tokenLine := regexp.MustCompile(`operator API token \(generated[^)]*\): (\S+)`)
	db := "sqlite:" + filepath.Join(t.TempDir(), "a.db")
	status := func(base, token string) int {
		req, _ := http.NewRequest("GET", base+"/admin/v1/organizations", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	base, out, stop := startServe(t, "--addr", "127.0.0.1:0", "--db", db)
	m := tokenLine.FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no generated admin token printed:\n%s", out)
	}
	token := m[1]
	if got := status(base, token); got != 200 {
		t.Fatalf("the printed token: %d", got)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	base, out, stop = startServe(t, "--addr", "127.0.0.1:0", "--db", db)
	if strings.Contains(out.String(), token) || tokenLine.MatchString(out.String()) {
		t.Errorf("a restart printed a token again:\n%s", out)
	}
	if got := status(base, token); got != 200 {
		t.Errorf("the first start's token after a restart: %d, want 200", got)
	}
	if got := status(base, token+"X"); got != 401 {
		t.Errorf("a wrong token after a restart: %d, want 401", got)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	base, out, stop = startServe(t, "--addr", "127.0.0.1:0", "--db", "sqlite:"+filepath.Join(t.TempDir(), "b.db"))
	defer stop()
	m = tokenLine.FindStringSubmatch(out.String())
	if m == nil || m[1] == token {
		t.Fatalf("another database's start printed %v, want a token of its own:\n%s", m, out)
	}
	if got := status(base, token); got != 401 {
		t.Errorf("the first database's token on another database: %d, want 401", got)
	}
}

// ecomToken gets a token of the ecom token service at base for a service
// account (interface §5.2 rule 2), failing the test unless it answers one.
func ecomToken(t *testing.T, base, username, password string) string {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/auth/token", nil)
	req.SetBasicAuth(username, password)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	json.NewDecoder(resp.Body).Decode(&tok)
	if resp.StatusCode != 200 || tok.AccessToken == "" {
		t.Fatalf("ecom token of %s: %d", username, resp.StatusCode)
	}
	return tok.AccessToken
}

// parseServe parses serve's command line as the serve command does, with
// the environment's defaults, without starting anything.
func parseServe(name string, args []string, stderr io.Writer) (*serveConfig, error) {
	var c serveConfig
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(stderr)
	serveFlags(fs, &c)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	if err := envDefaults(fs); err != nil {
		return nil, err
	}
	return &c, c.check(fs)
}

// Flags fall back to PARCELGATE_<NAME>; a bad value is refused before
// anything starts.
func TestServeConfig(t *testing.T) {
	t.Setenv("PARCELGATE_FULFILLMENT", "manual")
	t.Setenv("PARCELGATE_ADDR", "127.0.0.1:9999")
	c, err := parseServe("serve", []string{"--addr", "127.0.0.1:1"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if c.fulfillment != "manual" || c.addr != "127.0.0.1:1" {
		t.Fatalf("config %+v", c)
	}
	if c.submitAfter != 30*time.Second || c.deliverAfter != 2*time.Minute {
		t.Fatalf("default delays %v %v", c.submitAfter, c.deliverAfter)
	}
	// --demo shortens the warehouse's delays, unless they were chosen.
	t.Setenv("PARCELGATE_DELIVER_AFTER", "1h")
	if c, err = parseServe("serve", []string{"--demo"}, &bytes.Buffer{}); err != nil || c.submitAfter != 30*time.Second || c.deliverAfter != time.Hour {
		t.Fatalf("demo with a chosen delay: %+v %v", c, err)
	}
	os.Unsetenv("PARCELGATE_DELIVER_AFTER")
	if c, err = parseServe("serve", []string{"--demo"}, &bytes.Buffer{}); err != nil || c.submitAfter != demoSubmitAfter || c.deliverAfter != demoDeliverAfter {
		t.Fatalf("demo delays: %+v %v", c, err)
	}
	for _, args := range [][]string{{"--fulfillment", "sometimes"}, {"--submit-after", "-1s"}, {"--deliver-after", "soon"}, {"--versions", "2025-4"}, {"extra"}} {
		if _, err := parseServe("serve", args, &bytes.Buffer{}); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
	if err := run(context.Background(), []string{"frobnicate"}, &bytes.Buffer{}, &bytes.Buffer{}); err == nil {
		t.Error("unknown command accepted")
	}
}

// The admin CLI drives the operator API.
func TestAdminCLI(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "pg.db")
	base, _, stop := startServe(t, "--demo", "--fulfillment", "manual", "--addr", "127.0.0.1:0", "--db", db, "--admin-token", "adm")
	defer stop()
	cli := func(args ...string) (string, error) {
		var out bytes.Buffer
		err := run(context.Background(), append([]string{"admin", "-url", base, "-admin-token", "adm"}, args...), &out, &bytes.Buffer{})
		return out.String(), err
	}
	if out, err := cli("create-organization", "-business-id", "7654321-2", "-name", "Retailer Oy"); err != nil || !strings.Contains(out, `"businessId": "7654321-2"`) {
		t.Fatalf("create-organization: %v %s", err, out)
	}
	out, err := cli("create-service-account", "-business-id", "7654321-2", "-username", "retailer1", "-roles", "retailer,supplier")
	if err != nil || !strings.Contains(out, `"password"`) {
		t.Fatalf("create-service-account: %v %s", err, out)
	}
	if _, err := cli("create-catalog", "-retailer-id", "7654321-2", "-catalog-id", "SHOP1", "-type", "Catalog", "-suppliers", "1234567-1"); err != nil {
		t.Fatal(err)
	}
	if out, err := cli("catalogs", "-retailer-id", "7654321-2"); err != nil || !strings.Contains(out, "SHOP1") {
		t.Fatalf("catalogs: %v %s", err, out)
	}
	if _, err := cli("create-organization", "-business-id", "7654321-2", "-name", "again"); err == nil || !strings.Contains(err.Error(), "409") {
		t.Fatalf("duplicate: %v", err)
	}
	if _, err := cli("unlock-service-account", "retailer1"); err != nil {
		t.Fatal(err)
	}
	if _, err := cli("order-status", "-business-id", "1234567-1", "-external-id", "1234567-1-NOPE", "-value", "Submitted"); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("order-status of a missing order: %v", err)
	}
	if out, err := cli("order-status", "-business-id", "1234567-1", "-external-id", demo.SampleOrder, "-value", "Submitted"); err != nil || !strings.Contains(out, `"value": "Submitted"`) {
		t.Fatalf("order-status: %v %s", err, out)
	}
}

// Durations in the logs are text people read, not nanoseconds.
func TestLogDurationsReadable(t *testing.T) {
	var buf bytes.Buffer
	log, err := newLogger(&buf, "info")
	if err != nil {
		t.Fatal(err)
	}
	log.Info("request", slog.Duration("duration", 1500*time.Microsecond))
	if !strings.Contains(buf.String(), `"duration":"1.5ms"`) {
		t.Fatalf("log line %s", buf.String())
	}
}
