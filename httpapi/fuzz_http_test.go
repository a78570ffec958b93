package httpapi_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
)

// FuzzHTTP drives the real router, over a real store, with arbitrary
// requests: any method, target (path and query), headers and body, sent
// as tenant A of two seeded tenants (gateway token, ecom token, HTTP Basic
// at either token service, the operator token, or nothing). It fails on
//
//   - any 5xx answer (a panic is answered 500 by the middleware);
//   - an answer of a JSON route that is not valid JSON in valid UTF-8, or
//     not labelled application/json;
//   - an answer to tenant A that holds one of tenant B's identifiers or
//     contents the request did not itself carry (a cross-tenant read).
//
// The engine byte picks SQLite (in-process, fast) or PostgreSQL, when it is
// reachable. The seed corpus below holds every hostile input once found; run
// longer with
//
//	go test -run '^$' -fuzz '^FuzzHTTP$' -fuzztime 30m ./httpapi
func FuzzHTTP(f *testing.F) {
	for _, s := range fuzzSeeds() {
		for engine := range uint8(2) {
			f.Add(engine, s.who, s.method, s.target, s.headers, []byte(s.body))
		}
	}
	fixtures := []*fuzzFixture{newFuzzFixture(f, "sqlite")}
	if postgresReachable() {
		fixtures = append(fixtures, newFuzzFixture(f, "postgres"))
	}
	f.Fuzz(func(t *testing.T, engine, who uint8, method, target, headers string, body []byte) {
		fixtures[int(engine)%len(fixtures)].serve(t, who, method, target, headers, body)
	})
}

// fuzzAddrs numbers the client addresses of fuzz requests.
var fuzzAddrs atomic.Uint32

// Credential choices of the who byte (its low 3 bits); the high bit sends
// the body chunked, without a Content-Length.
const (
	asNobody = iota
	asGateway
	asEcom
	asEcomBasic
	asGatewayBasic
	asOperator
	fuzzChunked = 0x80
)

// Tenant B: every identifier and text of its objects holds fuzzMarker, so
// one case-insensitive search finds any of them in an answer.
const (
	fuzzMarker = "zyxwvb"
	tenantA    = "1234567-1"
	tenantB    = "7654321-2"
)

type fuzzTenant struct {
	bid                    string
	gatewayID, gatewaySec  string
	username, password     string
	gatewayTok, ecomTok    string
	orderID, orderExternal string
}

type fuzzFixture struct {
	env  *apitest.Env
	a, b fuzzTenant
	// secrets are tenant B's identifiers and texts, lower-cased; none may
	// reach an answer to A that did not carry it in the request.
	secrets []string

	mu     sync.Mutex
	minted time.Time
}

