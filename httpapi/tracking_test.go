package httpapi_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

const tracking = "/tracking/7/shipments/"

// track answers a Tracking API GET as the organization's service account;
// a fresh token each time, since moving the clock ends the old one's hour.
func track(t *testing.T, e *apitest.Env, env parcelgate.Environment, bid, path string) httpapi.TrackingAnswer {
	t.Helper()
	tok := e.EcomToken(env, bid, parcelgate.RoleMerchant)
	var ans httpapi.TrackingAnswer
	e.Do(apitest.Request{Method: "GET", Path: tracking + path, Bearer: tok}).Expect(200).JSON(&ans)
	if ans.ParcelShipments == nil || ans.FreightShipments == nil {
		t.Fatalf("%s: the answer lacks parcelShipments or freightShipments", path)
	}
	return ans
}

// shipToTampere makes the organization bid's production shipment of two
// parcels to Tampere over the shipping API as its gateway client, with the
// order number as its reference and the additional services, and returns
// the answer and the gateway token.
func shipToTampere(t *testing.T, e *apitest.Env, bid, orderNo string, addons ...string) (httpapi.ShippingOrderAnswer, string) {
	t.Helper()
	gwTok := e.GatewayToken(parcelgate.Production, bid)
	body := shippingBody("PO2103", tampere(t), 2, addons...)
	body["shipment"].(map[string]any)["orderNo"] = orderNo
	return createShipping(t, e, gwTok, body, ""), gwTok
}

func onlyParcel(t *testing.T, ans httpapi.TrackingAnswer) httpapi.ParcelShipment {
	t.Helper()
	if len(ans.ParcelShipments) != 1 {
		t.Fatalf("%d parcels, want 1: %+v", len(ans.ParcelShipments), ans.ParcelShipments)
	}
	return ans.ParcelShipments[0]
}

func eventCodes(p httpapi.ParcelShipment) []string {
	var cs []string
	for _, e := range p.Events {
		cs = append(cs, e.EventCode)
	}
	return cs
}

