package httpapi_test

import (
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
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// The provider's split example names supplier 0109357-9's product
// 0109357-9-5002 in the retailer's catalog 01093579; exampleSupplier sets
// up exactly that: a retailer whose dropshipping catalog 01093579 is open
// to supplier 0109357-9, who published 5002 there (10 in stock), and an
// order of 5 of it.
const (
	exampleSupplierBID = "0109357-9"
	exampleCatalog     = "01093579"
	exampleItem        = "0109357-9-5002"
)

// splitExample is the provider's split example, verbatim (Shipments API
// V3 page): one PUT that splits 5 units into parcels of 2 and 3 and
// confirms them with Delivered. Parcel 1 is sent as Glue made it (no
// service), parcel 2 is added with its service, pick-up point and routing
// code.
const splitExample = `{"status":{"value":"Delivered"},"consignment":{"parcels":[{"parcelId":"1","packageType":"PC","ready":true,"rows":[{"externalWarehouseId":"01093579","itemId":"0109357-9-5002","deliveredQuantity":2,"quantity":5.0}]},{"parcelId":"2","packageType":"PC","serviceCode":"2103","pickupPointId":"002303200","routingServiceCode":"3200","ready":true,"rows":[{"externalWarehouseId":"01093579","itemId":"0109357-9-5002","deliveredQuantity":3,"quantity":5.0}]}]}}`

type exampleShop struct {
	*dropship
	supplier string // the example supplier's token
	order    parcelgate.Order
	shipment parcelgate.DropshipShipment
}

func newExampleShop(t *testing.T, e *apitest.Env) *exampleShop {
	t.Helper()
	d := newDropship(t, e)
	e.Catalog(parcelgate.Test, retailerBID, exampleCatalog, parcelgate.CatalogDropship, exampleSupplierBID)
	x := &exampleShop{dropship: d, supplier: e.EcomToken(parcelgate.Test, exampleSupplierBID, parcelgate.RoleSupplier)}
	p := map[string]any{"externalId": exampleItem, "descriptions": map[string]any{"en": map[string]any{"name": "Garden chair"}}}
	d.call(x.supplier, "PUT", "/ecommerce/v3/inventory", []any{map[string]any{"product": p, "balances": []any{
		map[string]any{"retailerId": retailerBID, "catalogExternalId": exampleCatalog, "quantity": 10, "wholesalePrice": json.Number("12.50"), "currency": "EUR"}}}}).Expect(200)
	body := dropshipOrder("EX1")
	body["rows"] = []any{map[string]any{"externalProductId": exampleItem, "externalWarehouseId": exampleCatalog, "quantity": 5}}
	d.call(d.retailer, "PUT", "/ecommerce/v3/order", body).Expect(http.StatusOK).JSON(&x.order)
	x.shipment = d.only(x.supplier)
	return x
}

// open follows a link of an answer with token (the link is absolute,
// under the server's URL).
func (d *dropship) open(token, link string) *apitest.Response {
	d.T.Helper()
	u, err := url.Parse(link)
	if err != nil || u.Path == "" {
		d.T.Fatalf("link %q: %v", link, err)
	}
	return d.call(token, "GET", u.RequestURI(), nil)
}

// provider Shipments V3: split example, one PUT that also confirms; "as
// seen from the response for both parcels tracking codes and address
// labels were created", and "parcel address label, delivery note and
// tracking code can be read from the corresponding parcel".
func TestShipmentSplitExampleConfirms(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		x := newExampleShop(t, e)
		if q, a := x.stockOf(exampleCatalog, exampleItem); q != 5 || a != 5 {
			t.Fatalf("stock after the order: %v/%v, want 5/5", q, a)
		}
		// provider Shipments V3: polling takes a comma list.
		if p := x.shipments(x.supplier, "?from=2024-01-01T00:00:00Z&status=Created,Viewed&size=20&page=0"); len(p.Content) != 1 || p.Page.Size != 20 || p.Page.TotalElements != 1 {
			t.Errorf("poll status=Created,Viewed: %+v", p)
		}
		var s parcelgate.DropshipShipment
		x.call(x.supplier, "PUT", "/ecommerce/v3/shipments/"+x.shipment.ShipmentID, splitExample).Expect(200).JSON(&s)
		if s.Status.Value != parcelgate.DropshipDelivered || len(s.Consignment.Parcels) != 2 {
			t.Fatalf("answer: %+v", s)
		}
		if r := s.Consignment.Rows[0]; r.DeliveredQuantity == nil || *r.DeliveredQuantity != 5 {
			t.Errorf("row delivered = %+v", r)
		}
		p1, p2 := s.Consignment.Parcels[0], s.Consignment.Parcels[1]
		// Parcel 1 keeps the service Glue gave it; parcel 2 has its own.
		if p1.ServiceCode != "2103" || p1.PickupPointID == "" || p2.ServiceCode != "2103" || p2.PickupPointID != "002303200" || p2.RoutingServiceCode != "3200" {
			t.Errorf("parcels: %+v / %+v", p1, p2)
		}
		var codes []string
		for _, p := range []parcelgate.ConsignmentParcel{p1, p2} {
			if len(p.TrackingCodes) != 1 || !strings.HasPrefix(p.TrackingCodes[0], "JJFI") || p.LabelURL == "" || p.DeliveryNoteURL == "" {
				t.Fatalf("parcel %s: codes %v label %q note %q", p.ParcelID, p.TrackingCodes, p.LabelURL, p.DeliveryNoteURL)
			}
			codes = append(codes, p.TrackingCodes...)
			// The supplier's token opens both documents: real PDFs.
			for _, link := range []string{p.LabelURL, p.DeliveryNoteURL} {
				r := x.open(x.supplier, link).Expect(200)
				if r.Header.Get("Content-Type") != "application/pdf" || !strings.HasPrefix(string(r.Body), "%PDF-") {
					t.Errorf("%s: %s %.10q", link, r.Header.Get("Content-Type"), r.Body)
				}
				// Another supplier's token, and the retailer's, find nothing
				// there (as a missing shipment).
				x.open(x.b, link).Expect(http.StatusNotFound)
				ghost := strings.Replace(link, s.ShipmentID, "NOSUCHSHIPMENT000000", 1)
				a, b := x.open(x.b, link).Map(), x.open(x.b, ghost).Map()
				delete(a, "timestamp")
				delete(b, "timestamp")
				ja, _ := json.Marshal(a)
				jb, _ := json.Marshal(b)
				if strings.ReplaceAll(string(ja), s.ShipmentID, "X") != strings.ReplaceAll(string(jb), "NOSUCHSHIPMENT000000", "X") {
					t.Errorf("another tenant's parcel %s differs from a missing one: %s / %s", link, ja, jb)
				}
				x.open(x.retailer, link).Expect(http.StatusForbidden)
			}
		}
		// GET answers the same links.
		var again parcelgate.DropshipShipment
		x.call(x.supplier, "GET", "/ecommerce/v3/shipments/"+s.ShipmentID, nil).Expect(200).JSON(&again)
		if again.Consignment.Parcels[1].LabelURL != p2.LabelURL {
			t.Errorf("GET parcel 2 label = %q", again.Consignment.Parcels[1].LabelURL)
		}
		// The retailer's order shows both codes, on the order and the row.
		o := x.getOrder(x.order.ID)
		if o.Status.Value != parcelgate.OrderDelivered || o.Rows[0].Status.Value != parcelgate.OrderDelivered ||
			!slices.Equal(o.TrackingCodes, codes) || !slices.Equal(o.Rows[0].TrackingCodes, codes) {
			t.Errorf("order: %v row %v codes %v / %v, want %v", o.Status.Value, o.Rows[0].Status.Value, o.TrackingCodes, o.Rows[0].TrackingCodes, codes)
		}
		// The 5 left with the parcels.
		if q, a := x.stockOf(exampleCatalog, exampleItem); q != 5 || a != 0 {
			t.Errorf("stock after delivery: %v/%v, want 5/0", q, a)
		}
		// Delivered is final: the same PUT again is 409.
		x.call(x.supplier, "PUT", "/ecommerce/v3/shipments/"+s.ShipmentID, splitExample).Expect(http.StatusConflict)
	})
}

