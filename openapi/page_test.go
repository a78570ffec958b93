package openapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	stdhtml "html"
	"html/template"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/getkin/kin-openapi/openapi3"

	"github.com/parcelgate/parcelgate/openapi"
)

// The reference page says what the YAML says: every operation, with its
// paths under every server prefix, its parameters and its answers.
func TestPageHasEveryOperation(t *testing.T) {
	page, err := openapi.Page()
	if err != nil {
		t.Fatal(err)
	}
	html := string(page)
	doc, err := openapi3.NewLoader().LoadFromData(openapi.Spec)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			n++
			id := `id="op-` + op.OperationID + `"`
			if strings.Count(html, id) != 1 {
				t.Errorf("%s %s: operation %s appears %d times", method, path, op.OperationID, strings.Count(html, id))
			}
			if !strings.Contains(html, ">"+method+"</span>") {
				t.Errorf("no %s operation shown", method)
			}
			for _, p := range op.Parameters {
				if p.Value != nil && !strings.Contains(html, "<code>"+p.Value.Name+"</code>") {
					t.Errorf("%s: parameter %s not shown", op.OperationID, p.Value.Name)
				}
			}
			for code := range op.Responses.Map() {
				if !strings.Contains(html, "<code>"+code+"</code>") {
					t.Errorf("%s: answer %s not shown", op.OperationID, code)
				}
			}
			for _, srv := range item.Servers {
				full := strings.TrimRight(srv.URL, "/") + path
				if !strings.Contains(html, full) {
					t.Errorf("%s: path %s not shown", op.OperationID, full)
				}
			}
		}
	}
	if n < 40 {
		t.Fatalf("only %d operations in the document", n)
	}
	for name := range doc.Components.Schemas {
		if !strings.Contains(html, `id="schema-`+name+`"`) {
			t.Errorf("schema %s not shown", name)
		}
	}
	// A request body's example is shown, made from the schema.
	if !strings.Contains(html, "&#34;searchCriteria&#34;") {
		t.Error("no example body for POST /labelless")
	}
}

// Nothing on the page comes from another host: no external script, style,
// image, font or frame, and no link off the server.
func TestPageLoadsNothingFromElsewhere(t *testing.T) {
	page, err := openapi.Page()
	if err != nil {
		t.Fatal(err)
	}
	html := string(page)
	for _, re := range []*regexp.Regexp{
		regexp.MustCompile(`(?i)\bsrc\s*=`),
		regexp.MustCompile(`(?i)<link\b`),
		regexp.MustCompile(`(?i)@import`),
		regexp.MustCompile(`(?i)url\(`),
		regexp.MustCompile(`(?i)<(iframe|img|object|embed)\b`),
		regexp.MustCompile(`(?i)href\s*=\s*"(https?:)?//`),
		regexp.MustCompile(`(?i)\bfetch\(|XMLHttpRequest`),
	} {
		if m := re.FindString(html); m != "" {
			t.Errorf("page has %q", m)
		}
	}
	if !strings.Contains(html, `<input id="q" type="search"`) || !strings.Contains(html, `addEventListener("input"`) {
		t.Error("no search filter")
	}
}

// opSection is the HTML of one operation on the page.
func opSection(t *testing.T, html, id string) string {
	t.Helper()
	start := strings.Index(html, `<details class="op" id="op-`+id+`"`)
	if start < 0 {
		t.Fatalf("no section for %s", id)
	}
	end := strings.Index(html[start:], "\n</details>")
	return html[start : start+end]
}

// The page shows each request body's example as the document gives it,
// the one the examples test sends (TestRequestExamplesWork), never one
// made up from the schema: the page used to show createShippingOrder
// with both pdfConfig and printConfig, "parcels": [{}] and "string"
// placeholders, which the server refuses. Parameters show their example
// values.
func TestPageShowsTheExamples(t *testing.T) {
	page, err := openapi.Page()
	if err != nil {
		t.Fatal(err)
	}
	html := string(page)
	doc, err := openapi3.NewLoader().LoadFromData(openapi.Spec)
	if err != nil {
		t.Fatal(err)
	}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			sec := stdhtml.UnescapeString(opSection(t, html, op.OperationID))
			if rb := op.RequestBody; rb != nil && rb.Value != nil {
				body := sec[strings.Index(sec, "<h4>Request body"):strings.Index(sec, "<h4>Answers")]
				if strings.Contains(body, `"string"`) {
					t.Errorf("%s: the request example has a \"string\" placeholder", op.OperationID)
				}
				for mt, m := range rb.Value.Content {
					if !strings.Contains(mt, "json") {
						continue
					}
					examples := []any{m.Example}
					for _, e := range m.Examples {
						examples = append(examples, e.Value.Value)
					}
					for _, ex := range examples {
						if ex == nil {
							continue
						}
						want, _ := json.MarshalIndent(ex, "", "  ")
						if !strings.Contains(body, string(want)) {
							t.Errorf("%s: the page does not show the document's example:\n%s", op.OperationID, want)
						}
					}
				}
			}
			for _, p := range append(slices.Clone(item.Parameters), op.Parameters...) {
				if p.Value != nil && p.Value.Example != nil {
					// An array's example is shown as it is sent: its items
					// comma-separated.
					shown := fmt.Sprint(p.Value.Example)
					if a, ok := p.Value.Example.([]any); ok {
						items := make([]string, len(a))
						for i, x := range a {
							items[i] = fmt.Sprint(x)
						}
						shown = strings.Join(items, ",")
					}
					want := "Example: <code>" + shown + "</code>"
					if !strings.Contains(sec, want) {
						t.Errorf("%s: parameter %s's example not shown (%s)", op.OperationID, p.Value.Name, want)
					}
				}
			}
		}
	}
	ship := stdhtml.UnescapeString(opSection(t, html, "createShippingOrder"))
	if strings.Contains(ship, `"pdfConfig":`) || !strings.Contains(ship, `"printConfig":`) || strings.Contains(ship, "{}") {
		t.Errorf("createShippingOrder's example is not the v2 request:\n%s", ship)
	}
	if !strings.Contains(stdhtml.UnescapeString(html), "client_id=demo-client&client_secret=demo-client-secret&grant_type=client_credentials") {
		t.Error("the token request's form example is not shown as a form")
	}
}

