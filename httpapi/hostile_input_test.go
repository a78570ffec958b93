package httpapi_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

// Regression tests of hostile input: it gets a clear 4xx in the
// surface's error shape, naming the parameter, on both engines; never a 500,
// never a body that is not valid JSON.

// TestHostileInput runs the regressions that share one fixture,
// each a subtest, on both engines.
func TestHostileInput(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		h := newHostile(t, e)
		for _, c := range []struct {
			name string
			test func(*testing.T, *apitest.Env, *hostile)
		}{
			{"BadTextIsRefusedNamingTheParameter", badTextIsRefusedNamingTheParameter},
			{"MalformedQueryIsRefused", malformedQueryIsRefused},
			{"PageArithmeticCannotOverflow", pageArithmeticCannotOverflow},
			{"JSONBodyErrors", jsonBodyErrors},
			{"ErrorAnswersListAtMost100Problems", errorAnswersListAtMost100Problems},
		} {
			t.Run(c.name, func(t *testing.T) {
				// The fixture's helpers fail the subtest that calls them.
				ec := *e
				ec.T = t
				mc := *h.merchant
				mc.Env = &ec
				hc := *h
				hc.merchant = &mc
				c.test(t, &ec, &hc)
			})
		}
	})
}

// hostile is a merchant (orders, and its own supplier) with one order, a
// gateway client with a shipment, and the operator, on one server.
type hostile struct {
	*merchant
	gateway string
	order   parcelgate.Order
}

func newHostile(t *testing.T, e *apitest.Env) *hostile {
	t.Helper()
	m := newMerchant(t, e, parcelgate.Production, merchantBID)
	h := &hostile{merchant: m, gateway: e.GatewayToken(parcelgate.Production, merchantBID)}
	h.order = m.create(m.orderBody("H1", 1))
	return h
}

// shape is the error shape an answer must have.
type shape int

const (
	gatewayShape shape = iota
	ecomShape
	oauthShape
)

// fieldsNamed decodes r in shape and returns the fields its problems name
// (for the OAuth shape, the description, which names them in its text).
func fieldsNamed(t *testing.T, r *apitest.Response, sh shape) []string {
	t.Helper()
	var out []string
	switch sh {
	case gatewayShape:
		var g httpapi.GatewayError
		r.JSON(&g)
		if g.ErrorCode == "" || g.Message == "" {
			t.Fatalf("not a gateway error body: %s", r.Body)
		}
		for _, d := range g.Details {
			out = append(out, d.Field)
		}
	case ecomShape:
		var ec httpapi.EcomError
		r.JSON(&ec)
		if ec.Status != r.Status || ec.Message == "" || ec.Path == "" {
			t.Fatalf("not an ecom error body: %s", r.Body)
		}
		for _, f := range ec.Errors {
			out = append(out, f.Field)
		}
	case oauthShape:
		var o httpapi.OAuthError
		r.JSON(&o)
		if o.Error != "invalid_request" {
			t.Fatalf("OAuth error %q, want invalid_request: %s", o.Error, r.Body)
		}
		out = append(out, o.ErrorDescription)
	}
	return out
}

// mustBeValidJSON fails unless body is one valid JSON value in valid UTF-8.
func mustBeValidJSON(t *testing.T, body []byte) {
	t.Helper()
	if !utf8.Valid(body) || !json.Valid(body) {
		t.Fatalf("answer is not valid JSON: %q", body)
	}
}

