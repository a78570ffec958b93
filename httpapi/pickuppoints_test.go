package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
	"github.com/parcelgate/parcelgate/pickup"
)

// docPoint is the point as a client written against the provider's
// Pick-up Point API documentation reads it: the documented members, by
// their documented names and types, and nothing of parcelgate's own.
type docPoint struct {
	ID                 string `json:"id"`
	PupCode            string `json:"pupCode"`
	PublicName         string `json:"publicName"`
	CareOf             string `json:"careOf"`
	ParcelLocker       bool   `json:"parcelLocker"`
	RoutingServiceCode string `json:"routingServiceCode"`
	DistanceInMeters   *int   `json:"distanceInMeters"`
	Location           struct {
		Country      string `json:"country"`
		CountryCode  string `json:"countryCode"`
		Street       string `json:"street"`
		Postcode     string `json:"postcode"`
		City         string `json:"city"`
		Municipality string `json:"municipality"`
		Coordinates  struct {
			Latitude  float64 `json:"latitude"`
			Longitude float64 `json:"longitude"`
		} `json:"coordinates"`
		RoutingPostcode string `json:"routingPostcode"`
	} `json:"location"`
	Availability struct {
		OpeningHours []any `json:"openingHours"`
		Exceptions   []any `json:"exceptions"`
	} `json:"availability"`
	Capabilities []string `json:"capabilities"`
	Extensions   *struct {
		Estimate *struct {
			Time *string `json:"time"`
		} `json:"estimate"`
		AverageLockerOccupancyRate *struct {
			AverageRate float64 `json:"averageRate"`
			Description string  `json:"description"`
		} `json:"averageLockerOccupancyRate"`
	} `json:"extensions"`
}

type docPoints struct {
	PickupPoints            []docPoint `json:"pickupPoints"`
	PagingContinuationToken *string    `json:"pagingContinuationToken"`
}

// requiredPointMembers are the members the provider's schema requires of
// every point.
var requiredPointMembers = []string{"id", "publicName", "careOf", "parcelLocker", "availability", "location", "capabilities"}

// readDocPoints reads an answer as the documented client does, and checks
// that every point carries every required member (a client's strict model
// fails on a missing one) and a 9-digit ID of postcode + routing code.
func readDocPoints(t *testing.T, r *apitest.Response) docPoints {
	t.Helper()
	var raw struct {
		PickupPoints []map[string]json.RawMessage `json:"pickupPoints"`
	}
	if err := json.Unmarshal(r.Body, &raw); err != nil || raw.PickupPoints == nil {
		t.Fatalf("not {\"pickupPoints\":[…]}: %s", r.Body)
	}
	for _, p := range raw.PickupPoints {
		for _, m := range requiredPointMembers {
			if _, ok := p[m]; !ok {
				t.Fatalf("a point lacks %s: %v", m, p)
			}
		}
	}
	var out docPoints
	r.JSON(&out)
	for _, p := range out.PickupPoints {
		if len(p.ID) != 9 || p.ID != p.PupCode || p.ID != p.Location.Postcode+p.RoutingServiceCode {
			t.Errorf("ID %s: postcode %s, routing code %s", p.ID, p.Location.Postcode, p.RoutingServiceCode)
		}
	}
	return out
}

func searchPoints(t *testing.T, e *apitest.Env, tok string, body any, h http.Header) docPoints {
	t.Helper()
	return readDocPoints(t, e.Do(apitest.Request{Method: "POST", Path: gw + "/pickuppoints", Bearer: tok, Body: body, Header: h}).Expect(200))
}

