package httpapi_test

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

var codeForm = regexp.MustCompile(`^[0-9A-F]{6}$`)

func postSendingCode(e *apitest.Env, tok string, body any) *apitest.Response {
	e.T.Helper()
	return e.Do(apitest.Request{Method: "POST", Path: gw + "/labelless", Bearer: tok, Body: body})
}

func sendingCodeFor(tn string, noEdiCheck bool) map[string]any {
	b := map[string]any{"searchCriteria": map[string]any{"trackingNumber": tn}}
	if noEdiCheck {
		b["validation"] = map[string]any{"noEdiCheck": true}
	}
	return b
}

// onlyCode returns the single record of a sending code answer.
func onlyCode(t *testing.T, r *apitest.Response) httpapi.SendingCodeRecord {
	t.Helper()
	var sc httpapi.SendingCodes
	r.JSON(&sc)
	if len(sc.Shipments) != 1 {
		t.Fatalf("answer %s", r.Body)
	}
	return sc.Shipments[0]
}

// interface §4.1, decisions §5: a sending code is 6 characters of 0-9 A-F; creation
// is idempotent; tracking numbers are trimmed and upper-cased, codes looked
// up case-insensitively; the lookup by code adds the shipment details.
func TestSendingCodeCreateAndLookup(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		tok := e.GatewayToken(parcelgate.Production, "1234567-1")
		postShipment(e, tok, shipmentBody("JJFI00000000000000001", map[string]any{"parcelId": "PARCEL000001", "packageCode": "M2"}, map[string]any{"length": 60, "width": 37, "height": 30})).Expect(http.StatusCreated)

		first := onlyCode(t, postSendingCode(e, tok, sendingCodeFor("  jjfi00000000000000001 ", false)).Expect(200))
		if first.TrackingNumber != "JJFI00000000000000001" || !codeForm.MatchString(first.SendingCode) || !first.ExpiresAt.Equal(first.CreatedAt.Add(parcelgate.DefaultCodeRetention)) {
			t.Fatalf("created %+v", first)
		}
		again := onlyCode(t, postSendingCode(e, tok, sendingCodeFor("JJFI00000000000000001", false)).Expect(200))
		if again.SendingCode != first.SendingCode || !again.CreatedAt.Equal(first.CreatedAt) {
			t.Fatalf("second POST gave %+v, first %+v", again, first)
		}
		byTN := onlyCode(t, e.Do(apitest.Request{Method: "GET", Path: gw + "/labelless/jjfi00000000000000001", Bearer: tok}).Expect(200))
		if byTN.SendingCode != first.SendingCode {
			t.Fatalf("by tracking number %+v", byTN)
		}
		r := e.Do(apitest.Request{Method: "GET", Path: gw + "/labelless/shipment/" + strings.ToLower(first.SendingCode), Bearer: tok}).Expect(200)
		byCode := onlyCode(t, r)
		if byCode.TrackingNumber != first.TrackingNumber || byCode.Status != parcelgate.ShipmentCreated || byCode.ServiceCode != "2103" ||
			byCode.Receiver.Name != "Maija Meikäläinen" || byCode.Receiver.PostOffice != "Tampere" || len(byCode.Parcels) != 2 ||
			byCode.Parcels[0].LockerSize != parcelgate.LockerM || byCode.Parcels[1].LockerSize != parcelgate.LockerL || byCode.ShipmentAt == nil {
			t.Fatalf("by code %s", r.Body)
		}
		if strings.Contains(string(r.Body), "Tie 2") || strings.Contains(string(r.Body), "maija@example.com") {
			t.Fatalf("the lookup shows the receiver's street or contact: %s", r.Body)
		}
		e.Do(apitest.Request{Method: "GET", Path: gw + "/labelless/shipment/ZZZZZZ", Bearer: tok}).Expect(404)
		e.Do(apitest.Request{Method: "GET", Path: gw + "/labelless/JJFI00000000000000404", Bearer: tok}).Expect(404)
	})
}

// interface §4.1 (validation.noEdiCheck), decisions §5: without shipment data the
// answer is 404 NOT_FOUND "Shipment not found"; with noEdiCheck a code is
// made for the bare tracking number, and its lookup holds no details.
func TestSendingCodeEdiCheck(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		tok := e.GatewayToken(parcelgate.Production, "1234567-1")
		r := postSendingCode(e, tok, sendingCodeFor("JJFI00000000000000777", false)).Expect(404)
		if string(r.Body) != `{"errorCode":"NOT_FOUND","message":"Shipment not found","details":null}`+"\n" {
			t.Fatalf("no EDI: %s", r.Body)
		}
		sc := onlyCode(t, postSendingCode(e, tok, sendingCodeFor("JJFI00000000000000777", true)).Expect(200))
		byCode := onlyCode(t, e.Do(apitest.Request{Method: "GET", Path: gw + "/labelless/shipment/" + sc.SendingCode, Bearer: tok}).Expect(200))
		if byCode.Status != "" || byCode.Parcels != nil || byCode.TrackingNumber != "JJFI00000000000000777" {
			t.Fatalf("bare code lookup %+v", byCode)
		}
		// The bare code is the tracking number's code from then on.
		again := onlyCode(t, postSendingCode(e, tok, sendingCodeFor("JJFI00000000000000777", false)).Expect(200))
		if again.SendingCode != sc.SendingCode {
			t.Fatalf("code changed: %s then %s", sc.SendingCode, again.SendingCode)
		}
	})
}

