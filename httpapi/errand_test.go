package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

// errandOK gets the errand code at path and returns it, failing unless the
// answer is 200 with ResultText OK.
func errandOK(t *testing.T, e *apitest.Env, tok, path string) string {
	t.Helper()
	var res httpapi.ErrandCodes
	e.Do(apitest.Request{Method: "GET", Path: path, Bearer: tok}).Expect(200).JSON(&res)
	if len(res.ErrandCodeResult) != 1 || res.ErrandCodeResult[0].ResultText != parcelgate.ResultOK || !codeForm.MatchString(res.ErrandCodeResult[0].ErrandCode) {
		t.Fatalf("%s: %+v", path, res)
	}
	return res.ErrandCodeResult[0].ErrandCode
}

// interface §2.2, interface §4.2 rule 1, decisions §5: one stable 6-character code per
// parcel whose shipment data exists; the single form answers 404 with the
// result body for an unknown parcel and 400 for a malformed ID.
func TestErrandCodeSingle(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		tok := e.GatewayToken(parcelgate.Production, "1234567-1")
		postShipment(e, tok, shipmentBody("JJFI00000000000000001", map[string]any{"parcelId": "PARCEL000001"}, map[string]any{"parcelId": "PARCEL000002"})).Expect(http.StatusCreated)
		sc := onlyCode(t, postSendingCode(e, tok, sendingCodeFor("JJFI00000000000000001", false)).Expect(200))

		one := errandOK(t, e, tok, "/parcel/v1/errandCodes/PARCEL000001")
		if again := errandOK(t, e, tok, "/parcel/v1/errandCodes/parcel000001"); again != one {
			t.Fatalf("code changed: %s then %s", one, again)
		}
		two := errandOK(t, e, tok, "/parcel/v1/errandCodes/PARCEL000002")
		if len(map[string]bool{one: true, two: true, sc.SendingCode: true}) != 3 {
			t.Fatalf("codes of one environment collide: %s %s %s", one, two, sc.SendingCode)
		}

		var res httpapi.ErrandCodes
		e.Do(apitest.Request{Method: "GET", Path: "/parcel/v1/errandCodes/UNKNOWN00001", Bearer: tok}).Expect(404).JSON(&res)
		if res.ErrandCodeResult[0] != (parcelgate.ErrandCodeResult{ParcelID: "UNKNOWN00001", ResultText: parcelgate.ResultShipmentNotFound}) {
			t.Fatalf("unknown parcel: %+v", res)
		}
		for _, bad := range []string{"SHORT", "PARCEL-00001", strings.Repeat("A", 22)} {
			ge := gatewayErr(t, e.Do(apitest.Request{Method: "GET", Path: "/parcel/v1/errandCodes/" + bad, Bearer: tok}).Expect(400))
			if ge.ErrorCode != "VALIDATION_ERROR" || len(ge.Details) != 1 || ge.Details[0].Field != "parcelId" {
				t.Errorf("%s: %+v", bad, ge)
			}
		}
	})
}