// Every search mode of the provider's Pick-up Point API, with bodies as
// its clients send them: the web shop checkout's postcode search (all four
// location members and an empty serviceFilters), the documentation's
// coordinate and radius example, a rectangle, free text, lockers with
// filters, and the extensions.
func TestGatewayPickupPointSearch(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		// The 2025-04 release's object (2026-04's is the live answer's:
		// pickuppoints_live_test.go).
		for _, version := range []string{"2025-04"} {
			tok := e.GatewayToken(parcelgate.Production, "1234567-1", version)
			r := e.Do(apitest.Request{Method: "POST", Path: "/" + version + "/pickuppoints", Bearer: tok, Header: http.Header{"X-Posti-Logisticsid": {"LOG-1"}},
				Body: `{"searchCriteria":{"location":{"postcode":"00100","countryCode":"FI","street":"Mannerheimintie 1","city":"Helsinki"},"serviceFilters":{}},"limit":8}`}).Expect(200)
			got := readDocPoints(t, r)
			// The checkout reads publicName, location.*, parcelLocker,
			// routingServiceCode and distanceInMeters. The nearest to 00100
			// is the provider's live answer's, 001003230 (the provider's live answer).
			first := got.PickupPoints[0]
			if len(got.PickupPoints) != 8 || first.ID != "001003230" || first.PublicName != "Posti-palvelupiste, K-Market Etu-Töölö" || first.Location.City != "Helsinki" ||
				first.Location.Street != "Lapuankatu 4" || first.DistanceInMeters == nil || *first.DistanceInMeters != 292 || r.Header.Get("Content-Language") != "fi" {
				t.Fatalf("%s postcode search: %s", version, r.Body)
			}
			for i := 1; i < len(got.PickupPoints); i++ {
				if *got.PickupPoints[i].DistanceInMeters < *got.PickupPoints[i-1].DistanceInMeters {
					t.Errorf("not nearest first at %d", i)
				}
			}
		}
		tok := e.GatewayToken(parcelgate.Production, "1234567-1")

		// The documentation's coordinates and radius.
		near := searchPoints(t, e, tok, `{"searchCriteria":{"location":{"coordinates":{"latitude":60.17,"longitude":24.93},"radius":{"unit":"m","value":2000}}},"limit":20}`, nil)
		if len(near.PickupPoints) == 0 {
			t.Fatal("nothing within 2 km")
		}
		for _, p := range near.PickupPoints {
			if p.DistanceInMeters == nil || *p.DistanceInMeters > 2000 {
				t.Errorf("%s beyond the radius: %v", p.ID, p.DistanceInMeters)
			}
		}
		// A rectangle.
		rect := searchPoints(t, e, tok, map[string]any{"searchCriteria": map[string]any{"rectangle": map[string]any{"swLatitude": 61.45, "swLongitude": 23.70, "neLatitude": 61.52, "neLongitude": 23.85}}, "limit": 100}, nil)
		for _, p := range rect.PickupPoints {
			if c := p.Location.Coordinates; c.Latitude < 61.45 || c.Latitude > 61.52 || c.Longitude < 23.70 || c.Longitude > 23.85 {
				t.Errorf("%s outside the rectangle", p.ID)
			}
		}
		if len(rect.PickupPoints) == 0 {
			t.Error("empty rectangle over Tampere")
		}
		// Free text.
		text := searchPoints(t, e, tok, `{"searchCriteria":{"freeText":"Pakettiautomaatti Rovaniemi"},"limit":5}`, nil)
		if len(text.PickupPoints) == 0 {
			t.Fatal("no text match")
		}
		for _, p := range text.PickupPoints {
			if !p.ParcelLocker || p.Location.Municipality != "Rovaniemi" {
				t.Errorf("text match %+v", p)
			}
		}
		// Lockers indoors, reservable, serving 2103, in Swedish, with an
		// estimate and the occupancy.
		body := `{"searchCriteria":{"parcelLocker":true,"location":{"postcode":"20100","countryCode":"FI"},"serviceFilters":{"product":{"code":"2103"},"outdoorLocker":false,"lockerReservable":true}},"limit":5,
			"extensions":{"estimate":{"time":"2026-03-13T10:00:00Z","origin":{"postcode":"00100","countryCode":"FI"},"product":{"code":"2103"}},"averageLockerOccupancyRate":true}}`
		lockers := searchPoints(t, e, tok, body, http.Header{"Accept-Language": {"sv-FI,sv;q=0.9"}})
		if len(lockers.PickupPoints) != 5 {
			t.Fatalf("%d lockers", len(lockers.PickupPoints))
		}
		for _, p := range lockers.PickupPoints {
			caps := strings.Join(p.Capabilities, ",")
			if !p.ParcelLocker || strings.Contains(caps, "outdoorLocker") || !strings.Contains(caps, "lockerReservable") || !strings.HasPrefix(p.PublicName, "Paketautomat") || p.Location.City != "Åbo" {
				t.Errorf("locker %+v", p)
			}
			// Friday noon from Helsinki to Turku: Monday 16:00 Finnish time.
			if x := p.Extensions; x == nil || x.Estimate == nil || x.Estimate.Time == nil || *x.Estimate.Time != "2026-03-16T14:00:00Z" ||
				x.AverageLockerOccupancyRate == nil || x.AverageLockerOccupancyRate.Description == "" {
				t.Errorf("extensions of %s: %+v", p.ID, p.Extensions)
			}
		}
		// Lockers alone (the parcelLocker mode), in ID order; a town alone.
		only := searchPoints(t, e, tok, `{"searchCriteria":{"parcelLocker":true},"limit":3}`, nil)
		if len(only.PickupPoints) != 3 || !only.PickupPoints[0].ParcelLocker || only.PickupPoints[0].DistanceInMeters != nil || only.PickupPoints[0].ID > only.PickupPoints[1].ID {
			t.Errorf("lockers alone: %+v", only.PickupPoints)
		}
		town := searchPoints(t, e, tok, `{"searchCriteria":{"location":{"city":"Oulu"}},"limit":3}`, nil)
		if len(town.PickupPoints) != 3 || town.PickupPoints[0].Location.Municipality != "Oulu" || town.PickupPoints[0].DistanceInMeters == nil {
			t.Errorf("a town alone: %+v", town.PickupPoints)
		}
		// No match is an empty list.
		for _, b := range []string{
			`{"searchCriteria":{"location":{"city":"Atlantis"}}}`,
			`{"searchCriteria":{"location":{"postcode":"0150","countryCode":"NO"}}}`,
			`{"searchCriteria":{"freeText":"no such place anywhere"}}`,
		} {
			if got := searchPoints(t, e, tok, b, nil); len(got.PickupPoints) != 0 {
				t.Errorf("%s: %d points", b, len(got.PickupPoints))
			}
		}
		// Strict bodies name the member at fault.
		for b, field := range map[string]string{
			`{"searchCriteria":{"location":{"postalCode":"00100"}}}`:                             "searchCriteria.location.postalCode",
			`{"searchCriteria":{"location":{"postcode":"00100"}},"serviceFilters":{}}`:           "serviceFilters",
			`{"searchCriteria":{"location":{"postcode":"0010"}}}`:                                "searchCriteria.location.postcode",
			`{"searchCriteria":{"location":{"postcode":"00100"}},"limit":0}`:                     "limit",
			`{"searchCriteria":{"rectangle":{"swLatitude":60}}}`:                                 "searchCriteria.rectangle",
			`{"searchCriteria":{"location":{"coordinates":{"latitude":99,"longitude":24}}}}`:     "searchCriteria.location.coordinates.latitude",
			`{"searchCriteria":{"freeText":"x","location":{"postcode":"00100"}}}`:                "searchCriteria",
			`{"searchCriteria":{"parcelLocker":true,"serviceFilters":{"product":{"code":"9"}}}}`: "searchCriteria.serviceFilters.product.code",
			`{"limit":5}`: "searchCriteria",
		} {
			ge := gatewayErr(t, e.Do(apitest.Request{Method: "POST", Path: gw + "/pickuppoints", Bearer: tok, Body: b}).Expect(400))
			if ge.ErrorCode != "VALIDATION_ERROR" || len(ge.Details) == 0 || ge.Details[0].Field != field {
				t.Errorf("%s: %+v, want VALIDATION_ERROR on %s", b, ge, field)
			}
		}
	})
}

