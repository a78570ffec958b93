package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

func faultsOf(t *testing.T, e *apitest.Env) []httpapi.FaultRecord {
	t.Helper()
	var l httpapi.List[httpapi.FaultRecord]
	e.Admin("GET", "/admin/v1/faults", nil).Expect(http.StatusOK).JSON(&l)
	return l.Content
}

// A fault answers matching calls with its status in the
// surface's own error shape, before the request is handled (nothing is
// written), as often as its count says, on every instance; it is listed,
// counted in /metrics and deleted.
func TestFaultInjection(t *testing.T) {
	apitest.EachShared(t, 2, func(t *testing.T, es []*apitest.Env) {
		a, b := es[0], es[1]
		m := newMerchant(t, a, parcelgate.Test, tenantA)
		other := newMerchant(t, a, parcelgate.Test, tenantB)

		var f httpapi.FaultRecord
		a.Admin("POST", "/admin/v1/faults", map[string]any{"environment": "test", "businessId": tenantA, "method": "PUT",
			"route": "/ecommerce/v3/order", "status": 503, "retryAfter": 2, "count": 2}).Expect(http.StatusCreated).JSON(&f)
		if f.ID == "" || f.Remaining != 2 || f.Status != 503 {
			t.Fatalf("created %+v", f)
		}
		// The other instance applies it within a second (its copy is read
		// again at most a second old).
		time.Sleep(httpapi.FaultRefresh + 100*time.Millisecond)
		for i, e := range []*apitest.Env{b, a} {
			r := e.Do(apitest.Request{Method: "PUT", Path: "/ecommerce/v3/order", Body: m.orderBody("F1", 1), Bearer: m.token}).Expect(http.StatusServiceUnavailable)
			var eb httpapi.EcomError
			r.JSON(&eb)
			if eb.Status != 503 || !strings.Contains(eb.Message, f.ID) || r.Header.Get("Retry-After") != "2" {
				t.Fatalf("answer %d: %s %v", i, r.Body, r.Header)
			}
		}
		// Nothing was written; the count is spent, so the next call is real.
		if n := orderCount(m); n != 0 {
			t.Fatalf("a faulted create wrote %d orders", n)
		}
		m.do("PUT", "/ecommerce/v3/order", m.orderBody("F1", 1)).Expect(http.StatusOK)
		// Other tenants, methods and routes were never affected.
		other.do("PUT", "/ecommerce/v3/order", other.orderBody("F1", 1)).Expect(http.StatusOK)
		if fs := faultsOf(t, a); len(fs) != 0 {
			t.Fatalf("a spent fault is still listed: %+v", fs)
		}

		// The gateway surface answers in its own shape.
		tok := a.GatewayToken(parcelgate.Test, tenantA)
		a.Admin("POST", "/admin/v1/faults", map[string]any{"environment": "test", "route": "/{version}/labelless", "status": 502}).Expect(http.StatusCreated).JSON(&f)
		r := postSendingCode(a, tok, sendingCodeFor("JJFI12345600000000001", true)).Expect(http.StatusBadGateway)
		var ge httpapi.GatewayError
		r.JSON(&ge)
		if ge.ErrorCode != "BAD_GATEWAY" || !strings.Contains(ge.Message, f.ID) {
			t.Fatalf("gateway answer %s", r.Body)
		}
		if fs := faultsOf(t, a); len(fs) != 1 || fs[0].Fired != 1 || fs[0].Remaining != -1 {
			t.Fatalf("listed %+v", fs)
		}
		metrics := string(a.Do(apitest.Request{Method: "GET", Path: "/metrics"}).Expect(http.StatusOK).Body)
		if !strings.Contains(metrics, `parcelgate_faults_injected_total{environment="test",status="502"} 1`) ||
			!strings.Contains(metrics, `parcelgate_faults_injected_total{environment="test",status="503"} 1`) {
			t.Errorf("metrics lack the faults:\n%s", metrics)
		}
		a.Admin("DELETE", "/admin/v1/faults/"+f.ID, nil).Expect(http.StatusNoContent)
		postSendingCode(a, tok, sendingCodeFor("JJFI12345600000000001", true)).Expect(http.StatusOK)
		a.Admin("DELETE", "/admin/v1/faults/"+f.ID, nil).Expect(http.StatusNotFound)

		// Latency alone delays the real answer.
		a.Admin("POST", "/admin/v1/faults", map[string]any{"environment": "test", "businessId": tenantA, "latency": "300ms", "count": 1}).Expect(http.StatusCreated)
		start := time.Now()
		m.do("GET", "/ecommerce/v3/orders", nil).Expect(http.StatusOK)
		if d := time.Since(start); d < 300*time.Millisecond {
			t.Errorf("latency fault answered in %v", d)
		}
	})
}

// Bad faults name the field.
func TestFaultBadInput(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		for _, c := range []struct {
			body  map[string]any
			field string
		}{
			{map[string]any{"environment": "test", "status": 404}, "status"},
			{map[string]any{"environment": "test"}, "status"},
			{map[string]any{"environment": "stage", "status": 503}, "environment"},
			{map[string]any{"environment": "test", "status": 503, "latency": "soon"}, "latency"},
			{map[string]any{"environment": "test", "status": 503, "latency": "2h"}, "latency"},
			{map[string]any{"environment": "test", "status": 503, "probability": 2}, "probability"},
			{map[string]any{"environment": "test", "status": 503, "probability": 0.5, "count": 3}, "count"},
			{map[string]any{"environment": "test", "status": 503, "count": 0}, "count"},
			{map[string]any{"environment": "test", "status": 503, "expiresAfter": "-1m"}, "expiresAfter"},
			{map[string]any{"environment": "test", "status": 503, "method": "TRACE"}, "method"},
			{map[string]any{"environment": "test", "status": 503, "route": "/admin/v1/clock"}, "route"},
		} {
			expectField(t, e.Admin("POST", "/admin/v1/faults", c.body).Expect(http.StatusBadRequest), c.field)
		}
		expectField(t, e.Admin("POST", "/admin/v1/faults", map[string]any{"environment": "test", "status": 503, "businessId": "7654321-2"}).Expect(http.StatusNotFound), "businessId")
	})
}
