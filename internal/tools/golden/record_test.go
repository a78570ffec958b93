package golden

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/cryptotest"
	"time"

	"github.com/parcelgate/parcelgate"
)

// stepClock is the server's environment clock in the recording: a fixed
// instant that moves only when the script says so (one second before each
// recorded request), so every stamp the server makes from its clock is the
// same on every run.
type stepClock struct {
	mu  sync.Mutex
	now time.Time
}

// clockStart is a Tuesday morning in Helsinki, well before the wall clock
// of any run, so a stamp of the wall clock (made without the server's
// clock) is told apart from the environment clock's.
var clockStart = time.Date(2026, 3, 10, 7, 0, 0, 0, time.UTC)

func (c *stepClock) Now(parcelgate.Environment) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *stepClock) wall() time.Time { return c.Now("") }

func (c *stepClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// normalizer replaces the values that differ from run to run of the same
// behaviour — random IDs, tokens, secrets, request IDs, stamps of the wall
// clock — by placeholders numbered in order of first appearance, so the
// same value is the same placeholder throughout a file and the relations
// between answers (this order's ID is the one the list shows) are kept.
type normalizer struct {
	started time.Time           // the wall clock when the run began
	seen    map[string]string   // volatile value → placeholder
	count   map[string]int      // kind → placeholders handed out
	learned []string            // learned values, longest first
	kinds   map[string]string   // learned value → kind
	rules   []rule              // patterns of volatile values
	keep    map[string]struct{} // values a pattern matches that are not volatile
}

type rule struct {
	kind string
	re   *regexp.Regexp
	// group is the submatch that is volatile (0: all of it).
	group int
}

func newNormalizer() *normalizer {
	return &normalizer{started: time.Now(), seen: map[string]string{}, count: map[string]int{}, kinds: map[string]string{}, keep: map[string]struct{}{},
		rules: []rule{
			{kind: "uuid", re: regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)},
		}}
}

// learn makes v volatile: wherever it appears from now on it is the
// placeholder of its kind.
func (n *normalizer) learn(kind, v string) {
	if len(v) < 6 {
		return
	}
	if _, ok := n.kinds[v]; ok {
		return
	}
	n.kinds[v] = kind
	n.learned = append(n.learned, v)
	slices.SortStableFunc(n.learned, func(a, b string) int { return len(b) - len(a) })
	// Its URL-escaped form too, as it appears in query strings.
	if e := url.QueryEscape(v); e != v {
		if _, ok := n.kinds[e]; !ok {
			n.kinds[e] = kind
			n.learned = append(n.learned, e)
			slices.SortStableFunc(n.learned, func(a, b string) int { return len(b) - len(a) })
		}
	}
}

func (n *normalizer) placeholder(kind, v string) string {
	if p, ok := n.seen[v]; ok {
		return p
	}
	n.count[kind]++
	p := fmt.Sprintf("<%s-%d>", kind, n.count[kind])
	n.seen[v] = p
	return p
}

// wallStamp matches a time stamp as the API and the console write them.
var wallStamp = regexp.MustCompile(`\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}| UTC)?`)

// apply normalizes s.
func (n *normalizer) apply(s string) string {
	if len(n.learned) > 0 {
		// One pass over s, the longest learned value first at each place.
		var b strings.Builder
		for i := 0; i < len(s); {
			hit := ""
			for _, v := range n.learned {
				if strings.HasPrefix(s[i:], v) {
					hit = v
					break
				}
			}
			if hit == "" {
				b.WriteByte(s[i])
				i++
				continue
			}
			b.WriteString(n.placeholder(n.kinds[hit], hit))
			i += len(hit)
		}
		s = b.String()
	}
	for _, r := range n.rules {
		s = r.re.ReplaceAllStringFunc(s, func(m string) string {
			if _, ok := n.keep[m]; ok {
				return m
			}
			return n.placeholder(r.kind, m)
		})
	}
	// Stamps of the wall clock (the store's and the journal's own, not the
	// environment clock's) are one placeholder: their values, and so how
	// many distinct ones a run makes, are not the behaviour.
	s = wallStamp.ReplaceAllStringFunc(s, func(m string) string {
		if n.isWall(m) {
			return "<wallclock>"
		}
		return m
	})
	return s
}

// isWall reports whether the stamp m is of the wall clock of this run
// (within a day of its start; the environment clock is months before).
func (n *normalizer) isWall(m string) bool {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999Z0700", "2006-01-02 15:04:05.999999999 MST", "2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02T15:04"} {
		if t, err := time.Parse(layout, m); err == nil {
			d := t.Sub(n.started)
			return d > -26*time.Hour && d < 26*time.Hour
		}
	}
	return false
}

// recorder sends the script's requests and writes each answer.
type recorder struct {
	t     *testing.T
	base  string
	clock *stepClock
	norm  *normalizer
	out   bytes.Buffer
	n     int
	seed  uint64
	// client sends API calls; browsers have cookie jars of their own.
	client *http.Client
}

// answer is one response as the script reads it.
type answer struct {
	Status int
	Header http.Header
	Body   []byte
	json   any
}

