package console_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/demo"
)

// supplierShipment returns the shipment of the demo retailer's
// dropshipping order that businessID supplies, read through the store as
// that supplier.
func (e *env) supplierShipment(businessID string) *parcelgate.DropshipShipment {
	e.t.Helper()
	ctx := context.Background()
	org, err := e.api.Organizations.FindOrganization(ctx, parcelgate.EnvironmentOperator(parcelgate.Production), businessID)
	if err != nil {
		e.t.Fatal(err)
	}
	c := &parcelgate.Caller{Subject: "test", OrgID: org.ID, BusinessID: org.BusinessID, Environment: parcelgate.Production, Kind: parcelgate.KindEcom, Roles: []parcelgate.Role{parcelgate.RoleSupplier}}
	page, err := e.store.SupplierShipments.ListShipments(ctx, c, parcelgate.DropshipQuery{}, parcelgate.PageRequest{Size: 50})
	if err != nil {
		e.t.Fatal(err)
	}
	for _, sh := range page.Items {
		if sh.Consignment.Reference == demo.SampleDropshipOrder {
			return sh
		}
	}
	e.t.Fatalf("%s has no shipment of %s", businessID, demo.SampleDropshipOrder)
	return nil
}

// twoParcels is the split form of the demo merchant's shipment (one row,
// 2 mugs) into two parcels of one mug each.
func twoParcels() url.Values {
	return url.Values{"parcels": {"2"},
		"p0-id": {"1"}, "p0-type": {"PC"}, "p0-service": {"2104"}, "p0-r0": {"1"},
		"p1-id": {"2"}, "p1-type": {"PC"}, "p1-service": {"2104"}, "p1-routing": {"0020"}, "p1-r0": {"1"}}
}

