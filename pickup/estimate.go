package pickup

import (
	_ "embed"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/parcelgate/parcelgate"
)

// Delivery time estimates (decisions §19): the model of the provider's
// estimation API over the promise table (data/promises.json: data, not
// code), and the checkout date of a pick-up point search.

//go:embed data/promises.json
var promisesJSON []byte

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
		panic("pickup: data/promises.json: " + err.Error())
	}
	return &t
})

// saturdayService is the additional service code of Saturday delivery.
func saturdayService() string { return promises().SaturdayService }

// promise returns the promise table's row of a product code: the row the
// root's service table says the service keeps (parcelgate.PromiseOf), under
// the code asked, with the service's countries for a service abroad.
func promise(code string) (ProductPromise, bool) {
	i := slices.IndexFunc(promises().Products, func(p ProductPromise) bool { return p.Code == parcelgate.PromiseOf(code) })
	if i < 0 {
		return ProductPromise{}, false
	}
	p := promises().Products[i]
	if s, _ := parcelgate.LookupService(code); !s.Domestic() && s.Countries != nil {
		p.Countries = s.Countries
	}
	p.Code = code
	return p, true
}

// CheckEstimate normalizes q and checks it against the promise table (see
// parcelgate.DeliveryEstimator): a product of the table, Finland as the
// origin (the provider carries from Finland), Finnish postal codes of 5
// digits, a destination abroad only for a product that goes there, a
// known logistic phase, and Saturday service only on a product that has
// it. Each problem is named by names.
func (Network) CheckEstimate(q *parcelgate.EstimateRequest, names parcelgate.EstimateFields) error {
	var p parcelgate.Problems
	q.Product = strings.ToUpper(strings.TrimSpace(q.Product))
	prod, ok := promise(q.Product)
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
	if !parcelgate.IsFinnishPostalCode(q.FromPostcode) {
		p.Add(names.FromPostcode, "must be a Finnish postal code of 5 digits, not %q", q.FromPostcode)
	}
	switch {
	case !parcelgate.IsCountryCode(q.ToCountry):
		p.Add(names.ToCountry, "must be a two-letter country code (ISO 3166), not %q", q.ToCountry)
	case q.ToCountry == "FI":
		if !parcelgate.IsFinnishPostalCode(q.ToPostcode) {
			p.Add(names.ToPostcode, "must be a Finnish postal code of 5 digits, not %q", q.ToPostcode)
		}
		if ok && prod.Abroad {
			p.Add(names.Product, "product %s delivers abroad; give a destination outside Finland or a domestic product", prod.Code)
		}
	default:
		if !parcelgate.IsPostalCode(q.ToPostcode) {
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
		q.Phase = parcelgate.PhaseDroppedOff
	}
	if q.Phase != parcelgate.PhaseDroppedOff && q.Phase != parcelgate.PhasePickedUp {
		p.Add(names.Phase, "must be %s or %s, not %q", parcelgate.PhaseDroppedOff, parcelgate.PhasePickedUp, q.Phase)
	}
	for i, s := range q.Services {
		q.Services[i] = strings.TrimSpace(s)
		switch {
		case q.Services[i] != saturdayService():
			p.Add(names.Services, "%q is not an additional service the estimate knows; %s (Saturday delivery) is", s, saturdayService())
		case ok && prod.SaturdayAt == "":
			p.Add(names.Services, "Saturday delivery (%s) is not available for product %s", saturdayService(), prod.Code)
		}
	}
	return p.Err()
}

// EstimateDeliveryTime answers q (checked by CheckEstimate) by the model
// of the package's promise table (see estimateDeliveryTime).
func (Network) EstimateDeliveryTime(q parcelgate.EstimateRequest) time.Time {
	return estimateDeliveryTime(q)
}

// estimateDeliveryTime is the model: a parcel leaves on the day it is
// handed over when that is a working day and it is handed over before the
// product's cut-off for its logistic phase (dropped off at an outlet, or
// picked up from the sender), else on the next working day; it is then
// delivered on the product's promised number of delivery days later —
// more to and from the postal code areas the table names, or by country
// abroad — at the product's time of delivery. Working days are Monday to
// Friday except Finnish public holidays (parcelgate.FinnishHoliday); with
// Saturday service (3106) on a product that has it, a Saturday that is no
// holiday is a delivery day too, delivered at the product's Saturday
// time. The time is in Finnish time.
func estimateDeliveryTime(q parcelgate.EstimateRequest) time.Time {
	prod, _ := promise(q.Product)
	local := parcelgate.FinnishTime(q.At)
	day := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, time.UTC)
	cutoff := clockMinutes(prod.Cutoffs[q.Phase])
	if !parcelgate.WorkingDay(day) || local.Hour()*60+local.Minute() >= cutoff {
		day = nextDay(day, parcelgate.WorkingDay)
	}
	days := prod.Days + areaExtraDays(q.FromPostcode)
	if q.ToCountry == "FI" {
		days += areaExtraDays(q.ToPostcode)
	} else if n, ok := promises().Countries[q.ToCountry]; ok {
		days += n
	} else {
		days += promises().OtherCountryDays
	}
	deliveryDay := parcelgate.WorkingDay
	if prod.SaturdayAt != "" && slices.Contains(q.Services, saturdayService()) {
		deliveryDay = func(d time.Time) bool {
			return parcelgate.WorkingDay(d) || (d.Weekday() == time.Saturday && !parcelgate.FinnishHoliday(d))
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
		panic("pickup: data/promises.json: time " + hhmm)
	}
	return t.Hour()*60 + t.Minute()
}

func nextDay(d time.Time, ok func(time.Time) bool) time.Time {
	for d = d.AddDate(0, 0, 1); !ok(d); d = d.AddDate(0, 0, 1) {
	}
	return d
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
		if parcelgate.FinnishTime(at).Equal(wall) {
			return at.In(time.FixedZone("", int(offset.Seconds())))
		}
	}
	return wall.Add(-2 * time.Hour).In(time.FixedZone("", 2*3600))
}