// get reads a value at a dotted path ("content.0.id") of a JSON answer;
// "" when absent.
func (a *answer) get(path string) string {
	if a.json == nil {
		if err := json.Unmarshal(a.Body, &a.json); err != nil {
			return ""
		}
	}
	v := a.json
	for _, k := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(x) {
				return ""
			}
			v = x[i]
		default:
			return ""
		}
	}
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case nil:
		return ""
	default:
		b, _ := json.Marshal(x)
		return string(b)
	}
}

// auth says how a request is signed.
type auth struct {
	header string // the Authorization header
	jar    *http.Client
}

func bearer(tok string) auth { return auth{header: "Bearer " + tok} }
func basic(u, p string) auth {
	return auth{header: "Basic " + base64.StdEncoding.EncodeToString([]byte(u+":"+p))}
}
func raw(tok string) auth { return auth{header: tok} }

var none auth

// browser is a client with its own cookies that does not follow
// redirects, as the console's tests use.
func browser() auth {
	jar, _ := cookiejar.New(nil)
	return auth{jar: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// recordedHeaders are the response headers written to the file; the
// others (Date, Content-Length) say nothing of the behaviour.
var skippedHeaders = map[string]bool{"Date": true, "Content-Length": true}

// call sends one request and records it. body is sent as it is (a string)
// or as JSON; hdr adds headers ("Name: value" lines).
func (r *recorder) call(method, path string, a auth, body any, hdr ...string) *answer {
	r.t.Helper()
	return r.send(true, method, path, a, body, hdr...)
}

// quiet sends a request that is not recorded (waiting for the journal).
func (r *recorder) quiet(method, path string, a auth) *answer {
	r.t.Helper()
	return r.send(false, method, path, a, nil)
}

func (r *recorder) send(record bool, method, path string, a auth, body any, hdr ...string) *answer {
	r.t.Helper()
	if record {
		r.clock.advance(time.Second)
		// Each call draws from a random stream of its own: a change in how
		// many random values one call draws moves no other call's.
		cryptotest.SetGlobalRandom(r.t, r.seed+uint64(r.n)+1)
	}
	var rd io.Reader
	var sent string
	ct := ""
	switch b := body.(type) {
	case nil:
	case string:
		sent = b
		ct = "application/json"
	case rawForm:
		sent = string(b)
		ct = "application/x-www-form-urlencoded"
	case url.Values:
		sent = b.Encode()
		ct = "application/x-www-form-urlencoded"
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			r.t.Fatal(err)
		}
		sent = string(raw)
		ct = "application/json"
	}
	if body != nil {
		rd = strings.NewReader(sent)
	}
	req, err := http.NewRequest(method, r.base+path, rd)
	if err != nil {
		r.t.Fatal(err)
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	if a.header != "" {
		req.Header.Set("Authorization", a.header)
	}
	for _, h := range hdr {
		k, v, _ := strings.Cut(h, ":")
		req.Header.Set(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	client := r.client
	if a.jar != nil {
		client = a.jar
		if method == http.MethodPost {
			req.Header.Set("Sec-Fetch-Site", "same-origin")
			req.Header.Set("Origin", r.base)
		}
	}
	resp, err := client.Do(req)
	if err != nil {
		r.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		r.t.Fatalf("%s %s: read: %v", method, path, err)
	}
	ans := &answer{Status: resp.StatusCode, Header: resp.Header, Body: got}
	if record {
		r.learnFrom(ans)
		r.write(method, path, req.Header, sent, ans)
	}
	return ans
}

// volatileFields are the JSON members whose values are made at random by
// the server: tokens, secrets, request IDs.
var volatileFields = map[string]string{
	"access_token": "token", "accessToken": "token", "refresh_token": "token", "id_token": "token",
	"clientSecret": "secret", "client_secret": "secret", "password": "secret", "secret": "secret",
	"requestId": "request", "request_id": "request",
}

// timings are how long the server took, in the journal's JSON and the
// console's tables: the machine's, not the behaviour.
var timings = []*regexp.Regexp{
	regexp.MustCompile(`("(?:latencyMs|elapsedMs|durationMs|tookMs)": )[0-9.e+-]+`),
	regexp.MustCompile(`(<td class="num">)[0-9.]+ ms(</td>)`),
}

// learnFrom learns the volatile values an answer introduces.
func (r *recorder) learnFrom(a *answer) {
	for _, k := range []string{"X-Request-Id", "X-Request-ID"} {
		if v := a.Header.Get(k); v != "" {
			r.norm.learn("request", v)
		}
	}
	for _, c := range a.Header.Values("Set-Cookie") {
		if name, rest, ok := strings.Cut(c, "="); ok {
			v, _, _ := strings.Cut(rest, ";")
			if v != "" {
				r.norm.learn("cookie-"+name, v)
			}
		}
	}
	if !strings.Contains(a.Header.Get("Content-Type"), "json") {
		if strings.Contains(a.Header.Get("Content-Type"), "html") {
			r.learnHTML(string(a.Body))
		}
		return
	}
	var v any
	if json.Unmarshal(a.Body, &v) != nil {
		return
	}
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if kind, ok := volatileFields[k]; ok {
					if s, ok := e.(string); ok {
						r.norm.learn(kind, s)
					}
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
}

// htmlSecret finds the values a console page shows once: a new
// credential's secret, the cross-site token of a form.
var htmlSecret = regexp.MustCompile(`(?:name="(?:csrf|token|_csrf)" value="|data-secret="|<code class="secret">|<code id="secret">)([^"<]{6,})`)

func (r *recorder) learnHTML(s string) {
	for _, m := range htmlSecret.FindAllStringSubmatch(s, -1) {
		r.norm.learn("secret", m[1])
	}
}

// write appends one exchange to the file.
func (r *recorder) write(method, path string, reqHeader http.Header, sent string, a *answer) {
	r.n++
	n := r.norm
	fmt.Fprintf(&r.out, "### %03d %s %s\n", r.n, method, n.apply(path))
	for _, k := range []string{"Accept", "Accept-Language", "X-Gateway-Secret", "X-Test-Environment"} {
		if v := reqHeader.Get(k); v != "" {
			fmt.Fprintf(&r.out, "> %s: %s\n", k, n.apply(v))
		}
	}
	if sent != "" {
		fmt.Fprintf(&r.out, "> %s\n", n.apply(pretty(sent)))
	}
	fmt.Fprintf(&r.out, "< %d\n", a.Status)
	keys := make([]string, 0, len(a.Header))
	for k := range a.Header {
		if !skippedHeaders[k] {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, v := range a.Header[k] {
			fmt.Fprintf(&r.out, "< %s: %s\n", k, n.apply(v))
		}
	}
	body := r.body(a)
	for _, re := range timings {
		body = re.ReplaceAllString(body, "${1}<ms>${2}")
	}
	fmt.Fprintf(&r.out, "%s\n\n", n.apply(body))
}

// body is an answer's body as written: JSON indented (members in the
// order sent), PDFs (also base64 ones inside JSON) by their structure and
// text, text as it is.
func (r *recorder) body(a *answer) string {
	b := a.Body
	if bytes.HasPrefix(b, []byte("%PDF")) {
		return pdfSummary(b)
	}
	s := string(b)
	if strings.Contains(a.Header.Get("Content-Type"), "json") && json.Valid(b) {
		s = pdfsInJSON.ReplaceAllStringFunc(s, func(m string) string {
			raw, err := base64.StdEncoding.DecodeString(strings.Trim(m, `"`))
			if err != nil {
				return m
			}
			sum, _ := json.Marshal(pdfSummary(raw))
			return string(sum)
		})
		return pretty(s)
	}
	return s
}

var pdfsInJSON = regexp.MustCompile(`"JVBER[A-Za-z0-9+/=]*"`)

func pretty(s string) string {
	var out bytes.Buffer
	if json.Indent(&out, []byte(s), "", "  ") != nil {
		return s
	}
	return out.String()
}

var (
	pdfStream = regexp.MustCompile(`(?s)stream\r?\n(.*?)\r?\nendstream`)
	pdfText   = regexp.MustCompile(`\(((?:\\.|[^\\)])*)\)\s*Tj`)
	pdfOp     = regexp.MustCompile(`(?m)\s(re|l|m|f|S|Do|BT|ET|cm)\s*$`)
	pdfBox    = regexp.MustCompile(`/MediaBox \[[^]]*\]`)
	pdfPages  = regexp.MustCompile(`/Type /Page\b`)
)

// pdfSummary writes a PDF as its pages and their size, the text it draws
// and the counts of its drawing operators per stream: what a label or note
// says and how it is laid out. Not its bytes: the PDF writer orders some
// objects by map iteration, so two runs of the same label differ in bytes.
func pdfSummary(b []byte) string {
	var s strings.Builder
	fmt.Fprintf(&s, "PDF %d pages %s\n", len(pdfPages.FindAll(b, -1)), pdfBox.Find(b))
	for i, m := range pdfStream.FindAllSubmatch(b, -1) {
		content := m[1]
		if zr, err := zlib.NewReader(bytes.NewReader(m[1])); err == nil {
			if inflated, err := io.ReadAll(zr); err == nil {
				content = inflated
			}
		}
		if !bytes.Contains(content, []byte("ET")) && !bytes.Contains(content, []byte(" re")) {
			continue
		}
		ops := map[string]int{}
		for _, o := range pdfOp.FindAllSubmatch(content, -1) {
			ops[string(o[1])]++
		}
		keys := make([]string, 0, len(ops))
		for k := range ops {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		fmt.Fprintf(&s, "stream %d:", i)
		for _, k := range keys {
			fmt.Fprintf(&s, " %s=%d", k, ops[k])
		}
		s.WriteString("\n")
		for _, t := range pdfText.FindAllSubmatch(content, -1) {
			fmt.Fprintf(&s, "  text %q\n", t[1])
		}
	}
	return s.String()
}
