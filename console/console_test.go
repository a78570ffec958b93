package console_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/demo"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
)

var prod = demo.Tenants[0] // the production demo tenant: demo / demo-password

func eachEngine(t *testing.T, fn func(t *testing.T, e *env)) {
	for _, engine := range testdb.Engines {
		t.Run(engine, func(t *testing.T) { fn(t, newEnv(t, engine)) })
	}
}

// An unauthenticated request is sent to sign in, and comes back
// to the page it asked for afterwards.
func TestUnauthenticatedIsSentToSignIn(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		b := e.browser()
		for _, path := range []string{"/console/", "/console/orders?status=Created", "/console/orders/" + demo.SampleOrder, "/console/credentials"} {
			p := b.get(path)
			if p.status != http.StatusSeeOther || !strings.HasPrefix(p.location, "/console/sign-in") {
				t.Fatalf("GET %s: %d to %q, want 303 to the sign-in page", path, p.status, p.location)
			}
		}
		p := b.get("/console/orders?status=Created")
		if want := "/console/sign-in?next=" + url.QueryEscape("/console/orders?status=Created"); p.location != want {
			t.Fatalf("Location %q, want %q", p.location, want)
		}
		// An action without a session changes nothing.
		if p := b.post("/console/orders/"+demo.SampleOrder+"/cancel", url.Values{}); p.status != http.StatusSeeOther || !strings.HasPrefix(p.location, "/console/sign-in") {
			t.Fatalf("POST cancel without a session: %d %q", p.status, p.location)
		}
		if o := e.order(parcelgate.Production, prod.BusinessID, demo.SampleOrder); o.Status.Value != parcelgate.OrderCreated {
			t.Fatalf("order is %s after an unauthenticated cancel", o.Status.Value)
		}
		// Signing in sends the browser to the page it first asked for; a
		// destination on another site is ignored.
		p = b.post("/console/sign-in", url.Values{"kind": {"account"}, "username": {prod.Username}, "password": {prod.Password}, "next": {"/console/orders?status=Created"}})
		if p.status != http.StatusSeeOther || p.location != "/console/orders?status=Created" {
			t.Fatalf("sign-in: %d to %q", p.status, p.location)
		}
		b2 := e.browser()
		p = b2.post("/console/sign-in", url.Values{"kind": {"account"}, "username": {prod.Username}, "password": {prod.Password}, "next": {"//evil.example/console/"}})
		if p.location != "/console/" {
			t.Fatalf("sign-in with an off-site next went to %q", p.location)
		}
	})
}

// The API's object-level rule holds in the console: an integrator sees only its own
// organization in its account's environment; another tenant's order, by
// service ID or externalId, answers exactly like a missing one.
func TestIntegratorCannotOpenAnotherTenantsObjects(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		_, foreignID := e.foreignOrder()
		testOrder := e.order(parcelgate.Test, demo.Tenants[1].BusinessID, demo.SampleOrder)

		b := e.browser()
		if p := b.signIn(prod.Username, prod.Password); p.status != http.StatusSeeOther {
			t.Fatalf("sign-in: %d %s", p.status, p.body)
		}
		own := b.get("/console/orders/" + demo.SampleOrder)
		if own.status != http.StatusOK {
			t.Fatalf("own order: %d", own.status)
		}
		mustContain(t, own, demo.SampleOrder, "TSHIRT-M", "Created")

		missing := b.get("/console/orders/NOSUCHORDER0000")
		if missing.status != http.StatusNotFound {
			t.Fatalf("missing order: %d", missing.status)
		}
		for _, path := range []string{
			"/console/orders/" + foreignID,    // another organization, same environment
			"/console/orders/SE5566778899-X1", // the same, by externalId
			"/console/orders/" + testOrder.ID, // the same business ID in the other environment
		} {
			p := b.get(path)
			if p.status != http.StatusNotFound || p.body != missing.body {
				t.Fatalf("GET %s: %d, want the same 404 page as a missing order:\n%s", path, p.status, p.body)
			}
		}
		// Nor can it act on it.
		if p := b.post("/console/orders/"+foreignID+"/cancel", url.Values{}); p.status != http.StatusNotFound {
			t.Fatalf("cancel of another tenant's order: %d", p.status)
		}
		org, _ := e.api.Organizations.FindOrganization(ctx, parcelgate.EnvironmentOperator(parcelgate.Production), "SE5566778899")
		if o, err := e.store.Orders.FindOrder(ctx, &parcelgate.Caller{OrgID: org.ID, BusinessID: org.BusinessID, Environment: parcelgate.Production, Kind: parcelgate.KindEcom, Roles: []parcelgate.Role{parcelgate.RoleMerchant}}, foreignID); err != nil || o.Status.Value != parcelgate.OrderError {
			t.Fatalf("foreign order after the attempt: %v %v", o, err)
		}
		// The list shows only its own orders.
		list := b.get("/console/orders")
		mustContain(t, list, demo.SampleOrder)
		if strings.Contains(list.body, "SE5566778899-X1") {
			t.Fatal("the order list shows another tenant's order")
		}
		// Another tenant's product is a 404 too: the test environment's
		// copy of the demo products has other ids.
		testOrg, _ := e.api.Organizations.FindOrganization(ctx, parcelgate.EnvironmentOperator(parcelgate.Test), demo.Tenants[1].BusinessID)
		page, err := e.store.Inventory.ListProducts(ctx, parcelgate.OperatorCaller(testOrg), parcelgate.ProductQuery{Search: ""}, parcelgate.PageRequest{Size: 10})
		if err != nil || len(page.Items) == 0 {
			t.Fatalf("test products: %v %v", page, err)
		}
		if p := b.get("/console/products/" + itoa(page.Items[0].Product.ID)); p.status != http.StatusNotFound || p.body != missing.body {
			t.Fatalf("another tenant's product: %d", p.status)
		}
		// Operator pages are refused to an integrator, by the root's table.
		if p := b.get("/console/credentials"); p.status != http.StatusForbidden {
			t.Fatalf("credentials page for an integrator: %d", p.status)
		}
		if p := b.post("/console/orders/"+demo.SampleOrder+"/status", url.Values{"to": {"Submitted"}}); p.status != http.StatusForbidden {
			t.Fatalf("warehouse move by an integrator: %d", p.status)
		}
	})
}

