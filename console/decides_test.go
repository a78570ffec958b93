package console_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/parcelgate/parcelgate"
)

// decisions §65 (the service decides who may act, §57): a page or form
// that finds a problem in what it was sent asks its service first, so a
// session whose role may not act gets the service's refusal in the root
// table's words whatever it sent, as when it sent nothing wrong, and one
// that may act gets the page's own answer to the problem.
func TestServiceDecidesBeforeTheForm(t *testing.T) {
	needs := func(c *parcelgate.Caller, a parcelgate.Action) string { return parcelgate.ErrorMessage(c.May(a)) }
	supplierCaller := &parcelgate.Caller{Kind: parcelgate.KindEcom, Roles: []parcelgate.Role{parcelgate.RoleSupplier}}
	merchantCaller := &parcelgate.Caller{Kind: parcelgate.KindEcom, Roles: []parcelgate.Role{parcelgate.RoleMerchant}}
	eachEngine(t, func(t *testing.T, e *env) {
		supplier := e.signedIn(prod.SupplierUsername, prod.SupplierPassword)
		retailer := e.signedIn(prod.RetailerUsername, prod.RetailerPassword)
		integrator := e.signedIn(prod.Username, prod.Password)
		op := e.operator(parcelgate.Production)

		// The orders list with a filter it cannot read: a supplier may
		// not read orders (the order service's refusal), a retailer may
		// (the filter's 400).
		p := supplier.get("/console/orders?status=Bogus")
		if p.status != http.StatusForbidden {
			t.Fatalf("supplier, orders with a bad filter: %d, want 403", p.status)
		}
		mustContain(t, p, needs(supplierCaller, parcelgate.ActionReadOrders))
		if p := retailer.get("/console/orders?status=Bogus"); p.status != http.StatusBadRequest {
			t.Fatalf("retailer, orders with a bad filter: %d, want 400", p.status)
		}
		// A side of the dropship list the session may not read is the
		// dropship service's refusal.
		p = supplier.get("/console/shipments/dropship?side=retailer")
		if p.status != http.StatusForbidden {
			t.Fatalf("supplier, the retailer's side: %d, want 403", p.status)
		}
		mustContain(t, p, needs(supplierCaller, parcelgate.ActionReadOrders))

		// The operator's forms: an integrator is refused by the service
		// (ActionOperate) before its form is read; the operator gets the
		// form's problem.
		p = integrator.post("/console/credentials/service-accounts", url.Values{"username": {""}})
		if p.status != http.StatusForbidden {
			t.Fatalf("integrator, a service account with no username: %d, want 403", p.status)
		}
		mustContain(t, p, needs(merchantCaller, parcelgate.ActionOperate))
		if p := op.post("/console/credentials/service-accounts", url.Values{"username": {""}}); p.status != http.StatusBadRequest {
			t.Fatalf("operator, a service account with no username: %d, want 400", p.status)
		}
		p = integrator.post("/console/tenant", url.Values{"environment": {"nowhere"}})
		if p.status != http.StatusForbidden {
			t.Fatalf("integrator, choosing a tenant of no environment: %d, want 403", p.status)
		}
		mustContain(t, p, needs(merchantCaller, parcelgate.ActionOperate))
		if p := op.post("/console/tenant", url.Values{"environment": {"nowhere"}}); p.status != http.StatusBadRequest {
			t.Fatalf("operator, choosing a tenant of no environment: %d, want 400", p.status)
		}
	})
}