// decisions §30 (the provider's Tracking API v7; a client reads
// parcelShipments[-1].modifiedAt, .status.code and .status.description.en),
// decisions §30: a shipment made with the shipping API is WAITING, and as
// the environment clock moves it is RECEIVED, IN_TRANSPORT, READY_FOR_PICKUP at
// its pick-up point at the estimate's time and DELIVERED a day later; the
// events carry codes, fi/en/sv descriptions, Finnish timestamps and
// locations.
func TestTrackingFollowsTheClock(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		const shop = "1234567-1"
		e.EcomToken(parcelgate.Production, shop, parcelgate.RoleMerchant)
		ans, _ := shipToTampere(t, e, shop, "SO-1001", "3196")
		p0, p1 := ans.Parcels[0].ParcelNo, ans.Parcels[1].ParcelNo

		p := onlyParcel(t, track(t, e, parcelgate.Production, shop, "trackingnumber/"+p0))
		if p.TrackingCode != p0 || p.Status.Code != parcelgate.StatusWaiting || p.Status.Description.EN != "Waiting for the sender" || p.Status.Description.FI == "" || p.Status.Description.SV == "" ||
			len(p.Events) != 1 || p.Events[0].EventCode != parcelgate.EventPreAdvice || p.EstimatedDeliveryTime == nil || p.Product.Code != "2103" || p.Product.Name.EN == "" {
			t.Fatalf("created: %+v", p)
		}
		// Contract view: the owner sees the parties, weight and reference.
		if p.Sender == nil || p.Sender.Name != "Kauppa Oy" || p.Weight == nil || p.Weight.Value != 2.5 || p.Weight.Unit != "kg" || p.ShipmentTrackingCode != p0 ||
			len(p.References) != 1 || p.References[0].Value != "SO-1001" || p.PickupPoint == nil || p.PickupPoint.Code != tampere(t) {
			t.Fatalf("contract view: %+v", p)
		}
		if _, off := p.ModifiedAt.Zone(); off != 2*3600 && off != 3*3600 {
			t.Fatalf("modifiedAt %s is not in Finnish time", p.ModifiedAt)
		}
		estimate := *p.EstimatedDeliveryTime

		e.Clock.Advance(2*time.Hour + time.Minute)
		if p := onlyParcel(t, track(t, e, parcelgate.Production, shop, "trackingnumber/"+p0)); p.Status.Code != parcelgate.StatusReceived {
			t.Fatalf("after 2 h: %s %v", p.Status.Code, eventCodes(p))
		}
		e.Clock.Advance(3 * time.Hour)
		if p := onlyParcel(t, track(t, e, parcelgate.Production, shop, "trackingnumber/"+p0)); p.Status.Code != parcelgate.StatusInTransport || p.Events[2].Location.City != "VANTAA" {
			t.Fatalf("after 5 h: %+v", p)
		}
		// At the estimate it is at the pick-up point; a day later collected.
		e.Clock.Advance(estimate.Sub(e.Clock.Now(parcelgate.Production)) + time.Minute)
		p = onlyParcel(t, track(t, e, parcelgate.Production, shop, "trackingnumber/"+p0))
		if p.Status.Code != parcelgate.StatusReadyForPickup || p.Events[3].Location.Code != tampere(t) || !p.Events[3].Timestamp.Equal(estimate) {
			t.Fatalf("at the estimate %s: %+v", estimate, p)
		}
		e.Clock.Advance(24 * time.Hour)
		p = onlyParcel(t, track(t, e, parcelgate.Production, shop, "trackingnumber/"+p0))
		if p.Status.Code != parcelgate.StatusDelivered || p.EstimatedDeliveryTime != nil || len(p.Events) != 5 {
			t.Fatalf("a day later: %s %v", p.Status.Code, eventCodes(p))
		}
		for i := 1; i < len(p.Events); i++ {
			if !p.Events[i].Timestamp.After(p.Events[i-1].Timestamp) || p.Events[i].EventDescription.SV == "" {
				t.Fatalf("events out of order or unnamed: %+v", p.Events)
			}
		}
		desc := onlyParcel(t, track(t, e, parcelgate.Production, shop, "trackingnumber/"+p0+"?order=DESC"))
		if desc.Events[0].EventCode != parcelgate.EventDelivered {
			t.Fatalf("order=DESC: %v", eventCodes(desc))
		}

		// Both parcels by number, paged; by keyword (the reference); by the
		// date of their events.
		if got := track(t, e, parcelgate.Production, shop, "trackingnumbers/"+p0+","+p1+",JJFI00000000000000404"); len(got.ParcelShipments) != 2 || got.ParcelShipments[1].TrackingCode != p1 {
			t.Fatalf("trackingnumbers: %+v", got.ParcelShipments)
		}
		if got := track(t, e, parcelgate.Production, shop, "trackingnumbers/"+p0+","+p1+"?start=1&limit=1"); onlyParcel(t, got).TrackingCode != p1 {
			t.Fatalf("paged: %+v", got)
		}
		if got := track(t, e, parcelgate.Production, shop, "find?keywords=so-1001"); len(got.ParcelShipments) != 2 {
			t.Fatalf("find by reference: %+v", got)
		}
		if got := track(t, e, parcelgate.Production, shop, "find/"+p1); onlyParcel(t, got).TrackingCode != p1 {
			t.Fatalf("find/{keyword}: %+v", got)
		}
		from := url.QueryEscape(estimate.Add(-time.Minute).Format(time.RFC3339))
		to := url.QueryEscape(estimate.Add(time.Minute).Format(time.RFC3339))
		if got := track(t, e, parcelgate.Production, shop, "event/date?from="+from+"&to="+to); len(got.ParcelShipments) != 2 {
			t.Fatalf("event/date around the arrival: %d parcels", len(got.ParcelShipments))
		}
		if got := track(t, e, parcelgate.Production, shop, "trackingnumber/"+p0+"?type=FREIGHT"); len(got.ParcelShipments) != 0 {
			t.Fatalf("type=FREIGHT answered parcels")
		}

		// Another organization: the public view by number; nothing by
		// keyword or date (decisions §30).
		const other = "7654321-2"
		pub := onlyParcel(t, track(t, e, parcelgate.Production, other, "trackingnumber/"+p0))
		if pub.Status.Code != parcelgate.StatusDelivered || len(pub.Events) != 5 || pub.Sender != nil || pub.Receiver != nil || pub.Weight != nil ||
			pub.References != nil || pub.ShipmentTrackingCode != "" || pub.AdditionalServices != nil {
			t.Fatalf("public view: %+v", pub)
		}
		if got := track(t, e, parcelgate.Production, other, "find?keywords=SO-1001,"+p0); len(got.ParcelShipments) != 0 {
			t.Fatalf("another tenant finds by keyword: %+v", got)
		}
		if got := track(t, e, parcelgate.Production, other, "event/date?from="+from+"&to="+to); len(got.ParcelShipments) != 0 {
			t.Fatalf("another tenant lists by date: %+v", got)
		}
		// The test environment is another world.
		tok := e.EcomToken(parcelgate.Test, shop, parcelgate.RoleMerchant)
		e.Do(apitest.Request{Method: "GET", Path: tracking + "trackingnumber/" + p0, Bearer: tok}).Expect(404)
	})
}

