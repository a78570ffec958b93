package httpapi

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// The middleware serves a matched route without the router: the handler
// must see the same pattern and path values as when ServeMux.ServeHTTP
// serves it (escaped segments, an escaped slash, the rest of the path).
func TestMatchedRouteSetsWhatTheRouterSets(t *testing.T) {
	patterns := []string{
		"GET /ecommerce/v3/orders/{id}",
		"DELETE /ecommerce/v3/orders/{id}/comments/{commentId}",
		"GET /estimation/v1/{fromPostcode}/{fromCountry}/{toPostcode}/{toCountry}/{product}",
		"GET /files/{dir}/{rest...}",
		"GET /{$}",
		"/v1/errandCodes/{parcelId}",
		"GET /tree/",
	}
	names := []string{"id", "commentId", "fromPostcode", "fromCountry", "toPostcode", "toCountry", "product", "dir", "rest", "parcelId"}
	type seen struct {
		pattern string
		values  map[string]string
	}
	var got seen
	record := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = seen{r.Pattern, map[string]string{}}
		for _, n := range names {
			if v := r.PathValue(n); v != "" {
				got.values[n] = v
			}
		}
	})
	mux := http.NewServeMux()
	for _, p := range patterns {
		mux.Handle(p, newRoute(p, record))
	}
	targets := []string{
		"/ecommerce/v3/orders/42",
		"/ecommerce/v3/orders/a%2Fb",
		"/ecommerce/v3/orders/%C3%A4%20x",
		"/ecommerce/v3/orders/7/comments/c%3A1",
		"/estimation/v1/00100/FI/33100/FI/2103",
		"/files/d/",
		"/files/d/a/b%2Fc/d",
		"/files/%41/x",
		"/",
		"/v1/errandCodes/p%20q",
		"/tree/some/thing",
	}
	for _, target := range targets {
		method := http.MethodGet
		if target == "/ecommerce/v3/orders/7/comments/c%3A1" {
			method = http.MethodDelete
		}
		r := httptest.NewRequest(method, target, nil)
		got = seen{}
		mux.ServeHTTP(httptest.NewRecorder(), r)
		want := got
		if want.pattern == "" {
			t.Fatalf("%s %s: the router matched nothing", method, target)
		}

		r = httptest.NewRequest(method, target, nil)
		h, pattern := mux.Handler(r)
		rt, ok := h.(*matchedRoute)
		if !ok || !rt.direct || pattern != want.pattern {
			t.Fatalf("%s %s: Handler gave %T %q, want the route of %q", method, target, h, pattern, want.pattern)
		}
		rt.setPathValues(r)
		got = seen{}
		rt.h.ServeHTTP(httptest.NewRecorder(), r)
		if got.pattern != want.pattern || len(got.values) != len(want.values) {
			t.Errorf("%s %s: served directly %+v, by the router %+v", method, target, got, want)
			continue
		}
		for k, v := range want.values {
			if got.values[k] != v {
				t.Errorf("%s %s: %s = %q directly, %q by the router", method, target, k, got.values[k], v)
			}
		}
	}
}
