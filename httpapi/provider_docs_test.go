package httpapi_test

// The provider's documented examples, sent as written to a server seeded
// as `serve --demo` seeds it, and read as a client written against the
// provider's pages reads them: every answer is decoded into a struct named
// and typed as the provider documents it (never parcelgate's own types), so
// a member renamed, retyped or missing here fails as it would fail the
// integrator's client. Each test cites the line of the provider's
// documentation it proves. Host names are the test server's; IDs are the
// demo's where the example names the integrator's own data (decisions §45).

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/demo"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
	"github.com/parcelgate/parcelgate/internal/wiring"
)

// docEnv is a server holding the demo data, with the demo's credentials
// exchanged for tokens as the provider's pages describe.
type docEnv struct {
	*apitest.Env
	t      *testing.T
	tenant demo.Tenant
}

func newDocEnv(t *testing.T, e *apitest.Env) *docEnv {
	t.Helper()
	if _, err := demo.Seed(context.Background(), wiring.Demo(e.DB), parcelgate.DefaultVersions); err != nil {
		t.Fatal(err)
	}
	return &docEnv{Env: e, t: t, tenant: demo.Tenants[0]}
}

// docGatewayToken is the provider's Sending Code API page's token answer.
type docGatewayToken struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	ExpiresIn   int    `json:"expires_in"`
	PostiFI     struct {
		Targets map[string]struct {
			URL  string `json:"url"`
			Tier *int   `json:"tier"`
		} `json:"targets"`
	} `json:"posti_fi"`
}

// gatewayToken asks for a gateway token with the documented form body.
func (d *docEnv) gatewayToken(id, secret string) docGatewayToken {
	d.t.Helper()
	var tok docGatewayToken
	d.Do(apitest.Request{Method: "POST", Path: "/api/v1/token", ContentType: "application/x-www-form-urlencoded",
		Body: "grant_type=client_credentials&client_id=" + url.QueryEscape(id) + "&client_secret=" + url.QueryEscape(secret)}).Expect(200).JSON(&tok)
	return tok
}

func (d *docEnv) gateway() string {
	d.t.Helper()
	return d.gatewayToken(d.tenant.ClientID, d.tenant.ClientSecret).AccessToken
}

// docAccountToken is the provider's Authentication API page's answer.
type docAccountToken struct {
	TokenType   string `json:"token_type"`
	AccessToken string `json:"access_token"`
	ExpiresIn   int    `json:"expires_in"`
}

// account exchanges a service account's credentials in HTTP Basic at the
// Tracking API's token URL, as its clients do.
func (d *docEnv) account(user, pass string) string {
	d.t.Helper()
	var tok docAccountToken
	d.Do(apitest.Request{Method: "POST", Path: "/tracking/oauth/token", Basic: &[2]string{user, pass}}).Expect(200).JSON(&tok)
	return tok.AccessToken
}

func (d *docEnv) ecom() string {
	d.t.Helper()
	return d.account(d.tenant.Username, d.tenant.Password)
}

func (d *docEnv) call(method, path, token string, body any, h http.Header) *apitest.Response {
	d.t.Helper()
	return d.Do(apitest.Request{Method: method, Path: path, Bearer: token, Body: body, Header: h})
}

// docGatewayError checks the gateway's error body: all three keys always
// present, details possibly null, the errorCode code ("" where the
// provider documents none for the status), a message; it returns the
// message.
func docGatewayError(t *testing.T, r *apitest.Response, status int, code string) string {
	t.Helper()
	r.Expect(status)
	var m map[string]json.RawMessage
	r.JSON(&m)
	for _, k := range []string{"errorCode", "message", "details"} {
		if _, ok := m[k]; !ok {
			t.Errorf("error body lacks %s: %s", k, r.Body)
		}
	}
	var e struct {
		ErrorCode string `json:"errorCode"`
		Message   string `json:"message"`
	}
	r.JSON(&e)
	if (code != "" && e.ErrorCode != code) || e.ErrorCode == "" || e.Message == "" {
		t.Errorf("errorCode %q (want %s), message %q", e.ErrorCode, code, e.Message)
	}
	return e.Message
}

// the provider's Authentication API Gateway: the form body grant answers access_token,
// token_type Bearer, expires_in 3600 and posti_fi.targets, one key per role
// (seen shippingapi, 2025-04, 2026-04), each with url and tier; the token
// goes in Authorization: Bearer; a call outside the targets is 403.
func TestProviderDocsGatewayToken(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		d := newDocEnv(t, e)
		tok := d.gatewayToken(d.tenant.ClientID, d.tenant.ClientSecret)
		if tok.AccessToken == "" || tok.TokenType != "Bearer" || tok.ExpiresIn != 3600 {
			t.Errorf("token answer %+v", tok)
		}
		for _, role := range []string{"2025-04", "2026-04", "shippingapi"} {
			tg, ok := tok.PostiFI.Targets[role]
			if !ok || tg.URL == "" || tg.Tier == nil {
				t.Errorf("posti_fi.targets[%s] = %+v (present %v)", role, tg, ok)
			}
		}
		// A client appends its calls to the target's url.
		u := tok.PostiFI.Targets["2025-04"].URL
		if !strings.HasSuffix(u, "/2025-04") {
			t.Fatalf("2025-04 target url %s", u)
		}
		d.call("GET", "/2025-04/pickuppoints/FI/001003200", tok.AccessToken, nil, nil).Expect(200)

		// A client granted 2025-04 only is refused 2026-04.
		var c struct{ ClientID, ClientSecret string }
		e.Admin("POST", "/admin/v1/gateway-clients", map[string]any{"environment": "production", "businessId": d.tenant.BusinessID, "versions": []string{"2025-04"}}).Expect(201).JSON(&c)
		only := d.gatewayToken(c.ClientID, c.ClientSecret)
		if _, ok := only.PostiFI.Targets["2026-04"]; ok {
			t.Errorf("targets name a version not granted: %+v", only.PostiFI.Targets)
		}
		docGatewayError(t, d.call("GET", "/2026-04/pickuppoints/FI/001003200", only.AccessToken, nil, nil), 403, "FORBIDDEN")
	})
}

// the provider's Authentication API Service account (the Tracking API page's token URL):
// Basic account:secret answers {token_type bearer, access_token,
// expires_in}; bad credentials are 401; five failures lock the account
// for an hour.
func TestProviderDocsServiceAccountToken(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		d := newDocEnv(t, e)
		var tok docAccountToken
		d.Do(apitest.Request{Method: "POST", Path: "/tracking/oauth/token", Basic: &[2]string{d.tenant.Username, d.tenant.Password},
			Header: http.Header{"Accept": {"application/json"}}}).Expect(200).JSON(&tok)
		if !strings.EqualFold(tok.TokenType, "bearer") || tok.AccessToken == "" || tok.ExpiresIn <= 0 || tok.ExpiresIn > 3600 {
			t.Errorf("token answer %+v", tok)
		}
		d.call("GET", "/tracking/7/shipments/trackingnumber/"+d.tenant.Shipment, tok.AccessToken, nil, nil).Expect(200)

		user := d.tenant.RetailerUsername
		wrong := &[2]string{user, "wrong"}
		for range 5 {
			d.Do(apitest.Request{Method: "POST", Path: "/tracking/oauth/token", Basic: wrong}).Expect(401)
		}
		// Locked: the right password is refused as well, for an hour.
		right := &[2]string{user, d.tenant.RetailerPassword}
		d.Do(apitest.Request{Method: "POST", Path: "/tracking/oauth/token", Basic: right}).Expect(401)
		e.Clock.Advance(61 * time.Minute)
		d.Do(apitest.Request{Method: "POST", Path: "/tracking/oauth/token", Basic: right}).Expect(200)
	})
}

// docPickupPoint is a point as the Pick-up Point API page documents it:
// the members every point has and the optional ones, by name and type.
// The inner shapes of availability and capabilities are left to the
// tests of the live answer.
type docPickupPoint struct {
	ID                 string          `json:"id"`
	PupCode            string          `json:"pupCode"`
	PublicName         string          `json:"publicName"`
	CareOf             *string         `json:"careOf"`
	ParcelLocker       *bool           `json:"parcelLocker"`
	RoutingServiceCode string          `json:"routingServiceCode"`
	DistanceInMeters   *float64        `json:"distanceInMeters"`
	Availability       json.RawMessage `json:"availability"`
	Capabilities       json.RawMessage `json:"capabilities"`
	Location           *struct {
		Street       string `json:"street"`
		Postcode     string `json:"postcode"`
		City         string `json:"city"`
		Municipality string `json:"municipality"`
		Coordinates  struct {
			Latitude  float64 `json:"latitude"`
			Longitude float64 `json:"longitude"`
		} `json:"coordinates"`
	} `json:"location"`
	Extensions *struct {
		Estimate *struct {
			Time *string `json:"time"`
		} `json:"estimate"`
		AverageLockerOccupancyRate *struct {
			AverageRate *float64 `json:"averageRate"`
			Description string   `json:"description"`
		} `json:"averageLockerOccupancyRate"`
	} `json:"extensions"`
}

type docPickupAnswer struct {
	PickupPoints            []docPickupPoint `json:"pickupPoints"`
	PagingContinuationToken *string          `json:"pagingContinuationToken"`
}

// pickupAnswer reads {"pickupPoints":[…]} and checks what every point
// carries: the required members, and an ID of 9 digits that is the
// postcode and the routing service code and serves as pupCode.
func pickupAnswer(t *testing.T, r *apitest.Response) docPickupAnswer {
	t.Helper()
	var a docPickupAnswer
	r.Expect(200).JSON(&a)
	if a.PickupPoints == nil {
		t.Fatalf("no pickupPoints list: %s", r.Body)
	}
	for _, p := range a.PickupPoints {
		if p.ID == "" || p.PublicName == "" || p.CareOf == nil || p.ParcelLocker == nil || len(p.Availability) == 0 || p.Location == nil || len(p.Capabilities) == 0 {
			t.Fatalf("a point lacks a required member: %+v", p)
		}
		if !nineDigits.MatchString(p.ID) || p.ID != p.Location.Postcode+p.RoutingServiceCode || p.PupCode != p.ID {
			t.Errorf("ID %s: postcode %s, routing code %s, pupCode %s", p.ID, p.Location.Postcode, p.RoutingServiceCode, p.PupCode)
		}
	}
	return a
}

