package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/parcelgate/parcelgate"
)

// The journal never keeps secrets, passwords or tokens, in JSON
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

// A batch holds only the calls the per-organization bound keeps:
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

// Decisions §21: redaction cannot be bypassed by how a
// secret's name is written, over the shapes the API accepts: JSON bodies
// (escapes, name variants, secrets as objects or arrays, cut by the cap
// or invalid part-way), forms, queries (escaped names, malformed pairs)
// and URLs in answers (the paging links).
func TestJournalRedactionTable(t *testing.T) {
	const v = "S3CR3T"
	cut := func(s string) string { return s[:len(s)-3] }
	for _, c := range []struct {
		name, in, contentType string
		keep                  string // a plain value that must stay
	}{
		{"escaped name", `{"pass\u0077ord":"S3CR3T","keep":"visible"}`, "application/json", "visible"},
		{"escaped family", `{"\u0061pi_key":"S3CR3T","keep":"visible"}`, "application/json", "visible"},
		{"x-api-key", `{"x-api-key":"S3CR3T"}`, "application/json", ""},
		{"bearerToken", `{"bearerToken":"S3CR3T"}`, "application/json", ""},
		{"clientSecret", `{"clientSecret":"S3CR3T"}`, "application/json", ""},
		{"PASS_WORD", `{"PASS_WORD":"S3CR3T"}`, "application/json", ""},
		{"Authorization", `{"headers":{"Authorization":"Bearer S3CR3T"}}`, "application/json", ""},
		{"secret object", `{"token":{"a":"S3CR3T","b":["S3CR3T"]},"keep":"visible"}`, "application/json", "visible"},
		{"secret array", `[{"apiKey":["S3CR3T",{"x":"S3CR3T"}]},{"keep":"visible"}]`, "application/json", "visible"},
		{"cut after secret", cut(`{"password":"S3CR3T","keep":"visible","pad":"xxxxxxxxx"}`), "application/json", "visible"},
		{"cut in secret", `{"keep":"visible","password":"S3CR`, "application/json", "visible"},
		{"cut in name", `{"keep":"visible","pass\u0077`, "application/json", "visible"},
		{"invalid after", `{"password":"S3CR3T","keep":"visible",}`, "application/json", "visible"},
		{"not json", `password: S3CR3T`, "text/plain", ""},
		{"not json escaped", `pass%77ord=S3CR3T`, "text/plain", ""},
		{"form", `grant_type=password&username=u&password=S3CR3T`, "application/x-www-form-urlencoded", "grant_type=password"},
		{"form escaped name", `pass%77ord=S3CR3T&keep=visible`, "application/x-www-form-urlencoded", "keep=visible"},
		{"link", `{"links":[{"rel":"next","href":"http://h/ecommerce/v3/orders?access_token=S3CR3T&size=1&page=1"}]}`, "application/json", "size=1"},
		{"link Password", `{"links":[{"href":"http://h/x?a=1&Password=S3CR3T"}]}`, "application/json", "a=1"},
		{"link fragment", `{"href":"http://h/cb#access_token=S3CR3T&state=visible"}`, "application/json", "state=visible"},
		{"two values", "{\"keep\":\"visible\"}\n{\"secret\":\"S3CR3T\"}", "application/json", "visible"},
		{"Kelvin sign", `{"api\u212aey":"S3CR3T","keep":"visible"}`, "application/json", "visible"},
		{"Kelvin sign raw", "{\"api\u212Aey\":\"S3CR3T\",\"keep\":\"visible\"}", "application/json", "visible"},
		{"escaped separator", `{"pass\u005fword":"S3CR3T"}`, "application/json", ""},
		{"link with escaped name", `{"href":"/x?pass%5Fword=S3CR3T&keep=visible"}`, "application/json", "keep=visible"},
	} {
		out := redactBody([]byte(c.in), c.contentType)
		if strings.Contains(out, v) || strings.Contains(out, "S3CR") {
			t.Errorf("%s: %q kept the secret", c.name, out)
		}
		if c.keep != "" && !strings.Contains(out, c.keep) {
			t.Errorf("%s: %q lost %q", c.name, out, c.keep)
		}
		if !utf8.ValidString(out) {
			t.Errorf("%s: %q is not UTF-8", c.name, out)
		}
	}
	for _, q := range []string{
		"access_token=S3CR3T&size=1",
		"size=1&x=%zz&access_token=S3CR3T", // a malformed pair elsewhere
		"access%5Ftoken=S3CR3T",            // an escaped name
		"ACCESS-TOKEN=S3CR3T",
		"size=1;Password=S3CR3T",
		"x-api-key=S3CR3T",
		"api.key=S3CR3T",
	} {
		if out := redactQuery(q); strings.Contains(out, v) {
			t.Errorf("query %q → %q kept the secret", q, out)
		}
	}
	// The escapes ordinary bodies are full of keep them on the fast path.
	if mayHoldSecret([]byte(`{"links":[{"href":"/x?size=1\u0026page=2&from=2025-01-01T00%3A00%2B02"}],"t":"a\nb \"q\" 50% off"}`)) {
		t.Error("an ordinary body is parsed for secrets")
	}
	if got := redactQuery("size=1&page=2"); got != "size=1&page=2" {
		t.Errorf("a query without secrets changed: %q", got)
	}
}

