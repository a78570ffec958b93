package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

// journalEntry waits for the call with the request ID of the organization
// bid in env to reach the journal, and returns it whole as stored.
func journalEntry(t *testing.T, e *apitest.Env, env parcelgate.Environment, bid, id string) (parcelgate.JournalEntry, string) {
	t.Helper()
	var entry parcelgate.JournalEntry
	var raw string
	if !waitWithin(t, 3*time.Second, func() bool {
		r := e.Admin("GET", "/admin/v1/requests/"+id+"?environment="+string(env)+"&businessId="+bid, nil)
		if r.Status != http.StatusOK {
			return false
		}
		r.JSON(&entry)
		raw = string(r.Body)
		return true
	}) {
		t.Fatalf("call %s never reached the journal", id)
	}
	return entry, raw
}

// Decisions §21: a secret in the query string is
// redacted wherever the journal echoes it, the paging links of the stored
// answer included (interface §2.6: the links repeat the caller's query).
func TestJournalRedactsSecretsInLinks(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		m := newMerchant(t, e, parcelgate.Test, tenantA)
		m.create(m.orderBody("L1", 1))
		m.create(m.orderBody("L2", 1))
		r := e.Do(apitest.Request{Method: "GET", Path: "/ecommerce/v3/orders?access_token=S3CR3T&Password=PW0RDX&size=1", Bearer: m.token,
			Header: http.Header{"X-Request-Id": {"links-1"}}}).Expect(http.StatusOK)
		if !strings.Contains(string(r.Body), "S3CR3T") {
			t.Fatalf("the answer's links do not echo the query; the test proves nothing: %s", r.Body)
		}
		entry, raw := journalEntry(t, e, parcelgate.Test, tenantA, "links-1")
		for _, secret := range []string{"S3CR3T", "PW0RDX"} {
			if strings.Contains(raw, secret) {
				t.Errorf("the journal kept %s: %s", secret, raw)
			}
		}
		if !strings.Contains(entry.ResponseBody, "redacted") || !strings.Contains(entry.ResponseBody, "size=1") {
			t.Errorf("the links lost more than their secrets: %s", entry.ResponseBody)
		}
	})
}

// Decisions §21: redaction decides on decoded names by
// family, so a JSON escape in a name, a name variant, or a body cut by the
// journal's cap keeps no secret.
func TestJournalRedactionCannotBeBypassed(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		m := newMerchant(t, e, parcelgate.Test, tenantA)
		pad := strings.Repeat("x", 20<<10)
		for id, body := range map[string]string{
			"escaped":   `[{"supplierId":"` + tenantA + `","externalId":"E1","pass\u0077ord":"S3CR3T1"}]`,
			"variants":  `[{"supplierId":"` + tenantA + `","externalId":"E2","x-api-key":"S3CR3T2","bearerToken":"S3CR3T3","clientSecret":"S3CR3T4","nested":{"API_KEY":["S3CR3T5"]}}]`,
			"oversized": `[{"supplierId":"` + tenantA + `","pass\u0077ord":"S3CR3T6","description":"` + pad + `"}]`,
			"cut-key":   `[{"supplierId":"` + tenantA + `","description":"` + pad + `","pass\u0077ord":"S3CR3T7"}]`,
		} {
			e.Do(apitest.Request{Method: "PUT", Path: "/ecommerce/v3/inventory", Body: body, Bearer: m.token,
				Header: http.Header{"X-Request-Id": {"bypass-" + id}}, Undocumented: true})
			entry, raw := journalEntry(t, e, parcelgate.Test, tenantA, "bypass-"+id)
			if strings.Contains(raw, "S3CR3T") {
				t.Errorf("%s: the journal kept a secret: %.300s", id, raw)
			}
			if id != "cut-key" && !strings.Contains(entry.RequestBody, "redacted") {
				t.Errorf("%s: no redaction in %.300s", id, entry.RequestBody)
			}
			if id == "oversized" && !entry.Truncated {
				t.Errorf("oversized: not marked truncated")
			}
		}
	})
}