var nineDigits = regexp.MustCompile(`^[0-9]{9}$`)

func (d *docEnv) searchPickup(tok, body string, h http.Header) docPickupAnswer {
	d.t.Helper()
	return pickupAnswer(d.t, d.call("POST", "/2025-04/pickuppoints", tok, body, h))
}

// the provider's Pick-up Point API Search body: each search mode as documented, limit
// honoured, extensions answered per point, unknown fields refused, no
// match an empty list.
func TestProviderDocsPickupSearch(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		d := newDocEnv(t, e)
		tok := d.gateway()

		// the provider's Pick-up Point API Postcode / street / city: the web shop checkout
		// sends all four location fields plus "serviceFilters":{}, limit 8.
		a := d.searchPickup(tok, `{"searchCriteria":{"location":{"postcode":"00100","countryCode":"FI","street":"Mannerheimintie 1","city":"Helsinki"},"serviceFilters":{}},"limit":8}`, nil)
		if len(a.PickupPoints) == 0 || len(a.PickupPoints) > 8 {
			t.Errorf("postcode search, limit 8: %d points", len(a.PickupPoints))
		}

		// the provider's Pick-up Point API Coordinates and radius, the page's example as
		// written: every point answered is within the radius and carries
		// distanceInMeters.
		a = d.searchPickup(tok, `{"searchCriteria":{"location":{"coordinates":{"latitude":60.17,"longitude":24.93},"radius":{"unit":"m","value":450}}},"limit":15}`, nil)
		found := false
		for _, p := range a.PickupPoints {
			if p.DistanceInMeters == nil || *p.DistanceInMeters > 450 {
				t.Errorf("point %s: distanceInMeters %v, radius 450 m", p.ID, p.DistanceInMeters)
			}
			found = found || p.ID == "001003230"
		}
		// The example's point: K-Market Etu-Töölö (001003230), the
		// provider's live answer's, lies within the 450 m.
		if !found {
			t.Errorf("coordinates example, radius 450 m: 001003230 (K-Market Etu-Töölö) not among %d points", len(a.PickupPoints))
		}
		// the provider's Pick-up Point API Stand-in must: fill distanceInMeters for
		// coordinate search; honour limit (nearest first).
		a = d.searchPickup(tok, `{"searchCriteria":{"location":{"coordinates":{"latitude":60.17,"longitude":24.93},"radius":{"unit":"m","value":3000}}},"limit":15}`, nil)
		if len(a.PickupPoints) == 0 || len(a.PickupPoints) > 15 {
			t.Fatalf("coordinates, radius 3 km, limit 15: %d points", len(a.PickupPoints))
		}
		for i, p := range a.PickupPoints {
			if p.DistanceInMeters == nil || *p.DistanceInMeters > 3000 {
				t.Fatalf("point %s: distanceInMeters %v", p.ID, p.DistanceInMeters)
			}
			if i > 0 && *p.DistanceInMeters < *a.PickupPoints[i-1].DistanceInMeters {
				t.Errorf("not nearest first: %v after %v", *p.DistanceInMeters, *a.PickupPoints[i-1].DistanceInMeters)
			}
		}
		a = d.searchPickup(tok, `{"searchCriteria":{"location":{"coordinates":{"latitude":60.17,"longitude":24.93},"radius":{"unit":"m","value":3000}}},"limit":1}`, nil)
		if len(a.PickupPoints) != 1 {
			t.Errorf("limit 1: %d points", len(a.PickupPoints))
		}

		// the provider's Pick-up Point API Rectangle: swLatitude, swLongitude, neLatitude,
		// neLongitude, all four required.
		a = d.searchPickup(tok, `{"searchCriteria":{"rectangle":{"swLatitude":60.16,"swLongitude":24.92,"neLatitude":60.18,"neLongitude":24.96}},"limit":20}`, nil)
		if len(a.PickupPoints) == 0 {
			t.Error("rectangle over central Helsinki: no points")
		}
		for _, p := range a.PickupPoints {
			if c := p.Location.Coordinates; c.Latitude < 60.16 || c.Latitude > 60.18 || c.Longitude < 24.92 || c.Longitude > 24.96 {
				t.Errorf("point %s at %+v is outside the rectangle", p.ID, c)
			}
		}
		docGatewayError(t, d.call("POST", "/2025-04/pickuppoints", tok, `{"searchCriteria":{"rectangle":{"swLatitude":60.16,"swLongitude":24.92,"neLatitude":60.18}}}`, nil), 400, "VALIDATION_ERROR")

		// the provider's Pick-up Point API Lockers: "parcelLocker": true.
		a = d.searchPickup(tok, `{"searchCriteria":{"location":{"postcode":"00100","countryCode":"FI"},"parcelLocker":true},"limit":20}`, nil)
		if len(a.PickupPoints) == 0 {
			t.Error("lockers near 00100: none")
		}
		for _, p := range a.PickupPoints {
			if !*p.ParcelLocker {
				t.Errorf("point %s is no locker", p.ID)
			}
		}

		// the provider's Pick-up Point API serviceFilters: product.code and the booleans.
		d.searchPickup(tok, `{"searchCriteria":{"location":{"postcode":"00100","countryCode":"FI"},"serviceFilters":{"product":{"code":"2103"},"outdoorLocker":false,"lockerReservable":false,"wheelchairAccessibility":true,"openOnWeekends":true,"ADRLimitedQuantities":false,"saturdayDelivery":false}},"limit":20}`, nil)

		// the provider's Pick-up Point API extensions (top-level): estimate and
		// averageLockerOccupancyRate; each point then carries
		// extensions.estimate.time and an occupancy averageRate +
		// description.
		a = d.searchPickup(tok, `{"searchCriteria":{"location":{"postcode":"00100","countryCode":"FI"},"parcelLocker":true},"limit":5,"extensions":{"estimate":{"time":"2026-03-13T10:00:00Z","origin":{"postcode":"20100","countryCode":"FI"},"product":{"code":"2103"}},"averageLockerOccupancyRate":true}}`, nil)
		if len(a.PickupPoints) == 0 {
			t.Fatal("lockers with extensions: none")
		}
		for _, p := range a.PickupPoints {
			x := p.Extensions
			if x == nil || x.Estimate == nil || x.Estimate.Time == nil || x.AverageLockerOccupancyRate == nil || x.AverageLockerOccupancyRate.AverageRate == nil || x.AverageLockerOccupancyRate.Description == "" {
				t.Fatalf("point %s: extensions %+v", p.ID, x)
			}
			if _, err := time.Parse(time.RFC3339, *x.Estimate.Time); err != nil {
				t.Errorf("point %s: extensions.estimate.time %q", p.ID, *x.Estimate.Time)
			}
		}

		// the provider's Pick-up Point API Strict: an unknown field is 400
		// VALIDATION_ERROR (the Nordic marketplace's postalCode), inside
		// and at the top.
		docGatewayError(t, d.call("POST", "/2025-04/pickuppoints", tok, `{"searchCriteria":{"location":{"postalCode":"00100","countryCode":"FI"}}}`, nil), 400, "VALIDATION_ERROR")
		docGatewayError(t, d.call("POST", "/2025-04/pickuppoints", tok, `{"searchCriteria":{"location":{"postcode":"00100","countryCode":"FI"}},"size":5,"limit":5,"radius":1}`, nil), 400, "VALIDATION_ERROR")
		// the provider's Pick-up Point API POST /pickuppoints: searchCriteria required.
		docGatewayError(t, d.call("POST", "/2025-04/pickuppoints", tok, `{"limit":5}`, nil), 400, "VALIDATION_ERROR")

		// the provider's Pick-up Point API Stand-in must: pickupPoints [] rather than an
		// error (a rectangle in the Baltic Sea between the coasts).
		a = d.searchPickup(tok, `{"searchCriteria":{"rectangle":{"swLatitude":59.70,"swLongitude":23.50,"neLatitude":59.75,"neLongitude":23.55}}}`, nil)
		if len(a.PickupPoints) != 0 {
			t.Errorf("the open sea: %d points", len(a.PickupPoints))
		}

		// the provider's Pick-up Point API Headers: Accept-Language one of fi (default), sv,
		// da, en, et, lv, lt; X-Posti-LogisticsId optional.
		for _, lang := range []string{"fi", "sv", "da", "en", "et", "lv", "lt"} {
			a = d.searchPickup(tok, `{"searchCriteria":{"location":{"postcode":"00100","countryCode":"FI"}},"limit":1}`,
				http.Header{"Accept-Language": {lang}, "X-Posti-Logisticsid": {"LOG-1"}})
			if len(a.PickupPoints) != 1 {
				t.Errorf("Accept-Language %s: %d points", lang, len(a.PickupPoints))
			}
		}
	})
}

// the provider's Pick-up Point API GET /pickuppoints/{countryCode}/{pupCode} and GET
// /pickuppoints/{id}: the documented point 001003200 (00100 + routing code
// 3200), the same point by both routes, in the 2025-04 and 2026-04
// releases; the ID is also Glue's pickupPointId.
func TestProviderDocsPickupPointByID(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		d := newDocEnv(t, e)
		tok := d.gateway()
		// The same value serves as an order's pickupPointId: the demo
		// order's point is one the gateway answers.
		var o struct {
			PickupPointID string `json:"pickupPointId"`
		}
		d.call("GET", "/ecommerce/v3/orders/"+demo.SampleOrder, d.ecom(), nil, nil).Expect(200).JSON(&o)
		if a := pickupAnswer(t, d.call("GET", "/2025-04/pickuppoints/"+o.PickupPointID, tok, nil, nil)); len(a.PickupPoints) != 1 || a.PickupPoints[0].ID != o.PickupPointID {
			t.Errorf("the demo order's pickupPointId %q: %+v", o.PickupPointID, a.PickupPoints)
		}
		for _, v := range parcelgate.DefaultVersions {
			for _, path := range []string{"/" + v + "/pickuppoints/FI/001003200", "/" + v + "/pickuppoints/001003200"} {
				a := pickupAnswer(t, d.call("GET", path, tok, nil, nil))
				if len(a.PickupPoints) != 1 {
					t.Fatalf("%s: %d points", path, len(a.PickupPoints))
				}
				p := a.PickupPoints[0]
				if p.ID != "001003200" || p.Location.Postcode != "00100" || p.RoutingServiceCode != "3200" || p.Location.City != "Helsinki" {
					t.Errorf("%s: %+v", path, p)
				}
			}
		}
	})
}

