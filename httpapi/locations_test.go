package httpapi_test

import (
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

// The warehouse plugin fetches GET /services?workflow=WAREHOUSE, caches the
// array, and offers each element as a shipping method: it reads id (sent
// back as the order's serviceCode), deliveryOperator and description by
// language (falling back to en), provider ("Posti" gets 3376), tags
// (PICKUP_POINT means "Has pickup points") and additionalServices' code,
// description and specifiers.
func deliveryServicesAsThePluginReadsThem(t *testing.T, e *apitest.Env, tok string) {
	{
		var svcs []struct {
			ID                 string            `json:"id"`
			Provider           string            `json:"provider"`
			DeliveryOperator   string            `json:"deliveryOperator"`
			Description        map[string]string `json:"description"`
			Tags               []string          `json:"tags"`
			AdditionalServices []struct {
				Code        string            `json:"code"`
				Description map[string]string `json:"description"`
				Specifiers  []string          `json:"specifiers"`
			} `json:"additionalServices"`
		}
		e.Do(apitest.Request{Method: "GET", Path: "/ecommerce/v3/services?workflow=WAREHOUSE", Bearer: tok}).Expect(200).JSON(&svcs)
		ids := map[string]bool{}
		for _, s := range svcs {
			ids[s.ID] = true
			if s.Provider != "Posti" || s.DeliveryOperator == "" || s.Description["en"] == "" || s.Description["fi"] == "" {
				t.Errorf("service %+v", s)
			}
			if slices.Contains(s.Tags, "PICKUP_POINT") != (s.ID == "2103") {
				t.Errorf("%s tags %v", s.ID, s.Tags)
			}
		}
		// interface §2.3: every service code, NOUTO included, and nothing else.
		for _, code := range []string{"2101", "2102", "2103", "2104", "2143", "2144", "2145", "2317", "2318", "2331", "2711", "NOUTO"} {
			if !ids[code] {
				t.Errorf("service %s missing", code)
			}
		}
		if len(svcs) != 12 {
			t.Errorf("%d services", len(svcs))
		}
		// The /v3/ alias answers the same; lower case is the same workflow.
		var again []map[string]any
		e.Do(apitest.Request{Method: "GET", Path: "/v3/services?workflow=warehouse", Bearer: tok}).Expect(200).JSON(&again)
		if len(again) != len(svcs) {
			t.Errorf("/v3/services: %d", len(again))
		}
		r := e.Do(apitest.Request{Method: "GET", Path: "/ecommerce/v3/services?workflow=DROPSHIPPING", Bearer: tok}).Expect(400)
		if f := fieldsOf(t, r); len(f) != 1 || f["workflow"] != -1 {
			t.Errorf("unknown workflow: %s", r.Body)
		}
		e.Do(apitest.Request{Method: "GET", Path: "/ecommerce/v3/services?workflow=WAREHOUSE"}).Expect(401)
	}
}

type pluginPoint struct {
	ExternalID      string `json:"externalId"`
	PupCode         string `json:"pupCode"`
	Name            string `json:"name"`
	Type            string `json:"type"`
	ServiceProvider string `json:"serviceProvider"`
	StreetAddress   string `json:"streetAddress"`
	PostalCode      string `json:"postalCode"`
	PostOffice      string `json:"postOffice"`
	Capabilities    []string
	Latitude        float64 `json:"latitude"`
	Longitude       float64 `json:"longitude"`
	OpeningHours    []struct{ Day, Opens, Closes string }
	Distance        *int   `json:"distance"`
	Estimation      string `json:"estimation"`
}

// The plugin keeps "(#externalId)" of the chosen option and parses the
// order's pickupPointId out of it with [A-Za-z0-9-]+.
var pluginPointID = regexp.MustCompile(`^[A-Za-z0-9-]+$`)

// The plugin's checkout call: every parameter, empty or not, with PHP's
// urlencode (spaces as +, ! as %21); the shop hides store points and
// outdoor lockers. It reads a bare array; for each point serviceProvider,
// type, name, externalId, streetAddress and estimation (a date it formats
// as d.m). Points come nearest first, from the area of the postal code.
func pickupPointsNearAnAddressAsThePluginAsks(t *testing.T, e *apitest.Env, tok string) {
	{
		var pts []pluginPoint
		e.Do(apitest.Request{Method: "GET", Bearer: tok,
			Path: "/ecommerce/v3/pickup-points?serviceCode=2103&postalCode=00100&postOffice=Helsinki&streetAddress=Mannerheimintie+1&country=FI&type=%21STORE&capability=%21outdoors&countryFrom=FI&postalCodeFrom=33100"}).
			Expect(200).JSON(&pts)
		if len(pts) != parcelgate.DefaultPickupLimit {
			t.Fatalf("%d points", len(pts))
		}
		for i, p := range pts {
			if !pluginPointID.MatchString(p.ExternalID) || p.PupCode != p.ExternalID || p.ServiceProvider == "" || p.Name == "" || p.StreetAddress == "" {
				t.Errorf("point %+v", p)
			}
			if slices.Contains(p.Capabilities, "outdoors") || p.Type == "STORE" {
				t.Errorf("not filtered: %+v", p)
			}
			if _, err := time.Parse(time.DateOnly, p.Estimation); err != nil {
				t.Errorf("estimation %q", p.Estimation)
			}
			if p.Distance == nil || (i > 0 && *p.Distance < *pts[i-1].Distance) {
				t.Errorf("not nearest first at %d", i)
			}
			if len(p.OpeningHours) == 0 || p.Latitude < 59 || p.Latitude > 71 {
				t.Errorf("point %+v", p)
			}
		}
		if pts[0].PostalCode != "00100" || pts[0].PostOffice != "HELSINKI" {
			t.Errorf("nearest to 00100: %+v", pts[0])
		}

		// Another country: an answer, empty.
		var none []pluginPoint
		e.Do(apitest.Request{Method: "GET", Bearer: tok, Path: "/ecommerce/v3/pickup-points?serviceCode=2103&postalCode=11122&postOffice=Stockholm&streetAddress=&country=SE&type=&capability="}).Expect(200).JSON(&none)
		if len(none) != 0 {
			t.Errorf("%d points in Sweden", len(none))
		}
	}
}

// The plugin's second call, when the shopper types an address of their own:
// serviceCode, search, country, and empty type and capability.
func pickupPointsByTextAsThePluginAsks(t *testing.T, e *apitest.Env, tok string) {
	{
		var pts []pluginPoint
		e.Do(apitest.Request{Method: "GET", Bearer: tok, Path: "/ecommerce/v3/pickup-points?serviceCode=2103&search=H%C3%A4meenkatu+10+Tampere&country=FI&type=&capability="}).Expect(200).JSON(&pts)
		if len(pts) == 0 || pts[0].PostOffice != "TAMPERE" {
			t.Fatalf("search naming Tampere: %+v", pts)
		}
		// Text naming no place matches names and addresses.
		pts = nil
		e.Do(apitest.Request{Method: "GET", Bearer: tok, Path: "/v3/pickup-points?serviceCode=2103&search=Pakettiautomaatti+Kallio&country=FI&type=&capability="}).Expect(200).JSON(&pts)
		if len(pts) == 0 {
			t.Fatal("no locker named Kallio")
		}
		for _, p := range pts {
			if p.Type != "PARCEL_LOCKER" || p.Distance != nil {
				t.Errorf("text match %+v", p)
			}
		}
	}
}

// Bad input is a 400 naming the parameter; no token is a 401.
func pickupPointsBadInput(t *testing.T, e *apitest.Env, tok string) {
	{
		for query, field := range map[string]string{
			"":                                     "postalCode",
			"?postalCode=&streetAddress=":          "postalCode",
			"?postalCode=0010":                     "postalCode",
			"?postalCode=00100&serviceCode=XYZ":    "serviceCode",
			"?postalCode=00100&country=FIN":        "country",
			"?postalCode=00100&countryFrom=1":      "countryFrom",
			"?postalCode=00100&postalCodeFrom=ABC": "postalCodeFrom",
			"?postalCode=00100&type=%3Cscript%3E":  "type",
			"?postalCode=00100&capability=a%00b":   "capability",
			"?postalCode=00100&limit=0":            "limit",
			"?postalCode=00100&limit=many":         "limit",
		} {
			r := e.Do(apitest.Request{Method: "GET", Bearer: tok, Path: "/ecommerce/v3/pickup-points" + query}).Expect(400)
			var eb httpapi.EcomError
			r.JSON(&eb)
			if len(eb.Errors) != 1 || eb.Errors[0].Field != field {
				t.Errorf("%q: %s, want one problem with %s", query, r.Body, field)
			}
		}
		e.Do(apitest.Request{Method: "GET", Path: "/ecommerce/v3/pickup-points?postalCode=00100"}).Expect(401)
	}
}

// The location routes as the warehouse plugin calls them, on one server
// per engine whose environment clock runs three days ahead (one login per
// engine: each costs an argon2id hash). Every ecom role may call them.
func TestLocationsAsThePluginCalls(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		e.Clock.Advance(72 * time.Hour)
		merchant := e.EcomToken(parcelgate.Production, shopID, parcelgate.RoleMerchant)
		deliveryServicesAsThePluginReadsThem(t, e, merchant)
		pickupPointsNearAnAddressAsThePluginAsks(t, e, merchant)
		pickupPointsByTextAsThePluginAsks(t, e, merchant)
		pickupPointsBadInput(t, e, merchant)

		// The estimate is of the server's environment clock, not the machine's:
		// three days apart, they give different dates.
		// The nearest to 00100 is the provider's live answer's point
		// (the provider's Pick-up Point API (its live answer)).
		p, _ := pickup.Network{}.FindPickupPoint("001003230")
		from := parcelgate.PostalArea{Latitude: 61.4978, Longitude: 23.7610} // 33100 Tampere
		before := pickup.EstimateDelivery(e.Clock.Now(parcelgate.Production), from, "FI", p).Format(time.DateOnly)
		var pts []pluginPoint
		e.Do(apitest.Request{Method: "GET", Bearer: merchant,
			Path: "/ecommerce/v3/pickup-points?serviceCode=2103&postalCode=00100&country=FI&countryFrom=FI&postalCodeFrom=33100&limit=1"}).Expect(200).JSON(&pts)
		after := pickup.EstimateDelivery(e.Clock.Now(parcelgate.Production), from, "FI", p).Format(time.DateOnly)
		machine := pickup.EstimateDelivery(time.Now(), from, "FI", p).Format(time.DateOnly)
		if len(pts) != 1 || pts[0].ExternalID != p.ExternalID {
			t.Fatalf("nearest to 00100: %+v", pts)
		}
		if before == after && pts[0].Estimation != before {
			t.Errorf("estimation %s, want %s (the environment clock's)", pts[0].Estimation, before)
		}
		if pts[0].Estimation <= machine {
			t.Errorf("estimation %s is not later than the machine clock's %s", pts[0].Estimation, machine)
		}
	})
}

