package httpapi_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/fulfillment"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
	"github.com/parcelgate/parcelgate/sqlstore"
)

const (
	retailerBID  = "1234567-1"
	supplierABID = "7654321-2"
	supplierBBID = "0737546-2"
)

// dropship is a retailer with a dropshipping catalog DROP open to two
// suppliers, A and B, who published products there: A1 (10, fragile) and
// A2 (5) of A, B1 (20) of B.
type dropship struct {
	*apitest.Env
	retailer, a, b string // tokens
}

func newDropship(t *testing.T, e *apitest.Env) *dropship {
	t.Helper()
	env := parcelgate.Test
	e.Catalog(env, retailerBID, "DROP", parcelgate.CatalogDropship, supplierABID, supplierBBID)
	d := &dropship{Env: e, retailer: e.EcomToken(env, retailerBID, parcelgate.RoleRetailer),
		a: e.EcomToken(env, supplierABID, parcelgate.RoleSupplier), b: e.EcomToken(env, supplierBBID, parcelgate.RoleSupplier)}
	d.publish(d.a, supplierABID+"-A1", 10, "3.00", true)
	d.publish(d.a, supplierABID+"-A2", 5, "1.00", false)
	d.publish(d.b, supplierBBID+"-B1", 20, "2.00", false)
	return d
}

func (d *dropship) publish(token, id string, qty int, price string, fragile bool) {
	d.T.Helper()
	p := map[string]any{"externalId": id, "isFragile": fragile, "descriptions": map[string]any{"en": map[string]any{"name": "Product " + id}}}
	d.call(token, "PUT", "/ecommerce/v3/inventory", []any{map[string]any{"product": p, "balances": []any{
		map[string]any{"retailerId": retailerBID, "catalogExternalId": "DROP", "quantity": qty, "wholesalePrice": json.Number(price), "currency": "EUR"}}}}).Expect(200)
}

func (d *dropship) call(token, method, path string, body any) *apitest.Response {
	d.T.Helper()
	return d.Do(apitest.Request{Method: method, Path: path, Body: body, Bearer: token})
}

// stock is the balance of product id in DROP as the retailer reads it.
func (d *dropship) stock(id string) (quantity, allocated float64) {
	d.T.Helper()
	var p httpapi.Page[parcelgate.Balance]
	d.call(d.retailer, "GET", "/ecommerce/v3/catalogs/DROP/balances?productExternalId="+url.QueryEscape(id), nil).Expect(200).JSON(&p)
	if len(p.Content) != 1 {
		d.T.Fatalf("balance of %s: %+v", id, p)
	}
	b := p.Content[0]
	return float64(b.Quantity), float64(b.Allocated)
}

// order places the retailer's order of rows (product, quantity, ...) from
// DROP.
func (d *dropship) order(own string, rows ...any) parcelgate.Order {
	d.T.Helper()
	body := dropshipOrder(own, rows...)
	var o parcelgate.Order
	d.call(d.retailer, "PUT", "/ecommerce/v3/order", body).Expect(http.StatusOK).JSON(&o)
	return o
}

func dropshipOrder(own string, rows ...any) map[string]any {
	var rs []any
	for i := 0; i+1 < len(rows); i += 2 {
		rs = append(rs, map[string]any{"externalProductId": rows[i], "externalWarehouseId": "DROP", "quantity": rows[i+1]})
	}
	return map[string]any{
		"externalId": retailerBID + "-" + own,
		"references": []any{map[string]any{"name": "SO", "value": "SO-" + own}},
		"deliveryAddress": map[string]any{"name": "Maija Meikäläinen", "streetAddress": "Kotikatu 2", "postalCode": "00200",
			"postOffice": "Helsinki", "country": "FI", "telephone": "+358401234567", "email": "maija@example.com"},
		"serviceCode": "2103",
		"rows":        rs,
	}
}

func (d *dropship) getOrder(id string) parcelgate.Order {
	d.T.Helper()
	var o parcelgate.Order
	d.call(d.retailer, "GET", "/ecommerce/v3/orders/"+url.PathEscape(id), nil).Expect(200).JSON(&o)
	return o
}

// shipments lists a supplier's shipments (with query q).
func (d *dropship) shipments(token, q string) httpapi.Page[parcelgate.DropshipShipment] {
	d.T.Helper()
	var p httpapi.Page[parcelgate.DropshipShipment]
	d.call(token, "GET", "/ecommerce/v3/shipments"+q, nil).Expect(200).JSON(&p)
	return p
}

func (d *dropship) only(token string) parcelgate.DropshipShipment {
	d.T.Helper()
	p := d.shipments(token, "")
	if len(p.Content) != 1 {
		d.T.Fatalf("shipments: %+v", p)
	}
	return p.Content[0]
}