// the provider's Pick-up Point API Paging: the country listing holds
// pagingContinuationToken while pages remain, the client sends it back as
// ?pagingContinuationToken=, the last page omits it; 250 points a page in
// ascending postcode order; the value may carry an ID prefix after the
// country code.
func TestProviderDocsPickupListing(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		d := newDocEnv(t, e)
		tok := d.gateway()
		seen := map[string]bool{}
		last := ""
		next := ""
		pages := 0
		for {
			path := "/2025-04/pickuppoints/FI"
			if next != "" {
				path += "?pagingContinuationToken=" + url.QueryEscape(next)
			}
			a := pickupAnswer(t, d.call("GET", path, tok, nil, nil))
			pages++
			for _, p := range a.PickupPoints {
				if seen[p.ID] {
					t.Fatalf("page %d repeats %s", pages, p.ID)
				}
				seen[p.ID] = true
				if p.Location.Postcode < last {
					t.Fatalf("page %d: postcode %s after %s", pages, p.Location.Postcode, last)
				}
				last = p.Location.Postcode
			}
			if a.PagingContinuationToken == nil {
				break
			}
			if len(a.PickupPoints) != 250 {
				t.Fatalf("page %d of %d points holds a token", pages, len(a.PickupPoints))
			}
			next = *a.PagingContinuationToken
			if next == "" || pages > 100 {
				t.Fatalf("token %q after %d pages", next, pages)
			}
		}
		if pages < 2 {
			t.Errorf("Finland in %d page(s), %d points", pages, len(seen))
		}
		// the provider's Pick-up Point API Stand-in must: issue opaque tokens: one not
		// issued is refused, not read as an offset.
		docGatewayError(t, d.call("GET", "/2025-04/pickuppoints/FI?pagingContinuationToken=250", tok, nil, nil), 400, "VALIDATION_ERROR")
		// A country code plus an ID prefix (^[a-zA-Z]{2,3}([0-9][0-9a-zA-Z]*)?$).
		a := pickupAnswer(t, d.call("GET", "/2025-04/pickuppoints/FI00100", tok, nil, nil))
		if len(a.PickupPoints) == 0 {
			t.Fatal("FI00100: no points")
		}
		for _, p := range a.PickupPoints {
			if !strings.HasPrefix(p.ID, "00100") {
				t.Errorf("FI00100 answered %s", p.ID)
			}
		}
	})
}

// docEstimates is the gateway estimate answer: estimates[].time, which may
// be null.
type docEstimates struct {
	Estimates []struct {
		Time *string `json:"time"`
	} `json:"estimates"`
}

// the provider's estimate API Gateway estimates: the example (posti-cli's test) as
// written answers estimates[].time; origin and destination by postcode,
// pupCode or gln; additionalServicesCodes and context optional; the
// required members refused when missing, in the §3 error shape.
func TestProviderDocsEstimate(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		d := newDocEnv(t, e)
		tok := d.gateway()
		var a docEstimates
		d.call("POST", "/2025-04/estimate", tok, `{"estimate":{"time":"2026-03-13T10:00:00Z","origin":{"countryCode":"FI","postcode":"20100"},
 "destination":{"countryCode":"FI","postcode":"00100"},"product":{"code":"2103"}}}`, nil).Expect(200).JSON(&a)
		if len(a.Estimates) != 1 || a.Estimates[0].Time == nil {
			t.Fatalf("estimates %+v", a)
		}
		if at, err := time.Parse(time.RFC3339, *a.Estimates[0].Time); err != nil || !at.After(time.Date(2026, 3, 13, 10, 0, 0, 0, time.UTC)) {
			t.Errorf("estimates[0].time %q", *a.Estimates[0].Time)
		}
		for _, body := range []string{
			`{"estimate":{"time":"2026-03-13T10:00:00Z","origin":{"countryCode":"FI","pupCode":"001003200"},"destination":{"countryCode":"FI","postcode":"33100"},"product":{"code":"2103","additionalServicesCodes":[]}}}`,
			`{"estimate":{"time":"2026-03-13T10:00:00Z","origin":{"countryCode":"FI","gln":"6400000000000"},"destination":{"countryCode":"FI","postcode":"00100"},"product":{"code":"2103"}},"context":{"logisticsPhase":{"event":"PICKED_UP","reason":"PICKUP"},"shipmentSeq":1,"senderAgreement":"1","payerAgreement":"1","shipmentType":"PARCEL","partyName":"x"}}`,
		} {
			d.call("POST", "/2025-04/estimate", tok, body, nil).Expect(200).JSON(&a)
			if len(a.Estimates) != 1 {
				t.Errorf("%s: %+v", body, a)
			}
		}
		// time may be null: a GLN is no place the model can promise to.
		d.call("POST", "/2025-04/estimate", tok, `{"estimate":{"time":"2026-03-13T10:00:00Z","origin":{"countryCode":"FI","gln":"6400000000000"},"destination":{"countryCode":"FI","postcode":"00100"},"product":{"code":"2103"}}}`, nil).Expect(200).JSON(&a)
		if len(a.Estimates) != 1 || a.Estimates[0].Time != nil {
			t.Errorf("from a GLN: %+v", a)
		}
		for _, body := range []string{
			`{"estimate":{"origin":{"countryCode":"FI","postcode":"20100"},"destination":{"countryCode":"FI","postcode":"00100"},"product":{"code":"2103"}}}`,
			`{"estimate":{"time":"2026-03-13T10:00:00Z","destination":{"countryCode":"FI","postcode":"00100"},"product":{"code":"2103"}}}`,
			`{"estimate":{"time":"2026-03-13T10:00:00Z","origin":{"countryCode":"FI","postcode":"20100"},"product":{"code":"2103"}}}`,
			`{"estimate":{"time":"2026-03-13T10:00:00Z","origin":{"countryCode":"FI","postcode":"20100"},"destination":{"countryCode":"FI","postcode":"00100"},"product":{}}}`,
			`{"estimate":{"time":"2026-03-13T10:00:00Z","origin":{"postcode":"20100"},"destination":{"countryCode":"FI","postcode":"00100"},"product":{"code":"2103"}}}`,
			`{"estimate":{"time":"2026-03-13T10:00:00Z","origin":{"countryCode":"FI"},"destination":{"countryCode":"FI","postcode":"00100"},"product":{"code":"2103"}}}`,
		} {
			docGatewayError(t, d.call("POST", "/2025-04/estimate", tok, body, nil), 400, "VALIDATION_ERROR")
		}
	})
}

// the provider's estimate API Older form: GET /estimation/v1/{postcode}/{country}/
// {postcode}/{country}/{product}?time=…%2B0300[&logisticPhase=PICKED_UP]
// [&service=3106] answers {"deliveryTime":"2014-10-07T16:00:00.000+03:00"}
// (the estimation page's two examples).
func TestProviderDocsEstimationV1(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		d := newDocEnv(t, e)
		tok := d.gateway()
		var a struct {
			DeliveryTime string `json:"deliveryTime"`
		}
		for path, want := range map[string]string{
			"/estimation/v1/00100/FI/99710/FI/2103?time=2014-10-03T09:00:00.000%2B0300":                                      "2014-10-07T16:00:00.000+03:00",
			"/estimation/v1/00100/FI/33100/FI/2102?time=2014-10-03T13:30:00.000%2B0300&logisticPhase=PICKED_UP&service=3106": "2014-10-04T09:00:00.000+03:00",
		} {
			d.call("GET", path, tok, nil, nil).Expect(200).JSON(&a)
			if a.DeliveryTime != want {
				t.Errorf("%s: deliveryTime %s, want %s", path, a.DeliveryTime, want)
			}
		}
	})
}

// the provider's Sending Code API and gateway errors Gateway errors: {"errorCode","message","details"} with
// all three keys; 401 UNAUTHORIZED without a token, INVALID_TOKEN for a
// bad one, EXPIRED for an old one; 403 FORBIDDEN; 400 VALIDATION_ERROR for
// a schema error; JSON_DECODE_ERROR for a body that is no JSON.
func TestProviderDocsGatewayErrors(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		d := newDocEnv(t, e)
		tok := d.gateway()
		search := `{"searchCriteria":{"location":{"postcode":"00100","countryCode":"FI"}},"limit":1}`
		docGatewayError(t, d.call("POST", "/2025-04/pickuppoints", "", search, nil), 401, "UNAUTHORIZED")
		docGatewayError(t, d.call("POST", "/2025-04/pickuppoints", "not-a-token", search, nil), 401, "INVALID_TOKEN")
		docGatewayError(t, d.call("POST", "/2025-04/estimate", tok, `{"estimate":{"time":"2026-03-13T10:00:00Z"`, nil), 400, "JSON_DECODE_ERROR")
		docGatewayError(t, d.call("POST", "/2025-04/labelless", tok, `{"searchCriteria":{}}`, nil), 400, "VALIDATION_ERROR")
		docGatewayError(t, d.call("POST", "/2025-04/labelless", tok, `{"searchCriteria":{"trackingNumber":"`+d.tenant.Shipment+`","postalCode":"00100"}}`, nil), 400, "VALIDATION_ERROR")
		// An ecom token is no gateway token: another authorization failure.
		r := d.call("POST", "/2025-04/pickuppoints", d.ecom(), search, nil)
		if r.Status != 401 && r.Status != 403 {
			t.Errorf("service account token on the gateway: %d", r.Status)
		}
		e.Clock.Advance(2 * time.Hour)
		docGatewayError(t, d.call("POST", "/2025-04/pickuppoints", tok, search, nil), 401, "EXPIRED")
	})
}

// docLabelless is the Sending Code API's answer.
type docLabelless struct {
	Shipments []struct {
		TrackingNumber string `json:"trackingNumber"`
		SendingCode    string `json:"sendingCode"`
	} `json:"shipments"`
}

