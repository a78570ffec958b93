package httpapi_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

// gw2026 is the release that answers pick-up points in the provider's
// live shapes (decisions §36).
const gw2026 = "/2026-04"

// liveAnswer is the live answer a public client printed for postcode 00100,
// limit 1, en (the provider's Pick-up Point API (its live answer)), as printed, its
// Tuesday-to-Sunday hours left out there.
const liveAnswer = `{"id":"001003230","publicName":"Posti, K-Market Etu-Töölö","careOf":"c/o Posti, K-Market Etu-Töölö","routingServiceCode":"3230","distanceInMeters":292,"parcelLocker":false,` +
	`"capabilities":[{"name":"accessibility","value":"WHEELCHAIR","cutOffTime":null},{"name":"expressDelivery","value":"NOT_POSSIBLE","cutOffTime":null},{"name":"identityCheck","value":"NONE","cutOffTime":null},{"name":"ADRLimitedQuantities","value":"ALLOWED","cutOffTime":null},{"name":"parcelDropoff","value":"MANUAL_DROP","cutOffTime":"11:30:00"},{"name":"parcelPickup","value":"AVAILABLE","cutOffTime":null},{"name":"parcelReturn","value":"MANUAL_DROP","cutOffTime":"11:30:00"},{"name":"saturdayDelivery","value":"NOT_POSSIBLE","cutOffTime":null},{"name":"sundayDelivery","value":"NOT_POSSIBLE","cutOffTime":null}],` +
	`"availability":{"exceptions":[],"openingHours":[{"dayOfWeek":"MONDAY","opens":"07:00:00","closes":"22:00:00","closed":false,"open24h":false}]},` +
	`"location":{"city":"Helsinki","countryCode":"FI","municipality":"Helsinki","coordinates":{"latitude":60.17034,"longitude":24.92358},"street":"Lapuankatu 4","postcode":"00100"}}`

// livePoint is a point as a client written against the live answer reads
// it: capabilities as objects, hours as HH:MM:SS with closed and open24h.
type livePoint struct {
	ID                 string `json:"id"`
	PublicName         string `json:"publicName"`
	CareOf             string `json:"careOf"`
	RoutingServiceCode string `json:"routingServiceCode"`
	DistanceInMeters   *int   `json:"distanceInMeters"`
	ParcelLocker       bool   `json:"parcelLocker"`
	Capabilities       []struct {
		Name       string  `json:"name"`
		Value      string  `json:"value"`
		CutOffTime *string `json:"cutOffTime"`
	} `json:"capabilities"`
	Availability struct {
		Exceptions []struct {
			Date   string  `json:"date"`
			Opens  *string `json:"opens"`
			Closed bool    `json:"closed"`
		} `json:"exceptions"`
		OpeningHours []struct {
			DayOfWeek string  `json:"dayOfWeek"`
			Opens     *string `json:"opens"`
			Closes    *string `json:"closes"`
			Closed    bool    `json:"closed"`
			Open24h   bool    `json:"open24h"`
		} `json:"openingHours"`
	} `json:"availability"`
	Location struct {
		City         string `json:"city"`
		CountryCode  string `json:"countryCode"`
		Municipality string `json:"municipality"`
		Street       string `json:"street"`
		Postcode     string `json:"postcode"`
		Coordinates  struct {
			Latitude  float64 `json:"latitude"`
			Longitude float64 `json:"longitude"`
		} `json:"coordinates"`
	} `json:"location"`
}

type livePoints struct {
	PickupPoints            []livePoint `json:"pickupPoints"`
	PagingContinuationToken *string     `json:"pagingContinuationToken"`
}

func (p livePoint) capability(name string) (value string, cutOff *string) {
	for _, c := range p.Capabilities {
		if c.Name == name {
			return c.Value, c.CutOffTime
		}
	}
	return "", nil
}