// decisions §30 (the Tracking API spec's token URL /tracking/oauth/token): a service
// account's token from there tracks parcels.
func TestTrackingTokenURL(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		u, p := e.ServiceAccount(parcelgate.Production, "1234567-1", parcelgate.RoleRetailer)
		var tok httpapi.EcomToken
		e.Do(apitest.Request{Method: "POST", Path: "/tracking/oauth/token?grant_type=client_credentials", Basic: &[2]string{u, p}}).Expect(200).JSON(&tok)
		e.Do(apitest.Request{Method: "GET", Path: tracking + "trackingnumber/JJFI00000000000000404", Bearer: tok.AccessToken}).Expect(404)
		e.Do(apitest.Request{Method: "POST", Path: "/tracking/oauth/token", Basic: &[2]string{u, "wrong"}}).Expect(401)
	})
}

// decisions §30: the Tracking API's refusals and limits.
func TestTrackingRefusals(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		tok := e.EcomToken(parcelgate.Production, "1234567-1", parcelgate.RoleSupplier)
		for path, want := range map[string]int{
			"trackingnumber/JJFI00000000000000404":  404,
			"trackingnumber/JJFI1?limit=0":          400,
			"trackingnumber/JJFI1?start=-1":         400,
			"trackingnumber/JJFI1?order=UP":         400,
			"trackingnumber/JJFI1?type=LETTER":      400,
			"trackingnumber/JJFI1?lastModified=now": 400,
			"trackingnumbers/,":                     400,
			"find":                                  400,
			"find/ab":                               400,
			"event/date?from=2026-01-01T00:00:00Z":  400,
			"event/date?from=2026-01-01T00:00:00Z&to=2026-03-01T00:00:00Z": 400,
			"event/date?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z": 400,
			"trackingnumbers/JJFI1?limit=1000":                             200, // capped at 100
		} {
			e.Do(apitest.Request{Method: "GET", Path: tracking + path, Bearer: tok}).Expect(want)
		}
		e.Do(apitest.Request{Method: "GET", Path: tracking + "trackingnumber/JJFI1"}).Expect(401)
		// A gateway token is not a service account's.
		e.Do(apitest.Request{Method: "GET", Path: tracking + "trackingnumber/JJFI1", Bearer: e.GatewayToken(parcelgate.Production, "1234567-1")}).Expect(401)
	})
}

// docs/controls.md: in the test environment a reference ending in
// .NOPICK waits at the pick-up point, gets a reminder after 3 days and
// goes back after the 7-day holding period; .RETURN is refused and
// returned. In production the same references are plain data.
func TestTrackingScenarios(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		const shop = "1234567-1"
		create := func(env parcelgate.Environment, service, ref string) string {
			gw := e.GatewayToken(env, shop)
			body := shippingBody(service, "", 1)
			body["shipment"].(map[string]any)["orderNo"] = ref
			return createShipping(t, e, gw, body, "").ShipmentNo
		}
		e.EcomToken(parcelgate.Test, shop, parcelgate.RoleMerchant)
		e.EcomToken(parcelgate.Production, shop, parcelgate.RoleMerchant)
		uncollected := create(parcelgate.Test, "PO2103", "A-1.nopick")
		returned := create(parcelgate.Test, "PO2104", "A-2.RETURN")
		plain := create(parcelgate.Production, "PO2104", "A-3.RETURN")
		status := func(env parcelgate.Environment, n string) (parcelgate.ParcelStatus, []string) {
			p := onlyParcel(t, track(t, e, env, shop, "trackingnumber/"+n))
			return p.Status.Code, eventCodes(p)
		}
		e.Clock.Advance(10 * 24 * time.Hour)
		if st, ev := status(parcelgate.Test, returned); st != parcelgate.StatusReturnedToSender || ev[len(ev)-2] != parcelgate.EventRefused {
			t.Fatalf(".RETURN after 10 days: %s %v", st, ev)
		}
		if st, ev := status(parcelgate.Production, plain); st != parcelgate.StatusDelivered {
			t.Fatalf("production .RETURN: %s %v", st, ev)
		}
		st, ev := status(parcelgate.Test, uncollected)
		if st != parcelgate.StatusReturnInTransport && st != parcelgate.StatusReadyForPickup {
			t.Fatalf(".NOPICK after 10 days: %s %v", st, ev)
		}
		e.Clock.Advance(5 * 24 * time.Hour)
		if st, ev := status(parcelgate.Test, uncollected); st != parcelgate.StatusReturnedToSender || ev[3] != parcelgate.EventArrived || ev[4] != parcelgate.EventReminder || ev[5] != parcelgate.EventNotCollected {
			t.Fatalf(".NOPICK after 15 days: %s %v", st, ev)
		}
	})
}

