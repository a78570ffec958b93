package console_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/demo"
)

// decisions §51: dropshipping's shipments are in the parcels area. The
// supplier finds what it ships (linked to its shipment page), the retailer
// what its suppliers ship for its orders (linked to the order), newest
// first, without a count; neither sees another organization's shipments,
// nor the other environment's, and a side the caller has no role for is
// refused.
func TestConsoleDropshipParcels(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		mine := e.supplierShipment(prod.BusinessID)
		theirs := e.supplierShipment(prod.SupplierID)

		// The demo merchant is a supplier and a retailer: its supplier
		// side first, with its shipment of the demo order only.
		b := e.signedIn(prod.Username, prod.Password)
		p := b.get("/console/shipments")
		mustContain(t, p, `href="/console/shipments/dropship"`)
		p = b.get("/console/shipments/dropship")
		if p.status != http.StatusOK {
			t.Fatalf("dropship page: %d %s", p.status, p.body)
		}
		mustContain(t, p, `href="/console/supplier-shipments/`+mine.ShipmentID+`"`, demo.SampleDropshipOrder, `id="side-retailer"`)
		if strings.Contains(p.body, theirs.ShipmentID) {
			t.Error("the supplier's list shows another supplier's shipment")
		}
		if strings.Contains(p.body, "1 shipment") || strings.Contains(p.body, "shipments.") {
			t.Error("the list counts its rows")
		}
		// Its retailer side: its own orders' shipments — none of the demo
		// retailer's order, which is another organization's.
		if p = b.get("/console/shipments/dropship?side=retailer"); p.status != http.StatusOK || strings.Contains(p.body, mine.ShipmentID) || strings.Contains(p.body, theirs.ShipmentID) {
			t.Errorf("the merchant's retailer side: %d, lists the demo retailer's shipments", p.status)
		}

		// The retailer: both suppliers' shipments of its order, each
		// linked to the order; no supplier side.
		r := e.signedIn(prod.RetailerUsername, prod.RetailerPassword)
		p = r.get("/console/shipments/dropship")
		if p.status != http.StatusOK {
			t.Fatalf("retailer: %d %s", p.status, p.body)
		}
		mustContain(t, p, mine.ShipmentID, theirs.ShipmentID, `href="/console/orders/`+demo.SampleDropshipOrder+`"`, prod.SupplierID)
		if strings.Contains(p.body, `id="side-supplier"`) || strings.Contains(p.body, "/console/supplier-shipments/") {
			t.Error("the retailer is offered the supplier's side")
		}
		if p = r.get("/console/shipments/dropship?side=supplier"); p.status != http.StatusForbidden {
			t.Errorf("the retailer's supplier side: %d", p.status)
		}

		// The second supplier sees its own shipment only.
		s := e.signedIn(prod.SupplierUsername, prod.SupplierPassword)
		if p = s.get("/console/shipments/dropship"); p.status != http.StatusOK || !strings.Contains(p.body, theirs.ShipmentID) || strings.Contains(p.body, mine.ShipmentID) {
			t.Errorf("the second supplier's list: %d", p.status)
		}
		// The same merchant in the test environment is another tenant: its
		// list holds the test environment's shipment, not production's.
		tb := e.signedIn(demo.Tenants[1].Username, demo.Tenants[1].Password)
		if p = tb.get("/console/shipments/dropship"); p.status != http.StatusOK || strings.Contains(p.body, mine.ShipmentID) {
			t.Errorf("the test environment's list: %d, shows production's shipment", p.status)
		}
		if p = r.get("/console/shipments/dropship?side=retailer&page=garbage"); p.status != http.StatusBadRequest || !strings.Contains(p.body, `id="page-error"`) {
			t.Errorf("a bad page link: %d", p.status)
		}
		if p = r.get("/console/shipments/dropship?side=both"); p.status != http.StatusBadRequest {
			t.Errorf("an unknown side: %d", p.status)
		}

		// Keyset pages of one: the retailer's two shipments, newest first,
		// each page read from its cursor, no total.
		ctx := context.Background()
		org, err := e.api.Organizations.FindOrganization(ctx, parcelgate.EnvironmentOperator(parcelgate.Production), prod.RetailerID)
		if err != nil {
			t.Fatal(err)
		}
		c := &parcelgate.Caller{Subject: "test", OrgID: org.ID, BusinessID: org.BusinessID, Environment: parcelgate.Production, Kind: parcelgate.KindEcom, Roles: []parcelgate.Role{parcelgate.RoleRetailer}}
		first, err := e.store.Dropship.ListDropshipShipments(ctx, c, true, parcelgate.PageRequest{Size: 1})
		if err != nil || len(first.Items) != 1 || first.Next == "" || first.Prev != "" || first.Total != 0 {
			t.Fatalf("first page: %+v %v", first, err)
		}
		second, err := e.store.Dropship.ListDropshipShipments(ctx, c, true, parcelgate.PageRequest{After: first.Next, Size: 1})
		if err != nil || len(second.Items) != 1 || second.Next != "" || second.Prev == "" || second.Items[0].ShipmentID == first.Items[0].ShipmentID {
			t.Fatalf("second page: %+v %v", second, err)
		}
		if _, err := e.store.Dropship.ListDropshipShipments(ctx, c, false, parcelgate.PageRequest{Size: 1}); parcelgate.ErrorCode(err) != parcelgate.EFORBIDDEN {
			t.Errorf("a retailer's supplier side in the store: %v", err)
		}
	})
}