// postgresReachable tells whether the PostgreSQL half can run; under CI it
// must (testdb then fails rather than skips).
func postgresReachable() bool {
	if os.Getenv("CI") != "" {
		return true
	}
	db, err := sql.Open("pgx", testdb.PostgresDSN())
	if err != nil {
		return false
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return db.PingContext(ctx) == nil
}

// newFuzzFixture starts a server on engine with tenants A and B, each with
// a warehouse catalog, a product with stock, an order, a shipment with a
// sending code and an errand code. The server has no environment clock, so no
// input can move time past the tokens' lifetime.
func newFuzzFixture(tb testing.TB, engine string) *fuzzFixture {
	e := apitest.New(tb, engine, func(c *httpapi.Config) { c.OffsetClock = nil })
	fx := &fuzzFixture{env: e}
	fx.a = seedFuzzTenant(e, tenantA, "WHA", "Shop A", "JJFI00000000000000001", "PARCELA00001")
	fx.b = seedFuzzTenant(e, tenantB, "ZYXWVBCAT", "Zyxwvb Oy", "JJFIZYXWVB0000000001", "ZYXWVBPARCEL0001")
	fx.secrets = []string{fuzzMarker, strings.ToLower(fx.b.orderID), strings.ToLower(fx.b.gatewayID), strings.ToLower(fx.b.username)}
	fx.minted = time.Now()
	return fx
}

func seedFuzzTenant(e *apitest.Env, bid, catalog, name, tracking, parcel string) fuzzTenant {
	env := parcelgate.Production
	address := map[string]any{"name": name, "streetAddress": "Katu 1", "postalCode": "00100", "postOffice": "Helsinki", "country": "FI", "email": "shop@example.com"}
	e.Admin("POST", "/admin/v1/organizations", map[string]any{"environment": env, "businessId": bid, "name": name, "address": address}).Expect(http.StatusCreated)
	e.Catalog(env, bid, catalog, parcelgate.CatalogWarehouse, bid)
	t := fuzzTenant{bid: bid}
	t.gatewayID, t.gatewaySec = e.GatewayClient(env, bid)
	t.username, t.password = e.ServiceAccount(env, bid, parcelgate.RoleMerchant, parcelgate.RoleSupplier, parcelgate.RoleRetailer)
	t.gatewayTok, t.ecomTok = mintFuzzTokens(e, t)
	product := bid + "-" + strings.ToUpper(strings.Fields(name)[0])[:4] + "P"
	if bid == tenantB {
		product = bid + "-ZYXWVBP"
	}
	ecom := func(method, path string, body any) *apitest.Response {
		return e.Do(apitest.Request{Method: method, Path: path, Body: body, Bearer: t.ecomTok})
	}
	ecom("PUT", "/ecommerce/v3/inventory", []any{map[string]any{
		"product":  map[string]any{"externalId": product, "eanCode": "6400000000017", "descriptions": map[string]any{"en": map[string]any{"name": "Product " + name}}},
		"balances": []any{map[string]any{"retailerId": bid, "catalogExternalId": catalog, "quantity": 50, "wholesalePrice": json.Number("2.50"), "currency": "EUR"}},
	}}).Expect(http.StatusOK)
	var o parcelgate.Order
	ecom("PUT", "/ecommerce/v3/order", map[string]any{
		"externalId": bid + "-" + strings.ToUpper(strings.Fields(name)[0]) + "O",
		"references": []any{map[string]any{"name": "SO", "value": "SO-" + strings.Fields(name)[0]}},
		"deliveryAddress": map[string]any{"name": name + " Receiver", "streetAddress": "Kotikatu 2", "postalCode": "00200",
			"postOffice": "Helsinki", "country": "FI", "telephone": "+358401234567", "email": "receiver@example.com"},
		"serviceCode": "2103",
		"rows":        []any{map[string]any{"externalProductId": product, "externalWarehouseId": catalog, "quantity": 1}},
	}).Expect(http.StatusOK).JSON(&o)
	t.orderID, t.orderExternal = o.ID, o.ExternalID
	gw := func(method, path string, body any) *apitest.Response {
		return e.Do(apitest.Request{Method: method, Path: path, Body: body, Bearer: t.gatewayTok})
	}
	gw("POST", "/2025-04/shipments", map[string]any{
		"trackingNumber": tracking, "serviceCode": "2103",
		"sender":   map[string]any{"name": name, "streetAddress": "Katu 1", "postalCode": "00100", "postOffice": "Helsinki", "country": "FI"},
		"receiver": map[string]any{"name": name + " Receiver", "streetAddress": "Tie 2", "postalCode": "33100", "postOffice": "Tampere", "country": "FI"},
		"parcels":  []any{map[string]any{"parcelId": parcel, "packageCode": "M2"}},
	}).Expect(http.StatusCreated)
	gw("POST", "/2025-04/labelless", map[string]any{"searchCriteria": map[string]any{"trackingNumber": tracking}}).Expect(http.StatusOK)
	gw("GET", "/parcel/v1/errandCodes/"+parcel, nil).Expect(http.StatusOK)
	return t
}

// mintFuzzTokens gets a gateway and an ecom token of t.
func mintFuzzTokens(e *apitest.Env, t fuzzTenant) (gateway, ecom string) {
	var gt httpapi.GatewayToken
	e.Do(apitest.Request{Method: "POST", Path: "/api/v1/token", ContentType: "application/x-www-form-urlencoded",
		Body: url.Values{"grant_type": {"client_credentials"}, "client_id": {t.gatewayID}, "client_secret": {t.gatewaySec}}.Encode()}).Expect(http.StatusOK).JSON(&gt)
	var et httpapi.EcomToken
	e.Do(apitest.Request{Method: "GET", Path: "/auth/token", Basic: &[2]string{t.username, t.password}}).Expect(http.StatusOK).JSON(&et)
	return gt.AccessToken, et.AccessToken
}

// tokens returns A's tokens, minted anew every half hour so a long
// campaign never runs on expired ones.
func (fx *fuzzFixture) tokens(t *testing.T) (gateway, ecom string) {
	fx.mu.Lock()
	defer fx.mu.Unlock()
	if time.Since(fx.minted) > 30*time.Minute {
		e := *fx.env
		e.T = t
		fx.a.gatewayTok, fx.a.ecomTok = mintFuzzTokens(&e, fx.a)
		fx.minted = time.Now()
	}
	return fx.a.gatewayTok, fx.a.ecomTok
}

// serve makes one request of the fuzz input and checks its answer.
func (fx *fuzzFixture) serve(t *testing.T, who uint8, method, target, headers string, body []byte) {
	gatewayTok, ecomTok := fx.tokens(t)
	var auth string
	switch who & 7 {
	case asGateway:
		auth = "Bearer " + gatewayTok
	case asEcom:
		auth = "Bearer " + ecomTok
	case asEcomBasic:
		auth = apitest.BasicHeader(fx.a.username, fx.a.password)
	case asGatewayBasic:
		auth = apitest.BasicHeader(fx.a.gatewayID, fx.a.gatewaySec)
	case asOperator:
		auth = "Bearer " + apitest.AdminToken
	}
	req, ok := fuzzRequest(method, target, headers, auth, body, who&fuzzChunked != 0)
	if !ok {
		return // net/http itself refuses such a request before any handler
	}
	// Each request from an address of its own: wrong admin tokens the
	// fuzzer writes would otherwise throttle the operator's address
	// (decisions §21) and leave the operator routes unexplored.
	n := fuzzAddrs.Add(1)
	req.RemoteAddr = netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, byte(n >> 16), byte(n >> 8), byte(n)}), 1).String()
	operator := req.Header.Get("Authorization") == "Bearer "+apitest.AdminToken
	said := strings.ToLower(requestText(req, headers, body))
	if fx.mentionsTenantB(said, operator, req.Method) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rec := httptest.NewRecorder()
	fx.env.Server.ServeHTTP(rec, req.WithContext(ctx))
	res := rec.Result()
	answer, err := readAnswer(res)
	if err != nil {
		t.Fatalf("%s %s: the answer cannot be read: %v", method, target, err)
	}
	if res.StatusCode >= 500 {
		t.Fatalf("%s %s → %d: %s", method, target, res.StatusCode, answer)
	}
	if jsonAnswer(req, res) {
		if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			t.Fatalf("%s %s → %d with Content-Type %q: %q", method, target, res.StatusCode, ct, answer)
		}
		if !utf8.Valid(answer) || !json.Valid(answer) {
			t.Fatalf("%s %s → %d, not valid JSON: %q", method, target, res.StatusCode, answer)
		}
	}
	if !operator {
		if s := fx.leaked(answer, said); s != "" {
			t.Fatalf("%s %s → %d: tenant A was shown tenant B's %q: %s", method, target, res.StatusCode, s, answer)
		}
	}
}

