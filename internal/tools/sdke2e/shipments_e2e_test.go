package sdke2e_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/client"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

// decisions §34 through the SDK: a retailer orders from two suppliers'
// dropshipping catalog; one supplier confirms with its own code, the other
// splits and delivers part; the retailer sees it on the order.
func TestDropshippingThroughTheSDK(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		ctx := context.Background()
		const retailer, supA, supB = "1234567-1", "7654321-2", "0737546-2"
		e.Catalog(parcelgate.Production, retailer, "DROP", parcelgate.CatalogDropship, supA, supB)
		r := sdk(t, e, parcelgate.Production, newTenant(t, e, parcelgate.Production, retailer, parcelgate.RoleRetailer))
		a := sdk(t, e, parcelgate.Production, newTenant(t, e, parcelgate.Production, supA, parcelgate.RoleSupplier))
		b := sdk(t, e, parcelgate.Production, newTenant(t, e, parcelgate.Production, supB, parcelgate.RoleSupplier))
		for _, s := range []struct {
			c  *client.Client
			id string
		}{{a, supA + "-A1"}, {b, supB + "-B1"}} {
			if _, err := s.c.PutInventory(ctx, []client.InventoryEntry{{
				Product:  client.Product{ExternalID: s.id, Descriptions: map[string]client.Description{"fi": {Name: "Tuote"}}},
				Balances: []client.BalanceUpdate{{RetailerID: retailer, CatalogExternalID: "DROP", Quantity: client.Ptr[int64](10), WholesalePrice: client.Ptr(2.5), Currency: "EUR"}},
			}}); err != nil {
				t.Fatal(err)
			}
		}
		o, err := r.CreateOrder(ctx, &client.OrderRequest{ExternalID: retailer + "-R1",
			DeliveryAddress: client.Address{Name: "Maija Meikäläinen", StreetAddress: "Kotikatu 2", PostalCode: "00200", PostOffice: "Helsinki", Country: "FI", Email: "maija@example.com"},
			ServiceCode:     "2104",
			Rows: []client.OrderRowRequest{{ExternalProductID: supA + "-A1", ExternalWarehouseID: "DROP", Quantity: 2},
				{ExternalProductID: supB + "-B1", ExternalWarehouseID: "DROP", Quantity: 4}}})
		if err != nil || o.Rows[0].SupplierID != supA {
			t.Fatalf("order: %+v %v", o, err)
		}
		sync := a.ShipmentSync(&client.ShipmentQuery{}, time.Time{})
		got := all(t, sync.Changes(ctx))
		if len(got) != 1 || got[0].Metadata.SourceOrganization != retailer {
			t.Fatalf("A's shipments: %+v", got)
		}
		sa := got[0]
		if _, err := a.SetShipmentStatus(ctx, sa.ShipmentID, client.SupplyViewed); err != nil {
			t.Fatal(err)
		}
		if _, err := a.ConfirmShipment(ctx, sa.ShipmentID, []client.ShipmentParcel{{ParcelID: "1", TrackingCodes: []string{"OWN0001"},
			Rows: []client.ParcelRow{{ItemID: supA + "-A1", DeliveredQuantity: client.Delivered(2)}}}}); err != nil {
			t.Fatal(err)
		}
		_, err = a.SetShipmentStatus(ctx, sa.ShipmentID, client.SupplyPacking)
		if ae := asError(t, err); ae.StatusCode != 409 {
			t.Errorf("out of a final status: %+v", ae)
		}
		sb := all(t, b.SupplierShipments(ctx, &client.ShipmentQuery{Statuses: []client.SupplyStatus{client.SupplyCreated}}))[0]
		if _, err := b.SplitShipment(ctx, sb.ShipmentID, []client.ShipmentParcel{
			{ParcelID: "1", PackageType: "PC", ServiceCode: "2104", Rows: []client.ParcelRow{{ItemID: supB + "-B1", DeliveredQuantity: client.Delivered(1)}}},
			{ParcelID: "2", PackageType: "PC", ServiceCode: "2104", RoutingServiceCode: "0020", Rows: []client.ParcelRow{{ItemID: supB + "-B1", DeliveredQuantity: client.Delivered(3)}}},
		}); err != nil {
			t.Fatal(err)
		}
		// decisions §38: the options and events of a shipment (invented bodies).
		if opts, err := b.ShipmentOptionsOf(ctx, sb.ShipmentID); err != nil || !opts.Open || len(opts.Options) == 0 {
			t.Fatalf("options: %+v %v", opts, err)
		}
		if sh, err := b.AddShipmentEvent(ctx, sb.ShipmentID, client.ShipmentEvent{ExternalID: "e1", Code: "PACKED", ParcelID: "2"}); err != nil || len(sh.Events) != 1 {
			t.Fatalf("event: %+v %v", sh, err)
		}
		confirmed, err := b.ConfirmShipment(ctx, sb.ShipmentID, []client.ShipmentParcel{
			{ParcelID: "2", Rows: []client.ParcelRow{{ItemID: supB + "-B1", DeliveredQuantity: client.Delivered(0)}}}})
		if err != nil {
			t.Fatal(err)
		}
		// The confirmation's parcels link their documents.
		if p := confirmed.Consignment.Parcels[0]; p.LabelURL == "" || p.DeliveryNoteURL == "" {
			t.Errorf("parcel 1 links: %+v", p)
		}
		var pdf bytes.Buffer
		if err := b.ParcelLabel(ctx, sb.ShipmentID, "1", "", &pdf); err != nil || !bytes.HasPrefix(pdf.Bytes(), []byte("%PDF")) {
			t.Fatalf("label: %v %.10q", err, pdf.Bytes())
		}
		final, err := r.Order(ctx, o.ID)
		if err != nil || final.Status.Value != client.OrderPartiallyDelivered || final.Rows[1].Status.Value != client.OrderPartiallyDelivered || *final.Rows[1].DeliveredQuantity != 1 {
			t.Fatalf("retailer's order: %+v %v", final, err)
		}
		// decisions §38: the SDK's status filter takes it as the server sets it.
		if got := all(t, r.Orders(ctx, &client.OrderQuery{Statuses: []client.OrderStatus{client.OrderPartiallyDelivered}})); len(got) != 1 || got[0].ID != o.ID {
			t.Errorf("Orders(Partially delivered): %+v", got)
		}
		if got := all(t, r.Orders(ctx, &client.OrderQuery{Statuses: []client.OrderStatus{client.OrderCreated, client.OrderSubmitted}})); len(got) != 0 {
			t.Errorf("Orders(Created, Submitted): %+v", got)
		}
		list, err := r.OrderShipments(ctx, o.ID)
		if err != nil || len(list) != 2 {
			t.Fatalf("OrderShipments: %d %v", len(list), err)
		}
		if got := all(t, sync.Changes(ctx)); len(got) != 1 || got[0].Status.Value != client.SupplyDelivered {
			t.Errorf("A's poll after its confirmation: %+v", got)
		}
	})
}

