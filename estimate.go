package parcelgate

import (
	_ "embed"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// Delivery time estimates (decisions §19): when a parcel handed over at a
// time reaches its destination, by the provider's estimation API. The
// model: a parcel leaves on the day it is handed over when that is a
// working day and it is handed over before the product's cut-off for its
// logistic phase (dropped off at an outlet, or picked up from the sender),
// else on the next working day; it is then delivered on the product's
// promised number of delivery days later — more to and from the postal
// code areas the table names, or by country abroad — at the product's time
// of delivery. Working days are Monday to Friday except Finnish public
// holidays (FinnishHoliday); with Saturday service (3106) on a product that
// has it, a Saturday that is no holiday is a delivery day too, delivered at
// the product's Saturday time. The promises are data
// (data/promises.json), not code.

//go:embed data/promises.json
var promisesJSON []byte

// Logistic phases: where the parcel's clock starts.
const (
	PhaseDroppedOff = "DROPPED_OFF" // the sender drops it at an outlet (the default)
	PhasePickedUp   = "PICKED_UP"   // the provider picks it up from the sender
)

// EstimateTimeLayout is how estimates are written: milliseconds and the
// offset with a colon, as the provider's estimation API answers.
const EstimateTimeLayout = "2006-01-02T15:04:05.000-07:00"

// ProductPromise is one product's row of the promise table.
type ProductPromise struct {
	Code        string            `json:"code"`
	Name        string            `json:"name"`
	Cutoffs     map[string]string `json:"cutoffs"` // by logistic phase, "HH:MM"
	Days        int               `json:"days"`
	DeliveredAt string            `json:"deliveredAt"`
	// SaturdayAt is the time of a Saturday delivery; empty when the
	// product has no Saturday service.
	SaturdayAt string `json:"saturdayAt,omitempty"`
	// Abroad products deliver outside Finland, to Countries when listed.
	Abroad    bool     `json:"abroad,omitempty"`
	Countries []string `json:"countries,omitempty"`
}

// PromiseArea is a range of Finnish postal codes that adds days to every
// promise from or to it.
type PromiseArea struct {
	From      string `json:"from"`
	To        string `json:"to"`
	Name      string `json:"name"`
	ExtraDays int    `json:"extraDays"`
}

type promiseTable struct {
	SaturdayService  string           `json:"saturdayService"`
	Products         []ProductPromise `json:"products"`
	Areas            []PromiseArea    `json:"areas"`
	Countries        map[string]int   `json:"countries"`
	OtherCountryDays int              `json:"otherCountryDays"`
}

// promises is the embedded table, read once; a broken file is a build
// defect (the tests read it), so reading it panics.
var promises = sync.OnceValue(func() *promiseTable {
	var t promiseTable
	if err := json.Unmarshal(promisesJSON, &t); err != nil {
		panic("parcelgate: data/promises.json: " + err.Error())
	}
	return &t
})

// SaturdayService is the additional service code of Saturday delivery.
func SaturdayService() string { return promises().SaturdayService }

// Promise returns the promise table's row of a product code: the row the
// service table says the service keeps (PromiseOf), under the code asked.
func Promise(code string) (ProductPromise, bool) {
	i := slices.IndexFunc(promises().Products, func(p ProductPromise) bool { return p.Code == PromiseOf(code) })
	if i < 0 {
		return ProductPromise{}, false
	}
	p := promises().Products[i]
	if s, _ := LookupService(code); !s.Domestic() && s.Countries != nil {
		p.Countries = s.Countries
	}
	p.Code = code
	return p, true
}

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

var estimatePostcode = regexp.MustCompile(`^[A-Z0-9][A-Z0-9 -]{1,9}$`)

// Validate normalizes q and checks it against the promise table: a product
// of the table, Finland as the origin (the provider carries from Finland),
// Finnish postal codes of 5 digits, a destination abroad only for a product
// that goes there, a known logistic phase, and Saturday service only on a
// product that has it. Each problem is named by names.
func (q *EstimateRequest) Validate(names EstimateFields) error {
	var p Problems
	q.Product = strings.ToUpper(strings.TrimSpace(q.Product))
	prod, ok := Promise(q.Product)
	if !ok {
		var codes []string
		for _, pr := range promises().Products {
			codes = append(codes, pr.Code)
		}
		p.Add(names.Product, "%q is not a product the estimate knows; give one of %s", q.Product, strings.Join(codes, ", "))
	}
	q.FromCountry = strings.ToUpper(strings.TrimSpace(q.FromCountry))
	q.ToCountry = strings.ToUpper(strings.TrimSpace(q.ToCountry))
	q.FromPostcode = strings.ToUpper(strings.TrimSpace(q.FromPostcode))
	q.ToPostcode = strings.ToUpper(strings.TrimSpace(q.ToPostcode))
	if q.FromCountry != "FI" {
		p.Add(names.FromCountry, "must be FI: parcels leave from Finland, not %q", q.FromCountry)
	}
	if !finnishPostalCode.MatchString(q.FromPostcode) {
		p.Add(names.FromPostcode, "must be a Finnish postal code of 5 digits, not %q", q.FromPostcode)
	}
	switch {
	case !countryPattern.MatchString(q.ToCountry):
		p.Add(names.ToCountry, "must be a two-letter country code (ISO 3166), not %q", q.ToCountry)
	case q.ToCountry == "FI":
		if !finnishPostalCode.MatchString(q.ToPostcode) {
			p.Add(names.ToPostcode, "must be a Finnish postal code of 5 digits, not %q", q.ToPostcode)
		}
		if ok && prod.Abroad {
			p.Add(names.Product, "product %s delivers abroad; give a destination outside Finland or a domestic product", prod.Code)
		}
	default:
		if !estimatePostcode.MatchString(q.ToPostcode) {
			p.Add(names.ToPostcode, "must be a postal code of 2-10 letters, digits, spaces and dashes, not %q", q.ToPostcode)
		}
		switch {
		case ok && !prod.Abroad:
			p.Add(names.ToCountry, "product %s delivers in Finland only, not to %s", prod.Code, q.ToCountry)
		case ok && len(prod.Countries) > 0 && !slices.Contains(prod.Countries, q.ToCountry):
			p.Add(names.ToCountry, "product %s delivers to %s only, not to %s", prod.Code, strings.Join(prod.Countries, ", "), q.ToCountry)
		}
	}
	q.Phase = strings.ToUpper(strings.TrimSpace(q.Phase))
	if q.Phase == "" {
		q.Phase = PhaseDroppedOff
	}
	if q.Phase != PhaseDroppedOff && q.Phase != PhasePickedUp {
		p.Add(names.Phase, "must be %s or %s, not %q", PhaseDroppedOff, PhasePickedUp, q.Phase)
	}
	for i, s := range q.Services {
		q.Services[i] = strings.TrimSpace(s)
		switch {
		case q.Services[i] != SaturdayService():
			p.Add(names.Services, "%q is not an additional service the estimate knows; %s (Saturday delivery) is", s, SaturdayService())
		case ok && prod.SaturdayAt == "":
			p.Add(names.Services, "Saturday delivery (%s) is not available for product %s", SaturdayService(), prod.Code)
		}
	}
	return p.Err()
}

// EstimateDeliveryTime answers q (validated) by the model above: the time,
// in Finnish time, its parcel is delivered.
func EstimateDeliveryTime(q EstimateRequest) time.Time {
	prod, _ := Promise(q.Product)
	local := finnishTime(q.At)
	day := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, time.UTC)
	cutoff := clockMinutes(prod.Cutoffs[q.Phase])
	if !WorkingDay(day) || local.Hour()*60+local.Minute() >= cutoff {
		day = nextDay(day, WorkingDay)
	}
	days := prod.Days + areaExtraDays(q.FromPostcode)
	if q.ToCountry == "FI" {
		days += areaExtraDays(q.ToPostcode)
	} else if n, ok := promises().Countries[q.ToCountry]; ok {
		days += n
	} else {
		days += promises().OtherCountryDays
	}
	deliveryDay := WorkingDay
	if prod.SaturdayAt != "" && slices.Contains(q.Services, SaturdayService()) {
		deliveryDay = func(d time.Time) bool {
			return WorkingDay(d) || (d.Weekday() == time.Saturday && !FinnishHoliday(d))
		}
	}
	for range days {
		day = nextDay(day, deliveryDay)
	}
	at := prod.DeliveredAt
	if day.Weekday() == time.Saturday {
		at = prod.SaturdayAt
	}
	return finnishWallClock(day, clockMinutes(at))
}

