package console_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/parcelgate/parcelgate/demo"
)

// issue 41, decisions §40 in the browser: an integrator makes a parcel
// with the shipping API, signs in to the console, goes from the
// overview's Shipments tile to the parcels list, finds the parcel by its
// number, sees its label and its journey, moves the clock to the next
// event and delivers it with the typed confirmation; then browses the
// pick-up points. Screenshots parcels-01 … parcels-07.
func TestBrowserParcels(t *testing.T) {
	e, c := newBrowserEnv(t)
	test := demo.Tenants[1]
	sh := e.apiShipment(test, "SO-BROWSER-1", 2)

	p := c.person()
	p.navigate("open the console", chromedp.Navigate(e.url+"/console/sign-in"))
	p.signIn(test.Username, test.Password)
	p.waitText("#tile-shipments", "Shipments")
	p.navigate("open the Shipments tile", chromedp.Click(chromedp.ID("tile-shipments")))
	p.waitText("#shipments tbody", sh.TrackingNumber)
	p.waitText("#shipments tbody", "SO-BROWSER-1")
	p.shotPhone("parcels-01-list")

	p.do("type the parcel's number", chromedp.SendKeys(chromedp.ID("q"), sh.Parcels[1].ParcelID))
	p.navigate("find it", chromedp.Click(chromedp.ID("lookup")))
	p.waitText("h1", sh.TrackingNumber)
	p.waitText("#tracking", "WAITING")
	p.waitText("#label-media", "thermo-190")
	p.waitText("#next-event", "RECEIVED")
	p.shot("parcels-02-shipment")

	p.navigate("move the clock to the next event", chromedp.Click(chromedp.ID("journey-next")))
	p.waitText(".notice", "clock moved")
	p.waitText(`[data-parcel-status="`+sh.Parcels[0].ParcelID+`"]`, "RECEIVED")
	p.waitText("#next-event", "IN_TRANSPORT")
	p.shot("parcels-03-clock-moved")

	// Delivery asks for the business ID: a wrong one changes nothing.
	p.do("type a wrong business ID", chromedp.SendKeys(chromedp.ID("confirm-deliver"), "1234567-2"))
	p.navigate("deliver", chromedp.Click(chromedp.ID("journey-deliver")))
	p.waitText("#confirm-deliver-error", "Type "+test.BusinessID)
	p.waitText("#shipment-status", "Created")
	p.shot("parcels-04-deliver-refused")
	p.do("type the business ID", chromedp.Clear(chromedp.ID("confirm-deliver")), chromedp.SendKeys(chromedp.ID("confirm-deliver"), test.BusinessID))
	p.navigate("deliver", chromedp.Click(chromedp.ID("journey-deliver")))
	p.waitText("#shipment-status", "Delivered")
	p.waitText(`[data-parcel-status="`+sh.Parcels[1].ParcelID+`"]`, "DELIVERED")
	p.shotPhone("parcels-05-delivered")

	p.navigate("open Pick-up points", chromedp.Click(chromedp.CSS(`nav a[href="/console/pickup-points"]`)))
	p.do("type a postal code", chromedp.SendKeys(chromedp.ID("postcode"), "33100"))
	p.navigate("find points", chromedp.Click(chromedp.ID("find-pickups")))
	p.waitText("#pickup-points tbody", "km")
	p.shotPhone("parcels-06-pickup-points")
	p.navigate("open the nearest", chromedp.Click(chromedp.CSS(`#pickup-points tbody a`)))
	p.waitText("#hours", "Opening hours")
	if caps := p.text("#capabilities"); strings.Contains(caps, "None listed") {
		t.Logf("the point lists no capabilities: %q", caps)
	}
	p.shotPhone("parcels-07-pickup-point")
}