var sendingCodeForm = regexp.MustCompile(`^[0-9A-F]{6}$`)

// the provider's Sending Code API and gateway errors Labelless: POST /labelless with searchCriteria and
// validation.noEdiCheck, GET /labelless/{trackingNumber} and GET
// /labelless/shipment/{sendingCode} all answer
// {"shipments":[{trackingNumber, sendingCode}]}, a code of 6 characters
// from 0-9 and A-F; the live 404s "Shipment not found" and "… Additional
// service 3196 is missing".
func TestProviderDocsLabelless(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		d := newDocEnv(t, e)
		tok := d.gateway()
		tn := d.tenant.Shipment
		read := func(r *apitest.Response) (string, string) {
			t.Helper()
			var a docLabelless
			r.Expect(200).JSON(&a)
			if len(a.Shipments) != 1 || !sendingCodeForm.MatchString(a.Shipments[0].SendingCode) {
				t.Fatalf("answer %s", r.Body)
			}
			return a.Shipments[0].TrackingNumber, a.Shipments[0].SendingCode
		}
		gotTN, code := read(d.call("POST", "/2025-04/labelless", tok, `{"searchCriteria":{"trackingNumber":"`+tn+`"},"validation":{"noEdiCheck":false}}`, nil))
		if gotTN != tn {
			t.Errorf("trackingNumber %s, want %s", gotTN, tn)
		}
		if gotTN, got := read(d.call("GET", "/2025-04/labelless/"+tn, tok, nil, nil)); gotTN != tn || got != code {
			t.Errorf("by tracking number: %s %s, want %s %s", gotTN, got, tn, code)
		}
		if gotTN, got := read(d.call("GET", "/2025-04/labelless/shipment/"+code, tok, nil, nil)); gotTN != tn || got != code {
			t.Errorf("by sending code: %s %s, want %s %s", gotTN, got, tn, code)
		}
		// validation is optional (noEdiCheck defaults to false): an unknown
		// tracking number has no shipment data.
		r := d.call("POST", "/2025-04/labelless", tok, `{"searchCriteria":{"trackingNumber":"JJFI99999999999999999"}}`, nil)
		if m := docGatewayError(t, r, 404, ""); m != "Shipment not found" {
			t.Errorf("unknown tracking number: %v", m)
		}
		// A shipping API shipment without additional service 3196.
		ans := d.shipping(tok, "?returnFile=false", docShippingBody(""))
		r = d.call("POST", "/2025-04/labelless", tok, `{"searchCriteria":{"trackingNumber":"`+ans.Parcels[0].ParcelNo+`"}}`, nil)
		if m := docGatewayError(t, r, 404, ""); m != "Shipment not allowed for helposti code generation, Additional service 3196 is missing" {
			t.Errorf("no 3196: %v", m)
		}
	})
}

// docShipping is the Shipping API v2 answer as posti-cli and the Nordic
// marketplace read it.
type docShipping struct {
	ID         string `json:"id"`
	Status     string `json:"status"`
	ShipmentNo string `json:"shipmentNo"`
	Parcels    []struct {
		ParcelNo string `json:"parcelNo"`
	} `json:"parcels"`
	Prints []struct {
		ID          string `json:"id"`
		Href        string `json:"href"`
		Description string `json:"description"`
		Media       string `json:"media"`
		PdfType     string `json:"pdf_type"`
		Data        string `json:"data"`
	} `json:"prints"`
}

// docShippingBody is the request of the provider's Shipping API v2 as written (names of
// the unifaun model), with the agent point and media given.
func docShippingBody(media string) string {
	if media == "" {
		media = "laser-a5"
	}
	return `{"printConfig":{"target1Media":"` + media + `"},
 "shipment":{"senderPartners":[{"id":"POSTI","custNo":"677503"}],
  "sender":{"name":"Demo Shop Oy","address1":"Demokatu 1","zipcode":"00100","city":"Helsinki","country":"FI","phone":"+358401234567","email":"shop@example.com"},
  "receiver":{"name":"Maija Meikäläinen","address1":"Hämeenkatu 5","zipcode":"33100","city":"Tampere","country":"FI","email":"maija@example.com"},
  "agent":{"quickId":"001003200"},"service":{"id":"PO2103"},
  "parcels":[{"copies":1,"weight":5,"packageCode":"PKT","contents":"Goods","valuePerParcel":true}]}}`
}

func (d *docEnv) shipping(tok, query string, body any) docShipping {
	d.t.Helper()
	var a []docShipping
	d.Do(apitest.Request{Method: "POST", Path: "/shippingapi/api/v2/shipping/order" + query, Bearer: tok, Body: body,
		Header: http.Header{"X-Gateway-Secret": {"demo"}}}).Expect(200).JSON(&a)
	if len(a) != 1 {
		d.t.Fatalf("%d shipments in the answer", len(a))
	}
	return a[0]
}

func isPDF(b []byte) bool { return bytes.HasPrefix(b, []byte("%PDF")) }

// the provider's Shipping API v2 Shipping API v2: the documented request (with
// posti-cli's ?returnFile=true and the marketplace's x-gateway-secret)
// answers an array of {id, status, shipmentNo, parcels[].parcelNo,
// prints[] {id, href, description, media, pdf_type ADDRESSLABEL, data}};
// data is the PDF in base64; without returnFile, prints[].href fetched
// with the same headers is the PDF; parcelNo is the tracking number.
func TestProviderDocsShipping(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		d := newDocEnv(t, e)
		tok := d.gateway()
		a := d.shipping(tok, "?returnFile=true", docShippingBody(""))
		if a.ID == "" || a.Status != "PRINTED" || a.ShipmentNo == "" || len(a.Parcels) != 1 || a.Parcels[0].ParcelNo == "" || len(a.Prints) == 0 {
			t.Fatalf("answer %+v", a)
		}
		p := a.Prints[0]
		if p.Media != "laser-a5" || p.PdfType != "ADDRESSLABEL" || p.Href == "" || p.ID == "" || p.Description == "" {
			t.Errorf("print %+v", p)
		}
		pdf, err := base64.StdEncoding.DecodeString(p.Data)
		if err != nil || !isPDF(pdf) {
			t.Errorf("prints[0].data is no base64 PDF: %v", err)
		}
		// The parcel number is a tracking number.
		d.call("GET", "/tracking/7/shipments/trackingnumber/"+a.Parcels[0].ParcelNo, d.ecom(), nil, nil).Expect(200)

		// Without returnFile: fetch prints[].href with the same headers.
		for _, media := range []string{"thermo-225", "laser-a4", "laser-2a5", "thermo-190"} {
			a = d.shipping(tok, "", docShippingBody(media))
			if len(a.Prints) == 0 || a.Prints[0].Data != "" || a.Prints[0].Media != media {
				t.Fatalf("%s without returnFile: %+v", media, a.Prints)
			}
			u, err := url.Parse(a.Prints[0].Href)
			if err != nil {
				t.Fatal(err)
			}
			r := d.Do(apitest.Request{Method: "GET", Path: u.RequestURI(), Bearer: tok, Header: http.Header{"X-Gateway-Secret": {"demo"}}}).Expect(200)
			if !isPDF(r.Body) {
				t.Errorf("%s: href answered %.20q", media, r.Body)
			}
		}

		// the provider's Shipping API v2 Add-ons: unknown fields are not rejected here
		// (the marketplace's three other names were accepted silently).
		var body map[string]any
		if err := json.Unmarshal([]byte(docShippingBody("")), &body); err != nil {
			t.Fatal(err)
		}
		sh := body["shipment"].(map[string]any)
		sh["additionalServices"] = []any{map[string]any{"code": "3101"}}
		sh["addons"] = []any{map[string]any{"id": "3101"}}
		sh["service"].(map[string]any)["additionalServices"] = []any{"3101"}
		d.shipping(tok, "?returnFile=true", body)
	})
}

// the provider's Shipping API v2 Legacy v1: the raw API key in Authorization (no
// Bearer), pdfConfig in place of printConfig, the PDF in pdfs[].pdf.
func TestProviderDocsShippingV1(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		d := newDocEnv(t, e)
		tok := d.gateway()
		var body map[string]any
		if err := json.Unmarshal([]byte(docShippingBody("")), &body); err != nil {
			t.Fatal(err)
		}
		body["pdfConfig"] = body["printConfig"]
		delete(body, "printConfig")
		var a []struct {
			Parcels []struct {
				ParcelNo string `json:"parcelNo"`
			} `json:"parcels"`
			Pdfs []struct {
				Pdf string `json:"pdf"`
			} `json:"pdfs"`
		}
		d.Do(apitest.Request{Method: "POST", Path: "/shippingapi/api/v1/shipping/order?returnFile=true", Body: body,
			Header: http.Header{"Authorization": {tok}}}).Expect(200).JSON(&a)
		if len(a) != 1 || len(a[0].Parcels) != 1 || len(a[0].Pdfs) == 0 {
			t.Fatalf("v1 answer %+v", a)
		}
		if pdf, err := base64.StdEncoding.DecodeString(a[0].Pdfs[0].Pdf); err != nil || !isPDF(pdf) {
			t.Errorf("pdfs[0].pdf is no base64 PDF: %v", err)
		}
	})
}

// the provider's Shipping API v2 Errors: a non-2xx with a JSON body; a retired or
// unknown agent point is "E41: Inactive pickup point, please choose an
// alternative pickup point".
func TestProviderDocsShippingErrors(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		d := newDocEnv(t, e)
		tok := d.gateway()
		body := strings.Replace(docShippingBody(""), `"quickId":"001003200"`, `"quickId":"999999999"`, 1)
		r := d.call("POST", "/shippingapi/api/v2/shipping/order?returnFile=true", tok, body, nil)
		if r.Status < 400 || !json.Valid(r.Body) {
			t.Fatalf("retired agent: %d %s", r.Status, r.Body)
		}
		if !bytes.Contains(r.Body, []byte("E41: Inactive pickup point, please choose an alternative pickup point")) {
			t.Errorf("retired agent: %s", r.Body)
		}
	})
}