// The root's table decides what a retailer-only account sees, in the
// console as on the API: its own orders (a retailer orders from its
// suppliers' dropshipping catalogs, decisions §34), not a supplier's
// shipments.
func TestRolesDecideWhatAnIntegratorSees(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		b := e.browser()
		if p := b.signIn(prod.RetailerUsername, prod.RetailerPassword); p.status != http.StatusSeeOther {
			t.Fatalf("sign-in: %d", p.status)
		}
		p := b.get("/console/orders")
		if p.status != http.StatusOK {
			t.Fatalf("orders for a retailer: %d", p.status)
		}
		mustContain(t, p, demo.SampleDropshipOrder)
		p = b.get("/console/supplier-shipments")
		if p.status != http.StatusForbidden {
			t.Fatalf("a supplier's shipments for a retailer: %d", p.status)
		}
		mustContain(t, p, "supplier")
		// It sees the demo products published to its catalog, with that
		// catalog's balance only.
		products := b.get("/console/products")
		mustContain(t, products, "1234567-1-MUG", "published to you")
	})
}

// Every state-changing request is checked by the standard library's
// cross-origin protection: a form posted from another site is refused and
// changes nothing, even with the session cookie.
func TestCrossSitePostIsRefused(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		b := e.browser()
		if p := b.signIn(prod.Username, prod.Password); p.status != http.StatusSeeOther {
			t.Fatalf("sign-in: %d", p.status)
		}
		for name, h := range map[string]http.Header{
			"Sec-Fetch-Site cross-site": {"Sec-Fetch-Site": {"cross-site"}, "Origin": {"https://evil.example"}},
			"foreign Origin only":       {"Origin": {"https://evil.example"}},
		} {
			p := b.do(http.MethodPost, "/console/orders/"+demo.SampleOrder+"/cancel", url.Values{}, h)
			if p.status != http.StatusForbidden {
				t.Fatalf("%s: %d, want 403", name, p.status)
			}
			mustContain(t, p, "another site")
		}
		if o := e.order(parcelgate.Production, prod.BusinessID, demo.SampleOrder); o.Status.Value != parcelgate.OrderCreated {
			t.Fatalf("a cross-site POST cancelled the order: %s", o.Status.Value)
		}
		// The same request from the console's own page goes through.
		p := b.post("/console/orders/"+demo.SampleOrder+"/cancel", url.Values{})
		if p.status != http.StatusSeeOther {
			t.Fatalf("same-origin cancel: %d %s", p.status, p.body)
		}
		if o := e.order(parcelgate.Production, prod.BusinessID, demo.SampleOrder); o.Status.Value != parcelgate.OrderCancelled {
			t.Fatalf("same-origin cancel left the order %s", o.Status.Value)
		}
	})
}

