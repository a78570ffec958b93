package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate/demo"
)

// The admin CLI covers the operator controls, against a server on
// the in-memory store (--db memory) as the README's CI recipe starts it.
func TestAdminSandboxCLI(t *testing.T) {
	base, _, stop := startServe(t, "--demo", "--fulfillment", "manual", "--sandbox-clock", "--addr", "127.0.0.1:0", "--db", "memory", "--admin-token", "adm")
	defer stop()
	cli := func(args ...string) (string, error) {
		t.Helper()
		var out bytes.Buffer
		err := run(context.Background(), append([]string{"admin", "--url", base, "--admin-token", "adm"}, args...), &out, &bytes.Buffer{})
		return out.String(), err
	}
	must := func(want string, args ...string) string {
		t.Helper()
		out, err := cli(args...)
		if err != nil || !strings.Contains(out, want) {
			t.Fatalf("admin %v: %v\n%s", args, err, out)
		}
		return out
	}
	must(`"name": "demo"`, "snapshots", "--env", "test", "1234567-1")
	must(`"value": "Submitted"`, "order-status", "--env", "test", "--business-id", "1234567-1", "--external-id", demo.SampleOrder, "--value", "Submitted")
	must(`"orders": 1`, "reset", "--env", "test", "1234567-1")
	must(`"orders": 1`, "restore", "--env", "test", "--name", "demo", "1234567-1")
	must(`"name": "mine"`, "snapshot", "--env", "test", "--name", "mine", "1234567-1")
	// One snapshot, with its environment and object counts.
	shown := must(`"name": "mine"`, "show-snapshot", "--env", "test", "--name", "mine", "1234567-1")
	if !strings.Contains(shown, `"environment": "test"`) || !strings.Contains(shown, `"objects":`) || !strings.Contains(shown, `"createdAt":`) {
		t.Fatalf("show-snapshot: %s", shown)
	}
	if _, err := cli("show-snapshot", "--env", "test", "--name", "nope", "1234567-1"); err == nil {
		t.Fatal("show-snapshot of a missing snapshot succeeded")
	}
	must("ok", "drop-snapshot", "--env", "test", "--name", "mine", "1234567-1")
	must(`"organizations": 3`, "reset-environment", "--env", "test")
	must(`"snapshot": "demo"`, "demo-reset")

	var f struct{ ID string }
	json.Unmarshal([]byte(must(`"status": 503`, "inject-fault", "--env", "test", "--route", "/ecommerce/v3/orders", "--status", "503", "--retry-after", "1", "--count", "1")), &f)
	must(f.ID, "faults", "--env", "test")
	must("ok", "remove-fault", f.ID)
	if _, err := cli("inject-fault", "--env", "test", "--status", "404"); err == nil || !strings.Contains(err.Error(), "status") {
		t.Fatalf("a status outside the list: %v", err)
	}

	// A journaled call, looked up by its request ID.
	req, _ := http.NewRequest("GET", base+"/ecommerce/v3/orders", nil)
	req.Header.Set("Authorization", "Bearer "+ecomToken(t, base, "demo-test", "demo-test-password"))
	req.Header.Set("X-Request-ID", "cli-journal-1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var out string
	for range 50 {
		if out, err = cli("request", "cli-journal-1"); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(out, `"route": "/ecommerce/v3/orders"`) {
		t.Fatalf("request: %v %s", err, out)
	}
	must("cli-journal-1", "requests", "--env", "test", "--business-id", "1234567-1", "--status", "2xx")

	must(`"offset": "1h0m0s"`, "advance-clock", "--env", "test", "1h")
	must(`"offset": "1h0m0s"`, "clock", "--env", "test")
	must(`"offset": "0s"`, "clock", "--env", "production")
}

// Decisions §21: plain serve (no --sandbox, a database
// file) refuses production's reset (403 naming --sandbox), the CLI asks
// for --environment before calling, and the clock says the mode; --db
// memory implies --sandbox.
func TestPlainServeProtectsProduction(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "pg.db")
	base, _, stop := startServe(t, "--addr", "127.0.0.1:0", "--db", db, "--admin-token", "adm")
	defer stop()
	cli := func(base string, args ...string) (string, error) {
		t.Helper()
		var out bytes.Buffer
		err := run(context.Background(), append([]string{"admin", "--url", base, "--admin-token", "adm"}, args...), &out, &bytes.Buffer{})
		return out.String(), err
	}
	for _, args := range [][]string{{"reset-environment"}, {"reset", "1234567-1"}, {"restore", "--name", "s", "1234567-1"},
		{"inject-fault", "--business-id", "1234567-1", "--status", "503"}, {"advance-clock", "1h"}} {
		if _, err := cli(base, args...); err == nil || !strings.Contains(err.Error(), "--environment") {
			t.Errorf("admin %v without --environment: %v", args, err)
		}
	}
	if _, err := cli(base, "reset-environment", "--environment", "production"); err == nil || !strings.Contains(err.Error(), "--sandbox") {
		t.Errorf("production reset on plain serve: %v", err)
	}
	if out, err := cli(base, "reset-environment", "--environment", "test"); err != nil || !strings.Contains(out, `"environment": "test"`) {
		t.Errorf("test reset on plain serve: %v %s", err, out)
	}
	if out, err := cli(base, "clock", "--env", "production"); err != nil || !strings.Contains(out, `"mode": "production"`) {
		t.Errorf("clock of plain serve: %v %s", err, out)
	}
	if out, err := cli(base, "advance-clock", "--environment", "test", "1h"); err != nil || !strings.Contains(out, `"offset": "1h0m0s"`) {
		t.Errorf("test clock on plain serve: %v %s", err, out)
	}

	mem, _, stopMem := startServe(t, "--addr", "127.0.0.1:0", "--db", "memory", "--admin-token", "adm")
	defer stopMem()
	if out, err := cli(mem, "clock", "--env", "production"); err != nil || !strings.Contains(out, `"mode": "sandbox"`) {
		t.Errorf("clock of serve --db memory: %v %s", err, out)
	}
}

// decisions §21: production's clock moves only under --sandbox, and time
// never goes back; a plain server started later on the same database keeps
// the offset and says so in its log, so the operator is not left with a
// production clock ahead of the wall clock unknowingly.
func TestPlainServeWarnsOfAMovedProductionClock(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "pg.db")
	base, _, stop := startServe(t, "--sandbox", "--addr", "127.0.0.1:0", "--db", db, "--admin-token", "adm")
	var out bytes.Buffer
	if err := run(context.Background(), []string{"admin", "--url", base, "--admin-token", "adm", "advance-clock", "--environment", "production", "2h"}, &out, &bytes.Buffer{}); err != nil {
		t.Fatalf("advance production clock on --sandbox: %v", err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--db", db, "--admin-token", "adm"}, &stdout, &stderr)
	}()
	deadline := time.Now().Add(20 * time.Second)
	for baseURL.FindStringSubmatch(stdout.String()) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("plain serve did not start:\n%s\n%s", stdout.String(), stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	<-done
	if !strings.Contains(stderr.String(), "production clock runs ahead") || !strings.Contains(stderr.String(), `"offset":"2h`) {
		t.Fatalf("no warning of the moved production clock in the log:\n%s", stderr.String())
	}
}