// decisions §5: bad input to POST /labelless is a 4xx naming the field.
func TestSendingCodeBadInput(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		tok := e.GatewayToken(parcelgate.Production, "1234567-1")
		for _, c := range []struct {
			name  string
			body  any
			code  string
			field string
		}{
			{"no searchCriteria", map[string]any{}, "VALIDATION_ERROR", "searchCriteria.trackingNumber"},
			{"empty tracking number", sendingCodeFor(" ", true), "VALIDATION_ERROR", "searchCriteria.trackingNumber"},
			{"malformed tracking number", sendingCodeFor("JJ FI 1", true), "VALIDATION_ERROR", "searchCriteria.trackingNumber"},
			{"unknown field", withField(sendingCodeFor("JJFI1", true), "priority", 1), "VALIDATION_ERROR", "priority"},
			{"unknown nested field", map[string]any{"searchCriteria": map[string]any{"trackingNumber": "JJFI1", "code": "x"}}, "VALIDATION_ERROR", "searchCriteria.code"},
			{"noEdiCheck not a boolean", map[string]any{"searchCriteria": map[string]any{"trackingNumber": "JJFI1"}, "validation": map[string]any{"noEdiCheck": "yes"}}, "JSON_DECODE_ERROR", ""},
		} {
			ge := gatewayErr(t, postSendingCode(e, tok, c.body).Expect(400))
			if ge.ErrorCode != c.code || (c.field != "" && (len(ge.Details) == 0 || ge.Details[0].Field != c.field)) {
				t.Errorf("%s: %+v", c.name, ge)
			}
		}
		e.Do(apitest.Request{Method: "POST", Path: gw + "/labelless", Bearer: tok, Body: `{"searchCriteria":{"trackingNumber":"JJFI1"}}`, ContentType: "text/plain"}).Expect(415)
		e.Do(apitest.Request{Method: "POST", Path: gw + "/labelless", Body: sendingCodeFor("JJFI1", true)}).Expect(401)
	})
}

// decisions §3: another tenant's tracking number and code answer exactly like
// missing ones, in the other organization and in the other environment.
func TestSendingCodeTenancy(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		owner := e.GatewayToken(parcelgate.Production, "1234567-1")
		postShipment(e, owner, shipmentBody("JJFI00000000000000001")).Expect(http.StatusCreated)
		sc := onlyCode(t, postSendingCode(e, owner, sendingCodeFor("JJFI00000000000000001", false)).Expect(200))

		for name, tok := range map[string]string{
			"other organization":                 e.GatewayToken(parcelgate.Production, "7654321-2"),
			"same business ID, test environment": e.GatewayToken(parcelgate.Test, "1234567-1"),
		} {
			missingTN := e.Do(apitest.Request{Method: "GET", Path: gw + "/labelless/JJFI00000000000000404", Bearer: tok}).Expect(404)
			theirTN := e.Do(apitest.Request{Method: "GET", Path: gw + "/labelless/JJFI00000000000000001", Bearer: tok}).Expect(404)
			if strings.ReplaceAll(string(missingTN.Body), "404", "001") != string(theirTN.Body) {
				t.Errorf("%s: by tracking number %s, missing %s", name, theirTN.Body, missingTN.Body)
			}
			other := "000000"
			if sc.SendingCode == other {
				other = "000001"
			}
			missingCode := e.Do(apitest.Request{Method: "GET", Path: gw + "/labelless/shipment/" + other, Bearer: tok}).Expect(404)
			theirCode := e.Do(apitest.Request{Method: "GET", Path: gw + "/labelless/shipment/" + sc.SendingCode, Bearer: tok}).Expect(404)
			if strings.ReplaceAll(string(missingCode.Body), other, sc.SendingCode) != string(theirCode.Body) {
				t.Errorf("%s: by code %s, missing %s", name, theirCode.Body, missingCode.Body)
			}
			if r := postSendingCode(e, tok, sendingCodeFor("JJFI00000000000000001", false)); r.Status != 404 {
				t.Errorf("%s: POST for another tenant's shipment: %d %s", name, r.Status, r.Body)
			}
		}
	})
}