// interface §5.2 rule 5: the console's sign-in is the ecom token service's login,
// with the same lockout: five wrong passwords lock the account, for the
// console and for GET /auth/token alike, until it runs out or an operator
// unlocks it.
func TestSignInLockout(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		b := e.browser()
		for i := range parcelgate.MaxFailedLogins {
			p := b.signIn(prod.Username, "wrong-password")
			if p.status != http.StatusUnauthorized {
				t.Fatalf("bad sign-in %d: %d", i+1, p.status)
			}
			mustContain(t, p, "Wrong username or password", `id="password-error"`)
		}
		p := b.signIn(prod.Username, prod.Password)
		if p.status != http.StatusUnauthorized {
			t.Fatalf("right password while locked: %d, want 401", p.status)
		}
		mustContain(t, p, "locked")
		// The API sees the same lock: it is one implementation.
		req, _ := http.NewRequest(http.MethodGet, e.url+"/auth/token", nil)
		req.SetBasicAuth(prod.Username, prod.Password)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("/auth/token while locked: %d", resp.StatusCode)
		}
		// The operator sees the lock and lifts it.
		op := e.operator(parcelgate.Production)
		creds := op.get("/console/credentials")
		mustContain(t, creds, "locked", `id="unlock-demo"`, "Demo warehouse", "demo-client")
		if p := op.post("/console/credentials/service-accounts/"+prod.Username+"/unlock", url.Values{}); p.status != http.StatusSeeOther {
			t.Fatalf("unlock: %d %s", p.status, p.body)
		}
		if p := b.signIn(prod.Username, prod.Password); p.status != http.StatusSeeOther {
			t.Fatalf("sign-in after unlock: %d", p.status)
		}
		// The lock also runs out by itself after an hour of the server's
		// clock.
		for range parcelgate.MaxFailedLogins {
			b.signIn(prod.RetailerUsername, "nope")
		}
		if p := b.signIn(prod.RetailerUsername, prod.RetailerPassword); p.status != http.StatusUnauthorized {
			t.Fatalf("retailer not locked: %d", p.status)
		}
		e.clock.Advance(parcelgate.LockoutDuration + time.Second)
		if p := b.signIn(prod.RetailerUsername, prod.RetailerPassword); p.status != http.StatusSeeOther {
			t.Fatalf("retailer after the lockout ran out: %d", p.status)
		}
	})
}

// Sessions expire (idle and absolute) and signing out ends them on the
// server: the old cookie, replayed, opens nothing.
func TestSessionExpiryAndSignOut(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		b := e.browser()
		p := b.signIn(prod.Username, prod.Password)
		if p.status != http.StatusSeeOther {
			t.Fatalf("sign-in: %d", p.status)
		}
		cookie := b.c.Jar.Cookies(mustURL(e.url + "/console/"))
		if len(cookie) != 1 {
			t.Fatalf("cookies: %v", cookie)
		}
		if got := b.get("/console/"); got.status != http.StatusOK {
			t.Fatalf("overview: %d", got.status)
		}
		// Signing in again starts a new session and ends the old one.
		b.signIn(prod.Username, prod.Password)
		stale := e.browser()
		stale.c.Jar.SetCookies(mustURL(e.url+"/console/"), cookie)
		if got := stale.get("/console/"); got.status != http.StatusSeeOther {
			t.Fatalf("the session before a new sign-in still opens the console: %d", got.status)
		}

		// Idle: two hours without a request end the session.
		e.sessions.Advance(2*time.Hour + time.Minute)
		if got := b.get("/console/"); got.status != http.StatusSeeOther {
			t.Fatalf("after 2 h idle: %d, want a redirect to sign in", got.status)
		}
		// Absolute: a session used every hour still ends after 12 hours.
		b.signIn(prod.Username, prod.Password)
		for range 12 {
			e.sessions.Advance(time.Hour)
			b.get("/console/")
		}
		if got := b.get("/console/"); got.status != http.StatusSeeOther {
			t.Fatalf("after 12 h: %d, want a redirect to sign in", got.status)
		}

		// Sign-out deletes the session on the server.
		b.signIn(prod.Username, prod.Password)
		old := b.c.Jar.Cookies(mustURL(e.url + "/console/"))[0]
		if p := b.post("/console/sign-out", url.Values{}); p.status != http.StatusSeeOther || p.location != "/console/sign-in" {
			t.Fatalf("sign-out: %d %q", p.status, p.location)
		}
		replay := e.browser()
		replay.c.Jar.SetCookies(mustURL(e.url+"/console/"), []*http.Cookie{{Name: old.Name, Value: old.Value, Path: "/console"}})
		if got := replay.get("/console/"); got.status != http.StatusSeeOther {
			t.Fatalf("replayed cookie after sign-out: %d, want a redirect to sign in", got.status)
		}

		// Revoking the account ends its sessions at once.
		b.signIn(prod.Username, prod.Password)
		if err := e.store.Credentials.RevokeServiceAccount(context.Background(), parcelgate.EnvironmentOperator(prod.Environment), prod.Username); err != nil {
			t.Fatal(err)
		}
		if got := b.get("/console/"); got.status != http.StatusSeeOther {
			t.Fatalf("after the account was revoked: %d", got.status)
		}
	})
}