// FuzzJournalRedaction: whatever the body, redaction never panics, keeps
// valid UTF-8, and never keeps the value of a secret name that
// encoding/json reads from the body.
func FuzzJournalRedaction(f *testing.F) {
	for _, s := range []string{`{"pass\u0077ord":"S3CR3T"}`, `{"a":[{"x-api-key":"S3CR3T"}]}`, `{"token":{"a":"S3CR3T"}}`,
		`{"links":[{"href":"/x?access_token=S3CR3T"}]}`, `{"password":"S3CR3T","p":"xx`, "pass%77ord=S3CR3T", `{"\u0070assword":"S3CR3TS"}`,
		`{"api\u212aey":"S3CR3T"}`, `{"links":[{"href":"/x?size=1\u0026page=2\u0026from=2025-01-01T00%3A00"}],"t":"a\nb \"q\""}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		out := redactBody([]byte(body), "application/json")
		if !utf8.ValidString(out) {
			t.Fatalf("%q → %q: not UTF-8", body, out)
		}
		var v any
		if json.Unmarshal([]byte(body), &v) != nil {
			return
		}
		var secrets, plain []string
		var walk func(v any, secret bool)
		walk = func(v any, secret bool) {
			switch t := v.(type) {
			case map[string]any:
				for k, x := range t {
					plain = append(plain, k)
					walk(x, secret || isSecret(k))
				}
			case []any:
				for _, x := range t {
					walk(x, secret)
				}
			case string:
				if secret {
					secrets = append(secrets, t)
				} else {
					plain = append(plain, t)
				}
			}
		}
		walk(v, false)
		for _, s := range secrets {
			enc, _ := json.Marshal(s)
			inner := string(enc[1 : len(enc)-1])
			if len(inner) < 4 || strings.Contains(redacted, s) || slices.ContainsFunc(plain, func(p string) bool { return strings.Contains(p, s) }) {
				continue
			}
			if strings.Contains(out, inner) {
				t.Fatalf("%q → %q kept the secret %q", body, out, s)
			}
		}
	})
}

// decisions §26: the journal keeps a shared answer (writeAnswer) by
// reference; what the response writes after it is appended to an array of
// the journal's own, never into the answer's, and the cap holds.
func TestKeepSharedLeavesTheAnswerAlone(t *testing.T) {
	array := make([]byte, 8, 64)
	copy(array, "abcdWXYZ")
	answer := array[:4]
	var c cappedBuffer
	c.keepShared(answer)
	c.keep([]byte("1234"))
	if string(c.b) != "abcd1234" || string(array) != "abcdWXYZ" || c.more {
		t.Fatalf("kept %q, the answer's array now %q, more %v", c.b, array, c.more)
	}
	var big cappedBuffer
	big.keepShared(bytes.Repeat([]byte("x"), JournalBodyCap+1))
	if len(big.b) != JournalBodyCap || !big.more {
		t.Fatalf("kept %d bytes of %d, more %v", len(big.b), JournalBodyCap+1, big.more)
	}
}

// decisions §26: a response body redacted before, by the identity of its
// bytes, is given the text redactBody gives it; the same array cut shorter
// (a capture the cap ended) is redacted for what it holds.
func TestRedactedAnswersAreRedactBody(t *testing.T) {
	body := []byte(`{"password":"S3CR3T","keep":"visible","token":"T0K3N"}`)
	var m redactedAnswers
	for _, b := range [][]byte{body, body, slices.Clone(body), body[:30], body} {
		if got, want := m.redact(b), redactBody(b, "application/json"); got != want {
			t.Fatalf("redacted %q as %q, redactBody gives %q", b, got, want)
		}
	}
	if strings.Contains(m.redact(body), "S3CR3T") {
		t.Fatal("the secret is kept")
	}
}

// Only shared answers (writeAnswer's, kept by reference) are remembered by
// the journal writer: a body the call captured into its own buffer is
// redacted and let go, so a catalog walk's pages are not kept alive.
func TestOnlySharedAnswersAreRemembered(t *testing.T) {
	answer := []byte(`{"externalId":"A1","token":"T0K3N"}`)
	var own cappedBuffer
	own.keep(answer)
	var shared cappedBuffer
	shared.keepShared(answer)
	var appended cappedBuffer
	appended.keepShared(answer)
	appended.keep([]byte(` `))

	var m redactedAnswers
	for _, c := range []struct {
		name string
		buf  cappedBuffer
		want int
	}{{"own", own, 0}, {"appended to", appended, 0}, {"shared", shared, 1}} {
		p := &pendingEntry{respBody: c.buf}
		e := p.finish(&m)
		if strings.Contains(e.ResponseBody, "T0K3N") {
			t.Fatalf("%s: the token is kept: %s", c.name, e.ResponseBody)
		}
		if got := len(m.byArray); got != c.want {
			t.Fatalf("%s body: %d answers remembered, want %d", c.name, got, c.want)
		}
	}
}
