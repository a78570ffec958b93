package pickup

import (
	. "github.com/parcelgate/parcelgate"
	"testing"
	"time"
)

var estimateNames = EstimateFields{FromPostcode: "fromPostcode", FromCountry: "fromCountry", ToPostcode: "toPostcode", ToCountry: "toCountry", Product: "product", Phase: "logisticPhase", Services: "service"}

func mustEstimateTime(t *testing.T, s string) time.Time {
	t.Helper()
	at, ok := ParseEstimateTime(s)
	if !ok {
		t.Fatalf("time %q", s)
	}
	return at
}

// The estimation API's two published examples, as published (decisions
// §19), and the model's rules around them: cut-offs, weekends, holidays,
// the areas of the promise table, Saturday service, abroad, summer time.
func TestEstimateDeliveryTime(t *testing.T) {
	tests := []struct {
		name                         string
		from, to, toCountry, product string
		at, phase                    string
		services                     []string
		want                         string
	}{
		// The provider's example 1: Postal Parcel, Friday 09:00 at the
		// Helsinki office, promised on the second working day to
		// Sodankylä (northern Lapland), the weekend skipped.
		{"published example 1", "00100", "99710", "FI", "2103", "2014-10-03T09:00:00.000+0300", "", nil, "2014-10-07T16:00:00.000+03:00"},
		// The provider's example 2: Express Parcel picked up Friday 13:30,
		// Saturday delivery.
		{"published example 2", "00100", "33100", "FI", "2102", "2014-10-03T13:30:00.000+0300", PhasePickedUp, []string{"3106"}, "2014-10-04T09:00:00.000+03:00"},
		{"without Saturday service, Monday", "00100", "33100", "FI", "2102", "2014-10-03T13:30:00.000+0300", PhasePickedUp, nil, "2014-10-06T16:00:00.000+03:00"},
		{"after the drop-off cut-off leaves Monday", "00100", "99710", "FI", "2103", "2014-10-03T17:00:00.000+0300", "", nil, "2014-10-08T16:00:00.000+03:00"},
		{"the pick-up cut-off is earlier", "00100", "33100", "FI", "2103", "2014-10-03T16:30:00+03:00", PhasePickedUp, nil, "2014-10-07T16:00:00.000+03:00"},
		{"handed over on Sunday", "00100", "00100", "FI", "2103", "2014-10-05T10:00:00+03:00", "", nil, "2014-10-07T16:00:00.000+03:00"},
		{"Åland adds a day", "00100", "22100", "FI", "2103", "2014-10-06T10:00:00+03:00", "", nil, "2014-10-08T16:00:00.000+03:00"},
		{"from Lapland adds a day", "99710", "00100", "FI", "2104", "2014-10-06T10:00:00+03:00", "", nil, "2014-10-08T21:00:00.000+03:00"},
		{"winter time", "00100", "33100", "FI", "2101", "2014-12-01T10:00:00Z", "", nil, "2014-12-02T09:00:00.000+02:00"},
		{"the time's own offset is read", "00100", "33100", "FI", "2103", "2014-10-03T14:30:00Z", "", nil, "2014-10-07T16:00:00.000+03:00"},
		{"Christmas", "00100", "33100", "FI", "2103", "2025-12-23T10:00:00+02:00", "", nil, "2025-12-29T16:00:00.000+02:00"},
		{"Easter", "00100", "33100", "FI", "2103", "2025-04-17T10:00:00+03:00", "", nil, "2025-04-22T16:00:00.000+03:00"},
		{"Midsummer Eve", "00100", "33100", "FI", "2103", "2025-06-19T10:00:00+03:00", "", nil, "2025-06-23T16:00:00.000+03:00"},
		{"no Saturday delivery on All Saints' Day", "00100", "33100", "FI", "2102", "2025-10-31T10:00:00+02:00", "", []string{"3106"}, "2025-11-03T16:00:00.000+02:00"},
		{"Baltics", "00100", "10115", "EE", "2331", "2025-03-03T10:00:00+02:00", "", nil, "2025-03-05T16:00:00.000+02:00"},
		{"elsewhere abroad", "00100", "75001", "FR", "2711", "2025-03-03T10:00:00+02:00", "", nil, "2025-03-11T16:00:00.000+02:00"},
	}
	for _, tt := range tests {
		q := EstimateRequest{FromPostcode: tt.from, FromCountry: "FI", ToPostcode: tt.to, ToCountry: tt.toCountry, Product: tt.product,
			At: mustEstimateTime(t, tt.at), Phase: tt.phase, Services: tt.services}
		if err := network.CheckEstimate(&q, estimateNames); err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if got := estimateDeliveryTime(q).Format(EstimateTimeLayout); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
	}
}

