package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/apitest"
)

// The gateway's Pick-up Point API (decisions §19): the POST the provider's
// page shows, and the GETs of a country's points and of one point a
// third-party CLI calls, with the gateway token and its version check, on
// the same data the ecom /pickup-points answers.
func TestGatewayPickupPoints(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		tok := e.GatewayToken(parcelgate.Production, "1234567-1")
		var got httpapi.GatewayPickupPoints
		// The provider's published example body, as published.
		e.Do(apitest.Request{Method: "POST", Path: gw + "/pickuppoints", Bearer: tok,
			Body: `{"searchCriteria":{"location":{"postcode":"20100","countryCode":"FI"}},"limit":20}`}).Expect(200).JSON(&got)
		if len(got.PickupPoints) != 20 {
			t.Fatalf("%d points", len(got.PickupPoints))
		}
		// One truth: the same points, in the same order, as the ecom search.
		ecom := e.EcomToken(parcelgate.Production, shopID, parcelgate.RoleMerchant)
		var viaEcom []parcelgate.PickupPoint
		e.Do(apitest.Request{Method: "GET", Path: "/ecommerce/v3/pickup-points?postalCode=20100&country=FI&limit=20", Bearer: ecom}).Expect(200).JSON(&viaEcom)
		for i := range viaEcom {
			if got.PickupPoints[i].ExternalID != viaEcom[i].ExternalID || *got.PickupPoints[i].Distance != *viaEcom[i].Distance {
				t.Fatalf("point %d: gateway %s, ecom %s", i, got.PickupPoints[i].ExternalID, viaEcom[i].ExternalID)
			}
		}
		if !strings.EqualFold(got.PickupPoints[0].PostOffice, "Turku") || got.PickupPoints[0].TypeName == "" {
			t.Errorf("nearest to 20100: %+v", got.PickupPoints[0])
		}
		// Narrowed by type; limited.
		e.Do(apitest.Request{Method: "POST", Path: gw + "/pickuppoints", Bearer: tok,
			Body: map[string]any{"searchCriteria": map[string]any{"location": map[string]any{"postcode": "00100"}, "types": []string{"PARCEL_LOCKER"}}, "limit": 3}}).Expect(200).JSON(&got)
		if len(got.PickupPoints) != 3 {
			t.Fatalf("%d lockers", len(got.PickupPoints))
		}
		for _, p := range got.PickupPoints {
			if p.Type != parcelgate.PointParcelLocker || p.TypeName != "Parcel locker" {
				t.Errorf("locker search gave %s %q", p.Type, p.TypeName)
			}
		}

		// The CLI's GETs, with Accept-Language.
		fi := http.Header{"Accept-Language": {"fi-FI,fi;q=0.9,en;q=0.5"}}
		r := e.Do(apitest.Request{Method: "GET", Path: gw + "/pickuppoints/FI?postcode=00100&limit=2&type=PARCEL_LOCKER", Bearer: tok, Header: fi}).Expect(200)
		r.JSON(&got)
		if len(got.PickupPoints) != 2 || got.PickupPoints[0].TypeName != "Pakettiautomaatti" || r.Header.Get("Content-Language") != "fi" {
			t.Fatalf("GET near 00100 in Finnish: %s", r.Body)
		}
		id := got.PickupPoints[0].ExternalID
		var one httpapi.GatewayPickupPoint
		sv := http.Header{"Accept-Language": {"sv"}}
		e.Do(apitest.Request{Method: "GET", Path: gw + "/pickuppoints/fi/" + id, Bearer: tok, Header: sv}).Expect(200).JSON(&one)
		if one.ExternalID != id || one.TypeName != "Paketautomat" || one.Estimation == "" {
			t.Fatalf("one point: %+v", one)
		}
		// A country's points without a place, in name order.
		e.Do(apitest.Request{Method: "GET", Path: gw + "/pickuppoints/FI?size=4", Bearer: tok}).Expect(200).JSON(&got)
		if len(got.PickupPoints) != 4 || got.PickupPoints[0].Name > got.PickupPoints[1].Name {
			t.Fatalf("the country's points: %+v", got.PickupPoints)
		}
		e.Do(apitest.Request{Method: "GET", Path: gw + "/pickuppoints/SE", Bearer: tok}).Expect(200).JSON(&got)
		if len(got.PickupPoints) != 0 {
			t.Errorf("Swedish points: %d", len(got.PickupPoints))
		}
		e.Do(apitest.Request{Method: "GET", Path: gw + "/pickuppoints/SE/" + id, Bearer: tok}).Expect(404)
		e.Do(apitest.Request{Method: "GET", Path: gw + "/pickuppoints/FI/NOPE", Bearer: tok}).Expect(404)

		// Bad criteria: the gateway's error shape, naming the field.
		for body, field := range map[string]string{
			`{"searchCriteria":{"location":{"postcode":"2010","countryCode":"FI"}}}`:   "searchCriteria.location.postcode",
			`{"searchCriteria":{"location":{"postcode":"20100","countryCode":"FIN"}}}`: "searchCriteria.location.countryCode",
			`{"searchCriteria":{"location":{"postcode":"20100"}},"limit":0}`:           "limit",
			`{"searchCriteria":{"location":{"postcode":"20100"}},"limit":"x"}`:         "limit",
			`{"searchCriteria":{"location":{"postcode":"20100"}},"radius":5}`:          "radius",
			`{"searchCriteria":{"serviceCodes":["9999"],"location":{"city":"Turku"}}}`: "searchCriteria.serviceCodes",
			`{}`: "searchCriteria.location.postcode",
		} {
			var ge httpapi.GatewayError
			e.Do(apitest.Request{Method: "POST", Path: gw + "/pickuppoints", Bearer: tok, Body: body}).Expect(400).JSON(&ge)
			if len(ge.Details) == 0 || ge.Details[0].Field != field || ge.ErrorCode == "" {
				t.Errorf("%s: %+v, want a problem on %s", body, ge, field)
			}
		}
		var ge httpapi.GatewayError
		e.Do(apitest.Request{Method: "GET", Path: gw + "/pickuppoints/FI?postcode=123", Bearer: tok}).Expect(400).JSON(&ge)
		if len(ge.Details) == 0 || ge.Details[0].Field != "postcode" {
			t.Errorf("GET bad postcode: %+v", ge)
		}

		// The gateway token and version, as for sending codes.
		e.Do(apitest.Request{Method: "POST", Path: gw + "/pickuppoints", Bearer: ecom, Body: `{}`}).Expect(401)
		e.Do(apitest.Request{Method: "GET", Path: gw + "/pickuppoints/FI"}).Expect(401)
		old := e.GatewayToken(parcelgate.Production, "1234567-1", "2026-04")
		e.Do(apitest.Request{Method: "GET", Path: gw + "/pickuppoints/FI", Bearer: old}).Expect(403)
		e.Do(apitest.Request{Method: "GET", Path: "/2019-01/pickuppoints/FI", Bearer: tok}).Expect(404)
	})
}