// The country listing pages through the whole national data set by the
// opaque pagingContinuationToken, 250 points a page in postcode order, the
// last page without a token; the pattern's ID prefix narrows it; one
// point by /{country}/{pupCode} and /{id}, a former 7-digit ID naming its
// successor.
func TestGatewayPickupPointListing(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		tok := e.GatewayToken(parcelgate.Production, "1234567-1")
		seen := map[string]bool{}
		last, pages := "", 0
		path := gw + "/pickuppoints/FI"
		for {
			page := readDocPoints(t, e.Do(apitest.Request{Method: "GET", Path: path, Bearer: tok}).Expect(200))
			pages++
			for _, p := range page.PickupPoints {
				if seen[p.ID] || p.ID <= last {
					t.Fatalf("page %d: %s after %s", pages, p.ID, last)
				}
				seen[p.ID], last = true, p.ID
			}
			if page.PagingContinuationToken == nil {
				break
			}
			if len(page.PickupPoints) != parcelgate.PickupPageSize {
				t.Fatalf("page %d: %d points before the last", pages, len(page.PickupPoints))
			}
			path = gw + "/pickuppoints/FI?pagingContinuationToken=" + *page.PagingContinuationToken
		}
		finnish := 0
		for _, p := range pickup.AllPickupPoints() {
			if p.Country == "FI" {
				finnish++
			}
		}
		if len(seen) != finnish || len(seen) < 3000 {
			t.Errorf("%d points in %d pages; the data set has %d in Finland", len(seen), pages, finnish)
		}

		prefixed := readDocPoints(t, e.Do(apitest.Request{Method: "GET", Path: gw + "/pickuppoints/FI001", Bearer: tok}).Expect(200))
		if len(prefixed.PickupPoints) == 0 || prefixed.PagingContinuationToken != nil {
			t.Fatalf("FI001: %+v", prefixed)
		}
		for _, p := range prefixed.PickupPoints {
			if !strings.HasPrefix(p.ID, "001") {
				t.Errorf("FI001 gave %s", p.ID)
			}
		}
		if no := readDocPoints(t, e.Do(apitest.Request{Method: "GET", Path: gw + "/pickuppoints/NO", Bearer: tok}).Expect(200)); len(no.PickupPoints) != 0 {
			t.Errorf("NO: %d", len(no.PickupPoints))
		}
		ge := gatewayErr(t, e.Do(apitest.Request{Method: "GET", Path: gw + "/pickuppoints/FI00?pagingContinuationToken=bm9wZQ", Bearer: tok}).Expect(400))
		if ge.ErrorCode != "VALIDATION_ERROR" || ge.Details[0].Field != "pagingContinuationToken" {
			t.Errorf("a bad token: %+v", ge)
		}
		if ge := gatewayErr(t, e.Do(apitest.Request{Method: "GET", Path: gw + "/pickuppoints/F", Bearer: tok}).Expect(400)); ge.Details[0].Field != "countryCode" {
			t.Errorf("a bad country: %+v", ge)
		}

		// One point, three ways: by country and pupCode (the third-party
		// CLI's call), by ID alone, and by its former 7-digit ID.
		for _, p := range []string{"/pickuppoints/FI/001003200", "/pickuppoints/fi/001003200", "/pickuppoints/001003200", "/pickuppoints/FI/0010001"} {
			one := readDocPoints(t, e.Do(apitest.Request{Method: "GET", Path: gw + p, Bearer: tok, Header: http.Header{"Accept-Language": {"en"}}}).Expect(200))
			if len(one.PickupPoints) != 1 || one.PickupPoints[0].ID != "001003200" || one.PickupPoints[0].DistanceInMeters != nil {
				t.Errorf("%s: %+v", p, one)
			}
		}
		for _, p := range []string{"/pickuppoints/SE/001003200", "/pickuppoints/FI/999999999", "/pickuppoints/FI/NOPE", "/pickuppoints/999999999"} {
			if none := readDocPoints(t, e.Do(apitest.Request{Method: "GET", Path: gw + p, Bearer: tok}).Expect(200)); len(none.PickupPoints) != 0 {
				t.Errorf("%s: %+v", p, none)
			}
		}
	})
}