// interface §4.2, decisions §5: the list form answers 200 with one result per
// requested ID in request order, each OK or a readable reason; at most 100
// IDs.
func TestErrandCodeList(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		tok := e.GatewayToken(parcelgate.Production, "1234567-1")
		postShipment(e, tok, shipmentBody("JJFI00000000000000001", map[string]any{"parcelId": "PARCEL000001"}, map[string]any{"parcelId": "PARCEL000002"})).Expect(http.StatusCreated)
		one := errandOK(t, e, tok, "/parcel/v1/errandCodes/PARCEL000001")

		var res httpapi.ErrandCodes
		e.Do(apitest.Request{Method: "GET", Path: "/parcel/v1/errandCodes?id=PARCEL000002,bad,%20parcel000001%20,UNKNOWN00001,PARCEL000002,&id=PARCEL000001", Bearer: tok}).Expect(200).JSON(&res)
		got := res.ErrandCodeResult
		if len(got) != 6 {
			t.Fatalf("%d results: %+v", len(got), got)
		}
		want := []struct{ id, text string }{
			{"PARCEL000002", parcelgate.ResultOK}, {"bad", parcelgate.ResultInvalidParcelID}, {"parcel000001", parcelgate.ResultOK},
			{"UNKNOWN00001", parcelgate.ResultShipmentNotFound}, {"PARCEL000002", parcelgate.ResultOK}, {"PARCEL000001", parcelgate.ResultOK},
		}
		for i, w := range want {
			if got[i].ParcelID != w.id || got[i].ResultText != w.text || (w.text == parcelgate.ResultOK) != codeForm.MatchString(got[i].ErrandCode) {
				t.Errorf("result %d: %+v, want %s %s", i, got[i], w.id, w.text)
			}
		}
		if got[2].ErrandCode != one || got[5].ErrandCode != one || got[0].ErrandCode != got[4].ErrandCode || got[0].ErrandCode == one {
			t.Fatalf("codes not stable per parcel: %+v", got)
		}

		ids := make([]string, parcelgate.MaxErrandCodeIDs+1)
		for i := range ids {
			ids[i] = "PARCEL000001"
		}
		ge := gatewayErr(t, e.Do(apitest.Request{Method: "GET", Path: "/parcel/v1/errandCodes?id=" + strings.Join(ids, ","), Bearer: tok}).Expect(400))
		if ge.ErrorCode != "VALIDATION_ERROR" || ge.Details[0].Field != "id" {
			t.Fatalf("101 IDs: %+v", ge)
		}
		e.Do(apitest.Request{Method: "GET", Path: "/parcel/v1/errandCodes?id=" + strings.Join(ids[1:], ","), Bearer: tok}).Expect(200)
		for _, q := range []string{"", "?id=", "?id=,,"} {
			e.Do(apitest.Request{Method: "GET", Path: "/parcel/v1/errandCodes" + q, Bearer: tok}).Expect(400)
		}
	})
}

// decisions §3, interface §4.2 (parcel-uat): the path selects the environment; each
// environment has its own parcels and codes, and another tenant's parcel
// answers exactly like a missing one.
func TestErrandCodeTenancy(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		prod := e.GatewayToken(parcelgate.Production, "1234567-1")
		test := e.GatewayToken(parcelgate.Test, "1234567-1")
		otherOrg := e.GatewayToken(parcelgate.Production, "7654321-2")
		postShipment(e, prod, shipmentBody("JJFI00000000000000001", map[string]any{"parcelId": "PARCEL000001"})).Expect(http.StatusCreated)
		postShipment(e, test, shipmentBody("JJFI00000000000000001", map[string]any{"parcelId": "PARCEL000002"})).Expect(http.StatusCreated)
		errandOK(t, e, prod, "/parcel/v1/errandCodes/PARCEL000001")
		errandOK(t, e, test, "/parcel-uat/v1/errandCodes/PARCEL000002")

		for path, tok := range map[string]string{"/parcel/v1/errandCodes/PARCEL000001": test, "/parcel-uat/v1/errandCodes/PARCEL000002": prod, "/parcel-uat/v1/errandCodes?id=PARCEL000002": prod} {
			ge := gatewayErr(t, e.Do(apitest.Request{Method: "GET", Path: path, Bearer: tok}).Expect(403))
			if !strings.Contains(ge.Message, "/parcel") {
				t.Errorf("%s with the other environment's token: %+v", path, ge)
			}
		}
		for name, c := range map[string]struct{ tok, path string }{
			"other organization":                 {otherOrg, "/parcel/v1/errandCodes/"},
			"same business ID, test environment": {test, "/parcel-uat/v1/errandCodes/"},
		} {
			theirs := e.Do(apitest.Request{Method: "GET", Path: c.path + "PARCEL000001", Bearer: c.tok}).Expect(404)
			missing := e.Do(apitest.Request{Method: "GET", Path: c.path + "PARCEL000404", Bearer: c.tok}).Expect(404)
			if strings.ReplaceAll(string(missing.Body), "404", "001") != string(theirs.Body) {
				t.Errorf("%s: %s, missing answers %s", name, theirs.Body, missing.Body)
			}
			var res httpapi.ErrandCodes
			e.Do(apitest.Request{Method: "GET", Path: strings.TrimSuffix(c.path, "/") + "?id=PARCEL000001", Bearer: c.tok}).Expect(200).JSON(&res)
			if res.ErrandCodeResult[0].ResultText != parcelgate.ResultShipmentNotFound {
				t.Errorf("%s list: %+v", name, res)
			}
		}
	})
}