// NUL bytes and invalid UTF-8 in path values, query
// values, the gateway token form and Basic credentials reached PostgreSQL
// and answered 500 (SQLite: 404 or 401, naming nothing). Each is now 400 in
// its surface's shape, naming the parameter.
func badTextIsRefusedNamingTheParameter(t *testing.T, e *apitest.Env, h *hostile) {
	order := map[string]any{"status": map[string]any{"value": "Cancelled"}}
	for _, bad := range []string{"%00", "%ED%A0%80", "ab%00cd", "%C1"} {
		cases := []struct {
			name  string
			req   apitest.Request
			sh    shape
			field string
		}{
			{"get order", apitest.Request{Method: "GET", Path: "/ecommerce/v3/orders/" + bad, Bearer: h.token}, ecomShape, "id"},
			{"get order /v3", apitest.Request{Method: "GET", Path: "/v3/orders/" + bad, Bearer: h.token}, ecomShape, "id"},
			{"put order", apitest.Request{Method: "PUT", Path: "/ecommerce/v3/orders/" + bad, Body: order, Bearer: h.token}, ecomShape, "id"},
			{"post order", apitest.Request{Method: "POST", Path: "/ecommerce/v3/orders/" + bad, Bearer: h.token}, ecomShape, "id"},
			{"delete order", apitest.Request{Method: "DELETE", Path: "/ecommerce/v3/orders/" + bad, Bearer: h.token}, ecomShape, "id"},
			{"order preferences", apitest.Request{Method: "PATCH", Path: "/ecommerce/v3/orders/" + bad + "/preferences", Body: map[string]any{"autoSubmit": true}, Bearer: h.token}, ecomShape, "id"},
			{"product", apitest.Request{Method: "GET", Path: "/ecommerce/v3/inventory/" + bad, Bearer: h.token}, ecomShape, "externalId"},
			{"catalog", apitest.Request{Method: "GET", Path: "/ecommerce/v3/catalogs/" + bad + "/balances", Bearer: h.token}, ecomShape, "catalogId"},
			{"sending code", apitest.Request{Method: "GET", Path: "/2025-04/labelless/" + bad, Bearer: h.gateway}, gatewayShape, "trackingNumber"},
			{"shipment by code", apitest.Request{Method: "GET", Path: "/2025-04/labelless/shipment/" + bad, Bearer: h.gateway}, gatewayShape, "sendingCode"},
			{"shipment", apitest.Request{Method: "GET", Path: "/2025-04/shipments/" + bad, Bearer: h.gateway}, gatewayShape, "trackingNumber"},
			{"errand code", apitest.Request{Method: "GET", Path: "/parcel/v1/errandCodes/" + bad, Bearer: h.gateway}, gatewayShape, "parcelId"},
			{"errand codes query", apitest.Request{Method: "GET", Path: "/parcel/v1/errandCodes?id=ABC123456789," + bad, Bearer: h.gateway}, gatewayShape, "id"},
			{"revoke service account", apitest.Request{Method: "DELETE", Path: "/admin/v1/service-accounts/" + bad, Bearer: apitest.AdminToken}, ecomShape, "username"},
			{"unlock service account", apitest.Request{Method: "POST", Path: "/admin/v1/service-accounts/" + bad + "/unlock", Bearer: apitest.AdminToken}, ecomShape, "username"},
			{"revoke gateway client", apitest.Request{Method: "DELETE", Path: "/admin/v1/gateway-clients/" + bad, Bearer: apitest.AdminToken}, ecomShape, "clientId"},
			{"admin catalogs query", apitest.Request{Method: "GET", Path: "/admin/v1/catalogs?retailerId=" + bad, Bearer: apitest.AdminToken}, ecomShape, "retailerId"},
			{"orders by warehouse", apitest.Request{Method: "GET", Path: "/ecommerce/v3/orders?updatedFrom=2025-01-01T00:00:00Z&warehouseExternalId=" + bad, Bearer: h.token}, ecomShape, "warehouseExternalId"},
			{"orders by reference", apitest.Request{Method: "GET", Path: "/ecommerce/v3/orders?refValue=" + bad, Bearer: h.token}, ecomShape, "refValue"},
			{"balances by product", apitest.Request{Method: "GET", Path: "/ecommerce/v3/inventory/balances?productExternalId=" + bad, Bearer: h.token}, ecomShape, "productExternalId"},
			{"bad text before authentication", apitest.Request{Method: "GET", Path: "/ecommerce/v3/orders/" + bad}, ecomShape, "id"},
			{"gateway token form", apitest.Request{Method: "POST", Path: "/api/v1/token", ContentType: "application/x-www-form-urlencoded",
				Body: "grant_type=client_credentials&client_id=" + bad + "&client_secret=x"}, oauthShape, "client_id"},
			{"gateway token Basic", apitest.Request{Method: "POST", Path: "/api/v1/token", ContentType: "application/x-www-form-urlencoded",
				Body: "grant_type=client_credentials", Header: http.Header{"Authorization": {apitest.BasicHeader("id"+bad, "secret")}}}, oauthShape, "client_id"},
			{"ecom token Basic", apitest.Request{Method: "GET", Path: "/auth/token", Basic: &[2]string{"demo" + unescape(t, bad), "password"}}, ecomShape, "username"},
			{"ecom token Basic POST", apitest.Request{Method: "POST", Path: "/auth/token", Basic: &[2]string{"demo" + unescape(t, bad), "password"}}, ecomShape, "username"},
		}
		for _, c := range cases {
			r := e.Do(c.req)
			if r.Status != http.StatusBadRequest {
				t.Errorf("%s with %s: status %d, want 400; body %s", c.name, bad, r.Status, r.Body)
				continue
			}
			mustBeValidJSON(t, r.Body)
			named := fieldsNamed(t, r, c.sh)
			found := false
			for _, f := range named {
				found = found || f == c.field || (c.sh == oauthShape && strings.Contains(f, c.field))
			}
			if !found {
				t.Errorf("%s with %s: the answer names %q, want %q: %s", c.name, bad, named, c.field, r.Body)
			}
		}
	}
	// The same credentials with clean text still work, and the order
	// is untouched by every refused call.
	if got := h.get(h.order.ID); got.Status.Value != parcelgate.OrderCreated {
		t.Fatalf("order after the refused calls: %+v", got.Status)
	}
}

