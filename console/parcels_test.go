package console_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/demo"
	"github.com/parcelgate/parcelgate/pickup"
)

// gatewayToken is a gateway token of tenant's demo client (POST
// /api/v1/token, client credentials).
func (e *env) gatewayToken(tenant demo.Tenant) string {
	e.t.Helper()
	resp, err := http.PostForm(e.url+"/api/v1/token", url.Values{"grant_type": {"client_credentials"}, "client_id": {tenant.ClientID}, "client_secret": {tenant.ClientSecret}})
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&tok); err != nil || resp.StatusCode != http.StatusOK || tok.AccessToken == "" {
		e.t.Fatalf("gateway token of %s: %d %v", tenant.ClientID, resp.StatusCode, err)
	}
	return tok.AccessToken
}

// gatewayCall sends body to the API with tenant's gateway token and
// decodes the answer into out; it fails the test unless the answer is
// 200.
func (e *env) gatewayCall(tenant demo.Tenant, method, path string, body, out any) {
	e.t.Helper()
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, e.url+path, bytes.NewReader(raw))
	req.Header.Set("Authorization", "Bearer "+e.gatewayToken(tenant))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		e.t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, got)
	}
	if out != nil {
		if err := json.Unmarshal(got, out); err != nil {
			e.t.Fatalf("%s %s: %v in %s", method, path, err, got)
		}
	}
}

// apiShipment makes a shipment of tenant with the shipping API, as an
// integration does (POST /shippingapi/api/v2/shipping/order: service 2103
// to a pick-up point in Tampere, add-on 3196), with copies parcels and the
// reference ref (orderNo), and returns it as the API answered it.
func (e *env) apiShipment(tenant demo.Tenant, ref string, copies int) *parcelgate.Shipment {
	e.t.Helper()
	pt, _ := pickup.Network{}.NearestPickupPoint("33100", "2103")
	body := map[string]any{"printConfig": map[string]any{"target1Media": "laser-a5"}, "shipment": map[string]any{
		"orderNo":        ref,
		"senderPartners": []any{map[string]any{"id": "POSTI", "custNo": "677503"}},
		"sender":         map[string]any{"name": "Demo Shop Oy", "address1": "Kauppakatu 1", "zipcode": "00100", "city": "Helsinki", "country": "FI"},
		"receiver":       map[string]any{"name": "Matti Meikäläinen", "address1": "Hämeenkatu 5", "zipcode": "33100", "city": "Tampere", "country": "FI", "email": "matti@example.com"},
		"agent":          map[string]any{"quickId": pt.ExternalID},
		"service":        map[string]any{"id": "PO2103", "addons": []any{map[string]any{"id": "3196"}}},
		"parcels":        []any{map[string]any{"copies": copies, "weight": 2.5, "packageCode": "PKT", "contents": "Books"}},
	}}
	var ans []struct {
		ShipmentNo string `json:"shipmentNo"`
		Parcels    []struct {
			ParcelNo string `json:"parcelNo"`
		} `json:"parcels"`
	}
	e.gatewayCall(tenant, http.MethodPost, "/shippingapi/api/v2/shipping/order", body, &ans)
	if len(ans) != 1 || len(ans[0].Parcels) != copies {
		e.t.Fatalf("shipping order answer: %+v", ans)
	}
	sh := &parcelgate.Shipment{TrackingNumber: ans[0].ShipmentNo, Reference: ref, PickupPointID: pt.ExternalID}
	for _, p := range ans[0].Parcels {
		sh.Parcels = append(sh.Parcels, parcelgate.Parcel{ParcelID: p.ParcelNo})
	}
	return sh
}

