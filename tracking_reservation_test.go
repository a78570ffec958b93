package parcelgate

import (
	"strings"
	"testing"
	"time"
)

// decisions §39 (the provider's reservations/status parameters: from, to,
// country, postcode required; product "2182:3122" and service optional;
// lists comma-separated): each parameter's problem is named by it.
func TestParseReservationQuery(t *testing.T) {
	q, err := ParseReservationQuery("2026-03-10T00:00:00+02:00", "2026-03-12T00:00:00+02:00", " fi ", []string{"02100,02110, 02140", "02100"}, []string{"2103:3101", "2104"}, []string{"3101"})
	if err != nil || q.Country != "FI" || strings.Join(q.Postcodes, ",") != "02100,02110,02140" || len(q.Products) != 2 || len(q.Services) != 1 || q.To.Sub(q.From) != 48*time.Hour {
		t.Fatalf("%+v %v", q, err)
	}
	if q, err := ParseReservationQuery("2026-03-10T00:00:00Z", "2026-03-11T00:00:00Z", "EE", []string{"10117"}, nil, nil); err != nil || q.Postcodes[0] != "10117" {
		t.Fatalf("Estonia: %+v %v", q, err)
	}
	const from, to = "2026-03-10T00:00:00Z", "2026-03-11T00:00:00Z"
	pc := []string{"00100"}
	for _, c := range []struct {
		from, to, country string
		postcodes         []string
		products          []string
		services          []string
		field             string
	}{
		{"", to, "FI", pc, nil, nil, "from"},
		{from, "tomorrow", "FI", pc, nil, nil, "to"},
		{to, from, "FI", pc, nil, nil, "to"},
		{from, "2026-04-11T00:00:01Z", "FI", pc, nil, nil, "to"},
		{from, to, "", pc, nil, nil, "country"},
		{from, to, "FIN", pc, nil, nil, "country"},
		{from, to, "FI", nil, nil, nil, "postcode"},
		{from, to, "FI", []string{" , "}, nil, nil, "postcode"},
		{from, to, "FI", []string{"0010"}, nil, nil, "postcode"},
		{from, to, "SE", []string{"1"}, nil, nil, "postcode"},
		{from, to, "FI", []string{strings.Repeat("00100,", 101)}, nil, nil, "postcode"},
		{from, to, "FI", pc, []string{"PO2103"}, nil, "product"},
		{from, to, "FI", pc, []string{"2103:"}, nil, "product"},
		{from, to, "FI", pc, nil, []string{"COD"}, "service"},
	} {
		_, err := ParseReservationQuery(c.from, c.to, c.country, c.postcodes, c.products, c.services)
		if fs := ErrorFields(err); ErrorCode(err) != EINVALID || len(fs) != 1 || fs[0].Field != c.field {
			t.Errorf("%+v: %v %+v", c, err, fs)
		}
	}
}

// decisions §39: one reservation a Finnish day, the first and last cut to
// the window; the day of the spring clock change is 23 hours.
func TestReservationDays(t *testing.T) {
	q := ReservationQuery{From: time.Date(2026, 3, 28, 10, 0, 0, 0, time.UTC), To: time.Date(2026, 3, 30, 12, 0, 0, 0, time.UTC)}
	days := q.ReservationDays()
	want := []time.Time{q.From, time.Date(2026, 3, 28, 22, 0, 0, 0, time.UTC), time.Date(2026, 3, 29, 21, 0, 0, 0, time.UTC), q.To}
	if len(days) != 3 {
		t.Fatalf("%d days: %+v", len(days), days)
	}
	for i, d := range days {
		if !d.From.Equal(want[i]) || !d.To.Equal(want[i+1]) || d.TrackingNumbers == nil {
			t.Errorf("day %d: %s-%s, want %s-%s", i, d.From, d.To, want[i], want[i+1])
		}
	}
}

