package httpapi_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

// The tests of this file send what the provider's WooCommerce warehouse
// plugin sends (its order builder: externalId is the shop's order number,
// rows name the SKU bare, orderDate is written Y-m-d\TH:i:s.vP) and assert
// what it reads back.

// stockBare publishes product sku of m, named bare as the plugin names it
// since the provider's ID migration, with qty in WH1.
func (m *merchant) stockBare(sku string, qty int, flags ...any) {
	m.T.Helper()
	p := map[string]any{"externalId": sku, "descriptions": map[string]any{"en": map[string]any{"name": "Product " + sku}}}
	for i := 0; i+1 < len(flags); i += 2 {
		p[flags[i].(string)] = flags[i+1]
	}
	m.do("PUT", "/ecommerce/v3/inventory", []any{map[string]any{"product": p, "balances": []any{
		map[string]any{"retailerId": m.bid, "catalogExternalId": "WH1", "quantity": qty, "wholesalePrice": 10, "currency": "EUR"}}}}).Expect(200)
}

// balanceOf returns the quantity and allocated of product id (as stored)
// of m in WH1.
func (m *merchant) balanceOf(id string) (int64, int64) {
	m.T.Helper()
	var p httpapi.Page[parcelgate.Balance]
	m.do("GET", "/ecommerce/v3/catalogs/WH1/balances?productExternalId="+url.QueryEscape(id), nil).Expect(200).JSON(&p)
	if len(p.Content) != 1 {
		m.T.Fatalf("balance of %s: %+v", id, p)
	}
	return p.Content[0].Quantity, p.Content[0].Allocated
}

// pluginOrder is the body the warehouse plugin builds for shop order
// number, one row per SKU (quantity 2 each).
func pluginOrder(number string, skus ...string) map[string]any {
	shop := map[string]any{"name": "Demo Shop", "streetAddress": "Kauppakatu 1", "postalCode": "00100", "postOffice": "Helsinki", "country": "FI", "email": "shop@example.com"}
	buyer := map[string]any{"name": "Maija Meikäläinen", "streetAddress": "Kotikatu 2", "postalCode": "00200", "postOffice": "Helsinki", "country": "FI",
		"telephone": "+358401234567", "email": "maija@example.com"}
	var rows []any
	for i, sku := range skus {
		rows = append(rows, map[string]any{"externalId": json.Number(string(rune('1' + i))), "externalProductId": sku, "productEANCode": "6400000000017",
			"productUnitOfMeasure": "KPL", "productDescription": "Blue T-shirt " + sku, "externalWarehouseId": "WH1", "quantity": 2})
	}
	return map[string]any{
		"externalId":          number,
		"orderDate":           "2026-04-01T12:00:00.000+03:00",
		"metadata":            map[string]any{"documentType": "SalesOrder", "client": "woo-wh-client/2.4.2"},
		"vendor":              shop,
		"sender":              shop,
		"client":              buyer,
		"recipient":           buyer,
		"deliveryAddress":     buyer,
		"pickupPointId":       nil,
		"currency":            "EUR",
		"serviceCode":         "2103",
		"totalPrice":          24.9,
		"totalTax":            4.82,
		"totalWholeSalePrice": 29.72,
		"rows":                rows,
		"comments":            []any{map[string]any{"type": "pickingNote", "value": "Door code 1234"}},
		"additionalServices":  []any{map[string]any{"serviceCode": "3101"}},
		"preferences":         map[string]any{"autoSubmit": true},
	}
}

// TestPluginOrders drives the plugin's order calls against two merchants
// per engine (one set-up: each merchant's login costs an argon2id hash).
// Each step uses its own order numbers and SKUs.
func TestPluginOrders(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		m := newMerchant(t, e, parcelgate.Production, merchantBID)
		other := newMerchant(t, e, parcelgate.Production, "7654321-2")
		m.stockBare("WOO6", 10, "isOversized", true)
		m.stockBare("WOO7", 10)
		other.stockBare("WOO6", 10)
		// Bad input first: it must leave no order and no allocation behind.
		// The steps run in the test's goroutine (not as subtests): the
		// merchants' helpers fail the test they were made with.
		pluginOrderBadInput(t, m)
		pluginRoundTrip(t, m)
		pluginIDsScopedToCaller(t, m, other)
		pluginOrderComments(t, m, other)
		pluginReopenCancelledAndDelivered(t, m)
	})
}