// The estimation API's two published examples, over HTTP, exactly as
// published (decisions §19), on its own path and on the gateway's POST.
func TestDeliveryEstimates(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		tok := e.GatewayToken(parcelgate.Production, "1234567-1")
		var est httpapi.Estimate
		e.Do(apitest.Request{Method: "GET", Bearer: tok, Path: "/estimation/v1/00100/FI/99710/FI/2103?time=2014-10-03T09:00:00.000%2B0300"}).Expect(200).JSON(&est)
		if est.DeliveryTime != "2014-10-07T16:00:00.000+03:00" {
			t.Errorf("example 1: %s", est.DeliveryTime)
		}
		e.Do(apitest.Request{Method: "GET", Bearer: tok, Path: "/estimation/v1/00100/FI/33100/FI/2102?time=2014-10-03T13:30:00.000%2B0300&logisticPhase=PICKED_UP&service=3106"}).Expect(200).JSON(&est)
		if est.DeliveryTime != "2014-10-04T09:00:00.000+03:00" {
			t.Errorf("example 2: %s", est.DeliveryTime)
		}
		// An unescaped '+' arrives as a space; it is read as the '+' meant.
		e.Do(apitest.Request{Method: "GET", Bearer: tok, Path: "/estimation/v1/00100/FI/99710/FI/2103?time=2014-10-03T09:00:00.000+0300"}).Expect(200).JSON(&est)
		if est.DeliveryTime != "2014-10-07T16:00:00.000+03:00" {
			t.Errorf("unescaped +: %s", est.DeliveryTime)
		}
		e.Do(apitest.Request{Method: "POST", Path: gw + "/estimate", Bearer: tok, Body: map[string]any{
			"origin": map[string]any{"postcode": "00100", "countryCode": "FI"}, "destination": map[string]any{"postcode": "33100", "countryCode": "FI"},
			"productCode": "2102", "time": "2014-10-03T13:30:00.000+0300", "logisticPhase": "PICKED_UP", "additionalServices": []string{"3106"}}}).Expect(200).JSON(&est)
		if est.DeliveryTime != "2014-10-04T09:00:00.000+03:00" {
			t.Errorf("POST example 2: %s", est.DeliveryTime)
		}

		// Without a time, the environment's clock: the sandbox clock moved
		// a week on moves the estimate a week on.
		path := "/estimation/v1/00100/FI/33100/FI/2103"
		e.Do(apitest.Request{Method: "GET", Bearer: tok, Path: path}).Expect(200).JSON(&est)
		first, _ := parcelgate.ParseEstimateTime(est.DeliveryTime)
		want := parcelgate.EstimateDeliveryTime(parcelgate.EstimateRequest{FromPostcode: "00100", FromCountry: "FI", ToPostcode: "33100", ToCountry: "FI",
			Product: "2103", Phase: parcelgate.PhaseDroppedOff, At: e.Clock.Now(parcelgate.Production)})
		if !first.Equal(want) {
			t.Errorf("now: %s, want %s", est.DeliveryTime, want)
		}
		e.Clock.Advance(7 * 24 * 3600e9)
		tok = e.GatewayToken(parcelgate.Production, "1234567-1")
		e.Do(apitest.Request{Method: "GET", Bearer: tok, Path: path}).Expect(200).JSON(&est)
		if later, _ := parcelgate.ParseEstimateTime(est.DeliveryTime); later.Sub(first) < 6*24*3600e9 {
			t.Errorf("a week later: %s, first %s", later, first)
		}

		// Bad requests name their field in the gateway's shape.
		for path, field := range map[string]string{
			"/estimation/v1/00100/FI/99710/FI/9999":                      "product",
			"/estimation/v1/0010/FI/99710/FI/2103":                       "fromPostcode",
			"/estimation/v1/00100/SE/99710/FI/2103":                      "fromCountry",
			"/estimation/v1/00100/FI/99710/FI/2103?time=yesterday":       "time",
			"/estimation/v1/00100/FI/99710/FI/2103?logisticPhase=FLYING": "logisticPhase",
			"/estimation/v1/00100/FI/99710/FI/2103?service=3106":         "service",
			"/estimation/v1/00100/FI/11122/SE/2103":                      "toCountry",
		} {
			var ge httpapi.GatewayError
			e.Do(apitest.Request{Method: "GET", Bearer: tok, Path: path}).Expect(400).JSON(&ge)
			if len(ge.Details) == 0 || ge.Details[0].Field != field || ge.ErrorCode != "VALIDATION_ERROR" {
				t.Errorf("%s: %+v, want a problem on %s", path, ge, field)
			}
		}
		var ge httpapi.GatewayError
		e.Do(apitest.Request{Method: "POST", Path: gw + "/estimate", Bearer: tok, Body: `{"origin":{"postcode":"00100","countryCode":"FI"},"productCode":"2103"}`}).Expect(400).JSON(&ge)
		if len(ge.Details) == 0 || !strings.HasPrefix(ge.Details[0].Field, "destination.") {
			t.Errorf("POST without destination: %+v", ge)
		}
		e.Do(apitest.Request{Method: "POST", Path: gw + "/estimate", Bearer: tok, Body: `{"from":"x"}`}).Expect(400)
		e.Do(apitest.Request{Method: "GET", Path: "/estimation/v1/00100/FI/99710/FI/2103"}).Expect(401)
		ecom := e.EcomToken(parcelgate.Production, shopID, parcelgate.RoleMerchant)
		e.Do(apitest.Request{Method: "GET", Path: "/estimation/v1/00100/FI/99710/FI/2103", Bearer: ecom}).Expect(401)
	})
}
