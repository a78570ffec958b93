package openapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/demo"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
	"github.com/parcelgate/parcelgate/internal/wiring"
	"github.com/parcelgate/parcelgate/openapi"
)

// The request examples of the OpenAPI document are real ones: every
// operation's example (its body, and the example values of its path,
// query and header parameters), sent as it is to a server seeded with the
// demo data, with the credentials of its surface, gets a 2xx answer the
// document describes (apitest checks the answer against the document).
// The operations run in an order that lets one example use what another
// made (an order created, then cancelled, then opened again; a comment
// added, then deleted), and only the few values the server makes at random (a
// dropshipping shipment's ID, a fault's ID) are taken from the answer of
// the operation that made them: see fromAnswer. The /docs page shows the
// same examples (TestPageShowsTheExamples).
func TestRequestExamplesWork(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(openapi.Spec)
	if err != nil {
		t.Fatal(err)
	}
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		if _, err := demo.Seed(context.Background(), wiring.Demo(e.DB), parcelgate.DefaultVersions); err != nil {
			t.Fatal(err)
		}
		r := &runner{t: t, e: e, answers: map[string]any{}}
		r.tokens()
		for _, c := range operations(doc) {
			r.send(c)
		}
	})
}

// call is one operation of the document.
type call struct {
	method, path string
	item         *openapi3.PathItem
	op           *openapi3.Operation
}

func (c call) id() string { return c.op.OperationID }

// operations lists the document's operations in the order their examples
// are sent: tokens first, then what creates, what reads, what changes,
// what removes, and the operator's resets last (rank); by path and method
// within a rank.
func operations(doc *openapi3.T) []call {
	var out []call
	for _, path := range doc.Paths.InMatchingOrder() {
		item := doc.Paths.Value(path)
		for method, op := range item.Operations() {
			out = append(out, call{method: method, path: path, item: item, op: op})
		}
	}
	slices.SortStableFunc(out, func(a, b call) int {
		if d := rank(a) - rank(b); d != 0 {
			return d
		}
		return strings.Compare(a.path+" "+a.method, b.path+" "+b.method)
	})
	return out
}

// ranks place the operations whose example needs another's before it, or
// would spoil another's, where their method alone would not.
var ranks = map[string]int{
	// The gateway's searches change nothing: they run with the reads.
	"searchGatewayPickupPoints": 2, "postEstimate": 2,
	// A supplier confirms its dropshipping shipment after reading it; its
	// parcel's label and note exist only then.
	"updateSupplierShipment": 3, "splitSupplierShipment": 4, "confirmSupplierShipment": 5,
	// Its events and options name the shipment the list found.
	"postSupplierShipmentEvent": 3, "supplierShipmentOptions": 3,
	"supplierParcelLabel": 6, "supplierParcelNote": 6,
	// A fault is made and removed again before it could answer a later
	// example.
	"createFault": 6, "deleteFault": 7,
	// An order is cancelled, then opened again; the operator moves the
	// demo order after the examples that read it.
	"cancelOrder": 7, "reopenOrder": 8, "setOrderStatus": 8,
	"moveParcel": 8, "setShipmentStatus": 8, "advanceClock": 8, "unlockServiceAccount": 8,
	// What removes data, then what resets it, then the token keys.
	"deleteOrderComment": 9, "deleteBalances": 9, "endOfSale": 9,
	"revokeGatewayClient": 9, "revokeServiceAccount": 9,
	// A job is cancelled after the list that names it.
	"cancelJob": 9, "cancelJobByPost": 9,
	"restoreSnapshot": 10, "dropSnapshot": 11, "resetOrganization": 12, "resetEnvironment": 13,
	"resetDemo": 14, "rotateTokenKey": 15,
}

func rank(c call) int {
	if r, ok := ranks[c.id()]; ok {
		return r
	}
	switch {
	case strings.Contains(c.path, "/token"):
		return 0
	case c.method == http.MethodPost || c.method == http.MethodPut:
		return 1
	case c.method == http.MethodGet:
		return 2
	case c.method == http.MethodPatch:
		return 3
	}
	return 9
}

