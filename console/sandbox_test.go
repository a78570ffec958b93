package console_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/demo"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
)

// findOrder reports whether a tenant still has an order, through the store.
func (e *env) hasOrder(businessID, id string) bool {
	e.t.Helper()
	ctx := context.Background()
	org, err := e.api.Organizations.FindOrganization(ctx, parcelgate.EnvironmentOperator(parcelgate.Production), businessID)
	if err != nil {
		e.t.Fatal(err)
	}
	_, err = e.store.Orders.FindOrder(ctx, &parcelgate.Caller{OrgID: org.ID, BusinessID: org.BusinessID, Environment: parcelgate.Production, Kind: parcelgate.KindEcom, Roles: []parcelgate.Role{parcelgate.RoleMerchant}}, id)
	switch parcelgate.ErrorCode(err) {
	case "":
		return true
	case parcelgate.ENOTFOUND:
		return false
	}
	e.t.Fatal(err)
	return false
}

// An operator resets the picked tenant from the console through the same
// store operation as POST /admin/v1/.../reset: its orders are
// gone, another tenant's remain.
func TestOperatorResetsATenant(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		otherBID, otherOrder := e.foreignOrder()
		tenant := demo.Tenants[0].BusinessID
		if !e.hasOrder(tenant, demo.SampleOrder) {
			t.Fatal("the demo order is missing before the reset")
		}
		op := e.operator(parcelgate.Production)
		mustContain(t, op.get("/console/"), `id="reset-tenant"`, `action="/console/sandbox/snapshots"`)
		if p := op.post("/console/sandbox/reset", url.Values{"confirm": {tenant}}); p.status != http.StatusSeeOther {
			t.Fatalf("reset: %d %s", p.status, p.body)
		}
		mustContain(t, op.get("/console/?done=reset"), "The organization&#39;s data was reset.")
		if e.hasOrder(tenant, demo.SampleOrder) {
			t.Fatal("the reset tenant still has its order")
		}
		if !e.hasOrder(otherBID, otherOrder) {
			t.Fatal("another tenant's order went with the reset")
		}
		// An integrator may not reset, even their own tenant.
		b := e.browser()
		b.signIn(prod.Username, prod.Password)
		if p := b.post("/console/sandbox/reset", url.Values{}); p.status != http.StatusForbidden {
			t.Fatalf("integrator reset: %d", p.status)
		}
	})
}

// A snapshot saved from the console brings back the state it saved after
// a reset, and can be deleted; a bad name is shown next to the field.
func TestSnapshotSaveAndRestoreRoundTrip(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		tenant := demo.Tenants[0].BusinessID
		op := e.operator(parcelgate.Production)
		p := op.post("/console/sandbox/snapshots", url.Values{"name": {"bad name!"}})
		if p.status != http.StatusBadRequest {
			t.Fatalf("bad snapshot name: %d", p.status)
		}
		mustContain(t, p, `id="snapshot-name-error"`, `value="bad name!"`)
		if p := op.post("/console/sandbox/snapshots", url.Values{"name": {"before-ci"}}); p.status != http.StatusSeeOther {
			t.Fatalf("save: %d %s", p.status, p.body)
		}
		mustContain(t, op.get("/console/"), ">before-ci<", `action="/console/sandbox/snapshots/before-ci/restore"`)
		if p := op.post("/console/sandbox/reset", url.Values{"confirm": {tenant}}); p.status != http.StatusSeeOther {
			t.Fatalf("reset: %d", p.status)
		}
		if e.hasOrder(tenant, demo.SampleOrder) {
			t.Fatal("order survived the reset")
		}
		if p := op.post("/console/sandbox/snapshots/before-ci/restore", url.Values{"confirm": {tenant}}); p.status != http.StatusSeeOther {
			t.Fatalf("restore: %d %s", p.status, p.body)
		}
		if !e.hasOrder(tenant, demo.SampleOrder) {
			t.Fatal("the restore did not bring the order back")
		}
		if p := op.post("/console/sandbox/snapshots/before-ci/delete", url.Values{}); p.status != http.StatusSeeOther {
			t.Fatalf("delete: %d %s", p.status, p.body)
		}
		if p := op.post("/console/sandbox/snapshots/before-ci/restore", url.Values{"confirm": {tenant}}); p.status != http.StatusNotFound {
			t.Fatalf("restore of a deleted snapshot: %d", p.status)
		}
	})
}

