package httpapi_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

func TestHealthReadyMetricsDocs(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		e.Do(apitest.Request{Method: "GET", Path: "/healthz"}).Expect(200)
		e.Do(apitest.Request{Method: "GET", Path: "/readyz"}).Expect(200)
		spec := e.Do(apitest.Request{Method: "GET", Path: "/openapi.yaml"}).Expect(200)
		if !bytes.HasPrefix(spec.Body, []byte("openapi: 3")) {
			t.Fatalf("openapi.yaml starts %q", spec.Body[:20])
		}
		docs := e.Do(apitest.Request{Method: "GET", Path: "/docs"}).Expect(200)
		if !strings.Contains(string(docs.Body), `id="op-createSendingCode"`) || !strings.HasPrefix(docs.Header.Get("Content-Security-Policy"), "default-src 'none'") {
			t.Fatalf("/docs is not the API reference, or may load from elsewhere: CSP %q", docs.Header.Get("Content-Security-Policy"))
		}
		m := e.Do(apitest.Request{Method: "GET", Path: "/metrics"}).Expect(200)
		if !strings.Contains(string(m.Body), `parcelgate_http_requests_total{method="GET",route="GET /readyz",status="200"} 1`) {
			t.Fatalf("metrics lack the readyz request:\n%s", m.Body)
		}
	})
}

// Metrics are labelled by a bounded set of values: a client inventing
// methods adds one OTHER series, not one per method (robustness: no
// unbounded allocation from input).
func TestMetricsMethodLabelIsBounded(t *testing.T) {
	e := apitest.New(t, "sqlite")
	for i := range 20 {
		e.Do(apitest.Request{Method: fmt.Sprintf("X%dY", i), Path: "/healthz", Undocumented: true}).Expect(405)
	}
	m := e.Do(apitest.Request{Method: "GET", Path: "/metrics"}).Expect(200)
	if strings.Contains(string(m.Body), `method="X1Y"`) {
		t.Fatalf("an invented method got its own series:\n%s", m.Body)
	}
	if !strings.Contains(string(m.Body), `parcelgate_http_requests_total{method="OTHER",route="unmatched",status="405"} 20`) {
		t.Fatalf("invented methods are not counted as OTHER:\n%s", m.Body)
	}
}

// decisions §26: each route is counted under its own pattern, method and
// status, whatever its requests before it were: the /v3 alias of a route
// apart from the route, a route's 400s apart from its 401s.
func TestMetricsSeriesPerRouteAndStatus(t *testing.T) {
	e := apitest.New(t, "sqlite")
	e.Do(apitest.Request{Method: "GET", Path: "/ecommerce/v3/orders/A1"}).Expect(401)
	e.Do(apitest.Request{Method: "GET", Path: "/v3/orders/A1"}).Expect(401)
	e.Do(apitest.Request{Method: "GET", Path: "/ecommerce/v3/orders/A%00", Undocumented: true}).Expect(400)
	e.Do(apitest.Request{Method: "GET", Path: "/ecommerce/v3/orders/A1"}).Expect(401)
	m := string(e.Do(apitest.Request{Method: "GET", Path: "/metrics"}).Expect(200).Body)
	for _, want := range []string{
		`parcelgate_http_requests_total{method="GET",route="GET /ecommerce/v3/orders/{id}",status="401"} 2`,
		`parcelgate_http_requests_total{method="GET",route="GET /v3/orders/{id}",status="401"} 1`,
		`parcelgate_http_requests_total{method="GET",route="GET /ecommerce/v3/orders/{id}",status="400"} 1`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %s:\n%s", want, m)
		}
	}
}

// /readyz says 503 when the database is gone, so a load balancer drains
// the instance.
func TestReadyzWithoutDatabase(t *testing.T) {
	e := apitest.New(t, "sqlite")
	e.DB.Close()
	e.Do(apitest.Request{Method: "GET", Path: "/readyz"}).Expect(503)
}

