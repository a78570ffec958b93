package parcelgate

import (
	"slices"
	"testing"
)

const testBID = "1234567-1"

func validRequest() *OrderRequest {
	return &OrderRequest{
		ExternalID: "1005",
		DeliveryAddress: Address{Name: "Maija Meikäläinen", StreetAddress: "Kotikatu 2", PostalCode: "00200", PostOffice: "Helsinki",
			Country: "FI", Telephone: "+358401234567", Email: "maija@example.com"},
		ServiceCode: "2103",
		Rows:        []OrderRowRequest{{ExternalID: "1", ExternalProductID: "WOO6", ProductUnitOfMeasure: "KPL", ExternalWarehouseID: "WH1", Quantity: 1}},
		AutoSubmit:  true,
	}
}

// interface §2.3 and what the provider's warehouse plugin sends: every rule of
// an order request is checked by Validate, on the typed request.
func TestOrderRequestValidate(t *testing.T) {
	price := Decimal("24.90")
	for name, tc := range map[string]struct {
		change func(*OrderRequest)
		field  string // "" = valid
	}{
		"plugin order, bare IDs":   {func(r *OrderRequest) {}, ""},
		"prefixed IDs":             {func(r *OrderRequest) { r.ExternalID, r.Rows[0].ExternalProductID = testBID+"-1005", testBID+"-WOO6" }, ""},
		"another business's order": {func(r *OrderRequest) { r.ExternalID = "7654321-2-1005" }, "externalId"},
		// A supplier's product, as a row of a dropshipping catalog names it;
		// CheckRowCatalogs refuses it on a warehouse row (decisions §34).
		"another business's product": {func(r *OrderRequest) { r.Rows[0].ExternalProductID = "7654321-2-WOO6" }, ""},
		"everything the plugin sends": {func(r *OrderRequest) {
			r.Currency, r.TotalPrice, r.TotalTax, r.ClientSoftware = "eur", &price, &price, "woo-wh-client/2.4.2"
		}, ""},
		"bad currency":                 {func(r *OrderRequest) { r.Currency = "EURO" }, "currency"},
		"routing code (PHP library)":   {func(r *OrderRequest) { r.RoutingServiceCode = "2103" }, ""},
		"bad routing code":             {func(r *OrderRequest) { r.RoutingServiceCode = "21 03" }, "routingServiceCode"},
		"cash on delivery":             {func(r *OrderRequest) { r.AdditionalServices = []AdditionalService{{"3101"}, {"3101"}} }, ""},
		"empty service code":           {func(r *OrderRequest) { r.AdditionalServices = []AdditionalService{{""}} }, "additionalServices[0].serviceCode"},
		"picking note":                 {func(r *OrderRequest) { r.Comments = []OrderComment{{Type: "pickingNote", Value: "Door code 1234"}} }, ""},
		"comment without value":        {func(r *OrderRequest) { r.Comments = []OrderComment{{Type: "pickingNote"}} }, "comments[0].value"},
		"comment without type":         {func(r *OrderRequest) { r.Comments = []OrderComment{{Value: "x"}} }, "comments[0].type"},
		"client is kept, not a bid":    {func(r *OrderRequest) { r.Client = &Address{ExternalID: "customer-17", Name: "Maija"} }, ""},
		"recipient e-mail":             {func(r *OrderRequest) { r.Recipient = &Address{Email: "nope"} }, "recipient.email"},
		"row unit of measure too long": {func(r *OrderRequest) { r.Rows[0].ProductUnitOfMeasure = "KPLKPLKPLKPLKPLKPLKPL" }, "rows[0].productUnitOfMeasure"},
		"NOUTO without e-mail":         {func(r *OrderRequest) { r.ServiceCode, r.DeliveryAddress.Email = "NOUTO", "" }, "deliveryAddress.email"},
		// The provider's Orders V3 page: one row per product.
		"two rows of a product": {func(r *OrderRequest) {
			r.Rows = append(r.Rows, OrderRowRequest{ExternalID: "2", ExternalProductID: "P1", ExternalWarehouseID: "WH1", Quantity: 1},
				OrderRowRequest{ExternalID: "3", ExternalProductID: "WOO6", ExternalWarehouseID: "WH1", Quantity: 2})
		}, "rows[2].externalProductId"},
		"a product bare and prefixed": {func(r *OrderRequest) {
			r.Rows = append(r.Rows, OrderRowRequest{ExternalID: "2", ExternalProductID: testBID + "-WOO6", ExternalWarehouseID: "WH1", Quantity: 1})
		}, "rows[1].externalProductId"},
		"two rows of an EAN": {func(r *OrderRequest) {
			r.Rows = []OrderRowRequest{{ProductEANCode: "6400000000017", Quantity: 1}, {ProductEANCode: "6400000000024", Quantity: 1}, {ProductEANCode: "6400000000017", Quantity: 3}}
		}, "rows[2].productEANCode"},
		// The warehouse plugin sends its shop's one EAN on every row, each
		// row naming its product by ID: different products.
		"plugin rows sharing an EAN": {func(r *OrderRequest) {
			r.Rows[0].ProductEANCode = "6400000000017"
			r.Rows = append(r.Rows, OrderRowRequest{ExternalID: "2", ExternalProductID: "P1", ProductEANCode: "6400000000017", ExternalWarehouseID: "WH1", Quantity: 2})
		}, ""},
	} {
		t.Run(name, func(t *testing.T) {
			r := validRequest()
			tc.change(r)
			err := r.Validate(testBID, testNetwork{})
			var got []string
			for _, f := range ErrorFields(err) {
				got = append(got, f.Field)
			}
			if (tc.field == "") != (err == nil) || (tc.field != "" && !slices.Contains(got, tc.field)) {
				t.Fatalf("want problem %q, got %v", tc.field, err)
			}
		})
	}
	r := validRequest()
	r.Currency, r.AdditionalServices = "eur", []AdditionalService{{"3101"}, {"3101"}}
	if r.Validate(testBID, testNetwork{}) != nil || r.Currency != "EUR" || len(r.AdditionalServices) != 1 {
		t.Fatalf("normalized %+v", r)
	}
}

// decisions §34, §38: a supplier's product only on a row of a
// dropshipping catalog; warehouse and catalog rows may share an order.
func TestCheckRowCatalogs(t *testing.T) {
	r := validRequest()
	r.Rows = []OrderRowRequest{{ExternalProductID: "7654321-2-WOO6", ExternalWarehouseID: "DROP", Quantity: 1}}
	if err := r.CheckRowCatalogs(testBID, r.DropshipRows([]string{"DROP"})); err != nil {
		t.Fatalf("dropship row: %v", err)
	}
	r.Rows[0].ExternalWarehouseID = "WH1"
	if err := r.CheckRowCatalogs(testBID, r.DropshipRows([]string{"DROP"})); ErrorFields(err)[0].Field != "rows[0].externalProductId" {
		t.Fatalf("foreign product in a warehouse: %v", err)
	}
	r.Rows = []OrderRowRequest{{ExternalProductID: "7654321-2-A", ExternalWarehouseID: "DROP", Quantity: 1}, {ExternalProductID: "OWN", ExternalWarehouseID: "WH1", Quantity: 1}}
	if err := r.CheckRowCatalogs(testBID, r.DropshipRows([]string{"DROP"})); err != nil {
		t.Fatalf("mixed: %v", err)
	}
}
