package httpapi

import (
	"strings"
	"testing"
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
