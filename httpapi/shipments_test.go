package httpapi_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

// gw is the prefix of the versioned gateway routes in tests.
const gw = "/2025-04"

// shipmentBody is a valid registration with the given parcels.
func shipmentBody(trackingNumber string, parcels ...map[string]any) map[string]any {
	if parcels == nil {
		parcels = []map[string]any{{}}
	}
	b := map[string]any{
		"serviceCode": "2103",
		"sender":      map[string]any{"name": "Shop Oy", "streetAddress": "Katu 1", "postalCode": "00100", "postOffice": "Helsinki", "country": "FI"},
		"receiver":    map[string]any{"name": "Maija Meikäläinen", "streetAddress": "Tie 2", "postalCode": "33100", "postOffice": "Tampere", "country": "fi", "email": "maija@example.com"},
		"parcels":     parcels,
	}
	if trackingNumber != "" {
		b["trackingNumber"] = trackingNumber
	}
	return b
}

func postShipment(e *apitest.Env, tok string, body any) *apitest.Response {
	e.T.Helper()
	return e.Do(apitest.Request{Method: "POST", Path: gw + "/shipments", Bearer: tok, Body: body})
}

func gatewayErr(t *testing.T, r *apitest.Response) httpapi.GatewayError {
	t.Helper()
	var ge httpapi.GatewayError
	r.JSON(&ge)
	return ge
}

var generatedID = regexp.MustCompile(`^JJFI[0-9]{17}$`)

// decisions §5: registration answers 201 with the stored shipment; tracking
// numbers are trimmed and upper-cased; absent IDs are generated; a retry of
// the same registration answers 200 with it, other content 409.
func TestShipmentCreateAndRead(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		tok := e.GatewayToken(parcelgate.Production, "1234567-1")
		body := shipmentBody(" jjfi00000000000000001 ", map[string]any{"parcelId": "abc123456789", "weight": 1.5}, map[string]any{})
		var s parcelgate.Shipment
		postShipment(e, tok, body).Expect(http.StatusCreated).JSON(&s)
		if s.TrackingNumber != "JJFI00000000000000001" || s.Status != parcelgate.ShipmentCreated || s.CreatedAt.IsZero() || s.Receiver.Country != "FI" {
			t.Fatalf("stored %+v", s)
		}
		if len(s.Parcels) != 2 || s.Parcels[0].ParcelID != "ABC123456789" || *s.Parcels[0].Weight != 1.5 || !generatedID.MatchString(s.Parcels[1].ParcelID) {
			t.Fatalf("parcels %+v", s.Parcels)
		}
		var got parcelgate.Shipment
		e.Do(apitest.Request{Method: "GET", Path: gw + "/shipments/jjfi00000000000000001", Bearer: tok}).Expect(200).JSON(&got)
		if got.TrackingNumber != s.TrackingNumber || len(got.Parcels) != 2 || got.Parcels[1].ParcelID != s.Parcels[1].ParcelID {
			t.Fatalf("read back %+v", got)
		}

		var again parcelgate.Shipment
		postShipment(e, tok, body).Expect(http.StatusOK).JSON(&again)
		if again.Parcels[1].ParcelID != s.Parcels[1].ParcelID || !again.CreatedAt.Equal(s.CreatedAt) {
			t.Fatalf("retry answered %+v", again)
		}
		body["serviceCode"] = "2104"
		if ge := gatewayErr(t, postShipment(e, tok, body).Expect(http.StatusConflict)); ge.ErrorCode != "CONFLICT" {
			t.Fatalf("other content: %+v", ge)
		}

		var gen parcelgate.Shipment
		postShipment(e, tok, shipmentBody("")).Expect(http.StatusCreated).JSON(&gen)
		if !generatedID.MatchString(gen.TrackingNumber) {
			t.Fatalf("generated tracking number %q", gen.TrackingNumber)
		}
		// A parcel ID belongs to one shipment of the organization.
		dup := shipmentBody("JJFI00000000000000002", map[string]any{"parcelId": "ABC123456789"})
		if ge := gatewayErr(t, postShipment(e, tok, dup).Expect(http.StatusConflict)); !strings.Contains(ge.Message, "ABC123456789") {
			t.Fatalf("taken parcel ID: %+v", ge)
		}
		if ge := gatewayErr(t, e.Do(apitest.Request{Method: "GET", Path: gw + "/shipments/NOPE12345678", Bearer: tok}).Expect(404)); ge.ErrorCode != "NOT_FOUND" || ge.Message != "Shipment not found" {
			t.Fatalf("missing shipment: %+v", ge)
		}
	})
}