// shipmentWithCodes posts shipment JJFI00000000000000001 with parcel
// PARCEL000001, then asks for its sending code and the parcel's errand
// code (each answered 200): the two active codes the freeing tests free.
func shipmentWithCodes(t *testing.T, e *apitest.Env, tok string) httpapi.SendingCodeRecord {
	t.Helper()
	postShipment(e, tok, shipmentBody("JJFI00000000000000001", map[string]any{"parcelId": "PARCEL000001"})).Expect(http.StatusCreated)
	sc := onlyCode(t, postSendingCode(e, tok, sendingCodeFor("JJFI00000000000000001", false)).Expect(200))
	errandOK(t, e, tok, "/parcel/v1/errandCodes/PARCEL000001")
	return sc
}

// decisions §5, §9: delivering a shipment frees its sending and errand codes
// at once; later requests for its codes are refused.
func TestCodesFreedOnDelivery(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		tok := e.GatewayToken(parcelgate.Production, "1234567-1")
		sc := shipmentWithCodes(t, e, tok)
		if n := activeCodes(t, e, parcelgate.Production); n != "2" {
			t.Fatalf("active codes before delivery: %v", n)
		}

		deliver := map[string]any{"businessId": "1234567-1", "trackingNumber": "jjfi00000000000000001", "value": "Delivered"}
		var s parcelgate.Shipment
		e.Admin("POST", "/admin/v1/shipments/status", deliver).Expect(200).JSON(&s)
		if s.Status != parcelgate.ShipmentDelivered || s.DeliveredAt == nil {
			t.Fatalf("delivered %+v", s)
		}
		e.Admin("POST", "/admin/v1/shipments/status", deliver).Expect(200)
		if n := activeCodes(t, e, parcelgate.Production); n != "0" {
			t.Fatalf("active codes after delivery: %v", n)
		}
		e.Do(apitest.Request{Method: "GET", Path: gw + "/labelless/JJFI00000000000000001", Bearer: tok}).Expect(404)
		e.Do(apitest.Request{Method: "GET", Path: gw + "/labelless/shipment/" + sc.SendingCode, Bearer: tok}).Expect(404)
		postSendingCode(e, tok, sendingCodeFor("JJFI00000000000000001", false)).Expect(http.StatusConflict)
		var res httpapi.ErrandCodes
		e.Do(apitest.Request{Method: "GET", Path: "/parcel/v1/errandCodes/PARCEL000001", Bearer: tok}).Expect(404).JSON(&res)
		if res.ErrandCodeResult[0].ResultText != parcelgate.ResultShipmentDelivered {
			t.Fatalf("errand code of a delivered parcel: %+v", res)
		}

		for _, bad := range []map[string]any{
			{"businessId": "1234567-1", "trackingNumber": "JJFI00000000000000001", "value": "Lost"},
			{"businessId": "1234567-1", "value": "Delivered"},
			{"businessId": "1234567-1", "trackingNumber": "JJFI00000000000000001", "value": "Delivered", "at": "now"},
		} {
			e.Admin("POST", "/admin/v1/shipments/status", bad).Expect(400)
		}
		deliver["environment"] = "test"
		e.Admin("POST", "/admin/v1/shipments/status", deliver).Expect(404)
	})
}

// decisions §5: a code is freed after the retention period: reads no longer
// see it, and the next request makes a new one.
func TestCodesExpire(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		tok := e.GatewayToken(parcelgate.Production, "1234567-1")
		sc := shipmentWithCodes(t, e, tok)

		e.Clock.Advance(parcelgate.DefaultCodeRetention)
		tok = e.GatewayToken(parcelgate.Production, "1234567-1")
		if n := activeCodes(t, e, parcelgate.Production); n != "0" {
			t.Fatalf("active codes after the retention period: %v", n)
		}
		e.Do(apitest.Request{Method: "GET", Path: gw + "/labelless/JJFI00000000000000001", Bearer: tok}).Expect(404)
		e.Do(apitest.Request{Method: "GET", Path: gw + "/labelless/shipment/" + sc.SendingCode, Bearer: tok}).Expect(404)
		renewed := onlyCode(t, postSendingCode(e, tok, sendingCodeFor("JJFI00000000000000001", false)).Expect(200))
		if !renewed.CreatedAt.After(sc.CreatedAt) {
			t.Fatalf("renewed %+v, old %+v", renewed, sc)
		}
		errandOK(t, e, tok, "/parcel/v1/errandCodes/PARCEL000001")
		if n := activeCodes(t, e, parcelgate.Production); n != "2" {
			t.Fatalf("active codes after renewal: %v", n)
		}
	})
}

// activeCodes reads the parcelgate_active_codes metric of env.
func activeCodes(t *testing.T, e *apitest.Env, env parcelgate.Environment) string {
	t.Helper()
	resp, err := e.HTTP.Client().Get(e.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	m := regexp.MustCompile(`(?m)^parcelgate_active_codes\{environment="` + string(env) + `"\} (\S+)$`).FindStringSubmatch(string(b))
	if m == nil {
		t.Fatalf("no parcelgate_active_codes for %s in\n%s", env, b)
	}
	return m[1]
}