// apiGet calls the API as the production demo tenant and returns the status.
func (e *env) apiGet(path string) int {
	e.t.Helper()
	return e.apiCall(prod.Username, prod.Password, path, "")
}

// apiCall calls GET path with a token of the account, with requestID as
// the client's X-Request-ID when given, and returns the status.
func (e *env) apiCall(username, password, path, requestID string) int {
	e.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, e.url+"/auth/token", nil)
	req.SetBasicAuth(username, password)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	err = json.NewDecoder(resp.Body).Decode(&tok)
	resp.Body.Close()
	if err != nil || tok.AccessToken == "" {
		e.t.Fatalf("token: %d %v", resp.StatusCode, err)
	}
	req, _ = http.NewRequest(http.MethodGet, e.url+path, nil)
	req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	if requestID != "" {
		req.Header.Set("X-Request-ID", requestID)
	}
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// A fault added from the console makes the tenant's API call answer its
// status, as one added with POST /admin/v1/faults does; bad input is
// shown next to its field; the fault can be deleted.
func TestFaultAddedInTheConsoleFailsAnAPICall(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		path := "/ecommerce/v3/orders/" + demo.SampleOrder
		if st := e.apiGet(path); st != http.StatusOK {
			t.Fatalf("before the fault: %d", st)
		}
		op := e.operator(parcelgate.Production)
		p := op.post("/console/sandbox/faults", url.Values{"status": {"418"}, "probability": {"2"}, "route": {"/admin/v1/faults"}})
		if p.status != http.StatusBadRequest {
			t.Fatalf("bad fault: %d", p.status)
		}
		mustContain(t, p, `id="fault-status-error"`, `id="fault-probability-error"`, `value="2"`)
		p = op.post("/console/sandbox/faults", url.Values{"status": {"503"}, "route": {"/admin/v1/faults"}})
		mustContain(t, p, `id="fault-route-error"`)
		if p := op.post("/console/sandbox/faults", url.Values{"status": {"503"}, "method": {"GET"}, "route": {"/ecommerce/v3/orders/{id}"}}); p.status != http.StatusSeeOther {
			t.Fatalf("add fault: %d %s", p.status, p.body)
		}
		page := op.get("/console/")
		mustContain(t, page, `data-fault="`, ">503<")
		// Every instance reads the faults again within httpapi.FaultRefresh.
		deadline := time.Now().Add(3 * time.Second)
		st := e.apiGet(path)
		for st != http.StatusServiceUnavailable && time.Now().Before(deadline) {
			time.Sleep(200 * time.Millisecond)
			st = e.apiGet(path)
		}
		if st != http.StatusServiceUnavailable {
			t.Fatalf("with the fault: %d, want 503", st)
		}
		id := between(page.body, `data-fault="`, `"`)
		if p := op.post("/console/sandbox/faults/"+id+"/delete", url.Values{}); p.status != http.StatusSeeOther {
			t.Fatalf("delete fault: %d", p.status)
		}
		if p := op.post("/console/sandbox/faults/"+id+"/delete", url.Values{}); p.status != http.StatusNotFound {
			t.Fatalf("delete a deleted fault: %d", p.status)
		}
	})
}

