package sdke2e_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/client"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

// merchantSDK makes bid a merchant with warehouse WH1 holding stock of
// {bid}-P1, and returns its Client.
func merchantSDK(t *testing.T, e *apitest.Env, bid string) *client.Client {
	t.Helper()
	e.Admin("POST", "/admin/v1/organizations", map[string]any{"environment": "production", "businessId": bid, "name": "Shop " + bid,
		"address": map[string]any{"name": "Shop " + bid, "streetAddress": "Kauppakatu 1", "postalCode": "00100", "postOffice": "Helsinki", "country": "FI"}})
	e.Catalog(parcelgate.Production, bid, "WH1", parcelgate.CatalogWarehouse, bid)
	c := sdk(t, e, parcelgate.Production, newTenant(t, e, parcelgate.Production, bid))
	_, err := c.PutInventory(context.Background(), []client.InventoryEntry{{
		Product:  client.Product{ExternalID: bid + "-P1", Descriptions: map[string]client.Description{"fi": {Name: "Tuote"}}},
		Balances: []client.BalanceUpdate{{RetailerID: bid, CatalogExternalID: "WH1", Quantity: client.Ptr[int64](1000), WholesalePrice: client.Ptr(2.5), Currency: "EUR"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func orderRequest(bid, own string, qty int64) *client.OrderRequest {
	o := &client.OrderRequest{
		References:      []client.Reference{{Name: client.RefSO, Value: "SO-" + own}},
		DeliveryAddress: client.Address{Name: "Maija Meikäläinen", StreetAddress: "Kotikatu 2", PostalCode: "00200", PostOffice: "Helsinki", Country: "FI", Telephone: "+358401234567", Email: "maija@example.com"},
		ServiceCode:     "2103",
		Rows:            []client.OrderRowRequest{{ExternalProductID: bid + "-P1", ExternalWarehouseID: "WH1", Quantity: qty}},
	}
	if own != "" {
		o.ExternalID = bid + "-" + own
	}
	return o
}

// Interface §4.3: create, read, list, follow and cancel warehouse orders.
func TestOrders(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		ctx := context.Background()
		const bid = "1234567-1"
		c := merchantSDK(t, e, bid)

		o, err := c.CreateOrder(ctx, orderRequest(bid, "A1", 2))
		if err != nil {
			t.Fatal(err)
		}
		if o.ExternalID != bid+"-A1" || o.ID == "" || o.Status.Value != client.OrderCreated || o.Rows[0].Quantity != 2 || o.TotalWholeSalePrice != 5 || o.SO() != "SO-A1" {
			t.Fatalf("created %+v", o)
		}
		// The same content again is the same order.
		if again, err := c.CreateOrder(ctx, orderRequest(bid, "A1", 2)); err != nil || again.ID != o.ID {
			t.Fatalf("re-send: %+v, %v", again, err)
		}
		// Option 1: the service generates the externalId.
		gen, err := c.CreateOrder(ctx, orderRequest(bid, "", 1))
		if err != nil || gen.ExternalID == "" {
			t.Fatalf("generated: %+v, %v", gen, err)
		}
		for _, id := range []string{o.ID, o.ExternalID} {
			if got, err := c.Order(ctx, id); err != nil || got.ID != o.ID {
				t.Errorf("Order(%s): %+v, %v", id, got, err)
			}
		}
		_, err = c.Order(ctx, bid+"-NOPE")
		if ae := asError(t, err); ae.StatusCode != 404 || ae.Code != "Not Found" {
			t.Errorf("unknown order: %+v", ae)
		}

		// Every field error at once (decisions §7).
		bad := orderRequest(bid, "B1", 0)
		bad.ServiceCode = "1"
		_, err = c.CreateOrder(ctx, bad)
		if ae := asError(t, err); ae.StatusCode != 400 || len(ae.Fields) < 2 {
			t.Errorf("invalid order: %+v", ae)
		}

		for i := range 3 {
			if _, err := c.CreateOrder(ctx, orderRequest(bid, fmt.Sprintf("L%d", i), 1)); err != nil {
				t.Fatal(err)
			}
		}
		if got := all(t, c.Orders(ctx, &client.OrderQuery{Paging: client.Paging{Size: 2}})); len(got) != 5 {
			t.Errorf("Orders: %d", len(got))
		}
		if got := all(t, c.Orders(ctx, &client.OrderQuery{RefValue: "SO-L1"})); len(got) != 1 || got[0].ExternalID != bid+"-L1" {
			t.Errorf("by SO reference: %+v", got)
		}

		// Interface §6: order progress by polling; the Sync keeps the cursor.
		sync := c.OrderSync(&client.OrderQuery{Paging: client.Paging{Size: 2}}, time.Time{})
		if got := all(t, sync.Changes(ctx)); len(got) != 5 {
			t.Fatalf("first poll: %d", len(got))
		}
		cancelled, err := c.CancelOrder(ctx, o.ExternalID)
		if err != nil || cancelled.Status.Value != client.OrderCancelled {
			t.Fatalf("CancelOrder: %+v, %v", cancelled, err)
		}
		got := all(t, sync.Changes(ctx))
		if len(got) != 1 || got[0].ID != o.ID || got[0].Status.Value != client.OrderCancelled {
			t.Errorf("poll after a cancel: %+v", got)
		}
		if got := all(t, sync.Changes(ctx)); len(got) != 0 {
			t.Errorf("poll without changes: %d", len(got))
		}
		if got := all(t, c.Orders(ctx, &client.OrderQuery{Statuses: []client.OrderStatus{client.OrderCancelled}})); len(got) != 1 {
			t.Errorf("by status: %d", len(got))
		}
	})
}

// An order held with autoSubmit false is updated, released, and an order
// in Error is sent again.
func TestOrderLifecycle(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		ctx := context.Background()
		const bid = "1234567-1"
		c := merchantSDK(t, e, bid)
		req := orderRequest(bid, "H1", 1)
		req.Preferences = &client.OrderPreferences{AutoSubmit: false}
		o, err := c.CreateOrder(ctx, req)
		if err != nil || o.Preferences.AutoSubmit {
			t.Fatalf("held order: %+v, %v", o, err)
		}
		req.Rows[0].Quantity = 3
		upd, err := c.UpdateOrder(ctx, o.ExternalID, req)
		if err != nil || upd.Rows[0].Quantity != 3 {
			t.Fatalf("UpdateOrder: %+v, %v", upd, err)
		}
		rel, err := c.SetOrderPreferences(ctx, o.ID, client.OrderPreferences{AutoSubmit: true})
		if err != nil || !rel.Preferences.AutoSubmit {
			t.Fatalf("SetOrderPreferences: %+v, %v", rel, err)
		}

		e.Admin("POST", "/admin/v1/orders/status", map[string]any{"businessId": bid, "externalId": o.ExternalID, "value": "Error", "reason": "test"}).Expect(http.StatusOK)
		re, err := c.ReopenOrder(ctx, o.ExternalID, nil)
		if err != nil || re.Status.Value != client.OrderCreated {
			t.Fatalf("ReopenOrder: %+v, %v", re, err)
		}
		_, err = c.ReopenOrder(ctx, o.ExternalID, nil)
		if ae := asError(t, err); ae.StatusCode != 409 {
			t.Errorf("reopening an order not in Error: %+v", ae)
		}
	})
}

// What the provider's warehouse plugin does, through the SDK: a bare
// order number and SKU, the fields it sends kept, notes added and removed,
// and a cancelled order sent again.
func TestOrderCommentsAndFields(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		ctx := context.Background()
		const bid = "1234567-1"
		c := merchantSDK(t, e, bid)
		req := orderRequest(bid, "", 2)
		req.ExternalID, req.Rows[0].ExternalProductID = "1005", "P1"
		req.Rows[0].ExternalID, req.Rows[0].ProductUnitOfMeasure = "1", "KPL"
		req.Currency, req.TotalPrice, req.TotalTax = "EUR", client.Ptr(24.9), client.Ptr(4.82)
		req.AdditionalServices = []client.AdditionalService{{ServiceCode: "3101"}}
		req.Comments = []client.OrderComment{{Type: "pickingNote", Value: "Door code 1234"}}
		req.Metadata = &client.RequestMetadata{Client: "woo-wh-client/2.4.2"}
		req.RoutingServiceCode = "2103" // the provider's PHP library sends one
		o, err := c.CreateOrder(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if o.ExternalID != "1005" || o.Status.Value != client.OrderCreated || o.Currency != "EUR" || *o.TotalPrice != 24.9 || o.Metadata.Client != "woo-wh-client/2.4.2" || o.RoutingServiceCode != "2103" ||
			len(o.AdditionalServices) != 1 || o.AdditionalServices[0].ServiceCode != "3101" || len(o.Comments) != 1 || o.Rows[0].ProductUnitOfMeasure != "KPL" {
			t.Fatalf("created %+v", o)
		}
		cm, err := c.AddOrderComment(ctx, "1005", client.OrderComment{ExternalID: "412", Type: "passThrough", Value: "Gift wrap", Origin: "WOOCOMMERCE"})
		if err != nil || cm.ID == "" || cm.CreatedDate.IsZero() {
			t.Fatalf("comment %+v %v", cm, err)
		}
		if got, err := c.Order(ctx, bid+"-1005"); err != nil || len(got.Comments) != 2 {
			t.Fatalf("comments %+v %v", got, err)
		}
		if err := c.DeleteOrderComment(ctx, "1005", "412"); err != nil {
			t.Fatal(err)
		}
		if ae := asError(t, c.DeleteOrderComment(ctx, "1005", "412")); ae.StatusCode != 404 {
			t.Errorf("second delete: %+v", ae)
		}
		if _, err := c.CancelOrder(ctx, "1005"); err != nil {
			t.Fatal(err)
		}
		re, err := c.ReopenOrder(ctx, "1005", req)
		if err != nil || re.Status.Value != client.OrderCreated || re.ID != o.ID {
			t.Fatalf("reopened %+v %v", re, err)
		}
	})
}