// decisions §34 in the console: a supplier splits its shipment into two
// parcels (PUT) and confirms it with parcels (PATCH Delivered with
// consignment.parcels), one with its own tracking code and one with the
// platform's; the retailer's order reflects it. Refusals come back next to
// the form, with the service's message and field and what was entered.
func TestSupplierSplitsAndConfirmsWithParcels(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		sh := e.supplierShipment(prod.BusinessID)
		at := "/console/supplier-shipments/" + sh.ShipmentID
		b := e.browser()
		if p := b.signIn(prod.Username, prod.Password); p.status != http.StatusSeeOther {
			t.Fatalf("sign-in: %d", p.status)
		}
		p := b.get(at)
		if p.status != http.StatusOK {
			t.Fatalf("shipment page: %d", p.status)
		}
		// Unsplit: one parcel, the row in full.
		mustContain(t, p, `id="confirm-parcels"`, `id="split-parcels"`, `name="p0-r0" value="2"`, `id="split-count"`)
		if strings.Contains(p.body, `name="p1-id"`) {
			t.Fatal("the forms show a second parcel before a split")
		}
		// ?parcels=2 shows the split form with a new parcel "2".
		p = b.get(at + "?parcels=2")
		mustContain(t, p, `id="split-p1-id" name="p1-id" value="2"`)
		if p = b.get(at + "?parcels=100000"); p.status != http.StatusOK || strings.Count(p.body, `-type" value=`) != parcelgate.MaxShipmentParcels {
			t.Fatalf("?parcels past the bound: %d, %d parcels shown", p.status, strings.Count(p.body, `-type" value=`))
		}

		// The service's refusal of a split: a row in no parcel.
		bad := twoParcels()
		bad.Set("p0-r0", "")
		bad.Set("p1-r0", "")
		p = b.post(at+"/split", bad)
		if p.status != http.StatusBadRequest {
			t.Fatalf("split with a row in no parcel: %d", p.status)
		}
		mustContain(t, p, `id="split-error"`, "consignment.parcels", "is in no parcel", `name="p1-id" value="2"`)
		if got := e.supplierShipment(prod.BusinessID); len(got.Consignment.Parcels) != 1 {
			t.Fatalf("a refused split changed the parcels: %+v", got.Consignment.Parcels)
		}

		if p = b.post(at+"/split", twoParcels()); p.status != http.StatusSeeOther || p.location != at+"?done=shipment-split" {
			t.Fatalf("split: %d %q %s", p.status, p.location, p.body)
		}
		// The page it leads to says what was done.
		mustContain(t, b.get(p.location), `role="status"`, "parcels were replaced")
		got := e.supplierShipment(prod.BusinessID)
		if len(got.Consignment.Parcels) != 2 || got.Status.Value != parcelgate.DropshipCreated {
			t.Fatalf("after the split: %s %+v", got.Status.Value, got.Consignment.Parcels)
		}
		// The confirmation form now has both parcels with their shares.
		p = b.get(at)
		mustContain(t, p, `id="confirm-p0-r0" name="p0-r0" value="1"`, `id="confirm-p1-r0" name="p1-r0" value="1"`)

		confirm := url.Values{"parcels": {"2"}, "p0-id": {"1"}, "p0-r0": {"1"}, "p0-codes": {"OWN-CODE-0001"}, "p1-id": {"2"}, "p1-r0": {"1"}}
		// A bad number is refused by the form, naming the field, with
		// the entries kept.
		bad = url.Values{}
		for k, v := range confirm {
			bad[k] = v
		}
		bad.Set("p1-r0", "one")
		p = b.post(at+"/parcels", bad)
		if p.status != http.StatusBadRequest {
			t.Fatalf("a share that is not a number: %d", p.status)
		}
		mustContain(t, p, `id="confirm-error"`, "<code>p1-r0</code>", "not a whole number", `value="OWN-CODE-0001"`, `value="one"`)
		// The service's refusal: more than the row's quantity.
		bad.Set("p1-r0", "2")
		p = b.post(at+"/parcels", bad)
		if p.status != http.StatusBadRequest {
			t.Fatalf("shares past the quantity: %d", p.status)
		}
		mustContain(t, p, `id="confirm-error"`, "consignment.parcels", "more than its quantity")
		if got := e.supplierShipment(prod.BusinessID); got.Status.Value != parcelgate.DropshipCreated {
			t.Fatalf("a refused confirmation moved the shipment to %s", got.Status.Value)
		}

		if p = b.post(at+"/parcels", confirm); p.status != http.StatusSeeOther || p.location != at+"?done=shipment-confirmed" {
			t.Fatalf("confirm with parcels: %d %q %s", p.status, p.location, p.body)
		}
		mustContain(t, b.get(p.location), `role="status"`, "confirmed delivered")
		got = e.supplierShipment(prod.BusinessID)
		ps := got.Consignment.Parcels
		if got.Status.Value != parcelgate.DropshipDelivered || !slices.Equal(ps[0].TrackingCodes, []string{"OWN-CODE-0001"}) || ps[0].PlatformCodes ||
			len(ps[1].TrackingCodes) != 1 || !strings.HasPrefix(ps[1].TrackingCodes[0], "JJFI") || !ps[1].PlatformCodes {
			t.Fatalf("after the confirmation: %s %+v", got.Status.Value, ps)
		}
		// The retailer's order reflects it: the mugs' row delivered in
		// full, with both parcels' codes.
		o := e.order(parcelgate.Production, prod.RetailerID, demo.SampleDropshipOrder)
		row := o.Rows[slices.IndexFunc(o.Rows, func(r parcelgate.OrderRow) bool { return r.SupplierID == prod.BusinessID })]
		if row.DeliveredQuantity == nil || *row.DeliveredQuantity != 2 || !slices.Contains(row.TrackingCodes, "OWN-CODE-0001") || len(row.TrackingCodes) != 2 {
			t.Fatalf("the retailer's row: %+v", row)
		}
		// Delivered is final: the forms are gone, and a post is 409.
		p = b.get(at)
		if strings.Contains(p.body, `id="confirm-parcels"`) || strings.Contains(p.body, `id="split-parcels"`) {
			t.Fatal("a Delivered shipment still offers the parcel forms")
		}
		if p = b.post(at+"/split", twoParcels()); p.status != http.StatusConflict {
			t.Fatalf("split of a Delivered shipment: %d", p.status)
		}
		mustContain(t, p, "final status")
	})
}

