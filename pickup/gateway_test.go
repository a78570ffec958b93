package pickup

import (
	. "github.com/parcelgate/parcelgate"
	"slices"
	"strings"
	"testing"
	"time"
)

func gatewaySearch(t *testing.T, s PickupSearch) []PickupPoint {
	t.Helper()
	if err := s.Validate(); err != nil {
		t.Fatalf("%+v: %v", s, err)
	}
	return network.SearchPickupPoints(s)
}

func yes() *bool { b := true; return &b }
func no() *bool  { b := false; return &b }

// Every mode of the provider's search: near a postcode (nearest first,
// with distances), near coordinates within a radius, inside a rectangle,
// by free text, and lockers alone.
func TestSearchGatewayPickupPoints(t *testing.T) {
	// the provider's Pick-up Point API (its live answer): the live answer for 00100 is
	// 001003230, K-Market Etu-Töölö, 292 m from the postcode.
	near := gatewaySearch(t, PickupSearch{Postcode: "00100", CountryCode: "FI", Street: "Mannerheimintie", City: "Helsinki", Limit: 15})
	if len(near) != 15 || near[0].ExternalID != "001003230" || *near[0].Distance != 292 {
		t.Fatalf("near 00100: %d points, first %+v", len(near), near[0])
	}
	for i := 1; i < len(near); i++ {
		if *near[i].Distance < *near[i-1].Distance {
			t.Fatalf("not nearest first at %d", i)
		}
	}
	// A town alone locates as its first postal code.
	if byCity := gatewaySearch(t, PickupSearch{City: "Helsingfors", Limit: 1}); byCity[0].ExternalID != near[0].ExternalID {
		t.Errorf("Helsingfors: %s", byCity[0].ExternalID)
	}
	if none := gatewaySearch(t, PickupSearch{City: "Atlantis"}); len(none) != 0 {
		t.Errorf("an unknown town found %d", len(none))
	}

	at := Coordinates{Latitude: 60.17, Longitude: 24.93}
	within := gatewaySearch(t, PickupSearch{Coordinates: &at, RadiusMetres: 1500, Limit: 100})
	if len(within) == 0 {
		t.Fatal("nothing within 1.5 km of central Helsinki")
	}
	for _, p := range within {
		if d := distanceMetres(at.Latitude, at.Longitude, p.Latitude, p.Longitude); *p.Distance != d || d > 1500 {
			t.Errorf("%s at %d m, says %d", p.ExternalID, d, *p.Distance)
		}
	}

	r := Rectangle{SWLatitude: 60.15, SWLongitude: 24.90, NELatitude: 60.20, NELongitude: 24.97}
	inside := gatewaySearch(t, PickupSearch{Rectangle: &r, Limit: 100})
	if len(inside) == 0 {
		t.Fatal("empty rectangle")
	}
	for _, p := range inside {
		if p.Latitude < r.SWLatitude || p.Latitude > r.NELatitude || p.Longitude < r.SWLongitude || p.Longitude > r.NELongitude {
			t.Errorf("%s outside the rectangle", p.ExternalID)
		}
	}

	text := gatewaySearch(t, PickupSearch{FreeText: "pakettiautomaatti tampere", Limit: 100})
	if len(text) == 0 {
		t.Fatal("no Tampere lockers by text")
	}
	for _, p := range text {
		if p.Type != PointParcelLocker || p.Area.Municipality != "Tampere" || p.Distance == nil {
			t.Errorf("text match %s %s in %s", p.ExternalID, p.Type, p.Area.Municipality)
		}
	}

	lockers := gatewaySearch(t, PickupSearch{ParcelLocker: yes(), Limit: 5})
	for i, p := range lockers {
		if p.Type != PointParcelLocker || p.Distance != nil || (i > 0 && p.ExternalID < lockers[i-1].ExternalID) {
			t.Errorf("lockers alone, in ID order: %+v", p)
		}
	}
	// the provider's Pick-up Point API (its live answer): a search in Sweden answers
	// points there, nearest first.
	se := gatewaySearch(t, PickupSearch{Postcode: "111 22", CountryCode: "SE", Limit: 5})
	if len(se) != 5 {
		t.Fatalf("Sweden: %d points", len(se))
	}
	for _, p := range se {
		if p.Country != "SE" || p.Distance == nil || *p.Distance > 5000 {
			t.Errorf("near 111 22: %s in %s %s", p.ExternalID, p.Country, p.Area.PostOffice)
		}
	}
	if se[0].Area.PostOffice != "Stockholm" {
		t.Errorf("nearest to 111 22 is in %s", se[0].Area.PostOffice)
	}
	if len(gatewaySearch(t, PickupSearch{Postcode: "0150", CountryCode: "NO"})) != 0 {
		t.Error("points in Norway")
	}
}