// interface §2.2 rules 1-3, decisions §5: a package code (packageCode or
// packageQuantity.type) selects the locker; without one the size is S
// unless the dimensions do not fit S, then the smallest that fits; a code
// whose locker the dimensions do not fit is 400.
func TestShipmentLockerSizes(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		tok := e.GatewayToken(parcelgate.Production, "1234567-1")
		dims := func(l, w, h float64) map[string]any { return map[string]any{"length": l, "width": w, "height": h} }
		for name, c := range map[string]struct {
			parcel map[string]any
			want   parcelgate.LockerSize
		}{
			"no code, no dimensions (rule 1)": {map[string]any{}, parcelgate.LockerS},
			"no code, fits S":                 {dims(42, 11, 32), parcelgate.LockerS},
			"no code, fits M":                 {dims(50, 36, 19), parcelgate.LockerM},
			"no code, fits L":                 {dims(37, 36, 60), parcelgate.LockerL},
			"no code, fits XL only":           {dims(60, 59, 36), parcelgate.LockerXL},
			"packageCode (rule 2)":            {map[string]any{"packageCode": "M2"}, parcelgate.LockerM},
			"packageQuantity.type (rule 2)":   {map[string]any{"packageQuantity": map[string]any{"type": "l2"}}, parcelgate.LockerL},
			"both, agreeing":                  {map[string]any{"packageCode": "XL2", "packageQuantity": map[string]any{"type": "xl2"}}, parcelgate.LockerXL},
			"code with fitting dimensions":    {withField(dims(10, 10, 10), "packageCode", "XL2"), parcelgate.LockerXL},
			"only weight":                     {map[string]any{"weight": 30}, parcelgate.LockerS},
		} {
			var s parcelgate.Shipment
			postShipment(e, tok, shipmentBody("", c.parcel)).Expect(http.StatusCreated).JSON(&s)
			if s.Parcels[0].LockerSize != c.want {
				t.Errorf("%s: locker %s, want %s", name, s.Parcels[0].LockerSize, c.want)
			}
		}
		for name, parcel := range map[string]map[string]any{
			"code too small for the dimensions": withField(dims(20, 36, 60), "packageCode", "S2"),
			"fits no locker":                    dims(70, 10, 10),
			"unknown code":                      {"packageCode": "XXL2"},
			"codes disagree":                    {"packageCode": "S2", "packageQuantity": map[string]any{"type": "M2"}},
		} {
			ge := gatewayErr(t, postShipment(e, tok, shipmentBody("", parcel)).Expect(http.StatusBadRequest))
			if ge.ErrorCode != "VALIDATION_ERROR" || len(ge.Details) == 0 || !strings.HasPrefix(ge.Details[0].Field, "parcels") || ge.Details[0].Index == nil {
				t.Errorf("%s: %+v", name, ge)
			}
		}
	})
}