func (d *dropship) patch(token, id string, body any) *apitest.Response {
	d.T.Helper()
	return d.call(token, "PATCH", "/ecommerce/v3/shipments/"+id, body)
}

func status(v string) map[string]any { return map[string]any{"value": v} }

// The whole flow (decisions §34): an order over two suppliers is split
// into two shipments; A confirms with its own tracking code, B splits into
// two parcels and delivers part; the retailer's order shows per-row
// statuses, "Partially delivered", every tracking code, and the stock
// moved exactly (interface §2.5: delivered leaves allocated, the rest
// returns to quantity).
func TestDropshipWholeFlow(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		d := newDropship(t, e)
		o := d.order("D1", supplierABID+"-A1", 2, supplierABID+"-A2", 1, supplierBBID+"-B1", 5)
		if o.Status.Value != parcelgate.OrderCreated || o.Rows[0].SupplierID != supplierABID || o.Rows[2].SupplierID != supplierBBID {
			t.Fatalf("order = %+v", o)
		}
		if o.TotalWholeSalePrice != 2*3+1+5*2 {
			t.Errorf("totalWholeSalePrice = %v", o.TotalWholeSalePrice)
		}
		if q, a := d.stock(supplierABID + "-A1"); q != 8 || a != 2 {
			t.Errorf("A1 after order: %v/%v, want 8/2", q, a)
		}
		created := o.Metadata.UpdateDate

		// One shipment each, split as the provider's Glue does.
		sa, sb := d.only(d.a), d.only(d.b)
		if sa.ClientID != supplierABID || sa.Metadata.SourceOrganization != retailerBID || sa.Status.Value != parcelgate.DropshipCreated {
			t.Errorf("A's shipment = %+v", sa)
		}
		if !slices.Equal(sa.References, []parcelgate.OrderReference{{Name: "PO", Value: o.ExternalID}, {Name: "SO", Value: "SO-D1"}}) {
			t.Errorf("references = %v", sa.References)
		}
		pa := sa.Consignment.Parcels
		if len(sa.Consignment.Rows) != 2 || len(pa) != 1 || pa[0].ParcelID != "1" || pa[0].ServiceCode != "2103" || pa[0].PickupPointID == "" ||
			len(pa[0].AdditionalServices) != 1 || pa[0].AdditionalServices[0].ServiceCode != parcelgate.ServiceFragile {
			t.Errorf("A's consignment = %+v", sa.Consignment)
		}
		if len(sb.Consignment.Rows) != 1 || sb.Consignment.Rows[0].ItemID != supplierBBID+"-B1" || len(sb.Consignment.Parcels[0].AdditionalServices) != 0 {
			t.Errorf("B's consignment = %+v", sb.Consignment)
		}
		if sa.Consignment.DeliveryAddress.Name != "Maija Meikäläinen" {
			t.Errorf("delivery address = %+v", sa.Consignment.DeliveryAddress)
		}

		// A: Viewed, then confirms with its own tracking code.
		var s parcelgate.DropshipShipment
		d.patch(d.a, sa.ShipmentID, map[string]any{"status": status("Viewed")}).Expect(200).JSON(&s)
		if s.Status.Value != parcelgate.DropshipViewed {
			t.Fatalf("viewed: %+v", s.Status)
		}
		if got := d.getOrder(o.ID); got.Status.Value != parcelgate.OrderSubmitted || got.Rows[0].Status.Value != "Viewed" || got.Rows[2].Status.Value != parcelgate.OrderCreated {
			t.Errorf("order after Viewed: %v %v %v", got.Status.Value, got.Rows[0].Status.Value, got.Rows[2].Status.Value)
		}
		d.patch(d.a, sa.ShipmentID, map[string]any{"status": status("Delivered"), "consignment": map[string]any{"parcels": []any{
			map[string]any{"parcelId": "1", "packageType": "PC", "ready": true, "trackingCodes": []any{"EXTA0001"}, "rows": []any{
				map[string]any{"externalWarehouseId": "DROP", "itemId": supplierABID + "-A1", "deliveredQuantity": 2, "quantity": 2.0},
				map[string]any{"externalWarehouseId": "DROP", "itemId": supplierABID + "-A2", "deliveredQuantity": 1, "quantity": 1.0}}}}}}).Expect(200).JSON(&s)
		if s.Status.Value != parcelgate.DropshipDelivered || !slices.Equal(s.Consignment.Parcels[0].TrackingCodes, []string{"EXTA0001"}) {
			t.Fatalf("A confirmed: %+v", s)
		}

		// B: splits 5 of B1 into parcels of 2 and 3, then sends only the 2.
		d.call(d.b, "PUT", "/ecommerce/v3/shipments/"+sb.ShipmentID, map[string]any{"consignment": map[string]any{"parcels": []any{
			map[string]any{"parcelId": "1", "packageType": "PC", "serviceCode": "2103", "rows": []any{map[string]any{"itemId": supplierBBID + "-B1", "quantity": 5.0, "deliveredQuantity": 2}}},
			map[string]any{"parcelId": "2", "packageType": "PC", "serviceCode": "2103", "pickupPointId": "002303200", "routingServiceCode": "3200", "rows": []any{map[string]any{"itemId": supplierBBID + "-B1", "quantity": 5.0, "deliveredQuantity": 3}}},
		}}}).Expect(200).JSON(&s)
		if len(s.Consignment.Parcels) != 2 || s.Status.Value != parcelgate.DropshipCreated {
			t.Fatalf("split: %+v", s)
		}
		d.patch(d.b, sb.ShipmentID, map[string]any{"status": status("Delivered"), "consignment": map[string]any{"parcels": []any{
			map[string]any{"parcelId": "1", "rows": []any{map[string]any{"itemId": supplierBBID + "-B1", "deliveredQuantity": 2}}},
			map[string]any{"parcelId": "2", "rows": []any{map[string]any{"itemId": supplierBBID + "-B1", "deliveredQuantity": 0}}},
		}}}).Expect(200).JSON(&s)
		bCodes := s.Consignment.Parcels[0].TrackingCodes
		if len(bCodes) != 1 || !strings.HasPrefix(bCodes[0], "JJFI") || len(s.Consignment.Parcels[1].TrackingCodes) != 0 || *s.Consignment.Rows[0].DeliveredQuantity != 2 {
			t.Fatalf("B delivered part: %+v", s.Consignment)
		}

		// The retailer's order.
		got := d.getOrder(o.ExternalID)
		if got.Status.Value != parcelgate.OrderPartiallyDelivered {
			t.Errorf("order status = %q", got.Status.Value)
		}
		want := []parcelgate.OrderStatus{parcelgate.OrderDelivered, parcelgate.OrderDelivered, parcelgate.OrderPartiallyDelivered}
		for i, w := range want {
			if got.Rows[i].Status.Value != w {
				t.Errorf("row %d status = %q, want %q", i, got.Rows[i].Status.Value, w)
			}
		}
		if got.Rows[2].DeliveredQuantity == nil || *got.Rows[2].DeliveredQuantity != 2 || !slices.Equal(got.Rows[2].TrackingCodes, bCodes) || !slices.Equal(got.Rows[0].TrackingCodes, []string{"EXTA0001"}) {
			t.Errorf("rows = %+v", got.Rows)
		}
		if !slices.Equal(got.TrackingCodes, []string{"EXTA0001", bCodes[0]}) || got.DeliveryOperator != "Posti" {
			t.Errorf("order tracking codes = %v %q", got.TrackingCodes, got.DeliveryOperator)
		}
		// Stock: delivered left allocated, B's 3 unsent returned.
		for _, c := range []struct {
			id   string
			q, a float64
		}{{supplierABID + "-A1", 8, 0}, {supplierABID + "-A2", 4, 0}, {supplierBBID + "-B1", 18, 0}} {
			if q, a := d.stock(c.id); q != c.q || a != c.a {
				t.Errorf("%s: %v/%v, want %v/%v", c.id, q, a, c.q, c.a)
			}
		}
		// Change polling sees the order's progress.
		var page httpapi.Page[parcelgate.Order]
		d.call(d.retailer, "GET", "/ecommerce/v3/orders?updatedFrom="+url.QueryEscape(created.Format("2006-01-02T15:04:05.999999Z07:00")), nil).Expect(200).JSON(&page)
		if len(page.Content) != 1 || page.Content[0].Status.Value != parcelgate.OrderPartiallyDelivered {
			t.Errorf("poll = %+v", page.Content)
		}
		// No move out of a final status.
		d.patch(d.a, sa.ShipmentID, map[string]any{"status": status("Packing")}).Expect(http.StatusConflict)
		// The retailer sees its suppliers' shipments.
		var list struct{ Content []parcelgate.DropshipShipment }
		d.call(d.retailer, "GET", "/ecommerce/v3/orders/"+o.ID+"/shipments", nil).Expect(200).JSON(&list)
		if len(list.Content) != 2 || list.Content[0].ShipmentID != sa.ShipmentID {
			t.Errorf("order's shipments = %+v", list.Content)
		}
		// Polling from the newest stamp the supplier saw shows nothing new.
		last := d.shipments(d.b, "").Content[0].Metadata.UpdateDate
		if p := d.shipments(d.b, "?from="+url.QueryEscape(last.Format("2006-01-02T15:04:05.999999Z07:00"))); len(p.Content) != 0 {
			t.Errorf("poll after the last change: %+v", p.Content)
		}
		if p := d.shipments(d.a, "?status=Delivered,Cancelled"); len(p.Content) != 1 || p.Page.TotalElements != 1 {
			t.Errorf("status filter: %+v", p)
		}
		if p := d.shipments(d.a, "?status=Created"); len(p.Content) != 0 {
			t.Errorf("status filter Created: %+v", p)
		}
	})
}