// decisions §30: the operator moves a parcel as an order's status is
// moved; the journey is the operator's from then on. A warehouse order
// that reaches Delivered makes trackable parcels (decisions §7).
func TestTrackingOperatorAndOrders(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		m := newMerchant(t, e, parcelgate.Production, merchantBID)
		o := m.create(m.orderBody("TR1", 1))
		m.setStatus(o.ExternalID, "Submitted").Expect(200)
		var del parcelgate.Order
		m.setStatus(o.ExternalID, "Delivered").Expect(200).JSON(&del)
		code := del.TrackingCodes[0]
		p := onlyParcel(t, track(t, e, parcelgate.Production, merchantBID, "trackingnumber/"+code))
		if p.Status.Code != parcelgate.StatusWaiting || len(p.References) != 1 || p.References[0].Value != o.ExternalID || p.Origin != parcelgate.OriginOrder {
			t.Fatalf("the order's parcel: %+v", p)
		}

		move := func(value string) *apitest.Response {
			return e.Admin("POST", "/admin/v1/parcels/status", map[string]any{"environment": "production", "businessId": merchantBID, "trackingNumber": code, "value": value})
		}
		var moved httpapi.TrackingAnswer
		move("out_for_delivery").Expect(200).JSON(&moved)
		if p := onlyParcel(t, moved); p.Status.Code != parcelgate.StatusOutForDelivery || p.Events[len(p.Events)-1].EventCode != parcelgate.EventOperator {
			t.Fatalf("moved: %+v", p)
		}
		e.Clock.Advance(30 * 24 * time.Hour)
		if p := onlyParcel(t, track(t, e, parcelgate.Production, merchantBID, "trackingnumber/"+code)); p.Status.Code != parcelgate.StatusOutForDelivery || p.EstimatedDeliveryTime != nil {
			t.Fatalf("the clock moved a parcel the operator holds: %s %v", p.Status.Code, eventCodes(p))
		}
		move("DELIVERED").Expect(200)
		if p := onlyParcel(t, track(t, e, parcelgate.Production, merchantBID, "trackingnumber/"+code)); p.Status.Code != parcelgate.StatusDelivered {
			t.Fatalf("after the operator's DELIVERED: %s", p.Status.Code)
		}
		move("LOST").Expect(400)
		e.Admin("POST", "/admin/v1/parcels/status", map[string]any{"environment": "production", "businessId": "7654321-2", "trackingNumber": code, "value": "DELIVERED"}).Expect(404)
		e.Do(apitest.Request{Method: "POST", Path: "/admin/v1/parcels/status", Body: map[string]any{"environment": "production", "businessId": merchantBID, "trackingNumber": code, "value": "DELIVERED"}}).Expect(http.StatusUnauthorized)
	})
}

// decisions §30 (the Tracking API's lastModified): only parcels whose last event is later
// than the time asked for are answered.
func TestTrackingLastModified(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		const shop = "1234567-1"
		n := createShipping(t, e, e.GatewayToken(parcelgate.Production, shop), shippingBody("PO2104", "", 1), "").ShipmentNo
		p := onlyParcel(t, track(t, e, parcelgate.Production, shop, "trackingnumber/"+n))
		before := url.QueryEscape(p.ModifiedAt.Add(-time.Second).Format(time.RFC3339Nano))
		after := url.QueryEscape(p.ModifiedAt.Add(time.Second).Format(time.RFC3339Nano))
		if got := track(t, e, parcelgate.Production, shop, "trackingnumbers/"+n+"?lastModified="+before); len(got.ParcelShipments) != 1 {
			t.Fatalf("modified after %s: %d parcels", before, len(got.ParcelShipments))
		}
		if got := track(t, e, parcelgate.Production, shop, "trackingnumbers/"+n+"?lastModified="+after); len(got.ParcelShipments) != 0 {
			t.Fatalf("not modified after %s: %d parcels", after, len(got.ParcelShipments))
		}
		// Two hours on the parcel has an event after that time.
		e.Clock.Advance(2*time.Hour + time.Minute)
		if got := track(t, e, parcelgate.Production, shop, "trackingnumbers/"+n+"?lastModified="+after); len(got.ParcelShipments) != 1 {
			t.Fatalf("after the clock moved: %d parcels", len(got.ParcelShipments))
		}
	})
}