// decisions §5: bad input is a 4xx in the gateway error shape naming the field
// and the reason; nothing is stored.
func TestShipmentBadInput(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		tok := e.GatewayToken(parcelgate.Production, "1234567-1")
		without := func(k string) map[string]any { b := shipmentBody("JJFI00000000000000009"); delete(b, k); return b }
		manyParcels := make([]map[string]any, parcelgate.MaxParcelsPerShipment+1)
		for i := range manyParcels {
			manyParcels[i] = map[string]any{}
		}
		cases := []struct {
			name   string
			body   any
			status int
			code   string
			field  string
		}{
			{"unknown field", withField(shipmentBody(""), "colour", "red"), 400, "VALIDATION_ERROR", "colour"},
			{"unknown parcel field", shipmentBody("", map[string]any{"size": "S"}), 400, "VALIDATION_ERROR", "parcels[0].size"},
			{"unknown address field", withField(shipmentBody(""), "sender", map[string]any{"name": "x", "street": "y"}), 400, "VALIDATION_ERROR", "sender.street"},
			{"wrong type", withField(shipmentBody(""), "parcels", "many"), 400, "JSON_DECODE_ERROR", ""},
			{"not JSON", "{", 400, "JSON_DECODE_ERROR", ""},
			{"empty body", "", 400, "JSON_DECODE_ERROR", ""},
			{"no serviceCode", without("serviceCode"), 400, "VALIDATION_ERROR", "serviceCode"},
			{"unknown serviceCode", withField(shipmentBody(""), "serviceCode", "9999"), 400, "VALIDATION_ERROR", "serviceCode"},
			{"no sender", without("sender"), 400, "VALIDATION_ERROR", "sender"},
			{"receiver without name", withField(shipmentBody(""), "receiver", map[string]any{"postalCode": "00100"}), 400, "VALIDATION_ERROR", "receiver.name"},
			{"no parcels", without("parcels"), 400, "VALIDATION_ERROR", "parcels"},
			{"too many parcels", shipmentBody("", manyParcels...), 400, "VALIDATION_ERROR", "parcels"},
			{"bad tracking number", shipmentBody("JJ-1"), 400, "VALIDATION_ERROR", "trackingNumber"},
			{"short parcel ID", shipmentBody("", map[string]any{"parcelId": "ABC"}), 400, "VALIDATION_ERROR", "parcels.parcelId"},
			{"parcel ID twice", shipmentBody("", map[string]any{"parcelId": "ABC123456789"}, map[string]any{"parcelId": "abc123456789"}), 400, "VALIDATION_ERROR", "parcels.parcelId"},
			{"negative weight", shipmentBody("", map[string]any{"weight": -1}), 400, "VALIDATION_ERROR", "parcels.weight"},
			{"zero length", shipmentBody("", map[string]any{"length": 0, "width": 1, "height": 1}), 400, "VALIDATION_ERROR", "parcels.length"},
			{"one dimension", shipmentBody("", map[string]any{"length": 10}), 400, "VALIDATION_ERROR", "parcels"},
		}
		for _, c := range cases {
			r := postShipment(e, tok, c.body)
			ge := gatewayErr(t, r)
			if r.Status != c.status || ge.ErrorCode != c.code {
				t.Errorf("%s: %d %+v", c.name, r.Status, ge)
				continue
			}
			if c.field != "" && (len(ge.Details) == 0 || ge.Details[0].Field != c.field) {
				t.Errorf("%s: details %+v, want field %s", c.name, ge.Details, c.field)
			}
		}
		r := e.Do(apitest.Request{Method: "POST", Path: gw + "/shipments", Bearer: tok, Body: "{}", ContentType: "text/plain"})
		if ge := gatewayErr(t, r.Expect(http.StatusUnsupportedMediaType)); ge.ErrorCode != "UNSUPPORTED_MEDIA_TYPE" {
			t.Fatalf("415: %+v", ge)
		}
		e.Do(apitest.Request{Method: "GET", Path: gw + "/shipments/JJFI00000000000000009", Bearer: tok}).Expect(404)
	})
}

func withField(m map[string]any, k string, val any) map[string]any { m[k] = val; return m }

// decisions §3: another tenant's shipment answers exactly like a missing one,
// and its tracking number is free for this tenant (no hint it exists).
func TestShipmentTenancy(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		owner := e.GatewayToken(parcelgate.Production, "1234567-1")
		otherOrg := e.GatewayToken(parcelgate.Production, "7654321-2")
		otherEnv := e.GatewayToken(parcelgate.Test, "1234567-1")
		postShipment(e, owner, shipmentBody("JJFI00000000000000001", map[string]any{"parcelId": "PARCEL000001"})).Expect(http.StatusCreated)
		missing := e.Do(apitest.Request{Method: "GET", Path: gw + "/shipments/JJFI00000000000000404", Bearer: owner}).Expect(404)
		for name, tok := range map[string]string{"other organization": otherOrg, "same business ID, test environment": otherEnv} {
			r := e.Do(apitest.Request{Method: "GET", Path: gw + "/shipments/JJFI00000000000000001", Bearer: tok}).Expect(404)
			if string(r.Body) != string(missing.Body) {
				t.Errorf("%s: %s, missing answers %s", name, r.Body, missing.Body)
			}
			postShipment(e, tok, shipmentBody("JJFI00000000000000001", map[string]any{"parcelId": "PARCEL000001"})).Expect(http.StatusCreated)
		}
	})
}