// DefaultDeparturePostalCode is where a parcel leaves from when the search
// does not say: the sandbox's warehouse, in Vantaa.
const DefaultDeparturePostalCode = "01300"

// departureArea is the area a parcel leaves from: the given Finnish postal
// code's, else the warehouse's.
func departureArea(countryFrom, postalCodeFrom string) parcelgate.PostalArea {
	if (countryFrom == "" || countryFrom == "FI") && postalCodeFrom != "" {
		if a, ok := areaOfPostalCode("FI", postalCodeFrom); ok {
			return a
		}
	}
	a, _ := areaOfPostalCode("FI", DefaultDeparturePostalCode)
	return a
}

// abroadExtraDays is what a parcel handed over abroad takes on top of its
// promise from the departure area: it travels to Finland first.
const abroadExtraDays = 2

// EstimateDelivery returns the date (Finnish time, at midnight UTC) a
// parcel handed over at now in the area from (in countryFrom; "" is
// Finland) reaches the point p: the delivery time estimate's model
// (estimateDeliveryTime, decisions §19) for a Postal Parcel (2103) dropped
// off in from's postal code area (to a point abroad, with the promise
// table's days for its country: decisions §36), with abroadExtraDays
// working days more from abroad. One model answers the checkout's date
// and the estimation API.
func EstimateDelivery(now time.Time, from parcelgate.PostalArea, countryFrom string, p parcelgate.PickupPoint) time.Time {
	at := parcelgate.FinnishTime(estimateDeliveryTime(parcelgate.EstimateRequest{
		FromPostcode: from.PostalCode, FromCountry: "FI", ToPostcode: p.PostalCode, ToCountry: p.Country,
		Product: parcelgate.ServiceToPickupPoint, At: now, Phase: parcelgate.PhaseDroppedOff,
	}))
	day := time.Date(at.Year(), at.Month(), at.Day(), 0, 0, 0, 0, time.UTC)
	if countryFrom != "" && countryFrom != "FI" {
		for range abroadExtraDays {
			day = nextDay(day, parcelgate.WorkingDay)
		}
	}
	return day
}

var (
	glnPattern         = regexp.MustCompile(`^[0-9]{13}$`)
	productCodePattern = regexp.MustCompile(`^[0-9A-Z]{2,10}$`)
	serviceCodePattern = regexp.MustCompile(`^[0-9A-Z]{2,10}$`)
)

