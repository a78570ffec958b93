package httpapi_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/parcelgate/parcelgate/internal/tools/apitest"
	"github.com/parcelgate/parcelgate/openapi"
)

// openapi.yaml describes every route that exists, with the same method: a
// route added without its description fails here, even before any test
// calls it. Server-level path prefixes (servers: on a path item) count, so
// /v3/x described under a /ecommerce server covers /ecommerce/v3/x.
func TestOpenAPIDescribesEveryRoute(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(openapi.Spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatal(err)
	}
	described := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		prefixes := []string{""}
		for _, srv := range item.Servers {
			prefixes = append(prefixes, strings.TrimRight(srv.URL, "/"))
		}
		for method := range item.Operations() {
			for _, pre := range prefixes {
				described[method+" "+pre+path] = true
			}
		}
	}
	e := apitest.New(t, "sqlite")
	// The web console (/console) is HTML for people, not API: it is mounted
	// beside the router (Server.Mount), so it is deliberately absent from
	// Routes and from openapi.yaml. Mounting one must not add routes.
	e.Server.Mount("/console", http.NotFoundHandler())
	routes := e.Server.Routes()
	for _, r := range routes {
		if _, path, _ := strings.Cut(r, " "); strings.HasPrefix(path, "/console") {
			t.Errorf("route %q: the console's pages are not API routes", r)
		}
	}
	if len(routes) < 40 {
		t.Fatalf("only %d routes registered", len(routes))
	}
	// A pattern that matches one path exactly ("GET /{$}") is described
	// as that path.
	for i, r := range routes {
		routes[i] = strings.TrimSuffix(r, "{$}")
	}
	for _, r := range routes {
		if !described[r] {
			t.Errorf("route %q is not described in openapi.yaml", r)
		}
	}
	// And the reverse: nothing described that does not exist.
	var missing []string
	for d := range described {
		method, path, _ := strings.Cut(d, " ")
		if method == http.MethodHead || method == http.MethodOptions {
			continue
		}
		if !slices.Contains(routes, d) && !strings.HasPrefix(path, "/ecommerce/ecommerce") {
			missing = append(missing, d)
		}
	}
	slices.Sort(missing)
	for _, m := range missing {
		t.Errorf("openapi.yaml describes %q, which no route serves", m)
	}
}
