package httpapi_test

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/demo"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
	"github.com/parcelgate/parcelgate/internal/wiring"
)

// The sandbox tests' tenants, tenantA and tenantB, are declared with the
// fuzz tests.

func orgPath(bid, rest string) string {
	return "/admin/v1/organizations/" + bid + rest + "?environment=test"
}

// pollWH1 polls m's warehouse catalog for changes after cursor, as the
// warehouse plugin does (decisions §6), and returns them.
func pollWH1(m *merchant, cursor string) []polled {
	m.T.Helper()
	var p polledPage
	path := "/ecommerce/v3/catalogs/WH1/balances"
	if cursor != "" {
		path += "?" + since(cursor)
	}
	m.do("GET", path, nil).Expect(http.StatusOK).JSON(&p)
	return p.Content
}

func orderCount(m *merchant) int {
	m.T.Helper()
	var p httpapi.Page[parcelgate.Order]
	m.do("GET", "/ecommerce/v3/orders", nil).Expect(http.StatusOK).JSON(&p)
	return len(p.Content)
}

// Resetting one organization empties its orders, products and
// balances in one call; a poller of its catalog mid-sync sees every balance
// removed (tombstones with new stamps), never a rewind; the other tenant's
// data and its poller's view are untouched. A snapshot restores the data
// exactly, with new stamps, so the same poller sees it come back.
func TestResetAndRestoreOneTenant(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		a := newMerchant(t, e, parcelgate.Test, tenantA)
		b := newMerchant(t, e, parcelgate.Test, tenantB)
		a.create(a.orderBody("A1", 2))
		delivered := a.create(a.orderBody("A2", 1))
		a.setStatus(delivered.ExternalID, "Submitted").Expect(http.StatusOK)
		a.setStatus(delivered.ExternalID, "Delivered").Expect(http.StatusOK)
		b.create(b.orderBody("B1", 3))
		before := a.balance("P1")

		cursorA := newest("", pollWH1(a, ""))
		cursorB := newest("", pollWH1(b, ""))

		var snap parcelgate.Snapshot
		e.Admin("POST", orgPath(tenantA, "/snapshots"), map[string]any{"name": "seeded"}).Expect(http.StatusCreated).JSON(&snap)
		if snap.Name != "seeded" || snap.BusinessID != tenantA || snap.Tables["orders"] != 2 || snap.Tables["products"] != 2 || snap.Tables["balances"] != 2 {
			t.Fatalf("snapshot %+v", snap)
		}

		var res parcelgate.ResetResult
		e.Admin("POST", orgPath(tenantA, "/reset"), nil).Expect(http.StatusOK).JSON(&res)
		if res.Organizations != 1 || res.Removed["orders"] != 2 || res.Removed["balances"] != 2 || res.Removed["products"] != 2 {
			t.Fatalf("reset %+v", res)
		}
		if n := orderCount(a); n != 0 {
			t.Errorf("%d orders after the reset", n)
		}
		supplier := e.EcomToken(parcelgate.Test, tenantA, parcelgate.RoleSupplier)
		var products httpapi.Page[map[string]any]
		e.Do(apitest.Request{Method: "GET", Path: "/ecommerce/v3/inventory", Bearer: supplier}).Expect(http.StatusOK).JSON(&products)
		if len(products.Content) != 0 {
			t.Errorf("products after the reset: %+v", products.Content)
		}
		// The poller mid-sync sees both balances removed after its cursor.
		removed := pollWH1(a, cursorA)
		if len(removed) != 2 {
			t.Fatalf("poller after the reset: %+v", removed)
		}
		for _, bal := range removed {
			if !bal.Removed || bal.Quantity != 0 || bal.ModifiedDate <= cursorA {
				t.Errorf("not a tombstone after the cursor: %+v", bal)
			}
		}
		cursorA = newest(cursorA, removed)
		// The other tenant: its order, its stock and its poller's view.
		if n := orderCount(b); n != 1 {
			t.Errorf("tenant B has %d orders after A's reset", n)
		}
		if got := pollWH1(b, cursorB); len(got) != 0 {
			t.Errorf("tenant B's poller saw changes: %+v", got)
		}
		if got := b.balance("P1"); got.Quantity != 97 || got.Allocated != 3 {
			t.Errorf("tenant B's stock changed: %+v", got)
		}

		var rr parcelgate.RestoreResult
		e.Admin("POST", orgPath(tenantA, "/snapshots/seeded/restore"), nil).Expect(http.StatusOK).JSON(&rr)
		if rr.Restored["orders"] != 2 || rr.Restored["balances"] != 2 || rr.Restored["shipments"] != 1 {
			t.Fatalf("restore %+v", rr)
		}
		if got := a.balance("P1"); got.Quantity != before.Quantity || got.Allocated != before.Allocated {
			t.Errorf("restored balance %+v, saved %+v", got, before)
		}
		if got := a.get(delivered.ExternalID); got.Status.Value != parcelgate.OrderDelivered || len(got.TrackingCodes) == 0 {
			t.Errorf("restored delivered order %+v", got)
		}
		if n := orderCount(a); n != 2 {
			t.Errorf("%d orders after the restore", n)
		}
		// The poller sees the balances come back, after its cursor.
		back := pollWH1(a, cursorA)
		if len(back) != 2 {
			t.Fatalf("poller after the restore: %+v", back)
		}
		for _, bal := range back {
			if bal.Removed || bal.ModifiedDate <= cursorA {
				t.Errorf("restored balance not a new change: %+v", bal)
			}
		}
		if got := pollWH1(b, cursorB); len(got) != 0 {
			t.Errorf("tenant B's poller saw A's restore: %+v", got)
		}
		// A restored order goes on as before: the open one can be cancelled.
		a.do("DELETE", "/ecommerce/v3/orders/"+tenantA+"-A1", nil).Expect(http.StatusOK)

		var list httpapi.List[parcelgate.Snapshot]
		e.Admin("GET", orgPath(tenantA, "/snapshots"), nil).Expect(http.StatusOK).JSON(&list)
		if len(list.Content) != 1 || list.Content[0].Name != "seeded" {
			t.Fatalf("snapshots %+v", list)
		}
		e.Admin("DELETE", orgPath(tenantA, "/snapshots/seeded"), nil).Expect(http.StatusNoContent)
		e.Admin("POST", orgPath(tenantA, "/snapshots/seeded/restore"), nil).Expect(http.StatusNotFound)
		e.Admin("GET", orgPath(tenantA, "/snapshots"), nil).Expect(http.StatusOK).JSON(&list)
		if len(list.Content) != 0 {
			t.Fatalf("snapshots after the drop %+v", list)
		}

		// catalogs=true also removes the catalogs A owns.
		e.Admin("POST", orgPath(tenantA, "/reset")+"&catalogs=true", nil).Expect(http.StatusOK)
		a.do("GET", "/ecommerce/v3/catalogs/WH1/balances", nil).Expect(http.StatusNotFound)
		pollWH1(b, "")
	})
}

