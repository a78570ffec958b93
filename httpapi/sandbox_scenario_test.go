package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

// docs/controls.md: an order whose externalId ends in .ERROR
// goes to Error, one ending in .CANCEL is Cancelled for a delivery
// problem, each with its documented reason and holding no stock; in the
// test environment only.
func TestScenarioOrders(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		m := newMerchant(t, e, parcelgate.Test, tenantA)
		before := m.balance("P1")
		for _, c := range []struct {
			own    string
			status parcelgate.OrderStatus
			reason string
		}{
			{"S1.ERROR", parcelgate.OrderError, parcelgate.ScenarioErrorReason},
			{"S2.cancel", parcelgate.OrderCancelled, parcelgate.ScenarioCancelReason},
		} {
			o := m.create(m.orderBody(c.own, 2))
			if o.Status.Value != c.status || o.Status.Reason != c.reason {
				t.Errorf("%s: %+v", c.own, o.Status)
			}
		}
		if got := m.balance("P1"); got.Quantity != before.Quantity || got.Allocated != before.Allocated {
			t.Errorf("a scenario order moved stock: %+v, before %+v", got, before)
		}
		// Production never triggers them.
		p := newMerchant(t, e, parcelgate.Production, tenantA)
		if o := p.create(p.orderBody("S3.ERROR", 1)); o.Status.Value != parcelgate.OrderCreated {
			t.Errorf("production scenario value: %+v", o.Status)
		}
	})
}

// A product whose externalId ends in .NOSTOCK never has stock for
// an order, whatever its balance says.
func TestScenarioOutOfStock(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		m := newMerchant(t, e, parcelgate.Test, tenantA)
		m.stock("X.NOSTOCK", "WH1", 50, "1.00")
		body := m.orderBody("S4", 1)
		body["rows"] = []any{map[string]any{"externalProductId": tenantA + "-X.NOSTOCK", "externalWarehouseId": "WH1", "quantity": 1}}
		o := m.create(body)
		if o.Status.Value != parcelgate.OrderCancelled || !strings.Contains(o.Status.Reason, "has 0 available") {
			t.Fatalf("order of an always-out-of-stock product: %+v", o.Status)
		}
		if got := m.balance("X.NOSTOCK"); got.Quantity != 50 || got.Allocated != 0 {
			t.Errorf("balance %+v", got)
		}
	})
}

// A tracking number ending in NOTALLOWED gets the answer that
// the shipment is not allowed for a sending code, in the test environment
// only.
func TestScenarioSendingCodeRefused(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		tok := e.GatewayToken(parcelgate.Test, tenantA)
		r := postSendingCode(e, tok, sendingCodeFor("JJFI1234NOTALLOWED", true)).Expect(http.StatusBadRequest)
		var ge httpapi.GatewayError
		r.JSON(&ge)
		if !strings.Contains(ge.Message, "not allowed for a sending code") {
			t.Fatalf("answer %s", r.Body)
		}
		prod := e.GatewayToken(parcelgate.Production, tenantA)
		postSendingCode(e, prod, sendingCodeFor("JJFI1234NOTALLOWED", true)).Expect(http.StatusOK)
	})
}

// docs/controls.md: an order whose externalId ends in .SPLIT
// and a digit N is delivered in N parcels per row, at most one per unit,
// each with its own tracking code on the row and the order and its own
// shipment data, so errand and sending codes can be asked for each parcel
// (decisions §7, interface §4.2 rule 1). In production the same externalId is
// delivered in one parcel per row.
func TestScenarioOrderDeliveredInSeveralParcels(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		for _, c := range []struct {
			env  parcelgate.Environment
			want []int
		}{
			{parcelgate.Test, []int{3, 2}},
			{parcelgate.Production, []int{1, 1}},
		} {
			m := newMerchant(t, e, c.env, tenantA)
			body := m.orderBody("S5.SPLIT3", 5)
			addRow(body, tenantA+"-P2", 2)
			o := m.create(body)
			if o.Status.Value != parcelgate.OrderCreated {
				t.Fatalf("%s: created %+v", c.env, o.Status)
			}
			m.setStatus(o.ExternalID, "Submitted").Expect(200)
			var d parcelgate.Order
			m.setStatus(o.ExternalID, "Delivered").Expect(200).JSON(&d)
			total := 0
			seen := map[string]bool{}
			for i, row := range d.Rows {
				if len(row.TrackingCodes) != c.want[i] {
					t.Errorf("%s row %d: %d parcels %v, want %d", c.env, i, len(row.TrackingCodes), row.TrackingCodes, c.want[i])
				}
				for _, code := range row.TrackingCodes {
					if d.TrackingCodes[total] != code || seen[code] {
						t.Errorf("%s: row %d code %s not listed once on the order %v", c.env, i, code, d.TrackingCodes)
					}
					seen[code] = true
					total++
				}
			}
			if len(d.TrackingCodes) != total {
				t.Fatalf("%s: order codes %v, rows %d", c.env, d.TrackingCodes, total)
			}
			if got := m.get(o.ID); len(got.TrackingCodes) != total {
				t.Errorf("%s: read back %v", c.env, got.TrackingCodes)
			}
			gw := e.GatewayToken(c.env, tenantA)
			errands := "/parcel/v1/errandCodes/"
			if c.env == parcelgate.Test {
				errands = "/parcel-uat/v1/errandCodes/"
			}
			for _, code := range d.TrackingCodes {
				var res struct {
					ErrandCodeResult []struct{ ParcelID, ErrandCode, ResultText string }
				}
				e.Do(apitest.Request{Method: "GET", Path: errands + code, Bearer: gw}).Expect(200).JSON(&res)
				if len(res.ErrandCodeResult) != 1 || res.ErrandCodeResult[0].ResultText != "OK" {
					t.Errorf("%s: errand code for %s: %+v", c.env, code, res)
				}
				e.Do(apitest.Request{Method: "POST", Path: "/2025-04/labelless", Bearer: gw,
					Body: map[string]any{"searchCriteria": map[string]any{"trackingNumber": code}}}).Expect(200)
			}
		}
	})
}