// fromAnswer names the parameters whose value the server makes at random
// when another operation runs: the example in the document shows the
// form, and the test takes the real value from that operation's answer
// (a JSON pointer into it). An integrator does the same.
var fromAnswer = map[string]struct{ op, pointer string }{
	"getShipmentBySendingCode.sendingCode": {"createSendingCode", "/shipments/0/sendingCode"},
	"revokeGatewayClient.clientId":         {"createGatewayClient", "/clientId"},
	"getRequest.requestId":                 {"listRequests", "/content/0/requestId"},
	"getSupplierShipment.id":               {"listSupplierShipments", "/content/0/shipmentId"},
	"updateSupplierShipment.id":            {"listSupplierShipments", "/content/0/shipmentId"},
	"splitSupplierShipment.id":             {"listSupplierShipments", "/content/0/shipmentId"},
	"confirmSupplierShipment.id":           {"listSupplierShipments", "/content/0/shipmentId"},
	"supplierParcelLabel.id":               {"listSupplierShipments", "/content/0/shipmentId"},
	"supplierParcelNote.id":                {"listSupplierShipments", "/content/0/shipmentId"},
	"postSupplierShipmentEvent.id":         {"listSupplierShipments", "/content/0/shipmentId"},
	"supplierShipmentOptions.id":           {"listSupplierShipments", "/content/0/shipmentId"},
	"deleteFault.id":                       {"createFault", "/id"},
	"getJob.id":                            {"listJobs", "/content/0/id"},
	"cancelJob.id":                         {"listJobs", "/content/0/id"},
	"cancelJobByPost.id":                   {"listJobs", "/content/0/id"},
}

// expected are the examples meant to show an answer other than a 2xx,
// with the reason.
var expected = map[string]int{
	// Restricted: the provider answers it only to a contract that has
	// the right, which no parcelgate account has (decisions §30).
	"trackByPhoneNumber": http.StatusForbidden,
	// The demo's jobs have all ended by the time the examples list them
	// (each waits for its job): cancelling an ended job is a conflict
	// (decisions §60).
	"cancelJob": http.StatusConflict, "cancelJobByPost": http.StatusConflict,
}

type runner struct {
	t       *testing.T
	e       *apitest.Env
	answers map[string]any
	// The demo credentials: the production tenant's gateway token (and
	// the test tenant's, for the test environment's errand code route),
	// service account token and Basic credentials.
	gateway, gatewayTest, ecom string
	basic                      [2]string
}

func (r *runner) tokens() {
	prod, test := demo.Tenants[0], demo.Tenants[1]
	r.basic = [2]string{prod.Username, prod.Password}
	r.gateway = r.gatewayToken(prod)
	r.gatewayTest = r.gatewayToken(test)
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	r.e.Do(apitest.Request{Method: "GET", Path: "/auth/token", Basic: &r.basic}).Expect(200).JSON(&tok)
	r.ecom = tok.AccessToken
}

func (r *runner) gatewayToken(t demo.Tenant) string {
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	r.e.Do(apitest.Request{Method: "POST", Path: "/api/v1/token", ContentType: "application/x-www-form-urlencoded",
		Body: url.Values{"grant_type": {"client_credentials"}, "client_id": {t.ClientID}, "client_secret": {t.ClientSecret}}.Encode()}).Expect(200).JSON(&tok)
	return tok.AccessToken
}

// environment is the environment an operation's surface serves: the test
// environment's own gateway routes (/parcel-uat) take a test token, and a
// parameter's named examples may give a value for each environment.
func environment(c call) string {
	if strings.HasPrefix(c.path, "/parcel-uat/") {
		return "test"
	}
	return "production"
}

