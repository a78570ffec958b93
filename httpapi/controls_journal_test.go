package httpapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

func journalOf(t *testing.T, e *apitest.Env, query string) httpapi.JournalPage {
	t.Helper()
	var p httpapi.JournalPage
	e.Admin("GET", "/admin/v1/requests?"+query, nil).Expect(http.StatusOK).JSON(&p)
	return p
}

// The request journal keeps each organization's calls, shared by
// the instances (a call served by one is looked up on another by the
// X-Request-ID the client saw), with bodies and with secrets redacted;
// filtered by organization, route, status and time, and paged.
func TestRequestJournal(t *testing.T) {
	apitest.EachShared(t, 2, func(t *testing.T, es []*apitest.Env) {
		a, b := es[0], es[1]
		m := newMerchant(t, b, parcelgate.Test, tenantA)
		other := newMerchant(t, b, parcelgate.Test, tenantB)
		start := time.Now().UTC()
		r := b.Do(apitest.Request{Method: "PUT", Path: "/ecommerce/v3/order", Body: m.orderBody("J1", 1), Bearer: m.token,
			Header: http.Header{"X-Request-Id": {"journal-order-1"}}}).Expect(http.StatusOK)
		if r.Header.Get("X-Request-ID") != "journal-order-1" {
			t.Fatalf("request ID %q", r.Header.Get("X-Request-ID"))
		}
		b.Do(apitest.Request{Method: "GET", Path: "/ecommerce/v3/orders?access_token=s3cr3t&size=5", Bearer: m.token,
			Header: http.Header{"X-Request-Id": {"journal-list-1"}}}).Expect(http.StatusOK)
		b.Admin("POST", "/admin/v1/faults", map[string]any{"environment": "test", "businessId": tenantA, "route": "/ecommerce/v3/orders", "status": 503, "count": 1}).Expect(http.StatusCreated)
		b.Do(apitest.Request{Method: "GET", Path: "/ecommerce/v3/orders", Bearer: m.token}).Expect(http.StatusServiceUnavailable)
		other.do("GET", "/ecommerce/v3/orders", nil).Expect(http.StatusOK)

		var entry parcelgate.JournalEntry
		if !waitWithin(t, 3*time.Second, func() bool {
			r := a.Admin("GET", "/admin/v1/requests/journal-order-1", nil)
			if r.Status != http.StatusOK {
				return false
			}
			r.JSON(&entry)
			return true
		}) {
			t.Fatal("the call never reached the journal on the other instance")
		}
		if entry.Status != 200 || entry.Method != "PUT" || entry.Route != "/ecommerce/v3/order" || entry.BusinessID != tenantA ||
			!strings.Contains(entry.RequestBody, tenantA+"-J1") || !strings.Contains(entry.ResponseBody, `"Created"`) || entry.LatencyMs <= 0 {
			t.Fatalf("entry %+v", entry)
		}
		// Every call is written: each tenant's token call and two stock
		// PUTs (newMerchant; token calls are journaled under the
		// organization they name), A's three calls and B's one.
		if !waitWithin(t, 5*time.Second, func() bool { return len(journalOf(t, a, "environment=test").Content) == 10 }) {
			t.Fatalf("journal: %d calls, want 10", len(journalOf(t, a, "environment=test").Content))
		}
		var list parcelgate.JournalEntry
		a.Admin("GET", "/admin/v1/requests/journal-list-1", nil).Expect(http.StatusOK).JSON(&list)
		if strings.Contains(list.Query, "s3cr3t") || !strings.Contains(list.Query, "access_token=%5Bredacted%5D") {
			t.Errorf("query kept a token: %q", list.Query)
		}

		all := journalOf(t, a, "environment=test&businessId="+tenantA)
		if len(all.Content) != 6 || all.Content[0].Status != 503 || all.Content[0].RequestBody != "" || all.Content[4].Route != "/ecommerce/v3/inventory" {
			t.Fatalf("tenant A's journal, newest first without bodies: %+v", all.Content)
		}
		if got := journalOf(t, a, "environment=test&businessId="+tenantA+"&status=5xx"); len(got.Content) != 1 || got.Content[0].Status != 503 {
			t.Errorf("status=5xx: %+v", got.Content)
		}
		if got := journalOf(t, a, "environment=test&businessId="+tenantA+"&status=200&route=/ecommerce/v3/order"); len(got.Content) != 1 || got.Content[0].RequestID != "journal-order-1" {
			t.Errorf("status and route: %+v", got.Content)
		}
		if got := journalOf(t, a, "environment=test&businessId="+tenantB); len(got.Content) != 4 || got.Content[0].BusinessID != tenantB {
			t.Errorf("tenant B's journal: %+v", got.Content)
		}
		// The organization exists only in test.
		a.Admin("GET", "/admin/v1/requests?environment=production&businessId="+tenantA, nil).Expect(http.StatusNotFound)
		if got := journalOf(t, a, "environment=production"); len(got.Content) != 0 {
			t.Errorf("test-environment calls listed in production: %+v", got.Content)
		}
		future := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
		if got := journalOf(t, a, "environment=test&from="+future); len(got.Content) != 0 {
			t.Errorf("from the future: %+v", got.Content)
		}
		if got := journalOf(t, a, "environment=test&from="+start.Format(time.RFC3339Nano)+"&to="+future); len(got.Content) != 4 {
			t.Errorf("from start to the future: %d entries", len(got.Content))
		}
		// Paging: pages of three walk all ten calls once, newest first.
		var seen []string
		for next := ""; ; {
			q := "environment=test&limit=3"
			if next != "" {
				q += "&before=" + next
			}
			p := journalOf(t, a, q)
			for _, e := range p.Content {
				seen = append(seen, e.RequestID)
			}
			if next = p.Next; next == "" {
				break
			}
		}
		if len(seen) != 10 || seen[2] != "journal-list-1" || seen[3] != "journal-order-1" {
			t.Fatalf("paged through %v", seen)
		}
	})
}

