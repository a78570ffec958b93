package httpapi

import (
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/parcelgate/parcelgate"
)

// checkURL holds every text of the request's URL to the text rule
// (parcelgate.TextProblem): each path segment, named by the route's
// wildcard when it is one ("id", "trackingNumber") and "path" otherwise, and
// each query parameter's name and values, named by the parameter. A query
// string that is not valid URL encoding is refused too, rather than read
// as if its broken pairs were absent. The middleware runs it on every
// request before any handler, so no handler, store or database sees such
// text; pattern is the route the request matched, "" when none.
func checkURL(r *http.Request, pattern string) error {
	path := r.URL.EscapedPath()
	// EscapedPath escapes every byte that is not plain ASCII, so only a
	// percent-escape can bring a NUL or text that is not UTF-8 into the
	// path: a path without one, and no query, has nothing to check.
	if r.URL.RawQuery == "" && strings.IndexByte(path, '%') < 0 {
		return nil
	}
	var p parcelgate.Problems
	if _, path, ok := strings.Cut(pattern, " "); ok {
		pattern = path
	}
	wildcards := strings.Split(pattern, "/")
	for i, seg := range strings.Split(path, "/") {
		text, err := url.PathUnescape(seg)
		if err != nil {
			text = seg
		}
		if msg := parcelgate.TextProblem(text); msg != "" {
			name := "path"
			if i < len(wildcards) {
				if w, ok := strings.CutPrefix(wildcards[i], "{"); ok {
					name = strings.TrimSuffix(strings.TrimSuffix(w, "}"), "...")
				}
			}
			p.Add(name, "%s, not %q", msg, text)
		}
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		p.Add("(query)", "is not valid URL encoding (%s)", err)
	}
	checkValues(q, "(query)", &p)
	return p.Err()
}

// checkValues holds the names and values of a query string or form body to
// the text rule, naming each bad value by its parameter; a bad name is
// reported under where, "(query)" or "(form)".
func checkValues(vs url.Values, where string, p *parcelgate.Problems) {
	for _, name := range slices.Sorted(maps.Keys(vs)) {
		if msg := parcelgate.TextProblem(name); msg != "" {
			p.Add(where, "a parameter name %s, not %q", msg, name)
			continue
		}
		for _, v := range vs[name] {
			if msg := parcelgate.TextProblem(v); msg != "" {
				p.Add(name, "%s, not %q", msg, v)
			}
		}
	}
}

// checkCredentials holds the two parts of HTTP Basic credentials to the
// text rule, naming them user and password as the token service calls them.
func checkCredentials(user, pass, userField, passField string) error {
	var p parcelgate.Problems
	if msg := parcelgate.TextProblem(user); msg != "" {
		p.Add(userField, "(HTTP Basic) %s", msg)
	}
	if msg := parcelgate.TextProblem(pass); msg != "" {
		p.Add(passField, "(HTTP Basic) %s", msg)
	}
	return p.Err()
}
