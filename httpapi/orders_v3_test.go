package httpapi_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

// eanRow is an order row of quantity 1 in WH1 naming its product by id
// and/or ean ("" leaves the member out).
func eanRow(id, ean string) map[string]any {
	row := map[string]any{"externalWarehouseId": "WH1", "quantity": 1}
	if id != "" {
		row["externalProductId"] = id
	}
	if ean != "" {
		row["productEANCode"] = ean
	}
	return row
}

// withRows is m's order own with rows instead of its one row.
func (m *merchant) withRows(own string, rows ...any) map[string]any {
	b := m.orderBody(own, 1)
	b["rows"] = rows
	return b
}

// badFields lists the fields an ecom 400 names.
func badFields(t *testing.T, r *apitest.Response) []string {
	t.Helper()
	var eb httpapi.EcomError
	r.Expect(http.StatusBadRequest).JSON(&eb)
	var fs []string
	for _, f := range eb.Errors {
		fs = append(fs, f.Field)
	}
	return fs
}

// provider Orders V3: a row names its product by externalProductId or
// productEANCode; the EAN finds the product among the merchant's own (its
// warehouse's), and the order is allocated as by ID. When both are given
// and they contradict, the order is rejected naming the row.
func TestOrderRowsByEAN(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		m := newMerchant(t, e, parcelgate.Production, merchantBID)
		m.stock("E1", "WH1", 10, "4.00", "eanCode", "6410000000011")
		m.stock("E2", "WH1", 10, "5.00", "eanCode", "6410000000028")

		// provider Orders V3: a row by productEANCode only.
		o := m.create(m.withRows("N1", eanRow("", "6410000000011")))
		if o.Status.Value != parcelgate.OrderCreated || o.Rows[0].ExternalProductID != merchantBID+"-E1" || o.Rows[0].ProductEANCode != "6410000000011" || o.Rows[0].WholesalePrice != 4 {
			t.Fatalf("a row by EAN: %+v %+v", o.Status, o.Rows[0])
		}
		if b := m.balance("E1"); b.Quantity != 9 || b.Allocated != 1 {
			t.Fatalf("the EAN's product was not allocated: %+v", b)
		}
		// A re-send of the same body is a retry, not new content.
		if again := m.create(m.withRows("N1", eanRow("", "6410000000011"))); again.ID != o.ID || !again.Metadata.UpdateDate.Equal(o.Metadata.UpdateDate) {
			t.Fatalf("re-send by EAN: %+v", again.Metadata)
		}
		// Both, agreeing (the ID bare or prefixed).
		for i, id := range []string{"E2", merchantBID + "-E2"} {
			if got := m.create(m.withRows("B"+string(rune('1'+i)), eanRow(id, "6410000000028"))); got.Status.Value != parcelgate.OrderCreated {
				t.Fatalf("ID %s and its EAN: %+v", id, got.Status)
			}
		}
		// provider Orders V3: both, contradicting — the EAN is another
		// product's, or the product has another EAN — is 400 naming the row.
		for name, row := range map[string]map[string]any{
			"EAN of another product":   eanRow(merchantBID+"-E1", "6410000000028"),
			"EAN the product has not":  eanRow("E1", "6419999999999"),
			"unknown ID, known EAN":    eanRow("NOSUCH", "6410000000011"),
			"product without EAN, EAN": eanRow("P1", "6410000000011"),
		} {
			if fs := badFields(t, m.do("PUT", "/ecommerce/v3/order", m.withRows("C1", eanRow("P2", ""), row))); !slices.Equal(fs, []string{"rows[1].productEANCode"}) {
				t.Errorf("%s: fields %v", name, fs)
			}
		}
		// A product without an EAN takes an EAN no other product has.
		if got := m.create(m.withRows("C2", eanRow("P1", "6417777777777"))); got.Status.Value != parcelgate.OrderCreated {
			t.Errorf("P1 (no EAN) with an unknown EAN: %+v", got.Status)
		}
		// An EAN no product has follows the rule of an unknown product:
		// the order is stored in Error, with the reason.
		u := m.create(m.withRows("U1", eanRow("", "6418888888888")))
		if u.Status.Value != parcelgate.OrderError || !strings.Contains(u.Status.Reason, "EAN 6418888888888") || u.Rows[0].ExternalProductID != "" {
			t.Fatalf("unknown EAN: %+v %+v", u.Status, u.Rows[0])
		}
		// ... and sent again once the product exists, it is allocated.
		m.stock("E3", "WH1", 5, "1.00", "eanCode", "6418888888888")
		var re parcelgate.Order
		m.do("POST", "/ecommerce/v3/orders/"+u.ID, nil).Expect(http.StatusOK).JSON(&re)
		if re.Status.Value != parcelgate.OrderCreated || re.Rows[0].ExternalProductID != merchantBID+"-E3" {
			t.Fatalf("reopened: %+v %+v", re.Status, re.Rows[0])
		}
		// An EAN of two products of the warehouse names neither: 400.
		m.stock("E4", "WH1", 5, "1.00", "eanCode", "6410000000011")
		if fs := badFields(t, m.do("PUT", "/ecommerce/v3/order", m.withRows("A1", eanRow("", "6410000000011")))); !slices.Equal(fs, []string{"rows[0].productEANCode"}) {
			t.Errorf("ambiguous EAN: %v", fs)
		}
		// A row with neither is 400 naming externalProductId.
		if fs := badFields(t, m.do("PUT", "/ecommerce/v3/order", m.withRows("X1", eanRow("", "")))); !slices.Equal(fs, []string{"rows[0].externalProductId"}) {
			t.Errorf("no product: %v", fs)
		}
	})
}

