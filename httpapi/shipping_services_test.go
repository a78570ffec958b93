package httpapi_test

import (
	"encoding/base64"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
	"github.com/parcelgate/parcelgate/pickup"
)

// party is a shipping API sender or receiver in country.
func party(name, street, zip, city, country string) map[string]any {
	return map[string]any{"name": name, "address1": street, "zipcode": zip, "city": city, "country": country, "mobile": "+3584012345678", "email": "x@example.com"}
}

// pointAbroad is a pick-up point parcelgate holds in country, else an ID of
// a partner network's point it holds no data for (taken as given,
// decisions §39).
func pointAbroad(country string) string {
	for _, p := range pickup.AllPickupPoints() {
		if p.Country == country {
			return p.ExternalID
		}
	}
	return "100010001"
}

var (
	jjfiForm   = regexp.MustCompile(`^JJFI[0-9]{17}$`)
	s10AnyForm = regexp.MustCompile(`^([A-Z]{2})[0-9]{9}FI$`)
)

// the service codes the provider's clients offer and posti-cli's
// methods.py: `shipment create` with each of posti-cli's six methods works
// as the CLI sends it (service.id PO…, parcels with copies, weight,
// packageCode PKT, contents, valuePerParcel false, ?returnFile=true, and
// agent.quickId for its pick-up methods), and so do the other clients'
// five codes (PO2461, PO2108, PO2718, PO2338, PO2144): each answers its
// parcels in the service's number form (JJFI at home, UPU S10 abroad, E.
// for EMS), a label PDF that names the service, and the stored shipment
// carries the service and its point (decisions §39).
func TestShippingServiceCodesOfTheClients(t *testing.T) {
	fi := party("Matti Meikäläinen", "Hämeenkatu 5", "33100", "Tampere", "FI")
	shop := party("Kauppa Oy", "Mannerheimintie 1", "00100", "Helsinki", "FI")
	cases := []struct {
		service, agent   string
		sender, receiver map[string]any
		s10              string // "" for JJFI
		name             string // the label's Finnish service name
	}{
		// posti-cli's six.
		{"PO2103", "", shop, fi, "", "Postipaketti"},
		{"PO2351", pointAbroad("EE"), shop, party("Mari Tamm", "Narva mnt 5", "10117", "Tallinn", "EE"), "CP", "PickUp Parcel"},
		{"PO2331", pointAbroad("LV"), shop, party("Janis Berzins", "Brivibas iela 1", "LV-1010", "Riga", "LV"), "CP", "Baltiaan"},
		{"PO2352", "", shop, party("Ona Kazlauskiene", "Gedimino pr. 1", "01103", "Vilnius", "LT"), "CP", "Home Parcel"},
		{"PO2015", "", shop, party("Hans Muster", "Hauptstrasse 1", "10115", "Berlin", "DE"), "CP", "Priority"},
		{"PO2017", "", shop, party("John Doe", "1 Main St", "10001", "New York", "US"), "EA", "EMS"},
		// The other clients' five.
		{"PO2461", "", shop, fi, "", "Pikkupaketti"},
		{"PO2108", "", fi, shop, "", "Palautus"},
		{"PO2718", "", party("Hans Muster", "Hauptstrasse 1", "10115", "Berlin", "DE"), shop, "CP", "Parcel Return Connect"},
		{"PO2338", "", party("Mari Tamm", "Narva mnt 5", "10117", "Tallinn", "EE"), shop, "CP", "Baltiasta"},
		{"PO2144", "", shop, fi, "", "Express-rahti"},
	}
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		tok := e.GatewayToken(parcelgate.Production, "1234567-1")
		for _, c := range cases {
			body := shippingBody(c.service, c.agent, 2)
			sh := body["shipment"].(map[string]any)
			sh["sender"], sh["receiver"] = c.sender, c.receiver
			body["printConfig"] = map[string]any{"target1Media": "thermo-225"}
			ans := createShipping(t, e, tok, body, "?returnFile=true")
			if len(ans.Parcels) != 2 || ans.ShipmentNo != ans.Parcels[0].ParcelNo {
				t.Fatalf("%s: %+v", c.service, ans)
			}
			for _, p := range ans.Parcels {
				if c.s10 == "" && !jjfiForm.MatchString(p.ParcelNo) {
					t.Errorf("%s: domestic parcel number %s", c.service, p.ParcelNo)
				}
				if m := s10AnyForm.FindStringSubmatch(p.ParcelNo); c.s10 != "" && (m == nil || m[1] != c.s10 || parcelgate.S10CheckDigit(p.ParcelNo[2:10]) != p.ParcelNo[10]) {
					t.Errorf("%s: international parcel number %s, want %s… in S10 form", c.service, p.ParcelNo, c.s10)
				}
			}
			pdf, err := base64.StdEncoding.DecodeString(ans.Prints[0].Data)
			if err != nil || !strings.HasPrefix(string(pdf), "%PDF-") {
				t.Fatalf("%s: label %v", c.service, err)
			}
			code := strings.TrimPrefix(c.service, "PO")
			if text, ok := pdfText(t, pdf); ok && (!strings.Contains(text, code) || !strings.Contains(text, c.name)) {
				t.Errorf("%s: the label does not name the service %q:\n%s", c.service, c.name, text)
			}
			var stored parcelgate.Shipment
			e.Do(apitest.Request{Method: "GET", Path: gw + "/shipments/" + ans.ShipmentNo, Bearer: tok}).Expect(200).JSON(&stored)
			if stored.ServiceCode != code || stored.Origin != parcelgate.OriginShipping {
				t.Errorf("%s stored as %+v", c.service, stored)
			}
			if want := c.agent; c.service == "PO2103" {
				if stored.PickupPointID != tampere(t) {
					t.Errorf("PO2103 without agent went to %q", stored.PickupPointID)
				}
			} else if stored.PickupPointID != want {
				t.Errorf("%s: pick-up point %q, want %q", c.service, stored.PickupPointID, want)
			}
		}
	})
}