// Unknown routes answer JSON 404, wrong methods 405 with Allow, each in the
// error shape of the surface the path belongs to.
func TestNotFoundAndMethodNotAllowed(t *testing.T) {
	e := apitest.New(t, "sqlite")
	var gw httpapi.GatewayError
	e.Do(apitest.Request{Method: "GET", Path: "/nothing/here", Undocumented: true}).Expect(404).JSON(&gw)
	if gw.ErrorCode != "NOT_FOUND" {
		t.Fatalf("gateway 404 %+v", gw)
	}
	var ec httpapi.EcomError
	e.Do(apitest.Request{Method: "GET", Path: "/ecommerce/v3/nothing", Undocumented: true}).Expect(404).JSON(&ec)
	if ec.Status != 404 || ec.Path != "/ecommerce/v3/nothing" {
		t.Fatalf("ecom 404 %+v", ec)
	}
	r := e.Do(apitest.Request{Method: "DELETE", Path: "/healthz", Undocumented: true}).Expect(405)
	if r.Header.Get("Allow") != "GET, HEAD" {
		t.Fatalf("Allow %q", r.Header.Get("Allow"))
	}
	r = e.Do(apitest.Request{Method: "PUT", Path: "/api/v1/token", Undocumented: true}).Expect(405)
	r.JSON(&gw)
	if gw.ErrorCode != "METHOD_NOT_ALLOWED" || r.Header.Get("Allow") != "POST" {
		t.Fatalf("405 %+v allow %q", gw, r.Header.Get("Allow"))
	}
}

// Request bodies over the cap are 413 in the surface's shape.
func TestBodyCap(t *testing.T) {
	e := apitest.New(t, "sqlite", func(c *httpapi.Config) { c.MaxBodyBytes = 1024 })
	big := `{"businessId":"1234567-1","name":"` + strings.Repeat("x", 2000) + `"}`
	var ec httpapi.EcomError
	e.Admin("POST", "/admin/v1/organizations", big).Expect(413).JSON(&ec)
	if ec.Status != 413 {
		t.Fatalf("%+v", ec)
	}
	// Chunked, so the length is only found out while reading.
	req, _ := http.NewRequest("POST", e.URL+"/admin/v1/organizations", io.MultiReader(strings.NewReader(big)))
	req.ContentLength = -1
	req.Header.Set("Authorization", "Bearer "+apitest.AdminToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 413 {
		t.Fatalf("chunked body over the cap: %d", resp.StatusCode)
	}
}

// Request IDs: a client's own is echoed, else one is made.
func TestRequestID(t *testing.T) {
	e := apitest.New(t, "sqlite")
	r := e.Do(apitest.Request{Method: "GET", Path: "/healthz", Header: http.Header{"X-Request-Id": {"abc-123"}}})
	if r.Header.Get("X-Request-Id") != "abc-123" {
		t.Fatalf("echo %q", r.Header.Get("X-Request-Id"))
	}
	r = e.Do(apitest.Request{Method: "GET", Path: "/healthz", Header: http.Header{"X-Request-Id": {"bad id with spaces"}}})
	if id := r.Header.Get("X-Request-Id"); id == "" || strings.Contains(id, " ") {
		t.Fatalf("generated %q", id)
	}
}

// interface §4.4 GET rule 4: responses are compressed when the client asks.
func TestGzip(t *testing.T) {
	e := apitest.New(t, "sqlite")
	req, _ := http.NewRequest("GET", e.URL+"/openapi.yaml", nil)
	req.Header.Set("Accept-Encoding", "gzip,deflate")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("Content-Encoding %q", resp.Header.Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(zr)
	if !bytes.HasPrefix(b, []byte("openapi: 3")) {
		t.Fatalf("decompressed %q", b[:20])
	}
}

// decisions §8: with --rate-limit, the API answers 429 with Retry-After in each
// surface's error shape, as openapi.yaml describes.
func TestRateLimitResponsesDescribed(t *testing.T) {
	e := apitest.New(t, "sqlite", func(c *httpapi.Config) { c.RateLimit = 1 })
	gw := e.GatewayToken("production", "1234567-1")
	ec := e.EcomToken("production", "1234567-1", "supplier")
	statuses := map[string][]int{}
	for range 3 {
		statuses["gateway"] = append(statuses["gateway"], e.Do(apitest.Request{Method: "GET", Path: "/2025-04/labelless/JJFI12345678901234567", Bearer: gw}).Status)
		statuses["ecom"] = append(statuses["ecom"], e.Do(apitest.Request{Method: "GET", Path: "/ecommerce/v3/inventory", Bearer: ec}).Status)
	}
	if statuses["gateway"][2] != 429 || statuses["ecom"][2] != 429 || statuses["ecom"][0] != 200 {
		t.Fatalf("statuses %v", statuses)
	}
}
