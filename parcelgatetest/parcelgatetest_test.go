package parcelgatetest_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parcelgate/parcelgate/parcelgatetest"
)

// NewServer gives a seeded tenant whose orders the admin handle
// moves, and Reset and Restore put its data back; the server is gone with
// the test.
func TestNewServer(t *testing.T) {
	srv := parcelgatetest.NewServer(t)
	ecom := func(method, path string) (int, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest("GET", srv.URL+"/auth/token", nil)
		req.SetBasicAuth(srv.Tenant.Username, srv.Tenant.Password)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var tok struct {
			AccessToken string `json:"access_token"`
		}
		json.NewDecoder(resp.Body).Decode(&tok)
		resp.Body.Close()
		req, _ = http.NewRequest(method, srv.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
		resp, err = srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body map[string]any
		json.NewDecoder(resp.Body).Decode(&body)
		return resp.StatusCode, body
	}
	status, page := ecom("GET", "/ecommerce/v3/orders")
	orders, _ := page["content"].([]any)
	if status != 200 || len(orders) != 1 {
		t.Fatalf("seeded orders: %d %v", status, page)
	}
	id := orders[0].(map[string]any)["externalId"].(string)
	if err := srv.Admin.SetOrderStatus(id, "Submitted", ""); err != nil {
		t.Fatal(err)
	}
	if err := srv.Admin.SetOrderStatus(id, "Delivered", ""); err != nil {
		t.Fatal(err)
	}
	if _, o := ecom("GET", "/ecommerce/v3/orders/"+id); o["status"].(map[string]any)["value"] != "Delivered" {
		t.Fatalf("order after the moves: %v", o)
	}
	if err := srv.Admin.Reset(); err != nil {
		t.Fatal(err)
	}
	if status, _ := ecom("GET", "/ecommerce/v3/orders/"+id); status != http.StatusNotFound {
		t.Fatalf("order after the reset: %d", status)
	}
	if err := srv.Admin.Restore("demo"); err != nil {
		t.Fatal(err)
	}
	if _, o := ecom("GET", "/ecommerce/v3/orders/"+id); o["status"].(map[string]any)["value"] != "Created" {
		t.Fatalf("order after restoring the seeded state: %v", o)
	}
	err := srv.Admin.Restore("missing")
	if e, ok := err.(*parcelgatetest.Error); !ok || e.Status != http.StatusNotFound || !strings.Contains(e.Body, "missing") {
		t.Fatalf("restoring a missing snapshot: %v", err)
	}
}

// WithDatabase serves the database named, here an SQLite file, migrated
// and seeded like the in-memory default; a refused operator call is an
// *Error with the status; a database that cannot be opened fails Start.
func TestWithDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pg.db")
	srv := parcelgatetest.NewServer(t, parcelgatetest.WithDatabase("sqlite:"+path))
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the database file: %v", err)
	}
	if err := srv.Admin.Snapshot("s1"); err != nil {
		t.Fatal(err)
	}
	err := srv.Admin.Restore("none")
	if e, ok := errors.AsType[*parcelgatetest.Error](err); !ok || e.Status != http.StatusNotFound {
		t.Errorf("restoring a missing snapshot: %v", err)
	}
	if s, err := parcelgatetest.Start(parcelgatetest.WithDatabase("nosuchdriver:x")); err == nil {
		s.Close()
		t.Error("an unknown database opened")
	}
}
