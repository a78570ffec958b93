package httpapi

import (
	"encoding/json"
	"strings"
	"testing"
)

// Review of §21, "redaction cannot be bypassed": a secret nested in
// another encoding, or a body whose Content-Type lies, is redacted too.
func TestJournalRedactionNested(t *testing.T) {
	for _, c := range []struct{ name, in, contentType, keep string }{
		// curl -d sends JSON as a form: the body is still JSON.
		{"json sent as a form", `{"password":"S3CR3T","keep":"visible"}`, "application/x-www-form-urlencoded", "visible"},
		{"json array sent as a form", ` [{"apiKey":"S3CR3T"}]`, "application/x-www-form-urlencoded", ""},
		// A form value, or a JSON string, that is itself JSON or a query.
		{"json in a form value", `keep=visible&payload=%7B%22password%22%3A%22S3CR3T%22%7D`, "application/x-www-form-urlencoded", "keep=visible"},
		{"json in a json string", `{"payload":"{\"client_secret\":\"S3CR3T\",\"keep\":\"visible\"}"}`, "application/json", "visible"},
		{"query in a json string", `{"payload":"grant_type=client_credentials&client_secret=S3CR3T","keep":"visible"}`, "application/json", "visible"},
		{"json in json in json", `{"a":"{\"b\":\"{\\\"token\\\":\\\"S3CR3T\\\"}\"}"}`, "application/json", ""},
	} {
		out := redactBody([]byte(c.in), c.contentType)
		if strings.Contains(out, "S3CR") {
			t.Errorf("%s: %q kept the secret", c.name, out)
		}
		if c.keep != "" && !strings.Contains(out, c.keep) {
			t.Errorf("%s: %q lost %q", c.name, out, c.keep)
		}
	}
	if got := redactBody([]byte(`{"note":"a {token} in prose","q":"a=b"}`), "application/json"); got != `{"note":"a {token} in prose","q":"a=b"}` {
		t.Errorf("an ordinary body changed: %s", got)
	}
}

// Review of §21: encoding/json matches a member name to a field
// case-insensitively by Unicode folding (the long s, U+017F, is an s to
// it), so redaction folds names the same way.
func TestJournalRedactionFoldsLikeEncodingJSON(t *testing.T) {
	for _, in := range []string{
		"{\"pa\u017f\u017fword\":\"S3CR3T\",\"keep\":\"visible\"}",
		`{"client\u017fecret":"S3CR3T","keep":"visible"}`,
	} {
		var v struct{ Password, ClientSecret string }
		if json.Unmarshal([]byte(in), &v) != nil || v.Password+v.ClientSecret != "S3CR3T" {
			t.Fatalf("encoding/json does not read %s as a secret field; the test proves nothing", in)
		}
		if out := redactBody([]byte(in), "application/json"); strings.Contains(out, "S3CR") || !strings.Contains(out, "visible") {
			t.Errorf("%s → %s", in, out)
		}
	}
}

// Review of §21: the credentials HTTP carries in headers are secret by
// name wherever a body repeats them (a client logging its own request, a
// webhook's echo): a session cookie as well as Authorization; and a
// private key or passphrase as well as a password.
func TestJournalRedactsHeaderAndKeyNames(t *testing.T) {
	for _, in := range []string{
		`{"headers":{"Cookie":"sid=S3CR3T","Accept":"visible"}}`,
		`{"headers":{"Set-Cookie":"sid=S3CR3T; HttpOnly","Accept":"visible"}}`,
		`{"private_key":"-----BEGIN PRIVATE KEY-----S3CR3T","keep":"visible"}`,
		`{"passphrase":"S3CR3T","keep":"visible"}`,
	} {
		if out := redactBody([]byte(in), "application/json"); strings.Contains(out, "S3CR") || !strings.Contains(out, "visible") {
			t.Errorf("%s → %s", in, out)
		}
	}
	if q := redactQuery("cookie=S3CR3T&size=1"); strings.Contains(q, "S3CR") {
		t.Errorf("query: %s", q)
	}
}