// raw GETs path with the browser's cookies and answers the whole response.
func (b *browser) raw(path string) (*http.Response, []byte) {
	b.e.t.Helper()
	resp, err := b.c.Get(b.e.url + path)
	if err != nil {
		b.e.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp, raw
}

// sendingCode gets tenant's sending code for tn as POST
// /{version}/labelless does, through the code service the API calls.
func (e *env) sendingCode(tenant demo.Tenant, tn string) string {
	e.t.Helper()
	ctx := context.Background()
	org, err := e.api.Organizations.FindOrganization(ctx, parcelgate.EnvironmentOperator(tenant.Environment), tenant.BusinessID)
	if err != nil {
		e.t.Fatal(err)
	}
	sc, err := e.api.Codes.CreateSendingCode(ctx, &parcelgate.Caller{OrgID: org.ID, BusinessID: org.BusinessID, Environment: tenant.Environment, Kind: parcelgate.KindGateway}, tn, false)
	if err != nil {
		e.t.Fatal(err)
	}
	return sc.SendingCode
}

// signedIn is a browser signed in with tenant's service account.
func (e *env) signedIn(username, password string) *browser {
	e.t.Helper()
	b := e.browser()
	if p := b.signIn(username, password); p.status != http.StatusSeeOther {
		e.t.Fatalf("sign-in of %s: %d %s", username, p.status, p.body)
	}
	return b
}

// foreignShipment registers shipment data of another organization of
// environment env (Other Shop AB), as its gateway client would with POST
// /{version}/shipments, and returns its tracking number.
func (e *env) foreignShipment(env parcelgate.Environment, tn string) string {
	e.t.Helper()
	ctx := context.Background()
	org := &parcelgate.Organization{Environment: env, BusinessID: "SE5566778899", Name: "Other Shop AB"}
	if err := e.api.Organizations.CreateOrganization(ctx, parcelgate.EnvironmentOperator(env), org); err != nil {
		e.t.Fatal(err)
	}
	gw := &parcelgate.Caller{OrgID: org.ID, BusinessID: org.BusinessID, Environment: env, Kind: parcelgate.KindGateway}
	sh := &parcelgate.Shipment{TrackingNumber: tn, ServiceCode: "2103", Reference: "OTHER-REF",
		Sender:   parcelgate.Address{Name: "Other Shop AB", StreetAddress: "Gatan 1", PostalCode: "00100", PostOffice: "Helsinki", Country: "FI"},
		Receiver: parcelgate.Address{Name: "Sven", StreetAddress: "Gatan 2", PostalCode: "33100", PostOffice: "Tampere", Country: "FI"},
		Parcels:  []parcelgate.Parcel{{ParcelID: tn + "P1"}}}
	if _, err := e.api.Shipments.CreateShipment(ctx, gw, sh); err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.api.Codes.CreateSendingCode(ctx, gw, tn, false); err != nil {
		e.t.Fatal(err)
	}
	return tn
}

// decisions §40, issue 41: a service account's console session reads its
// organization's shipments (it answered 403 "needs a gateway token"):
// the overview's tiles lead to the list, which shows every origin newest
// first — the shipping API's (made here through the API), the demo's
// shipment data — and finds a shipment by its tracking number, a parcel's
// number, a code it holds or its reference (case-insensitive), opening
// the one it names.
func TestParcelsListAndSearch(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		older := e.apiShipment(prod, "SO-OLDER-1", 1)
		newer := e.apiShipment(prod, "SO-Newer-2", 2)
		b := e.signedIn(prod.Username, prod.Password)
		home := b.get("/console/")
		mustContain(t, home, `href="/console/shipments" id="tile-shipments"`, `href="/console/shipments" id="tile-codes"`, `<a href="/console/shipments">Parcels</a>`)
		list := b.get("/console/shipments")
		if list.status != http.StatusOK {
			t.Fatalf("the parcels list for a service account: %d\n%s", list.status, list.body)
		}
		mustContain(t, list, newer.TrackingNumber, older.TrackingNumber, prod.Shipment, "SO-Newer-2", "Shipping API", "Shipment data (/shipments)", "Matti Meikäläinen")
		row := func(tn string) int { return strings.Index(list.body, `href="/console/shipments/`+tn+`"`) }
		if i, j, k := row(newer.TrackingNumber), row(older.TrackingNumber), row(prod.Shipment); !(0 <= i && i < j && j < k) {
			t.Fatalf("not newest first: %d %d %d", i, j, k)
		}
		for _, q := range []string{newer.TrackingNumber, strings.ToLower(newer.Parcels[1].ParcelID), "so-newer-2", " SO-NEWER-2 "} {
			p := b.get("/console/shipments?q=" + url.QueryEscape(q))
			if p.status != http.StatusSeeOther || p.location != "/console/shipments/"+newer.TrackingNumber {
				t.Fatalf("search %q: %d to %q, want the shipment %s", q, p.status, p.location, newer.TrackingNumber)
			}
		}
		// A code the shipment holds finds it (interface §4.1: the sending
		// code of POST /{version}/labelless).
		sc := e.sendingCode(prod, older.TrackingNumber)
		if p := b.get("/console/shipments?by=number&q=" + sc); p.status != http.StatusSeeOther || p.location != "/console/shipments/"+older.TrackingNumber {
			t.Fatalf("search by the sending code %q: %d to %q", sc, p.status, p.location)
		}
		// As a reference only, the number is not a number.
		if p := b.get("/console/shipments?by=reference&q=" + newer.TrackingNumber); p.status != http.StatusOK || !strings.Contains(p.body, "No shipment of yours has") {
			t.Fatalf("a tracking number searched as a reference: %d", p.status)
		}
		// Nothing found is an empty list, not an error.
		if p := b.get("/console/shipments?q=" + url.QueryEscape("no such ref")); p.status != http.StatusOK || !strings.Contains(p.body, "No shipment of yours has") {
			t.Fatalf("nothing found: %d", p.status)
		}
	})
}