// leaked returns the first of tenant B's secrets the answer holds that the
// request (said, lower-cased) did not carry itself, or "".
func (fx *fuzzFixture) leaked(answer []byte, said string) string {
	low := strings.ToLower(string(answer))
	for _, s := range fx.secrets {
		if strings.Contains(low, s) && !strings.Contains(said, s) {
			return s
		}
	}
	return ""
}

// mentionsTenantB tells whether a request must be left out so that the
// cross-tenant check stays sound: an operator request that names tenant B
// (it could legitimately open B's catalog to A), and a write of A's whose
// body carries one of B's texts (A would then own objects holding it).
func (fx *fuzzFixture) mentionsTenantB(said string, operator bool, method string) bool {
	if operator {
		if strings.Contains(said, "7654321") {
			return true
		}
		for _, s := range fx.secrets {
			if strings.Contains(said, s) {
				return true
			}
		}
		return false
	}
	if method == http.MethodGet || method == http.MethodHead {
		return false
	}
	for _, s := range fx.secrets {
		if strings.Contains(said, s) {
			return true
		}
	}
	return false
}

// fuzzRequest writes the input as an HTTP/1.1 request and reads it back
// with net/http's own parser, so the handler sees what a real server would
// hand it; ok is false for input the server refuses before any handler.
func fuzzRequest(method, target, headers, auth string, body []byte, chunked bool) (*http.Request, bool) {
	if strings.ContainsAny(method+target, " \r\n") || target == "" {
		return nil, false
	}
	var raw bytes.Buffer
	fmt.Fprintf(&raw, "%s %s HTTP/1.1\r\nHost: parcelgate.test\r\n", method, target)
	for line := range strings.SplitSeq(headers, "\n") {
		line = strings.TrimSuffix(line, "\r")
		name, value, found := strings.Cut(line, ":")
		if !found || !validHeader(name, value) {
			continue
		}
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "host", "content-length", "transfer-encoding", "connection", "expect":
			continue // framing is the fuzzer's, not the input's
		case "authorization":
			auth = ""
		}
		raw.WriteString(line + "\r\n")
	}
	if auth != "" {
		raw.WriteString("Authorization: " + auth + "\r\n")
	}
	if chunked {
		raw.WriteString("Transfer-Encoding: chunked\r\n\r\n")
		if len(body) > 0 {
			fmt.Fprintf(&raw, "%x\r\n%s\r\n", len(body), body)
		}
		raw.WriteString("0\r\n\r\n")
	} else {
		fmt.Fprintf(&raw, "Content-Length: %d\r\n\r\n", len(body))
		raw.Write(body)
	}
	req, err := http.ReadRequest(bufio.NewReader(&raw))
	if err != nil {
		return nil, false
	}
	req.RemoteAddr = "192.0.2.1:1234"
	return req, true
}