// the provider's Pick-up Point API (its live answer): the live answer for 00100, limit 1,
// en — the point 001003230, K-Market Etu-Töölö, Lapuankatu 4, 292 m away;
// capabilities as {name, value, cutOffTime}; hours as {dayOfWeek, opens
// "07:00:00", closes, closed, open24h}; careOf "c/o Posti, <host>" — is
// answered member for member on 2026-04, in the live answer's order.
func TestGatewayPickupPointLiveAnswer(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		tok := e.GatewayToken(parcelgate.Production, "1234567-1", "2026-04")
		r := e.Do(apitest.Request{Method: "POST", Path: gw2026 + "/pickuppoints", Bearer: tok, Header: http.Header{"Accept-Language": {"en"}},
			Body: `{"searchCriteria":{"location":{"postcode":"00100","countryCode":"FI"}},"limit":1}`}).Expect(200)
		var got struct {
			PickupPoints []map[string]any `json:"pickupPoints"`
		}
		r.JSON(&got)
		var want map[string]any
		if err := json.Unmarshal([]byte(liveAnswer), &want); err != nil {
			t.Fatal(err)
		}
		if len(got.PickupPoints) != 1 {
			t.Fatalf("%s", r.Body)
		}
		point := got.PickupPoints[0]
		for k, v := range want {
			switch k {
			case "availability", "location":
				continue
			}
			if !reflect.DeepEqual(point[k], v) {
				t.Errorf("%s: %v, the live answer has %v", k, point[k], v)
			}
		}
		loc, _ := point["location"].(map[string]any)
		for k, v := range want["location"].(map[string]any) {
			if !reflect.DeepEqual(loc[k], v) {
				t.Errorf("location.%s: %v, the live answer has %v", k, loc[k], v)
			}
		}
		// The members come in the live answer's order, capabilities as it
		// prints them.
		prefix := liveAnswer[:strings.Index(liveAnswer, `,"availability"`)]
		if !bytes.HasPrefix(r.Body, []byte(`{"pickupPoints":[`+prefix)) {
			t.Errorf("not the live answer's members and order:\n%s\nwant a start of\n%s", r.Body, prefix)
		}
		var lp livePoints
		r.JSON(&lp)
		hours := lp.PickupPoints[0].Availability.OpeningHours
		if len(hours) != 7 || hours[0].DayOfWeek != "MONDAY" || *hours[0].Opens != "07:00:00" || *hours[0].Closes != "22:00:00" ||
			hours[0].Closed || hours[0].Open24h || hours[6].DayOfWeek != "SUNDAY" {
			t.Errorf("opening hours: %+v", hours)
		}
		// The exceptions are the Finnish public holidays of the coming two
		// weeks (none in the live answer's fortnight).
		var holidays []string
		local := parcelgate.FinnishTime(e.Clock.Now(parcelgate.Production))
		day := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, time.UTC)
		for i := range 14 {
			if d := day.AddDate(0, 0, i); parcelgate.FinnishHoliday(d) {
				holidays = append(holidays, d.Format(time.DateOnly))
			}
		}
		ex := lp.PickupPoints[0].Availability.Exceptions
		if len(ex) != len(holidays) {
			t.Errorf("exceptions %+v, want the holidays %v", ex, holidays)
		}
		for i, x := range ex {
			if x.Date != holidays[i] || !x.Closed || x.Opens != nil {
				t.Errorf("exception %+v, want %s closed", x, holidays[i])
			}
		}
		if r.Header.Get("Content-Language") != "en" {
			t.Errorf("Content-Language %q", r.Header.Get("Content-Language"))
		}

		// The same point by its ID, by the third-party CLI's
		// /{country}/{pupCode}, and the provider's other example IDs.
		for path, id := range map[string]string{"/pickuppoints/FI/001003230": "001003230", "/pickuppoints/001003200": "001003200", "/pickuppoints/FI/002303200": "002303200"} {
			var one livePoints
			e.Do(apitest.Request{Method: "GET", Path: gw2026 + path, Bearer: tok}).Expect(200).JSON(&one)
			if len(one.PickupPoints) != 1 || one.PickupPoints[0].ID != id || one.PickupPoints[0].DistanceInMeters != nil {
				t.Errorf("%s: %+v", path, one)
			}
		}
	})
}