// provider Orders V3: one row per product. A second row of a product —
// by the same ID (bare or prefixed), the same EAN, or an EAN that is the
// product of an earlier row — is 400 naming that second row, and nothing
// is stored or allocated (decisions §51; §7 summed such rows on the
// product's one balance, which the provider's page does not allow). The
// warehouse plugin's rows, each its own product with the shop's one EAN
// on every row, pass.
func TestOrderOneRowPerProduct(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		m := newMerchant(t, e, parcelgate.Production, merchantBID)
		m.stock("E1", "WH1", 10, "4.00", "eanCode", "6410000000011")
		for name, c := range map[string]struct {
			rows  []any
			field string
		}{
			"the same ID":       {[]any{eanRow("E1", ""), eanRow("P1", ""), eanRow("E1", "")}, "rows[2].externalProductId"},
			"bare and prefixed": {[]any{eanRow(merchantBID+"-E1", ""), eanRow("E1", "")}, "rows[1].externalProductId"},
			"the same EAN":      {[]any{eanRow("", "6410000000011"), eanRow("", "6410000000011")}, "rows[1].productEANCode"},
			"ID, then its EAN":  {[]any{eanRow("E1", ""), eanRow("", "6410000000011")}, "rows[1].productEANCode"},
			"EAN, then its ID":  {[]any{eanRow("", "6410000000011"), eanRow("E1", "")}, "rows[1].externalProductId"},
		} {
			if fs := badFields(t, m.do("PUT", "/ecommerce/v3/order", m.withRows("D1", c.rows...))); !slices.Equal(fs, []string{c.field}) {
				t.Errorf("%s: fields %v, want %s", name, fs, c.field)
			}
		}
		if b := m.balance("E1"); b.Quantity != 10 || b.Allocated != 0 {
			t.Fatalf("a refused order allocated stock: %+v", b)
		}
		m.do("GET", "/ecommerce/v3/orders/D1", nil).Expect(http.StatusNotFound)
		// Different products sharing an EAN on their rows (the plugin).
		if o := m.create(m.withRows("D2", eanRow("E1", ""), eanRow("P1", "6400000000017"), eanRow("P2", "6400000000017"))); o.Status.Value == "" || len(o.Rows) != 3 {
			t.Fatalf("distinct products: %+v", o)
		}
	})
}