// decisions §34: fast confirm delivers every row in full; a supplier's
// cancellation returns the stock and shows Cancelled on the rows.
func TestDropshipFastConfirmAndCancel(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		d := newDropship(t, e)
		o := d.order("D2", supplierABID+"-A1", 3, supplierBBID+"-B1", 4)
		sa, sb := d.only(d.a), d.only(d.b)
		var s parcelgate.DropshipShipment
		d.call(d.a, "POST", "/ecommerce/v3/shipments/"+sa.ShipmentID+"/delivered", nil).Expect(200).JSON(&s)
		if s.Status.Value != parcelgate.DropshipDelivered || *s.Consignment.Rows[0].DeliveredQuantity != 3 || len(s.Consignment.Parcels[0].TrackingCodes) != 1 {
			t.Fatalf("fast confirm: %+v", s)
		}
		d.patch(d.b, sb.ShipmentID, map[string]any{"status": status("Cancelled")}).Expect(200)
		got := d.getOrder(o.ID)
		if got.Status.Value != parcelgate.OrderPartiallyDelivered || got.Rows[0].Status.Value != parcelgate.OrderDelivered || got.Rows[1].Status.Value != parcelgate.OrderCancelled {
			t.Errorf("order = %v rows %v %v", got.Status.Value, got.Rows[0].Status.Value, got.Rows[1].Status.Value)
		}
		if q, a := d.stock(supplierABID + "-A1"); q != 7 || a != 0 {
			t.Errorf("A1: %v/%v, want 7/0", q, a)
		}
		if q, a := d.stock(supplierBBID + "-B1"); q != 20 || a != 0 {
			t.Errorf("B1: %v/%v, want 20/0 (cancelled: all back)", q, a)
		}
		// The retailer can no longer cancel what was partly delivered.
		d.call(d.retailer, "DELETE", "/ecommerce/v3/orders/"+o.ID, nil).Expect(http.StatusConflict)
	})
}