// unescape reads a %-escaped test value into its raw bytes.
func unescape(t *testing.T, s string) string {
	t.Helper()
	v, err := url.PathUnescape(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// A query string that is not valid URL encoding is refused naming (query),
// rather than read as if the broken pair were absent.
func malformedQueryIsRefused(t *testing.T, e *apitest.Env, h *hostile) {
	r := e.Do(apitest.Request{Method: "GET", Path: "/ecommerce/v3/orders?refValue=50%zz", Bearer: h.token}).Expect(http.StatusBadRequest)
	if f := fieldsNamed(t, r, ecomShape); len(f) != 1 || f[0] != "(query)" {
		t.Fatalf("fields %v: %s", f, r.Body)
	}
	r = e.Do(apitest.Request{Method: "GET", Path: "/2025-04/labelless/JJFI1234?%00=1", Bearer: h.gateway}).Expect(http.StatusBadRequest)
	if f := fieldsNamed(t, r, gatewayShape); len(f) != 1 || f[0] != "(query)" {
		t.Fatalf("fields %v: %s", f, r.Body)
	}
}

// Page numbers whose arithmetic overflowed answered 500
// on both engines (PostgreSQL: OFFSET must not be negative). They are 400
// naming page; the largest page allowed answers an empty page whose links
// carry no negative or overflowing page number.
func pageArithmeticCannotOverflow(t *testing.T, e *apitest.Env, h *hostile) {
	for _, path := range []string{
		"/ecommerce/v3/orders?updatedFrom=2025-01-01T00:00:00Z&page=4611686018427387904&size=2",
		"/ecommerce/v3/inventory/balances?page=4611686018427387904&size=2",
		"/ecommerce/v3/inventory?page=9223372036854775807&size=10",
		"/ecommerce/v3/inventory?page=9223372036854775808&size=10",
		"/ecommerce/v3/catalogs/WH1/balances?page=2147483648",
		"/ecommerce/v3/orders?page=-1",
	} {
		r := e.Do(apitest.Request{Method: "GET", Path: path, Bearer: h.token})
		if r.Status != http.StatusBadRequest {
			t.Errorf("%s: status %d, want 400: %s", path, r.Status, r.Body)
			continue
		}
		if f := fieldsNamed(t, r, ecomShape); len(f) != 1 || f[0] != "page" {
			t.Errorf("%s: fields %v, want [page]", path, f)
		}
	}
	for _, path := range []string{
		"/ecommerce/v3/orders?updatedFrom=2025-01-01T00:00:00Z&page=2147483647&size=2000",
		"/ecommerce/v3/inventory/balances?page=2147483647&size=2000",
		"/ecommerce/v3/inventory?page=2147483647",
		"/ecommerce/v3/catalogs/WH1/balances?page=2147483647&size=99999999999999999999",
	} {
		var p httpapi.Page[json.RawMessage]
		e.Do(apitest.Request{Method: "GET", Path: path, Bearer: h.token}).Expect(http.StatusOK).JSON(&p)
		if len(p.Content) != 0 || p.Page.Number != parcelgate.MaxPageNumber || p.Page.TotalElements < 1 {
			t.Errorf("%s: page %+v with %d items", path, p.Page, len(p.Content))
		}
		for _, l := range p.Links {
			u, err := url.Parse(l.Href)
			if err != nil {
				t.Fatalf("%s: link %s: %v", path, l.Href, err)
			}
			if l.Rel == "next" || strings.HasPrefix(u.Query().Get("page"), "-") {
				t.Errorf("%s: link %s %s", path, l.Rel, l.Href)
			}
		}
	}
}

// The 431 answer is JSON in the surface's shape, like every other
// answer the server shapes itself.
func TestOversizedHeadersAnswerJSON(t *testing.T) {
	e := apitest.New(t, "sqlite")
	big := http.Header{"X-Padding": {strings.Repeat("p", 70<<10)}}
	r := e.Do(apitest.Request{Method: "GET", Path: "/2025-04/labelless/JJFI1234", Header: big, Undocumented: true}).Expect(http.StatusRequestHeaderFieldsTooLarge)
	mustBeValidJSON(t, r.Body)
	var g httpapi.GatewayError
	r.JSON(&g)
	if g.ErrorCode != "REQUEST_HEADER_FIELDS_TOO_LARGE" || !strings.Contains(g.Message, "65536") {
		t.Fatalf("gateway 431 %s", r.Body)
	}
	r = e.Do(apitest.Request{Method: "GET", Path: "/ecommerce/v3/orders", Header: big, Undocumented: true}).Expect(http.StatusRequestHeaderFieldsTooLarge)
	var ec httpapi.EcomError
	r.JSON(&ec)
	if ec.Status != http.StatusRequestHeaderFieldsTooLarge || ec.Path != "/ecommerce/v3/orders" {
		t.Fatalf("ecom 431 %s", r.Body)
	}
	// Just under the cap is served as usual.
	small := http.Header{"X-Padding": {strings.Repeat("p", 60<<10)}}
	e.Do(apitest.Request{Method: "GET", Path: "/healthz", Header: small}).Expect(http.StatusOK)
}

// Bad text in JSON strings, and the gateway's two error codes: a
// string holding NUL inside well-formed JSON is a VALIDATION_ERROR naming
// its field; bytes that are not UTF-8 make the body unreadable JSON
// (JSON_DECODE_ERROR), still naming the field; an unknown field stays a
// VALIDATION_ERROR. The ecom and operator surfaces name the JSON path.
func jsonBodyErrors(t *testing.T, e *apitest.Env, h *hostile) {
	shipment := func(name string) string {
		return `{"serviceCode":"2103","sender":{"name":"a","country":"FI"},"receiver":{"name":"` + name + `","country":"FI"},"parcels":[{}]}`
	}
	for _, c := range []struct {
		name, body, code, field string
	}{
		{"NUL", shipment(`Maija\u0000`), "VALIDATION_ERROR", "receiver.name"},
		{"invalid UTF-8", shipment("Maija\xc1"), "JSON_DECODE_ERROR", "receiver.name"},
		{"a surrogate written as UTF-8", shipment("\xed\xa0\x80"), "JSON_DECODE_ERROR", "receiver.name"},
		// A lone surrogate escape would be stored as U+FFFD.
		{"a lone surrogate escape", shipment(`Maija\ud800`), "JSON_DECODE_ERROR", "receiver.name"},
		{"unknown field", `{"searchCriteria":{"trackingNumber":"JJFI1234"},"x":1}`, "VALIDATION_ERROR", "x"},
	} {
		path := "/2025-04/shipments"
		if c.name == "unknown field" {
			path = "/2025-04/labelless"
		}
		r := e.Do(apitest.Request{Method: "POST", Path: path, Body: c.body, Bearer: h.gateway}).Expect(http.StatusBadRequest)
		mustBeValidJSON(t, r.Body)
		ge := gatewayErr(t, r)
		if ge.ErrorCode != c.code || len(ge.Details) == 0 || ge.Details[0].Field != c.field {
			t.Errorf("%s: %+v, want %s naming %s", c.name, ge, c.code, c.field)
		}
	}
	for _, c := range []struct {
		name, method, path, bearer, body, field string
	}{
		{"order reference", "PUT", "/ecommerce/v3/order", h.token,
			`{"references":[{"name":"SO","value":"SO-\u0000"}],"deliveryAddress":{"name":"x"},"serviceCode":"2103","rows":[{"externalProductId":"1234567-1-P1","externalWarehouseId":"WH1","quantity":1}]}`, "references[0].value"},
		{"product eanCode", "PUT", "/ecommerce/v3/inventory", h.token, `[{"product":{"externalId":"1234567-1-N1","eanCode":"640\u00001"}}]`, "[0].product.eanCode"},
		{"product name, raw 0xC1", "PUT", "/ecommerce/v3/inventory", h.token, "[{\"product\":{\"externalId\":\"1234567-1-N1\",\"descriptions\":{\"en\":{\"name\":\"\xc1\"}}}}]", "[0].product.descriptions.en.name"},
		{"organization name", "POST", "/admin/v1/organizations", apitest.AdminToken, `{"businessId":"0737546-2","name":"Org\u0000"}`, "name"},
		{"order status externalId", "POST", "/admin/v1/orders/status", apitest.AdminToken, `{"businessId":"1234567-1","externalId":"X\u0000","value":"Error"}`, "externalId"},
		{"order status reason", "POST", "/admin/v1/orders/status", apitest.AdminToken, `{"businessId":"1234567-1","externalId":"1234567-1-H1","value":"Error","reason":"r\u0000"}`, "reason"},
	} {
		r := e.Do(apitest.Request{Method: c.method, Path: c.path, Body: c.body, Bearer: c.bearer})
		if r.Status != http.StatusBadRequest {
			t.Errorf("%s: status %d, want 400: %s", c.name, r.Status, r.Body)
			continue
		}
		mustBeValidJSON(t, r.Body)
		if f := fieldsNamed(t, r, ecomShape); len(f) == 0 || f[0] != c.field {
			t.Errorf("%s: fields %v, want %s", c.name, f, c.field)
		}
	}
	if got := h.get(h.order.ID); got.Status.Value != parcelgate.OrderCreated {
		t.Fatalf("order after the refused status changes: %+v", got.Status)
	}
}

// A raw 0xC1 byte inside a JSON string of PUT /inventory
// was stored by SQLite, and every later listing of the product, the
// supplier's and its retailers', answered a body that was not JSON
// (PostgreSQL: 500). It is refused naming the field; nothing is stored, and
// every listing stays valid JSON.
func TestInvalidUTF8IsNeverStored(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		ie := newInventoryEnv(t, e)
		ie.put(ie.supplier, []any{map[string]any{"product": product(supplierA + "-OK"), "balances": []any{map[string]any{"retailerId": retailerR, "catalogExternalId": "SHOP", "quantity": 5}}}}).Expect(http.StatusOK)
		bad := "[{\"product\":{\"externalId\":\"" + supplierA + "-BAD\",\"descriptions\":{\"en\":{\"name\":\"broken \xc1 name\"}}},\"balances\":[{\"retailerId\":\"" + retailerR + "\",\"catalogExternalId\":\"SHOP\",\"quantity\":5}]}]"
		r := ie.put(ie.supplier, bad)
		if r.Status != http.StatusBadRequest {
			t.Fatalf("status %d, want 400: %q", r.Status, r.Body)
		}
		if f := fieldsNamed(t, r, ecomShape); len(f) != 1 || f[0] != "[0].product.descriptions.en.name" {
			t.Fatalf("fields %v", f)
		}
		for tok, path := range map[string]string{
			ie.supplier: "/ecommerce/v3/inventory",
			ie.retailer: "/ecommerce/v3/catalogs/SHOP/products",
		} {
			r := ie.get(tok, path).Expect(http.StatusOK)
			mustBeValidJSON(t, r.Body)
			if strings.Contains(string(r.Body), "-BAD") {
				t.Fatalf("%s lists the refused product: %s", path, r.Body)
			}
		}
	})
}