// docParcelShipment is a parcel of the Tracking API v7 answer as its
// clients read it (no member is required: pointers).
type docParcelShipment struct {
	TrackingCode *string `json:"trackingCode"`
	ModifiedAt   *string `json:"modifiedAt"`
	Status       *struct {
		Code        string `json:"code"`
		Description struct {
			En string `json:"en"`
		} `json:"description"`
	} `json:"status"`
	Weight *struct {
		Value float64 `json:"value"`
		Unit  string  `json:"unit"`
	} `json:"weight"`
}

type docTracking struct {
	ParcelShipments []docParcelShipment `json:"parcelShipments"`
}

var parcelStatusCodes = []string{"WAITING", "RECEIVED", "IN_TRANSPORT", "READY_FOR_PICKUP", "OUT_FOR_DELIVERY", "DELIVERED", "RETURNED_TO_SENDER",
	"RETURN_WAITING", "RETURN_IN_TRANSPORT", "RETURN_READY_FOR_PICKUP", "RETURN_DELIVERED", "CUSTOMS"}

func (d *docEnv) track(tok, path string, h http.Header) docTracking {
	d.t.Helper()
	var a docTracking
	d.call("GET", "/tracking/7/shipments/"+path, tok, nil, h).Expect(200).JSON(&a)
	for _, p := range a.ParcelShipments {
		if p.Status == nil || !slices.Contains(parcelStatusCodes, p.Status.Code) {
			d.t.Errorf("%s: status %+v is none of the documented codes", path, p.Status)
		}
	}
	return a
}

// the provider's Tracking API v7 Tracking API v7: GET trackingnumber/{n} and
// trackingnumbers/{a,b} with the service-account Bearer token, in JSON or
// application/vnd.tracking.api.v1+json; a client reads
// parcelShipments[-1].modifiedAt, .status.code and .status.description.en;
// units are kg in answers.
func TestProviderDocsTracking(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		d := newDocEnv(t, e)
		tok := d.ecom()
		tn := d.tenant.Shipment
		for _, accept := range []string{"application/json", "application/vnd.tracking.api.v1+json"} {
			a := d.track(tok, "trackingnumber/"+tn, http.Header{"Accept": {accept}})
			if len(a.ParcelShipments) == 0 {
				t.Fatalf("Accept %s: no parcelShipments", accept)
			}
			last := a.ParcelShipments[len(a.ParcelShipments)-1]
			if last.ModifiedAt == nil || last.Status.Code == "" || last.Status.Description.En == "" {
				t.Errorf("parcelShipments[-1] %+v", last)
			}
			if _, err := time.Parse(time.RFC3339, *last.ModifiedAt); err != nil {
				t.Errorf("modifiedAt %q", *last.ModifiedAt)
			}
			if last.Weight != nil && last.Weight.Unit != "kg" {
				t.Errorf("weight unit %q", last.Weight.Unit)
			}
		}
		other := tn[:len(tn)-4] + "0002"
		a := d.track(tok, "trackingnumbers/"+tn+","+other, nil)
		n := map[string]bool{}
		for _, p := range a.ParcelShipments {
			n[*p.TrackingCode] = true
		}
		if !n[other] || len(n) < 2 {
			t.Errorf("trackingnumbers/%s,%s: %v", tn, other, n)
		}
	})
}

// the provider's Tracking API v7 GET /tracking/7/shipments/…: ordernumber/,
// senderreference/, receiverreference/, errandcode/, find?keywords= and
// find/{keyword} (3–60 characters), phonenumber/ (restricted) and
// event/date (restricted, to exclusive), and the common parameters.
func TestProviderDocsTrackingKeys(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		d := newDocEnv(t, e)
		gw := d.gateway()
		tok := d.ecom()
		body := strings.Replace(docShippingBody(""), `"shipment":{`, `"shipment":{"orderNo":"ORDER-4711","senderReference":"SREF-1","receiverReference":"RREF-1",`, 1)
		ship := d.shipping(gw, "", body)
		pn := ship.Parcels[0].ParcelNo
		for _, path := range []string{"ordernumber/ORDER-4711", "find?keywords=" + pn, "find/" + pn, "find/ORDER-4711",
			"trackingnumber/" + pn + "?lastModified=2020-01-01T00:00:00Z&type=PARCEL&order=DESC&start=0&limit=100"} {
			a := d.track(tok, path, nil)
			if len(a.ParcelShipments) != 1 || *a.ParcelShipments[0].TrackingCode != pn {
				t.Errorf("%s: %+v", path, a.ParcelShipments)
			}
		}
		if a := d.track(tok, "senderreference/ORDER-4711", nil); len(a.ParcelShipments) != 1 {
			t.Errorf("senderreference/ORDER-4711: %d parcels", len(a.ParcelShipments))
		}
		d.track(tok, "receiverreference/RREF-1", nil)
		// errandcode/: the parcel holding the errand code the errand code
		// API gave it (read as its clients read ErrandCodeResult).
		var ec struct {
			ErrandCodeResult []struct {
				ParcelID   string `json:"ParcelID"`
				ErrandCode string `json:"ErrandCode"`
				ResultText string `json:"ResultText"`
			} `json:"ErrandCodeResult"`
		}
		d.call("GET", "/parcel/v1/errandCodes/"+pn, gw, nil, nil).Expect(200).JSON(&ec)
		if len(ec.ErrandCodeResult) != 1 || ec.ErrandCodeResult[0].ResultText != "OK" || !sendingCodeForm.MatchString(ec.ErrandCodeResult[0].ErrandCode) {
			t.Fatalf("errand code of %s: %+v", pn, ec)
		}
		if a := d.track(tok, "errandcode/"+ec.ErrandCodeResult[0].ErrandCode, nil); len(a.ParcelShipments) != 1 || *a.ParcelShipments[0].TrackingCode != pn {
			t.Errorf("errandcode/%s: %+v", ec.ErrandCodeResult[0].ErrandCode, a.ParcelShipments)
		}
		// find/{keyword} takes 3–60 characters; find?keywords= 1–100.
		d.call("GET", "/tracking/7/shipments/find/AB", tok, nil, nil).Expect(400)
		d.call("GET", "/tracking/7/shipments/find/"+strings.Repeat("A", 61), tok, nil, nil).Expect(400)
		d.call("GET", "/tracking/7/shipments/find?keywords="+strings.Repeat("JJFI1,", 100)+pn, tok, nil, nil).Expect(400)
		d.call("GET", "/tracking/7/shipments/find?keywords=", tok, nil, nil).Expect(400)
		// phonenumber/ is restricted.
		d.call("GET", "/tracking/7/shipments/phonenumber/0401111111", tok, nil, nil).Expect(403)
		// event/date (restricted: the external role, own contract only)
		// answers the caller's own parcels with an event from from up to
		// the exclusive to.
		now := e.Clock.Now(parcelgate.Production).UTC()
		q := "?from=" + now.Add(-time.Hour).Format(time.RFC3339) + "&to=" + now.Add(time.Hour).Format(time.RFC3339)
		a := d.track(tok, "event/date"+q, nil)
		found := false
		for _, p := range a.ParcelShipments {
			found = found || *p.TrackingCode == pn
		}
		if !found {
			t.Errorf("event/date%s lacks %s", q, pn)
		}
		// to is exclusive: a period ending at the parcel's first event
		// misses it, one a second later holds it.
		first := d.track(tok, "trackingnumber/"+pn, nil).ParcelShipments[0].ModifiedAt
		at, err := time.Parse(time.RFC3339Nano, *first)
		if err != nil {
			t.Fatal(err)
		}
		for to, want := range map[time.Time]bool{at: false, at.Add(time.Second): true} {
			q := "?from=" + url.QueryEscape(at.Add(-time.Hour).Format(time.RFC3339Nano)) + "&to=" + url.QueryEscape(to.Format(time.RFC3339Nano))
			found := false
			for _, p := range d.track(tok, "event/date"+q, nil).ParcelShipments {
				found = found || *p.TrackingCode == pn
			}
			if found != want {
				t.Errorf("event/date%s: found %v, want %v", q, found, want)
			}
		}
		other := d.account(d.tenant.RetailerUsername, d.tenant.RetailerPassword)
		if a := d.track(other, "event/date"+q, nil); len(a.ParcelShipments) != 0 {
			t.Errorf("another organization's event/date: %d parcels", len(a.ParcelShipments))
		}
	})
}

// docGlueShipment is a Shipments API V3 shipment as the provider's
// Shipments API page lists its fields.
type docGlueShipment struct {
	ShipmentID string `json:"shipmentId"`
	ExternalID string `json:"externalId"`
	ClientID   string `json:"clientId"`
	Metadata   struct {
		SourceOrganization string `json:"sourceOrganization"`
		InsertDate         string `json:"insertDate"`
		UpdateDate         string `json:"updateDate"`
		DocumentType       string `json:"documentType"`
	} `json:"metadata"`
	References []struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	} `json:"references"`
	CreatedDate string `json:"createdDate"`
	Status      struct {
		Value     string `json:"value"`
		Timestamp string `json:"timestamp"`
	} `json:"status"`
	Consignment struct {
		Reference      string `json:"reference"`
		ContractNumber string `json:"contractNumber"`
		OrderDate      string `json:"orderDate"`
		Vendor         struct {
			ExternalID string `json:"externalId"`
		} `json:"vendor"`
		DeliveryAddress struct {
			Name string `json:"name"`
		} `json:"deliveryAddress"`
		DeliveryOperator string `json:"deliveryOperator"`
		Rows             []struct {
			ItemID              string   `json:"itemId"`
			ProductEANCode      string   `json:"productEANCode"`
			ExternalWarehouseID string   `json:"externalWarehouseId"`
			Quantity            float64  `json:"quantity"`
			DeliveredQuantity   *float64 `json:"deliveredQuantity"`
		} `json:"rows"`
		Parcels []struct {
			ParcelID           string   `json:"parcelId"`
			PackageType        string   `json:"packageType"`
			ServiceCode        string   `json:"serviceCode"`
			DeliveryOperator   string   `json:"deliveryOperator"`
			PickupPointID      string   `json:"pickupPointId"`
			RoutingServiceCode string   `json:"routingServiceCode"`
			TrackingCodes      []string `json:"trackingCodes"`
			Rows               []struct {
				ItemID            string   `json:"itemId"`
				DeliveredQuantity *float64 `json:"deliveredQuantity"`
			} `json:"rows"`
		} `json:"parcels"`
	} `json:"consignment"`
}

