package parcelgate

import (
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// Pick-up points are the location service behind interface §2.3's pickupPointId
// (the location service's pupCode): where a 2103 parcel (postal parcel to
// an outlet or parcel locker) can be collected. The root holds what a
// point is, the searches' inputs and their checks, and the decisions that
// read points (PickupPointForOrder, ShippingPickupPoint); the network
// itself — the embedded data set, its search engine and the estimate
// model — is package pickup's, reached only through PickupPointFinder and
// DeliveryEstimator, which the wiring hands to whoever reads them. A
// point's ID is the provider's form: 9 digits, its postal code and its
// routing service code (001003200).

// ServiceToPickupPoint is the service code that delivers to a pick-up
// point: postal parcel to an outlet or parcel locker (interface §2.3).
const ServiceToPickupPoint = "2103"

// Types of pick-up point.
const (
	PointPostOffice   = "POST_OFFICE"   // a post office, with staff
	PointPickupShop   = "PICKUP_POINT"  // a shop that hands out parcels (the provider's agent)
	PointParcelLocker = "PARCEL_LOCKER" // a self-service parcel locker, indoors or out
)

// Capabilities of a pick-up point, as the data set and the ecom search's
// capability filter name them.
const (
	CapabilityOutdoors         = "outdoors"             // stands outdoors (a locker)
	CapabilityCashOnDelivery   = "cashOnDelivery"       // collects cash-on-delivery payments
	CapabilityParcelPickup     = "parcelPickup"         // hands parcels out
	CapabilityParcelDropoff    = "parcelDropoff"        // takes parcels in
	CapabilityLockerReservable = "lockerReservable"     // a compartment can be reserved
	CapabilityWheelchair       = "wheelchairAccessible" // reachable by wheelchair
	CapabilityADR              = "adrLimitedQuantities" // takes dangerous goods in limited quantities
	CapabilitySaturdayDelivery = "saturdayDelivery"     // parcels arrive on Saturdays
)

// OpeningHours are the hours of one weekday, "HH:MM"; a locker open round
// the clock is open from 00:00 to 24:00.
type OpeningHours struct {
	Day    string `json:"day"`
	Opens  string `json:"opens"`
	Closes string `json:"closes"`
}

// PickupPoint is a place a parcel can be collected from, as the warehouse
// plugin reads it: it offers "serviceProvider: name (streetAddress)" with
// the estimated delivery date, and keeps externalId as the order's
// pickupPointId. The unexported-in-JSON fields are what the gateway's
// point object (ProviderPickupPoint) is made of.
type PickupPoint struct {
	ExternalID string `json:"externalId"`
	// PupCode is the location service's name for ExternalID (interface §2.3).
	PupCode         string         `json:"pupCode"`
	Name            string         `json:"name"`
	Type            string         `json:"type"`
	ServiceProvider string         `json:"serviceProvider"`
	StreetAddress   string         `json:"streetAddress"`
	PostalCode      string         `json:"postalCode"`
	PostOffice      string         `json:"postOffice"`
	Country         string         `json:"country"`
	Latitude        float64        `json:"latitude"`
	Longitude       float64        `json:"longitude"`
	Capabilities    []string       `json:"capabilities"`
	ServiceCodes    []string       `json:"serviceCodes"`
	OpeningHours    []OpeningHours `json:"openingHours"`
	// Distance is in metres from the searched area's centre; absent when
	// the search named no place.
	Distance *int `json:"distance,omitempty"`
	// Estimation is the estimated delivery date (yyyy-mm-dd) of a parcel
	// handed over now (see EstimateDelivery).
	Estimation string `json:"estimation"`

	// RoutingServiceCode is the last 4 digits of the ID.
	RoutingServiceCode string `json:"-"`
	// RoutingPostcode is the postal code parcels to the point are routed
	// by: a locker's own (SmartPOST) code, else the area's.
	RoutingPostcode string `json:"-"`
	// Host is the shop a pick-up shop or indoor locker stands in.
	Host string      `json:"-"`
	Area *PostalArea `json:"-"`
}

// OpenAroundTheClock reports whether p is open every day from 00:00 to
// 24:00 (an outdoor locker).
func (p PickupPoint) OpenAroundTheClock() bool {
	if len(p.OpeningHours) != 7 {
		return false
	}
	for _, h := range p.OpeningHours {
		if h.Opens != "00:00" || h.Closes != "24:00" {
			return false
		}
	}
	return true
}

// PostalArea is an ordinary postal code area of the data set and the
// point it is placed at.
type PostalArea struct {
	// Country is the area's country (ISO 3166 alpha-2); "" is Finland.
	Country        string  `json:"country,omitempty"`
	PostalCode     string  `json:"postalCode"`
	PostOffice     string  `json:"postOffice"`
	PostOfficeSv   string  `json:"postOfficeSv,omitempty"`
	Municipality   string  `json:"municipality"`
	MunicipalitySv string  `json:"municipalitySv,omitempty"`
	Latitude       float64 `json:"latitude"`
	Longitude      float64 `json:"longitude"`
}

// Limits and defaults of a pick-up point search.
const (
	DefaultPickupLimit = 20
	MaxPickupLimit     = 100
	// MaxPickupText is the longest text a search field takes, in
	// characters.
	MaxPickupText = 200
)

// PickupQuery is a search for pick-up points: the plugin's two calls, near
// an address (PostalCode, PostOffice, StreetAddress, Country) or by free
// text (Search), narrowed by service, type and capability. CountryFrom and
// PostalCodeFrom say where the parcel leaves from, for the estimate.
type PickupQuery struct {
	ServiceCodes   []string // any of these
	PostalCode     string
	PostOffice     string
	StreetAddress  string
	Country        string // default FI
	Search         string
	Types          []string // each a type, or "!type" to leave it out
	Capabilities   []string // each a capability to have, or "!capability" to lack
	CountryFrom    string
	PostalCodeFrom string
	Limit          int // default DefaultPickupLimit
}

var (
	countryPattern    = regexp.MustCompile(`^[A-Z]{2}$`)
	finnishPostalCode = regexp.MustCompile(`^[0-9]{5}$`)
	foreignPostalCode = regexp.MustCompile(`^[A-Z0-9][A-Z0-9 -]{1,9}$`)
	pickupKeyword     = regexp.MustCompile(`^!?[A-Za-z_]{1,40}$`)
)

// IsCountryCode reports whether s is a two-letter country code (ISO 3166
// alpha-2, upper case).
func IsCountryCode(s string) bool { return countryPattern.MatchString(s) }

// IsFinnishPostalCode reports whether s is a Finnish postal code: 5 digits.
func IsFinnishPostalCode(s string) bool { return finnishPostalCode.MatchString(s) }

// IsPostalCode reports whether s has the form of a postal code abroad:
// 2-10 letters, digits, spaces and dashes, starting with a letter or digit
// (upper case).
func IsPostalCode(s string) bool { return foreignPostalCode.MatchString(s) }

// Validate normalizes q and checks it: service codes of interface §2.3's table,
// ISO country codes, postal codes of their country's form, bounded text,
// and a place or a search text to look near. Each problem names its query
// parameter.
func (q *PickupQuery) Validate() error {
	var p Problems
	for i, c := range q.ServiceCodes {
		q.ServiceCodes[i] = strings.ToUpper(strings.TrimSpace(c))
		if !ValidServiceCode(q.ServiceCodes[i]) {
			p.Add("serviceCode", "%q is not a service code of the service list", c)
		}
	}
	q.Country = strings.ToUpper(strings.TrimSpace(q.Country))
	if q.Country == "" {
		q.Country = "FI"
	} else if !countryPattern.MatchString(q.Country) {
		p.Add("country", "must be a two-letter country code (ISO 3166), not %q", q.Country)
	}
	q.CountryFrom = strings.ToUpper(strings.TrimSpace(q.CountryFrom))
	if q.CountryFrom != "" && !countryPattern.MatchString(q.CountryFrom) {
		p.Add("countryFrom", "must be a two-letter country code (ISO 3166), not %q", q.CountryFrom)
	}
	checkPostal := func(field string, code *string, country string) {
		*code = strings.ToUpper(strings.TrimSpace(*code))
		switch {
		case *code == "":
		case country == "FI" || country == "":
			if !finnishPostalCode.MatchString(*code) {
				p.Add(field, "must be a Finnish postal code of 5 digits, not %q", *code)
			}
		case !foreignPostalCode.MatchString(*code):
			p.Add(field, "must be a postal code of 2-10 letters, digits, spaces and dashes, not %q", *code)
		}
	}
	checkPostal("postalCode", &q.PostalCode, q.Country)
	checkPostal("postalCodeFrom", &q.PostalCodeFrom, q.CountryFrom)
	for _, t := range []struct {
		field string
		v     *string
	}{{"postOffice", &q.PostOffice}, {"streetAddress", &q.StreetAddress}, {"search", &q.Search}} {
		*t.v = strings.TrimSpace(*t.v)
		if utf8.RuneCountInString(*t.v) > MaxPickupText {
			p.Add(t.field, "must be at most %d characters", MaxPickupText)
		}
	}
	for _, t := range []struct {
		field string
		vals  []string
	}{{"type", q.Types}, {"capability", q.Capabilities}} {
		for i, v := range t.vals {
			t.vals[i] = strings.TrimSpace(v)
			if !pickupKeyword.MatchString(t.vals[i]) {
				p.Add(t.field, "%q is not a %s; give names such as %s, each optionally preceded by ! to leave it out", v, t.field, map[string]string{"type": "PARCEL_LOCKER", "capability": "outdoors"}[t.field])
			}
		}
	}
	switch {
	case q.Limit == 0:
		q.Limit = DefaultPickupLimit
	case q.Limit < 1 || q.Limit > MaxPickupLimit:
		p.Add("limit", "must be from 1 to %d", MaxPickupLimit)
	}
	if q.PostalCode == "" && q.PostOffice == "" && q.StreetAddress == "" && q.Search == "" {
		p.Add("postalCode", "give postalCode, postOffice or streetAddress to search near, or search to search by text")
	}
	return p.Err()
}

// PickupPointLookup is what the root's decisions read of the pick-up
// point network: a point by its ID, and the nearest point of a service.
type PickupPointLookup interface {
	// FindPickupPoint returns the point whose externalId (pupCode) is id:
	// its 9-digit ID, or for one more release the 7-digit ID of
	// parcelgate's former data set, which names its successor (decisions
	// §32); false when there is none.
	FindPickupPoint(id string) (PickupPoint, bool)
	// NearestPickupPoint returns the point nearest to the centre of the
	// area of a Finnish postal code that serves serviceCode; false when the
	// postal code is not a Finnish one or no point serves the code.
	NearestPickupPoint(postalCode, serviceCode string) (PickupPoint, bool)
	// HoldsPickupPoints says whether the network holds the points of a
	// country (ISO 3166 alpha-2, upper case): an ID of a country it does
	// not hold is a partner network's, which parcelgate cannot check.
	HoldsPickupPoints(country string) bool
}

// PickupPointFinder finds pick-up points: the one source of points every
// surface and decision reads. The points are the provider's network, the
// same for every tenant and environment (reference data, not a tenant's),
// so anyone who may read locations may read all of them. Package pickup
// implements it over the data set compiled into the binary, and the wiring
// hands it to the front ends; it reads memory only, so its calls take no
// context and cannot fail.
type PickupPointFinder interface {
	PickupPointLookup
	// QueryPickupPoints answers the ecom search q (validated by
	// PickupQuery.Validate) at now: the points that serve any of its
	// service codes, are of its types and have its capabilities, nearest
	// first to the place it names (its postal code's area; else its town;
	// else a postal code or town found in its street address or search
	// text). A search text that names no place matches the points whose
	// name or address contains each of its words, in name order. Each
	// point carries the estimated delivery date of a parcel handed over
	// now. Points of another country than q.Country are never answered.
	QueryPickupPoints(q PickupQuery, now time.Time) []PickupPoint
	// SearchPickupPoints answers the gateway's search s (validated by
	// PickupSearch.Validate): the points it keeps, nearest first with
	// their distance for the searches near a place, else in ID order; at
	// most s.Limit. A search near a place the data set cannot locate finds
	// nothing: an empty list, as the provider answers no match.
	SearchPickupPoints(s PickupSearch) []PickupPoint
	// ListPickupPoints answers one page of a country's points (l from
	// ParsePickupList), in ID order: the points whose IDs start with its
	// prefix after l.After, at most PickupPageSize, and whether more
	// follow.
	ListPickupPoints(l PickupList) (points []PickupPoint, more bool)
}

// FinnishTime is t in Finnish time (see finnishTime): a UTC time showing
// the Finnish wall clock.
func FinnishTime(t time.Time) time.Time { return finnishTime(t) }

// finnishTime is t in Finnish time (EET, UTC+2; EEST, UTC+3, from the last
// Sunday of March 01:00 UTC to the last Sunday of October 01:00 UTC, the
// EU rule), as a UTC time with the local wall clock, so the root needs no
// time zone database.
func finnishTime(t time.Time) time.Time {
	t = t.UTC()
	lastSunday := func(month time.Month) time.Time {
		d := time.Date(t.Year(), month+1, 1, 1, 0, 0, 0, time.UTC).AddDate(0, 0, -1)
		for d.Weekday() != time.Sunday {
			d = d.AddDate(0, 0, -1)
		}
		return d
	}
	offset := 2 * time.Hour
	if !t.Before(lastSunday(time.March)) && t.Before(lastSunday(time.October)) {
		offset = 3 * time.Hour
	}
	return t.Add(offset)
}

// PickupPointForOrder decides the pick-up point of an order (interface §2.3
// pickupPointId, optional) from the network points: a named point must
// exist, else a problem on the field pickupPointId; an order of service
// 2103 that names none goes to the point nearest the centre of its
// delivery address's postal code area (when that is a Finnish postal
// code); any other order keeps none. It returns the point's 9-digit
// externalId (a former 7-digit ID is read as its successor's), or "".
func PickupPointForOrder(points PickupPointLookup, serviceCode, pickupPointID, deliveryPostalCode, deliveryCountry string) (string, error) {
	if id := strings.TrimSpace(pickupPointID); id != "" {
		pt, ok := points.FindPickupPoint(id)
		if !ok {
			var p Problems
			p.Add("pickupPointId", "no pick-up point %q exists; search the pick-up points for one", id)
			return "", p.Err()
		}
		return pt.ExternalID, nil
	}
	country := strings.ToUpper(strings.TrimSpace(deliveryCountry))
	if serviceCode != ServiceToPickupPoint || (country != "" && country != "FI") {
		return "", nil
	}
	if p, ok := points.NearestPickupPoint(deliveryPostalCode, serviceCode); ok {
		return p.ExternalID, nil
	}
	return "", nil
}