// provider Shipments V3, confirm: "with client-supplied trackingCodes
// Glue makes no label (note only)" — the answer's parcel has the note's
// link and no label's; the label route refuses.
func TestShipmentConfirmOwnCodesNoteOnly(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		x := newExampleShop(t, e)
		var s parcelgate.DropshipShipment
		x.patch(x.supplier, x.shipment.ShipmentID, map[string]any{"status": status("Delivered"), "consignment": map[string]any{"parcels": []any{
			map[string]any{"parcelId": "1", "packageType": "PC", "ready": true, "trackingCodes": []any{"EXT000123"}, "rows": []any{
				map[string]any{"externalWarehouseId": exampleCatalog, "itemId": exampleItem, "deliveredQuantity": 5, "quantity": 5.0}}}}}}).Expect(200).JSON(&s)
		p := s.Consignment.Parcels[0]
		if !slices.Equal(p.TrackingCodes, []string{"EXT000123"}) || p.LabelURL != "" || p.DeliveryNoteURL == "" {
			t.Fatalf("parcel: %+v", p)
		}
		if r := x.open(x.supplier, p.DeliveryNoteURL).Expect(200); !strings.HasPrefix(string(r.Body), "%PDF-") {
			t.Errorf("note: %.10q", r.Body)
		}
		x.open(x.supplier, strings.TrimSuffix(p.DeliveryNoteURL, "/note")+"/label").Expect(http.StatusConflict)
		if o := x.getOrder(x.order.ID); !slices.Equal(o.TrackingCodes, []string{"EXT000123"}) {
			t.Errorf("order codes = %v", o.TrackingCodes)
		}
	})
}