// send sends c's example and checks the answer.
func (r *runner) send(c call) {
	t := r.t
	t.Helper()
	id := c.id()
	prefix := ""
	if len(c.item.Servers) > 0 {
		prefix = strings.TrimRight(c.item.Servers[0].URL, "/")
	}
	path := c.path
	query := url.Values{}
	header := http.Header{}
	missing := false
	for _, p := range append(slices.Clone(c.item.Parameters), c.op.Parameters...) {
		if p.Value == nil {
			continue
		}
		pv := p.Value
		v, ok := paramExample(pv, environment(c))
		if src, chained := fromAnswer[id+"."+pv.Name]; chained && ok {
			v = r.answer(src.op, src.pointer)
		}
		if !ok {
			if pv.Required {
				t.Errorf("%s: required %s parameter %s has no example", id, pv.In, pv.Name)
				missing = true
			}
			continue
		}
		switch pv.In {
		case "path":
			path = strings.ReplaceAll(path, "{"+pv.Name+"}", url.PathEscape(v))
		case "query":
			query.Set(pv.Name, v)
		case "header":
			header.Set(pv.Name, v)
		}
	}
	if missing {
		return
	}
	req := apitest.Request{Method: c.method, Path: prefix + path, Header: header}
	if len(query) > 0 {
		req.Path += "?" + query.Encode()
	}
	r.credentials(c, &req)
	if id == "listRequests" {
		r.waitForJournal()
	}
	if redirects(c) {
		r.redirect(c, req)
		return
	}
	// Every example of the body is sent (a search has one per mode); an
	// optional body without one is left out.
	bodies := []example{{}}
	if rb := c.op.RequestBody; rb != nil && rb.Value != nil {
		if bodies = bodyExamples(rb.Value); len(bodies) == 0 {
			if rb.Value.Required {
				t.Errorf("%s: its request body has no example", id)
				return
			}
			bodies = []example{{}}
		}
	}
	for _, ex := range bodies {
		req.ContentType, req.Body = ex.contentType, ex.body
		name := id
		if ex.name != "" {
			name += " (example " + ex.name + ")"
		}
		resp := r.e.Do(req)
		want := expected[id]
		switch {
		case want != 0 && resp.Status != want:
			t.Errorf("%s: %s %s answered %d, the example is meant to show %d: %s", name, c.method, req.Path, resp.Status, want, resp.Body)
		case want == 0 && (resp.Status < 200 || resp.Status > 299):
			t.Errorf("%s: its example %s %s answered %d: %s", name, c.method, req.Path, resp.Status, resp.Body)
		}
		if _, documented := c.op.Responses.Map()[fmt.Sprint(resp.Status)]; !documented {
			t.Errorf("%s: answered %d, which it does not document", name, resp.Status)
		}
		var v any
		if json.Unmarshal(resp.Body, &v) == nil {
			r.answers[id] = v
		}
	}
}

// credentials sets what c's surface takes: the demo gateway client's
// token, the demo service account's, the operator's, or HTTP Basic.
func (r *runner) credentials(c call, req *apitest.Request) {
	for _, scheme := range securitySchemes(c) {
		switch scheme {
		case "gatewayToken":
			req.Bearer = r.gateway
			if environment(c) == "test" {
				req.Bearer = r.gatewayTest
			}
		case "shippingApiKey":
			req.Header.Set("Authorization", r.gateway)
		case "ecomToken":
			req.Bearer = r.ecom
		case "adminToken":
			req.Bearer = apitest.AdminToken
		case "basicAuth":
			if c.id() == "requestGatewayToken" {
				continue // its example names the client in the form
			}
			req.Basic = &r.basic
		default:
			continue
		}
		return
	}
}

func securitySchemes(c call) []string {
	if c.op.Security == nil {
		return nil
	}
	var out []string
	for _, req := range *c.op.Security {
		out = append(out, slices.Sorted(maps.Keys(req))...)
	}
	return out
}