// decisions §40, §8: bad input on the list is a 400 page naming the
// field, never a 500: a number that cannot be one, a reference too long
// or with control characters, an unknown search mode, a page link that is
// not the list's.
func TestParcelsListBadInput(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		b := e.signedIn(prod.Username, prod.Password)
		for _, c := range []struct{ query, field string }{
			{"by=number&q=" + url.QueryEscape("JJ-FI!"), `id="q-error"`},
			{"by=number&q=ABC", `id="q-error"`},
			{"q=" + strings.Repeat("x", 201), `id="q-error"`},
			{"q=" + url.QueryEscape("ref\x07"), `id="q-error"`},
			{"by=sideways&q=x", "must be number, reference or empty"},
			{"page=%25%25%25", `id="page-error"`},
			{"page=bzEuMS4x", `id="page-error"`},
		} {
			p := b.get("/console/shipments?" + c.query)
			if p.status != http.StatusBadRequest {
				t.Fatalf("GET /console/shipments?%s: %d, want 400", c.query, p.status)
			}
			mustContain(t, p, c.field)
		}
		if p := b.get("/console/shipments/" + prod.Shipment + "/label.pdf?media=laser-a3"); p.status != http.StatusBadRequest || !strings.Contains(p.body, "laser-a5, laser-a4") {
			t.Fatalf("an unknown label medium: %d", p.status)
		}
		if p := b.get("/console/shipments/not%20a%20number"); p.status != http.StatusNotFound {
			t.Fatalf("a malformed tracking number: %d", p.status)
		}
	})
}

// decisions §40: the list pages by key, newest first, 50 rows a page:
// following Older and then Newer comes back to the same rows, and no row
// is on two pages.
func TestParcelsListPages(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		org, err := e.api.Organizations.FindOrganization(ctx, parcelgate.EnvironmentOperator(parcelgate.Production), prod.BusinessID)
		if err != nil {
			t.Fatal(err)
		}
		gw := &parcelgate.Caller{OrgID: org.ID, BusinessID: org.BusinessID, Environment: parcelgate.Production, Kind: parcelgate.KindGateway}
		for i := range 55 {
			tn := fmt.Sprintf("JJFI300000000%04d", i)
			sh := &parcelgate.Shipment{TrackingNumber: tn, ServiceCode: "2104",
				Sender:   parcelgate.Address{Name: "Demo Shop Oy", StreetAddress: "Kauppakatu 1", PostalCode: "00100", PostOffice: "Helsinki", Country: "FI"},
				Receiver: parcelgate.Address{Name: "Receiver", StreetAddress: "Katu 1", PostalCode: "33100", PostOffice: "Tampere", Country: "FI"},
				Parcels:  []parcelgate.Parcel{{ParcelID: tn + "1"}}}
			if _, err := e.api.Shipments.CreateShipment(ctx, gw, sh); err != nil {
				t.Fatal(err)
			}
		}
		b := e.signedIn(prod.Username, prod.Password)
		first := b.get("/console/shipments")
		mustContain(t, first, "JJFI3000000000054", "JJFI3000000000005")
		if strings.Contains(first.body, "JJFI3000000000004") || strings.Contains(first.body, `href="/console/shipments/`+prod.Shipment+`"`) {
			t.Fatal("the first page holds more than 50 shipments")
		}
		older := between(first.body, `<a href="?page=`, `"`)
		if older == "" {
			t.Fatalf("no Older link:\n%s", first.body)
		}
		second := b.get("/console/shipments?page=" + older)
		mustContain(t, second, "JJFI3000000000004", "JJFI3000000000000", `href="/console/shipments/`+prod.Shipment+`"`)
		if strings.Contains(second.body, "JJFI3000000000005") {
			t.Fatal("a shipment is on two pages")
		}
		newer := between(second.body, `<a href="?page=`, `" rel="prev"`)
		back := b.get("/console/shipments?page=" + newer)
		mustContain(t, back, "JJFI3000000000054", "JJFI3000000000005")
		if strings.Contains(back.body, "JJFI3000000000004") {
			t.Fatal("Newer from the second page is not the first page")
		}
	})
}

