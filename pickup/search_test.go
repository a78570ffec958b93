package pickup

import (
	. "github.com/parcelgate/parcelgate"
	"slices"
	"strings"
	"testing"
	"time"
)

// helsinki is the given wall-clock time in Finland (EET/EEST) as an instant.
func helsinki(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse("2006-01-02 15:04 -0700", s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func search(t *testing.T, q PickupQuery, now time.Time) []PickupPoint {
	t.Helper()
	if err := q.Validate(); err != nil {
		t.Fatal(err)
	}
	return network.QueryPickupPoints(q, now)
}

// Points are ordered by distance from the searched area's centre and
// filtered by service, type and capability as the plugin asks.
func TestSearchPickupPoints(t *testing.T) {
	now := helsinki(t, "2026-04-01 12:00 +0300")
	pts := search(t, PickupQuery{PostalCode: "33100", ServiceCodes: []string{"2103"}}, now)
	if len(pts) != DefaultPickupLimit {
		t.Fatalf("%d points", len(pts))
	}
	for i, p := range pts {
		if p.Distance == nil || (i > 0 && *pts[i-1].Distance > *p.Distance) {
			t.Fatalf("not nearest first at %d: %+v", i, p)
		}
		if p.PupCode != p.ExternalID || p.Estimation == "" || len(p.OpeningHours) == 0 || p.ServiceProvider != DeliveryOperator {
			t.Errorf("point %+v", p)
		}
	}
	if pts[0].PostOffice != "TAMPERE" || *pts[0].Distance > 2000 {
		t.Errorf("nearest to 33100 is %+v", pts[0])
	}

	lockers := search(t, PickupQuery{PostalCode: "00100", Types: []string{"PARCEL_LOCKER"}, Capabilities: []string{"!outdoors"}}, now)
	for _, p := range lockers {
		if p.Type != PointParcelLocker || slices.Contains(p.Capabilities, CapabilityOutdoors) {
			t.Errorf("filtered out: %+v", p)
		}
	}
	if len(lockers) == 0 {
		t.Fatal("no indoor lockers near 00100")
	}
	if len(search(t, PickupQuery{PostalCode: "00100", Types: []string{"!STORE"}}, now)) != DefaultPickupLimit {
		t.Error("!STORE left points out")
	}
	if n := len(search(t, PickupQuery{PostalCode: "00100", Types: []string{"STORE"}}, now)); n != 0 {
		t.Errorf("STORE: %d points, the data set has no store points", n)
	}
	if n := len(search(t, PickupQuery{PostalCode: "00100", ServiceCodes: []string{"2104"}}, now)); n != 0 {
		t.Errorf("home delivery has %d pick-up points", n)
	}
	// the provider's Pick-up Point API (its live answer): Sweden's partner network.
	se := search(t, PickupQuery{PostalCode: "111 22", Country: "SE", Limit: 5}, now)
	for _, p := range se {
		if p.Country != "SE" || p.Estimation == "" || *p.Distance > 5000 {
			t.Errorf("Sweden: %+v", p)
		}
	}
	if len(se) != 5 || !strings.Contains(se[0].Name, "Stockholm") {
		t.Errorf("nearest to 111 22: %+v", se)
	}
	if n := len(search(t, PickupQuery{PostalCode: "0150", Country: "NO"}, now)); n != 0 {
		t.Errorf("Norway: %d points", n)
	}
	// An unlisted postal code (a PO box code) is placed by its region's
	// leading digits.
	if p := search(t, PickupQuery{PostalCode: "96101", Limit: 1}, now); p[0].Area.Municipality != "Rovaniemi" {
		t.Errorf("nearest to 96900: %+v", p[0])
	}
	// The plugin's free-text call: a town or postal code in the text
	// locates; other text matches names and addresses.
	if p := search(t, PickupQuery{Search: "Hämeenkatu 12, Tampere", Limit: 1}, now); p[0].PostOffice != "TAMPERE" {
		t.Errorf("text naming Tampere: %+v", p[0])
	}
	if p := search(t, PickupQuery{StreetAddress: "Koskikatu 5 96100 Rovaniemi", Limit: 1}, now); p[0].PostalCode != "96100" {
		t.Errorf("street address with a postal code: %+v", p[0])
	}
	named := search(t, PickupQuery{Search: "pakettiautomaatti kallio"}, now)
	if len(named) == 0 {
		t.Fatal("no point named like the text")
	}
	for _, p := range named {
		if !strings.Contains(strings.ToLower(p.Name), "kallio") || p.Distance != nil {
			t.Errorf("text match %+v", p)
		}
	}
	if n := len(search(t, PickupQuery{Search: "no such place anywhere"}, now)); n != 0 {
		t.Errorf("%d points for nothing", n)
	}
}

// The checkout's date is the estimate model's (decisions §19) for a
// Postal Parcel dropped off in the departure area: out the same working day
// before 17:00 Finnish time, else the next; one delivery day to most of
// Finland, two to northern Lapland; Finnish public holidays are no working
// days; two more from abroad.
func TestEstimateDelivery(t *testing.T) {
	helsinkiPoint, _ := network.FindPickupPoint("0010001")
	rovaniemiPoint, _ := network.FindPickupPoint("9610001")
	vantaa := departureArea("", "")
	var lapland PickupPoint
	for _, p := range data().Points {
		if p.Country == "FI" && p.PostalCode >= "98000" {
			lapland = p
			break
		}
	}
	cases := []struct {
		now, want   string
		to          PickupPoint
		countryFrom string
	}{
		{"2026-04-01 10:00 +0300", "2026-04-02", helsinkiPoint, ""},   // Wednesday morning: Thursday
		{"2026-04-01 17:30 +0300", "2026-04-07", helsinkiPoint, ""},   // after the cut-off: out Thursday, Good Friday to Easter Monday skipped
		{"2026-04-02 16:59 +0300", "2026-04-07", helsinkiPoint, ""},   // Maundy Thursday: over Easter to Tuesday
		{"2026-04-04 09:00 +0300", "2026-04-08", helsinkiPoint, ""},   // Easter Saturday: leaves Tuesday, Wednesday
		{"2026-04-01 10:00 +0300", "2026-04-02", rovaniemiPoint, ""},  // southern Lapland: one day too
		{"2026-04-01 10:00 +0300", "2026-04-08", helsinkiPoint, "SE"}, // from abroad: Thursday, then 2 working days after Easter
		{"2026-01-15 16:30 +0200", "2026-01-16", helsinkiPoint, ""},   // winter time, before the cut-off
		{"2026-01-15 17:10 +0200", "2026-01-19", helsinkiPoint, ""},   // winter time, after it: Friday out, Monday in
	}
	if lapland.ExternalID == "" {
		t.Fatal("the data set has no point in northern Lapland")
	}
	cases = append(cases, cases[0])
	cases[len(cases)-1].now, cases[len(cases)-1].want, cases[len(cases)-1].to = "2026-03-02 10:00 +0200", "2026-03-04", lapland // northern Lapland: two days
	for _, c := range cases {
		got := EstimateDelivery(helsinki(t, c.now), vantaa, c.countryFrom, c.to).Format(time.DateOnly)
		if got != c.want {
			t.Errorf("handed over %s to %s from %q: %s, want %s", c.now, c.to.PostOffice, c.countryFrom, got, c.want)
		}
	}
}

// interface §2.3 pickupPointId: optional, but a named point must exist; a 2103
// order without one goes to the point nearest its delivery postal code.
func TestPickupPointForOrder(t *testing.T) {
	for _, c := range []struct {
		service, id, postal, country string
		want, field                  string
	}{
		{"2103", "001003200", "33100", "FI", "001003200", ""},
		// A former 7-digit ID is read as its successor's (decisions §32).
		{"2103", "0010001", "33100", "FI", "001003200", ""},
		{"2104", " 3310001 ", "", "", "331003200", ""},
		{"2103", "NOPE", "00100", "FI", "", "pickupPointId"},
		{"2104", "9999999", "00100", "FI", "", "pickupPointId"},
		{"2103", "", "00100", "FI", "nearest:00100", ""},
		{"2103", "", "96100", "", "nearest:96100", ""},
		{"2103", "", "11122", "SE", "", ""},
		{"2103", "", "", "FI", "", ""},
		{"2104", "", "00100", "FI", "", ""},
		{"NOUTO", "", "00100", "FI", "", ""},
	} {
		got, err := PickupPointForOrder(network, c.service, c.id, c.postal, c.country)
		if c.field != "" {
			if ErrorCode(err) != EINVALID || ErrorFields(err)[0].Field != c.field {
				t.Errorf("%+v: %v, want a problem with %s", c, err, c.field)
			}
			continue
		}
		if err != nil {
			t.Errorf("%+v: %v", c, err)
			continue
		}
		if area, ok := strings.CutPrefix(c.want, "nearest:"); ok {
			p, found := network.FindPickupPoint(got)
			if !found || p.PostalCode != area {
				t.Errorf("%+v: routed to %q (%+v), want a point of area %s", c, got, p, area)
			}
			continue
		}
		if got != c.want {
			t.Errorf("%+v: %q, want %q", c, got, c.want)
		}
	}
}

// network is the package's Network, as the wiring hands it out.
var network Network