// the provider's Pick-up Point API (its live answer): capabilities are objects {name,
// value, cutOffTime}; a hosted point is "Posti, <host>" in care of
// "c/o Posti, <host>", a post office of the provider's own has no careOf
// (the documented example "Posti, Helsinki"); a locker standing outdoors
// is open24h.
func TestGatewayPickupPointLiveShapes(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		tok := e.GatewayToken(parcelgate.Production, "1234567-1", "2026-04")
		var office livePoints
		e.Do(apitest.Request{Method: "GET", Path: gw2026 + "/pickuppoints/001003200", Bearer: tok, Header: http.Header{"Accept-Language": {"en"}}}).Expect(200).JSON(&office)
		o := office.PickupPoints[0]
		if v, cut := o.capability("parcelDropoff"); o.PublicName != "Posti, Helsinki" || o.CareOf != "" || o.RoutingServiceCode != "3200" || v != "MANUAL_DROP" || cut == nil || *cut != "16:00:00" {
			t.Errorf("the post office 001003200: %+v", o)
		}
		if h := o.Availability.OpeningHours; len(h) != 7 || !h[6].Closed || h[6].Opens != nil || *h[5].Opens != "10:00:00" {
			t.Errorf("a post office closed on Sundays: %+v", h)
		}

		// Lockers near Tampere: outdoors, open round the clock; indoors, in
		// care of their shop.
		var lockers livePoints
		e.Do(apitest.Request{Method: "POST", Path: gw2026 + "/pickuppoints", Bearer: tok,
			Body: `{"searchCriteria":{"parcelLocker":true,"location":{"postcode":"33100","countryCode":"FI"}},"limit":40}`}).Expect(200).JSON(&lockers)
		outdoors, indoors := 0, 0
		for _, p := range lockers.PickupPoints {
			where, _ := p.capability("lockerLocation")
			drop, cut := p.capability("parcelDropoff")
			if !p.ParcelLocker || len(p.Capabilities) != 11 || drop != "LOCKER_DROP" || cut == nil || *cut != "14:00:00" {
				t.Errorf("locker %s: %+v", p.ID, p.Capabilities)
			}
			switch where {
			case "OUTDOORS":
				outdoors++
				if h := p.Availability.OpeningHours; len(h) != 7 || !h[0].Open24h || *h[0].Opens != "00:00:00" || *h[0].Closes != "23:59:59" || p.CareOf != "" {
					t.Errorf("outdoor locker %s: %+v", p.ID, p)
				}
			case "INDOORS":
				indoors++
				host := strings.TrimPrefix(p.PublicName, "Pakettiautomaatti, ")
				if host == p.PublicName || p.CareOf != "c/o Posti, "+host {
					t.Errorf("indoor locker %s: %q in care of %q", p.ID, p.PublicName, p.CareOf)
				}
			default:
				t.Errorf("locker %s stands %q", p.ID, where)
			}
		}
		if outdoors == 0 || indoors == 0 {
			t.Errorf("%d outdoor, %d indoor lockers near 33100", outdoors, indoors)
		}
		// A pick-up shop in Swedish: "Posten, <host>", in care of
		// "c/o Posten, <host>".
		var shops livePoints
		e.Do(apitest.Request{Method: "POST", Path: gw2026 + "/pickuppoints", Bearer: tok, Header: http.Header{"Accept-Language": {"sv"}},
			Body: `{"searchCriteria":{"parcelLocker":false,"location":{"postcode":"20100","countryCode":"FI"}},"limit":10}`}).Expect(200).JSON(&shops)
		hosted := 0
		for _, p := range shops.PickupPoints {
			if p.CareOf == "" {
				continue
			}
			hosted++
			if !strings.HasPrefix(p.PublicName, "Posten, ") || p.CareOf != "c/o "+p.PublicName || p.Location.City == "" {
				t.Errorf("hosted %s: %q in care of %q in %s", p.ID, p.PublicName, p.CareOf, p.Location.City)
			}
		}
		if hosted == 0 {
			t.Error("no hosted point near 20100")
		}
	})
}