type docGluePage struct {
	Content []docGlueShipment `json:"content"`
	Page    struct {
		Size          *int `json:"size"`
		TotalElements *int `json:"totalElements"`
		TotalPages    *int `json:"totalPages"`
		Number        *int `json:"number"`
	} `json:"page"`
}

var contractNumberForm = regexp.MustCompile(`^6[0-9]{5}$`)

// the provider's Shipments and Orders API V3 Shipments V3: the poll GET
// ?from=2024-01-01T00:00:00Z&status=Created,Viewed&size=20&page=0 answers
// page {size, totalElements, totalPages, number}; the shipment carries
// the documented fields: the retailer's order split per supplier, parcel
// "1" as Glue makes it holding all rows, contractNumber 6 digits starting
// with 6, deliveryOperator Posti with codes like 2103.
func TestProviderDocsSupplierShipmentPoll(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		d := newDocEnv(t, e)
		tok := d.ecom()
		var pg docGluePage
		d.call("GET", "/ecommerce/v3/shipments?from=2024-01-01T00:00:00Z&status=Created,Viewed&size=20&page=0", tok, nil, nil).Expect(200).JSON(&pg)
		if pg.Page.Size == nil || *pg.Page.Size != 20 || pg.Page.Number == nil || *pg.Page.Number != 0 || pg.Page.TotalElements == nil || *pg.Page.TotalElements != 1 || pg.Page.TotalPages == nil || *pg.Page.TotalPages != 1 {
			t.Errorf("page %+v", pg.Page)
		}
		if len(pg.Content) != 1 {
			t.Fatalf("%d shipments", len(pg.Content))
		}
		s := pg.Content[0]
		c := s.Consignment
		refs := map[string]string{}
		for _, r := range s.References {
			refs[r.Name] = r.Value
		}
		if s.ShipmentID == "" || s.ClientID != d.tenant.BusinessID || s.Metadata.SourceOrganization != d.tenant.RetailerID || s.Metadata.DocumentType != "SalesOrder" ||
			s.CreatedDate == "" || s.Status.Value != "Created" || s.Status.Timestamp == "" || refs["PO"] != demo.SampleDropshipOrder || refs["SO"] == "" {
			t.Errorf("shipment %+v", s)
		}
		if c.Reference != demo.SampleDropshipOrder || c.OrderDate == "" || c.Vendor.ExternalID != d.tenant.BusinessID || c.DeliveryOperator != "Posti" || c.DeliveryAddress.Name == "" {
			t.Errorf("consignment %+v", c)
		}
		if !contractNumberForm.MatchString(c.ContractNumber) {
			t.Errorf("consignment.contractNumber %q: 6 digits starting with 6", c.ContractNumber)
		}
		if len(c.Rows) != 1 || c.Rows[0].ItemID != d.tenant.BusinessID+"-MUG" || c.Rows[0].ExternalWarehouseID != d.tenant.RetailCatalogID || c.Rows[0].Quantity != 2 {
			t.Errorf("rows %+v", c.Rows)
		}
		if len(c.Parcels) != 1 || c.Parcels[0].ParcelID != "1" || c.Parcels[0].PackageType == "" || c.Parcels[0].ServiceCode != "2104" || c.Parcels[0].DeliveryOperator != "Posti" {
			t.Errorf("parcels %+v", c.Parcels)
		}
		// The poll is newer than from: a later from answers none.
		d.call("GET", "/ecommerce/v3/shipments?from=2999-01-01T00:00:00Z&status=Created,Viewed&size=20&page=0", tok, nil, nil).Expect(200).JSON(&pg)
		if len(pg.Content) != 0 {
			t.Errorf("from in the future: %d shipments", len(pg.Content))
		}
		// GET /{id}.
		var one docGlueShipment
		d.call("GET", "/ecommerce/v3/shipments/"+s.ShipmentID, tok, nil, nil).Expect(200).JSON(&one)
		if one.ShipmentID != s.ShipmentID {
			t.Errorf("GET /{id}: %+v", one)
		}
	})
}

// merchantShipment is the caller's one open shipment of the sample
// dropshipping order (the demo merchant's, or the second supplier's), as
// its poll finds it.
func (d *docEnv) merchantShipment(tok string) docGlueShipment {
	d.t.Helper()
	var pg docGluePage
	d.call("GET", "/ecommerce/v3/shipments?from=2024-01-01T00:00:00Z&status=Created,Viewed", tok, nil, nil).Expect(200).JSON(&pg)
	if len(pg.Content) != 1 {
		d.t.Fatalf("%d shipments", len(pg.Content))
	}
	return pg.Content[0]
}

// the provider's Shipments and Orders API V3 Flows: the status update PATCH {"status":{"value":
// "Viewed"}} answers the full updated shipment; the statuses Picking,
// Packing and Shipping follow; statuses are case-sensitive; the confirm PATCH as written answers trackingCodes per
// parcel; the status is copied back to the retailer's order, whose rows
// and order carry the tracking codes; a final status gets no further
// updates.
func TestProviderDocsSupplierShipmentConfirm(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		d := newDocEnv(t, e)
		tok := d.ecom()
		s := d.merchantShipment(tok)
		path := "/ecommerce/v3/shipments/" + s.ShipmentID
		var got docGlueShipment
		d.call("PATCH", path, tok, `{"status":{"value":"Viewed"}}`, nil).Expect(200).JSON(&got)
		if got.ShipmentID != s.ShipmentID || got.Status.Value != "Viewed" || len(got.Consignment.Rows) != 1 || len(got.Consignment.Parcels) != 1 {
			t.Fatalf("PATCH Viewed answered %+v", got)
		}
		d.call("PATCH", path, tok, `{"status":{"value":"viewed"}}`, nil).Expect(400)
		for _, st := range []string{"Picking", "Packing", "Shipping"} {
			d.call("PATCH", path, tok, `{"status":{"value":"`+st+`"}}`, nil).Expect(200).JSON(&got)
			if got.Status.Value != st {
				t.Errorf("PATCH %s answered %s", st, got.Status.Value)
			}
		}

		row := got.Consignment.Rows[0]
		confirm := `{"status":{"value":"Delivered"},"consignment":{"parcels":[{"parcelId":"1","packageType":"PC","ready":true,"rows":[{"externalWarehouseId":"` +
			row.ExternalWarehouseID + `","itemId":"` + row.ItemID + `","deliveredQuantity":2,"quantity":2.0}]}]}}`
		// the provider's Shipments and Orders API V3 Confirm: changing the method needs serviceCode
		// and deliveryOperator; serviceCode alone is refused.
		r := d.call("PATCH", path, tok, strings.Replace(confirm, `"ready":true,`, `"ready":true,"serviceCode":"2103",`, 1), nil).Expect(400)
		if !bytes.Contains(r.Body, []byte("deliveryOperator")) {
			t.Errorf("serviceCode alone: %s", r.Body)
		}
		d.call("PATCH", path, tok, confirm, nil).Expect(200).JSON(&got)
		if got.Status.Value != "Delivered" || len(got.Consignment.Parcels) != 1 || len(got.Consignment.Parcels[0].TrackingCodes) == 0 {
			t.Fatalf("confirm answered %+v", got)
		}
		code := got.Consignment.Parcels[0].TrackingCodes[0]
		// the provider's Shipments and Orders API V3 GET /{id}/parcels/{parcelId}/label and /note:
		// the label and the note Glue made at the confirm.
		for _, doc := range []string{"label", "note"} {
			if r := d.call("GET", path+"/parcels/1/"+doc, tok, nil, nil).Expect(200); !isPDF(r.Body) {
				t.Errorf("%s: %.20q", doc, r.Body)
			}
		}
		// A final status gets no further updates.
		if r := d.call("PATCH", path, tok, `{"status":{"value":"Viewed"}}`, nil); r.Status < 400 {
			t.Errorf("Delivered moved to Viewed: %d", r.Status)
		}
		// The tracking code sits on the retailer's order and its row.
		rtok := d.account(d.tenant.RetailerUsername, d.tenant.RetailerPassword)
		var o struct {
			TrackingCodes []string `json:"trackingCodes"`
			Rows          []struct {
				ExternalProductID string   `json:"externalProductId"`
				TrackingCodes     []string `json:"trackingCodes"`
				DeliveredQuantity *float64 `json:"deliveredQuantity"`
				Status            struct {
					Value string `json:"value"`
				} `json:"status"`
			} `json:"rows"`
		}
		d.call("GET", "/ecommerce/v3/orders/"+demo.SampleDropshipOrder, rtok, nil, nil).Expect(200).JSON(&o)
		if !slices.Contains(o.TrackingCodes, code) {
			t.Errorf("order trackingCodes %v lack %s", o.TrackingCodes, code)
		}
		found := false
		for _, r := range o.Rows {
			if r.ExternalProductID == row.ItemID {
				found = true
				if !slices.Contains(r.TrackingCodes, code) || r.Status.Value != "Delivered" || r.DeliveredQuantity == nil || *r.DeliveredQuantity != 2 {
					t.Errorf("row %+v", r)
				}
			}
		}
		if !found {
			t.Errorf("no row %s in %+v", row.ItemID, o.Rows)
		}
	})
}

// shipmentOf is the caller's shipment of the retailer's order ext, as its
// poll finds it.
func (d *docEnv) shipmentOf(tok, ext string) docGlueShipment {
	d.t.Helper()
	var pg docGluePage
	d.call("GET", "/ecommerce/v3/shipments?from=2024-01-01T00:00:00Z&status=Created,Viewed", tok, nil, nil).Expect(200).JSON(&pg)
	for _, s := range pg.Content {
		if s.Consignment.Reference == ext {
			return s
		}
	}
	d.t.Fatalf("no shipment of %s among %d", ext, len(pg.Content))
	return docGlueShipment{}
}