// The sidebar writes every operation's path whole (line breaks allowed
// after a slash, nothing cut), each tag's links in a group the filter can
// hide as one.
func TestPageSidebarShowsWholePaths(t *testing.T) {
	page, err := openapi.Page()
	if err != nil {
		t.Fatal(err)
	}
	html := string(page)
	nav := html[strings.Index(html, "<nav>"):strings.Index(html, "</nav>")]
	if strings.Contains(nav, "…") || strings.Contains(nav, "...") {
		t.Error("the sidebar cuts a path")
	}
	style := html[strings.Index(html, "<style>"):strings.Index(html, "</style>")]
	for _, rule := range []string{"text-overflow", "nowrap"} {
		if strings.Contains(style, rule) {
			t.Errorf("the page's style has %s: a long path would be cut", rule)
		}
	}
	doc, err := openapi3.NewLoader().LoadFromData(openapi.Spec)
	if err != nil {
		t.Fatal(err)
	}
	for path, item := range doc.Paths.Map() {
		prefix := ""
		if len(item.Servers) > 0 {
			prefix = strings.TrimRight(item.Servers[0].URL, "/")
		}
		for _, op := range item.Operations() {
			re := regexp.MustCompile(`data-op="` + regexp.QuoteMeta(op.OperationID) + `"[^>]*>.*?<span class="navpath">(.*?)</span>`)
			m := re.FindStringSubmatch(nav)
			if m == nil {
				t.Errorf("%s: no sidebar link", op.OperationID)
				continue
			}
			if got := strings.ReplaceAll(m[1], "<wbr>", ""); got != template.HTMLEscapeString(prefix+path) {
				t.Errorf("%s: the sidebar shows %q, want the whole path %q", op.OperationID, got, prefix+path)
			}
		}
	}
	if n, tags := strings.Count(nav, `<div class="navgroup">`), strings.Count(nav, `class="tag"`); n == 0 || n != tags-1 {
		t.Errorf("%d sidebar groups for %d tag headings (and Schemas)", n, tags)
	}
}

// In a real browser: no sidebar link is wider than the sidebar (a long
// path wraps), and filtering leaves a group heading only above operations
// it still shows. Screenshots of both go to the directory the test logs.
func TestPageSidebarInBrowser(t *testing.T) {
	browser := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			browser = p
			break
		}
	}
	if browser == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("Chromium is not installed; under CI the browser tests must run (apt-get install -y chromium)")
		}
		t.Skip("Chromium is not installed (apt-get install -y chromium); skipping")
	}
	page, err := openapi.Page()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page)
	}))
	defer srv.Close()
	alloc, cancel := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(browser), chromedp.Flag("headless", true), chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true), chromedp.Flag("no-first-run", true), chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-background-networking", true), chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 900))
	defer cancel()
	ctx, cancel2 := chromedp.NewContext(alloc)
	defer cancel2()
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	dir := filepath.Join(os.TempDir(), "parcelgate-docs-screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots in %s", dir)
	run := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		c, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		if err := chromedp.Do(c, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	eval := func(js string) int {
		t.Helper()
		c, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		n, err := chromedp.Run(c, chromedp.Evaluate[int](js))
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		return n
	}
	shot := func(name string) {
		t.Helper()
		c, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		buf, err := chromedp.Run(c, chromedp.CaptureScreenshot()) // the viewport: the sidebar and the top of the page
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".png"), buf, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run("open /docs", chromedp.Navigate(srv.URL+"/docs"), chromedp.WaitVisible(chromedp.ID("q")))
	// A link wider than the sidebar's content box would be cut at its
	// edge (the sidebar scrolls, it does not widen).
	overflowing := `Array.from(document.querySelectorAll("nav .navop")).filter(a => a.scrollWidth > a.clientWidth + 1 || a.getBoundingClientRect().right > document.querySelector("nav").getBoundingClientRect().right + 1).length`
	if n := eval(overflowing); n != 0 {
		t.Errorf("%d sidebar links are wider than the sidebar", n)
	}
	if n := eval(`document.querySelector("nav").scrollWidth - document.querySelector("nav").clientWidth`); n > 0 {
		t.Errorf("the sidebar scrolls sideways by %d px", n)
	}
	shot("docs")
	run("filter", chromedp.SendKeys(chromedp.ID("q"), "labelless"))
	visible := `(sel) => Array.from(document.querySelectorAll(sel)).filter(e => e.offsetParent !== null)`
	if n := eval(`(` + visible + `)("nav .navop").length`); n == 0 {
		t.Fatal("the filter left no operation in the sidebar")
	}
	if n := eval(`(` + visible + `)("nav .navgroup").filter(g => !g.querySelector(".navop:not(.hidden)")).length`); n != 0 {
		t.Errorf("%d group headings shown above no operation", n)
	}
	if n := eval(`(` + visible + `)("nav .navgroup").length`); n != 1 {
		t.Errorf("%d groups shown for the filter \"labelless\", want 1 (Sending codes)", n)
	}
	if n := eval(`(` + visible + `)("#navschemas").length`); n != 0 {
		t.Error("the Schemas heading stays while filtering")
	}
	shot("docs-filtered")
}
