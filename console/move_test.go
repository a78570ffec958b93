package console_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/demo"
)

// decisions §9, §18: the operator's move form is read by ParseOrderMove,
// as POST /admin/v1/orders/status is: Created is no move, the reason is
// trimmed and then limited to 500 bytes, and a refused form moves nothing.
func TestConsoleMoveIsReadAsTheAPIReadsIt(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		op := e.operator(parcelgate.Production)
		path := "/console/orders/" + demo.SampleOrder + "/status"
		long := strings.Repeat("r", parcelgate.MaxMoveReason)
		p := op.post(path, url.Values{"to": {"Created"}})
		if p.status != http.StatusBadRequest {
			t.Fatalf("a move to Created: %d", p.status)
		}
		mustContain(t, p, "Choose a move")
		p = op.post(path, url.Values{"to": {"Error"}, "reason": {long + "r"}})
		if p.status != http.StatusBadRequest {
			t.Fatalf("a 501-byte reason: %d", p.status)
		}
		mustContain(t, p, "At most 500 characters.")
		if o := e.order(parcelgate.Production, prod.BusinessID, demo.SampleOrder); o.Status.Value != parcelgate.OrderCreated {
			t.Fatalf("a refused move moved the order to %s", o.Status.Value)
		}
		if p := op.post(path, url.Values{"to": {"Error"}, "reason": {"  " + long + " "}}); p.status != http.StatusSeeOther {
			t.Fatalf("a 500-byte reason with spaces around: %d", p.status)
		}
		if o := e.order(parcelgate.Production, prod.BusinessID, demo.SampleOrder); o.Status.Value != parcelgate.OrderError || o.Status.Reason != long {
			t.Fatalf("moved to %s with a reason of %d bytes", o.Status.Value, len(o.Status.Reason))
		}
	})
}
