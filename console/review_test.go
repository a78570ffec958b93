package console_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
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

// Review of decisions §23: saving a product answers with its page
// whatever else the organization supplies. The product's id was found
// again by a search on its externalId limited to 50 results, newest
// first, so editing an older product whose externalId is part of 50 newer
// ones' saved it and then answered 404 "There is no such page".
func TestEditingAnOlderProductAnswersItsPage(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		b := e.browser()
		b.signIn(testTenant.Username, testTenant.Password)
		save := func(form url.Values) page {
			t.Helper()
			p := b.post("/console/products", form)
			if p.status != http.StatusSeeOther || !strings.Contains(p.location, "done=saved") {
				t.Fatalf("save %v: %d %s\n%.600s", form, p.status, p.location, p.body)
			}
			return p
		}
		first := save(url.Values{"externalId": {"Q1"}, "name": {"Q one"}})
		id := strings.TrimPrefix(strings.Split(first.location, "?")[0], "/console/products/")
		for i := range 55 {
			save(url.Values{"externalId": {"Q1" + strconv.Itoa(i)}, "name": {"Q"}})
		}
		p := save(url.Values{"id": {id}, "name": {"Q one, edited"}})
		if !strings.HasPrefix(p.location, "/console/products/"+id+"?") {
			t.Fatalf("the edit of product %s answered %s", id, p.location)
		}
		p = save(url.Values{"externalId": {"Q1"}, "name": {"Q one, replaced from the new-product form"}})
		if !strings.HasPrefix(p.location, "/console/products/"+id+"?") {
			t.Fatalf("saving Q1 again from the new-product form answered %s", p.location)
		}
	})
}