// The retailer's cancellation ends its suppliers' open shipments and
// returns the stock once.
func TestDropshipRetailerCancels(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		d := newDropship(t, e)
		o := d.order("D3", supplierABID+"-A1", 3, supplierBBID+"-B1", 4)
		sb := d.only(d.b)
		d.patch(d.b, sb.ShipmentID, map[string]any{"status": status("Cancelled")}).Expect(200)
		var got parcelgate.Order
		d.call(d.retailer, "DELETE", "/ecommerce/v3/orders/"+o.ID, nil).Expect(200).JSON(&got)
		if got.Status.Value != parcelgate.OrderCancelled || got.Rows[0].Status.Value != parcelgate.OrderCancelled {
			t.Errorf("cancelled order: %v %v", got.Status.Value, got.Rows[0].Status.Value)
		}
		if s := d.only(d.a); s.Status.Value != parcelgate.DropshipCancelled {
			t.Errorf("A's shipment = %v", s.Status.Value)
		}
		if q, a := d.stock(supplierABID + "-A1"); q != 10 || a != 0 {
			t.Errorf("A1: %v/%v, want 10/0", q, a)
		}
		if q, a := d.stock(supplierBBID + "-B1"); q != 20 || a != 0 {
			t.Errorf("B1: %v/%v, want 20/0 (returned once)", q, a)
		}
		// Its suppliers hold its shipments: it is not sent again.
		d.call(d.retailer, "POST", "/ecommerce/v3/orders/"+o.ID, nil).Expect(http.StatusConflict)
		d.call(d.retailer, "PUT", "/ecommerce/v3/order", dropshipOrder("D3", supplierABID+"-A1", 1)).Expect(http.StatusConflict)
	})
}