// A whole environment can be reset; the other environment keeps
// its data.
func TestResetEnvironment(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		a := newMerchant(t, e, parcelgate.Test, tenantA)
		b := newMerchant(t, e, parcelgate.Test, tenantB)
		p := newMerchant(t, e, parcelgate.Production, tenantA)
		a.create(a.orderBody("A1", 1))
		b.create(b.orderBody("B1", 1))
		p.create(p.orderBody("P1", 1))
		var res parcelgate.ResetResult
		e.Admin("POST", "/admin/v1/reset?environment=test", nil).Expect(http.StatusOK).JSON(&res)
		if res.Organizations != 2 || res.Removed["orders"] != 2 {
			t.Fatalf("reset %+v", res)
		}
		if orderCount(a) != 0 || orderCount(b) != 0 || orderCount(p) != 1 {
			t.Fatalf("orders after the reset: a %d b %d production %d", orderCount(a), orderCount(b), orderCount(p))
		}
	})
}

// Bad input to the reset and snapshot calls names the field; an unknown
// tenant or snapshot is 404.
func TestResetBadInput(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		e.Org(parcelgate.Test, tenantA)
		e.Admin("POST", orgPath("7654321-2", "/reset"), nil).Expect(http.StatusNotFound)
		e.Admin("POST", orgPath("7654321-2", "/snapshots"), map[string]any{"name": "x"}).Expect(http.StatusNotFound)
		e.Admin("GET", orgPath("7654321-2", "/snapshots"), nil).Expect(http.StatusNotFound)
		expectField(t, e.Admin("POST", orgPath(tenantA, "/reset")+"&catalogs=yes", nil).Expect(http.StatusBadRequest), "catalogs")
		expectField(t, e.Admin("POST", "/admin/v1/organizations/"+tenantA+"/reset?environment=staging", nil).Expect(http.StatusBadRequest), "environment")
		for _, name := range []string{"", "a b", "../x", fmt.Sprintf("%065d", 0)} {
			expectField(t, e.Admin("POST", orgPath(tenantA, "/snapshots"), map[string]any{"name": name}).Expect(http.StatusBadRequest), "name")
		}
		e.Admin("POST", orgPath(tenantA, "/snapshots"), map[string]any{"name": "x", "extra": 1}).Expect(http.StatusBadRequest)
		e.Admin("POST", orgPath(tenantA, "/snapshots/missing/restore"), nil).Expect(http.StatusNotFound)
		e.Admin("DELETE", orgPath(tenantA, "/snapshots/missing"), nil).Expect(http.StatusNotFound)
		e.Admin("POST", "/admin/v1/demo/reset", nil).Expect(http.StatusNotFound)
	})
}