// Decisions §21: a request ID is the client's, so two
// tenants may use the same one; the admin lookup chooses by businessId and
// environment, and without them says the ID is ambiguous rather than
// answering the newest of any organization.
func TestJournalLookupIsScoped(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		a := newMerchant(t, e, parcelgate.Test, tenantA)
		b := newMerchant(t, e, parcelgate.Test, tenantB)
		e.Do(apitest.Request{Method: "GET", Path: "/ecommerce/v3/orders?size=2", Bearer: b.token, Header: http.Header{"X-Request-Id": {"b-1"}}}).Expect(http.StatusOK)
		bEntry, _ := journalEntry(t, e, parcelgate.Test, tenantB, "b-1")
		e.Do(apitest.Request{Method: "GET", Path: "/ecommerce/v3/orders?size=3", Bearer: a.token, Header: http.Header{"X-Request-Id": {"b-1"}}}).Expect(http.StatusOK)
		aEntry, _ := journalEntry(t, e, parcelgate.Test, tenantA, "b-1")
		if bEntry.BusinessID != tenantB || bEntry.Query != "size=2" || aEntry.BusinessID != tenantA || aEntry.Query != "size=3" {
			t.Fatalf("scoped lookups: B %+v, A %+v", bEntry, aEntry)
		}
		// B's entry is still B's after A used the ID.
		if again, _ := journalEntry(t, e, parcelgate.Test, tenantB, "b-1"); again.BusinessID != tenantB || again.Query != "size=2" {
			t.Fatalf("B's entry after A's call: %+v", again)
		}
		r := e.Admin("GET", "/admin/v1/requests/b-1", nil).Expect(http.StatusConflict)
		if !strings.Contains(string(r.Body), tenantA) || !strings.Contains(string(r.Body), tenantB) {
			t.Errorf("the ambiguity does not name both organizations: %s", r.Body)
		}
		expectField(t, e.Admin("GET", "/admin/v1/requests/b-1?businessId="+tenantA, nil).Expect(http.StatusBadRequest), "environment")
		e.Admin("GET", "/admin/v1/requests/b-1?environment=production", nil).Expect(http.StatusNotFound)
		// One organization's retries with one ID: the newest, and how many.
		e.Do(apitest.Request{Method: "GET", Path: "/ecommerce/v3/orders?size=4", Bearer: a.token, Header: http.Header{"X-Request-Id": {"b-1"}}}).Expect(http.StatusOK)
		if !waitWithin(t, 3*time.Second, func() bool {
			r := e.Admin("GET", "/admin/v1/requests/b-1?environment=test&businessId="+tenantA, nil)
			var got parcelgate.JournalEntry
			json.Unmarshal(r.Body, &got)
			return r.Status == http.StatusOK && got.Query == "size=4" && r.Header.Get("X-Journal-Matches") == "2"
		}) {
			t.Fatal("the newest of one organization's calls with the ID is not answered with their count")
		}
	})
}

// Review of decisions §21: redaction holds however a secret is encoded: a
// JSON string may itself hold JSON (or a query), and encoding/json reads
// paſſword as password.
func TestJournalRedactsNestedAndMislabelledBodies(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		m := newMerchant(t, e, parcelgate.Test, tenantA)
		for id, c := range map[string]struct{ body, ct string }{
			"json-string": {`[{"supplierId":"` + tenantA + `","externalId":"N2","note":"{\"apiKey\":\"S3CR3T2\"}"}]`, "application/json"},
			"long-s":      {"[{\"supplierId\":\"" + tenantA + "\",\"externalId\":\"N3\",\"pa\u017f\u017fword\":\"S3CR3T3\"}]", "application/json"},
		} {
			e.Do(apitest.Request{Method: "PUT", Path: "/ecommerce/v3/inventory", Body: c.body, ContentType: c.ct, Bearer: m.token,
				Header: http.Header{"X-Request-Id": {"nested-" + id}}, Undocumented: true})
			_, raw := journalEntry(t, e, parcelgate.Test, tenantA, "nested-"+id)
			if strings.Contains(raw, "S3CR3T") {
				t.Errorf("%s: the journal kept a secret: %.400s", id, raw)
			}
		}
	})
}
