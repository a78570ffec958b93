package console_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/parcelgate/parcelgate"
)

// Review of decisions §8 and §23: every text a request carries is held to
// the text rule (parcelgate.TextProblem: valid UTF-8, no NUL) where it
// enters, as the API holds its query and form fields. A console form is
// such an entry: a NUL or a byte that is not UTF-8 in a field is a 400
// naming the field, never a 500 from PostgreSQL (which refuses both) nor
// bytes SQLite would store and later serve in answers that are not JSON.
func TestFormTextIsHeldToTheTextRule(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		b := e.browser()
		b.signIn(testTenant.Username, testTenant.Password)
		tshirt := testTenant.BusinessID + "-TSHIRT-M"
		for name, c := range map[string]struct{ bad, why string }{
			"NUL":       {"Testi\x00Asiakas", "The field name must not contain the NUL character"},
			"not UTF-8": {"Testi\xffAsiakas", "The field name must be valid UTF-8 text"},
		} {
			bad := c.bad
			form := orderForm(tshirt, "1")
			form.Set("name", bad)
			p := b.post("/console/orders", form)
			if p.status != http.StatusBadRequest {
				t.Fatalf("order form with a %s name: %d %s\n%.600s", name, p.status, p.location, p.body)
			}
			mustContain(t, p, c.why)
			p = b.post("/console/products", url.Values{"externalId": {testTenant.BusinessID + "-NEW1"}, "name": {bad}, "unitOfMeasure": {"PCS"}})
			if p.status != http.StatusBadRequest {
				t.Fatalf("product form with a %s name: %d %s\n%.600s", name, p.status, p.location, p.body)
			}
		}
		op := e.operator(parcelgate.Test)
		p := op.post("/console/sandbox/snapshots", url.Values{"name": {"snap\x00"}})
		if p.status != http.StatusBadRequest {
			t.Fatalf("snapshot name with a NUL: %d", p.status)
		}
	})
}
