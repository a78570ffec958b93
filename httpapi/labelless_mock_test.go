package httpapi_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/auth"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
	"github.com/parcelgate/parcelgate/internal/wiring"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// mockHeader is the provider's header that asks the Sending Code API for
// mock data.
var mockHeader = http.Header{"X-Test-Environment": {"true"}}

// mockCode asks for a mock answer at path (a POST with body when body is
// not nil) and returns its one record, checking it is marked as mock.
func mockCode(t *testing.T, e *apitest.Env, tok, path string, body any) httpapi.SendingCodeRecord {
	t.Helper()
	method := "GET"
	if body != nil {
		method = "POST"
	}
	r := e.Do(apitest.Request{Method: method, Path: path, Bearer: tok, Body: body, Header: mockHeader}).Expect(200)
	if r.Header.Get("X-Test-Environment") != "true" {
		t.Fatalf("%s %s: the mock answer is not marked by its header", method, path)
	}
	rec := onlyCode(t, r)
	if !rec.Mock || !codeForm.MatchString(rec.SendingCode) || !rec.ExpiresAt.After(rec.CreatedAt) {
		t.Fatalf("%s %s: mock record %+v", method, path, rec)
	}
	return rec
}

// the provider's Sending Code API page (Sending Code API: "the header
// x-test-environment: true answers mock data on the production host, e.g.
// a code for any tracking number"), decisions §39: in either environment,
// any well-formed tracking number gets a deterministic mock code (the same
// on every call, by POST and by GET), a lookup by any well-formed code a
// mock shipment, each marked as mock; nothing is stored — no code is held
// after (the number's real lookup stays 404, the environment's active
// codes stay as they were), and a shipment's real code is neither shown
// nor changed. A malformed number or code is still 400, an unclear header
// 400 naming it, a missing token 401.
func TestSendingCodeTestEnvironmentMock(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		prod := e.GatewayToken(parcelgate.Production, "1234567-1")
		test := e.GatewayToken(parcelgate.Test, "1234567-1")
		// A real shipment with a real code, to be left alone.
		postShipment(e, prod, shipmentBody("JJFI00000000000000001")).Expect(http.StatusCreated)
		real := onlyCode(t, postSendingCode(e, prod, sendingCodeFor("JJFI00000000000000001", false)).Expect(200))
		before := activeCodes(t, e, parcelgate.Production)

		for _, tok := range []string{prod, test} {
			tn := "JJFI99999999999999999"
			first := mockCode(t, e, tok, gw+"/labelless", sendingCodeFor(" jjfi99999999999999999 ", false))
			if first.TrackingNumber != tn || first.SendingCode != parcelgate.MockSendingCode(tn) {
				t.Fatalf("mock code %+v", first)
			}
			again := mockCode(t, e, tok, gw+"/labelless", sendingCodeFor(tn, true))
			byTN := mockCode(t, e, tok, gw+"/labelless/"+strings.ToLower(tn), nil)
			same := func(a, b httpapi.SendingCodeRecord) bool {
				return a.TrackingNumber == b.TrackingNumber && a.SendingCode == b.SendingCode && a.CreatedAt.Equal(b.CreatedAt) && a.ExpiresAt.Equal(b.ExpiresAt)
			}
			if !same(again, first) || !same(byTN, first) {
				t.Fatalf("not deterministic: %+v, %+v, %+v", first, again, byTN)
			}
			// Any number of the form, S10 too, has a code without shipment data.
			if s10 := mockCode(t, e, tok, gw+"/labelless", sendingCodeFor("CP123456785FI", false)); s10.SendingCode != parcelgate.MockSendingCode("CP123456785FI") {
				t.Fatalf("S10 mock %+v", s10)
			}
			byCode := mockCode(t, e, tok, gw+"/labelless/shipment/"+strings.ToLower(first.SendingCode), nil)
			if byCode.SendingCode != first.SendingCode || byCode.TrackingNumber != parcelgate.MockTrackingNumber(first.SendingCode) ||
				byCode.Status != parcelgate.ShipmentCreated || len(byCode.Parcels) != 1 || byCode.Receiver == nil {
				t.Fatalf("mock lookup by code %+v", byCode)
			}
			// The stored shipment's number gets the mock code, not its own.
			if m := mockCode(t, e, tok, gw+"/labelless/JJFI00000000000000001", nil); m.SendingCode != parcelgate.MockSendingCode("JJFI00000000000000001") || m.CreatedAt.Equal(real.CreatedAt) {
				t.Fatalf("the mock answer showed the stored code: %+v (real %+v)", m, real)
			}
			mockCode(t, e, tok, gw+"/labelless/shipment/"+real.SendingCode, nil)

			// Nothing was stored: without the header the number has no code.
			e.Do(apitest.Request{Method: "GET", Path: gw + "/labelless/" + tn, Bearer: tok}).Expect(404)
			e.Do(apitest.Request{Method: "GET", Path: gw + "/labelless/shipment/" + first.SendingCode, Bearer: tok, Header: http.Header{"X-Test-Environment": {"false"}}}).Expect(404)

			// Malformed input is 400 as without the header.
			for _, r := range []apitest.Request{
				{Method: "POST", Path: gw + "/labelless", Body: sendingCodeFor("JJ FI 1", false)},
				{Method: "POST", Path: gw + "/labelless", Body: map[string]any{}},
				{Method: "POST", Path: gw + "/labelless", Body: withField(sendingCodeFor(tn, false), "priority", 1)},
				{Method: "GET", Path: gw + "/labelless/JJF"},
				{Method: "GET", Path: gw + "/labelless/shipment/GGGGGG"},
				{Method: "GET", Path: gw + "/labelless/shipment/12345"},
			} {
				r.Bearer, r.Header = tok, mockHeader
				if ge := gatewayErr(t, e.Do(r).Expect(400)); ge.ErrorCode != "VALIDATION_ERROR" || len(ge.Details) == 0 {
					t.Errorf("%s %s: %+v", r.Method, r.Path, ge)
				}
			}
			ge := gatewayErr(t, e.Do(apitest.Request{Method: "GET", Path: gw + "/labelless/" + tn, Bearer: tok, Header: http.Header{"X-Test-Environment": {"yes"}}}).Expect(400))
			if len(ge.Details) != 1 || ge.Details[0].Field != "x-test-environment" {
				t.Errorf("an unclear header: %+v", ge)
			}
		}
		e.Do(apitest.Request{Method: "POST", Path: gw + "/labelless", Body: sendingCodeFor("JJFI1234", false), Header: mockHeader}).Expect(401)

		if after := activeCodes(t, e, parcelgate.Production); after != before {
			t.Fatalf("active codes %s before the mock calls, %s after", before, after)
		}
		if n := activeCodes(t, e, parcelgate.Test); n != "0" {
			t.Fatalf("the test environment holds %s codes after mock calls only", n)
		}
		if again := onlyCode(t, e.Do(apitest.Request{Method: "GET", Path: gw + "/labelless/JJFI00000000000000001", Bearer: prod}).Expect(200)); again.SendingCode != real.SendingCode || !again.CreatedAt.Equal(real.CreatedAt) {
			t.Fatalf("the real code changed: %+v, was %+v", again, real)
		}
	})
}