func TestSessionCookieAttributes(t *testing.T) {
	e := newEnv(t, "sqlite")
	req, _ := http.NewRequest(http.MethodPost, e.url+"/console/sign-in", strings.NewReader(url.Values{"kind": {"operator"}, "token": {adminToken}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Forwarded-Proto", "https")
	resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cs := resp.Cookies()
	if len(cs) != 1 {
		t.Fatalf("cookies: %v", cs)
	}
	c := cs[0]
	if !c.HttpOnly || !c.Secure || c.SameSite != http.SameSiteLaxMode || c.Path != "/console" || c.MaxAge <= 0 || len(c.Value) < 32 {
		t.Fatalf("session cookie %+v: want HttpOnly, Secure over TLS, SameSite=Lax, Path=/console, an expiry and a long random value", c)
	}
	// The database holds only the value's hash.
	if _, err := e.store.Sessions.FindConsoleSession(context.Background(), c.Value, time.Now(), time.Hour); parcelgate.ErrorCode(err) != parcelgate.ENOTFOUND {
		t.Fatalf("the raw cookie value is a session key: %v", err)
	}
	// A wrong admin token is refused next to its field.
	b := e.browser()
	p := b.post("/console/sign-in", url.Values{"kind": {"operator"}, "token": {"guess"}})
	if p.status != http.StatusUnauthorized {
		t.Fatalf("wrong admin token: %d", p.status)
	}
	mustContain(t, p, `id="token-error"`, "not the admin token")
}

// The operator moves the demo order as the warehouse does, through the
// store's SetOrderStatus: the order page then shows the tracking codes,
// the timeline with who moved it, and the stock it took.
func TestOperatorMovesAnOrderToDelivered(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		op := e.operator(parcelgate.Production)
		before := op.get("/console/orders/" + demo.SampleOrder)
		mustContain(t, before, `id="move-Submitted"`, `id="move-Error"`, `id="cancel-order"`)
		if strings.Contains(before.body, `id="move-Delivered"`) {
			t.Fatal("Created → Delivered is offered; it must pass Submitted (decisions §7)")
		}
		// A move the rules refuse is shown on the page, not as a 500.
		p := op.post("/console/orders/"+demo.SampleOrder+"/status", url.Values{"to": {"Delivered"}})
		if p.status != http.StatusConflict {
			t.Fatalf("Created → Delivered: %d", p.status)
		}
		mustContain(t, p, `class="alert"`, "cannot move to Delivered")
		p = op.post("/console/orders/"+demo.SampleOrder+"/status", url.Values{"to": {"Shipped"}})
		if p.status != http.StatusBadRequest {
			t.Fatalf("unknown status: %d", p.status)
		}
		for _, to := range []string{"Submitted", "Delivered"} {
			if p := op.post("/console/orders/"+demo.SampleOrder+"/status", url.Values{"to": {to}}); p.status != http.StatusSeeOther {
				t.Fatalf("move to %s: %d %s", to, p.status, p.body)
			}
		}
		o := e.order(parcelgate.Production, prod.BusinessID, demo.SampleOrder)
		if o.Status.Value != parcelgate.OrderDelivered || len(o.Rows[0].TrackingCodes) == 0 {
			t.Fatalf("order after the moves: %s %v", o.Status.Value, o.Rows)
		}
		after := op.get("/console/orders/" + url.PathEscape(o.ID) + "?done=moved")
		mustContain(t, after, "The order was moved.", o.Rows[0].TrackingCodes[0], "by operator", ">Delivered<")
		// The T-shirts left the warehouse: 120 - 2.
		mustContain(t, after, `data-balance="1234567-1-TSHIRT-M">118<`)
		// The integrator sees the same.
		b := e.browser()
		b.signIn(prod.Username, prod.Password)
		mine := b.get("/console/orders/" + demo.SampleOrder)
		mustContain(t, mine, o.Rows[0].TrackingCodes[0], `data-balance="1234567-1-TSHIRT-M">118<`)
	})
}

// Bad form input is shown next to its field with a 4xx, never a raw error.
func TestBadFormInputIsShownNextToTheField(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		b := e.browser()
		b.signIn(prod.Username, prod.Password)
		p := b.get("/console/orders?since=yesterday&status=Shipped")
		if p.status != http.StatusBadRequest {
			t.Fatalf("bad filters: %d", p.status)
		}
		mustContain(t, p, "Enter a date and time", "is not an order status", `id="since"`)
		if p := b.get("/console/orders?page=%25%25%25"); p.status != http.StatusBadRequest {
			t.Fatalf("bad cursor: %d", p.status)
		}

		op := e.operator(parcelgate.Production)
		p = op.post("/console/credentials/service-accounts", url.Values{"username": {"x"}})
		if p.status != http.StatusBadRequest {
			t.Fatalf("bad account: %d", p.status)
		}
		mustContain(t, p, `id="nau-error"`, "3-64 characters", "at least one role")
		p = op.post("/console/credentials/service-accounts", url.Values{"username": {prod.Username}, "role": {"merchant"}})
		mustContain(t, p, "This username is taken")
		p = op.post("/console/clock", url.Values{"advance": {"-5m"}})
		if p.status != http.StatusBadRequest {
			t.Fatalf("bad clock advance: %d", p.status)
		}
		mustContain(t, p, `id="advance-error"`)
		p = op.get("/console/shipments?by=number&q=!!")
		if p.status != http.StatusBadRequest {
			t.Fatalf("bad lookup: %d", p.status)
		}
		mustContain(t, p, `id="q-error"`)
	})
}

