package parcelgate

import (
	"strings"
	"testing"
	"time"
)

// Bad input names the query parameter it is in.
func TestPickupQueryValidate(t *testing.T) {
	for _, c := range []struct {
		q     PickupQuery
		field string
	}{
		{PickupQuery{}, "postalCode"},
		{PickupQuery{PostalCode: "0010"}, "postalCode"},
		{PickupQuery{PostalCode: "ABCDE"}, "postalCode"},
		{PickupQuery{PostalCode: "00100", Country: "Finland"}, "country"},
		{PickupQuery{PostalCode: "00100", CountryFrom: "F1"}, "countryFrom"},
		{PickupQuery{PostalCode: "00100", PostalCodeFrom: "1"}, "postalCodeFrom"},
		{PickupQuery{PostalCode: "00100", ServiceCodes: []string{"9999"}}, "serviceCode"},
		{PickupQuery{PostalCode: "00100", Types: []string{"LOCKER;DROP"}}, "type"},
		{PickupQuery{PostalCode: "00100", Capabilities: []string{"out doors"}}, "capability"},
		{PickupQuery{PostalCode: "00100", Limit: MaxPickupLimit + 1}, "limit"},
		{PickupQuery{Search: strings.Repeat("x", MaxPickupText+1)}, "search"},
	} {
		err := c.q.Validate()
		if ErrorCode(err) != EINVALID || len(ErrorFields(err)) == 0 || ErrorFields(err)[0].Field != c.field {
			t.Errorf("%+v: %v, want a problem with %s", c.q, err, c.field)
		}
	}
	// What the plugin sends: empty parameters, a service list, STORE / !STORE
	// and !outdoors; a Swedish postal code for a Swedish address.
	for _, q := range []PickupQuery{
		{ServiceCodes: []string{"2103"}, PostalCode: "00100", StreetAddress: "Mannerheimintie 1", Country: "FI", Types: []string{"!STORE"}, Capabilities: []string{"!outdoors"}},
		{Search: "Tampere", Types: []string{"STORE"}},
		{PostalCode: "111 22", Country: "se"},
	} {
		if err := q.Validate(); err != nil {
			t.Errorf("%+v: %v", q, err)
		}
	}
}

// Finnish time follows the EU summer-time rule.
func TestFinnishTime(t *testing.T) {
	for _, c := range []struct{ utc, want string }{
		{"2026-03-29T00:59:00Z", "02:59"}, // last Sunday of March, before 01:00 UTC
		{"2026-03-29T01:00:00Z", "04:00"},
		{"2026-10-25T00:59:00Z", "03:59"},
		{"2026-10-25T01:00:00Z", "03:00"},
		{"2026-07-01T12:00:00Z", "15:00"},
		{"2026-12-01T12:00:00Z", "14:00"},
	} {
		u, _ := time.Parse(time.RFC3339, c.utc)
		if got := finnishTime(u).Format("15:04"); got != c.want {
			t.Errorf("%s: %s, want %s", c.utc, got, c.want)
		}
	}
}

// Each problem of a search names the body's member it is in.
func TestPickupSearchValidate(t *testing.T) {
	for _, c := range []struct {
		s     PickupSearch
		field string
	}{
		{PickupSearch{}, "searchCriteria"},
		{PickupSearch{Postcode: "0010"}, "searchCriteria.location.postcode"},
		{PickupSearch{Postcode: "00100", CountryCode: "FIN"}, "searchCriteria.location.countryCode"},
		{PickupSearch{Postcode: "111 22 Stockholm", CountryCode: "SE"}, "searchCriteria.location.postcode"},
		{PickupSearch{Postcode: "00100", FreeText: "x"}, "searchCriteria"},
		{PickupSearch{Coordinates: &Coordinates{91, 24}}, "searchCriteria.location.coordinates.latitude"},
		{PickupSearch{Postcode: "00100", RadiusMetres: 500}, "searchCriteria.location.radius"},
		{PickupSearch{Rectangle: &Rectangle{61, 24, 60, 25}}, "searchCriteria.rectangle.swLatitude"},
		{PickupSearch{Postcode: "00100", ProductCode: "9999"}, "searchCriteria.serviceFilters.product.code"},
		{PickupSearch{Postcode: "00100", Limit: MaxPickupLimit + 1}, "limit"},
		{PickupSearch{FreeText: strings.Repeat("x", MaxPickupText+1)}, "searchCriteria.freeText"},
	} {
		err := c.s.Validate()
		if ErrorCode(err) != EINVALID || ErrorFields(err)[0].Field != c.field {
			t.Errorf("%+v: %v, want a problem with %s", c.s, err, c.field)
		}
	}
}

// Finnish public holidays, the movable ones included.
func TestFinnishHoliday(t *testing.T) {
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	for _, s := range []string{"2025-01-01", "2025-01-06", "2025-04-18", "2025-04-20", "2025-04-21", "2025-05-01", "2025-05-29",
		"2025-06-08", "2025-06-20", "2025-06-21", "2025-11-01", "2025-12-06", "2025-12-24", "2025-12-25", "2025-12-26",
		"2024-03-29", "2024-04-01", "2024-05-09", "2024-06-21", "2024-06-22", "2024-11-02", "2026-10-31", "2014-06-20"} {
		if !FinnishHoliday(day(s)) {
			t.Errorf("%s is a holiday", s)
		}
	}
	for _, s := range []string{"2025-04-17", "2025-04-22", "2025-06-19", "2025-06-27", "2025-10-31", "2025-11-08", "2025-12-27", "2025-05-02", "2026-11-07"} {
		if FinnishHoliday(day(s)) {
			t.Errorf("%s is no holiday", s)
		}
	}
	for y, want := range map[int]string{2014: "2014-04-20", 2019: "2019-04-21", 2024: "2024-03-31", 2025: "2025-04-20", 2038: "2038-04-25"} {
		if got := EasterSunday(y).Format(time.DateOnly); got != want {
			t.Errorf("Easter %d: %s, want %s", y, got, want)
		}
	}
	if WorkingDay(day("2025-04-18")) || !WorkingDay(day("2025-04-22")) || WorkingDay(day("2025-04-26")) {
		t.Errorf("working days around Easter")
	}
}
