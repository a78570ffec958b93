package console_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/parcelgate/parcelgate/demo"
)

// decisions §34 in the browser: the demo merchant, a supplier of the demo
// retailer's dropshipping catalog, opens its shipment of the retailer's
// demo order, moves it and confirms it; the retailer's order page shows
// its two suppliers' progress and the rows' statuses.
func TestBrowserDropshipping(t *testing.T) {
	e, c := newBrowserEnv(t)

	supplier := c.person()
	supplier.navigate("open the console", chromedp.Navigate(e.url+"/console/sign-in"))
	supplier.signIn(prod.Username, prod.Password)
	supplier.navigate("open Dropshipping", chromedp.Click(chromedp.CSS(`nav a[href="/console/supplier-shipments"]`)))
	supplier.waitText("#supplier-shipments tbody", demo.SampleDropshipOrder)
	supplier.shot("dropship-01-shipments")
	supplier.navigate("open the shipment", chromedp.Click(chromedp.CSS(`#supplier-shipments tbody a`)))
	supplier.waitText("#shipment-status", "Created")
	supplier.navigate("move to Viewed", chromedp.Click(chromedp.ID("move-Viewed")))
	supplier.waitText("#shipment-status", "Viewed")
	supplier.navigate("confirm", chromedp.Click(chromedp.ID("fast-confirm")))
	supplier.waitText("#shipment-status", "Delivered")
	if codes := supplier.text("#shipment-parcels"); !strings.Contains(codes, "JJFI") {
		t.Fatalf("parcels after the confirmation: %q", codes)
	}
	supplier.shot("dropship-02-shipment-delivered")

	retailer := c.person()
	retailer.navigate("open the console", chromedp.Navigate(e.url+"/console/sign-in"))
	retailer.signIn(prod.RetailerUsername, prod.RetailerPassword)
	retailer.navigate("open the order", chromedp.Navigate(e.url+"/console/orders/"+demo.SampleDropshipOrder))
	retailer.waitText("#order-status", "Partially delivered")
	progress := retailer.text("#supplier-progress")
	if !strings.Contains(progress, "Delivered") || !strings.Contains(progress, "Created") || !strings.Contains(progress, prod.SupplierID) {
		t.Fatalf("suppliers' progress: %q", progress)
	}
	if rows := retailer.text("#rows"); !strings.Contains(rows, "Delivered") || !strings.Contains(rows, "JJFI") {
		t.Fatalf("rows: %q", rows)
	}
	retailer.shot("dropship-03-order-suppliers")
	retailer.shotPhone("dropship-04-order-suppliers-phone")

	// decisions §51: the retailer finds its suppliers' shipments in the
	// parcels area, the confirmed one with its tracking code.
	retailer.navigate("open Parcels", chromedp.Click(chromedp.CSS(`nav a[href="/console/shipments"]`)))
	retailer.navigate("open the dropshipping parcels", chromedp.Click(chromedp.CSS(`#dropship-link a`)))
	retailer.waitText("#dropship-shipments tbody", demo.SampleDropshipOrder)
	if list := retailer.text("#dropship-shipments tbody"); !strings.Contains(list, "JJFI") || !strings.Contains(list, prod.SupplierID) || !strings.Contains(list, "Delivered") {
		t.Fatalf("the retailer's dropshipping parcels: %q", list)
	}
	retailer.shot("dropship-05-parcels-retailer")
}

// decisions §34 in the browser, with parcels: the demo merchant asks for
// two parcels, splits its shipment of two mugs one a parcel, then confirms
// it with its own tracking code for each parcel; the retailer's order
// shows both codes on the mugs' row, delivered in full.
func TestBrowserDropshippingParcels(t *testing.T) {
	e, c := newBrowserEnv(t)

	supplier := c.person()
	supplier.navigate("open the console", chromedp.Navigate(e.url+"/console/sign-in"))
	supplier.signIn(prod.Username, prod.Password)
	supplier.navigate("open Dropshipping", chromedp.Click(chromedp.CSS(`nav a[href="/console/supplier-shipments"]`)))
	supplier.waitText("#supplier-shipments tbody", demo.SampleDropshipOrder)
	supplier.navigate("open the shipment", chromedp.Click(chromedp.CSS(`#supplier-shipments tbody a`)))
	supplier.waitText("#shipment-status", "Created")
	supplier.typeInto("split-count", "2")
	supplier.navigate("show two parcels", chromedp.Click(chromedp.ID("split-count-show")))
	supplier.do("see the second parcel", chromedp.WaitVisible(chromedp.ID("split-p1-r0")))
	supplier.typeInto("split-p0-r0", "1")
	supplier.typeInto("split-p1-r0", "1")
	// An added parcel needs its routing code (decisions §38); a home
	// delivery's first parcel has none to copy.
	supplier.typeInto("split-p1-routing", "0020")
	supplier.shot("dropship-05-split-form")
	supplier.navigate("split", chromedp.Click(chromedp.ID("split-submit")))
	supplier.waitText("#shipment-parcels", "2 (PC)")
	supplier.typeInto("confirm-p0-codes", "OWN-PARCEL-0001")
	supplier.typeInto("confirm-p1-codes", "OWN-PARCEL-0002")
	supplier.shot("dropship-06-confirm-form")
	supplier.navigate("confirm with parcels", chromedp.Click(chromedp.ID("confirm-parcels-submit")))
	supplier.waitText("#shipment-status", "Delivered")
	if codes := supplier.text("#shipment-parcels"); !strings.Contains(codes, "OWN-PARCEL-0001") || !strings.Contains(codes, "OWN-PARCEL-0002") || strings.Contains(codes, "JJFI") {
		t.Fatalf("parcels after the confirmation: %q", codes)
	}
	supplier.shot("dropship-07-shipment-delivered-parcels")

	retailer := c.person()
	retailer.navigate("open the console", chromedp.Navigate(e.url+"/console/sign-in"))
	retailer.signIn(prod.RetailerUsername, prod.RetailerPassword)
	retailer.navigate("open the order", chromedp.Navigate(e.url+"/console/orders/"+demo.SampleDropshipOrder))
	retailer.waitText("#order-status", "Partially delivered")
	if rows := retailer.text("#rows"); !strings.Contains(rows, "OWN-PARCEL-0001") || !strings.Contains(rows, "OWN-PARCEL-0002") || !strings.Contains(rows, "Delivered") {
		t.Fatalf("rows: %q", rows)
	}
	retailer.shot("dropship-08-order-own-codes")
}
