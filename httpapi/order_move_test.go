package httpapi_test

import (
	"strings"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

// decisions §9, §18: the operator's move is read by the root's
// ParseOrderMove, as the console's move form is: the reason is kept
// trimmed, and its 500-byte limit counts what is kept.
func TestOperatorMoveReasonIsTrimmedThenLimited(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		m := newMerchant(t, e, parcelgate.Production, merchantBID)
		o := m.create(m.orderBody("R1", 1))
		long := strings.Repeat("r", parcelgate.MaxMoveReason)
		refused := m.Admin("POST", "/admin/v1/orders/status", map[string]any{"businessId": merchantBID, "externalId": o.ExternalID, "value": "Error", "reason": long + "r"}).Expect(400).Map()
		if errs, _ := refused["errors"].([]any); len(errs) != 1 || errs[0].(map[string]any)["field"] != "reason" {
			t.Fatalf("a 501-byte reason: %v", refused)
		}
		var failed parcelgate.Order
		m.Admin("POST", "/admin/v1/orders/status", map[string]any{"businessId": merchantBID, "externalId": o.ExternalID, "value": "Error", "reason": "  " + long + "\n"}).Expect(200).JSON(&failed)
		if failed.Status.Value != parcelgate.OrderError || failed.Status.Reason != long {
			t.Fatalf("moved %s with a reason of %d bytes", failed.Status.Value, len(failed.Status.Reason))
		}
	})
}