// provider Orders V3, decisions §3: an EAN is looked up among the caller's
// products only; another merchant's product with that EAN is not found
// (the order is in Error like for an unknown product) and keeps its stock,
// and the same merchant in the other environment is another tenant.
func TestOrderRowsByEANCrossTenant(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		m := newMerchant(t, e, parcelgate.Production, merchantBID)
		other := newMerchant(t, e, parcelgate.Production, "7654321-2")
		other.stock("Q1", "WH1", 10, "1.00", "eanCode", "6415555555555")
		sameInTest := newMerchant(t, e, parcelgate.Test, merchantBID)
		sameInTest.stock("Q2", "WH1", 10, "1.00", "eanCode", "6416666666666")
		for _, ean := range []string{"6415555555555", "6416666666666"} {
			o := m.create(m.withRows("X"+ean[9:], eanRow("", ean)))
			if o.Status.Value != parcelgate.OrderError || o.Rows[0].ExternalProductID != "" {
				t.Errorf("another tenant's EAN %s found: %+v %+v", ean, o.Status, o.Rows[0])
			}
		}
		if b := other.balance("Q1"); b.Quantity != 10 || b.Allocated != 0 {
			t.Errorf("another merchant's stock moved: %+v", b)
		}
		if b := sameInTest.balance("Q2"); b.Quantity != 10 || b.Allocated != 0 {
			t.Errorf("the test environment's stock moved: %+v", b)
		}
	})
}

// provider Orders V3 and Shipments V3: a retailer's row by EAN in a
// dropshipping catalog finds the supplier's product published there; the
// row names it with the supplier's business ID and goes to its shipment.
func TestDropshipRowByEAN(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		d := newDropship(t, e)
		p := map[string]any{"externalId": supplierABID + "-A3", "eanCode": "6412222222222", "descriptions": map[string]any{"en": map[string]any{"name": "A3"}}}
		d.call(d.a, "PUT", "/ecommerce/v3/inventory", []any{map[string]any{"product": p, "balances": []any{
			map[string]any{"retailerId": retailerBID, "catalogExternalId": "DROP", "quantity": 4, "wholesalePrice": json.Number("2.00"), "currency": "EUR"}}}}).Expect(200)
		body := dropshipOrder("DE1", supplierBBID+"-B1", 1)
		body["rows"] = append(body["rows"].([]any), map[string]any{"productEANCode": "6412222222222", "externalWarehouseId": "DROP", "quantity": 2})
		var o parcelgate.Order
		d.call(d.retailer, "PUT", "/ecommerce/v3/order", body).Expect(http.StatusOK).JSON(&o)
		if o.Status.Value != parcelgate.OrderCreated || o.Rows[1].ExternalProductID != supplierABID+"-A3" || o.Rows[1].SupplierID != supplierABID {
			t.Fatalf("dropship row by EAN: %+v %+v", o.Status, o.Rows[1])
		}
		if q, a := d.stock(supplierABID + "-A3"); q != 2 || a != 2 {
			t.Errorf("A3: %v/%v, want 2/2", q, a)
		}
		if s := d.only(d.a); len(s.Consignment.Rows) != 1 || s.Consignment.Rows[0].ProductEANCode != "6412222222222" {
			t.Errorf("A's shipment: %+v", s.Consignment.Rows)
		}
	})
}