// waitFor loads path until it contains want: the API journals its calls
// in the background.
func (b *browser) waitFor(path, want string) page {
	b.e.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		p := b.get(path)
		if strings.Contains(p.body, want) || time.Now().After(deadline) {
			return p
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// The Requests page lists the tenant's API calls from the request journal
// (as GET /admin/v1/requests reads it) with status and latency, and an
// entry page shows the redacted bodies. An integrator sees only their own
// organization's calls: another tenant's request ID is a 404, like a
// missing one.
func TestRequestsPageShowsTheTenantsCalls(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		if st := e.apiCall(prod.Username, prod.Password, "/ecommerce/v3/orders/"+demo.SampleOrder, "console-mine-1"); st != http.StatusOK {
			t.Fatalf("own call: %d", st)
		}
		if st := e.apiCall(prod.RetailerUsername, prod.RetailerPassword, "/ecommerce/v3/orders/"+demo.SampleOrder, "console-theirs-1"); st != http.StatusNotFound {
			// The merchant's order is not the retailer's: it answers like a
			// missing one, and the refusal is journaled too.
			t.Fatalf("retailer's call: %d", st)
		}
		b := e.browser()
		b.signIn(prod.Username, prod.Password)
		list := b.waitFor("/console/requests", "console-mine-1")
		mustContain(t, list, `href="/console/requests/console-mine-1"`, "/ecommerce/v3/orders/"+demo.SampleOrder, ">200<", " ms<")
		entry := b.get("/console/requests/console-mine-1")
		if entry.status != http.StatusOK {
			t.Fatalf("own entry: %d", entry.status)
		}
		mustContain(t, entry, `id="request-id">console-mine-1<`, `id="response-body"`, demo.SampleOrder)
		// The call as a curl command, its token a placeholder.
		mustContain(t, entry, `id="curl-command">curl &#39;`+e.url+`/ecommerce/v3/orders/`+demo.SampleOrder+`&#39;`, `Authorization: Bearer &lt;access_token&gt;`)
		// The retailer's call is journaled, for the retailer.
		r := e.browser()
		r.signIn(prod.RetailerUsername, prod.RetailerPassword)
		mustContain(t, r.waitFor("/console/requests", "console-theirs-1"), "console-theirs-1")
		if strings.Contains(b.get("/console/requests").body, "console-theirs-1") {
			t.Fatal("the integrator's list shows another tenant's call")
		}
		if p := b.get("/console/requests/console-theirs-1"); p.status != http.StatusNotFound {
			t.Fatalf("another tenant's request: %d, want 404", p.status)
		}
		// An operator sees the picked tenant's calls.
		op := e.operator(parcelgate.Production)
		mustContain(t, op.get("/console/requests"), "console-mine-1")
		if p := op.get("/console/requests?page=x"); p.status != http.StatusBadRequest {
			t.Fatalf("bad cursor: %d", p.status)
		}
	})
}

// Decisions §21: on a server started without --sandbox
// the console refuses to reset, restore or fault production (403 naming
// --sandbox), and says which mode the server is in; the data stays.
func TestConsoleProductionIsNotDisposable(t *testing.T) {
	for _, engine := range testdb.Engines {
		t.Run(engine, func(t *testing.T) {
			e := newEnvMode(t, engine, false)
			tenant := demo.Tenants[0].BusinessID
			op := e.operator(parcelgate.Production)
			home := op.get("/console/")
			mustContain(t, home, `id="server-mode"`, "<strong>production</strong>", `id="not-disposable"`)
			for _, offered := range []string{`id="reset-tenant"`, `action="/console/sandbox/faults"`} {
				if strings.Contains(home.body, offered) {
					t.Fatalf("%s is offered for production on a server without --sandbox", offered)
				}
			}
			if p := op.post("/console/sandbox/snapshots", url.Values{"name": {"s"}}); p.status != http.StatusSeeOther {
				t.Fatalf("snapshot: %d %s", p.status, p.body)
			}
			if strings.Contains(op.get("/console/").body, `/console/sandbox/snapshots/s/restore`) {
				t.Fatal("a restore is offered for production on a server without --sandbox")
			}
			for _, path := range []string{"/console/sandbox/reset", "/console/sandbox/snapshots/s/restore"} {
				p := op.post(path, url.Values{})
				if p.status != http.StatusForbidden || !strings.Contains(p.body, "--sandbox") {
					t.Fatalf("%s on production: %d %s", path, p.status, p.body)
				}
			}
			if p := op.post("/console/sandbox/faults", url.Values{"status": {"503"}}); p.status != http.StatusForbidden {
				t.Fatalf("fault on production: %d", p.status)
			}
			if p := op.post("/console/clock", url.Values{"advance": {"1h"}}); p.status != http.StatusForbidden {
				t.Fatalf("clock move on production: %d", p.status)
			}
			if !e.hasOrder(tenant, demo.SampleOrder) {
				t.Fatal("production's order is gone")
			}
			faults, err := e.store.Faults.Faults(context.Background(), parcelgate.AllOperator())
			if err != nil || len(faults) != 0 {
				t.Fatalf("faults stored: %v %v", faults, err)
			}
			if e.clock.Offset(parcelgate.Production) != 0 {
				t.Fatal("production's clock moved")
			}
		})
	}
}