// --demo data goes back to its seeded state with one call.
func TestDemoReset(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		if _, err := demo.Seed(context.Background(), wiring.Demo(e.DB), parcelgate.DefaultVersions); err != nil {
			t.Fatal(err)
		}
		tn := demo.Tenants[1]
		var seeded httpapi.List[parcelgate.Snapshot]
		e.Admin("GET", orgPath(tn.BusinessID, "/snapshots"), nil).Expect(http.StatusOK).JSON(&seeded)
		if len(seeded.Content) != 1 || seeded.Content[0].Name != "demo" || seeded.Content[0].Objects == 0 {
			t.Fatalf("demo snapshots %+v", seeded)
		}
		e.Admin("POST", "/admin/v1/reset?environment=test", nil).Expect(http.StatusOK)
		var res httpapi.List[parcelgate.RestoreResult]
		e.Admin("POST", "/admin/v1/demo/reset", nil).Expect(http.StatusOK).JSON(&res)
		if len(res.Content) != 3*len(demo.Tenants) {
			t.Fatalf("demo reset restored %+v", res)
		}
		var now parcelgate.Snapshot
		e.Admin("POST", orgPath(tn.BusinessID, "/snapshots"), map[string]any{"name": "now"}).Expect(http.StatusCreated).JSON(&now)
		if !maps.Equal(now.Tables, seeded.Content[0].Tables) {
			t.Fatalf("after the demo reset %v, seeded %v", now.Tables, seeded.Content[0].Tables)
		}
	})
}

// GET .../snapshots/{name} answers the snapshot (name, created,
// environment, object counts); another organization's snapshot, another
// environment's, and a missing name answer 404 alike.
func TestGetSnapshot(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		a := newMerchant(t, e, parcelgate.Test, tenantA)
		newMerchant(t, e, parcelgate.Test, tenantB)
		a.create(a.orderBody("S1", 1))
		var taken, got parcelgate.Snapshot
		e.Admin("POST", orgPath(tenantA, "/snapshots"), map[string]any{"name": "before-test"}).Expect(http.StatusCreated).JSON(&taken)
		e.Admin("GET", orgPath(tenantA, "/snapshots/before-test"), nil).Expect(http.StatusOK).JSON(&got)
		if got.Name != "before-test" || got.Environment != parcelgate.Test || got.BusinessID != tenantA || !got.CreatedAt.Equal(taken.CreatedAt) ||
			got.Objects != taken.Objects || got.Objects == 0 || got.Tables["orders"] != 1 {
			t.Fatalf("snapshot %+v, taken %+v", got, taken)
		}
		e.Admin("GET", orgPath(tenantB, "/snapshots/before-test"), nil).Expect(http.StatusNotFound)
		e.Admin("GET", orgPath(tenantA, "/snapshots/no-such"), nil).Expect(http.StatusNotFound)
		e.Admin("GET", "/admin/v1/organizations/"+tenantA+"/snapshots/before-test?environment=production", nil).Expect(http.StatusNotFound)
		e.Do(apitest.Request{Method: "GET", Path: orgPath(tenantA, "/snapshots/before-test")}).Expect(http.StatusUnauthorized)
	})
}