// One pick-up point truth: the ecom search answers the gateway's 9-digit
// IDs, an order keeps one, and the gateway finds the same point by it.
func TestPickupPointIDsAcrossSurfaces(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		ecom := e.EcomToken(parcelgate.Production, shopID, parcelgate.RoleMerchant)
		var viaEcom []parcelgate.PickupPoint
		e.Do(apitest.Request{Method: "GET", Path: "/ecommerce/v3/pickup-points?postalCode=33100&country=FI&limit=5", Bearer: ecom}).Expect(200).JSON(&viaEcom)
		gwTok := e.GatewayToken(parcelgate.Production, "1234567-1")
		viaGateway := searchPoints(t, e, gwTok, `{"searchCriteria":{"location":{"postcode":"33100"}},"limit":5}`, nil)
		if len(viaEcom) != 5 || len(viaGateway.PickupPoints) != 5 {
			t.Fatalf("%d ecom, %d gateway", len(viaEcom), len(viaGateway.PickupPoints))
		}
		for i, p := range viaEcom {
			g := viaGateway.PickupPoints[i]
			if len(p.ExternalID) != 9 || p.ExternalID != g.ID || *p.Distance != *g.DistanceInMeters {
				t.Errorf("point %d: ecom %s, gateway %s", i, p.ExternalID, g.ID)
			}
		}
		m := newMerchant(t, e, parcelgate.Production, merchantBID)
		body := m.orderBody("ID9", 1)
		body["pickupPointId"] = viaEcom[0].ExternalID
		if got := m.create(body).PickupPointID; got != viaEcom[0].ExternalID {
			t.Errorf("order keeps %q", got)
		}
	})
}