// areaExtraDays is what the promise table adds to and from a Finnish
// postal code's area.
func areaExtraDays(postcode string) int {
	for _, a := range promises().Areas {
		if postcode >= a.From && postcode <= a.To {
			return a.ExtraDays
		}
	}
	return 0
}

// clockMinutes reads "HH:MM" of the promise table.
func clockMinutes(hhmm string) int {
	t, err := time.Parse("15:04", hhmm)
	if err != nil {
		panic("parcelgate: data/promises.json: time " + hhmm)
	}
	return t.Hour()*60 + t.Minute()
}

func nextDay(d time.Time, ok func(time.Time) bool) time.Time {
	for d = d.AddDate(0, 0, 1); !ok(d); d = d.AddDate(0, 0, 1) {
	}
	return d
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

// finnishWallClock is the instant at minutes past midnight of Finnish
// time on the date of day, in a zone of its offset, so that it is written
// with the offset Finland had then.
func finnishWallClock(day time.Time, minutes int) time.Time {
	wall := time.Date(day.Year(), day.Month(), day.Day(), 0, minutes, 0, 0, time.UTC)
	// Try summer time first: the wall clock read back through finnishTime
	// must be the one asked for (the instants of the night the clocks turn
	// are not delivery times).
	for _, offset := range []time.Duration{3 * time.Hour, 2 * time.Hour} {
		at := wall.Add(-offset)
		if finnishTime(at).Equal(wall) {
			return at.In(time.FixedZone("", int(offset.Seconds())))
		}
	}
	return wall.Add(-2 * time.Hour).In(time.FixedZone("", 2*3600))
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