// provider Shipments V3, fast confirm "makes labels, and returns the full
// shipment": its answer carries the parcel's label and note links.
func TestShipmentFastConfirmLinks(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		x := newExampleShop(t, e)
		var s parcelgate.DropshipShipment
		x.call(x.supplier, "POST", "/ecommerce/v3/shipments/"+x.shipment.ShipmentID+"/delivered", nil).Expect(200).JSON(&s)
		p := s.Consignment.Parcels[0]
		if len(p.TrackingCodes) != 1 || p.LabelURL == "" || p.DeliveryNoteURL == "" {
			t.Fatalf("parcel: %+v", p)
		}
		x.open(x.supplier, p.LabelURL).Expect(200)
	})
}

// decisions §38: a split's mistakes are 400 naming the field — an added
// parcel without its service, a status going backwards, an unknown parcel
// in a confirmation — and nothing of a refused request is applied: the
// shipment, the order and the stock are as before.
func TestShipmentSplitRefusals(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		x := newExampleShop(t, e)
		id := x.shipment.ShipmentID
		path := "/ecommerce/v3/shipments/" + id
		x.patch(x.supplier, id, map[string]any{"status": status("Packing")}).Expect(200)
		before := x.getOrder(x.order.ID)
		noService := strings.Replace(splitExample, `"serviceCode":"2103",`, "", 1)
		noPoint := strings.Replace(splitExample, `"pickupPointId":"002303200",`, "", 1)
		noRouting := strings.Replace(splitExample, `"routingServiceCode":"3200",`, "", 1)
		backwards := strings.Replace(splitExample, `"Delivered"`, `"Viewed"`, 1)
		tooMuch := strings.Replace(splitExample, `"deliveredQuantity":3`, `"deliveredQuantity":4`, 1)
		for _, c := range []struct {
			method, body, field string
		}{
			{"PUT", noService, "consignment.parcels[1].serviceCode"},
			{"PUT", noPoint, "consignment.parcels[1].pickupPointId"},
			{"PUT", noRouting, "consignment.parcels[1].routingServiceCode"},
			{"PUT", backwards, "status.value"},
			{"PUT", tooMuch, "consignment.parcels"},
			{"PATCH", `{"status":{"value":"Viewed"}}`, "status.value"},
			{"PATCH", `{"status":{"value":"Delivered"},"consignment":{"parcels":[{"parcelId":"2","rows":[{"itemId":"` + exampleItem + `","deliveredQuantity":5}]}]}}`, "consignment.parcels[0].parcelId"},
		} {
			r := x.call(x.supplier, c.method, path, c.body).Expect(http.StatusBadRequest)
			if !strings.Contains(string(r.Body), `"`+c.field+`"`) {
				t.Errorf("%s %s: %s, want field %s", c.method, c.body, r.Body, c.field)
			}
		}
		s := x.only(x.supplier)
		if s.Status.Value != parcelgate.DropshipPacking || len(s.Consignment.Parcels) != 1 || len(s.Consignment.Parcels[0].TrackingCodes) != 0 || s.Consignment.Rows[0].DeliveredQuantity != nil {
			t.Errorf("shipment after refusals: %+v", s)
		}
		after := x.getOrder(x.order.ID)
		if after.Status != before.Status || !after.Metadata.UpdateDate.Equal(before.Metadata.UpdateDate) || len(after.TrackingCodes) != 0 {
			t.Errorf("order after refusals: %+v, before %+v", after.Status, before.Status)
		}
		if q, a := x.stockOf(exampleCatalog, exampleItem); q != 5 || a != 5 {
			t.Errorf("stock after refusals: %v/%v, want 5/5", q, a)
		}
	})
}