// The journal keeps a bounded number of calls per organization.
func TestRequestJournalPruned(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		m := newMerchant(t, e, parcelgate.Test, tenantA)
		for i := range 8 {
			m.Do(apitest.Request{Method: "GET", Path: "/ecommerce/v3/orders", Bearer: m.token,
				Header: http.Header{"X-Request-Id": {fmt.Sprintf("pruned-%d", i)}}}).Expect(http.StatusOK)
		}
		e.Server.Close() // writes what is queued
		got := journalOf(t, e, "environment=test&businessId="+tenantA)
		if len(got.Content) != 5 {
			t.Fatalf("%d entries kept, want 5", len(got.Content))
		}
		// The newest five, newest first: the calls gathered in one batch
		// beyond the bound are never written, and none of the kept ones is
		// lost to it.
		for i, e := range got.Content {
			if want := fmt.Sprintf("pruned-%d", 7-i); e.RequestID != want {
				t.Fatalf("entry %d is %s, want %s", i, e.RequestID, want)
			}
		}
	}, func(c *httpapi.Config) { c.JournalPerTenant = 5 })
}

// Bad journal queries name the parameter; an unknown request is 404.
func TestRequestJournalBadInput(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		for q, field := range map[string]string{"status=abc": "status", "status=99": "status", "status=6xx": "status", "from=yesterday": "from",
			"to=2025-13-01": "to", "limit=0": "limit", "limit=501": "limit", "before=x": "before", "environment=stage": "environment"} {
			expectField(t, e.Admin("GET", "/admin/v1/requests?"+q, nil).Expect(http.StatusBadRequest), field)
		}
		e.Admin("GET", "/admin/v1/requests?environment=test&businessId=7654321-2", nil).Expect(http.StatusNotFound)
		e.Admin("GET", "/admin/v1/requests/no-such-request", nil).Expect(http.StatusNotFound)
	})
}

// A label's PDF answer is journaled by its type and size, never its
// bytes: PostgreSQL's text holds no NUL byte, and a batch holding one was
// lost whole there, the calls beside it included (decisions §46). The
// call and its neighbours are all kept, on both engines.
func TestRequestJournalKeepsBinaryAnswersBySize(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		tok := e.GatewayToken(parcelgate.Production, "1234567-1")
		ans := createShipping(t, e, tok, shippingBody("PO2103", tampere(t), 1), "")
		label := e.Do(apitest.Request{Method: "GET", Path: "/shippingapi/api/v2/shipping/label/" + ans.Parcels[0].ParcelNo, Bearer: tok,
			Header: http.Header{"X-Request-Id": {"journal-pdf-1"}}}).Expect(http.StatusOK)
		if !strings.HasPrefix(string(label.Body), "%PDF-") {
			t.Fatalf("label %.10q", label.Body)
		}
		e.Do(apitest.Request{Method: "POST", Path: shippingV2, Bearer: tok, Body: map[string]any{"shipment": map[string]any{}},
			Header: http.Header{"X-Request-Id": {"journal-after-pdf"}}}).Expect(http.StatusBadRequest)
		var pdf, after parcelgate.JournalEntry
		if !waitWithin(t, 5*time.Second, func() bool {
			r1 := e.Admin("GET", "/admin/v1/requests/journal-pdf-1", nil)
			r2 := e.Admin("GET", "/admin/v1/requests/journal-after-pdf", nil)
			if r1.Status != http.StatusOK || r2.Status != http.StatusOK {
				return false
			}
			r1.JSON(&pdf)
			r2.JSON(&after)
			return true
		}) {
			t.Fatal("the label call or the call after it never reached the journal")
		}
		want := fmt.Sprintf("[binary body not kept: application/pdf, %d bytes]", len(label.Body))
		if pdf.ResponseBody != want || after.ResponseBody == "" || strings.ContainsRune(after.ResponseBody, 0) {
			t.Errorf("label entry %q (want %q); the next call's %q", pdf.ResponseBody, want, after.ResponseBody)
		}
	})
}