// Bad input in any field the plugin sends is a 400 naming the
// field, and nothing is stored or allocated.
func pluginOrderBadInput(t *testing.T, m *merchant) {
	for field, change := range map[string]func(b map[string]any){
		"additionalServices[0].serviceCode": func(b map[string]any) { b["additionalServices"] = []any{map[string]any{"serviceCode": ""}} },
		"additionalServices[0]":             func(b map[string]any) { b["additionalServices"] = []any{"3101"} },
		"comments[0].value":                 func(b map[string]any) { b["comments"] = []any{map[string]any{"type": "pickingNote"}} },
		"comments[0].createdDate":           func(b map[string]any) { b["comments"].([]any)[0].(map[string]any)["createdDate"] = "2026-04-01" },
		"currency":                          func(b map[string]any) { b["currency"] = "EURO" },
		"totalPrice":                        func(b map[string]any) { b["totalPrice"] = "a lot" },
		"totalTax":                          func(b map[string]any) { b["totalTax"] = true },
		"metadata.client":                   func(b map[string]any) { b["metadata"] = map[string]any{"client": map[string]any{}} },
		"client.email":                      func(b map[string]any) { b["client"] = map[string]any{"email": "not an address"} },
		"recipient":                         func(b map[string]any) { b["recipient"] = "Maija" },
		"rows[0].productUnitOfMeasure": func(b map[string]any) {
			b["rows"].([]any)[0].(map[string]any)["productUnitOfMeasure"] = strings.Repeat("K", 21)
		},
		"rows[0].externalId": func(b map[string]any) { b["rows"].([]any)[0].(map[string]any)["externalId"] = []any{} },
	} {
		body := pluginOrder("1005", "WOO6")
		change(body)
		var eb httpapi.EcomError
		m.do("POST", "/ecommerce/v3/orders", body).Expect(400).JSON(&eb)
		var got []string
		for _, f := range eb.Errors {
			got = append(got, f.Field)
		}
		if !slices.Contains(got, field) {
			t.Errorf("%s: errors %+v", field, eb.Errors)
		}
	}
	m.do("GET", "/ecommerce/v3/orders/1005", nil).Expect(404)
	if q, a := m.balanceOf("WOO6"); q != 10 || a != 0 {
		t.Fatalf("stock moved: %d/%d", q, a)
	}
}

// The plugin's order, bare IDs and all, is placed,
// allocated and answered with every field it sent; GET finds it by either
// form of its externalId, and the change poll lists it under the number
// the shop matches it by.
func pluginRoundTrip(t *testing.T, m *merchant) {
	since := time.Now().UTC().Add(-time.Minute).Format(time.RFC3339)

	// WOO6 is stored bare; P1 is stored as 1234567-1-P1 and named bare.
	r := m.do("POST", "/ecommerce/v3/orders", pluginOrder("1005", "WOO6", "P1")).Expect(200)
	var o parcelgate.Order
	r.JSON(&o)
	raw := r.Map()
	if o.ExternalID != "1005" || o.Status.Value != parcelgate.OrderCreated {
		t.Fatalf("order %s %s %s", o.ExternalID, o.Status.Value, o.Status.Reason)
	}
	// orderDate keeps the client's instant and offset.
	if raw["orderDate"] != "2026-04-01T12:00:00+03:00" {
		t.Errorf("orderDate %v", raw["orderDate"])
	}
	if raw["totalPrice"] != 24.9 || raw["totalTax"] != 4.82 || o.Currency != "EUR" || o.Metadata.Client != "woo-wh-client/2.4.2" {
		t.Errorf("totals %v %v %s %q", raw["totalPrice"], raw["totalTax"], o.Currency, o.Metadata.Client)
	}
	if o.Client == nil || o.Client.Telephone != "+358401234567" || o.Recipient == nil || o.Recipient.Name != "Maija Meikäläinen" {
		t.Errorf("client %+v recipient %+v", o.Client, o.Recipient)
	}
	// The client's cash on delivery, then the products' services.
	want := []parcelgate.AdditionalService{{ServiceCode: "3101"}, {ServiceCode: "Oversized"}, {ServiceCode: "Fragile"}}
	if !slices.Equal(o.AdditionalServices, want) {
		t.Errorf("additionalServices %+v", o.AdditionalServices)
	}
	if len(o.Comments) != 1 || o.Comments[0].Type != "pickingNote" || o.Comments[0].Value != "Door code 1234" || o.Comments[0].ID == "" || o.Comments[0].CreatedDate.IsZero() {
		t.Errorf("comments %+v", o.Comments)
	}
	row := o.Rows[0]
	if row.ExternalID != "1" || row.ExternalProductID != "WOO6" || row.ProductUnitOfMeasure != "KPL" || row.ProductDescription != "Blue T-shirt WOO6" || row.WholesalePrice != 10 {
		t.Errorf("row %+v", row)
	}
	if q, a := m.balanceOf("WOO6"); q != 8 || a != 2 {
		t.Errorf("WOO6 %d/%d", q, a)
	}
	if q, a := m.balanceOf(m.bid + "-P1"); q != 98 || a != 2 {
		t.Errorf("P1 named bare: %d/%d", q, a)
	}

	// GET /orders/{id} by the number the plugin keeps, and by the prefixed form.
	for _, id := range []string{"1005", m.bid + "-1005", o.ID} {
		if got := m.get(id); got.ID != o.ID {
			t.Errorf("GET %s: %s", id, got.ID)
		}
	}
	// The same order sent again in the other form is the same order (a retry).
	again := pluginOrder(m.bid+"-1005", "WOO6", "P1")
	var same parcelgate.Order
	m.do("POST", "/ecommerce/v3/orders", again).Expect(200).JSON(&same)
	if same.ID != o.ID {
		t.Errorf("the prefixed form made another order: %s", same.ID)
	}
	// The plugin's status sync: modifiedFromDate, size 30, page 0.
	var page httpapi.Page[parcelgate.Order]
	m.do("GET", "/ecommerce/v3/orders?modifiedFromDate="+url.QueryEscape(since)+"&size=30&page=0", nil).Expect(200).JSON(&page)
	if len(page.Content) != 1 || page.Content[0].ExternalID != "1005" || page.Content[0].Status.Value != parcelgate.OrderCreated {
		t.Errorf("sync page %+v", page.Content)
	}
}