// Security (STANDARDS, decisions §16, §40): another tenant's shipment —
// another organization of the same environment, or the same business ID
// in the other environment — is exactly the 404 page of a missing one:
// its page, its labels, its journey form and a parcel move; the list and
// the search never show it.
func TestParcelsCrossTenant(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		test := demo.Tenants[1]
		foreign := e.foreignShipment(parcelgate.Test, "JJFI900000000000001")
		prodShipment := e.apiShipment(prod, "SO-PROD", 1)
		b := e.signedIn(test.Username, test.Password)
		if own := b.get("/console/shipments/" + test.Shipment); own.status != http.StatusOK {
			t.Fatalf("own shipment: %d", own.status)
		}
		missing := b.get("/console/shipments/JJFI99999999999999999")
		if missing.status != http.StatusNotFound {
			t.Fatalf("missing shipment: %d", missing.status)
		}
		for _, tn := range []string{foreign, prodShipment.TrackingNumber, prod.Shipment} {
			for _, path := range []string{"/console/shipments/" + tn, "/console/shipments/" + tn + "/label.pdf", "/console/shipments/" + tn + "/label.pdf?media=thermo-225"} {
				if p := b.get(path); p.status != http.StatusNotFound || p.body != missing.body {
					t.Fatalf("GET %s: %d, want the 404 page of a missing shipment:\n%s", path, p.status, p.body)
				}
			}
			for _, form := range []url.Values{{"action": {"deliver"}, "confirm": {test.BusinessID}}, {"action": {"next"}}} {
				if p := b.post("/console/shipments/"+tn+"/journey", form); p.status != http.StatusNotFound || p.body != missing.body {
					t.Fatalf("journey %v of %s: %d", form, tn, p.status)
				}
			}
			if p := b.post("/console/shipments/"+tn+"/parcels/"+tn+"P1/status", url.Values{"to": {"DELIVERED"}}); p.status != http.StatusNotFound {
				t.Fatalf("a parcel move on %s: %d", tn, p.status)
			}
			if p := b.get("/console/shipments?q=" + tn); p.status != http.StatusOK || strings.Contains(p.body, `href="/console/shipments/`+tn+`"`) {
				t.Fatalf("the search for %s: %d", tn, p.status)
			}
		}
		if p := b.get("/console/shipments?q=OTHER-REF"); strings.Contains(p.body, foreign) {
			t.Fatal("the search by reference finds another tenant's shipment")
		}
		if p := b.get("/console/shipments"); strings.Contains(p.body, foreign) || strings.Contains(p.body, prodShipment.TrackingNumber) {
			t.Fatal("the list shows another tenant's shipment")
		}
		// Nothing happened to them.
		op := e.operator(parcelgate.Production)
		if p := op.get("/console/shipments/" + prodShipment.TrackingNumber); !strings.Contains(p.body, `data-parcel-status="`+prodShipment.Parcels[0].ParcelID+`">WAITING`) {
			t.Fatalf("the production shipment moved:\n%s", p.body)
		}
	})
}

