package parcelgate

import (
	"slices"
	"testing"
	"time"
)

// provider Orders V3: a row names its product by externalProductId or
// productEANCode; both must name one product (decisions §37).
func TestResolveRowProducts(t *testing.T) {
	const supplier = "7654321-2"
	found := []RowProduct{
		{Catalog: "WH1", SupplierID: testBID, ExternalID: "E1", EAN: "111"},
		{Catalog: "WH1", SupplierID: testBID, ExternalID: testBID + "-E2", EAN: "222"},
		{Catalog: "WH1", SupplierID: testBID, ExternalID: "P1"},
		{Catalog: "WH1", SupplierID: testBID, ExternalID: "D1", EAN: "999"},
		{Catalog: "WH1", SupplierID: testBID, ExternalID: "D2", EAN: "999"},
		{Catalog: "WH2", SupplierID: testBID, ExternalID: "W2", EAN: "333"},
		{Catalog: "DROP", SupplierID: supplier, ExternalID: "A3", EAN: "444"},
	}
	for _, c := range []struct {
		name, id, ean, wh string
		wantID, field     string
	}{
		{name: "by EAN", ean: "111", wh: "WH1", wantID: "E1"},
		{name: "by EAN, stored prefixed", ean: "222", wh: "WH1", wantID: testBID + "-E2"},
		{name: "by EAN of another warehouse: unknown", ean: "333", wh: "WH1"},
		{name: "unknown EAN", ean: "555", wh: "WH1"},
		{name: "EAN of two products", ean: "999", wh: "WH1", field: "rows[0].productEANCode"},
		{name: "ID and its EAN", id: "E1", ean: "111", wh: "WH1", wantID: "E1"},
		{name: "prefixed ID and its EAN", id: testBID + "-E1", ean: "111", wh: "WH1", wantID: testBID + "-E1"},
		{name: "bare ID of a prefixed product", id: "E2", ean: "222", wh: "WH1", wantID: "E2"},
		{name: "ID and another's EAN", id: "E1", ean: "222", wh: "WH1", field: "rows[0].productEANCode"},
		{name: "ID with an EAN it has not", id: "E1", ean: "555", wh: "WH1", field: "rows[0].productEANCode"},
		{name: "unknown ID with a known EAN", id: "X9", ean: "111", wh: "WH1", field: "rows[0].productEANCode"},
		{name: "product without EAN, unknown EAN", id: "P1", ean: "555", wh: "WH1", wantID: "P1"},
		{name: "ID among several of the EAN", id: "D2", ean: "999", wh: "WH1", wantID: "D2"},
		{name: "dropship by EAN: the supplier's prefix", ean: "444", wh: "DROP", wantID: supplier + "-A3"},
		{name: "dropship ID and EAN", id: supplier + "-A3", ean: "444", wh: "DROP", wantID: supplier + "-A3"},
		{name: "no EAN: untouched", id: "ZZ", wh: "WH1", wantID: "ZZ"},
	} {
		r := &OrderRequest{Rows: []OrderRowRequest{{ExternalProductID: c.id, ProductEANCode: c.ean, ExternalWarehouseID: c.wh}}}
		err := r.ResolveRowProducts(testBID, found)
		fields := ErrorFields(err)
		switch {
		case c.field == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.field != "" && (len(fields) != 1 || fields[0].Field != c.field):
			t.Errorf("%s: %v, want a problem of %s", c.name, err, c.field)
		case c.field == "" && r.Rows[0].ExternalProductID != c.wantID:
			t.Errorf("%s: ID %q, want %q", c.name, r.Rows[0].ExternalProductID, c.wantID)
		}
	}
	// The provider's Orders V3 page: one row per product. A row by EAN
	// alone that is another row's product is refused at the second row.
	for _, c := range []struct {
		name  string
		rows  []OrderRowRequest
		field string
	}{
		{"EAN, then its product's ID", []OrderRowRequest{{ProductEANCode: "111", ExternalWarehouseID: "WH1"}, {ExternalProductID: testBID + "-E1", ExternalWarehouseID: "WH1"}}, "rows[1].externalProductId"},
		{"ID, then its EAN", []OrderRowRequest{{ExternalProductID: "E1", ExternalWarehouseID: "WH1"}, {ProductEANCode: "111", ExternalWarehouseID: "WH1"}}, "rows[1].productEANCode"},
		{"two products", []OrderRowRequest{{ExternalProductID: "P1", ExternalWarehouseID: "WH1"}, {ProductEANCode: "111", ExternalWarehouseID: "WH1"}}, ""},
	} {
		r := &OrderRequest{Rows: c.rows}
		fields := ErrorFields(r.ResolveRowProducts(testBID, found))
		if c.field == "" && len(fields) != 0 || c.field != "" && (len(fields) != 1 || fields[0].Field != c.field) {
			t.Errorf("%s: %v, want %q", c.name, fields, c.field)
		}
	}

	// What the store looks up: the catalogs, EANs and ID forms of the rows
	// with an EAN only.
	r := &OrderRequest{Rows: []OrderRowRequest{{ProductEANCode: "111", ExternalWarehouseID: "WH1"}, {ExternalProductID: "E1", ProductEANCode: "111", ExternalWarehouseID: "WH1"},
		{ExternalProductID: "NOEAN", ExternalWarehouseID: "WH9"}}}
	l := r.RowProductLookup(testBID)
	if !slices.Equal(l.Catalogs, []string{"WH1"}) || !slices.Equal(l.EANs, []string{"111"}) || !slices.Equal(l.IDs, []string{"E1", testBID + "-E1"}) {
		t.Errorf("lookup %+v", l)
	}
	if l := (&OrderRequest{Rows: []OrderRowRequest{{ExternalProductID: "E1"}}}).RowProductLookup(testBID); len(l.EANs) != 0 {
		t.Errorf("rows without EAN look up %+v", l)
	}
}