// decisions §39: each service goes where the table says, refused naming
// the provider's field; an international pick-up parcel needs the point
// the receiver chose, in the receiver's country (a Finnish point is the
// provider's E41); additional services are the row's.
func TestShippingServiceRouteRefusals(t *testing.T) {
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
		to := func(service, agent string, receiver map[string]any) map[string]any {
			b := shippingBody(service, agent, 1)
			b["shipment"].(map[string]any)["receiver"] = receiver
			return b
		}
		ee := party("Mari Tamm", "Narva mnt 5", "10117", "Tallinn", "EE")
		// A domestic service abroad, an international one at home, the
		// Baltic parcel to Sweden.
		refuse(to("PO2103", "", party("Sven Svensson", "Storgatan 1", "11122", "Stockholm", "SE")), "shipment.receiver.country")
		refuse(to("PO2461", "", ee), "shipment.receiver.country")
		refuse(shippingBody("PO2351", tampere(t), 1), "shipment.receiver.country")
		refuse(to("PO2331", "", party("Sven Svensson", "Storgatan 1", "11122", "Stockholm", "SE")), "shipment.receiver.country")
		// A return comes to Finland from where the service comes from.
		ret := shippingBody("PO2338", "", 1)
		ret["shipment"].(map[string]any)["sender"] = party("Sven Svensson", "Storgatan 1", "11122", "Stockholm", "SE")
		refuse(ret, "shipment.sender.country")
		refuse(to("PO2718", "", ee), "shipment.receiver.country")
		// International pick-up: no point, or a Finnish one.
		refuse(to("PO2351", "", ee), "shipment.agent.quickId")
		if ge := refuse(to("PO2351", tampere(t), ee), "shipment.agent.quickId"); ge.Message != parcelgate.InactivePickupPoint {
			t.Fatalf("a Finnish point for 2351: %+v", ge)
		}
		// EMS takes no label-less sending.
		ems := shippingBody("PO2017", "", 1, parcelgate.ServiceLabelless)
		ems["shipment"].(map[string]any)["receiver"] = party("John Doe", "1 Main St", "10001", "New York", "US")
		refuse(ems, "shipment.service.addons.id")
	})
}