// decisions §29, §30, §40: a shipment's page shows its label in every
// medium the shipping API prints (each a PDF), each parcel's journey as
// the Tracking API answers it, and its codes; in the test environment its
// journey panel moves the clock to the next event, delivers it (its codes
// freed) and returns it — the final ones only with the business ID typed,
// as the workbench's reset asks.
func TestParcelPageLabelJourneyCodes(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		test := demo.Tenants[1]
		sh := e.apiShipment(test, "SO-TEST-1", 2)
		sc := e.sendingCode(test, sh.TrackingNumber)
		b := e.signedIn(test.Username, test.Password)
		at := "/console/shipments/" + sh.TrackingNumber
		p := b.get(at)
		if p.status != http.StatusOK {
			t.Fatalf("shipment page: %d\n%s", p.status, p.body)
		}
		mustContain(t, p, "SO-TEST-1", `id="journey"`, `data-parcel-status="`+sh.Parcels[1].ParcelID+`">WAITING`, `<code class="code">`+sc+`</code>`,
			`label.pdf?media=thermo-190`, `id="label-preview"`, `Sending code <code>`+sc+`</code>`, "RECEIVED", "due ", `href="/console/pickup-points/`+sh.PickupPointID+`"`)
		for _, m := range []string{"laser-a5", "laser-a4", "laser-2a5", "thermo-225", "thermo-190"} {
			resp, raw := b.raw(at + "/label.pdf?media=" + m + "&download=1")
			if resp.StatusCode != http.StatusOK || !bytes.HasPrefix(raw, []byte("%PDF-")) || !strings.HasPrefix(resp.Header.Get("Content-Disposition"), "attachment") ||
				resp.Header.Get("Content-Type") != "application/pdf" {
				t.Fatalf("label %s: %d %q %v", m, resp.StatusCode, raw[:min(8, len(raw))], resp.Header)
			}
		}

		// The clock to the next event: handed over 2 h after creation.
		before := e.clock.Now(parcelgate.Test)
		if p := b.post(at+"/journey", url.Values{"action": {"next"}}); p.status != http.StatusSeeOther || !strings.Contains(p.location, "done=clock") {
			t.Fatalf("next event: %d %s", p.status, p.body)
		}
		if moved := e.clock.Now(parcelgate.Test).Sub(before); moved < 110*time.Minute || moved > 2*time.Hour+time.Minute {
			t.Fatalf("the clock moved %v, want about the 2 h to RECEIVED", moved)
		}
		mustContain(t, b.get(at), `data-parcel-status="`+sh.Parcels[0].ParcelID+`">RECEIVED`)
		if p := b.post(at+"/journey", url.Values{"action": {"advance"}, "by": {"-5m"}}); p.status != http.StatusBadRequest {
			t.Fatalf("a negative clock move: %d", p.status)
		} else {
			mustContain(t, p, `id="journey-by-error"`, `value="-5m"`)
		}

		// Delivery needs the business ID typed; nothing changes without it.
		p = b.post(at+"/journey", url.Values{"action": {"deliver"}, "confirm": {"1234567-2"}})
		if p.status != http.StatusBadRequest {
			t.Fatalf("an unconfirmed delivery: %d", p.status)
		}
		mustContain(t, p, `id="confirm-deliver-error"`, `id="shipment-status">Created`)
		p = b.post(at+"/journey", url.Values{"action": {"deliver"}, "confirm": {" " + strings.ToLower(test.BusinessID) + " "}})
		if p.status != http.StatusSeeOther || !strings.Contains(p.location, "done=shipment-delivered") {
			t.Fatalf("delivery: %d %s", p.status, p.body)
		}
		p = b.get(at)
		mustContain(t, p, `id="shipment-status">Delivered`, `data-parcel-status="`+sh.Parcels[1].ParcelID+`">DELIVERED`, `<span class="tag">released</span>`)
		// The Tracking API answers the same (decisions §30).
		if code := trackingStatus(t, e, test, sh.Parcels[1].ParcelID); code != "DELIVERED" {
			t.Fatalf("the Tracking API answers %s after the console's delivery", code)
		}

		// A return moves every parcel to RETURN_IN_TRANSPORT.
		other := e.apiShipment(test, "SO-TEST-2", 1)
		if p := b.post("/console/shipments/"+other.TrackingNumber+"/journey", url.Values{"action": {"return"}}); p.status != http.StatusBadRequest {
			t.Fatalf("an unconfirmed return: %d", p.status)
		}
		if p := b.post("/console/shipments/"+other.TrackingNumber+"/journey", url.Values{"action": {"return"}, "confirm": {test.BusinessID}}); p.status != http.StatusSeeOther {
			t.Fatalf("return: %d %s", p.status, p.body)
		}
		mustContain(t, b.get("/console/shipments/"+other.TrackingNumber), `data-parcel-status="`+other.Parcels[0].ParcelID+`">RETURN_IN_TRANSPORT`)
		// And a parcel is moved on by hand, as POST /admin/v1/parcels/status.
		if p := b.post("/console/shipments/"+other.TrackingNumber+"/parcels/"+other.Parcels[0].ParcelID+"/status", url.Values{"to": {"RETURNED_TO_SENDER"}}); p.status != http.StatusSeeOther {
			t.Fatalf("a parcel move: %d %s", p.status, p.body)
		}
		mustContain(t, b.get("/console/shipments/"+other.TrackingNumber), `data-parcel-status="`+other.Parcels[0].ParcelID+`">RETURNED_TO_SENDER`)
		if p := b.post("/console/shipments/"+other.TrackingNumber+"/journey", url.Values{"action": {"fly"}}); p.status != http.StatusBadRequest {
			t.Fatalf("an unknown journey action: %d", p.status)
		}
	})
}