// stockOf is the balance of product id in catalog as the retailer reads it.
func (d *dropship) stockOf(catalog, id string) (quantity, allocated float64) {
	d.T.Helper()
	var p struct{ Content []parcelgate.Balance }
	d.call(d.retailer, "GET", "/ecommerce/v3/catalogs/"+catalog+"/balances?productExternalId="+url.QueryEscape(id), nil).Expect(200).JSON(&p)
	if len(p.Content) != 1 {
		d.T.Fatalf("balance of %s in %s: %+v", id, catalog, p)
	}
	return float64(p.Content[0].Quantity), float64(p.Content[0].Allocated)
}

// provider Orders V3: "an order over several suppliers: rows keep their
// own statuses; the order is Partially delivered while some rows are
// delivered and others not" — here a supplier's row beside a row of the
// retailer's own warehouse (decisions §38: each part follows its own
// engine). The status shows through GET, the list's status filter and the
// change poll; the stock of each part moves exactly once.
func TestMixedOrderPartiallyDelivered(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		d := newDropship(t, e)
		e.Catalog(parcelgate.Test, retailerBID, "WH1", parcelgate.CatalogWarehouse, retailerBID)
		shop := e.EcomToken(parcelgate.Test, retailerBID, parcelgate.RoleMerchant)
		p := map[string]any{"externalId": retailerBID + "-OWN1", "descriptions": map[string]any{"en": map[string]any{"name": "Own mug"}}}
		d.call(shop, "PUT", "/ecommerce/v3/inventory", []any{map[string]any{"product": p, "balances": []any{
			map[string]any{"retailerId": retailerBID, "catalogExternalId": "WH1", "quantity": 10, "wholesalePrice": json.Number("4.00"), "currency": "EUR"}}}}).Expect(200)
		ownStock := func() (float64, float64) {
			t.Helper()
			var pg struct{ Content []parcelgate.Balance }
			d.call(shop, "GET", "/ecommerce/v3/catalogs/WH1/balances?productExternalId="+retailerBID+"-OWN1", nil).Expect(200).JSON(&pg)
			return float64(pg.Content[0].Quantity), float64(pg.Content[0].Allocated)
		}
		engine := fulfillment.New(sqlstore.NewOrderService(e.DB), e.Clock, slog.New(slog.NewTextHandler(io.Discard, nil)), fulfillment.Config{SubmitAfter: time.Minute, DeliverAfter: 2 * time.Minute})

		body := dropshipOrder("MX1", supplierABID+"-A1", 2)
		body["rows"] = append(body["rows"].([]any), map[string]any{"externalProductId": retailerBID + "-OWN1", "externalWarehouseId": "WH1", "quantity": 3})
		var o parcelgate.Order
		d.call(d.retailer, "PUT", "/ecommerce/v3/order", body).Expect(http.StatusOK).JSON(&o)
		if o.Status.Value != parcelgate.OrderCreated || o.Rows[0].SupplierID != supplierABID || o.Rows[1].SupplierID != "" || o.Rows[1].Status.Value != parcelgate.OrderCreated {
			t.Fatalf("mixed order: %v rows %+v", o.Status.Value, o.Rows)
		}
		if q, a := ownStock(); q != 7 || a != 3 {
			t.Errorf("own stock after the order: %v/%v, want 7/3", q, a)
		}
		if q, a := d.stock(supplierABID + "-A1"); q != 8 || a != 2 {
			t.Errorf("A1 after the order: %v/%v, want 8/2", q, a)
		}
		sa := d.only(d.a)
		if len(sa.Consignment.Rows) != 1 || sa.Consignment.Rows[0].ItemID != supplierABID+"-A1" {
			t.Fatalf("A's shipment holds the warehouse row too: %+v", sa.Consignment.Rows)
		}
		before := o.Metadata.UpdateDate

		// The warehouse engine moves the warehouse part.
		e.Clock.Advance(time.Minute)
		if n, err := engine.Step(t.Context()); err != nil || n != 1 {
			t.Fatalf("engine step: %d %v", n, err)
		}
		got := d.getOrder(o.ID)
		if got.Status.Value != parcelgate.OrderSubmitted || got.Rows[0].Status.Value != parcelgate.OrderCreated || got.Rows[1].Status.Value != parcelgate.OrderSubmitted {
			t.Errorf("after the warehouse took it: %v rows %v %v", got.Status.Value, got.Rows[0].Status.Value, got.Rows[1].Status.Value)
		}
		// The supplier delivers its row: Partially delivered.
		d.call(d.a, "POST", "/ecommerce/v3/shipments/"+sa.ShipmentID+"/delivered", nil).Expect(200)
		got = d.getOrder(o.ExternalID)
		if got.Status.Value != parcelgate.OrderPartiallyDelivered || got.Rows[0].Status.Value != parcelgate.OrderDelivered || got.Rows[1].Status.Value != parcelgate.OrderSubmitted {
			t.Fatalf("after the supplier: %v rows %v %v", got.Status.Value, got.Rows[0].Status.Value, got.Rows[1].Status.Value)
		}
		supplierCodes := got.TrackingCodes
		list := func(q string) []parcelgate.Order {
			t.Helper()
			var pg struct{ Content []parcelgate.Order }
			d.call(d.retailer, "GET", "/ecommerce/v3/orders?"+q, nil).Expect(200).JSON(&pg)
			return pg.Content
		}
		since := "updatedFrom=" + url.QueryEscape(before.Format(time.RFC3339Nano))
		if l := list("status=" + url.QueryEscape("Partially delivered")); len(l) != 1 || l[0].ID != o.ID {
			t.Errorf("filter Partially delivered: %+v", l)
		}
		if l := list("status=Submitted"); len(l) != 0 {
			t.Errorf("filter Submitted: %+v", l)
		}
		if l := list(since); len(l) != 1 || l[0].Status.Value != parcelgate.OrderPartiallyDelivered {
			t.Errorf("poll: %+v", l)
		}
		// Nor can the retailer cancel what is partly delivered.
		d.call(d.retailer, "DELETE", "/ecommerce/v3/orders/"+o.ID, nil).Expect(http.StatusConflict)

		// The warehouse delivers its part: Delivered, every code.
		e.Clock.Advance(2 * time.Minute)
		if n, err := engine.Step(t.Context()); err != nil || n != 1 {
			t.Fatalf("engine step: %d %v", n, err)
		}
		if n, _ := engine.Step(t.Context()); n != 0 {
			t.Fatalf("moved twice: %d", n)
		}
		got = d.getOrder(o.ID)
		if got.Status.Value != parcelgate.OrderDelivered || got.Rows[1].Status.Value != parcelgate.OrderDelivered || len(got.Rows[1].TrackingCodes) == 0 ||
			len(got.TrackingCodes) != len(supplierCodes)+len(got.Rows[1].TrackingCodes) || !slices.Equal(got.Rows[0].TrackingCodes, supplierCodes) {
			t.Errorf("delivered: %v rows %+v codes %v", got.Status.Value, got.Rows, got.TrackingCodes)
		}
		if l := list("status=Delivered"); len(l) != 1 || l[0].ID != o.ID {
			t.Errorf("filter Delivered: %+v", l)
		}
		if l := list("status=" + url.QueryEscape("Partially delivered")); len(l) != 0 {
			t.Errorf("filter Partially delivered after: %+v", l)
		}
		if l := list(since); len(l) != 1 || l[0].Status.Value != parcelgate.OrderDelivered {
			t.Errorf("poll after: %+v", l)
		}
		// Each part's stock left once: 3 own, 2 of A1.
		if q, a := ownStock(); q != 7 || a != 0 {
			t.Errorf("own stock delivered: %v/%v, want 7/0", q, a)
		}
		if q, a := d.stock(supplierABID + "-A1"); q != 8 || a != 0 {
			t.Errorf("A1 delivered: %v/%v, want 8/0", q, a)
		}
	})
}