// The service filters: true keeps only the points with the feature, false
// only those without; the product code keeps the points that serve it.
func TestPickupServiceFilters(t *testing.T) {
	for _, f := range []string{FilterOutdoorLocker, FilterLockerReservable, FilterWheelchair, FilterOpenOnWeekends, FilterADR, FilterSaturdayDelivery} {
		for _, want := range []bool{true, false} {
			pts := gatewaySearch(t, PickupSearch{Postcode: "33100", Filters: map[string]bool{f: want}, Limit: 30})
			if len(pts) == 0 {
				t.Errorf("%s=%v: none near 33100", f, want)
			}
			for _, p := range pts {
				if p.Feature(f) != want || slices.Contains(p.Provider("en", time.Now()).Capabilities, f) != want {
					t.Errorf("%s=%v kept %s", f, want, p.ExternalID)
				}
			}
		}
	}
	for _, p := range gatewaySearch(t, PickupSearch{Postcode: "33100", ProductCode: "2102", Limit: 30}) {
		if p.Type == PointParcelLocker {
			t.Errorf("2102 (to an outlet) at locker %s", p.ExternalID)
		}
	}
	for _, p := range gatewaySearch(t, PickupSearch{Postcode: "33100", ParcelLocker: no(), Limit: 30}) {
		if p.Type == PointParcelLocker {
			t.Errorf("parcelLocker false kept %s", p.ExternalID)
		}
	}
}

// The country listing pages through every point once, in ID order; its
// token is bound to its listing; an ID prefix narrows it.
func TestListPickupPoints(t *testing.T) {
	l, err := ParsePickupList("FI", "")
	if err != nil {
		t.Fatal(err)
	}
	seen, pages := 0, 0
	last := ""
	for {
		pts, more := listPickupPoints(l, PickupPageSize)
		pages++
		for _, p := range pts {
			if p.ExternalID <= last {
				t.Fatalf("page %d: %s after %s", pages, p.ExternalID, last)
			}
			last = p.ExternalID
			seen++
		}
		if !more {
			break
		}
		if len(pts) != PickupPageSize {
			t.Fatalf("page %d has %d points", pages, len(pts))
		}
		if l, err = ParsePickupList("fi", PickupPageToken(l, last)); err != nil {
			t.Fatal(err)
		}
	}
	finnish := 0
	for _, p := range AllPickupPoints() {
		if p.Country == "FI" {
			finnish++
		}
	}
	if seen != finnish || pages != (seen+PickupPageSize-1)/PickupPageSize {
		t.Errorf("%d points in %d pages, the data set has %d in Finland", seen, pages, finnish)
	}
	tok := PickupPageToken(PickupList{Country: "FI"}, "001003200")
	for _, c := range []struct{ seg, token string }{{"FI00", tok}, {"FI", tok[:len(tok)-2]}, {"FI", "!!"}, {"F", ""}, {"00FI", ""}} {
		if _, err := ParsePickupList(c.seg, c.token); ErrorCode(err) != EINVALID {
			t.Errorf("%s %q: %v", c.seg, c.token, err)
		}
	}
	l, _ = ParsePickupList("FIN00", "")
	pts, more := listPickupPoints(l, PickupPageSize)
	if len(pts) == 0 || more || !strings.HasPrefix(pts[len(pts)-1].ExternalID, "00") {
		t.Errorf("FIN00: %d points, more %v", len(pts), more)
	}
	// the provider's Pick-up Point API (its live answer): listings for EE, LV, LT, SE and
	// DK answer points there (three-letter codes too).
	for _, seg := range []string{"EE", "LVA", "LT", "SE", "DNK"} {
		l, _ = ParsePickupList(seg, "")
		pts, _ := listPickupPoints(l, PickupPageSize)
		if len(pts) == 0 {
			t.Errorf("%s: no points", seg)
		}
		for _, p := range pts {
			if p.Country != l.Country {
				t.Errorf("%s lists %s of %s", seg, p.ExternalID, p.Country)
			}
		}
	}
	l, _ = ParsePickupList("NO", "")
	if pts, _ := listPickupPoints(l, PickupPageSize); len(pts) != 0 {
		t.Errorf("NO: %d", len(pts))
	}
}