// decisions §39: a parcel counts on the day it is due at its destination
// (a pick-up point's postcode, else the receiver's), passed or to come,
// when the country, postcode, product and service match; a parcel the
// operator moved before it got there is due nowhere.
func TestCountReservations(t *testing.T) {
	created := time.Date(2026, 3, 10, 8, 0, 0, 0, time.UTC)
	point, _ := testNetwork{}.NearestPickupPoint("33100", "2103")
	toPoint := journeyShipment("2103", "", created)
	toPoint.PickupPointID, toPoint.AdditionalServices = point.ExternalID, []string{"3101"}
	// Handed over a day later than the others, so that it is due on
	// another day than the point's parcel under the test estimate.
	home := journeyShipment("2104", "", created.Add(24*time.Hour))
	moved := journeyShipment("2104", "", created)
	ps := []TrackedParcel{
		{Shipment: toPoint, Parcel: Parcel{ParcelID: "JJFI00000000000000001"}, Own: true},
		{Shipment: home, Parcel: Parcel{ParcelID: "JJFI00000000000000002"}, Own: true},
		{Shipment: moved, Parcel: Parcel{ParcelID: "JJFI00000000000000003"}, Own: true, Moves: []TrackingMove{{Status: StatusInTransport, At: created.Add(3 * time.Hour)}}},
	}
	dueHome := ParcelTimeline(testEstimates, Production, home, nil, nil, created).Due
	duePoint := ParcelTimeline(testEstimates, Production, toPoint, &point, nil, created).Due
	if dueHome.IsZero() || duePoint.IsZero() || !ParcelTimeline(testEstimates, Production, moved, nil, ps[2].Moves, created).Due.IsZero() {
		t.Fatalf("due %s %s", dueHome, duePoint)
	}
	q := ReservationQuery{From: created, To: created.Add(7 * 24 * time.Hour), Country: "FI", Postcodes: []string{"33100", point.PostalCode}}
	count := func(q ReservationQuery, now time.Time) string {
		var all []string
		for _, d := range CountReservations(testNetwork{}, testEstimates, q, ps, now) {
			all = append(all, d.TrackingNumbers...)
		}
		return strings.Join(all, ",")
	}
	// Before and after the parcels got there: the same answer.
	for _, now := range []time.Time{created, created.Add(10 * 24 * time.Hour)} {
		if got := count(q, now); !strings.Contains(got, "JJFI00000000000000001") || !strings.Contains(got, "JJFI00000000000000002") || strings.Contains(got, "003") {
			t.Errorf("at %s: %s", now, got)
		}
	}
	for name, c := range map[string]struct {
		q    ReservationQuery
		want string
	}{
		"another postcode":           {ReservationQuery{From: q.From, To: q.To, Country: "FI", Postcodes: []string{"00100"}}, ""},
		"another country":            {ReservationQuery{From: q.From, To: q.To, Country: "EE", Postcodes: q.Postcodes}, ""},
		"product 2103":               {ReservationQuery{From: q.From, To: q.To, Country: "FI", Postcodes: q.Postcodes, Products: []string{"2103"}}, "JJFI00000000000000001"},
		"product with its service":   {ReservationQuery{From: q.From, To: q.To, Country: "FI", Postcodes: q.Postcodes, Products: []string{"2103:3101"}}, "JJFI00000000000000001"},
		"product without it":         {ReservationQuery{From: q.From, To: q.To, Country: "FI", Postcodes: q.Postcodes, Products: []string{"2104:3101"}}, ""},
		"service 3101":               {ReservationQuery{From: q.From, To: q.To, Country: "FI", Postcodes: q.Postcodes, Services: []string{"3101"}}, "JJFI00000000000000001"},
		"a window before":            {ReservationQuery{From: q.From.Add(-48 * time.Hour), To: q.From, Country: "FI", Postcodes: q.Postcodes}, ""},
		"the home parcel's day only": {ReservationQuery{From: dueHome, To: dueHome.Add(time.Minute), Country: "FI", Postcodes: q.Postcodes}, "JJFI00000000000000002"},
	} {
		if got := count(c.q, created); got != c.want {
			t.Errorf("%s: %q, want %q", name, got, c.want)
		}
	}
}
