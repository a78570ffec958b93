package httpapi_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

// GET / points the way — a page for browsers, JSON for API
// clients (content negotiation on Accept) — /docs/ goes to /docs, and
// the favicon is served from the binary, so a browser logs no 404.
func TestFrontDoor(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		var links map[string]string
		for _, accept := range []string{"", "*/*", "application/json", "application/json, text/html"} {
			res := e.Do(apitest.Request{Method: "GET", Path: "/", Header: http.Header{"Accept": {accept}}}).Expect(200)
			if err := json.Unmarshal(res.Body, &links); err != nil || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
				t.Fatalf("Accept %q: %s %s", accept, res.Header.Get("Content-Type"), res.Body)
			}
			if !slices.Contains(res.Header.Values("Vary"), "Accept") {
				t.Fatalf("Vary %q: caches must keep the page and the JSON apart", res.Header.Values("Vary"))
			}
		}
		for k, want := range map[string]string{"console": "/console/", "docs": "/docs", "openapi": "/openapi.yaml", "liveness": "/healthz", "readiness": "/readyz"} {
			if links[k] != want {
				t.Errorf("%s: %q, want %q", k, links[k], want)
			}
		}
		// What Chromium sends for a page.
		page := e.Do(apitest.Request{Method: "GET", Path: "/", Header: http.Header{"Accept": {"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}}}).Expect(200)
		body := string(page.Body)
		if !strings.HasPrefix(page.Header.Get("Content-Type"), "text/html") || !strings.Contains(page.Header.Get("Content-Security-Policy"), "default-src 'none'") {
			t.Fatalf("page headers: %v", page.Header)
		}
		for _, href := range []string{`href="/console/"`, `href="/docs"`, `href="/openapi.yaml"`, `href="/healthz"`, `href="/readyz"`, `href="/favicon.ico"`} {
			if !strings.Contains(body, href) {
				t.Errorf("the page lacks %s", href)
			}
		}
		if strings.Contains(body, "http://") || strings.Contains(body, "https://") {
			t.Error("the page names another host")
		}
		// The front door is only the root: another path is still a 404.
		e.Do(apitest.Request{Method: "GET", Path: "/nothing-here", Undocumented: true}).Expect(404)

		// The test client follows redirects; a browser's first answer is
		// the 301.
		noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		redirect, err := noFollow.Get(e.URL + "/docs/")
		if err != nil {
			t.Fatal(err)
		}
		redirect.Body.Close()
		if redirect.StatusCode != http.StatusMovedPermanently || redirect.Header.Get("Location") != "/docs" {
			t.Fatalf("/docs/: %d to %q", redirect.StatusCode, redirect.Header.Get("Location"))
		}
		docs := e.Do(apitest.Request{Method: "GET", Path: "/docs"}).Expect(200)
		if !strings.Contains(string(docs.Body), `href="/console/"`) {
			t.Fatal("/docs does not link to the console")
		}
		icon := e.Do(apitest.Request{Method: "GET", Path: "/favicon.ico"}).Expect(200)
		if icon.Header.Get("Content-Type") != "image/svg+xml" || !strings.HasPrefix(string(icon.Body), "<svg") {
			t.Fatalf("favicon: %s %.40s", icon.Header.Get("Content-Type"), icon.Body)
		}
	})
}