// Rows from dropshipping catalogs are refused per row as warehouse rows
// are: a product not published there is Error, stock short is Cancelled;
// a mix of warehouse and catalog rows is allocated as one order.
func TestDropshipOrderRefusals(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		d := newDropship(t, e)
		if o := d.order("R1", supplierABID+"-NOPE", 1); o.Status.Value != parcelgate.OrderError || !strings.Contains(o.Status.Reason, "not stocked") {
			t.Errorf("unpublished: %v %q", o.Status.Value, o.Status.Reason)
		}
		if o := d.order("R2", supplierABID+"-A2", 6); o.Status.Value != parcelgate.OrderCancelled || !strings.Contains(o.Status.Reason, "Not enough stock") {
			t.Errorf("short: %v %q", o.Status.Value, o.Status.Reason)
		}
		if p := d.shipments(d.a, ""); len(p.Content) != 0 {
			t.Errorf("refused orders made shipments: %+v", p.Content)
		}
		e.Catalog(parcelgate.Test, retailerBID, "WH9", parcelgate.CatalogWarehouse, retailerBID)
		body := dropshipOrder("R3", supplierABID+"-A1", 1)
		body["rows"] = append(body["rows"].([]any), map[string]any{"externalProductId": "OWN1", "externalWarehouseId": "WH9", "quantity": 1})
		// A mix of warehouse and catalog rows is an order (decisions §38),
		// allocated all or nothing: the warehouse row's product is not
		// stocked, so nothing is split.
		var mixed parcelgate.Order
		d.call(d.retailer, "PUT", "/ecommerce/v3/order", body).Expect(http.StatusOK).JSON(&mixed)
		if mixed.Status.Value != parcelgate.OrderError || !strings.Contains(mixed.Status.Reason, "OWN1") || mixed.Rows[0].SupplierID != "" {
			t.Errorf("mixed order, warehouse row unknown: %+v", mixed)
		}
		if p := d.shipments(d.a, ""); len(p.Content) != 0 {
			t.Errorf("a refused mixed order made shipments: %+v", p.Content)
		}
		// A supplier's product named on a warehouse row is not the caller's.
		body = dropshipOrder("R4", supplierABID+"-A1", 1)
		body["rows"].([]any)[0].(map[string]any)["externalWarehouseId"] = "WH9"
		r := d.call(d.retailer, "PUT", "/ecommerce/v3/order", body).Expect(http.StatusBadRequest)
		if !strings.Contains(string(r.Body), "rows[0].externalProductId") {
			t.Errorf("foreign product in a warehouse: %s", r.Body)
		}
	})
}

// Every mistake is a 4xx naming its field.
func TestDropshipShipmentMistakes(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		d := newDropship(t, e)
		d.order("M1", supplierABID+"-A1", 2)
		sa := d.only(d.a)
		for _, c := range []struct {
			method string
			body   any
			code   int
			field  string
		}{
			{"PATCH", map[string]any{"status": status("viewed")}, 400, "status.value"},
			{"PATCH", map[string]any{}, 400, "status.value"},
			{"PATCH", map[string]any{"status": 5}, 400, "status"},
			{"PATCH", map[string]any{"status": status("Delivered"), "consignment": map[string]any{"parcels": []any{map[string]any{"parcelId": "7", "rows": []any{}}}}}, 400, "consignment.parcels[0].parcelId"},
			{"PATCH", map[string]any{"status": status("Delivered"), "consignment": map[string]any{"parcels": []any{map[string]any{"parcelId": "1", "rows": []any{map[string]any{"itemId": supplierABID + "-A1", "deliveredQuantity": 3}}}}}}, 400, "consignment.parcels[0].rows[0].deliveredQuantity"},
			{"PATCH", map[string]any{"status": status("Delivered"), "consignment": map[string]any{"parcels": []any{map[string]any{"parcelId": "1", "rows": []any{map[string]any{"itemId": supplierABID + "-A1", "deliveredQuantity": "two"}}}}}}, 400, "consignment.parcels[0].rows[0].deliveredQuantity"},
			{"PUT", map[string]any{"consignment": map[string]any{"parcels": []any{map[string]any{"parcelId": "1", "rows": []any{map[string]any{"itemId": supplierABID + "-A1"}}},
				map[string]any{"parcelId": "2", "packageType": "PC"}}}}, 400, "consignment.parcels[1].serviceCode"},
			{"PUT", map[string]any{}, 400, "consignment.parcels"},
			{"PUT", "[]", 400, "(body)"},
		} {
			r := d.call(d.a, c.method, "/ecommerce/v3/shipments/"+sa.ShipmentID, c.body).Expect(c.code)
			if !strings.Contains(string(r.Body), `"`+c.field+`"`) {
				t.Errorf("%s %v: %s, want field %s", c.method, c.body, r.Body, c.field)
			}
		}
		for _, q := range []string{"?status=created", "?from=yesterday", "?size=0"} {
			d.call(d.a, "GET", "/ecommerce/v3/shipments"+q, nil).Expect(400)
		}
		// Nothing of the refused writes was applied.
		if s := d.only(d.a); s.Status.Value != parcelgate.DropshipCreated || len(s.Consignment.Parcels) != 1 {
			t.Errorf("after refusals: %+v", s)
		}
	})
}