// The forms read their fields strictly and within bounds (decisions §34):
// the parcel count, numbers, lengths and the number of codes are each a
// 400 naming the field, and nothing changes.
func TestSupplyParcelFormsAreBounded(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		sh := e.supplierShipment(prod.BusinessID)
		at := "/console/supplier-shipments/" + sh.ShipmentID
		b := e.browser()
		if p := b.signIn(prod.Username, prod.Password); p.status != http.StatusSeeOther {
			t.Fatalf("sign-in: %d", p.status)
		}
		tooMany := strings.Repeat("CODE1 ", parcelgate.MaxTrackingCodes+1)
		for name, tc := range map[string]struct {
			path string
			form url.Values
			want string
		}{
			"parcels past the bound": {"/split", url.Values{"parcels": {"101"}}, "the number of parcels must be 1 to 100"},
			"parcels not a number":   {"/parcels", url.Values{"parcels": {"two"}}, "the number of parcels must be"},
			"no parcels":             {"/parcels", url.Values{}, "the number of parcels must be"},
			"a share too long":       {"/parcels", url.Values{"parcels": {"1"}, "p0-id": {"1"}, "p0-r0": {strings.Repeat("9", 40)}}, "<code>p0-r0</code>: must be at most 19 characters"},
			"a share past int64":     {"/parcels", url.Values{"parcels": {"1"}, "p0-id": {"1"}, "p0-r0": {"9999999999999999999"}}, "not a whole number"},
			"a negative share":       {"/parcels", url.Values{"parcels": {"1"}, "p0-id": {"1"}, "p0-r0": {"-1"}}, "must be 0 to the row&#39;s quantity"},
			"too many codes":         {"/parcels", url.Values{"parcels": {"1"}, "p0-id": {"1"}, "p0-r0": {"2"}, "p0-codes": {tooMany}}, "at most 10 tracking codes"},
			"codes too long":         {"/parcels", url.Values{"parcels": {"1"}, "p0-id": {"1"}, "p0-r0": {"2"}, "p0-codes": {strings.Repeat("A", 1000)}}, "<code>p0-codes</code>: must be at most"},
			"a parcel ID too long":   {"/split", url.Values{"parcels": {"1"}, "p0-id": {strings.Repeat("P", 36)}, "p0-type": {"PC"}, "p0-service": {"2104"}, "p0-r0": {"2"}}, "<code>p0-id</code>: must be at most 35 characters"},
			"a parcel it lacks":      {"/parcels", url.Values{"parcels": {"1"}, "p0-id": {"9"}, "p0-r0": {"2"}}, "the shipment has no parcel"},
		} {
			p := b.post(at+tc.path, tc.form)
			if p.status != http.StatusBadRequest {
				t.Fatalf("%s: %d, want 400", name, p.status)
			}
			mustContain(t, p, tc.want)
		}
		if got := e.supplierShipment(prod.BusinessID); got.Status.Value != parcelgate.DropshipCreated || len(got.Consignment.Parcels) != 1 {
			t.Fatalf("refused forms changed the shipment: %s %+v", got.Status.Value, got.Consignment.Parcels)
		}
	})
}