// The provider's PHP library searches pick-up points with size=5 and wants
// five: size is another name of limit (decisions §19); given both, they must
// agree.
func TestPickupPointsSizeAsThePHPLibrary(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		tok := e.EcomToken(parcelgate.Production, shopID, parcelgate.RoleMerchant)
		var pts []pluginPoint
		e.Do(apitest.Request{Method: "GET", Bearer: tok, Path: "/ecommerce/v3/pickup-points?postalCode=00100&size=5"}).Expect(200).JSON(&pts)
		if len(pts) != 5 {
			t.Fatalf("size=5: %d points", len(pts))
		}
		e.Do(apitest.Request{Method: "GET", Bearer: tok, Path: "/ecommerce/v3/pickup-points?postalCode=00100&size=3&limit=3"}).Expect(200).JSON(&pts)
		if len(pts) != 3 {
			t.Fatalf("size=3&limit=3: %d points", len(pts))
		}
		for _, q := range []string{"size=0", "size=x", "size=101", "size=3&limit=4"} {
			r := e.Do(apitest.Request{Method: "GET", Bearer: tok, Path: "/ecommerce/v3/pickup-points?postalCode=00100&" + q}).Expect(400)
			if !strings.Contains(string(r.Body), `"size"`) && !strings.Contains(string(r.Body), `"limit"`) {
				t.Errorf("%s: %s", q, r.Body)
			}
		}
	})
}
