package sqlstore_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// BenchmarkOrderPolling is interface §4.3's updatedFrom query over 100,000
// orders of one merchant, 200 a page (500 pages): the first page, the last
// page reached by the next link's cursor (what a link-following client
// pays), and the last page by bare page number (an OFFSET scan, for
// comparison).
func BenchmarkOrderPolling(b *testing.B) {
	const orders, size = 100_000, parcelgate.DefaultOrderPageSize
	for _, engine := range testdb.Engines {
		b.Run(engine, func(b *testing.B) {
			ctx := context.Background()
			db := testdb.Open(b, engine, nil)
			org := &parcelgate.Organization{Environment: parcelgate.Production, BusinessID: "1234567-1", Name: "Shop"}
			if err := sqlstore.NewOrganizationService(db).CreateOrganization(ctx, parcelgate.EnvironmentOperator(org.Environment), org); err != nil {
				b.Fatal(err)
			}
			base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			doc, _ := json.Marshal(sampleOrder())
			if err := db.SeedOrdersForTest(ctx, org.Environment, org.ID, org.BusinessID, orders, base, string(doc)); err != nil {
				b.Fatal(err)
			}
			c := accountOf(org, parcelgate.RoleMerchant)
			q := parcelgate.OrderQuery{UpdatedFrom: base}
			// The cursor of the last page: follow the links once.
			last := parcelgate.PageRequest{Size: size}
			for n := 0; n < orders/size-1; n++ {
				page, err := sqlstore.NewOrderService(db).ListOrders(ctx, c, q, last)
				if err != nil || page.Next == "" {
					b.Fatalf("page %d: %v", n, err)
				}
				last = parcelgate.PageRequest{Number: n + 1, Size: size, After: page.Next}
			}
			run := func(name string, p parcelgate.PageRequest) {
				b.Run(name, func(b *testing.B) {
					for b.Loop() {
						page, err := sqlstore.NewOrderService(db).ListOrders(ctx, c, q, p)
						if err != nil || len(page.Items) != size || page.Total != orders {
							b.Fatalf("%d items of %d: %v", len(page.Items), page.Total, err)
						}
					}
				})
			}
			run("first", parcelgate.PageRequest{Size: size})
			run("last-by-cursor", last)
			run("last-by-number", parcelgate.PageRequest{Number: orders/size - 1, Size: size})
		})
	}
}

func sampleOrder() *parcelgate.Order {
	return &parcelgate.Order{
		ClientID: "1234567-1", ServiceCode: "2103",
		DeliveryAddress:    parcelgate.Address{Name: "Maija Meikäläinen", StreetAddress: "Kotikatu 2", PostalCode: "00200", PostOffice: "Helsinki", Country: "FI", Telephone: "+358401234567", Email: "maija@example.com"},
		References:         []parcelgate.OrderReference{{Name: "SO", Value: "100"}},
		Rows:               []parcelgate.OrderRow{{ExternalProductID: "1234567-1-P1", ExternalWarehouseID: "WH1", Quantity: 2}, {ExternalProductID: "1234567-1-P2", ExternalWarehouseID: "WH1", Quantity: 1}},
		AdditionalServices: []parcelgate.AdditionalService{},
	}
}

var _ = sqlstore.Open