// Decisions §21: a request ID is the client's, so
// another tenant may use the same one after this tenant did; the entry
// page still shows this tenant's own call, never 404 and never theirs.
func TestRequestPageIsScopedToTheTenant(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		if st := e.apiCall(prod.Username, prod.Password, "/ecommerce/v3/orders/"+demo.SampleOrder, "shared-1"); st != http.StatusOK {
			t.Fatalf("own call: %d", st)
		}
		b := e.browser()
		b.signIn(prod.Username, prod.Password)
		b.waitFor("/console/requests", "shared-1")
		// Another organization (the retailer) reuses the ID afterwards.
		if st := e.apiCall(prod.RetailerUsername, prod.RetailerPassword, "/ecommerce/v3/orders", "shared-1"); st == 0 {
			t.Fatal("retailer's call")
		}
		r := e.browser()
		r.signIn(prod.RetailerUsername, prod.RetailerPassword)
		r.waitFor("/console/requests", "shared-1")
		mine := b.get("/console/requests/shared-1")
		if mine.status != http.StatusOK {
			t.Fatalf("own entry after another tenant reused its ID: %d", mine.status)
		}
		mustContain(t, mine, "/ecommerce/v3/orders/"+demo.SampleOrder)
		theirs := r.get("/console/requests/shared-1")
		if theirs.status != http.StatusOK || strings.Contains(theirs.body, demo.SampleOrder) {
			t.Fatalf("the retailer's entry: %d, shows the merchant's call: %v", theirs.status, strings.Contains(theirs.body, demo.SampleOrder))
		}
	})
}

// Decisions §21: the operator sign-in shares the
// operator API's throttle: past the burst of wrong admin tokens from one
// address the sign-in answers 429 with Retry-After, even for the right
// token, and so does the operator API from that address.
func TestOperatorSignInIsThrottled(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		b := e.browser()
		for i := range 12 {
			p := b.post("/console/sign-in", url.Values{"kind": {"operator"}, "token": {"guess"}})
			want := http.StatusUnauthorized
			if i >= 10 {
				want = http.StatusTooManyRequests
			}
			if p.status != want {
				t.Fatalf("guess %d: %d, want %d", i, p.status, want)
			}
		}
		p := b.post("/console/sign-in", url.Values{"kind": {"operator"}, "token": {adminToken}})
		if p.status != http.StatusTooManyRequests || !strings.Contains(p.body, "Too many wrong admin tokens") {
			t.Fatalf("the right token from the throttled address: %d", p.status)
		}
		req, _ := http.NewRequest("GET", e.url+"/admin/v1/organizations", nil)
		req.Header.Set("Authorization", "Bearer "+adminToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
			t.Fatalf("the operator API from the throttled address: %d, Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
		}
	})
}