// provider Orders V3, decisions §37: the list's status filter takes every
// status parcelgate sets, "Partially delivered" included, and a comma list;
// the provider's other statuses are known; anything else is a problem.
func TestParseOrderStatusFilter(t *testing.T) {
	for in, want := range map[string][]OrderStatus{
		"Created":                     {OrderCreated},
		"created,Viewed":              {OrderCreated, OrderSubmitted},
		"Viewed,Submitted":            {OrderSubmitted},
		"Partially delivered":         {OrderPartiallyDelivered},
		" partially delivered ,Error": {OrderPartiallyDelivered, OrderError},
		"Delivered,Cancelled,Error":   {OrderDelivered, OrderCancelled, OrderError},
		"orderRouted,Draft":           {"orderRouted", "Draft"},
	} {
		var p Problems
		if got := ParseOrderStatusFilter(&p, "status", in); p.Len() != 0 || !slices.Equal(got, want) {
			t.Errorf("%q: %v %v", in, got, p.Err())
		}
	}
	for _, in := range []string{"Shipped", "Created,", "Partiallydelivered", ""} {
		var p Problems
		if ParseOrderStatusFilter(&p, "status", in); p.Len() != 1 || p.List()[0].Field != "status" {
			t.Errorf("%q: %v", in, p.Err())
		}
	}
	for _, st := range append(slices.Clone(OrderStatuses), OrderPartiallyDelivered) {
		if got, ok := ParseOrderFilterStatus(string(st)); !ok || got != st {
			t.Errorf("a status parcelgate sets is refused: %s", st)
		}
	}
	for in, want := range map[string]string{"SalesOrder": DocumentSalesOrder, "purchaseorder": DocumentPurchaseOrder, "Invoice": ""} {
		if got, ok := ParseDocumentType(in); got != want || ok != (want != "") {
			t.Errorf("documentType %q: %q %v", in, got, ok)
		}
	}
	if (OrderQuery{DocumentType: DocumentPurchaseOrder}).Selects() || !(OrderQuery{DocumentType: DocumentSalesOrder}).Selects() {
		t.Error("purchase orders select nothing, sales orders everything")
	}
	day := time.Date(2021, 9, 7, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		from, to time.Time
		bad      bool
	}{{day, day.Add(time.Hour), false}, {day, time.Time{}, false}, {time.Time{}, day, false}, {day, day, true}, {day.Add(time.Hour), day, true}} {
		var p Problems
		if CheckOrderDates(&p, c.from, c.to); (p.Len() != 0) != c.bad {
			t.Errorf("from %v to %v: %v", c.from, c.to, p.Err())
		}
	}
}