// Isolation: a supplier sees only its shipments; another organization's
// shipment, or one of the other environment, answers exactly like a
// missing one on every route; other roles may not use the supplier API.
func TestDropshipCrossTenant(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		d := newDropship(t, e)
		o := d.order("X1", supplierABID+"-A1", 1)
		sa := d.only(d.a)
		prodA := e.EcomToken(parcelgate.Production, supplierABID, parcelgate.RoleSupplier)
		otherRetailer := e.EcomToken(parcelgate.Test, "2345678-0", parcelgate.RoleRetailer)
		missing := func(token, method, path string, body any) {
			t.Helper()
			r := d.call(token, method, path, body).Expect(http.StatusNotFound)
			ghost := d.call(token, method, strings.Replace(path, sa.ShipmentID, "NOSUCHSHIPMENT000000", 1), body).Expect(http.StatusNotFound)
			same := func(r *apitest.Response, id string) string {
				m := r.Map()
				delete(m, "timestamp")
				b, _ := json.Marshal(m)
				return strings.ReplaceAll(string(b), id, "X")
			}
			if same(r, sa.ShipmentID) != same(ghost, "NOSUCHSHIPMENT000000") {
				t.Errorf("%s %s: %s differs from a missing one's %s", method, path, r.Body, ghost.Body)
			}
		}
		for _, tok := range []string{d.b, prodA} {
			p := "/ecommerce/v3/shipments/" + sa.ShipmentID
			missing(tok, "GET", p, nil)
			missing(tok, "PATCH", p, map[string]any{"status": status("Viewed")})
			missing(tok, "PUT", p, map[string]any{"consignment": map[string]any{"parcels": []any{map[string]any{"parcelId": "1", "packageType": "PC", "serviceCode": "2103", "rows": []any{map[string]any{"itemId": supplierABID + "-A1"}}}}}})
			missing(tok, "POST", p+"/delivered", nil)
		}
		if p := d.shipments(d.b, ""); len(p.Content) != 0 {
			t.Errorf("B sees %+v", p.Content)
		}
		if p := d.shipments(prodA, ""); len(p.Content) != 0 {
			t.Errorf("production sees %+v", p.Content)
		}
		d.call(otherRetailer, "GET", "/ecommerce/v3/orders/"+o.ID+"/shipments", nil).Expect(http.StatusNotFound)
		d.call(otherRetailer, "GET", "/ecommerce/v3/orders/"+o.ID, nil).Expect(http.StatusNotFound)
		// Roles: the retailer may not act as a supplier, nor a supplier place orders.
		d.call(d.retailer, "GET", "/ecommerce/v3/shipments", nil).Expect(http.StatusForbidden)
		d.call(d.a, "PUT", "/ecommerce/v3/order", dropshipOrder("X2", supplierABID+"-A1", 1)).Expect(http.StatusForbidden)
		// Untouched by all of it.
		if s := d.only(d.a); s.Status.Value != parcelgate.DropshipCreated {
			t.Errorf("A's shipment moved: %v", s.Status.Value)
		}
	})
}

// Races: two suppliers confirming one order at once, and a confirmation
// racing the retailer's cancellation, leave a consistent order and stock.
func TestDropshipRaces(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		d := newDropship(t, e)
		for round := range 3 {
			o := d.order("RC"+string(rune('0'+round)), supplierABID+"-A1", 1, supplierBBID+"-B1", 1)
			sa, sb := d.shipments(d.a, "?status=Created").Content[0], d.shipments(d.b, "?status=Created").Content[0]
			var wg sync.WaitGroup
			codes := make([]int, 2)
			for i, c := range []struct{ tok, id string }{{d.a, sa.ShipmentID}, {d.b, sb.ShipmentID}} {
				wg.Go(func() {
					codes[i] = d.call(c.tok, "POST", "/ecommerce/v3/shipments/"+c.id+"/delivered", nil).Status
				})
			}
			wg.Wait()
			if codes[0] != 200 || codes[1] != 200 {
				t.Fatalf("confirms: %v", codes)
			}
			if got := d.getOrder(o.ID); got.Status.Value != parcelgate.OrderDelivered || len(got.TrackingCodes) != 2 {
				t.Errorf("round %d: order %v codes %v", round, got.Status.Value, got.TrackingCodes)
			}
		}
		if q, a := d.stock(supplierABID + "-A1"); q != 7 || a != 0 {
			t.Errorf("A1 after 3 delivered: %v/%v", q, a)
		}
		// A confirmation racing a cancellation: exactly one wins.
		for round := range 3 {
			o := d.order("CC"+string(rune('0'+round)), supplierABID+"-A2", 1)
			sa := d.shipments(d.a, "?status=Created").Content[0]
			var wg sync.WaitGroup
			var confirm, cancel int
			wg.Go(func() {
				confirm = d.call(d.a, "POST", "/ecommerce/v3/shipments/"+sa.ShipmentID+"/delivered", nil).Status
			})
			wg.Go(func() { cancel = d.call(d.retailer, "DELETE", "/ecommerce/v3/orders/"+o.ID, nil).Status })
			wg.Wait()
			got := d.getOrder(o.ID)
			switch {
			case confirm == 200 && cancel == http.StatusConflict:
				if got.Status.Value != parcelgate.OrderDelivered {
					t.Errorf("confirm won, order %v", got.Status.Value)
				}
			case cancel == 200 && confirm == http.StatusConflict:
				if got.Status.Value != parcelgate.OrderCancelled {
					t.Errorf("cancel won, order %v", got.Status.Value)
				}
			default:
				t.Errorf("confirm %d, cancel %d", confirm, cancel)
			}
		}
		// A2 had 5: whatever won, what was delivered left and the rest came back.
		var delivered float64
		for _, s := range d.shipments(d.a, "?status=Delivered").Content {
			for _, r := range s.Consignment.Rows {
				if r.ItemID == supplierABID+"-A2" {
					delivered += float64(*r.DeliveredQuantity)
				}
			}
		}
		if q, a := d.stock(supplierABID + "-A2"); q != 5-delivered || a != 0 {
			t.Errorf("A2: %v/%v, want %v/0", q, a, 5-delivered)
		}
	})
}