// The operator creates credentials, each secret shown once; the new
// account signs in at once, and revoking it ends that.
func TestOperatorManagesCredentials(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		op := e.operator(parcelgate.Test)
		p := op.post("/console/credentials/service-accounts", url.Values{"username": {"ci-bot"}, "role": {"merchant", "supplier"}})
		if p.status != http.StatusCreated {
			t.Fatalf("create account: %d %s", p.status, p.body)
		}
		password := between(p.body, `<code id="new-password">`, `</code>`)
		if len(password) < 12 {
			t.Fatalf("password %q", password)
		}
		if again := op.get("/console/credentials"); strings.Contains(again.body, password) {
			t.Fatal("the password is shown again")
		}
		b := e.browser()
		if p := b.signIn("ci-bot", password); p.status != http.StatusSeeOther {
			t.Fatalf("new account's sign-in: %d", p.status)
		}
		if home := b.get("/console/"); !strings.Contains(home.body, "test") {
			t.Fatal("the test environment's account does not see the test tenant")
		}
		if p := op.post("/console/credentials/service-accounts/ci-bot/revoke", url.Values{}); p.status != http.StatusSeeOther {
			t.Fatalf("revoke: %d", p.status)
		}
		if home := b.get("/console/"); home.status != http.StatusSeeOther {
			t.Fatalf("revoked account's session: %d", home.status)
		}
		// Another tenant's account cannot be revoked from this tenant's page.
		if p := op.post("/console/credentials/service-accounts/"+prod.Username+"/revoke", url.Values{}); p.status != http.StatusNotFound {
			t.Fatalf("revoking the production account from the test tenant: %d", p.status)
		}
		p = op.post("/console/credentials/gateway-clients", url.Values{})
		if p.status != http.StatusCreated {
			t.Fatalf("create client: %d", p.status)
		}
		id, secret := between(p.body, `<code id="new-client-id">`, `</code>`), between(p.body, `<code id="new-client-secret">`, `</code>`)
		if _, err := e.api.Credentials.AuthenticateGatewayClient(context.Background(), id, secret); err != nil {
			t.Fatalf("the shown secret does not authenticate: %v", err)
		}
	})
}

func between(s, from, to string) string {
	_, rest, ok := strings.Cut(s, from)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, to)
	return v
}

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