// validHeader is what net/http's server asks of a header line: a token
// name and a value without control characters other than tab.
func validHeader(name, value string) bool {
	if name == "" {
		return false
	}
	for _, c := range []byte(name) {
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	for _, c := range []byte(value) {
		if (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

// requestText is everything the request carried, decoded, for telling an
// echo of the caller's own text from a leak.
func requestText(req *http.Request, headers string, body []byte) string {
	var b strings.Builder
	b.WriteString(req.URL.Path + " ")
	if q, err := url.QueryUnescape(req.URL.RawQuery); err == nil {
		b.WriteString(q + " ")
	}
	b.WriteString(req.URL.RawQuery + " " + headers + " ")
	b.Write(body)
	if u, p, ok := req.BasicAuth(); ok {
		b.WriteString(" " + u + " " + p)
	}
	return b.String()
}

// jsonAnswer tells whether the answer must be JSON: everything with a body
// but the three documents that are not (metrics, the OpenAPI text, the
// docs page) when they answer 200.
func jsonAnswer(req *http.Request, res *http.Response) bool {
	if req.Method == http.MethodHead || res.StatusCode == http.StatusNoContent || res.StatusCode/100 == 3 {
		return false
	}
	if res.StatusCode == http.StatusOK {
		switch req.URL.Path {
		case "/metrics", "/openapi.yaml", "/docs":
			return false
		}
	}
	return true
}

func readAnswer(res *http.Response) ([]byte, error) {
	var r io.Reader = res.Body
	if res.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(res.Body)
		if err != nil {
			return nil, err
		}
		r = zr
	}
	return io.ReadAll(r)
}

// The cross-tenant check of FuzzHTTP can fail: tenant B's own answers hold
// its secrets, and would be flagged if A were shown them; A's own answers
// and an echo of what A sent are not flagged.
func TestFuzzHTTPLeakCheck(t *testing.T) {
	fx := newFuzzFixture(t, "sqlite")
	get := func(tok, path string) []byte {
		return fx.env.Do(apitest.Request{Method: "GET", Path: path, Bearer: tok}).Expect(http.StatusOK).Body
	}
	for _, path := range []string{"/ecommerce/v3/orders/" + fx.b.orderID, "/ecommerce/v3/inventory", "/ecommerce/v3/catalogs"} {
		if fx.leaked(get(fx.b.ecomTok, path), "") == "" {
			t.Errorf("B's %s would not be caught as a leak", path)
		}
		if s := fx.leaked(get(fx.a.ecomTok, strings.Replace(path, fx.b.orderID, fx.a.orderID, 1)), ""); s != "" {
			t.Errorf("A's own %s is taken for a leak of %q", path, s)
		}
	}
	for _, path := range []string{"/2025-04/shipments/JJFIZYXWVB0000000001", "/2025-04/labelless/JJFIZYXWVB0000000001", "/parcel/v1/errandCodes/ZYXWVBPARCEL0001"} {
		if fx.leaked(get(fx.b.gatewayTok, path), "") == "" {
			t.Errorf("B's %s would not be caught as a leak", path)
		}
	}
	echo := fx.env.Do(apitest.Request{Method: "GET", Path: "/2025-04/labelless/jjfizyxwvb0000000001", Bearer: fx.a.gatewayTok}).Expect(http.StatusNotFound).Body
	if s := fx.leaked(echo, "/2025-04/labelless/jjfizyxwvb0000000001"); s != "" {
		t.Errorf("an echo of A's own request is taken for a leak of %q: %s", s, echo)
	}
}

type fuzzSeed struct {
	who                           uint8
	method, target, headers, body string
}

// fuzzSeeds is the seed corpus: every hostile input once found, cross-tenant
// probes for each kind of object, and valid calls of every surface for the
// fuzzer to mutate from.
func fuzzSeeds() []fuzzSeed {
	js := "Content-Type: application/json"
	form := "Content-Type: application/x-www-form-urlencoded"
	emptyRows := `{"rows":[` + strings.TrimSuffix(strings.Repeat("{},", 20001), ",") + `]}`
	zeros := "[" + strings.TrimSuffix(strings.Repeat("0,", 20001), ",") + "]"
	seeds := []fuzzSeed{
		// Defect 1: NUL and invalid UTF-8 in path values.
		{asEcom, "GET", "/ecommerce/v3/orders/%00", "", ""},
		{asEcom, "PUT", "/ecommerce/v3/orders/%00", js, `{"status":{"value":"Cancelled"}}`},
		{asEcom, "POST", "/ecommerce/v3/orders/%ED%A0%80", "", ""},
		{asEcom, "DELETE", "/ecommerce/v3/orders/%00", "", ""},
		{asEcom, "PATCH", "/ecommerce/v3/orders/%00/preferences", js, `{"autoSubmit":true}`},
		{asGateway, "GET", "/2025-04/labelless/%00", "", ""},
		{asGateway, "GET", "/2025-04/shipments/%ED%A0%80", "", ""},
		{asOperator, "DELETE", "/admin/v1/service-accounts/%00", "", ""},
		{asOperator, "DELETE", "/admin/v1/gateway-clients/%00", "", ""},
		{asOperator, "POST", "/admin/v1/service-accounts/%00/unlock", "", ""},
		// ... in query values, the token form and Basic credentials.
		{asEcom, "GET", "/ecommerce/v3/orders?updatedFrom=2025-01-01T00:00:00Z&warehouseExternalId=%00", "", ""},
		{asEcom, "GET", "/ecommerce/v3/orders?refValue=%ED%A0%80", "", ""},
		{asNobody, "POST", "/api/v1/token", form, "grant_type=client_credentials&client_id=%00&client_secret=x"},
		{asNobody, "GET", "/auth/token", "Authorization: Basic " + basic64("\x00demo:password"), ""},
		{asNobody, "POST", "/api/v1/token", form + "\nAuthorization: Basic " + basic64("%00:secret"), "grant_type=client_credentials"},
		// ... and as \u0000 inside JSON strings.
		{asEcom, "PUT", "/ecommerce/v3/order", js, `{"externalId":"1234567-1-N1","references":[{"name":"SO","value":"SO\u0000"}],"deliveryAddress":{"name":"x"},"serviceCode":"2103","rows":[{"externalProductId":"1234567-1-SHOPP","externalWarehouseId":"WHA","quantity":1}]}`},
		{asEcom, "PUT", "/ecommerce/v3/inventory", js, `[{"product":{"externalId":"1234567-1-N2","eanCode":"64\u00001","descriptions":{"en":{"name":"n"}}}}]`},
		{asOperator, "POST", "/admin/v1/organizations", js, `{"businessId":"0737546-2","name":"Org\u0000"}`},
		{asOperator, "POST", "/admin/v1/orders/status", js, `{"businessId":"1234567-1","externalId":"1234567-1-SHOPO\u0000","value":"Error","reason":"r\u0000"}`},
		// Defect 2: page arithmetic.
		{asEcom, "GET", "/ecommerce/v3/orders?updatedFrom=2025-01-01T00:00:00Z&page=4611686018427387904&size=2", "", ""},
		{asEcom, "GET", "/ecommerce/v3/inventory/balances?page=4611686018427387904&size=2", "", ""},
		{asEcom, "GET", "/ecommerce/v3/inventory?page=9223372036854775807&size=10", "", ""},
		{asEcom, "GET", "/ecommerce/v3/catalogs/WHA/balances?page=2147483647&size=1", "", ""},
		// Defect 3: a raw 0xC1 byte inside a JSON string, then the listings.
		{asEcom, "PUT", "/ecommerce/v3/inventory", js, "[{\"product\":{\"externalId\":\"1234567-1-U1\",\"descriptions\":{\"en\":{\"name\":\"bad \xc1 byte\"}}},\"balances\":[{\"retailerId\":\"1234567-1\",\"catalogExternalId\":\"WHA\",\"quantity\":1}]}]"},
		{asEcom, "GET", "/ecommerce/v3/catalogs/WHA/products", "", ""},
		// Defect 4: counts enforced while decoding (small copies of the
		// 16 MiB bodies; the same limit trips).
		{asEcom, "PUT", "/ecommerce/v3/order", js, emptyRows},
		{asEcom, "PUT", "/ecommerce/v3/inventory/balances", js, zeros},
		// Defect 5's reads: pages by number.
		{asEcom, "GET", "/ecommerce/v3/inventory?page=1&size=1", "", ""},
		// Cross-tenant probes: A names B's objects.
		{asGateway, "GET", "/2025-04/labelless/JJFIZYXWVB0000000001", "", ""},
		{asGateway, "GET", "/2025-04/shipments/JJFIZYXWVB0000000001", "", ""},
		{asGateway, "GET", "/parcel/v1/errandCodes/ZYXWVBPARCEL0001", "", ""},
		{asGateway, "GET", "/parcel/v1/errandCodes?id=ZYXWVBPARCEL0001,PARCELA00001", "", ""},
		{asGateway, "POST", "/2025-04/labelless", js, `{"searchCriteria":{"trackingNumber":"JJFIZYXWVB0000000001"}}`},
		{asEcom, "GET", "/ecommerce/v3/orders/7654321-2-ZYXWVBO", "", ""},
		{asEcom, "GET", "/ecommerce/v3/inventory/7654321-2-ZYXWVBP", "", ""},
		{asEcom, "GET", "/ecommerce/v3/catalogs/ZYXWVBCAT/balances", "", ""},
		{asEcom, "GET", "/ecommerce/v3/inventory/balances?retailerId=7654321-2", "", ""},
		{asEcom, "GET", "/ecommerce/v3/orders?refValue=SO-Zyxwvb", "", ""},
		{asEcom, "GET", "/ecommerce/v3/catalogs?role=SUPPLIER", "", ""},
		// Valid calls of every surface.
		{asGatewayBasic, "POST", "/api/v1/token", form, "grant_type=client_credentials"},
		{asEcomBasic, "GET", "/auth/token", "", ""},
		{asEcomBasic, "POST", "/auth/token?grant_type=client_credentials", "", ""},
		{asGateway, "POST", "/2025-04/shipments", js, `{"trackingNumber":"JJFI00000000000000002","serviceCode":"2103","sender":{"name":"a","country":"FI"},"receiver":{"name":"b","country":"FI"},"parcels":[{"parcelId":"PARCELA00002","packageCode":"M2"}]}`},
		{asGateway, "GET", "/2025-04/labelless/shipment/ABC123", "", ""},
		{asGateway | fuzzChunked, "POST", "/2025-04/labelless", js, `{"searchCriteria":{"trackingNumber":"JJFI00000000000000001"},"validation":{"noEdiCheck":true}}`},
		{asEcom, "GET", "/ecommerce/v3/orders?updatedFrom=2025-01-01T00:00:00Z&status=Created,Error&size=1", "Accept-Encoding: gzip", ""},
		{asEcom, "PUT", "/ecommerce/v3/orders/1234567-1-SHOPO", js, `{"status":"Cancelled"}`},
		{asEcom, "PUT", "/ecommerce/v3/inventory/balances", js, `[{"productExternalId":"1234567-1-SHOPP","retailerId":"1234567-1","catalogExternalId":"WHA","quantity":3}]`},
		{asEcom, "DELETE", "/ecommerce/v3/inventory", js, `[{"externalId":"1234567-1-SHOPP"}]`},
		{asEcom, "DELETE", "/v3/inventory/balances?productExternalId=1234567-1-SHOPP", "", ""},
		{asEcom, "GET", "/v3/catalogs/balances?modifiedFromDate=2025-01-01T00:00:00%2B03:00", "", ""},
		{asOperator, "GET", "/admin/v1/organizations?environment=test", "", ""},
		{asOperator, "POST", "/admin/v1/catalogs", js, `{"retailerId":"1234567-1","catalogExternalId":"DS1","catalogType":"Dropship","supplierIds":["1234567-1"]}`},
		{asOperator, "POST", "/admin/v1/clock", js, `{"advance":"336h","environment":"test"}`},
		{asNobody, "GET", "/healthz", "", ""},
		{asNobody, "OPTIONS", "*", "", ""},
		{asNobody, "GET", "/nothing//../here?x=%zz", "X-Request-ID: abc", ""},
	}
	return seeds
}

func basic64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