// decisions §34: platform tracking codes come with a label; the
// supplier's own codes get the delivery note only.
func TestDropshipLabelsAndNotes(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		d := newDropship(t, e)
		d.order("L1", supplierABID+"-A1", 1, supplierBBID+"-B1", 2)
		sa, sb := d.only(d.a), d.only(d.b)
		path := func(id, parcel, doc string) string {
			return "/ecommerce/v3/shipments/" + id + "/parcels/" + parcel + "/" + doc
		}
		d.call(d.a, "GET", path(sa.ShipmentID, "1", "label"), nil).Expect(http.StatusConflict)
		d.call(d.a, "POST", "/ecommerce/v3/shipments/"+sa.ShipmentID+"/delivered", nil).Expect(200)
		for _, q := range []string{"", "?media=thermo-225"} {
			r := d.call(d.a, "GET", path(sa.ShipmentID, "1", "label")+q, nil).Expect(200)
			if r.Header.Get("Content-Type") != "application/pdf" || !strings.HasPrefix(string(r.Body), "%PDF") {
				t.Errorf("label%s: %s %.20q", q, r.Header.Get("Content-Type"), r.Body)
			}
		}
		d.call(d.a, "GET", path(sa.ShipmentID, "1", "label")+"?media=a3", nil).Expect(400)
		d.call(d.a, "GET", path(sa.ShipmentID, "9", "label"), nil).Expect(404)
		d.patch(d.b, sb.ShipmentID, map[string]any{"status": status("Delivered"), "consignment": map[string]any{"parcels": []any{
			map[string]any{"parcelId": "1", "trackingCodes": []any{"OWN12345"}, "rows": []any{map[string]any{"itemId": supplierBBID + "-B1", "deliveredQuantity": 2}}}}}}).Expect(200)
		d.call(d.b, "GET", path(sb.ShipmentID, "1", "label"), nil).Expect(http.StatusConflict)
		if r := d.call(d.b, "GET", path(sb.ShipmentID, "1", "note"), nil).Expect(200); !strings.HasPrefix(string(r.Body), "%PDF") {
			t.Errorf("note: %.20q", r.Body)
		}
		// Another supplier's parcel is missing.
		d.call(d.b, "GET", path(sa.ShipmentID, "1", "label"), nil).Expect(404)
		d.call(d.b, "GET", path(sa.ShipmentID, "1", "note"), nil).Expect(404)
	})
}