// decisions §38: the retailer's cancellation of a mixed order ends both
// parts (the supplier's shipment and the warehouse part) and returns each
// part's stock once; the operator's move of a mixed order moves its
// warehouse part only.
func TestMixedOrderCancelAndOperator(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		d := newDropship(t, e)
		e.Catalog(parcelgate.Test, retailerBID, "WH1", parcelgate.CatalogWarehouse, retailerBID)
		shop := e.EcomToken(parcelgate.Test, retailerBID, parcelgate.RoleMerchant)
		p := map[string]any{"externalId": retailerBID + "-OWN1", "descriptions": map[string]any{"en": map[string]any{"name": "Own mug"}}}
		d.call(shop, "PUT", "/ecommerce/v3/inventory", []any{map[string]any{"product": p, "balances": []any{
			map[string]any{"retailerId": retailerBID, "catalogExternalId": "WH1", "quantity": 10, "wholesalePrice": json.Number("4.00"), "currency": "EUR"}}}}).Expect(200)
		place := func(own string) parcelgate.Order {
			body := dropshipOrder(own, supplierBBID+"-B1", 4)
			body["rows"] = append(body["rows"].([]any), map[string]any{"externalProductId": retailerBID + "-OWN1", "externalWarehouseId": "WH1", "quantity": 1})
			var o parcelgate.Order
			d.call(d.retailer, "PUT", "/ecommerce/v3/order", body).Expect(http.StatusOK).JSON(&o)
			return o
		}
		o := place("MX2")
		var got parcelgate.Order
		d.call(d.retailer, "DELETE", "/ecommerce/v3/orders/"+o.ID, nil).Expect(200).JSON(&got)
		if got.Status.Value != parcelgate.OrderCancelled || got.Rows[0].Status.Value != parcelgate.OrderCancelled || got.Rows[1].Status.Value != parcelgate.OrderCancelled {
			t.Errorf("cancelled: %v rows %v %v", got.Status.Value, got.Rows[0].Status.Value, got.Rows[1].Status.Value)
		}
		if s := d.only(d.b); s.Status.Value != parcelgate.DropshipCancelled {
			t.Errorf("B's shipment: %v", s.Status.Value)
		}
		if q, a := d.stock(supplierBBID + "-B1"); q != 20 || a != 0 {
			t.Errorf("B1: %v/%v, want 20/0", q, a)
		}
		// The operator moves the warehouse part of another: Delivered
		// there, the supplier's row still open.
		o = place("MX3")
		e.Admin("POST", "/admin/v1/orders/status", map[string]any{"environment": "test", "businessId": retailerBID, "externalId": o.ExternalID, "value": "Submitted"}).Expect(200)
		e.Admin("POST", "/admin/v1/orders/status", map[string]any{"environment": "test", "businessId": retailerBID, "externalId": o.ExternalID, "value": "Delivered"}).Expect(200)
		got = d.getOrder(o.ID)
		if got.Status.Value != parcelgate.OrderPartiallyDelivered || got.Rows[0].Status.Value != parcelgate.OrderCreated || got.Rows[1].Status.Value != parcelgate.OrderDelivered {
			t.Errorf("operator delivered the warehouse part: %v rows %v %v", got.Status.Value, got.Rows[0].Status.Value, got.Rows[1].Status.Value)
		}
		e.Admin("POST", "/admin/v1/orders/status", map[string]any{"environment": "test", "businessId": retailerBID, "externalId": o.ExternalID, "value": "Partially delivered"}).Expect(400)
	})
}

