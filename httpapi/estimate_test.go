package httpapi_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
	"github.com/parcelgate/parcelgate/pickup"
)

// The provider's gateway estimate, with the body the third-party CLI's
// documented call sends (posti-cli reads estimates[0].time): the answer is
// {"estimates":[{"time":…}]}, by the estimation API's model; null where the
// model cannot promise; parcelgate's former flat body answers as before,
// marked deprecated.
func TestGatewayEstimate(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		tok := e.GatewayToken(parcelgate.Production, "1234567-1")
		post := func(body any) *apitest.Response {
			return e.Do(apitest.Request{Method: "POST", Path: gw + "/estimate", Bearer: tok, Body: body})
		}
		var doc struct {
			Estimates []struct {
				Time *string `json:"time"`
			} `json:"estimates"`
		}
		post(`{"estimate":{"time":"2026-03-13T10:00:00Z","origin":{"countryCode":"FI","postcode":"20100"},"destination":{"countryCode":"FI","postcode":"00100"},"product":{"code":"2103"}}}`).Expect(200).JSON(&doc)
		// Friday noon Finnish time, before the 17:00 cut-off: out Friday,
		// delivered Monday 16:00 (14:00 UTC).
		if len(doc.Estimates) != 1 || doc.Estimates[0].Time == nil || *doc.Estimates[0].Time != "2026-03-16T14:00:00Z" {
			t.Fatalf("the CLI's example: %+v", doc)
		}
		// Saturday delivery, picked up from the sender (the context's
		// logistics phase, beside or inside the estimate), to a pick-up
		// point given by its pupCode: the estimation API's second example.
		for _, body := range []string{
			`{"estimate":{"time":"2014-10-03T13:30:00.000+0300","origin":{"countryCode":"FI","postcode":"00100"},"destination":{"countryCode":"FI","postcode":"33100"},"product":{"code":"2102","additionalServicesCodes":["3106"]}},"context":{"logisticsPhase":{"event":"PICKED_UP","reason":"PICKUP"}}}`,
			`{"estimate":{"time":"2014-10-03T13:30:00.000+0300","origin":{"countryCode":"FI","postcode":"00100"},"destination":{"countryCode":"FI","pupCode":"331003200"},"product":{"code":"2102","additionalServicesCodes":["3106","3101"]},"context":{"logisticsPhase":{"event":"PICKED_UP","reason":"PICKUP"},"shipmentSeq":1,"partyName":"x"}}}`,
		} {
			post(body).Expect(200).JSON(&doc)
			if doc.Estimates[0].Time == nil || *doc.Estimates[0].Time != "2014-10-04T06:00:00Z" {
				t.Errorf("%s: %+v", body, doc)
			}
		}
		// Nothing the model can promise: a GLN, a product outside its table.
		for _, body := range []string{
			`{"estimate":{"time":"2026-03-13T10:00:00Z","origin":{"countryCode":"FI","gln":"6400000000000"},"destination":{"countryCode":"FI","postcode":"00100"},"product":{"code":"2103"}}}`,
			`{"estimate":{"time":"2026-03-13T10:00:00Z","origin":{"countryCode":"FI","postcode":"20100"},"destination":{"countryCode":"FI","postcode":"00100"},"product":{"code":"2461"}}}`,
		} {
			r := post(body).Expect(200)
			var raw struct{ Estimates []map[string]json.RawMessage }
			r.JSON(&raw)
			if len(raw.Estimates) != 1 || string(raw.Estimates[0]["time"]) != "null" {
				t.Errorf("%s: %s, want time null", body, r.Body)
			}
		}
		// Bad estimates name their member.
		for body, field := range map[string]string{
			`{"estimate":{"origin":{"countryCode":"FI","postcode":"20100"},"destination":{"countryCode":"FI","postcode":"00100"},"product":{"code":"2103"}}}`:                                                                                  "estimate.time",
			`{"estimate":{"time":"2026-03-13T10:00:00Z","destination":{"countryCode":"FI","postcode":"00100"},"product":{"code":"2103"}}}`:                                                                                                     "estimate.origin",
			`{"estimate":{"time":"2026-03-13T10:00:00Z","origin":{"countryCode":"FI","postcode":"2010"},"destination":{"countryCode":"FI","postcode":"00100"},"product":{"code":"2103"}}}`:                                                     "estimate.origin.postcode",
			`{"estimate":{"time":"2026-03-13T10:00:00Z","origin":{"countryCode":"FI","postcode":"20100"},"destination":{"countryCode":"FI","postcode":"00100"},"product":{}}}`:                                                                 "estimate.product.code",
			`{"estimate":{"time":"2026-03-13T10:00:00Z","origin":{"countryCode":"FI","postcode":"20100"},"destination":{"countryCode":"FI","postcode":"00100"},"product":{"code":"2103"}},"context":{"logisticsPhase":{"event":"PICKED_UP"}}}`: "context.logisticsPhase",
			`{}`: "estimate",
			`{"estimate":{"time":"2026-03-13T10:00:00Z","origin":{"countryCode":"FI","postcode":"20100"},"destination":{"countryCode":"FI","postcode":"00100"},"product":{"code":"2103"}},"productCode":"2103"}`: "estimate",
		} {
			ge := gatewayErr(t, post(body).Expect(400))
			if ge.ErrorCode != "VALIDATION_ERROR" || len(ge.Details) == 0 || ge.Details[0].Field != field {
				t.Errorf("%s: %+v, want a problem on %s", body, ge, field)
			}
		}

		// The deprecated flat body.
		r := post(map[string]any{
			"origin": map[string]any{"postcode": "00100", "countryCode": "FI"}, "destination": map[string]any{"postcode": "33100", "countryCode": "FI"},
			"productCode": "2102", "time": "2014-10-03T13:30:00.000+0300", "logisticPhase": "PICKED_UP", "additionalServices": []string{"3106"}}).Expect(200)
		var est httpapi.Estimate
		r.JSON(&est)
		if est.DeliveryTime != "2014-10-04T09:00:00.000+03:00" || r.Header.Get("Deprecation") != "true" {
			t.Errorf("deprecated body: %s %v", r.Body, r.Header)
		}
		ge := gatewayErr(t, post(`{"origin":{"postcode":"00100","countryCode":"FI"},"productCode":"2103"}`).Expect(400))
		if len(ge.Details) == 0 || !strings.HasPrefix(ge.Details[0].Field, "destination.") {
			t.Errorf("deprecated body without destination: %+v", ge)
		}
	})
}

// The estimation API's two published examples, over HTTP, exactly as
// published (decisions §19).
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

		// Without a time, the environment's clock: the environment clock moved
		// a week on moves the estimate a week on.
		path := "/estimation/v1/00100/FI/33100/FI/2103"
		e.Do(apitest.Request{Method: "GET", Bearer: tok, Path: path}).Expect(200).JSON(&est)
		first, _ := parcelgate.ParseEstimateTime(est.DeliveryTime)
		want := pickup.Network{}.EstimateDeliveryTime(parcelgate.EstimateRequest{FromPostcode: "00100", FromCountry: "FI", ToPostcode: "33100", ToCountry: "FI",
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
		e.Do(apitest.Request{Method: "GET", Path: "/estimation/v1/00100/FI/99710/FI/2103"}).Expect(401)
		ecom := e.EcomToken(parcelgate.Production, shopID, parcelgate.RoleMerchant)
		e.Do(apitest.Request{Method: "GET", Path: "/estimation/v1/00100/FI/99710/FI/2103", Bearer: ecom}).Expect(401)
	})
}
