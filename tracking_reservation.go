package parcelgate

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Reservations (decisions §39): the Tracking API's GET
// /tracking/7/reservations/status. The provider lists the operation with
// its parameters (from and to, a delivery window; the destination's
// country; postcode, a list; optionally product and service lists, a
// product written "2182:3122" for a product with an additional service)
// and its answer ({"reservations":[{from, to, count, trackingNumbers}]}),
// and restricts it. What it counts is parcelgate's decision: the caller's
// own parcels due at a destination in the window — ready at a pick-up
// point there, or delivered to an address there — one reservation per day
// of the window, so that a shop or a pick-up point host can plan the
// parcels coming to its postcodes.

// Limits of a reservation query.
const (
	// MaxReservationWindow bounds from-to, as event/date's window is.
	MaxReservationWindow = 31 * 24 * time.Hour
	// MaxReservationPostcodes bounds the postcode list, as the Tracking
	// API bounds its other lists.
	MaxReservationPostcodes = 100
)

// ReservationQuery asks which of the caller's parcels are due at
// destinations in Country with one of Postcodes, in [From, To).
type ReservationQuery struct {
	From, To  time.Time
	Country   string
	Postcodes []string
	// Products are service codes, each optionally with an additional
	// service ("2103", "2103:3101"); a parcel matches one of them.
	Products []string
	// Services are additional service codes; a parcel's shipment carries
	// one of them.
	Services []string
}

var (
	reservationCountry  = regexp.MustCompile(`^[A-Z]{2}$`)
	reservationFinnish  = regexp.MustCompile(`^[0-9]{5}$`)
	reservationPostcode = regexp.MustCompile(`^[A-Z0-9][A-Z0-9 -]{1,9}$`)
	reservationProduct  = regexp.MustCompile(`^[0-9]{4}(:[0-9]{4})?$`)
	reservationService  = regexp.MustCompile(`^[0-9]{4}$`)
)

// listValues splits each value at commas (the provider's examples write a
// list as "02100,02110,02140"; a repeated parameter is read too), trimmed,
// empty items left out.
func listValues(values []string) []string {
	var out []string
	for _, v := range values {
		for item := range strings.SplitSeq(v, ",") {
			if item = strings.TrimSpace(item); item != "" {
				out = append(out, item)
			}
		}
	}
	return out
}

// ParseReservationQuery reads the reservation query's parameters, each
// problem named by its parameter: from and to are required RFC 3339
// times, to after from and at most 31 days later; country a required
// two-letter code; postcode 1-100 postal codes (5 digits in Finland); each
// product a 4-digit service code, optionally ":" and a 4-digit additional
// service; each service a 4-digit additional service.
func ParseReservationQuery(from, to, country string, postcodes, products, services []string) (ReservationQuery, error) {
	var q ReservationQuery
	var p Problems
	for _, t := range []struct {
		name, v string
		at      *time.Time
	}{{"from", from, &q.From}, {"to", to, &q.To}} {
		v := strings.TrimSpace(t.v)
		at, err := time.Parse(time.RFC3339, v)
		switch {
		case v == "":
			p.Add(t.name, "is required: an RFC 3339 time (the delivery window's start or end)")
		case err != nil:
			p.Add(t.name, "must be an RFC 3339 time, not %q", t.v)
		}
		*t.at = at
	}
	if p.Len() == 0 {
		switch {
		case !q.To.After(q.From):
			p.Add("to", "must be after from")
		case q.To.Sub(q.From) > MaxReservationWindow:
			p.Add("to", "must be at most 31 days after from")
		}
	}
	q.Country = strings.ToUpper(strings.TrimSpace(country))
	switch {
	case q.Country == "":
		p.Add("country", "is required: the destination's two-letter country code")
	case !reservationCountry.MatchString(q.Country):
		p.Add("country", "must be a two-letter country code (ISO 3166), not %q", country)
	}
	pcs := listValues(postcodes)
	switch {
	case len(pcs) == 0:
		p.Add("postcode", "is required: 1 to %d postal codes, comma-separated", MaxReservationPostcodes)
	case len(pcs) > MaxReservationPostcodes:
		p.Add("postcode", "at most %d postal codes, not %d", MaxReservationPostcodes, len(pcs))
	default:
		for _, pc := range pcs {
			pc = strings.ToUpper(pc)
			switch {
			case q.Country == "FI" && !reservationFinnish.MatchString(pc):
				p.Add("postcode", "%q is not a Finnish postal code of 5 digits", pc)
			case !reservationPostcode.MatchString(pc):
				p.Add("postcode", "%q is not a postal code: 2-10 letters, digits, spaces and dashes", pc)
			case !slices.Contains(q.Postcodes, pc):
				q.Postcodes = append(q.Postcodes, pc)
			}
		}
	}
	for _, v := range listValues(products) {
		if !reservationProduct.MatchString(v) {
			p.Add("product", "%q is not a product: a 4-digit service code, optionally with :and a 4-digit additional service (2103, 2103:3101)", v)
		}
		q.Products = append(q.Products, v)
	}
	for _, v := range listValues(services) {
		if !reservationService.MatchString(v) {
			p.Add("service", "%q is not an additional service: 4 digits", v)
		}
		q.Services = append(q.Services, v)
	}
	return q, p.Err()
}