// The gateway's errors are the provider's {errorCode, message, details},
// all three keys always present, on every gateway route: no token, an
// expired or invalid one, one whose targets lack the version, a body
// without Content-Type, an unknown member, a body that is no JSON.
func TestGatewayErrorCodes(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		tok := e.GatewayToken(parcelgate.Production, "1234567-1")
		only2026 := e.GatewayToken(parcelgate.Production, "1234567-1", "2026-04")
		routes := []struct{ method, path, body string }{
			{"POST", gw + "/pickuppoints", `{"searchCriteria":{"parcelLocker":true}}`},
			{"GET", gw + "/pickuppoints/FI", ""},
			{"POST", gw + "/estimate", `{"estimate":{"time":"2026-03-13T10:00:00Z","origin":{"countryCode":"FI","postcode":"20100"},"destination":{"countryCode":"FI","postcode":"00100"},"product":{"code":"2103"}}}`},
			{"POST", gw + "/labelless", `{"searchCriteria":{"trackingNumber":"JJFI12345678901234567"}}`},
			{"GET", gw + "/labelless/JJFI12345678901234567", ""},
		}
		check := func(r *apitest.Response, status int, code string) {
			t.Helper()
			var raw map[string]json.RawMessage
			if r.Status != status || json.Unmarshal(r.Body, &raw) != nil || len(raw) != 3 || raw["details"] == nil || raw["message"] == nil {
				t.Errorf("%d %s, want %d with errorCode, message and details", r.Status, r.Body, status)
				return
			}
			if got := string(raw["errorCode"]); got != `"`+code+`"` {
				t.Errorf("errorCode %s, want %s", got, code)
			}
		}
		for _, rt := range routes {
			req := apitest.Request{Method: rt.method, Path: rt.path}
			if rt.body != "" {
				req.Body = rt.body
			}
			check(e.Do(req), 401, "UNAUTHORIZED")
			req.Bearer = "not-a-token"
			check(e.Do(req), 401, "INVALID_TOKEN")
			req.Bearer = only2026
			check(e.Do(req), 403, "FORBIDDEN")
			if rt.body == "" {
				continue
			}
			req.Bearer = tok
			req.Body = strings.TrimSuffix(rt.body, "}") + `,"extra":1}`
			r := e.Do(req)
			check(r, 400, "VALIDATION_ERROR")
			if ge := gatewayErr(t, r); len(ge.Details) == 0 || ge.Details[0].Field != "extra" {
				t.Errorf("%s %s: unknown member not named: %+v", rt.method, rt.path, ge)
			}
			req.Body = `{"searchCriteria":`
			check(e.Do(req), 400, "JSON_DECODE_ERROR")
			// A body without Content-Type.
			hr, _ := http.NewRequest(rt.method, e.URL+rt.path, strings.NewReader(rt.body))
			hr.Header.Set("Authorization", "Bearer "+tok)
			resp, err := e.HTTP.Client().Do(hr)
			if err != nil {
				t.Fatal(err)
			}
			var ge httpapi.GatewayError
			json.NewDecoder(resp.Body).Decode(&ge)
			resp.Body.Close()
			if resp.StatusCode != 400 || ge.ErrorCode != "MISSING_HEADER" {
				t.Errorf("%s %s without Content-Type: %d %+v", rt.method, rt.path, resp.StatusCode, ge)
			}
		}
		// The shipping API answers its errors through the same writer: it
		// is open to every gateway client and takes unknown members (the
		// provider's behaviour), so FORBIDDEN and the unknown member do not
		// apply.
		ship := apitest.Request{Method: "POST", Path: "/shippingapi/api/v2/shipping/order", Body: `{"shipment":{}}`}
		check(e.Do(ship), 401, "UNAUTHORIZED")
		ship.Bearer = "not-a-token"
		check(e.Do(ship), 401, "INVALID_TOKEN")
		ship.Bearer, ship.Body = tok, `{"shipment":`
		check(e.Do(ship), 400, "JSON_DECODE_ERROR")
		hr, _ := http.NewRequest("POST", e.URL+ship.Path, strings.NewReader(`{"shipment":{}}`))
		hr.Header.Set("Authorization", "Bearer "+tok)
		if resp, err := e.HTTP.Client().Do(hr); err != nil {
			t.Fatal(err)
		} else {
			var ge httpapi.GatewayError
			json.NewDecoder(resp.Body).Decode(&ge)
			resp.Body.Close()
			if resp.StatusCode != 400 || ge.ErrorCode != "MISSING_HEADER" {
				t.Errorf("shipping without Content-Type: %d %+v", resp.StatusCode, ge)
			}
		}
		routes = append(routes, struct{ method, path, body string }{"POST", "/shippingapi/api/v2/shipping/order", `{"shipment":{}}`})
		// An expired token.
		e.Clock.Advance(2 * 3600e9)
		for _, rt := range routes {
			req := apitest.Request{Method: rt.method, Path: rt.path, Bearer: tok}
			if rt.body != "" {
				req.Body = rt.body
			}
			check(e.Do(req), 401, "EXPIRED")
		}
		// The labelless reasons, as the provider words them.
		tok = e.GatewayToken(parcelgate.Production, "1234567-1")
		ge := gatewayErr(t, e.Do(apitest.Request{Method: "POST", Path: gw + "/labelless", Bearer: tok, Body: routes[3].body}).Expect(404))
		if ge.ErrorCode != "NOT_FOUND" || ge.Message != "Shipment not found" {
			t.Errorf("labelless without shipment data: %+v", ge)
		}
	})
}