// provider Orders V3 list filters: from/to on orderDate (Zulu time; from
// inclusive, to exclusive, decisions §37), documentType, status with every
// status parcelgate sets (a comma list too), each combined with the others
// and with paging; another tenant's orders never appear.
func TestOrderListV3Filters(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		m := newMerchant(t, e, parcelgate.Production, merchantBID)
		dated := func(own, date string) parcelgate.Order {
			b := m.orderBody(own, 1)
			b["orderDate"] = date
			return m.create(b)
		}
		o1 := dated("D1", "2021-09-07T13:01:22.282Z")
		o2 := dated("D2", "2021-09-08T10:00:00+03:00") // 07:00Z
		o3 := dated("D3", "2021-09-09T00:00:00Z")
		o4 := dated("D4", "2021-09-07T13:01:22.281Z") // a millisecond before o1
		m.setStatus(o2.ExternalID, "Submitted").Expect(200)
		// Another tenant's orders of the same dates, in every status.
		other := newMerchant(t, e, parcelgate.Production, "7654321-2")
		for _, own := range []string{"D1", "D2"} {
			b := other.orderBody(own, 1)
			b["orderDate"] = "2021-09-08T00:00:00Z"
			other.create(b)
		}
		other.setStatus("7654321-2-D2", "Submitted").Expect(200)

		ids := func(q string) []string {
			t.Helper()
			var p httpapi.Page[parcelgate.Order]
			m.do("GET", "/ecommerce/v3/orders?"+q, nil).Expect(200).JSON(&p)
			if int(p.Page.TotalElements) != len(p.Content) {
				t.Fatalf("%s: total %d, %d on the page", q, p.Page.TotalElements, len(p.Content))
			}
			var out []string
			for _, o := range p.Content {
				out = append(out, strings.TrimPrefix(o.ExternalID, merchantBID+"-"))
			}
			slices.Sort(out)
			return out
		}
		for q, want := range map[string][]string{
			// provider Orders V3: from/to select by orderDate.
			"from=2021-09-07T13:01:22.282Z":                                    {"D1", "D2", "D3"},
			"to=2021-09-09T00:00:00Z":                                          {"D1", "D2", "D4"},
			"from=2021-09-07T13:01:22.282Z&to=2021-09-09T00:00:00Z":            {"D1", "D2"},
			"from=" + url.QueryEscape("2021-09-08T09:00:00+02:00"):             {"D2", "D3"}, // 07:00Z: from is inclusive
			"from=2021-09-08T07:00:00Z&to=2021-09-08T07:00:00.000001Z":         {"D2"},
			"from=2021-09-07T00:00:00Z&status=Submitted":                       {"D2"},
			"from=2021-09-07T00:00:00Z&status=Created&warehouseExternalId=WH1": {"D1", "D3", "D4"},
			"from=2021-09-07T00:00:00Z&refName=SO&refValue=SO-D3":              {"D3"},
			// documentType: every order is a sales order.
			"documentType=SalesOrder":                         {"D1", "D2", "D3", "D4"},
			"documentType=salesorder&to=2021-09-08T00:00:00Z": {"D1", "D4"},
			"documentType=PurchaseOrder":                      nil,
			// provider Shipments/Orders V3: a comma list, Viewed for Submitted.
			"status=Created,Viewed":                {"D1", "D2", "D3", "D4"},
			"status=Viewed":                        {"D2"},
			"status=Created&status=Submitted":      {"D1", "D2", "D3", "D4"},
			"status=Partially%20delivered":         nil,
			"status=Partially+delivered,Delivered": nil,
			"status=Routed":                        nil,
		} {
			if got := ids(q); !slices.Equal(got, want) {
				t.Errorf("%s: %v, want %v", q, got, want)
			}
		}
		// Paging of a filtered list keeps its contract: next links carry
		// the filter, every order once, totals of the filter.
		var p httpapi.Page[parcelgate.Order]
		m.do("GET", "/v3/orders?from=2021-09-07T00:00:00Z&size=2", nil).Expect(200).JSON(&p)
		seen := map[string]bool{}
		for {
			if p.Page.TotalElements != 4 {
				t.Fatalf("filtered total %d", p.Page.TotalElements)
			}
			for _, o := range p.Content {
				seen[o.ID] = true
			}
			next := ""
			for _, l := range p.Links {
				if l.Rel == "next" {
					next = l.Href
				}
			}
			if next == "" {
				break
			}
			u, _ := url.Parse(next)
			if u.Query().Get("from") == "" {
				t.Fatalf("the next link lost the filter: %s", next)
			}
			p = httpapi.Page[parcelgate.Order]{}
			m.do("GET", "/ecommerce/v3/orders?"+u.RawQuery, nil).Expect(200).JSON(&p)
		}
		if len(seen) != 4 || !seen[o1.ID] || !seen[o3.ID] || !seen[o4.ID] {
			t.Errorf("paged %d orders", len(seen))
		}
	})
}