// decisions §23, §40: production's journeys are not driven from the
// console by an integrator (its data comes from its integration): no
// panel, and the form is refused with 403 and nothing moved.
func TestParcelJourneyRefusedInProduction(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		sh := e.apiShipment(prod, "SO-PROD-2", 1)
		b := e.signedIn(prod.Username, prod.Password)
		at := "/console/shipments/" + sh.TrackingNumber
		if p := b.get(at); p.status != http.StatusOK || strings.Contains(p.body, `id="journey"`) {
			t.Fatalf("production's shipment page: %d, journey panel shown: %v", p.status, strings.Contains(p.body, `id="journey"`))
		}
		if p := b.post(at+"/journey", url.Values{"action": {"deliver"}, "confirm": {prod.BusinessID}}); p.status != http.StatusForbidden {
			t.Fatalf("an integrator's delivery in production: %d", p.status)
		}
		mustContain(t, b.get(at), `id="shipment-status">Created`)
		// A cross-origin form is refused before anything is read.
		if p := b.do(http.MethodPost, at+"/journey", url.Values{"action": {"next"}}, http.Header{"Sec-Fetch-Site": {"cross-site"}, "Origin": {"https://evil.example"}}); p.status != http.StatusForbidden {
			t.Fatalf("a cross-site journey form: %d", p.status)
		}
	})
}

// decisions §30, §40: a shipment whose reference ends in .RETURN says so
// on its page, and the events ahead show the return.
func TestParcelPageShowsScenario(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		test := demo.Tenants[1]
		sh := e.apiShipment(test, "SO-9.RETURN", 1)
		b := e.signedIn(test.Username, test.Password)
		mustContain(t, b.get("/console/shipments/"+sh.TrackingNumber), "Test scenario", ".RETURN", "RETURN_IN_TRANSPORT", "RETURNED_TO_SENDER")
	})
}

// decisions §30, §40: the order form's scenario menu starts the tracking
// scenarios too: an order made with .RETURN and delivered has parcels
// whose page says they follow it, and the clock plays it out.
func TestOrderScenarioMenuStartsAParcelScenario(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		b := e.signedIn(testTenant.Username, testTenant.Password)
		f := orderForm(testTenant.BusinessID+"-TSHIRT-M", "1")
		f.Set("scenario", parcelgate.ScenarioReturn)
		id := b.createdOrder(f)
		for _, to := range []string{"Submitted", "Delivered"} {
			if p := b.post("/console/orders/"+id+"/status", url.Values{"to": {to}}); p.status != http.StatusSeeOther {
				t.Fatalf("move to %s: %d", to, p.status)
			}
		}
		o := e.order(parcelgate.Test, testTenant.BusinessID, id)
		tn := o.Rows[0].TrackingCodes[0]
		at := "/console/shipments/" + tn
		mustContain(t, b.get(at), "Test scenario", parcelgate.ScenarioReturn, "Warehouse order", "RETURNED_TO_SENDER")
		e.clock.Advance(30 * 24 * time.Hour)
		mustContain(t, b.get(at), `data-parcel-status="`+tn+`">RETURNED_TO_SENDER`)
	})
}