// answer is the value at pointer in op's answer, as a string.
func (r *runner) answer(op, pointer string) string {
	v, ok := r.answers[op]
	if !ok {
		r.t.Errorf("no answer of %s to take %s from", op, pointer)
		return ""
	}
	for _, part := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		switch x := v.(type) {
		case map[string]any:
			v = x[part]
		case []any:
			var i int
			if _, err := fmt.Sscan(part, &i); err != nil || i >= len(x) {
				r.t.Errorf("%s's answer has no %s", op, pointer)
				return ""
			}
			v = x[i]
		default:
			r.t.Errorf("%s's answer has no %s", op, pointer)
			return ""
		}
	}
	return fmt.Sprint(v)
}

// paramExample is a parameter's example value: its own example, its
// named example for env (or else the first), or its schema's example.
func paramExample(p *openapi3.Parameter, env string) (string, bool) {
	var v any
	switch {
	case p.Example != nil:
		v = p.Example
	case len(p.Examples) > 0:
		name := slices.Sorted(maps.Keys(p.Examples))[0]
		if _, ok := p.Examples[env]; ok {
			name = env
		}
		if e := p.Examples[name]; e != nil && e.Value != nil {
			v = e.Value.Value
		}
	case p.Schema != nil && p.Schema.Value != nil && p.Schema.Value.Example != nil:
		v = p.Schema.Value.Example
	}
	if v == nil {
		return "", false
	}
	if a, ok := v.([]any); ok {
		var parts []string
		for _, x := range a {
			parts = append(parts, fmt.Sprint(x))
		}
		return strings.Join(parts, ","), true
	}
	return fmt.Sprint(v), true
}

// example is one request body example, encoded for its media type.
type example struct {
	name, contentType string
	body              any
}

// bodyExamples are a request body's examples: the media type's example,
// or each of its named examples, encoded as JSON, or as a form for
// application/x-www-form-urlencoded.
func bodyExamples(rb *openapi3.RequestBody) []example {
	var out []example
	for _, mt := range slices.Sorted(maps.Keys(rb.Content)) {
		m := rb.Content[mt]
		values := map[string]any{}
		switch {
		case m.Example != nil:
			values[""] = m.Example
		case len(m.Examples) > 0:
			for name, e := range m.Examples {
				if e != nil && e.Value != nil {
					values[name] = e.Value.Value
				}
			}
		}
		for _, name := range slices.Sorted(maps.Keys(values)) {
			v := values[name]
			if strings.Contains(mt, "x-www-form-urlencoded") {
				form := url.Values{}
				if obj, ok := v.(map[string]any); ok {
					for k, x := range obj {
						form.Set(k, fmt.Sprint(x))
					}
				}
				out = append(out, example{name, mt, form.Encode()})
				continue
			}
			raw, err := json.Marshal(v)
			if err != nil {
				continue
			}
			out = append(out, example{name, mt, raw})
		}
	}
	return out
}

// redirects reports whether c answers only a redirect (GET /docs/):
// apitest's client would follow it.
func redirects(c call) bool {
	for code := range c.op.Responses.Map() {
		if strings.HasPrefix(code, "2") {
			return false
		}
	}
	_, ok := c.op.Responses.Map()["301"]
	return ok
}

// redirect sends c's example without following the redirect and checks
// it is the one documented.
func (r *runner) redirect(c call, req apitest.Request) {
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(r.e.URL + req.Path)
	if err != nil {
		r.t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") == "" {
		r.t.Errorf("%s: %s answered %d (Location %q), documented 301", c.id(), req.Path, resp.StatusCode, resp.Header.Get("Location"))
	}
}

// waitForJournal waits until the request journal holds the calls made so
// far: it writes them in batches a quarter of a second after the first
// (httpapi's journalLinger), and the journal's examples read one of them.
func (r *runner) waitForJournal() {
	deadline := time.Now().Add(10 * time.Second)
	for {
		var page struct {
			Content []any `json:"content"`
		}
		r.e.Do(apitest.Request{Method: "GET", Path: "/admin/v1/requests?limit=1", Bearer: apitest.AdminToken}).Expect(200).JSON(&page)
		if len(page.Content) > 0 {
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatal("the request journal wrote no call within 10 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
