package httpapi

import (
	"encoding/json"
	"strings"
	"testing"
)

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