// The provider's point object, localized: Swedish town names where the
// postal code file has them; the public holidays of the coming two weeks
// close a staffed point but not an outdoor locker.
func TestProviderPickupPoint(t *testing.T) {
	p, ok := network.FindPickupPoint("001003200")
	if !ok {
		t.Fatal("no 001003200")
	}
	christmas := time.Date(2026, 12, 20, 10, 0, 0, 0, time.UTC)
	fi, sv := p.Provider("fi", christmas), p.Provider("sv", christmas)
	if fi.ID != "001003200" || fi.PupCode != fi.ID || fi.RoutingServiceCode != "3200" || fi.PublicName != "Posti, Helsinki" || sv.PublicName != "Posten, Helsingfors" {
		t.Errorf("fi %+v sv %+v", fi, sv)
	}
	if fi.Location.Postcode != "00100" || fi.Location.Municipality != "Helsinki" || sv.Location.City != "Helsingfors" || fi.ParcelLocker {
		t.Errorf("location %+v", fi.Location)
	}
	if len(fi.Availability.Exceptions) != 4 || fi.Availability.Exceptions[0].Date != "2026-12-24" || !strings.Contains(fi.Availability.OpeningHours[0].Description, "maanantai") {
		t.Errorf("availability %+v", fi.Availability)
	}
	for _, q := range AllPickupPoints() {
		if q.Feature(FilterOutdoorLocker) {
			if got := q.Provider("en", christmas); len(got.Availability.Exceptions) != 0 || !got.ParcelLocker || LockerOccupancy(q, "en", christmas) == nil {
				t.Errorf("outdoor locker %+v", got)
			}
			break
		}
	}
	if LockerOccupancy(p, "fi", christmas) != nil {
		t.Error("a post office has a locker occupancy")
	}
	for _, lang := range PickupLanguages {
		if PickupLanguage(lang+"-XX;q=0.5, en") != lang {
			t.Errorf("Accept-Language %s", lang)
		}
	}
	if PickupLanguage("de, ru") != "fi" {
		t.Error("Finnish is the default")
	}
}

