package httpapi_test

import (
	"encoding/base64"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
	"github.com/parcelgate/parcelgate/pickup"
)

const shippingV2 = "/shippingapi/api/v2/shipping/order"

var s10Form = regexp.MustCompile(`^CP[0-9]{9}FI$`)

// shippingBody is the body posti-cli's `shipment create` documents
// (printConfig, shipment with senderPartners, sender, receiver, agent,
// service.id, parcels[] with copies, weight, packageCode, valuePerParcel).
func shippingBody(service, quickID string, copies int, addons ...string) map[string]any {
	sh := map[string]any{
		"senderPartners": []any{map[string]any{"id": "POSTI", "custNo": "677503"}},
		"sender":         map[string]any{"name": "Kauppa Oy", "address1": "Mannerheimintie 1", "zipcode": "00100", "city": "Helsinki", "country": "FI", "phone": "+358401111111", "email": "shop@example.com"},
		"receiver":       map[string]any{"name": "Matti Meikäläinen", "address1": "Hämeenkatu 5", "zipcode": "33100", "city": "Tampere", "country": "FI", "email": "matti@example.com"},
		"service":        map[string]any{"id": service},
		"parcels":        []any{map[string]any{"copies": copies, "weight": 2.5, "packageCode": "PKT", "contents": "Kirjoja", "valuePerParcel": false}},
	}
	if quickID != "" {
		sh["agent"] = map[string]any{"quickId": quickID}
	}
	if len(addons) > 0 {
		var as []any
		for _, a := range addons {
			as = append(as, map[string]any{"id": a})
		}
		sh["service"].(map[string]any)["addons"] = as
	}
	return map[string]any{"printConfig": map[string]any{"target1Media": "laser-a5"}, "shipment": sh}
}

func createShipping(t *testing.T, e *apitest.Env, tok string, body any, query string) httpapi.ShippingOrderAnswer {
	t.Helper()
	var ans []httpapi.ShippingOrderAnswer
	e.Do(apitest.Request{Method: "POST", Path: shippingV2 + query, Bearer: tok, Body: body}).Expect(200).JSON(&ans)
	if len(ans) != 1 {
		t.Fatalf("answer of %d shipments", len(ans))
	}
	return ans[0]
}

// tampere is a pick-up point of service 2103 near the receiver.
func tampere(t *testing.T) string {
	t.Helper()
	pt, ok := pickup.Network{}.NearestPickupPoint("33100", "2103")
	if !ok {
		t.Fatal("no 2103 point near 33100")
	}
	return pt.ExternalID
}

// pdfText is the text of a PDF as poppler's pdftotext reads it; ok is
// false (the check left out, the rest of the test run) without
// poppler-utils, unless CI is set, when the test fails.
func pdfText(t *testing.T, pdf []byte) (text string, ok bool) {
	t.Helper()
	p, err := exec.LookPath("pdftotext")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("pdftotext is not installed (Debian: poppler-utils)")
		}
		t.Log("pdftotext is not installed (Debian: poppler-utils); the label text check is left out")
		return "", false
	}
	cmd := exec.Command(p, "-", "-")
	cmd.Stdin = strings.NewReader(string(pdf))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	return string(out), true
}

// decodeBarcodes rasterizes a PDF and reads its Code 128 barcodes with
// zbarimg; ok is false (the check left out) without poppler-utils and
// zbar-tools, unless CI is set, when the test fails.
func decodeBarcodes(t *testing.T, pdf []byte) (codes []string, ok bool) {
	t.Helper()
	var tools []string
	for _, name := range []string{"pdftoppm", "zbarimg"} {
		p, err := exec.LookPath(name)
		if err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is not installed (Debian: poppler-utils, zbar-tools)", name)
			}
			t.Logf("%s is not installed (Debian: poppler-utils, zbar-tools); the barcode check is left out", name)
			return nil, false
		}
		tools = append(tools, p)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "label.pdf")
	if err := os.WriteFile(in, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(tools[0], "-r", "200", "-gray", "-png", in, filepath.Join(dir, "p")).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v %s", err, out)
	}
	pages, _ := filepath.Glob(filepath.Join(dir, "p*.png"))
	for _, p := range pages {
		out, err := exec.Command(tools[1], "-q", "--raw", "-Sdisable", "-Scode128.enable", p).Output()
		if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 4 {
			continue
		}
		if err != nil {
			t.Fatalf("zbarimg: %v", err)
		}
		codes = append(codes, strings.Fields(string(out))...)
	}
	return codes, true
}