// Reservation is one day of a reservation answer: the caller's parcels due
// in [From, To), by their numbers.
type Reservation struct {
	From, To        time.Time
	TrackingNumbers []string
}

// ReservationDays splits q's window at Finnish midnights: one reservation
// a day, the first and the last cut to the window.
func (q ReservationQuery) ReservationDays() []Reservation {
	var out []Reservation
	for from := q.From; from.Before(q.To); {
		local := finnishTime(from)
		next := time.Date(local.Year(), local.Month(), local.Day()+1, 0, 0, 0, 0, time.UTC)
		// next is the next Finnish midnight as a wall-clock time; back to
		// an instant by the offset in force then.
		end := next.Add(-finnishTime(next).Sub(next.UTC()))
		if end.After(q.To) || !end.After(from) {
			end = q.To
		}
		out = append(out, Reservation{From: from, To: end, TrackingNumbers: []string{}})
		from = end
	}
	return out
}

// matches reports whether shipment sh is of a product and carries a
// service q asks for (any when q names none).
func (q ReservationQuery) matches(sh *Shipment) bool {
	if len(q.Products) > 0 && !slices.ContainsFunc(q.Products, func(p string) bool {
		code, addon, with := strings.Cut(p, ":")
		return code == sh.ServiceCode && (!with || slices.Contains(sh.AdditionalServices, addon))
	}) {
		return false
	}
	return len(q.Services) == 0 || slices.ContainsFunc(q.Services, func(s string) bool { return slices.Contains(sh.AdditionalServices, s) })
}

// CountReservations answers q (parsed) over ps, the caller's own parcels
// that can be due in the window, as of now: each parcel whose destination
// — its pick-up point, else its receiver — is in q.Country at one of
// q.Postcodes, of a product and service q asks for, and whose journey
// (ParcelTimeline) has it there in the window (Due: ready for pick-up, or
// delivered to the address; already or, by the estimate, to come) is in
// the day's reservation, earliest first. A parcel the operator moved
// before it got there is due nowhere. Days without parcels are kept, with
// a count of 0. The points are read from points, the journeys' estimates
// from est.
func CountReservations(points PickupPointLookup, est DeliveryEstimator, q ReservationQuery, ps []TrackedParcel, now time.Time) []Reservation {
	days := q.ReservationDays()
	type due struct {
		at     time.Time
		number string
	}
	byDay := make([][]due, len(days))
	for _, tp := range ps {
		sh := tp.Shipment
		var point *PickupPoint
		country, postcode := orFI(sh.Receiver.Country), strings.ToUpper(strings.TrimSpace(sh.Receiver.PostalCode))
		if pt, ok := points.FindPickupPoint(sh.PickupPointID); ok && sh.PickupPointID != "" {
			point = &pt
			country, postcode = orFI(pt.Country), pt.PostalCode
		}
		if country != q.Country || !slices.Contains(q.Postcodes, postcode) || !q.matches(sh) {
			continue
		}
		at := ParcelTimeline(est, sh.Environment, sh, point, tp.Moves, now).Due
		if at.IsZero() || at.Before(q.From) || !at.Before(q.To) {
			continue
		}
		i := slices.IndexFunc(days, func(d Reservation) bool { return !at.Before(d.From) && at.Before(d.To) })
		byDay[i] = append(byDay[i], due{at, tp.Parcel.ParcelID})
	}
	for i, ds := range byDay {
		slices.SortFunc(ds, func(a, b due) int { return cmp.Or(a.at.Compare(b.at), cmp.Compare(a.number, b.number)) })
		for _, d := range ds {
			days[i].TrackingNumbers = append(days[i].TrackingNumbers, d.number)
		}
	}
	return days
}