// the provider's Shipments and Orders API V3 Confirm: with client-supplied trackingCodes ["EXT…"]
// the parcel carries them; Partial delivery: every row listed, with
// deliveredQuantity 0 for rows not sent.
func TestProviderDocsSupplierShipmentOwnCodes(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		d := newDocEnv(t, e)
		rtok := d.account(d.tenant.RetailerUsername, d.tenant.RetailerPassword)
		ext := d.tenant.RetailerID + "-OWN1"
		rows := []any{}
		for _, p := range []string{"MUG", "LAMP"} {
			rows = append(rows, map[string]any{"externalProductId": d.tenant.BusinessID + "-" + p, "externalWarehouseId": d.tenant.RetailCatalogID, "quantity": 1})
		}
		r := d.call("POST", "/ecommerce/v3/orders", rtok, map[string]any{"externalId": ext, "serviceCode": "2104", "rows": rows,
			"deliveryAddress": map[string]any{"name": "Matti Meikäläinen", "streetAddress": "Kotikatu 4", "postalCode": "00200", "postOffice": "Helsinki", "country": "FI", "email": "matti@example.com"}}, nil)
		if r.Status != 200 && r.Status != 201 {
			t.Fatalf("order: %d %s", r.Status, r.Body)
		}
		tok := d.ecom()
		s := d.shipmentOf(tok, ext)
		if len(s.Consignment.Rows) != 2 || len(s.Consignment.Parcels) != 1 || len(s.Consignment.Parcels[0].Rows) != 2 {
			t.Fatalf("Glue's parcel 1 should hold both rows: %+v", s.Consignment)
		}
		var rs []string
		for _, row := range s.Consignment.Rows {
			q := 1
			if strings.HasSuffix(row.ItemID, "-LAMP") {
				q = 0
			}
			rs = append(rs, `{"externalWarehouseId":"`+row.ExternalWarehouseID+`","itemId":"`+row.ItemID+`","deliveredQuantity":`+strconv.Itoa(q)+`,"quantity":1.0}`)
		}
		confirm := `{"status":{"value":"Delivered"},"consignment":{"parcels":[{"parcelId":"1","packageType":"PC","ready":true,"trackingCodes":["EXT123456789"],"rows":[` + strings.Join(rs, ",") + `]}]}}`
		var got docGlueShipment
		d.call("PATCH", "/ecommerce/v3/shipments/"+s.ShipmentID, tok, confirm, nil).Expect(200).JSON(&got)
		p := got.Consignment.Parcels
		if got.Status.Value != "Delivered" || len(p) != 1 || !slices.Equal(p[0].TrackingCodes, []string{"EXT123456789"}) {
			t.Fatalf("confirm with own codes answered %+v", got)
		}
		// Glue makes no label for a parcel with the client's own codes,
		// only the note.
		path := "/ecommerce/v3/shipments/" + s.ShipmentID + "/parcels/1/"
		if r := d.call("GET", path+"label", tok, nil, nil); r.Status < 400 || r.Status >= 500 {
			t.Errorf("label of a parcel with own codes: %d", r.Status)
		}
		if r := d.call("GET", path+"note", tok, nil, nil).Expect(200); !isPDF(r.Body) {
			t.Errorf("note: %.20q", r.Body)
		}
		for _, row := range p[0].Rows {
			want := 1.0
			if strings.HasSuffix(row.ItemID, "-LAMP") {
				want = 0
			}
			if row.DeliveredQuantity == nil || *row.DeliveredQuantity != want {
				t.Errorf("parcel row %s: deliveredQuantity %v, want %v", row.ItemID, row.DeliveredQuantity, want)
			}
		}
	})
}

// the provider's Shipments and Orders API V3 Shipment object: deliveryOperator is Posti (codes like
// "2103") or Unifaun ("PO2103"); Confirm: changing the method names
// serviceCode and deliveryOperator.
func TestProviderDocsSupplierShipmentUnifaun(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		d := newDocEnv(t, e)
		tok := d.ecom()
		s := d.merchantShipment(tok)
		path := "/ecommerce/v3/shipments/" + s.ShipmentID
		row := s.Consignment.Rows[0]
		confirm := func(service string) string {
			return `{"status":{"value":"Delivered"},"consignment":{"parcels":[{"parcelId":"1","packageType":"PC","ready":true,"serviceCode":"` + service + `","deliveryOperator":"Unifaun","rows":[{"externalWarehouseId":"` +
				row.ExternalWarehouseID + `","itemId":"` + row.ItemID + `","deliveredQuantity":2,"quantity":2.0}]}]}}`
		}
		// A Posti code under Unifaun is refused.
		d.call("PATCH", path, tok, confirm("2104"), nil).Expect(400)
		var got docGlueShipment
		d.call("PATCH", path, tok, confirm("PO2104"), nil).Expect(200).JSON(&got)
		if p := got.Consignment.Parcels; got.Status.Value != "Delivered" || len(p) != 1 || p[0].ServiceCode != "PO2104" || p[0].DeliveryOperator != "Unifaun" || len(p[0].TrackingCodes) == 0 {
			t.Fatalf("confirmed via Unifaun: %+v", got.Consignment.Parcels)
		}
	})
}

// the provider's Shipments and Orders API V3 Fast confirm: POST /{id}/delivered sets Delivered,
// deliveredQuantity = ordered quantity, makes labels, and answers the
// full shipment; Cancel: PATCH {"status":{"value":"Cancelled"}}.
func TestProviderDocsSupplierShipmentFastConfirmAndCancel(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		d := newDocEnv(t, e)
		tok := d.ecom()
		s := d.merchantShipment(tok)
		var got docGlueShipment
		d.call("POST", "/ecommerce/v3/shipments/"+s.ShipmentID+"/delivered", tok, nil, nil).Expect(200).JSON(&got)
		if got.Status.Value != "Delivered" || len(got.Consignment.Parcels) != 1 || len(got.Consignment.Parcels[0].TrackingCodes) == 0 {
			t.Fatalf("fast confirm answered %+v", got)
		}
		for _, r := range got.Consignment.Rows {
			if r.DeliveredQuantity == nil || *r.DeliveredQuantity != r.Quantity {
				t.Errorf("row %+v", r)
			}
		}
		// The second supplier cancels its own shipment.
		st := d.account(d.tenant.SupplierUsername, d.tenant.SupplierPassword)
		o := d.merchantShipment(st)
		d.call("PATCH", "/ecommerce/v3/shipments/"+o.ShipmentID, st, `{"status":{"value":"Cancelled"}}`, nil).Expect(200).JSON(&got)
		if got.Status.Value != "Cancelled" {
			t.Errorf("cancel answered %+v", got.Status)
		}
	})
}

// docOrder is an Orders API V3 order as the retailer's client reads it.
type docOrder struct {
	ExternalID string `json:"externalId"`
	Status     struct {
		Value string `json:"value"`
	} `json:"status"`
}

// the provider's Shipments and Orders API V3 Retailer side: POST /ecommerce/v3/orders; externalId
// unique per retailer, made by Glue (XXX-XXX-XXX) when absent; with Posti
// the client needs an email or a mobile number; GET
// /v3/orders/{externalId} (the page omits /ecommerce); the filters
// refName/refValue, warehouseExternalId and updatedFrom/updatedTo.
func TestProviderDocsRetailerOrders(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		d := newDocEnv(t, e)
		tok := d.account(d.tenant.RetailerUsername, d.tenant.RetailerPassword)
		order := func(ext, contact string) map[string]any {
			addr := map[string]any{"name": "Matti Meikäläinen", "streetAddress": "Kotikatu 4", "postalCode": "00200", "postOffice": "Helsinki", "country": "FI"}
			if contact != "" {
				addr["email"] = contact
			}
			o := map[string]any{"deliveryAddress": addr, "serviceCode": "2104", "deliveryOperator": "Posti",
				"references": []any{map[string]any{"name": "SO", "value": "WEB-77"}},
				"rows":       []any{map[string]any{"externalProductId": d.tenant.BusinessID + "-POSTER", "externalWarehouseId": d.tenant.RetailCatalogID, "quantity": 1}}}
			if ext != "" {
				o["externalId"] = ext
			}
			return o
		}
		var made docOrder
		r := d.call("POST", "/ecommerce/v3/orders", tok, order("", "matti@example.com"), nil)
		if r.Status != 200 && r.Status != 201 {
			t.Fatalf("POST /ecommerce/v3/orders: %d %s", r.Status, r.Body)
		}
		r.JSON(&made)
		if made.ExternalID == "" {
			t.Errorf("no externalId made: %s", r.Body)
		}
		var got docOrder
		d.call("GET", "/v3/orders/"+made.ExternalID, tok, nil, nil).Expect(200).JSON(&got)
		if got.ExternalID != made.ExternalID {
			t.Errorf("GET /v3/orders/{externalId}: %+v", got)
		}
		// No email and no mobile number.
		d.call("POST", "/ecommerce/v3/orders", tok, order(d.tenant.RetailerID+"-NOCONTACT", ""), nil).Expect(400)
		// A mobile number alone will do.
		mobile := order(d.tenant.RetailerID+"-MOBILE", "")
		mobile["deliveryAddress"].(map[string]any)["telephone"] = "+358401234568"
		if r := d.call("POST", "/ecommerce/v3/orders", tok, mobile, nil); r.Status != 200 && r.Status != 201 {
			t.Errorf("mobile only: %d %s", r.Status, r.Body)
		}

		var pg struct {
			Content []docOrder `json:"content"`
		}
		ids := func(q string) []string {
			t.Helper()
			d.call("GET", "/ecommerce/v3/orders?"+q, tok, nil, nil).Expect(200).JSON(&pg)
			var out []string
			for _, o := range pg.Content {
				out = append(out, o.ExternalID)
			}
			slices.Sort(out)
			return out
		}
		if got := ids("refName=SO&refValue=WEB-77"); len(got) != 2 || !slices.Contains(got, made.ExternalID) {
			t.Errorf("refName=SO&refValue=WEB-77: %v", got)
		}
		if got := ids("warehouseExternalId=" + d.tenant.RetailCatalogID); len(got) != 3 {
			t.Errorf("warehouseExternalId: %v", got)
		}
		if got := ids("refName=SO&refValue=DROP-1"); !slices.Equal(got, []string{demo.SampleDropshipOrder}) {
			t.Errorf("refName=SO&refValue=DROP-1: %v", got)
		}
		if got := ids("updatedFrom=2999-01-01T00:00:00Z"); len(got) != 0 {
			t.Errorf("updatedFrom in the future: %v", got)
		}
		if got := ids("updatedFrom=2000-01-01T00:00:00Z&updatedTo=2999-01-01T00:00:00Z"); len(got) != 3 {
			t.Errorf("updatedFrom/updatedTo around now: %v", got)
		}
	})
}