// the provider's Pick-up Point API (its live answer): coverage is Finland, the Baltics and
// the partner networks of Sweden and Denmark; searches and listings for EE,
// LV, LT, SE and DK answer points there, by postcode, coordinates, free
// text, city and country listing, named in et, lv, lt, sv and da.
func TestGatewayPickupPointsAbroad(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		tok := e.GatewayToken(parcelgate.Production, "1234567-1", "2026-04")
		// The words of each language's point names: the brand of a hosted
		// point, a locker's kind.
		words := map[string][2]string{"et": {"Posti, ", "Pakiautomaat, "}, "lv": {"Posti, ", "Pakomāts, "}, "lt": {"Posti, ", "Paštomatas, "},
			"sv": {"Posten, ", "Paketautomat, "}, "da": {"Posti, ", "Pakkeautomat, "}}
		for _, c := range []struct {
			country, lang, body, city string
		}{
			{"EE", "et", `{"searchCriteria":{"location":{"postcode":"10111","countryCode":"EE"}},"limit":10}`, ""},
			{"LV", "lv", `{"searchCriteria":{"location":{"postcode":"LV-1050","countryCode":"LV"}},"limit":10}`, "Riga"},
			{"LT", "lt", `{"searchCriteria":{"location":{"coordinates":{"latitude":54.6872,"longitude":25.2797},"radius":{"unit":"km","value":5}}},"limit":10}`, "Vilnius"},
			{"SE", "sv", `{"searchCriteria":{"location":{"city":"Göteborg","countryCode":"SE"}},"limit":10}`, "Göteborg"},
			{"DK", "da", `{"searchCriteria":{"freeText":"København","location":{"countryCode":"DK"}},"limit":10}`, ""},
			{"EE", "et", `{"searchCriteria":{"freeText":"Tallinn"},"limit":10}`, ""},
		} {
			r := e.Do(apitest.Request{Method: "POST", Path: gw2026 + "/pickuppoints", Bearer: tok, Body: c.body, Header: http.Header{"Accept-Language": {c.lang}}}).Expect(200)
			var got livePoints
			r.JSON(&got)
			if len(got.PickupPoints) != 10 || r.Header.Get("Content-Language") != c.lang {
				t.Fatalf("%s: %d points, %q: %s", c.body, len(got.PickupPoints), r.Header.Get("Content-Language"), r.Body)
			}
			w := words[c.lang]
			for i, p := range got.PickupPoints {
				if p.Location.CountryCode != c.country || len(p.ID) != 9 || p.DistanceInMeters == nil || (i > 0 && *p.DistanceInMeters < *got.PickupPoints[i-1].DistanceInMeters) {
					t.Errorf("%s: %s in %s at %v", c.body, p.ID, p.Location.CountryCode, p.DistanceInMeters)
				}
				if !strings.HasPrefix(p.PublicName, w[0]) && !strings.HasPrefix(p.PublicName, w[1]) {
					t.Errorf("%s: %q is not named in %s", c.body, p.PublicName, c.lang)
				}
				if p.Location.City == "" || p.Location.Street == "" || p.Availability.OpeningHours[0].Opens == nil {
					t.Errorf("%s: %+v", c.body, p)
				}
			}
			if c.city != "" && got.PickupPoints[0].Location.City != c.city {
				t.Errorf("%s: nearest in %s, want %s", c.body, got.PickupPoints[0].Location.City, c.city)
			}
		}
		// A country listing, with its continuation token.
		for _, country := range []string{"EE", "LV", "LT", "SE", "DK"} {
			var page livePoints
			e.Do(apitest.Request{Method: "GET", Path: gw2026 + "/pickuppoints/" + country, Bearer: tok}).Expect(200).JSON(&page)
			if len(page.PickupPoints) == 0 {
				t.Fatalf("%s: no points", country)
			}
			for _, p := range page.PickupPoints {
				if p.Location.CountryCode != country {
					t.Errorf("%s lists %s of %s", country, p.ID, p.Location.CountryCode)
				}
			}
			if page.PagingContinuationToken != nil {
				var next livePoints
				e.Do(apitest.Request{Method: "GET", Path: gw2026 + "/pickuppoints/" + country + "?pagingContinuationToken=" + *page.PagingContinuationToken, Bearer: tok}).Expect(200).JSON(&next)
				if len(next.PickupPoints) == 0 || next.PickupPoints[0].ID <= page.PickupPoints[len(page.PickupPoints)-1].ID {
					t.Errorf("%s: the second page %+v", country, next.PickupPoints)
				}
			}
		}
		// The ecom search in a Baltic country: the country's postal code
		// form, names in its language.
		ecom := e.EcomToken(parcelgate.Production, shopID, parcelgate.RoleMerchant)
		var pts []parcelgate.PickupPoint
		e.Do(apitest.Request{Method: "GET", Path: "/ecommerce/v3/pickup-points?country=LT&postalCode=LT-01100&limit=5", Bearer: ecom}).Expect(200).JSON(&pts)
		if len(pts) != 5 {
			t.Fatalf("LT: %d points", len(pts))
		}
		if pts[0].PostOffice != "Vilnius" {
			t.Errorf("nearest to LT-01100: %+v", pts[0])
		}
		for _, p := range pts {
			if p.Country != "LT" || p.Estimation == "" ||
				(!strings.HasPrefix(p.Name, "Paštomatas, ") && !strings.HasPrefix(p.Name, "Posti atsiėmimo punktas, ")) {
				t.Errorf("LT: %+v", p)
			}
		}
	})
}

