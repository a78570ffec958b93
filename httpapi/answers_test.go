package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

// interface §4.3 GET /orders/{id}, decisions §4: the answer of an order read is
// reused only while the stored order is unchanged. Each read below comes
// right after a read of the previous version, so a reused stale answer
// would show: a preferences change, the operator's status change, a
// cancellation and a replacement by re-send each appear at once. Another
// organization's merchant gets 404 for the same order, however often its
// owner has read it.
func TestOrderReadFollowsEveryChange(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		const shop = "1234567-1"
		tok := stampMerchant(t, e, shop)
		body := map[string]any{
			"externalId": shop + "-R1",
			"deliveryAddress": map[string]any{"name": "Maija Meikäläinen", "streetAddress": "Kotikatu 2", "postalCode": "00200",
				"postOffice": "Helsinki", "country": "FI", "email": "maija@example.com"},
			"serviceCode": "2103",
			"rows":        []any{map[string]any{"externalProductId": shop + "-P1", "externalWarehouseId": "WH1", "quantity": 1}},
		}
		e.Do(apitest.Request{Method: "PUT", Path: "/ecommerce/v3/order", Bearer: tok, Body: body}).Expect(http.StatusOK)
		get := func() parcelgate.Order {
			t.Helper()
			var o parcelgate.Order
			for range 2 {
				e.Do(apitest.Request{Method: "GET", Path: "/ecommerce/v3/orders/" + shop + "-R1", Bearer: tok}).Expect(http.StatusOK).JSON(&o)
			}
			return o
		}
		first := get()
		if first.Status.Value != parcelgate.OrderCreated || !first.Preferences.AutoSubmit {
			t.Fatalf("new order: %+v", first.Status)
		}

		e.Do(apitest.Request{Method: "PATCH", Path: "/ecommerce/v3/orders/" + shop + "-R1/preferences", Bearer: tok, Body: map[string]any{"autoSubmit": false}}).Expect(http.StatusOK)
		if o := get(); o.Preferences.AutoSubmit || !o.Metadata.UpdateDate.After(first.Metadata.UpdateDate) {
			t.Fatalf("after the preferences change: autoSubmit %v, updateDate %v (was %v)", o.Preferences.AutoSubmit, o.Metadata.UpdateDate, first.Metadata.UpdateDate)
		}

		body["rows"] = []any{map[string]any{"externalProductId": shop + "-P2", "externalWarehouseId": "WH1", "quantity": 3}}
		e.Do(apitest.Request{Method: "PUT", Path: "/ecommerce/v3/order", Bearer: tok, Body: body}).Expect(http.StatusOK)
		if o := get(); len(o.Rows) != 1 || o.Rows[0].ExternalProductID != shop+"-P2" || o.Rows[0].Quantity != 3 {
			t.Fatalf("after the re-send with new rows: %+v", o.Rows)
		}

		e.Admin("POST", "/admin/v1/orders/status", map[string]any{"environment": "production", "businessId": shop, "externalId": shop + "-R1", "value": "Submitted"}).Expect(http.StatusOK)
		if o := get(); o.Status.Value != parcelgate.OrderSubmitted || o.Rows[0].Status.Value != parcelgate.OrderSubmitted {
			t.Fatalf("after the operator's Submitted: %+v, row %+v", o.Status, o.Rows[0].Status)
		}

		other := stampMerchant(t, e, "0737546-2")
		e.Do(apitest.Request{Method: "GET", Path: "/ecommerce/v3/orders/" + shop + "-R1", Bearer: other}).Expect(http.StatusNotFound)

		e.Do(apitest.Request{Method: "DELETE", Path: "/ecommerce/v3/orders/" + shop + "-R1", Bearer: tok}).Expect(http.StatusOK)
		if o := get(); o.Status.Value != parcelgate.OrderCancelled || o.Status.Reason == "" {
			t.Fatalf("after the cancellation: %+v", o.Status)
		}
	})
}