// the provider's Tracking API v7 Roles: public (any shipment, fewer fields) vs external
// (own contract only, all fields): another organization tracking the demo
// shipment's number sees its status, not its sender or receiver.
func TestProviderDocsTrackingRoles(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		d := newDocEnv(t, e)
		path := "/tracking/7/shipments/trackingnumber/" + d.tenant.Shipment
		type party struct {
			Sender   *json.RawMessage `json:"sender"`
			Receiver *json.RawMessage `json:"receiver"`
		}
		var own, public struct {
			ParcelShipments []party `json:"parcelShipments"`
		}
		d.call("GET", path, d.ecom(), nil, nil).Expect(200).JSON(&own)
		d.call("GET", path, d.account(d.tenant.RetailerUsername, d.tenant.RetailerPassword), nil, nil).Expect(200).JSON(&public)
		if len(own.ParcelShipments) == 0 || own.ParcelShipments[0].Sender == nil || own.ParcelShipments[0].Receiver == nil {
			t.Errorf("own view lacks sender or receiver: %+v", own)
		}
		if len(public.ParcelShipments) != len(own.ParcelShipments) {
			t.Fatalf("public view: %d parcels, own %d", len(public.ParcelShipments), len(own.ParcelShipments))
		}
		for _, p := range public.ParcelShipments {
			if p.Sender != nil || p.Receiver != nil {
				t.Errorf("public view shows a party: %+v", p)
			}
		}
	})
}

// the provider's Tracking API v7 Common params: lastModified, start (default 0) and
// limit (default 100; hard cap 100 although the schema allows 1000),
// order=ASC|DESC.
func TestProviderDocsTrackingPaging(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		d := newDocEnv(t, e)
		tok := d.ecom()
		tn := d.tenant.Shipment
		all := d.track(tok, "trackingnumber/"+tn, nil)
		if len(all.ParcelShipments) != 4 {
			t.Fatalf("the demo shipment: %d parcels", len(all.ParcelShipments))
		}
		var codes []string
		for _, p := range all.ParcelShipments {
			codes = append(codes, *p.TrackingCode)
		}
		var paged []string
		for _, q := range []string{"?start=0&limit=2", "?start=2&limit=2"} {
			a := d.track(tok, "trackingnumber/"+tn+q, nil)
			if len(a.ParcelShipments) != 2 {
				t.Fatalf("%s: %d parcels", q, len(a.ParcelShipments))
			}
			for _, p := range a.ParcelShipments {
				paged = append(paged, *p.TrackingCode)
			}
		}
		if !slices.Equal(paged, codes) {
			t.Errorf("pages %v, all %v", paged, codes)
		}
		if a := d.track(tok, "trackingnumber/"+tn+"?limit=1000", nil); len(a.ParcelShipments) != 4 {
			t.Errorf("limit=1000: %d parcels", len(a.ParcelShipments))
		}
		// lastModified: only what changed since.
		if a := d.track(tok, "trackingnumber/"+tn+"?lastModified=2999-01-01T00:00:00Z", nil); len(a.ParcelShipments) != 0 {
			t.Errorf("lastModified in the future: %d parcels", len(a.ParcelShipments))
		}
		for _, o := range []string{"ASC", "DESC"} {
			d.track(tok, "trackingnumber/"+tn+"?order="+o, nil)
		}
	})
}

// the provider's Pick-up Point API GET /pickuppoints/{countryCode}: the value matches
// ^[a-zA-Z]{2,3}…, so a lower-case country code lists the same points;
// the documented point's location carries municipality and
// routingPostcode as the page's example does.
func TestProviderDocsPickupCountryCase(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		d := newDocEnv(t, e)
		tok := d.gateway()
		up := pickupAnswer(t, d.call("GET", "/2025-04/pickuppoints/FI00100", tok, nil, nil))
		low := pickupAnswer(t, d.call("GET", "/2025-04/pickuppoints/fi00100", tok, nil, nil))
		if len(up.PickupPoints) == 0 || len(low.PickupPoints) != len(up.PickupPoints) {
			t.Errorf("FI00100 %d points, fi00100 %d", len(up.PickupPoints), len(low.PickupPoints))
		}
		var raw struct {
			PickupPoints []struct {
				Location struct {
					Municipality    string `json:"municipality"`
					RoutingPostcode string `json:"routingPostcode"`
				} `json:"location"`
			} `json:"pickupPoints"`
		}
		d.call("GET", "/2025-04/pickuppoints/FI/001003200", tok, nil, nil).Expect(200).JSON(&raw)
		if l := raw.PickupPoints[0].Location; l.Municipality != "Helsinki" || l.RoutingPostcode != "00100" {
			t.Errorf("location %+v", l)
		}
	})
}

// the provider's Sending Code API and gateway errors: MISSING_HEADER (a body without Content-Type) and 500
// INTERNAL_SERVER_ERROR, in the gateway's error shape.
func TestProviderDocsGatewayServerErrors(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		d := newDocEnv(t, e)
		tok := d.gateway()
		req, err := http.NewRequest("POST", e.URL+"/2025-04/pickuppoints", strings.NewReader(`{"searchCriteria":{"location":{"postcode":"00100","countryCode":"FI"}}}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := e.HTTP.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			ErrorCode string `json:"errorCode"`
		}
		err = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 400 || body.ErrorCode != "MISSING_HEADER" {
			t.Errorf("no Content-Type: %d %+v %v", resp.StatusCode, body, err)
		}
		e.Admin("POST", "/admin/v1/faults", map[string]any{"environment": "production", "route": "/{version}/pickuppoints", "method": "POST", "status": 500}).Expect(201)
		docGatewayError(t, d.call("POST", "/2025-04/pickuppoints", tok, `{"searchCriteria":{"location":{"postcode":"00100","countryCode":"FI"}}}`, nil), 500, "INTERNAL_SERVER_ERROR")
	})
}

// the provider's Shipping API v2 parcels[]: copies is an int ≥ 1 (each copy a parcel of
// its own number); weight in kg; length, width, height and volume
// optional; sender and receiver required, refused with a JSON body.
func TestProviderDocsShippingParcels(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		d := newDocEnv(t, e)
		tok := d.gateway()
		body := func(edit func(sh map[string]any)) map[string]any {
			var b map[string]any
			if err := json.Unmarshal([]byte(docShippingBody("")), &b); err != nil {
				t.Fatal(err)
			}
			edit(b["shipment"].(map[string]any))
			return b
		}
		a := d.shipping(tok, "?returnFile=true", body(func(sh map[string]any) {
			sh["parcels"] = []any{map[string]any{"copies": 2, "weight": 1.5, "packageCode": "PKT", "contents": "Goods", "valuePerParcel": true,
				"length": 0.3, "width": 0.2, "height": 0.1, "volume": 0.006}}
		}))
		if len(a.Parcels) != 2 || a.Parcels[0].ParcelNo == a.Parcels[1].ParcelNo {
			t.Errorf("copies 2: parcels %+v", a.Parcels)
		}
		for name, edit := range map[string]func(sh map[string]any){
			"copies 0":    func(sh map[string]any) { sh["parcels"].([]any)[0].(map[string]any)["copies"] = 0 },
			"no receiver": func(sh map[string]any) { delete(sh, "receiver") },
			"no sender":   func(sh map[string]any) { delete(sh, "sender") },
		} {
			r := d.call("POST", "/shippingapi/api/v2/shipping/order?returnFile=true", tok, body(edit), nil)
			if r.Status < 400 || r.Status >= 500 || !json.Valid(r.Body) {
				t.Errorf("%s: %d %s", name, r.Status, r.Body)
			}
		}
	})
}

// the provider's Shipments and Orders API V3 Retailer side: externalId in Code 128 characters; a supplier cancellation shows on the retailer's
// order as Cancelled (or Delivered with deliveredQuantity 0).
func TestProviderDocsRetailerOrderRules(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		d := newDocEnv(t, e)
		tok := d.account(d.tenant.RetailerUsername, d.tenant.RetailerPassword)
		row := map[string]any{"externalProductId": d.tenant.BusinessID + "-POSTER", "externalWarehouseId": d.tenant.RetailCatalogID, "quantity": 1}
		order := func(ext string, rows ...any) map[string]any {
			return map[string]any{"externalId": ext, "serviceCode": "2104", "rows": rows,
				"deliveryAddress": map[string]any{"name": "Matti Meikäläinen", "streetAddress": "Kotikatu 4", "postalCode": "00200", "postOffice": "Helsinki", "country": "FI", "email": "matti@example.com"}}
		}
		d.call("POST", "/ecommerce/v3/orders", tok, order(d.tenant.RetailerID+"-ÄÖ", row), nil).Expect(400)

		// The second supplier cancels its shipment of the sample order.
		st := d.account(d.tenant.SupplierUsername, d.tenant.SupplierPassword)
		s := d.shipmentOf(st, demo.SampleDropshipOrder)
		d.call("PATCH", "/ecommerce/v3/shipments/"+s.ShipmentID, st, `{"status":{"value":"Cancelled"}}`, nil).Expect(200)
		var o struct {
			Rows []struct {
				ExternalProductID string   `json:"externalProductId"`
				DeliveredQuantity *float64 `json:"deliveredQuantity"`
				Status            struct {
					Value string `json:"value"`
				} `json:"status"`
			} `json:"rows"`
		}
		d.call("GET", "/ecommerce/v3/orders/"+demo.SampleDropshipOrder, tok, nil, nil).Expect(200).JSON(&o)
		for _, r := range o.Rows {
			if r.ExternalProductID != s.Consignment.Rows[0].ItemID {
				continue
			}
			cancelled := r.Status.Value == "Cancelled" || (r.Status.Value == "Delivered" && r.DeliveredQuantity != nil && *r.DeliveredQuantity == 0)
			if !cancelled {
				t.Errorf("the cancelled supplier's row: %+v", r)
			}
		}
	})
}