// The automatic supplier (decisions §34): switched on per organization, it
// confirms a shipment the delay after its last move; the test scenarios
// make it cancel (.SCANCEL) or deliver part (.SPART).
func TestDropshipAutomaticSupplier(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		d := newDropship(t, e)
		auto := fulfillment.NewSuppliers(sqlstore.NewDropshipService(e.DB), e.Clock, slog.New(slog.NewTextHandler(io.Discard, nil)), 0)
		var a parcelgate.AutoSupplier
		e.Admin("PUT", "/admin/v1/organizations/"+supplierABID+"/auto-supplier?environment=test", map[string]any{"enabled": true, "delaySeconds": 60}).Expect(200).JSON(&a)
		if !a.Enabled || a.DelaySeconds != 60 {
			t.Fatalf("setting = %+v", a)
		}
		e.Admin("PUT", "/admin/v1/organizations/"+supplierABID+"/auto-supplier?environment=test", map[string]any{"enabled": true, "delaySeconds": -1}).Expect(400)
		e.Admin("PUT", "/admin/v1/organizations/9999999-9/auto-supplier?environment=test", map[string]any{"enabled": true}).Expect(404)
		plain := d.order("AU1", supplierABID+"-A1", 2, supplierBBID+"-B1", 1)
		cancel := d.order("A2.SCANCEL", supplierABID+"-A1", 1)
		part := d.order("A3.SPART", supplierABID+"-A1", 3)
		if n, err := auto.Step(t.Context()); err != nil || n != 0 {
			t.Fatalf("before the delay: %d %v", n, err)
		}
		e.Clock.Advance(61 * time.Second)
		if n, err := auto.Step(t.Context()); err != nil || n != 3 {
			t.Fatalf("after the delay: %d %v (B's shipment is B's to confirm)", n, err)
		}
		if n, _ := auto.Step(t.Context()); n != 0 {
			t.Fatalf("moved twice: %d", n)
		}
		if o := d.getOrder(plain.ID); o.Status.Value != parcelgate.OrderPartiallyDelivered || o.Rows[0].Status.Value != parcelgate.OrderDelivered || o.Rows[1].Status.Value != parcelgate.OrderCreated {
			t.Errorf("plain: %v %v %v", o.Status.Value, o.Rows[0].Status.Value, o.Rows[1].Status.Value)
		}
		if o := d.getOrder(cancel.ID); o.Status.Value != parcelgate.OrderCancelled {
			t.Errorf(".SCANCEL: %v", o.Status.Value)
		}
		if o := d.getOrder(part.ID); o.Status.Value != parcelgate.OrderPartiallyDelivered || *o.Rows[0].DeliveredQuantity != 1 {
			t.Errorf(".SPART: %v %+v", o.Status.Value, o.Rows[0])
		}
		// 10 - 2 (plain) - 1 (part: 1 of 3 sent, 2 back); the cancelled 1 came back.
		if q, a := d.stock(supplierABID + "-A1"); q != 7 || a != 0 {
			t.Errorf("A1: %v/%v, want 7/0", q, a)
		}
		e.Admin("PUT", "/admin/v1/organizations/"+supplierABID+"/auto-supplier?environment=test", map[string]any{"enabled": false}).Expect(200)
		var off parcelgate.AutoSupplier
		e.Admin("GET", "/admin/v1/organizations/"+supplierABID+"/auto-supplier?environment=test", nil).Expect(200).JSON(&off)
		if off.Enabled {
			t.Errorf("still on: %+v", off)
		}
	})
}

// lookedSupplier is the automatic supplier's store, telling the test when a
// look has asked when the next shipment is due in every environment.
type lookedSupplier struct {
	fulfillment.SupplierStore
	looks chan struct{}
}

func (s *lookedSupplier) NextDue(ctx context.Context, env parcelgate.Environment, now time.Time) (time.Time, error) {
	at, err := s.SupplierStore.NextDue(ctx, env, now)
	if env == parcelgate.Environments[len(parcelgate.Environments)-1] {
		select {
		case s.looks <- struct{}{}:
		default:
		}
	}
	return at, err
}

// decisions §70: the automatic supplier sleeps until a shipment is due,
// woken by this instance's writes and by moves of the clock; its re-check
// (ten hours here) never comes within the test. Switched on without a
// delay, it confirms a new order's shipment at once; with ten minutes'
// delay, when the clock has moved ten minutes.
func TestDropshipAutomaticSupplierSleepsUntilDue(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		d := newDropship(t, e)
		store := &lookedSupplier{SupplierStore: sqlstore.NewDropshipService(e.DB), looks: make(chan struct{}, 100)}
		auto := fulfillment.NewSuppliers(store, e.Clock, slog.New(slog.NewTextHandler(io.Discard, nil)), 10*time.Millisecond).WithRecheck(10 * time.Hour)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); auto.Run(ctx) }()
		defer func() { cancel(); <-done }()
		<-store.looks // the first look found nothing: it sleeps

		// The supplier moves the order on by itself: wait for the outcome.
		delivered := func(o parcelgate.Order) {
			t.Helper()
			for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				got := d.getOrder(o.ID).Status.Value
				if got == parcelgate.OrderDelivered {
					return
				}
				if time.Now().After(deadline) {
					t.Fatalf("order %s still %s: the automatic supplier was not woken", o.ExternalID, got)
				}
			}
		}
		e.Admin("PUT", "/admin/v1/organizations/"+supplierABID+"/auto-supplier?environment=test", map[string]any{"enabled": true, "delaySeconds": 0}).Expect(200)
		delivered(d.order("W1", supplierABID+"-A1", 1))

		e.Admin("PUT", "/admin/v1/organizations/"+supplierABID+"/auto-supplier?environment=test", map[string]any{"enabled": true, "delaySeconds": 600}).Expect(200)
		later := d.order("W2", supplierABID+"-A1", 1)
		if o := d.getOrder(later.ID); o.Status.Value != parcelgate.OrderCreated {
			t.Fatalf("confirmed before its delay: %s", o.Status.Value)
		}
		e.Clock.Advance(601 * time.Second) // within the tokens' life
		delivered(later)
	})
}