// untouchedCodes and untouchedShipments are stores of which every call
// panics (a nil interface inside): a server over them answers 500 to any
// request that reaches them.
type untouchedCodes struct{ parcelgate.CodeService }
type untouchedShipments struct{ parcelgate.ShipmentService }

// decisions §39: a mock answer never reaches the shipment or code store —
// a server whose code and shipment stores fail every call still answers
// each mock request (tokens are still checked by the credential store).
func TestSendingCodeMockTouchesNoStore(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		tok := e.GatewayToken(parcelgate.Production, "1234567-1")
		keys, err := sqlstore.NewTokenKeyService(e.DB).TokenKeys(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		svc := wiring.HTTP(e.DB)
		svc.Codes, svc.Shipments = untouchedCodes{}, untouchedShipments{}
		h := httpapi.New(svc, auth.NewKeyring(keys), e.Clock, slog.New(slog.NewTextHandler(io.Discard, nil)), httpapi.Config{OffsetClock: e.Clock, Sandbox: true})
		t.Cleanup(h.Close)
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		other := &apitest.Env{T: t, DB: e.DB, Server: h, HTTP: srv, Clock: e.Clock, URL: srv.URL}
		rec := mockCode(t, other, tok, gw+"/labelless", sendingCodeFor("JJFI00000000000000042", false))
		mockCode(t, other, tok, gw+"/labelless/JJFI00000000000000042", nil)
		mockCode(t, other, tok, gw+"/labelless/shipment/"+rec.SendingCode, nil)
		// Without the header the request reaches the failing store: the
		// check above proves something.
		other.Do(apitest.Request{Method: "GET", Path: gw + "/labelless/JJFI00000000000000042", Bearer: tok}).Expect(500)
	})
}