// decisions §38 (INVENTED bodies; the provider lists POST …/events and
// GET …/options without them): a supplier's events are kept in order,
// shown to it and to the retailer, a retry by externalId answers 200
// unchanged, every mistake is 400 naming its field and nothing of it is
// kept; options list the services the shipment may switch to; another
// tenant's shipment answers both exactly as a missing one.
func TestShipmentEventsAndOptions(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		x := newExampleShop(t, e)
		id := x.shipment.ShipmentID
		events := "/ecommerce/v3/shipments/" + id + "/events"
		ev := map[string]any{"externalId": "ev-1", "code": "HANDED_TO_CARRIER", "description": "Collected from our dock", "parcelId": "1", "location": "Vantaa"}
		var s parcelgate.DropshipShipment
		x.call(x.supplier, "POST", events, ev).Expect(http.StatusCreated).JSON(&s)
		if len(s.Events) != 1 || s.Events[0].Code != "HANDED_TO_CARRIER" || s.Events[0].ID != "1" || s.Events[0].Timestamp.IsZero() {
			t.Fatalf("event: %+v", s.Events)
		}
		x.call(x.supplier, "POST", events, ev).Expect(http.StatusOK).JSON(&s)
		if len(s.Events) != 1 {
			t.Errorf("a retry added an event: %+v", s.Events)
		}
		x.call(x.supplier, "POST", events, map[string]any{"code": "DELAYED", "timestamp": "2020-01-01T10:00:00Z"}).Expect(http.StatusCreated).JSON(&s)
		if len(s.Events) != 2 || s.Events[1].ID != "2" || !s.Events[1].Timestamp.Equal(time.Date(2020, 1, 1, 10, 0, 0, 0, time.UTC)) {
			t.Errorf("second event: %+v", s.Events)
		}
		for field, body := range map[string]any{
			"code":        map[string]any{"description": "no code"},
			"parcelId":    map[string]any{"code": "X", "parcelId": "9"},
			"timestamp":   map[string]any{"code": "X", "timestamp": "yesterday"},
			"description": map[string]any{"code": "X", "description": strings.Repeat("d", 501)},
			"(body)":      "[]",
		} {
			r := x.call(x.supplier, "POST", events, body).Expect(http.StatusBadRequest)
			if !strings.Contains(string(r.Body), `"`+field+`"`) {
				t.Errorf("%s: %s", field, r.Body)
			}
		}
		x.call(x.supplier, "POST", events, map[string]any{"code": "X", "timestamp": "2999-01-01T00:00:00Z"}).Expect(http.StatusBadRequest)
		// The supplier's poll and the retailer see them; refusals kept nothing.
		if got := x.only(x.supplier); len(got.Events) != 2 {
			t.Errorf("shipment events: %+v", got.Events)
		}
		var list struct{ Content []parcelgate.DropshipShipment }
		x.call(x.retailer, "GET", "/ecommerce/v3/orders/"+x.order.ID+"/shipments", nil).Expect(200).JSON(&list)
		if len(list.Content) != 1 || len(list.Content[0].Events) != 2 {
			t.Errorf("retailer's view: %+v", list.Content)
		}

		var o parcelgate.DropshipOptions
		x.call(x.supplier, "GET", "/ecommerce/v3/shipments/"+id+"/options", nil).Expect(200).JSON(&o)
		at := slices.IndexFunc(o.Options, func(d parcelgate.DeliveryOption) bool {
			return d.ServiceCode == "2103" && d.DeliveryOperator == "Posti"
		})
		if !o.Open || o.DeliveryCountry != "FI" || at < 0 || !o.Options[at].PickupPoint || !slices.Equal(o.Options[at].Parcels, []string{"1"}) {
			t.Fatalf("options: %+v", o)
		}
		if !slices.ContainsFunc(o.Options, func(d parcelgate.DeliveryOption) bool {
			return d.ServiceCode == "PO2104" && d.DeliveryOperator == "Unifaun"
		}) {
			t.Errorf("no Unifaun option: %+v", o.Options)
		}
		// An option is what a confirmation may switch to.
		x.patch(x.supplier, id, map[string]any{"status": status("Delivered"), "consignment": map[string]any{"parcels": []any{
			map[string]any{"parcelId": "1", "serviceCode": "2104", "deliveryOperator": "Posti", "rows": []any{map[string]any{"itemId": exampleItem, "deliveredQuantity": 5}}}}}}).Expect(200).JSON(&s)
		if s.Consignment.Parcels[0].ServiceCode != "2104" {
			t.Errorf("switched: %+v", s.Consignment.Parcels[0])
		}
		x.call(x.supplier, "GET", "/ecommerce/v3/shipments/"+id+"/options", nil).Expect(200).JSON(&o)
		if o.Open || len(o.Options) != 0 {
			t.Errorf("options of a final shipment: %+v", o)
		}
		// Events after delivery are kept (Delivered = dispatched).
		x.call(x.supplier, "POST", events, map[string]any{"code": "IN_TRANSIT"}).Expect(http.StatusCreated)

		// Another tenant: as a missing shipment.
		for _, c := range []struct {
			method, path string
			body         any
		}{{"POST", events, map[string]any{"code": "X"}}, {"GET", "/ecommerce/v3/shipments/" + id + "/options", nil}} {
			r := x.call(x.b, c.method, c.path, c.body).Expect(http.StatusNotFound)
			ghost := x.call(x.b, c.method, strings.Replace(c.path, id, "NOSUCHSHIPMENT000000", 1), c.body).Expect(http.StatusNotFound)
			a, b := r.Map(), ghost.Map()
			delete(a, "timestamp")
			delete(b, "timestamp")
			ja, _ := json.Marshal(a)
			jb, _ := json.Marshal(b)
			if strings.ReplaceAll(string(ja), id, "X") != strings.ReplaceAll(string(jb), "NOSUCHSHIPMENT000000", "X") {
				t.Errorf("%s %s: %s differs from a missing one's %s", c.method, c.path, ja, jb)
			}
			x.call(x.retailer, c.method, c.path, c.body).Expect(http.StatusForbidden)
		}
	})
}

