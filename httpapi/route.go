package httpapi

import (
	"net/http"
	"net/url"
	"strings"
)

// matchedRoute is a handler as registered on the router, with what the
// middleware needs to serve it itself: the middleware looks every request's
// route up once (ServeMux.Handler, for the pattern its checks and metrics
// need), and serving the matched handler through ServeMux.ServeHTTP would
// look it up a second time, a few percent of a small read's time.
type matchedRoute struct {
	h       http.Handler
	pattern string
	// wildcards are the pattern's named wildcards by their segment of the
	// path; direct is false when the pattern has what setPathValues does
	// not reproduce (a host), and the router then serves it itself.
	wildcards []wildcard
	direct    bool
}

type wildcard struct {
	segment int
	name    string
	rest    bool // {name...}: the rest of the path
}

func newRoute(pattern string, h http.Handler) *matchedRoute {
	rt := &matchedRoute{h: h, pattern: pattern}
	path := pattern
	if _, p, ok := strings.Cut(pattern, " "); ok {
		path = p
	}
	if !strings.HasPrefix(path, "/") {
		return rt
	}
	for i, seg := range strings.Split(path[1:], "/") {
		name, ok := strings.CutPrefix(seg, "{")
		if !ok || seg == "{$}" {
			continue
		}
		name = strings.TrimSuffix(name, "}")
		name, rest := strings.CutSuffix(name, "...")
		rt.wildcards = append(rt.wildcards, wildcard{i, name, rest})
	}
	rt.direct = true
	return rt
}

// ServeHTTP serves the route when the router does (a route it does not
// serve directly).
func (rt *matchedRoute) ServeHTTP(w http.ResponseWriter, r *http.Request) { rt.h.ServeHTTP(w, r) }

// setPathValues sets what ServeMux.ServeHTTP sets on a request it matched
// to rt: the pattern and the wildcards' values, each path segment
// unescaped as the router does (an invalid escape left as it came), the
// rest of the path for a {name...}. The router matched the escaped path as
// it is (it redirects a path it would clean), so its segments are the ones
// the pattern matched.
func (rt *matchedRoute) setPathValues(r *http.Request) {
	r.Pattern = rt.pattern
	if len(rt.wildcards) == 0 {
		return
	}
	path := r.URL.EscapedPath()
	if path == "" {
		return
	}
	path = path[1:]
	seg := 0
	for _, wc := range rt.wildcards {
		for seg < wc.segment {
			i := strings.IndexByte(path, '/')
			if i < 0 {
				path = ""
			} else {
				path = path[i+1:]
			}
			seg++
		}
		v := path
		if !wc.rest {
			if i := strings.IndexByte(path, '/'); i >= 0 {
				v = path[:i]
			}
		}
		r.SetPathValue(wc.name, unescapePath(v))
	}
}

func unescapePath(s string) string {
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	u, err := url.PathUnescape(s)
	if err != nil {
		return s
	}
	return u
}
