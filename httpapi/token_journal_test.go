package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

// Token requests of both token services, granted and refused,
// are journaled under the organization whose credentials they named, the
// secret redacted, so "why does my token call fail" is a lookup; a name
// that is no credential's is journaled under no organization.
func TestTokenCallsJournaled(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		id, secret := e.GatewayClient(parcelgate.Test, tenantA)
		user, password := e.ServiceAccount(parcelgate.Test, tenantB, parcelgate.RoleMerchant)
		form := func(id, secret string) string {
			return "grant_type=client_credentials&client_id=" + id + "&client_secret=" + secret
		}
		call := func(reqID string, r apitest.Request) {
			r.Header = http.Header{"X-Request-Id": {reqID}}
			e.Do(r)
		}
		call("tok-gw-ok", apitest.Request{Method: "POST", Path: "/api/v1/token", ContentType: "application/x-www-form-urlencoded", Body: form(id, secret)})
		call("tok-gw-bad", apitest.Request{Method: "POST", Path: "/api/v1/token", ContentType: "application/x-www-form-urlencoded", Body: form(id, "wrong-secret")})
		call("tok-gw-basic-bad", apitest.Request{Method: "POST", Path: "/api/v1/token", ContentType: "application/x-www-form-urlencoded", Body: "grant_type=client_credentials", Basic: &[2]string{id, "nope"}})
		call("tok-gw-grant", apitest.Request{Method: "POST", Path: "/api/v1/token", ContentType: "application/x-www-form-urlencoded", Body: "grant_type=password&client_id=" + id + "&client_secret=x"})
		call("tok-gw-unknown", apitest.Request{Method: "POST", Path: "/api/v1/token", ContentType: "application/x-www-form-urlencoded", Body: form("pg_gwnobody", "x")})
		call("tok-ecom-ok", apitest.Request{Method: "GET", Path: "/auth/token", Basic: &[2]string{user, password}})
		call("tok-ecom-bad", apitest.Request{Method: "GET", Path: "/auth/token", Basic: &[2]string{user, "wrong-password"}})
		call("tok-ecom-unknown", apitest.Request{Method: "GET", Path: "/auth/token", Basic: &[2]string{"nobody-here", "x"}})

		want := map[string]struct {
			bid    string
			status int
		}{
			"tok-gw-ok": {tenantA, 200}, "tok-gw-bad": {tenantA, 401}, "tok-gw-basic-bad": {tenantA, 401}, "tok-gw-grant": {tenantA, 400},
			"tok-ecom-ok": {tenantB, 200}, "tok-ecom-bad": {tenantB, 401},
		}
		for reqID, w := range want {
			var entry parcelgate.JournalEntry
			if !waitWithin(t, 5*time.Second, func() bool {
				r := e.Admin("GET", "/admin/v1/requests/"+reqID, nil)
				if r.Status != http.StatusOK {
					return false
				}
				r.JSON(&entry)
				return true
			}) {
				t.Fatalf("%s never reached the journal", reqID)
			}
			if entry.BusinessID != w.bid || entry.Environment != parcelgate.Test || entry.Status != w.status {
				t.Errorf("%s: journaled under %s %s with %d, want %s test %d", reqID, entry.BusinessID, entry.Environment, entry.Status, w.bid, w.status)
			}
			for _, leaked := range []string{secret, "wrong-secret", password, "wrong-password", "access_token\":\"A"} {
				if strings.Contains(entry.RequestBody+entry.ResponseBody+entry.Query, leaked) {
					t.Errorf("%s keeps a secret %q: %+v", reqID, leaked, entry)
				}
			}
		}
		var ok parcelgate.JournalEntry
		e.Admin("GET", "/admin/v1/requests/tok-gw-ok", nil).Expect(200).JSON(&ok)
		if !strings.Contains(ok.RequestBody, "client_secret=%5Bredacted%5D") || !strings.Contains(ok.RequestBody, id) {
			t.Errorf("the token request as journaled: %q", ok.RequestBody)
		}
		for _, reqID := range []string{"tok-gw-unknown", "tok-ecom-unknown"} {
			e.Admin("GET", "/admin/v1/requests/"+reqID, nil).Expect(404)
		}
		// Each organization's journal holds its own token calls only.
		for bid, n := range map[string]int{tenantA: 4, tenantB: 2} {
			if got := journalOf(t, e, "environment=test&businessId="+bid+"&route=/api/v1/token"); bid == tenantA && len(got.Content) != n {
				t.Errorf("%s's gateway token calls: %d, want %d", bid, len(got.Content), n)
			}
			if got := journalOf(t, e, "environment=test&businessId="+bid+"&route=/auth/token"); bid == tenantB && len(got.Content) != n {
				t.Errorf("%s's ecom token calls: %d, want %d", bid, len(got.Content), n)
			}
		}
	})
}