// decisions §38, races: the warehouse engine delivering the warehouse
// part while the supplier confirms its shipment, and the retailer
// cancelling while the supplier confirms, leave one consistent order and
// stock that moved exactly once.
func TestMixedOrderRaces(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		d := newDropship(t, e)
		e.Catalog(parcelgate.Test, retailerBID, "WH1", parcelgate.CatalogWarehouse, retailerBID)
		shop := e.EcomToken(parcelgate.Test, retailerBID, parcelgate.RoleMerchant)
		p := map[string]any{"externalId": retailerBID + "-OWN1", "descriptions": map[string]any{"en": map[string]any{"name": "Own mug"}}}
		d.call(shop, "PUT", "/ecommerce/v3/inventory", []any{map[string]any{"product": p, "balances": []any{
			map[string]any{"retailerId": retailerBID, "catalogExternalId": "WH1", "quantity": 20, "wholesalePrice": json.Number("4.00"), "currency": "EUR"}}}}).Expect(200)
		ownStock := func() (float64, float64) {
			t.Helper()
			var pg struct{ Content []parcelgate.Balance }
			d.call(shop, "GET", "/ecommerce/v3/catalogs/WH1/balances?productExternalId="+retailerBID+"-OWN1", nil).Expect(200).JSON(&pg)
			return float64(pg.Content[0].Quantity), float64(pg.Content[0].Allocated)
		}
		engine := fulfillment.New(sqlstore.NewOrderService(e.DB), e.Clock, slog.New(slog.NewTextHandler(io.Discard, nil)), fulfillment.Config{SubmitAfter: time.Minute, DeliverAfter: time.Minute})
		place := func(own string) parcelgate.Order {
			body := dropshipOrder(own, supplierBBID+"-B1", 1)
			body["rows"] = append(body["rows"].([]any), map[string]any{"externalProductId": retailerBID + "-OWN1", "externalWarehouseId": "WH1", "quantity": 1})
			var o parcelgate.Order
			d.call(d.retailer, "PUT", "/ecommerce/v3/order", body).Expect(http.StatusOK).JSON(&o)
			return o
		}
		for round := range 3 {
			o := place("RA" + string(rune('0'+round)))
			sb := d.shipments(d.b, "?status=Created").Content[0]
			e.Clock.Advance(time.Minute)
			if n, err := engine.Step(t.Context()); err != nil || n != 1 {
				t.Fatalf("submit: %d %v", n, err)
			}
			e.Clock.Advance(time.Minute)
			var wg sync.WaitGroup
			var confirm int
			var stepErr error
			wg.Go(func() { _, stepErr = engine.Step(t.Context()) })
			wg.Go(func() {
				confirm = d.call(d.b, "POST", "/ecommerce/v3/shipments/"+sb.ShipmentID+"/delivered", nil).Status
			})
			wg.Wait()
			if stepErr != nil || confirm != 200 {
				t.Fatalf("round %d: engine %v, confirm %d", round, stepErr, confirm)
			}
			if got := d.getOrder(o.ID); got.Status.Value != parcelgate.OrderDelivered || len(got.TrackingCodes) < 2 {
				t.Errorf("round %d: %v codes %v", round, got.Status.Value, got.TrackingCodes)
			}
		}
		if q, a := ownStock(); q != 17 || a != 0 {
			t.Errorf("own stock after 3 delivered: %v/%v", q, a)
		}
		// Cancellation racing a confirmation: exactly one wins.
		for round := range 3 {
			o := place("RB" + string(rune('0'+round)))
			sb := d.shipments(d.b, "?status=Created").Content[0]
			var wg sync.WaitGroup
			var confirm, cancel int
			wg.Go(func() {
				confirm = d.call(d.b, "POST", "/ecommerce/v3/shipments/"+sb.ShipmentID+"/delivered", nil).Status
			})
			wg.Go(func() { cancel = d.call(d.retailer, "DELETE", "/ecommerce/v3/orders/"+o.ID, nil).Status })
			wg.Wait()
			got := d.getOrder(o.ID)
			switch {
			case confirm == 200 && cancel == http.StatusConflict:
				if got.Status.Value != parcelgate.OrderPartiallyDelivered {
					t.Errorf("confirm won: %v", got.Status.Value)
				}
				// The warehouse part is still the engine's: cancel it by hand.
				e.Admin("POST", "/admin/v1/orders/status", map[string]any{"environment": "test", "businessId": retailerBID, "externalId": o.ExternalID, "value": "Cancelled"}).Expect(200)
			case cancel == 200 && confirm == http.StatusConflict:
				if got.Status.Value != parcelgate.OrderCancelled {
					t.Errorf("cancel won: %v", got.Status.Value)
				}
			default:
				t.Errorf("confirm %d, cancel %d", confirm, cancel)
			}
		}
		// Every warehouse row of the RB orders came back; B1's delivered left.
		if q, a := ownStock(); q != 17 || a != 0 {
			t.Errorf("own stock after the cancellations: %v/%v, want 17/0", q, a)
		}
		var delivered float64
		for _, s := range d.shipments(d.b, "?status=Delivered").Content {
			delivered += float64(*s.Consignment.Rows[0].DeliveredQuantity)
		}
		if q, a := d.stock(supplierBBID + "-B1"); q != 20-delivered || a != 0 {
			t.Errorf("B1: %v/%v, want %v/0", q, a, 20-delivered)
		}
	})
}