// decisions §29 (the provider's shipping API v2; posti-cli creates with
// ?returnFile=true and saves prints[].data): one shipment in, one parcel
// number per parcel copy (JJFI for a domestic service), a label PDF inline
// and at prints[].href with the same token; its barcodes read back as the
// parcel numbers. The shipment is shipment data: a sending code (with
// additional service 3196) and errand codes follow, and the label printed
// after shows them.
func TestShippingOrderLabelAndCodes(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		tok := e.GatewayToken(parcelgate.Production, "1234567-1")
		point := tampere(t)
		ans := createShipping(t, e, tok, shippingBody("PO2103", point, 2, "3196"), "?returnFile=true")
		if len(ans.Parcels) != 2 || !generatedID.MatchString(ans.Parcels[0].ParcelNo) || !generatedID.MatchString(ans.Parcels[1].ParcelNo) || ans.Parcels[0].ParcelNo == ans.Parcels[1].ParcelNo {
			t.Fatalf("parcels %+v", ans.Parcels)
		}
		tn := ans.Parcels[0].ParcelNo
		if ans.ShipmentNo != tn || ans.Status != "PRINTED" || len(ans.Prints) != 1 || ans.Pdfs != nil {
			t.Fatalf("answer %+v", ans)
		}
		pr := ans.Prints[0]
		pdf, err := base64.StdEncoding.DecodeString(pr.Data)
		if err != nil || !strings.HasPrefix(string(pdf), "%PDF-") || pr.Media != "laser-a5" || pr.PdfType != "ADDRESSLABEL" {
			t.Fatalf("print %+v (%v)", pr, err)
		}
		if codes, ok := decodeBarcodes(t, pdf); ok {
			for _, p := range ans.Parcels {
				if !slices.Contains(codes, p.ParcelNo) {
					t.Errorf("label barcodes %q lack parcel %s", codes, p.ParcelNo)
				}
			}
		}

		// The href serves the same labels with the same token, in another
		// medium on request; another tenant gets 404.
		path := strings.TrimPrefix(pr.Href, e.URL)
		if !strings.HasPrefix(path, "/shippingapi/api/v2/shipping/label/") {
			t.Fatalf("href %s", pr.Href)
		}
		r := e.Do(apitest.Request{Method: "GET", Path: path, Bearer: tok}).Expect(200)
		if r.Header.Get("Content-Type") != "application/pdf" || !strings.HasPrefix(string(r.Body), "%PDF-") {
			t.Fatalf("label: %s %q", r.Header.Get("Content-Type"), r.Body[:min(len(r.Body), 40)])
		}
		other := e.GatewayToken(parcelgate.Production, "7654321-2")
		ge := gatewayErr(t, e.Do(apitest.Request{Method: "GET", Path: path, Bearer: other}).Expect(404))
		if ge.ErrorCode != "NOT_FOUND" {
			t.Fatalf("another tenant's label: %+v", ge)
		}
		e.Do(apitest.Request{Method: "GET", Path: "/shippingapi/api/v2/shipping/label/" + tn + "?media=laser-a3", Bearer: tok}).Expect(400)

		// Sending code (interface §4.1) and errand codes (interface §4.2) for
		// the parcels made here, without noEdiCheck.
		sc := onlyCode(t, postSendingCode(e, tok, sendingCodeFor(tn, false)).Expect(200))
		if !codeForm.MatchString(sc.SendingCode) {
			t.Fatalf("sending code %+v", sc)
		}
		errand := errandOK(t, e, tok, "/parcel/v1/errandCodes/"+ans.Parcels[1].ParcelNo)
		// Another tenant has no shipment data for them.
		postSendingCode(e, other, sendingCodeFor(tn, false)).Expect(404)
		var res httpapi.ErrandCodes
		e.Do(apitest.Request{Method: "GET", Path: "/parcel/v1/errandCodes/" + ans.Parcels[1].ParcelNo, Bearer: other}).Expect(404).JSON(&res)
		if res.ErrandCodeResult[0].ResultText != parcelgate.ResultShipmentNotFound {
			t.Fatalf("another tenant's errand code: %+v", res)
		}

		// The shipment data alias reads the same store: the pick-up point,
		// the additional service and the parcels with their contents.
		var sh parcelgate.Shipment
		e.Do(apitest.Request{Method: "GET", Path: gw + "/shipments/" + tn, Bearer: tok}).Expect(200).JSON(&sh)
		if sh.Origin != parcelgate.OriginShipping || sh.PickupPointID != point || !slices.Equal(sh.AdditionalServices, []string{"3196"}) ||
			len(sh.Parcels) != 2 || sh.Parcels[1].Contents != "Kirjoja" || *sh.Parcels[0].Weight != 2.5 || sh.Parcels[0].LockerSize != parcelgate.LockerS || sh.ContractNumber != "677503" {
			t.Fatalf("stored %+v", sh)
		}

		// A label fetched now prints the codes: thermo medium, by the
		// second parcel's number.
		r = e.Do(apitest.Request{Method: "GET", Path: "/shippingapi/api/v2/shipping/label/" + ans.Parcels[1].ParcelNo + "?media=thermo-225", Bearer: tok}).Expect(200)
		if text, ok := pdfText(t, r.Body); ok && (!strings.Contains(text, sc.SendingCode) || !strings.Contains(text, errand) || !strings.Contains(text, "Kirjoja")) {
			t.Fatalf("the label printed after the codes lacks them (%s, %s):\n%s", sc.SendingCode, errand, text)
		}

		// And the parcel is on its way as the clock moves (decisions §30):
		// the Tracking API shows it received two hours later.
		e.Clock.Advance(2*time.Hour + time.Minute)
		p := onlyParcel(t, track(t, e, parcelgate.Production, "1234567-1", "trackingnumber/"+ans.Parcels[1].ParcelNo))
		if p.Status.Code != parcelgate.StatusReceived || len(p.Events) != 2 || p.Events[1].EventCode != parcelgate.EventReceived {
			t.Fatalf("tracking 2 h after creation: %+v", p)
		}
	})
}

