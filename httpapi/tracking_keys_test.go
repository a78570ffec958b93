package httpapi_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

// trackingCodes are the parcels' numbers, in the order answered.
func trackingCodes(ans httpapi.TrackingAnswer) string {
	var cs []string
	for _, p := range ans.ParcelShipments {
		cs = append(cs, p.TrackingCode)
	}
	return strings.Join(cs, ",")
}

// trackErr answers a Tracking API GET that must fail with status, in the
// ecom error shape.
func trackErr(t *testing.T, e *apitest.Env, tok, path string, status int) httpapi.EcomError {
	t.Helper()
	var eb httpapi.EcomError
	e.Do(apitest.Request{Method: "GET", Path: tracking + path, Bearer: tok}).Expect(status).JSON(&eb)
	if eb.Status != status || eb.Message == "" {
		t.Errorf("%s: %+v", path, eb)
	}
	return eb
}

// decisions §30, §39: each of the other keys finds the parcels it names: a
// consignment number the shipment's (all its parcels, where trackingnumber
// answers a shipping API shipment's first parcel); a waybill number and a
// goods item ID are freight keys (the provider's v7 OpenAPI) and answer
// empty lists, parcelgate carrying no freight; a sender reference or order number the
// shipment's reference (the shipping API's orderNo, a warehouse order's
// externalId), an errand code (interface §2.2, decisions §5) its parcel;
// a receiver reference is stored nowhere and finds nothing. The common
// parameters apply as on the other routes.
func TestTrackingByKeys(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		const shop = "1234567-1"
		e.EcomToken(parcelgate.Production, shop, parcelgate.RoleMerchant)
		ans, gwTok := shipToTampere(t, e, shop, "SO-2001")
		tn, p0, p1 := ans.ShipmentNo, ans.Parcels[0].ParcelNo, ans.Parcels[1].ParcelNo
		both := p0 + "," + p1
		get := func(path string) httpapi.TrackingAnswer { return track(t, e, parcelgate.Production, shop, path) }

		if got := trackingCodes(get("trackingnumber/" + tn)); got != p0 {
			t.Fatalf("trackingnumber/{the shipment's number}: %s, want the first parcel", got)
		}
		for path, want := range map[string]string{
			"waybillnumber/" + tn:                          "",
			"consignmentnumber/" + strings.ToLower(tn):     both,
			"goodsitemid/" + p1:                            "",
			"waybillnumber/JJFI00000000000000404":          "",
			"goodsitemid/PARCEL000404":                     "",
			"senderreference/so-2001":                      both,
			"ordernumber/SO-2001":                          both,
			"receiverreference/SO-2001":                    "", // decisions §30 (invented): none stored
			"consignmentnumber/" + tn + "?start=1&limit=1": p1,
			"ordernumber/SO-2001?start=1&limit=1":          p1,
			"senderreference/SO-2001?limit=1":              p0,
			"consignmentnumber/" + tn + "?start=5":         "", // a page past the end, not 404
			"goodsitemid/" + p1 + "?type=FREIGHT":          "",
			"senderreference/SO-2001?type=PARCEL":          both,
			"consignmentnumber/" + tn + "?limit=1000":      both, // capped at 100
			"senderreference/%20SO-2001%20?order=ASC":      both,
			"consignmentnumber/" + tn + "?lastModified=" + url.QueryEscape(time.Now().Add(-24*time.Hour*365).Format(time.RFC3339)): both,
		} {
			if got := trackingCodes(get(path)); got != want {
				t.Errorf("%s: %q, want %q", path, got, want)
			}
		}
		// interface §2.2, decisions §5: the parcel's errand code, in any case.
		code := errandOK(t, e, gwTok, "/parcel/v1/errandCodes/"+p1)
		if got := trackingCodes(get("errandcode/" + strings.ToLower(code))); got != p1 {
			t.Fatalf("errandcode/%s: %q, want %s", code, got, p1)
		}

		// The owner's parcel in the contract view; order=DESC turns the events.
		e.Clock.Advance(5*time.Hour + time.Minute)
		p := onlyParcel(t, get("consignmentnumber/"+tn+"?order=DESC&limit=1"))
		if p.Sender == nil || len(p.References) != 1 || p.References[0].Value != "SO-2001" || p.ShipmentTrackingCode != tn || p.Events[0].EventCode != parcelgate.EventSorted {
			t.Fatalf("consignmentnumber, own, DESC: %+v", p)
		}
		// The freight keys answer the provider's envelope, both lists empty.
		if r := e.Do(apitest.Request{Method: "GET", Path: tracking + "waybillnumber/" + tn, Bearer: e.EcomToken(parcelgate.Production, shop, parcelgate.RoleMerchant)}).Expect(200); strings.TrimSpace(string(r.Body)) != `{"parcelShipments":[],"freightShipments":[]}` {
			t.Fatalf("waybillnumber: %s", r.Body)
		}
		modified := url.QueryEscape(p.ModifiedAt.Add(time.Second).Format(time.RFC3339))
		if got := get("senderreference/SO-2001?lastModified=" + modified); len(got.ParcelShipments) != 0 {
			t.Fatalf("lastModified after the last event: %s", trackingCodes(got))
		}

		// decisions §30: a warehouse order's shipment has the order's
		// externalId as its reference.
		m := newMerchant(t, e, parcelgate.Production, merchantBID)
		o := m.create(m.orderBody("TK1", 1))
		m.setStatus(o.ExternalID, "Submitted").Expect(200)
		var del parcelgate.Order
		m.setStatus(o.ExternalID, "Delivered").Expect(200).JSON(&del)
		if got := trackingCodes(get("ordernumber/" + url.PathEscape(o.ExternalID))); got != del.TrackingCodes[0] {
			t.Fatalf("ordernumber/%s: %q, want %s", o.ExternalID, got, del.TrackingCodes[0])
		}

		// decisions §30: an unknown number is 404 (as trackingnumber's); an
		// unknown reference or code an empty list (as find's).
		tok := e.EcomToken(parcelgate.Production, shop, parcelgate.RoleMerchant)
		trackErr(t, e, tok, "consignmentnumber/JJFI00000000000000404", 404)
		noCode := "000000"
		if code == noCode {
			noCode = "000001"
		}
		for _, path := range []string{"senderreference/SO-2009", "ordernumber/SO-2009", "errandcode/" + noCode, "receiverreference/R-1"} {
			if got := get(path); len(got.ParcelShipments) != 0 {
				t.Errorf("%s: %s", path, trackingCodes(got))
			}
		}
		// The test environment is another world.
		testTok := e.EcomToken(parcelgate.Test, shop, parcelgate.RoleMerchant)
		trackErr(t, e, testTok, "consignmentnumber/"+tn, 404)
	})
}