// Each bad request is refused on the field at fault.
func TestCheckEstimate(t *testing.T) {
	ok := EstimateRequest{FromPostcode: "00100", FromCountry: "FI", ToPostcode: "33100", ToCountry: "FI", Product: "2103"}
	tests := []struct {
		name  string
		edit  func(*EstimateRequest)
		field string
	}{
		{"unknown product", func(q *EstimateRequest) { q.Product = "9999" }, "product"},
		{"from abroad", func(q *EstimateRequest) { q.FromCountry = "SE" }, "fromCountry"},
		{"bad Finnish postcode", func(q *EstimateRequest) { q.ToPostcode = "3310" }, "toPostcode"},
		{"bad origin postcode", func(q *EstimateRequest) { q.FromPostcode = "x" }, "fromPostcode"},
		{"bad country", func(q *EstimateRequest) { q.ToCountry = "Finland" }, "toCountry"},
		{"domestic product abroad", func(q *EstimateRequest) { q.ToCountry, q.ToPostcode = "SE", "11122" }, "toCountry"},
		{"Baltic product to Sweden", func(q *EstimateRequest) { q.Product, q.ToCountry, q.ToPostcode = "2331", "SE", "11122" }, "toCountry"},
		{"abroad product at home", func(q *EstimateRequest) { q.Product = "2711" }, "product"},
		{"phase", func(q *EstimateRequest) { q.Phase = "FLYING" }, "logisticPhase"},
		{"Saturday on a postal parcel", func(q *EstimateRequest) { q.Services = []string{"3106"} }, "service"},
		{"unknown service", func(q *EstimateRequest) { q.Product, q.Services = "2102", []string{"3101"} }, "service"},
	}
	for _, tt := range tests {
		q := ok
		tt.edit(&q)
		err := network.CheckEstimate(&q, estimateNames)
		if fs := ErrorFields(err); len(fs) != 1 || fs[0].Field != tt.field {
			t.Errorf("%s: %v, want a problem on %s", tt.name, fs, tt.field)
		}
	}
	if q := ok; network.CheckEstimate(&q, estimateNames) != nil {
		t.Errorf("valid request refused")
	}
}

// Every product of the promise table has a cut-off per phase, times that
// read, and is a service code of the service list.
func TestPromiseTable(t *testing.T) {
	for _, p := range promises().Products {
		if !ValidServiceCode(p.Code) {
			t.Errorf("%s is not a service code", p.Code)
		}
		for _, ph := range []string{PhaseDroppedOff, PhasePickedUp} {
			clockMinutes(p.Cutoffs[ph])
		}
		clockMinutes(p.DeliveredAt)
		if p.SaturdayAt != "" {
			clockMinutes(p.SaturdayAt)
		}
	}
	for i, a := range promises().Areas {
		if i > 0 && a.From <= promises().Areas[i-1].To {
			t.Errorf("area %s overlaps", a.Name)
		}
	}
}

// decisions §39: the estimate reads the root's service table: every
// service's promise row is one the model holds, a service keeps its row
// under its own code, and it is estimated only where the table says it
// goes.
func TestServicePromises(t *testing.T) {
	for _, code := range ShippingProducts() {
		s, _ := LookupService(code)
		if s.Promise == "" {
			continue
		}
		if _, ok := promise(s.Promise); !ok {
			t.Errorf("%s keeps promise %s, which the estimate does not hold", s.Code, s.Promise)
		}
	}
	at := time.Date(2026, 3, 10, 8, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		product, to string
		ok          bool
	}{{"2351", "SE", true}, {"2351", "DE", false}, {"2352", "LT", true}, {"2017", "US", true}, {"2017", "FI", false}, {"2108", "FI", false}, {"2461", "FI", false}} {
		q := EstimateRequest{FromPostcode: "00100", FromCountry: "FI", ToPostcode: "11122", ToCountry: c.to, Product: c.product, At: at}
		if c.to == "FI" {
			q.ToPostcode = "33100"
		}
		if err := (Network{}).CheckEstimate(&q, EstimateFields{Product: "product", ToCountry: "toCountry"}); (err == nil) != c.ok {
			t.Errorf("estimate of %s to %s: %v", c.product, c.to, err)
		}
	}
	if p, ok := promise("2351"); !ok || p.Code != "2351" {
		t.Errorf("promise of 2351: %+v", p)
	}
}
