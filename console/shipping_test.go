package console_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/demo"
	"github.com/parcelgate/parcelgate/pickup"
)

// shippingShipment makes a shipment of two parcels of the demo tenant of
// production through the shipping API's store, as POST
// /shippingapi/api/v2/shipping/order does, and returns it.
func (e *env) shippingShipment() *parcelgate.Shipment {
	e.t.Helper()
	ctx := context.Background()
	org, err := e.store.Organizations.FindOrganization(ctx, parcelgate.EnvironmentOperator(parcelgate.Production), demo.Tenants[0].BusinessID)
	if err != nil {
		e.t.Fatal(err)
	}
	prod, _ := parcelgate.ShippingProductOf("2103")
	pt, _ := pickup.Network{}.NearestPickupPoint("33100", "2103")
	w := 2.5
	sh := &parcelgate.Shipment{ServiceCode: "2103", PickupPointID: pt.ExternalID, AdditionalServices: []string{"3196"}, Reference: "SO-CONSOLE-1", PrintMedia: "laser-a5",
		Sender:   parcelgate.Address{Name: "Demo Shop Oy", StreetAddress: "Kauppakatu 1", PostalCode: "00100", PostOffice: "Helsinki", Country: "FI"},
		Receiver: parcelgate.Address{Name: "Matti Meikäläinen", StreetAddress: "Hämeenkatu 5", PostalCode: "33100", PostOffice: "Tampere", Country: "FI"},
		Parcels:  []parcelgate.Parcel{{ParcelID: parcelgate.NewParcelNumber(prod), Weight: &w, PackageCode: "PKT"}, {ParcelID: parcelgate.NewParcelNumber(prod), Weight: &w, PackageCode: "PKT"}}}
	c := &parcelgate.Caller{OrgID: org.ID, BusinessID: org.BusinessID, Environment: parcelgate.Production, Kind: parcelgate.KindGateway}
	if err := e.store.Shipping.CreateShippingOrder(ctx, c, sh); err != nil {
		e.t.Fatal(err)
	}
	return sh
}

// decisions §29, §30: a shipment's page shows its labels (served as PDF)
// and each parcel's tracking timeline on the environment's clock; the
// operator moves a parcel as an order is moved; another tenant's shipment
// is not there.
func TestShipmentPageLabelAndTracking(t *testing.T) {
	e := newEnv(t, "sqlite")
	sh := e.shippingShipment()
	op := e.operator(parcelgate.Production)
	p := op.get("/console/shipments/" + sh.TrackingNumber)
	if p.status != http.StatusOK || !strings.Contains(p.body, `id="tracking"`) || !strings.Contains(p.body, `data-parcel-status="`+sh.Parcels[1].ParcelID+`">WAITING`) ||
		!strings.Contains(p.body, `/console/shipments/`+sh.TrackingNumber+`/label.pdf`) || !strings.Contains(p.body, "SO-CONSOLE-1") {
		t.Fatalf("shipment page: %d\n%s", p.status, p.body)
	}
	lbl := op.get("/console/shipments/" + sh.TrackingNumber + "/label.pdf?media=thermo-225")
	if lbl.status != http.StatusOK || !strings.HasPrefix(lbl.body, "%PDF-") {
		t.Fatalf("label: %d %.40q", lbl.status, lbl.body)
	}
	// The clock moves the parcels.
	e.clock.Advance(5*3600e9 + 60e9)
	if p := op.get("/console/shipments/" + sh.TrackingNumber); !strings.Contains(p.body, `">IN_TRANSPORT</span>`) {
		t.Fatalf("after 5 h the page shows no IN_TRANSPORT:\n%s", p.body)
	}
	// The operator moves one parcel.
	moved := op.post("/console/shipments/"+sh.TrackingNumber+"/parcels/"+sh.Parcels[1].ParcelID+"/status", url.Values{"to": {"RETURNED_TO_SENDER"}})
	if moved.status != http.StatusSeeOther || !strings.Contains(moved.location, "done=parcel-moved") {
		t.Fatalf("move: %d %s %s", moved.status, moved.location, moved.body)
	}
	if p := op.get("/console/shipments/" + sh.TrackingNumber); !strings.Contains(p.body, `data-parcel-status="`+sh.Parcels[1].ParcelID+`">RETURNED_TO_SENDER`) ||
		!strings.Contains(p.body, `data-parcel-status="`+sh.Parcels[0].ParcelID+`">IN_TRANSPORT`) {
		t.Fatalf("after the move:\n%s", p.body)
	}
	if bad := op.post("/console/shipments/"+sh.TrackingNumber+"/parcels/"+sh.Parcels[1].ParcelID+"/status", url.Values{"to": {"LOST"}}); bad.status != http.StatusBadRequest {
		t.Fatalf("an unknown status: %d", bad.status)
	}
	// In the test environment the demo tenant has no such shipment.
	other := e.operator(parcelgate.Test)
	if p := other.get("/console/shipments/" + sh.TrackingNumber + "/label.pdf"); p.status != http.StatusNotFound {
		t.Fatalf("the label from another environment: %d", p.status)
	}
	if p := other.post("/console/shipments/"+sh.TrackingNumber+"/parcels/"+sh.Parcels[0].ParcelID+"/status", url.Values{"to": {"DELIVERED"}}); p.status != http.StatusNotFound {
		t.Fatalf("a move from another environment: %d", p.status)
	}
}

// The shipment page in a browser: its tracking timeline and label, saved
// as screenshots 20-shipment-tracking (laptop and phone).
func TestBrowserShipmentLabelAndTracking(t *testing.T) {
	e, c := newBrowserEnv(t)
	sh := e.shippingShipment()
	e.clock.Advance(6 * 3600e9)
	op := c.person()
	op.navigate("open the console", chromedp.Navigate(e.url+"/console/sign-in"))
	op.do("fill the admin token", chromedp.SendKeys(chromedp.ID("token"), adminToken))
	op.navigate("sign in as operator", chromedp.Click(chromedp.ID("sign-in-operator")))
	op.navigate("open the demo organization", chromedp.Click(chromedp.CSS(`button[aria-label^="Open Demo Shop Oy (1234567-1, production)"]`)))
	op.navigate("open the shipment", chromedp.Navigate(e.url+"/console/shipments/"+sh.TrackingNumber))
	op.waitText("#tracking", "IN_TRANSPORT")
	op.waitText("#label", "Address labels (PDF)")
	op.do("choose DELIVERED", chromedp.SetValue(chromedp.ID("to-"+sh.Parcels[0].ParcelID), "DELIVERED"))
	op.navigate("move the parcel", chromedp.Click(chromedp.ID("move-parcel-"+sh.Parcels[0].ParcelID)))
	op.waitText(`[data-parcel-status="`+sh.Parcels[0].ParcelID+`"]`, "DELIVERED")
	op.waitText(`[data-timeline="`+sh.Parcels[0].ParcelID+`"]`, "Status updated")
	op.shotPhone("20-shipment-tracking")
}
