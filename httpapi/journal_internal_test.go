package httpapi

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/parcelgate/parcelgate"
)

// Issue 13: the journal never keeps secrets, passwords or tokens, in JSON
// bodies (at any depth), forms or queries; a JSON body cut short that may
// hold one is not kept.
func TestJournalRedaction(t *testing.T) {
	for _, c := range []struct {
		name, in, contentType string
		secret                string
	}{
		{"json", `{"client_secret":"s1","nested":{"Password":"s2","list":[{"access_token":"s3"}]},"keep":"visible"}`, "application/json", "s1 s2 s3"},
		{"form", `grant_type=client_credentials&client_id=c&client_secret=s4`, "application/x-www-form-urlencoded", "s4"},
		{"cut json", `{"refresh_token":"s5","x":[1,2`, "application/json", "s5"},
	} {
		out := redactBody([]byte(c.in), c.contentType)
		for _, s := range strings.Fields(c.secret) {
			if strings.Contains(out, s) {
				t.Errorf("%s: %q kept %s", c.name, out, s)
			}
		}
		if c.name == "json" && !strings.Contains(out, "visible") {
			t.Errorf("json: %q lost a plain field", out)
		}
	}
	if q := redactQuery("a=1&Authorization=Bearer+x&apiKey=k"); strings.Contains(q, "x") && strings.Contains(q, "Bearer") || strings.Contains(q, "=k") {
		t.Errorf("query %q", q)
	}
}

// Issue 14: a batch holds only the calls the per-organization bound keeps:
// the newest keep of each organization, in arrival order, and every call of
// an organization under the bound; what it lets go no longer counts
// against the batch's size.
func TestJournalGatheringKeepsNewestPerOrg(t *testing.T) {
	gather := func(keep int) *gathering {
		g := newGathering(keep)
		for i, org := range []int64{1, 2, 1, 1, 3, 1, 2, 1} {
			g.add(&pendingEntry{entry: parcelgate.JournalEntry{OrgID: org, RequestID: fmt.Sprint(i)}, reqBody: cappedBuffer{b: make([]byte, 10)}})
		}
		return g
	}
	g := gather(2)
	var got []string
	for _, p := range g.kept() {
		got = append(got, p.entry.RequestID)
	}
	// Organization 1 made calls 0, 2, 3, 5 and 7: 5 and 7 are kept.
	if want := []string{"1", "4", "5", "6", "7"}; !slices.Equal(got, want) {
		t.Fatalf("kept %v, want %v", got, want)
	}
	if g.calls != 5 || g.superseded != 3 || g.size != 50 {
		t.Fatalf("calls %d, superseded %d, size %d; want 5, 3, 50", g.calls, g.superseded, g.size)
	}
	if g := gather(5); len(g.kept()) != 8 || g.superseded != 0 {
		t.Fatalf("under the bound kept %d of 8, superseded %d", len(g.kept()), g.superseded)
	}
}

// BenchmarkJournalRequestPath measures what the journal adds on the request
// path alone: capturing the bodies and queueing the call, for an
// authenticated GET answered with a 2 KiB JSON body. The queue is drained
// and discarded here; writing is the background writer's work, measured
// with the whole server by BenchmarkJournalCost.
//
//	go test ./httpapi -run '^$' -bench JournalRequestPath -benchmem
func BenchmarkJournalRequestPath(b *testing.B) {
	body := []byte(`{"content":[` + strings.Repeat(`{"productExternalId":"1234567-1-P1","quantity":5},`, 40) + `{}]}`)
	for _, on := range []bool{false, true} {
		name := "journal-off"
		if on {
			name = "journal-on"
		}
		b.Run(name, func(b *testing.B) {
			// The middleware alone, around one route: no store.
			s := &Server{log: slog.New(slog.NewTextHandler(io.Discard, nil)), cfg: Config{MaxBodyBytes: 1 << 20}, mux: http.NewServeMux(), reg: prometheus.NewRegistry()}
			s.metric = newMetrics(s.reg)
			if on {
				s.journal = &journal{queue: make(chan *pendingEntry, journalQueue), done: make(chan struct{})}
				go func() {
					for range s.journal.queue {
					}
				}()
				defer close(s.journal.queue)
			}
			caller := &parcelgate.Caller{Subject: "bench", OrgID: 1, BusinessID: "1234567-1", Environment: parcelgate.Test}
			s.handle("GET /bench", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if jr := journalFrom(r); jr != nil {
					jr.caller = caller
				}
				w.Header().Set("Content-Type", "application/json")
				w.Write(body)
			}))
			h := s.middleware(s.mux)
			for b.Loop() {
				h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/bench?size=50", nil))
			}
		})
	}
}