// decisions §37: filters are never silently ignored: a value that is none
// of its parameter's, or a filter given twice, is 400 naming the
// parameter, in the ecom error shape.
func TestOrderListV3BadFilters(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		m := newMerchant(t, e, parcelgate.Production, merchantBID)
		for q, field := range map[string]string{
			"from=2021-09-07":         "from",
			"from=yesterday":          "from",
			"to=2021-13-01T00:00:00Z": "to",
			"from=2021-09-08T00:00:00Z&to=2021-09-07T00:00:00Z":   "to",
			"from=2021-09-08T00:00:00Z&to=2021-09-08T00:00:00Z":   "to",
			"documentType=Invoice":                                "documentType",
			"status=Shipped":                                      "status",
			"status=Created,":                                     "status",
			"status=Partiallydelivered":                           "status",
			"from=2021-09-07T00:00:00Z&from=2021-09-08T00:00:00Z": "from",
			"documentType=SalesOrder&documentType=PurchaseOrder":  "documentType",
			"warehouseExternalId=WH1&warehouseExternalId=WH2":     "warehouseExternalId",
		} {
			var eb httpapi.EcomError
			m.do("GET", "/ecommerce/v3/orders?"+q, nil).Expect(http.StatusBadRequest).JSON(&eb)
			if eb.Status != 400 || len(eb.Errors) == 0 || eb.Errors[0].Field != field || eb.Errors[0].Message == "" || eb.Path != "/ecommerce/v3/orders" {
				t.Errorf("%s: %+v, want a problem of %s", q, eb, field)
			}
		}
		// Every problem at once.
		var eb httpapi.EcomError
		m.do("GET", "/v3/orders?from=x&to=y&documentType=z&status=w", nil).Expect(http.StatusBadRequest).JSON(&eb)
		var fs []string
		for _, f := range eb.Errors {
			fs = append(fs, f.Field)
		}
		if !slices.Equal(fs, []string{"from", "to", "documentType", "status"}) {
			t.Errorf("problems %v", fs)
		}
	})
}

// provider Orders V3: "Partially delivered" is an order status a retailer
// filters by; an order split between two suppliers, one of which has
// delivered, is found by it (decisions §34).
func TestOrderListPartiallyDelivered(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		d := newDropship(t, e)
		part := d.order("PD1", supplierABID+"-A1", 1, supplierBBID+"-B1", 1)
		open := d.order("PD2", supplierABID+"-A2", 1)
		for _, s := range d.shipments(d.a, "").Content {
			if s.Consignment.Rows[0].ItemID == supplierABID+"-A1" {
				d.call(d.a, "POST", "/ecommerce/v3/shipments/"+s.ShipmentID+"/delivered", nil).Expect(200)
			}
		}
		if got := d.getOrder(part.ID); got.Status.Value != parcelgate.OrderPartiallyDelivered {
			t.Fatalf("the split order is %s", got.Status.Value)
		}
		for q, want := range map[string][]string{
			"status=Partially%20delivered":                                   {part.ID},
			"status=partially+delivered":                                     {part.ID},
			"status=Created,Partially%20delivered&from=2000-01-01T00:00:00Z": {part.ID, open.ID},
			"status=Delivered":                                               nil,
		} {
			var p httpapi.Page[parcelgate.Order]
			d.call(d.retailer, "GET", "/ecommerce/v3/orders?"+q, nil).Expect(200).JSON(&p)
			var got []string
			for _, o := range p.Content {
				got = append(got, o.ID)
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("%s: %v, want %v", q, got, want)
			}
		}
	})
}