// The provider's estimate: the CLI's example body, and null where the
// model cannot promise.
func TestGatewayEstimatePlan(t *testing.T) {
	e := GatewayEstimate{Time: "2026-03-13T10:00:00Z", Origin: &EstimatePlace{CountryCode: "FI", Postcode: "20100"},
		Destination: &EstimatePlace{CountryCode: "FI", Postcode: "00100"}, ProductCode: "2103"}
	q, ok, err := network.PlanGatewayEstimate(e, "estimate.", "", "pupCode")
	if err != nil || !ok || GatewayEstimateTime(estimateDeliveryTime(q)) != "2026-03-16T14:00:00Z" {
		t.Fatalf("%v %v %s", err, ok, GatewayEstimateTime(estimateDeliveryTime(q)))
	}
	// A pick-up point is its postal code.
	e.Destination = &EstimatePlace{CountryCode: "FI", PupCode: "001003200"}
	if q2, ok, err := network.PlanGatewayEstimate(e, "estimate.", "", "pupCode"); err != nil || !ok || q2.ToPostcode != "00100" {
		t.Errorf("pupCode: %v %v %+v", err, ok, q2)
	}
	for _, c := range []GatewayEstimate{
		{Time: e.Time, Origin: &EstimatePlace{CountryCode: "FI", GLN: "6400000000000"}, Destination: e.Destination, ProductCode: "2103"},
		{Time: e.Time, Origin: e.Origin, Destination: e.Destination, ProductCode: "2461"},
		{Time: e.Time, Origin: &EstimatePlace{CountryCode: "SE", Postcode: "11122"}, Destination: e.Destination, ProductCode: "2103"},
	} {
		if _, ok, err := network.PlanGatewayEstimate(c, "estimate.", "", "pupCode"); err != nil || ok {
			t.Errorf("%+v: %v %v, want no promise", c, ok, err)
		}
	}
	for _, c := range []struct {
		e     GatewayEstimate
		field string
	}{
		{GatewayEstimate{Origin: e.Origin, Destination: e.Destination, ProductCode: "2103"}, "estimate.time"},
		{GatewayEstimate{Time: e.Time, Destination: e.Destination, ProductCode: "2103"}, "estimate.origin"},
		{GatewayEstimate{Time: e.Time, Origin: &EstimatePlace{CountryCode: "FI", Postcode: "00100", GLN: "6400000000000"}, Destination: e.Destination, ProductCode: "2103"}, "estimate.origin"},
		{GatewayEstimate{Time: e.Time, Origin: e.Origin, Destination: &EstimatePlace{CountryCode: "FI", PupCode: "999999999"}, ProductCode: "2103"}, "estimate.destination.pupCode"},
		{GatewayEstimate{Time: e.Time, Origin: e.Origin, Destination: e.Destination}, "estimate.product.code"},
		{GatewayEstimate{Time: e.Time, Origin: e.Origin, Destination: e.Destination, ProductCode: "2103", AdditionalServices: []string{"3106"}}, "estimate.product.additionalServicesCodes"},
	} {
		if _, _, err := network.PlanGatewayEstimate(c.e, "estimate.", "", "pupCode"); ErrorCode(err) != EINVALID || ErrorFields(err)[0].Field != c.field {
			t.Errorf("%+v: %v, want a problem with %s", c.e, err, c.field)
		}
	}
}

// The flat prefilter changes nothing: a search near a place answers the
// same points, in the same order, at the same distances as measuring every
// point on the sphere and sorting them all.
func TestNearestMatchesBruteForce(t *testing.T) {
	all := AllPickupPoints()
	for i := 0; i < len(all); i += 97 {
		origin := Coordinates{Latitude: all[i].Latitude + 0.013, Longitude: all[i].Longitude - 0.021}
		for _, limit := range []int{1, 10, 100} {
			s := PickupSearch{Coordinates: &origin, Limit: limit, ParcelLocker: map[bool]*bool{true: yes(), false: nil}[i%2 == 0]}
			got := gatewaySearch(t, s)
			type hit struct {
				id string
				d  int
			}
			var want []hit
			for _, p := range all {
				if s.ParcelLocker == nil || p.Type == PointParcelLocker {
					want = append(want, hit{p.ExternalID, distanceMetres(origin.Latitude, origin.Longitude, p.Latitude, p.Longitude)})
				}
			}
			slices.SortStableFunc(want, func(a, b hit) int { return a.d - b.d })
			for k, p := range got {
				if p.ExternalID != want[k].id || *p.Distance != want[k].d {
					t.Fatalf("near %v, limit %d, #%d: %s at %d m, want %s at %d m", origin, limit, k, p.ExternalID, *p.Distance, want[k].id, want[k].d)
				}
			}
		}
	}
}