// decisions §30: a lookup by number finds another organization's parcel in
// the public view; a search by reference, order number or errand code
// looks at the caller's own parcels only, so another tenant's are an
// empty list, as missing ones are.
func TestTrackingByKeysAcrossTenants(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		const shop, other = "1234567-1", "7654321-2"
		ans, gwTok := shipToTampere(t, e, shop, "SO-3001")
		tn, p0, p1 := ans.ShipmentNo, ans.Parcels[0].ParcelNo, ans.Parcels[1].ParcelNo
		code := errandOK(t, e, gwTok, "/parcel/v1/errandCodes/"+p0)

		pub := track(t, e, parcelgate.Production, other, "consignmentnumber/"+tn)
		if trackingCodes(pub) != p0+","+p1 {
			t.Fatalf("another tenant's consignmentnumber: %s", trackingCodes(pub))
		}
		for _, p := range append(pub.ParcelShipments, onlyParcel(t, track(t, e, parcelgate.Production, other, "trackingnumber/"+p1))) {
			if p.Status.Code != parcelgate.StatusWaiting || len(p.Events) == 0 || p.Sender != nil || p.Receiver != nil || p.Weight != nil ||
				p.References != nil || p.ShipmentTrackingCode != "" || p.ParcelIndex != nil {
				t.Fatalf("the public view: %+v", p)
			}
		}
		for _, path := range []string{"senderreference/SO-3001", "ordernumber/SO-3001", "errandcode/" + code} {
			if got := track(t, e, parcelgate.Production, other, path); len(got.ParcelShipments) != 0 {
				t.Errorf("another tenant's %s: %s", path, trackingCodes(got))
			}
			if got := track(t, e, parcelgate.Production, shop, path); len(got.ParcelShipments) == 0 {
				t.Errorf("the owner's %s found nothing", path)
			}
		}
	})
}

// decisions §30: a value of the wrong form is 400 naming the key's
// parameter and why; phonenumber is 403 for every caller, naming the
// restriction, whatever the value and the parameters.
func TestTrackingByKeysRefusals(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		tok := e.EcomToken(parcelgate.Production, "1234567-1", parcelgate.RoleSupplier)
		for path, field := range map[string]string{
			"waybillnumber/ABC":                             "waybillNumber",
			"waybillnumber/" + strings.Repeat("A", 36):      "waybillNumber",
			"consignmentnumber/JJFI-0001":                   "consignmentNumber",
			"goodsitemid/SHORT":                             "goodsItemId",
			"goodsitemid/" + strings.Repeat("9", 22):        "goodsItemId",
			"senderreference/" + strings.Repeat("x", 201):   "senderReference",
			"senderreference/a%09b":                         "senderReference",
			"ordernumber/%20%20":                            "orderNumber",
			"receiverreference/line%0Abreak":                "receiverReference",
			"errandcode/XYZ":                                "errandCode",
			"errandcode/ABCDEFG":                            "errandCode",
			"errandcode/GGGGGG":                             "errandCode",
			"waybillnumber/JJFI00000000000000001?limit=0":   "limit",
			"senderreference/SO-1?order=UP":                 "order",
			"goodsitemid/JJFI00000000000000001?type=LETTER": "type",
		} {
			eb := trackErr(t, e, tok, path, 400)
			if len(eb.Errors) != 1 || eb.Errors[0].Field != field || eb.Errors[0].Message == "" {
				t.Errorf("%s: %+v, want the field %s with its reason", path, eb.Errors, field)
			}
		}
		for _, bid := range []string{"1234567-1", "7654321-2"} {
			tok := e.EcomToken(parcelgate.Production, bid, parcelgate.RoleMerchant)
			for _, path := range []string{"phonenumber/+358401234567", "phonenumber/0401234567?limit=0", "phonenumber/x"} {
				if eb := trackErr(t, e, tok, path, 403); !strings.Contains(eb.Message, "restricted") {
					t.Errorf("%s as %s: %q does not name the restriction", path, bid, eb.Message)
				}
			}
		}
		e.Do(apitest.Request{Method: "GET", Path: tracking + "phonenumber/0401234567"}).Expect(401)
		e.Do(apitest.Request{Method: "GET", Path: tracking + "waybillnumber/JJFI00000000000000001"}).Expect(401)
	})
}