// PlanGatewayEstimate checks the gateway's estimate object e and makes it
// the model's request (see parcelgate.DeliveryEstimator). The model
// promises what it knows: a product of its promise table, from a Finnish
// postal code (given as such, or as the postal code of a pick-up point)
// to a postal code. A place given only by its GLN, a product the table
// lacks, or an origin abroad are no request errors, but nothing the model
// can promise.
func (n Network) PlanGatewayEstimate(e parcelgate.GatewayEstimate, prefix, pointPostcode, pupField string) (q parcelgate.EstimateRequest, promised bool, err error) {
	var p parcelgate.Problems
	at, ok := parcelgate.ParseEstimateTime(strings.TrimSpace(e.Time))
	switch {
	case strings.TrimSpace(e.Time) == "":
		p.Add(prefix+"time", "is required: when the parcel is handed over, as an ISO 8601 time with its offset")
	case !ok:
		p.Add(prefix+"time", "must be an ISO 8601 time with its offset, such as 2026-03-13T10:00:00Z, not %q", e.Time)
	}
	code := strings.ToUpper(strings.TrimSpace(e.ProductCode))
	switch {
	case code == "":
		p.Add(prefix+"product.code", "is required")
	case !productCodePattern.MatchString(code):
		p.Add(prefix+"product.code", "must be a product code such as 2103, not %q", e.ProductCode)
	}
	var services []string
	for _, s := range e.AdditionalServices {
		s = strings.ToUpper(strings.TrimSpace(s))
		if !serviceCodePattern.MatchString(s) {
			p.Add(prefix+"product.additionalServicesCodes", "%q is not an additional service code such as 3106", s)
		} else if s == saturdayService() {
			// The one additional service the model counts.
			services = append(services, s)
		}
	}
	from, fromOK := n.resolvePlace(&p, prefix+"origin", e.Origin, pupField)
	to, toOK := parcelgate.EstimatePlace{CountryCode: "FI", Postcode: pointPostcode}, true
	if pointPostcode == "" {
		to, toOK = n.resolvePlace(&p, prefix+"destination", e.Destination, "pupCode")
	}
	if err := p.Err(); err != nil {
		return parcelgate.EstimateRequest{}, false, err
	}
	phase := parcelgate.PhaseDroppedOff
	if strings.EqualFold(strings.TrimSpace(e.Phase), parcelgate.PhasePickedUp) {
		phase = parcelgate.PhasePickedUp
	}
	q = parcelgate.EstimateRequest{FromPostcode: from.Postcode, FromCountry: from.CountryCode, ToPostcode: to.Postcode, ToCountry: to.CountryCode,
		Product: code, At: at, Phase: phase, Services: services}
	if _, known := promise(code); !known || !fromOK || !toOK || q.FromCountry != "FI" {
		return q, false, nil
	}
	names := parcelgate.EstimateFields{FromPostcode: prefix + "origin.postcode", FromCountry: prefix + "origin.countryCode",
		ToPostcode: prefix + "destination.postcode", ToCountry: prefix + "destination.countryCode", Product: prefix + "product.code",
		Phase: prefix + "context.logisticsPhase.event", Services: prefix + "product.additionalServicesCodes"}
	if err := n.CheckEstimate(&q, names); err != nil {
		return parcelgate.EstimateRequest{}, false, err
	}
	return q, true, nil
}

// resolvePlace checks a place (required; a country and exactly one of
// postcode, pupCode or gln) and returns it with a pick-up point read as
// its postal code. ok is false for a place given by GLN only: the model
// knows no GLNs.
func (n Network) resolvePlace(p *parcelgate.Problems, field string, pl *parcelgate.EstimatePlace, pupField string) (parcelgate.EstimatePlace, bool) {
	if pl == nil {
		p.Add(field, "is required: countryCode and one of postcode, %s or gln", pupField)
		return parcelgate.EstimatePlace{}, false
	}
	out := parcelgate.EstimatePlace{CountryCode: strings.ToUpper(strings.TrimSpace(pl.CountryCode)), Postcode: strings.ToUpper(strings.TrimSpace(pl.Postcode)),
		PupCode: strings.TrimSpace(pl.PupCode), GLN: strings.TrimSpace(pl.GLN)}
	if !parcelgate.IsCountryCode(out.CountryCode) {
		p.Add(field+".countryCode", "is required: a two-letter country code (ISO 3166), not %q", pl.CountryCode)
	}
	given := 0
	for _, v := range []string{out.Postcode, out.PupCode, out.GLN} {
		if v != "" {
			given++
		}
	}
	if given != 1 {
		p.Add(field, "give exactly one of postcode, %s or gln", pupField)
		return out, false
	}
	switch {
	case out.Postcode != "" && out.CountryCode == "FI" && !parcelgate.IsFinnishPostalCode(out.Postcode):
		p.Add(field+".postcode", "must be a Finnish postal code of 5 digits, not %q", out.Postcode)
	case out.Postcode != "" && !parcelgate.IsPostalCode(out.Postcode):
		p.Add(field+".postcode", "must be a postal code of 2-10 letters, digits, spaces and dashes, not %q", out.Postcode)
	case out.PupCode != "":
		pt, ok := n.FindPickupPoint(out.PupCode)
		if !ok || pt.Country != out.CountryCode {
			p.Add(field+"."+pupField, "no pick-up point %q in %s", out.PupCode, out.CountryCode)
			return out, false
		}
		out.Postcode = pt.PostalCode
	case out.GLN != "":
		if !glnPattern.MatchString(out.GLN) {
			p.Add(field+".gln", "must be a GLN of 13 digits, not %q", out.GLN)
		}
		return out, false
	}
	return out, true
}