// provider Shipments V3: split example, one PUT that also confirms —
// through the SDK's SplitAndConfirmShipment: parcel 1 sent as it was
// made, parcel 2 added with its service, pick-up point and routing code;
// both get platform codes and their label's link, which the SDK opens.
func TestSplitAndConfirmThroughTheSDK(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		ctx := context.Background()
		const retailer, sup = "1234567-1", "0109357-9"
		e.Catalog(parcelgate.Production, retailer, "01093579", parcelgate.CatalogDropship, sup)
		r := sdk(t, e, parcelgate.Production, newTenant(t, e, parcelgate.Production, retailer, parcelgate.RoleRetailer))
		s := sdk(t, e, parcelgate.Production, newTenant(t, e, parcelgate.Production, sup, parcelgate.RoleSupplier))
		if _, err := s.PutInventory(ctx, []client.InventoryEntry{{
			Product:  client.Product{ExternalID: sup + "-5002", Descriptions: map[string]client.Description{"fi": {Name: "Tuoli"}}},
			Balances: []client.BalanceUpdate{{RetailerID: retailer, CatalogExternalID: "01093579", Quantity: client.Ptr[int64](10), WholesalePrice: client.Ptr(12.5), Currency: "EUR"}},
		}}); err != nil {
			t.Fatal(err)
		}
		o, err := r.CreateOrder(ctx, &client.OrderRequest{ExternalID: retailer + "-EX",
			DeliveryAddress: client.Address{Name: "Maija Meikäläinen", StreetAddress: "Kotikatu 2", PostalCode: "00200", PostOffice: "Helsinki", Country: "FI", Email: "maija@example.com"},
			ServiceCode:     "2103",
			Rows:            []client.OrderRowRequest{{ExternalProductID: sup + "-5002", ExternalWarehouseID: "01093579", Quantity: 5}}})
		if err != nil {
			t.Fatal(err)
		}
		sh := all(t, s.SupplierShipments(ctx, &client.ShipmentQuery{Statuses: []client.SupplyStatus{client.SupplyCreated, client.SupplyViewed}}))
		if len(sh) != 1 {
			t.Fatalf("shipments: %+v", sh)
		}
		row := func(n float64) []client.ParcelRow {
			return []client.ParcelRow{{ExternalWarehouseID: "01093579", ItemID: sup + "-5002", Quantity: 5, DeliveredQuantity: client.Delivered(n)}}
		}
		done, err := s.SplitAndConfirmShipment(ctx, sh[0].ShipmentID, []client.ShipmentParcel{
			{ParcelID: "1", PackageType: "PC", Ready: true, Rows: row(2)},
			{ParcelID: "2", PackageType: "PC", ServiceCode: "2103", PickupPointID: "002303200", RoutingServiceCode: "3200", Ready: true, Rows: row(3)}})
		if err != nil {
			t.Fatal(err)
		}
		if done.Status.Value != client.SupplyDelivered || len(done.Consignment.Parcels) != 2 {
			t.Fatalf("answer: %+v", done)
		}
		for _, p := range done.Consignment.Parcels {
			if len(p.TrackingCodes) != 1 || p.LabelURL == "" || p.DeliveryNoteURL == "" {
				t.Errorf("parcel %s: %+v", p.ParcelID, p)
			}
			var pdf bytes.Buffer
			if err := s.ParcelLabel(ctx, done.ShipmentID, p.ParcelID, "", &pdf); err != nil || !bytes.HasPrefix(pdf.Bytes(), []byte("%PDF")) {
				t.Errorf("label of %s: %v", p.ParcelID, err)
			}
		}
		if got, err := r.Order(ctx, o.ID); err != nil || got.Status.Value != client.OrderDelivered || len(got.TrackingCodes) != 2 {
			t.Errorf("retailer's order: %+v %v", got, err)
		}
	})
}