// decisions §34 Isolation: another supplier's shipment posted to the
// parcel forms answers exactly like a missing one and is not changed; a
// retailer may not use them; a form posted from another site is refused.
func TestSupplyParcelFormsStayWithTheirSupplier(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		foreign := e.supplierShipment(prod.SupplierID)
		own := e.supplierShipment(prod.BusinessID)
		b := e.browser()
		if p := b.signIn(prod.Username, prod.Password); p.status != http.StatusSeeOther {
			t.Fatalf("sign-in: %d", p.status)
		}
		split := url.Values{"parcels": {"1"}, "p0-id": {"1"}, "p0-type": {"PC"}, "p0-service": {"2104"}, "p0-r0": {"1"}}
		confirm := url.Values{"parcels": {"1"}, "p0-id": {"1"}, "p0-r0": {"1"}, "p0-codes": {"OWN-CODE-0001"}}
		for _, action := range []struct {
			path string
			form url.Values
		}{{"/split", split}, {"/parcels", confirm}} {
			missing := b.post("/console/supplier-shipments/NOSUCHSHIPMENT00000"+action.path, action.form)
			if missing.status != http.StatusNotFound {
				t.Fatalf("POST %s of a missing shipment: %d", action.path, missing.status)
			}
			p := b.post("/console/supplier-shipments/"+foreign.ShipmentID+action.path, action.form)
			if p.status != http.StatusNotFound || p.body != missing.body {
				t.Fatalf("POST %s of another supplier's shipment: %d, want the same 404 as a missing one:\n%s", action.path, p.status, p.body)
			}
		}
		if got := e.supplierShipment(prod.SupplierID); got.Status.Value != foreign.Status.Value || len(got.Consignment.Parcels) != 1 || got.Consignment.Parcels[0].Rows[0].DeliveredQuantity != nil {
			t.Fatalf("another supplier's shipment changed: %s %+v", got.Status.Value, got.Consignment.Parcels)
		}

		retailer := e.browser()
		if p := retailer.signIn(prod.RetailerUsername, prod.RetailerPassword); p.status != http.StatusSeeOther {
			t.Fatalf("retailer sign-in: %d", p.status)
		}
		if p := retailer.post("/console/supplier-shipments/"+own.ShipmentID+"/parcels", confirm); p.status != http.StatusForbidden {
			t.Fatalf("a retailer confirming: %d", p.status)
		}
		p := b.do(http.MethodPost, "/console/supplier-shipments/"+own.ShipmentID+"/parcels", confirm, http.Header{"Sec-Fetch-Site": {"cross-site"}, "Origin": {"https://evil.example"}})
		if p.status != http.StatusForbidden {
			t.Fatalf("a cross-site confirmation: %d", p.status)
		}
		if got := e.supplierShipment(prod.BusinessID); got.Status.Value != parcelgate.DropshipCreated {
			t.Fatalf("the shipment moved to %s", got.Status.Value)
		}
	})
}

// provider Orders V3, decisions §38: "Partially delivered" shows through
// the console's order pages: the demo retailer's order, split between two
// suppliers, is Partially delivered once one of them confirms; the orders
// page filters by it (a checkbox of its own), the dashboard counts it and
// the order's page shows it.
func TestConsoleOrdersPartiallyDelivered(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		sh := e.supplierShipment(prod.BusinessID)
		b := e.browser()
		if p := b.signIn(prod.Username, prod.Password); p.status != http.StatusSeeOther {
			t.Fatalf("sign-in: %d", p.status)
		}
		if p := b.post("/console/supplier-shipments/"+sh.ShipmentID+"/delivered", nil); p.status != http.StatusSeeOther {
			t.Fatalf("confirm: %d %s", p.status, p.body)
		}
		r := e.browser()
		if p := r.signIn(prod.RetailerUsername, prod.RetailerPassword); p.status != http.StatusSeeOther {
			t.Fatalf("retailer sign-in: %d", p.status)
		}
		p := r.get("/console/orders?status=" + url.QueryEscape("Partially delivered"))
		if p.status != http.StatusOK || !strings.Contains(p.body, demo.SampleDropshipOrder) {
			t.Fatalf("filter Partially delivered: %d, order not listed", p.status)
		}
		mustContain(t, p, `value="Partially delivered" checked`)
		if p = r.get("/console/orders?status=Created"); strings.Contains(p.body, demo.SampleDropshipOrder) {
			t.Error("the order is still listed as Created")
		}
		if p = r.get("/console/"); !strings.Contains(p.body, "Partially delivered") {
			t.Error("the dashboard does not count Partially delivered")
		}
	})
}
