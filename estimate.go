package parcelgate

import (
	"time"
)

// Delivery time estimates (decisions §19): when a parcel handed over at a
// time reaches its destination, by the provider's estimation API. The
// model and its promise table are package pickup's (DeliveryEstimator);
// the root holds the request, the working-day calendar it counts on and
// how estimate times are read and written.

// DeliveryEstimator is the estimate model (decisions §19): a parcel leaves
// on the day it is handed over when that is a working day and it is
// handed over before the product's cut-off for its logistic phase, else on
// the next working day, and is delivered the product's promised number of
// delivery days later, at the product's time of delivery. Package pickup
// implements it over its promise table; the wiring hands it to the front
// ends.
type DeliveryEstimator interface {
	// CheckEstimate normalizes q and checks it against the promise table:
	// a product of the table, Finland as the origin, Finnish postal codes
	// of 5 digits, a destination abroad only for a product that goes
	// there, a known logistic phase, and Saturday service only on a
	// product that has it. Each problem is named by names.
	CheckEstimate(q *EstimateRequest, names EstimateFields) error
	// EstimateDeliveryTime answers q (checked by CheckEstimate): the time,
	// in Finnish time, its parcel is delivered.
	EstimateDeliveryTime(q EstimateRequest) time.Time
	// PlanGatewayEstimate checks the gateway's estimate object e and makes
	// it the model's request. prefix is the JSON path of the object
	// ("estimate." in POST /estimate, "extensions.estimate." in a search),
	// pointPostcode, when not "", the destination (the point a search
	// extension estimates for), pupField the name of the origin's pick-up
	// point member. promise is false when the model cannot promise (a
	// place given by GLN only, a product the table lacks, an origin
	// abroad); err holds every problem of the request, each named by its
	// JSON path.
	PlanGatewayEstimate(e GatewayEstimate, prefix, pointPostcode, pupField string) (q EstimateRequest, promise bool, err error)
}

// Logistic phases: where the parcel's clock starts.
const (
	PhaseDroppedOff = "DROPPED_OFF" // the sender drops it at an outlet (the default)
	PhasePickedUp   = "PICKED_UP"   // the provider picks it up from the sender
)

// EstimateTimeLayout is how estimates are written: milliseconds and the
// offset with a colon, as the provider's estimation API answers.
const EstimateTimeLayout = "2006-01-02T15:04:05.000-07:00"

// EstimateRequest asks when a parcel reaches its destination.
type EstimateRequest struct {
	FromPostcode, FromCountry string
	ToPostcode, ToCountry     string
	Product                   string
	// At is when the parcel is handed over (in its logistic phase).
	At       time.Time
	Phase    string   // PhaseDroppedOff when empty
	Services []string // additional services; SaturdayService is the one that counts
}

// EstimateFields names the fields of an estimate request on its surface
// (path segments of the GET, members of the POST body), for its problems.
type EstimateFields struct {
	FromPostcode, FromCountry, ToPostcode, ToCountry, Product, Phase, Services string
}

// WorkingDay reports whether the date of d is a Finnish working day:
// Monday to Friday and not a public holiday.
func WorkingDay(d time.Time) bool {
	return d.Weekday() != time.Saturday && d.Weekday() != time.Sunday && !FinnishHoliday(d)
}

// FinnishHoliday reports whether the date of d (its year, month and day,
// whatever its zone) is a Finnish public holiday or one of the eves the
// country stops on: New Year's Day, Epiphany, Good Friday, Easter Sunday
// and Monday, May Day, Ascension Day, Whit Sunday, Midsummer Eve and Day
// (the Friday and Saturday between 19 and 26 June), All Saints' Day (the
// Saturday between 31 October and 6 November), Independence Day, and
// Christmas Eve, Day and St Stephen's Day.
func FinnishHoliday(d time.Time) bool {
	y, m, day := d.Date()
	date := time.Date(y, m, day, 0, 0, 0, 0, time.UTC)
	switch {
	case m == time.January && (day == 1 || day == 6),
		m == time.May && day == 1,
		m == time.December && (day == 6 || day == 24 || day == 25 || day == 26):
		return true
	case m == time.June && date.Weekday() == time.Friday && day >= 19 && day <= 25,
		m == time.June && date.Weekday() == time.Saturday && day >= 20 && day <= 26:
		return true
	case date.Weekday() == time.Saturday && ((m == time.October && day == 31) || (m == time.November && day <= 6)):
		return true
	}
	easter := EasterSunday(y)
	for _, offset := range []int{-2, 0, 1, 39, 49} {
		if date.Equal(easter.AddDate(0, 0, offset)) {
			return true
		}
	}
	return false
}

// EasterSunday is the date of Western Easter Sunday of year y (the
// anonymous Gregorian computus), at midnight UTC.
func EasterSunday(y int) time.Time {
	a, b, c := y%19, y/100, y%100
	d, e := b/4, b%4
	f := (b + 8) / 25
	g := (b - f + 1) / 3
	h := (19*a + b - d - g + 15) % 30
	i, k := c/4, c%4
	l := (32 + 2*e + 2*i - h - k) % 7
	m := (a + 11*h + 22*l) / 451
	month := (h + l - 7*m + 114) / 31
	day := (h+l-7*m+114)%31 + 1
	return time.Date(y, time.Month(month), day, 0, 0, 0, 0, time.UTC)
}

// ParseEstimateTime reads the time of an estimate request: RFC 3339 with
// or without fractional seconds, the offset with or without its colon
// (2014-10-03T09:00:00.000+0300, as the provider's own example writes it).
func ParseEstimateTime(s string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999-0700", "2006-01-02T15:04:05.999999999Z0700"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