// decisions §29: the provider's refusals of the shipping API: an unknown
// or retired agent point is its E41; an unknown service, a bad medium, a
// copies count out of range and missing parties name the provider's
// fields; a token is required.
func TestShippingOrderRefusals(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		tok := e.GatewayToken(parcelgate.Production, "1234567-1")
		refuse := func(body any, field string) httpapi.GatewayError {
			t.Helper()
			ge := gatewayErr(t, e.Do(apitest.Request{Method: "POST", Path: shippingV2, Bearer: tok, Body: body}).Expect(400))
			if ge.ErrorCode != "VALIDATION_ERROR" || !slices.ContainsFunc(ge.Details, func(f parcelgate.FieldError) bool { return f.Field == field }) {
				t.Fatalf("refusal %+v, want one naming %s", ge, field)
			}
			return ge
		}
		if ge := refuse(shippingBody("PO2103", "999999999", 1), "shipment.agent.quickId"); ge.Message != parcelgate.InactivePickupPoint {
			t.Fatalf("unknown point: %q", ge.Message)
		}
		// A point that does not take the service is no agent for it.
		if ge := refuse(shippingBody("PO2104", tampere(t), 1), "shipment.agent.quickId"); !strings.HasPrefix(ge.Message, "E41:") {
			t.Fatalf("point of another service: %q", ge.Message)
		}
		refuse(shippingBody("PO9999", "", 1), "shipment.service.id")
		refuse(shippingBody("2103", "", 1), "shipment.service.id")
		refuse(shippingBody("PO2711", "", 1, "3196"), "shipment.service.addons.id")
		refuse(shippingBody("PO2103", "", 0), "shipment.parcels.copies")
		bad := shippingBody("PO2103", "", 1)
		bad["printConfig"] = map[string]any{"target1Media": "laser-a3"}
		refuse(bad, "printConfig.target1Media")
		noReceiver := shippingBody("PO2103", "", 1)
		delete(noReceiver["shipment"].(map[string]any), "receiver")
		refuse(noReceiver, "shipment.receiver")
		// A 2103 receiver abroad: the service delivers in Finland only
		// (decisions §39).
		abroad := shippingBody("PO2103", "", 1)
		abroad["shipment"].(map[string]any)["receiver"].(map[string]any)["country"] = "SE"
		refuse(abroad, "shipment.receiver.country")
		// Hostile or broken bodies: a NUL in a name, a number as text, no
		// JSON at all, too many parcels.
		nul := shippingBody("PO2103", "", 1)
		nul["shipment"].(map[string]any)["receiver"].(map[string]any)["name"] = "Matti\u0000"
		e.Do(apitest.Request{Method: "POST", Path: shippingV2, Bearer: tok, Body: nul}).Expect(400)
		text := shippingBody("PO2103", "", 1)
		text["shipment"].(map[string]any)["parcels"] = []any{map[string]any{"copies": "2"}}
		refuse(text, "shipment.parcels.copies")
		if ge := gatewayErr(t, e.Do(apitest.Request{Method: "POST", Path: shippingV2, Bearer: tok, Body: "{"}).Expect(400)); ge.ErrorCode != "JSON_DECODE_ERROR" {
			t.Fatalf("broken JSON: %+v", ge)
		}
		many := shippingBody("PO2103", "", 60)
		many["shipment"].(map[string]any)["parcels"] = []any{map[string]any{"copies": 60}, map[string]any{"copies": 60}}
		refuse(many, "shipment.parcels.copies")
		e.Do(apitest.Request{Method: "POST", Path: shippingV2, Body: shippingBody("PO2103", "", 1)}).Expect(401)
	})
}

