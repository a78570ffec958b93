package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

// Decisions §21: on a server started without --sandbox
// every operator control names its environment (400 naming environment
// without one) and production refuses resets, restores, faults and clock
// moves (403 naming --sandbox); nothing of production's changes, and the
// test environment keeps every control.
func TestSandboxModeProductionIsSafe(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		prod := newMerchant(t, e, parcelgate.Production, tenantA)
		test := newMerchant(t, e, parcelgate.Test, tenantA)
		prod.create(prod.orderBody("P1", 1))
		test.create(test.orderBody("T1", 1))
		e.Admin("POST", "/admin/v1/organizations/"+tenantA+"/snapshots?environment=production", map[string]any{"name": "s"}).Expect(http.StatusCreated)
		e.Admin("POST", "/admin/v1/organizations/"+tenantA+"/snapshots?environment=test", map[string]any{"name": "s"}).Expect(http.StatusCreated)

		forbidden := func(r *apitest.Response) {
			t.Helper()
			r.Expect(http.StatusForbidden)
			if !strings.Contains(string(r.Body), "--sandbox") {
				t.Errorf("a refusal must name --sandbox: %s", r.Body)
			}
		}
		org := "/admin/v1/organizations/" + tenantA
		// Without an environment: 400 naming it, on every control.
		expectField(t, e.Admin("POST", "/admin/v1/reset", nil).Expect(http.StatusBadRequest), "environment")
		expectField(t, e.Admin("POST", org+"/reset", nil).Expect(http.StatusBadRequest), "environment")
		expectField(t, e.Admin("POST", org+"/snapshots/s/restore", nil).Expect(http.StatusBadRequest), "environment")
		expectField(t, e.Admin("POST", "/admin/v1/faults", map[string]any{"businessId": tenantA, "status": 503}).Expect(http.StatusBadRequest), "environment")
		expectField(t, e.Admin("POST", "/admin/v1/clock", map[string]any{"advance": "1h"}).Expect(http.StatusBadRequest), "environment")
		// Production: 403 naming --sandbox.
		forbidden(e.Admin("POST", "/admin/v1/reset?environment=production", nil))
		forbidden(e.Admin("POST", org+"/reset?environment=production", nil))
		forbidden(e.Admin("POST", org+"/snapshots/s/restore?environment=production", nil))
		forbidden(e.Admin("POST", "/admin/v1/faults", map[string]any{"environment": "production", "businessId": tenantA, "status": 503}))
		forbidden(e.Admin("POST", "/admin/v1/clock", map[string]any{"advance": "1h", "environment": "production"}))
		forbidden(e.Admin("POST", "/admin/v1/demo/reset", nil))

		// Production's data and calls are untouched.
		if n := orderCount(prod); n != 1 {
			t.Fatalf("production orders after refused controls: %d, want 1", n)
		}
		// A test scenario's magic value is plain data in production.
		if o := prod.create(prod.orderBody("P2.ERROR", 1)); o.Status.Value != parcelgate.OrderCreated {
			t.Errorf("a production order ending in .ERROR: %+v", o.Status)
		}
		if o := test.create(test.orderBody("T2.ERROR", 1)); o.Status.Value != parcelgate.OrderError {
			t.Errorf("a test order ending in .ERROR: %+v", o.Status)
		}
		var st httpapi.ClockState
		e.Admin("GET", "/admin/v1/clock?environment=production", nil).Expect(http.StatusOK).JSON(&st)
		if st.Mode != "production" || st.Sandbox || st.Offset != "0s" {
			t.Fatalf("production clock on a server without --sandbox: %+v", st)
		}

		// The test environment keeps them all.
		e.Admin("POST", "/admin/v1/faults", map[string]any{"environment": "test", "businessId": tenantA, "route": "/ecommerce/v3/orders", "status": 503, "count": 1}).Expect(http.StatusCreated)
		test.do("GET", "/ecommerce/v3/orders", nil).Expect(http.StatusServiceUnavailable)
		prod.do("GET", "/ecommerce/v3/orders", nil).Expect(http.StatusOK)
		e.Admin("POST", org+"/snapshots/s/restore?environment=test", nil).Expect(http.StatusOK)
		e.Admin("POST", "/admin/v1/reset?environment=test", nil).Expect(http.StatusOK)
		if n := orderCount(test); n != 0 {
			t.Fatalf("test orders after its reset: %d", n)
		}
		if n := orderCount(prod); n != 2 {
			t.Fatalf("production orders after the test environment's reset: %d, want 2", n)
		}
		e.Admin("POST", "/admin/v1/clock", map[string]any{"advance": "1h", "environment": "test"}).Expect(http.StatusOK).JSON(&st)
		if st.Mode != "production" || !st.Sandbox || st.Offset != "1h0m0s" {
			t.Fatalf("test clock: %+v", st)
		}
	}, apitest.NotSandbox)
}

// decisions §21: a --sandbox server declares production disposable too;
// the environment must still be named.
func TestSandboxModeServer(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		prod := newMerchant(t, e, parcelgate.Production, tenantA)
		prod.create(prod.orderBody("P1", 1))
		expectField(t, e.Admin("POST", "/admin/v1/reset", nil).Expect(http.StatusBadRequest), "environment")
		if n := orderCount(prod); n != 1 {
			t.Fatalf("orders after a reset without environment: %d", n)
		}
		var st httpapi.ClockState
		e.Admin("GET", "/admin/v1/clock?environment=production", nil).Expect(http.StatusOK).JSON(&st)
		if st.Mode != "sandbox" || !st.Sandbox {
			t.Fatalf("clock of a --sandbox server: %+v", st)
		}
		e.Admin("POST", "/admin/v1/reset?environment=production", nil).Expect(http.StatusOK)
		if n := orderCount(prod); n != 0 {
			t.Fatalf("orders after the production reset: %d", n)
		}
	})
}