// decisions §32, §40: pick-up points are browsable: a search near a
// postal code or in a town lists points nearest first; a point's page
// shows its hours and capabilities; a bad postal code is 400 naming the
// field, an unknown point 404.
func TestPickupPointsBrowse(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		b := e.signedIn(prod.Username, prod.Password)
		mustContain(t, b.get("/console/"), `href="/console/pickup-points"`)
		pt, _ := pickup.Network{}.NearestPickupPoint("33100", "2103")
		p := b.get("/console/pickup-points?postcode=33100")
		if p.status != http.StatusOK {
			t.Fatalf("search: %d\n%s", p.status, p.body)
		}
		mustContain(t, p, `id="pickup-points"`, `href="/console/pickup-points/`+pt.ExternalID+`"`)
		if p := b.get("/console/pickup-points?city=Tampere"); p.status != http.StatusOK || !strings.Contains(p.body, `href="/console/pickup-points/`) {
			t.Fatalf("search by town: %d", p.status)
		}
		one := b.get("/console/pickup-points/" + pt.ExternalID)
		if one.status != http.StatusOK {
			t.Fatalf("point page: %d", one.status)
		}
		mustContain(t, one, pt.ExternalID, `id="hours"`, `id="capabilities"`)
		if len(pt.Capabilities) > 0 {
			mustContain(t, one, `<span class="tag">`+pt.Capabilities[0]+`</span>`)
		}
		for _, q := range []string{"postcode=12", "postcode=" + url.QueryEscape("33100; drop"), "city=" + strings.Repeat("x", 101)} {
			if p := b.get("/console/pickup-points?" + q); p.status != http.StatusBadRequest || !strings.Contains(p.body, "field-error") {
				t.Fatalf("search %s: %d", q, p.status)
			}
		}
		// Whatever is typed, the answer is a page, never a 500.
		for _, q := range []string{"postcode=33100&city=Tampere", "city=%C3%84", "city=" + url.QueryEscape("<script>"), "city=x", "postcode=00000", "city=" + url.QueryEscape("a\x01b")} {
			if p := b.get("/console/pickup-points?" + q); p.status != http.StatusOK && p.status != http.StatusBadRequest {
				t.Fatalf("search %s: %d", q, p.status)
			}
		}
		for _, id := range []string{"999999999", "abc", strings.Repeat("1", 30)} {
			if p := b.get("/console/pickup-points/" + id); p.status != http.StatusNotFound {
				t.Fatalf("point %s: %d", id, p.status)
			}
		}
	})
}

// decisions §40: any service account of the organization reads its
// parcels, whatever its roles: a retailer-only account too (its
// organization has none yet), and it browses pick-up points.
func TestParcelsForEveryRole(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		b := e.signedIn(prod.RetailerUsername, prod.RetailerPassword)
		mustContain(t, b.get("/console/shipments"), "No shipments yet")
		if p := b.get("/console/pickup-points?city=Tampere"); p.status != http.StatusOK {
			t.Fatalf("pick-up points for a retailer: %d", p.status)
		}
		if p := b.get("/console/shipments/" + prod.Shipment); p.status != http.StatusNotFound {
			t.Fatalf("its supplier's shipment: %d", p.status)
		}
	})
}

// issue 41: counts are written in the singular for one ("1 shipment.",
// not "1 shipments.").
func TestShipmentCountsSayOne(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		b := e.signedIn(prod.SupplierUsername, prod.SupplierPassword)
		p := b.get("/console/supplier-shipments")
		mustContain(t, p, "1 shipment.")
		if strings.Contains(p.body, "1 shipments") {
			t.Fatal("1 shipments")
		}
	})
}

// trackingStatus is the status the Tracking API answers for a parcel to
// tenant's service account (GET /tracking/7/shipments/trackingnumber/{n}).
func trackingStatus(t *testing.T, e *env, tenant demo.Tenant, parcel string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, e.url+"/auth/token", nil)
	req.SetBasicAuth(tenant.Username, tenant.Password)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	json.NewDecoder(resp.Body).Decode(&tok)
	resp.Body.Close()
	req, _ = http.NewRequest(http.MethodGet, e.url+"/tracking/7/shipments/trackingnumber/"+parcel, nil)
	req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var ans struct {
		ParcelShipments []struct {
			Status struct {
				Code string `json:"code"`
			} `json:"status"`
		} `json:"parcelShipments"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&ans); err != nil || len(ans.ParcelShipments) != 1 {
		t.Fatalf("tracking %s: %d %v", parcel, resp.StatusCode, err)
	}
	return ans.ParcelShipments[0].Status.Code
}