// decisions §29: 2103 without an agent goes to the point nearest the
// receiver; an international service numbers its parcels in UPU S10 form;
// a shipment without additional service 3196, or of a service that is not
// sent label-less, gets the provider's 404 from POST /labelless.
func TestShippingOrderServiceRules(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		tok := e.GatewayToken(parcelgate.Test, "1234567-1")
		ans := createShipping(t, e, tok, shippingBody("po2103", "", 1), "")
		if ans.Prints[0].Data != "" {
			t.Fatal("label inline without returnFile")
		}
		var sh parcelgate.Shipment
		e.Do(apitest.Request{Method: "GET", Path: gw + "/shipments/" + ans.ShipmentNo, Bearer: tok}).Expect(200).JSON(&sh)
		if sh.PickupPointID != tampere(t) {
			t.Fatalf("2103 without agent went to %q, want the nearest %q", sh.PickupPointID, tampere(t))
		}
		ge := gatewayErr(t, postSendingCode(e, tok, sendingCodeFor(ans.ShipmentNo, false)).Expect(404))
		if ge.Message != "Shipment not allowed for helposti code generation, Additional service 3196 is missing" {
			t.Fatalf("no 3196: %+v", ge)
		}
		intl := shippingBody("PO2711", "", 1)
		intl["shipment"].(map[string]any)["receiver"] = map[string]any{"name": "Sven Svensson", "address1": "Storgatan 1", "zipcode": "11122", "city": "Stockholm", "country": "SE"}
		ia := createShipping(t, e, tok, intl, "")
		if !s10Form.MatchString(ia.ShipmentNo) || parcelgate.S10CheckDigit(ia.ShipmentNo[2:10]) != ia.ShipmentNo[10] {
			t.Fatalf("international parcel number %s", ia.ShipmentNo)
		}
		ge = gatewayErr(t, postSendingCode(e, tok, sendingCodeFor(ia.ShipmentNo, false)).Expect(404))
		if !strings.Contains(ge.Message, "service 2711 does not allow label-less sending") {
			t.Fatalf("2711: %+v", ge)
		}
		// Errand codes need only the shipment data.
		errandOK(t, e, tok, "/parcel-uat/v1/errandCodes/"+ia.ShipmentNo)
	})
}

// decisions §29 (the legacy v1, posti-cli before 611ac8e): the key bare in
// Authorization, pdfConfig for printConfig, pdfs[].pdf in the answer; and
// the gateway token lists the shippingapi target.
func TestShippingOrderLegacyAndToken(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		id, secret := e.GatewayClient(parcelgate.Production, "1234567-1")
		var tok httpapi.GatewayToken
		e.Do(apitest.Request{Method: "POST", Path: "/api/v1/token", ContentType: "application/x-www-form-urlencoded",
			Body: "grant_type=client_credentials&client_id=" + id + "&client_secret=" + secret}).Expect(200).JSON(&tok)
		if tg, ok := tok.PostiFI.Targets["shippingapi"]; !ok || tg.URL != e.URL+"/shippingapi" {
			t.Fatalf("targets %+v", tok.PostiFI.Targets)
		}
		body := shippingBody("PO2103", "", 1, "3196")
		body["pdfConfig"] = map[string]any{"target1Media": "thermo-190"}
		delete(body, "printConfig")
		var ans []httpapi.ShippingOrderAnswer
		e.Do(apitest.Request{Method: "POST", Path: "/shippingapi/api/v1/shipping/order?returnFile=true", Header: http.Header{"Authorization": {tok.AccessToken}}, Body: body}).Expect(200).JSON(&ans)
		if len(ans) != 1 || len(ans[0].Pdfs) != 1 || ans[0].Prints != nil || ans[0].Pdfs[0].Media != "thermo-190" {
			t.Fatalf("v1 answer %+v", ans)
		}
		if pdf, err := base64.StdEncoding.DecodeString(ans[0].Pdfs[0].Pdf); err != nil || !strings.HasPrefix(string(pdf), "%PDF-") {
			t.Fatalf("v1 pdf: %v", err)
		}
		path := strings.TrimPrefix(ans[0].Pdfs[0].Href, e.URL)
		e.Do(apitest.Request{Method: "GET", Path: path, Header: http.Header{"Authorization": {tok.AccessToken}}}).Expect(200)
		e.Do(apitest.Request{Method: "GET", Path: path, Header: http.Header{"Authorization": {"not-a-token"}}}).Expect(401)
	})
}