// Decisions §21: a lone UTF-16 surrogate escape
// ("\ud800") decodes to U+FFFD, so the text would be stored altered
// without an error; it is refused with 400 naming the field, on the ecom
// and operator surfaces, and nothing is stored.
func TestLoneSurrogateIsRefused(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		ie := newInventoryEnv(t, e)
		bad := `[{"product":{"externalId":"` + supplierA + `-SUR","descriptions":{"en":{"name":"broken \ud800 name"}}}}]`
		r := ie.put(ie.supplier, bad).Expect(http.StatusBadRequest)
		if f := fieldsNamed(t, r, ecomShape); len(f) != 1 || f[0] != "[0].product.descriptions.en.name" {
			t.Fatalf("inventory: fields %v", f)
		}
		if body := ie.get(ie.supplier, "/ecommerce/v3/inventory").Expect(http.StatusOK).Body; strings.Contains(string(body), "-SUR") {
			t.Fatalf("the refused product is stored: %s", body)
		}
		// A surrogate pair is a character, and is kept.
		ok := `[{"product":{"externalId":"` + supplierA + `-PAIR","descriptions":{"en":{"name":"smile \ud83d\ude00"}}}}]`
		ie.put(ie.supplier, ok).Expect(http.StatusOK)
		if body := ie.get(ie.supplier, "/ecommerce/v3/inventory").Expect(http.StatusOK).Body; !strings.Contains(string(body), "smile \U0001F600") && !strings.Contains(string(body), "smile 😀") {
			t.Fatalf("the surrogate pair was not kept: %s", body)
		}
		r = e.Do(apitest.Request{Method: "POST", Path: "/admin/v1/organizations", Bearer: apitest.AdminToken,
			Body: `{"environment":"test","businessId":"0737546-2","name":"Org \uDC00"}`}).Expect(http.StatusBadRequest)
		if f := fieldsNamed(t, r, ecomShape); len(f) == 0 || f[0] != "name" {
			t.Fatalf("organization: fields %v", f)
		}
		e.Admin("GET", "/admin/v1/organizations?environment=test", nil).Expect(http.StatusOK)
	})
}

// An error answer lists at most 100 field problems and
// then how many more there were; a body of 5000 bad rows answered with
// every one of them before.
func errorAnswersListAtMost100Problems(t *testing.T, e *apitest.Env, h *hostile) {
	rows := make([]any, 5000)
	for i := range rows {
		rows[i] = map[string]any{"quantity": -1}
	}
	body := h.orderBody("MANY", 1)
	body["rows"] = rows
	r := h.do("PUT", "/ecommerce/v3/order", body).Expect(http.StatusBadRequest)
	var ec httpapi.EcomError
	r.JSON(&ec)
	if len(ec.Errors) != parcelgate.MaxProblems+1 || ec.Errors[parcelgate.MaxProblems].Field != "(more)" ||
		!strings.HasPrefix(ec.Errors[parcelgate.MaxProblems].Message, "and ") || len(r.Body) > 64<<10 {
		t.Fatalf("%d errors, the last %+v; %d bytes", len(ec.Errors), ec.Errors[len(ec.Errors)-1], len(r.Body))
	}
}
