package console

import (
	"strings"
	"testing"

	"github.com/parcelgate/parcelgate"
)

// A journaled request as a ready curl command; the journal's
// redacted secrets and the token it never kept are placeholders, and a
// body is quoted for the shell whatever it holds.
func TestCurlCommand(t *testing.T) {
	e := &parcelgate.JournalEntry{Method: "PUT", Path: "/ecommerce/v3/orders", Query: "x=1",
		RequestBody: `{"name":"O'Brien","client_secret":"[redacted]"}`}
	got := curlCommand(e, "https://pg.example")
	for _, want := range []string{
		`curl -X PUT 'https://pg.example/ecommerce/v3/orders?x=1'`,
		`-H 'Authorization: Bearer <access_token>'`,
		`-H 'Content-Type: application/json'`,
		`--data-raw '{"name":"O'\''Brien","client_secret":"<secret>"}'`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("curl command lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "[redacted]") {
		t.Errorf("the redaction marker is left in:\n%s", got)
	}
	tok := curlCommand(&parcelgate.JournalEntry{Method: "GET", Path: "/auth/token", Truncated: true}, "http://h")
	if !strings.HasPrefix(tok, "curl 'http://h/auth/token'") || !strings.Contains(tok, "-u '<username or client_id>:<password or client_secret>'") || strings.Contains(tok, "Bearer") || !strings.Contains(tok, "cut short") {
		t.Errorf("token request:\n%s", tok)
	}
}