// IDs are always the caller's. Two merchants may both have
// shop order 1005; an ID with another business's prefix is refused (400
// naming the field) on create and unknown (404) on read.
func pluginIDsScopedToCaller(t *testing.T, a, b *merchant) {
	oa := a.create(pluginOrder("2005", "WOO6"))
	ob := b.create(pluginOrder("2005", "WOO6"))
	if oa.ID == ob.ID || a.get("2005").ID != oa.ID || b.get("2005").ID != ob.ID {
		t.Fatalf("each merchant has its own 1005: %s %s", oa.ID, ob.ID)
	}
	// b's prefixed ID is not a's.
	a.do("GET", "/ecommerce/v3/orders/"+b.bid+"-2005", nil).Expect(404)
	a.do("GET", "/ecommerce/v3/orders/"+ob.ID, nil).Expect(404)
	var eb httpapi.EcomError
	a.do("POST", "/ecommerce/v3/orders", pluginOrder(b.bid+"-2006", "WOO6")).Expect(400).JSON(&eb)
	if len(eb.Errors) != 1 || eb.Errors[0].Field != "externalId" || !strings.Contains(eb.Errors[0].Message, "not yours") {
		t.Errorf("another business's order ID: %+v", eb.Errors)
	}
	a.do("POST", "/ecommerce/v3/orders", pluginOrder("2007", b.bid+"-WOO6")).Expect(400).JSON(&eb)
	if len(eb.Errors) != 1 || eb.Errors[0].Field != "rows[0].externalProductId" {
		t.Errorf("another business's product: %+v", eb.Errors)
	}
	a.do("GET", "/ecommerce/v3/orders/2007", nil).Expect(404)
}