// The 2025-04 release keeps the object its clients read (decisions §36):
// capabilities as names, hours as {weekday, opens "07:00", closes,
// description}, careOf the pick-up shop's host — for the live answer's
// point too.
func TestGatewayPickupPoint2025Unchanged(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		tok := e.GatewayToken(parcelgate.Production, "1234567-1")
		r := e.Do(apitest.Request{Method: "GET", Path: gw + "/pickuppoints/FI/001003230", Bearer: tok, Header: http.Header{"Accept-Language": {"en"}}}).Expect(200)
		var got struct {
			PickupPoints []struct {
				PublicName   string   `json:"publicName"`
				CareOf       string   `json:"careOf"`
				Capabilities []string `json:"capabilities"`
				Availability struct {
					OpeningHours []struct {
						Weekday, Opens, Closes, Description string
					} `json:"openingHours"`
				} `json:"availability"`
			} `json:"pickupPoints"`
		}
		if err := json.Unmarshal(r.Body, &got); err != nil || len(got.PickupPoints) != 1 {
			t.Fatalf("%v: %s", err, r.Body)
		}
		p := got.PickupPoints[0]
		h := p.Availability.OpeningHours
		if p.PublicName != "Posti service point, K-Market Etu-Töölö" || p.CareOf != "K-Market Etu-Töölö" ||
			strings.Join(p.Capabilities, ",") != "parcelPickup,parcelDropoff,cashOnDelivery,wheelchairAccessibility,openOnWeekends,ADRLimitedQuantities" ||
			len(h) != 7 || h[0].Weekday != "MONDAY" || h[0].Opens != "07:00" || h[0].Closes != "22:00" || h[0].Description != "Monday 07:00–22:00" {
			t.Errorf("2025-04: %s", r.Body)
		}
		if bytes.Contains(r.Body, []byte(`"dayOfWeek"`)) || bytes.Contains(r.Body, []byte(`"cutOffTime"`)) {
			t.Errorf("2025-04 answers 2026-04's members: %s", r.Body)
		}
	})
}