// The plugin's note calls. POST /orders/{id}/comments
// with {externalId, author, value, type, createdDate, origin} is kept and
// answered with the order; sent again with its externalId it replaces the
// note; DELETE by the plugin's note number removes it. Bad input is 400
// naming the field; another tenant's order is 404 and is left unchanged.
func pluginOrderComments(t *testing.T, m, other *merchant) {
	o := m.create(pluginOrder("3005", "WOO6"))
	note := map[string]any{"externalId": "412", "author": "shop@example.com", "value": "Gift wrap, please", "type": "passThrough",
		"createdDate": "2026-04-01T09:00:00+00:00", "origin": "WOOCOMMERCE"}

	var c parcelgate.OrderComment
	m.do("POST", "/ecommerce/v3/orders/3005/comments", note).Expect(http.StatusCreated).JSON(&c)
	if c.ID == "" || c.ExternalID != "412" || c.Value != "Gift wrap, please" || c.Origin != "WOOCOMMERCE" || !c.CreatedDate.Equal(time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)) {
		t.Fatalf("comment %+v", c)
	}
	got := m.get("3005")
	if len(got.Comments) != 2 || got.Comments[1].ExternalID != "412" || !got.Metadata.UpdateDate.After(o.Metadata.UpdateDate) {
		t.Fatalf("order comments %+v, updateDate %v → %v", got.Comments, o.Metadata.UpdateDate, got.Metadata.UpdateDate)
	}
	note["value"] = "No gift wrap after all"
	var re parcelgate.OrderComment
	m.do("POST", "/ecommerce/v3/orders/"+m.bid+"-3005/comments", note).Expect(http.StatusOK).JSON(&re)
	if re.ID != c.ID || len(m.get("3005").Comments) != 2 || m.get("3005").Comments[1].Value != "No gift wrap after all" {
		t.Fatalf("replaced %+v", m.get("3005").Comments)
	}

	// Another tenant: its calls on this order are 404 and change nothing.
	other.do("POST", "/ecommerce/v3/orders/"+o.ID+"/comments", note).Expect(404)
	other.do("POST", "/ecommerce/v3/orders/3005/comments", note).Expect(404)
	other.do("DELETE", "/ecommerce/v3/orders/"+o.ID+"/comments/412", nil).Expect(404)
	if len(m.get("3005").Comments) != 2 {
		t.Fatal("another tenant changed the comments")
	}

	var eb httpapi.EcomError
	m.do("POST", "/ecommerce/v3/orders/3005/comments", map[string]any{"type": "passThrough", "createdDate": "yesterday"}).Expect(400).JSON(&eb)
	var fields []string
	for _, f := range eb.Errors {
		fields = append(fields, f.Field)
	}
	if !slices.Contains(fields, "value") || !slices.Contains(fields, "createdDate") {
		t.Errorf("bad comment: %+v", eb.Errors)
	}
	m.do("POST", "/ecommerce/v3/orders/3005/comments", []any{note}).Expect(400)

	m.do("DELETE", "/ecommerce/v3/orders/3005/comments/412", nil).Expect(http.StatusNoContent)
	m.do("DELETE", "/ecommerce/v3/orders/3005/comments/412", nil).Expect(404)
	left := m.get("3005").Comments
	if len(left) != 1 || left[0].Type != "pickingNote" {
		t.Fatalf("after delete %+v", left)
	}
	// By the service's comment ID as well.
	m.do("DELETE", "/ecommerce/v3/orders/3005/comments/"+left[0].ID, nil).Expect(http.StatusNoContent)
	if len(m.get("3005").Comments) != 0 {
		t.Fatal("comment left")
	}
	m.do("POST", "/ecommerce/v3/orders/9999/comments", note).Expect(404)
}

// The plugin re-sends a cancelled shop order with POST
// /orders/{id} and the full body: it is validated, allocated again and
// live again (Created), keeping its IDs and notes. Delivered stays final:
// 409 with a clear message. A delivered order names a
// carrier the plugin links tracking codes for.
func pluginReopenCancelledAndDelivered(t *testing.T, m *merchant) {
	o := m.create(pluginOrder("4005", "WOO7"))
	// The plugin's cancel: PUT /orders/{id} {"status":{"value":"Cancelled"}}.
	var c parcelgate.Order
	m.do("PUT", "/ecommerce/v3/orders/4005", map[string]any{"status": map[string]any{"value": "Cancelled"}}).Expect(200).JSON(&c)
	if c.Status.Value != parcelgate.OrderCancelled {
		t.Fatalf("cancel %+v", c.Status)
	}
	if q, a := m.balanceOf("WOO7"); q != 10 || a != 0 {
		t.Fatalf("stock back: %d/%d", q, a)
	}
	// Bad content is refused and changes nothing.
	bad := pluginOrder("4005", "WOO7")
	bad["currency"] = "EURO"
	m.do("POST", "/ecommerce/v3/orders/4005", bad).Expect(400)
	if m.get("4005").Status.Value != parcelgate.OrderCancelled {
		t.Fatal("a refused re-send changed the order")
	}
	var re parcelgate.Order
	m.do("POST", "/ecommerce/v3/orders/4005", pluginOrder("4005", "WOO7")).Expect(200).JSON(&re)
	if re.Status.Value != parcelgate.OrderCreated || re.ID != o.ID || re.Status.Reason != "" || len(re.Comments) != 1 {
		t.Fatalf("re-sent %+v", re)
	}
	if q, a := m.balanceOf("WOO7"); q != 8 || a != 2 {
		t.Fatalf("allocated again: %d/%d", q, a)
	}

	m.setStatus("4005", "Submitted").Expect(200)
	var del parcelgate.Order
	m.setStatus("4005", "Delivered").Expect(200).JSON(&del)
	if del.DeliveryOperator != "Posti" || len(del.TrackingCodes) != 1 {
		t.Fatalf("delivered %q %v", del.DeliveryOperator, del.TrackingCodes)
	}
	if got := m.get("4005"); got.DeliveryOperator != "Posti" {
		t.Fatalf("GET deliveryOperator %q", got.DeliveryOperator)
	}
	var eb httpapi.EcomError
	m.do("POST", "/ecommerce/v3/orders/4005", pluginOrder("4005", "WOO7")).Expect(409).JSON(&eb)
	if !strings.Contains(eb.Message, "Delivered") || !strings.Contains(eb.Message, "final") {
		t.Fatalf("409 message %q", eb.Message)
	}
}
