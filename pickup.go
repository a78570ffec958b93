package parcelgate

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/json"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Pick-up points are the location service behind interface §2.3's pickupPointId
// (the location service's pupCode): where a 2103 parcel (postal parcel to
// an outlet or parcel locker) can be collected. parcelgate ships a national
// data set (data/pickuppoints.json.gz, written by internal/pickupgen from
// the provider's public postal code file and the GeoNames gazetteer;
// decisions §32): every Finnish postal code area, and some 3,100 post
// offices, pick-up shops, indoor and outdoor parcel lockers. The postal
// codes, their names and municipalities and the lockers' routing postcodes
// are real; positions are derived from the places the codes are named
// after, and the points' streets and hosts are generated, so the set is
// realistic and the same on every run, but it is not the provider's
// network. A point's ID is the provider's form: 9 digits, its postal code
// and its routing service code (001003200). The same table of areas
// locates a searched postal code or town: distances are from the centre of
// the searched area, not from a street address.

//go:generate go run ./internal/pickupgen

//go:embed data/pickuppoints.json.gz
var pickupDataGzip []byte

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
	Host     string      `json:"-"`
	Area     *PostalArea `json:"-"`
	hours    string
	text     string  // see searchText
	cosLat   float64 // for flatMetres
	features uint16  // see featureBits
}

// PostalArea is an ordinary postal code area of the data set and the
// point it is placed at.
type PostalArea struct {
	PostalCode     string  `json:"postalCode"`
	PostOffice     string  `json:"postOffice"`
	PostOfficeSv   string  `json:"postOfficeSv,omitempty"`
	Municipality   string  `json:"municipality"`
	MunicipalitySv string  `json:"municipalitySv,omitempty"`
	Latitude       float64 `json:"latitude"`
	Longitude      float64 `json:"longitude"`
}

// pickupPointJSON is a point as the data set writes it.
type pickupPointJSON struct {
	ID              string   `json:"id"`
	Type            string   `json:"type"`
	Host            string   `json:"host"`
	Street          string   `json:"street"`
	PostalCode      string   `json:"postalCode"`
	RoutingPostcode string   `json:"routingPostcode"`
	Latitude        float64  `json:"latitude"`
	Longitude       float64  `json:"longitude"`
	Hours           string   `json:"hours"`
	Capabilities    []string `json:"capabilities"`
	ServiceCodes    []string `json:"serviceCodes"`
}

type pickupDataSet struct {
	Attribution  string                    `json:"attribution"`
	OpeningHours map[string][]OpeningHours `json:"openingHours"`
	Areas        []PostalArea              `json:"areas"`
	RawPoints    []pickupPointJSON         `json:"points"`
	LegacyIDs    map[string]string         `json:"legacyIds"`
	// Points are in ID order, which is postal code order.
	Points []PickupPoint `json:"-"`
	byID   map[string]int
	area   map[string]int
}

// pickupData is the embedded data set, read once. It is checked by tests;
// a broken file is a build defect, so reading it panics.
var pickupData = sync.OnceValue(func() *pickupDataSet {
	zr, err := gzip.NewReader(bytes.NewReader(pickupDataGzip))
	if err != nil {
		panic("parcelgate: data/pickuppoints.json.gz: " + err.Error())
	}
	var ds pickupDataSet
	if err := json.NewDecoder(zr).Decode(&ds); err != nil {
		panic("parcelgate: data/pickuppoints.json.gz: " + err.Error())
	}
	ds.area = make(map[string]int, len(ds.Areas))
	for i, a := range ds.Areas {
		ds.area[a.PostalCode] = i
	}
	ds.byID = make(map[string]int, len(ds.RawPoints))
	ds.Points = make([]PickupPoint, len(ds.RawPoints))
	for i, r := range ds.RawPoints {
		a := &ds.Areas[ds.area[r.PostalCode]]
		p := PickupPoint{
			ExternalID: r.ID, PupCode: r.ID, Type: r.Type, ServiceProvider: DeliveryOperator,
			StreetAddress: r.Street, PostalCode: r.PostalCode, PostOffice: a.PostOffice, Country: "FI",
			Latitude: r.Latitude, Longitude: r.Longitude, Capabilities: r.Capabilities, ServiceCodes: r.ServiceCodes,
			OpeningHours: ds.OpeningHours[r.Hours], RoutingServiceCode: r.ID[5:], RoutingPostcode: r.RoutingPostcode,
			Host: r.Host, Area: a, hours: r.Hours,
		}
		if p.RoutingPostcode == "" {
			p.RoutingPostcode = p.PostalCode
		}
		p.Name = p.PublicName("fi")
		p.text = p.makeSearchText()
		p.cosLat = math.Cos(p.Latitude * math.Pi / 180)
		p.features = p.featureBits()
		ds.Points[i] = p
		ds.byID[r.ID] = i
	}
	ds.RawPoints = nil
	return &ds
})

// AllPickupPoints is every point of the data set, in ID order. The slice
// is shared: callers must not change it.
func AllPickupPoints() []PickupPoint { return pickupData().Points }

// Limits and defaults of a pick-up point search.
const (
	DefaultPickupLimit = 20
	MaxPickupLimit     = 100
	maxPickupText      = 200
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
	postalCodeInText  = regexp.MustCompile(`\b[0-9]{5}\b`)
)

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
		if utf8.RuneCountInString(*t.v) > maxPickupText {
			p.Add(t.field, "must be at most %d characters", maxPickupText)
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

// SearchPickupPoints answers q (validated) at now: the points that serve
// any of its service codes, are of its types and have its capabilities,
// nearest first to the place it names (its postal code's area; else its
// town; else a postal code or town found in its street address or search
// text). A search text that names no place matches the points whose name
// or address contains each of its words, in name order. Each point carries
// the estimated delivery date of a parcel handed over now. Points of
// another country than q.Country are never answered (the data set is
// Finland's). Anyone who may read locations may search
// (ActionReadLocations).
func SearchPickupPoints(q PickupQuery, now time.Time) []PickupPoint {
	ds := pickupData()
	var words []string
	at, located := PostalArea{}, false
	if q.Country == "FI" {
		at, located = locate(q.PostalCode, q.PostOffice, q.StreetAddress, q.Search)
	}
	if !located && q.Search != "" {
		words = strings.Fields(strings.ToLower(q.Search))
	}
	if !located && words == nil {
		return []PickupPoint{}
	}
	origin := departureArea(q.CountryFrom, q.PostalCodeFrom)
	// The matches as indexes and distances, so that only the answered
	// points are copied.
	var hits []pickupHit
	for i := range ds.Points {
		p := &ds.Points[i]
		if p.Country != q.Country || !p.matches(q) || !p.containsAll(words) {
			continue
		}
		h := pickupHit{i: int32(i)}
		if located {
			h.d = int32(distanceMetres(at.Latitude, at.Longitude, p.Latitude, p.Longitude))
		}
		hits = append(hits, h)
	}
	slices.SortFunc(hits, func(a, b pickupHit) int {
		if a.d != b.d {
			return int(a.d - b.d)
		}
		if c := strings.Compare(ds.Points[a.i].Name, ds.Points[b.i].Name); c != 0 {
			return c
		}
		return int(a.i - b.i) // ID order
	})
	out := []PickupPoint{}
	for _, h := range hits[:min(len(hits), q.Limit)] {
		p := ds.Points[h.i]
		if located {
			d := int(h.d)
			p.Distance = &d
		}
		p.Estimation = EstimateDelivery(now, origin, q.CountryFrom, p).Format(time.DateOnly)
		out = append(out, p)
	}
	return out
}

func (p *PickupPoint) matches(q PickupQuery) bool {
	if len(q.ServiceCodes) > 0 && !slices.ContainsFunc(q.ServiceCodes, func(c string) bool { return slices.Contains(p.ServiceCodes, c) }) {
		return false
	}
	var wantType bool
	typeOK := false
	for _, t := range q.Types {
		if name, neg := strings.CutPrefix(t, "!"); neg {
			if strings.EqualFold(name, p.Type) {
				return false
			}
		} else {
			wantType = true
			typeOK = typeOK || strings.EqualFold(t, p.Type)
		}
	}
	if wantType && !typeOK {
		return false
	}
	for _, c := range q.Capabilities {
		name, neg := strings.CutPrefix(c, "!")
		has := slices.ContainsFunc(p.Capabilities, func(pc string) bool { return strings.EqualFold(pc, name) })
		if has == neg {
			return false
		}
	}
	return true
}

func (p *PickupPoint) containsAll(words []string) bool {
	if len(words) == 0 {
		return true
	}
	text := p.searchText()
	for _, w := range words {
		if !strings.Contains(text, w) {
			return false
		}
	}
	return true
}

// FindPickupPoint returns the point whose externalId (pupCode) is id: its
// 9-digit ID, or for one more release the 7-digit ID of parcelgate's
// former data set, which names its successor (decisions §32).
func FindPickupPoint(id string) (PickupPoint, bool) {
	ds := pickupData()
	id = strings.TrimSpace(id)
	if next, ok := ds.LegacyIDs[id]; ok {
		id = next
	}
	i, ok := ds.byID[id]
	if !ok {
		return PickupPoint{}, false
	}
	return ds.Points[i], true
}

// NearestPickupPoint returns the point nearest to the centre of the area of
// a Finnish postal code that serves serviceCode; false when the postal code
// is not a Finnish one or no point serves the code.
func NearestPickupPoint(postalCode, serviceCode string) (PickupPoint, bool) {
	postalCode = strings.TrimSpace(postalCode)
	if !finnishPostalCode.MatchString(postalCode) {
		return PickupPoint{}, false
	}
	at, _ := areaOfPostalCode(postalCode)
	var best PickupPoint
	bestKm := math.Inf(1)
	for _, p := range pickupData().Points {
		if !slices.Contains(p.ServiceCodes, serviceCode) {
			continue
		}
		if d := distanceKm(at.Latitude, at.Longitude, p.Latitude, p.Longitude); d < bestKm || (d == bestKm && p.ExternalID < best.ExternalID) {
			best, bestKm = p, d
		}
	}
	return best, !math.IsInf(bestKm, 1)
}

// locate finds the area a search is near: its postal code's, else its
// town's, else that of a postal code or town named in the street address or
// the search text.
func locate(postalCode, postOffice, streetAddress, search string) (PostalArea, bool) {
	if postalCode != "" {
		return areaOfPostalCode(postalCode)
	}
	for _, text := range []string{postOffice, streetAddress, search} {
		if a, ok := areaOfText(text); ok {
			return a, true
		}
	}
	return PostalArea{}, false
}

// areaOfPostalCode returns the area of code, or for a code the data set
// does not list, the area sharing the longest prefix with it (Finnish
// postal codes are regional: the leading digits name the region), the
// numerically closest among equals.
func areaOfPostalCode(code string) (PostalArea, bool) {
	if i, ok := pickupData().area[code]; ok {
		return pickupData().Areas[i], true
	}
	areas := pickupData().Areas
	n, _ := strconv.Atoi(code)
	best, bestPrefix, bestGap := -1, -1, 0
	for i, a := range areas {
		prefix := 0
		for prefix < len(code) && prefix < len(a.PostalCode) && code[prefix] == a.PostalCode[prefix] {
			prefix++
		}
		m, _ := strconv.Atoi(a.PostalCode)
		gap := max(n-m, m-n)
		if prefix > bestPrefix || (prefix == bestPrefix && gap < bestGap) {
			best, bestPrefix, bestGap = i, prefix, gap
		}
	}
	return areas[best], best >= 0
}

// areaOfText finds a postal code, or the name of a town or district of the
// data set, in text.
func areaOfText(text string) (PostalArea, bool) {
	if text == "" {
		return PostalArea{}, false
	}
	if code := postalCodeInText.FindString(text); code != "" {
		return areaOfPostalCode(code)
	}
	lower := strings.ToLower(text)
	best, bestLen := -1, 0
	for _, n := range areaNames() {
		if len(n.name) > bestLen && containsWord(lower, n.name) {
			best, bestLen = n.area, len(n.name)
		}
	}
	if best < 0 {
		return PostalArea{}, false
	}
	return pickupData().Areas[best], true
}

// areaName is a town or municipality name, lower case, and the first area
// (lowest postal code) of that name.
type areaName struct {
	name string
	area int
}

// areaNames are the names the searches locate by, each once, made when
// first needed.
var areaNames = sync.OnceValue(func() []areaName {
	var out []areaName
	seen := map[string]bool{}
	for i, a := range pickupData().Areas {
		for _, name := range []string{a.PostOffice, a.PostOfficeSv, a.Municipality, a.MunicipalitySv} {
			name = strings.ToLower(name)
			if name != "" && !seen[name] {
				seen[name] = true
				out = append(out, areaName{name, i})
			}
		}
	}
	return out
})

// containsWord reports whether name occurs in text as whole words.
func containsWord(text, name string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], name)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(name)
		before, _ := utf8.DecodeLastRuneInString(text[:start])
		after, _ := utf8.DecodeRuneInString(text[end:])
		if !isLetter(before) && !isLetter(after) {
			return true
		}
		i = start + 1
	}
}

func isLetter(r rune) bool {
	return r != utf8.RuneError && (r == '-' || strings.ContainsRune("abcdefghijklmnopqrstuvwxyzåäöü", r))
}

// distanceKm is the great-circle distance between two coordinates.
func distanceKm(lat1, lon1, lat2, lon2 float64) float64 {
	const earthKm = 6371.0
	rad := math.Pi / 180
	dLat, dLon := (lat2-lat1)*rad, (lon2-lon1)*rad
	h := math.Sin(dLat/2)*math.Sin(dLat/2) + math.Cos(lat1*rad)*math.Cos(lat2*rad)*math.Sin(dLon/2)*math.Sin(dLon/2)
	return 2 * earthKm * math.Asin(math.Sqrt(min(1, h)))
}

// DefaultDeparturePostalCode is where a parcel leaves from when the search
// does not say: the sandbox's warehouse, in Vantaa.
const DefaultDeparturePostalCode = "01300"

// departureArea is the area a parcel leaves from: the given Finnish postal
// code's, else the warehouse's.
func departureArea(countryFrom, postalCodeFrom string) PostalArea {
	if (countryFrom == "" || countryFrom == "FI") && postalCodeFrom != "" {
		if a, ok := areaOfPostalCode(postalCodeFrom); ok {
			return a
		}
	}
	a, _ := areaOfPostalCode(DefaultDeparturePostalCode)
	return a
}

// abroadExtraDays is what a parcel handed over abroad takes on top of its
// promise from the departure area: it travels to Finland first.
const abroadExtraDays = 2

// EstimateDelivery returns the date (Finnish time, at midnight UTC) a
// parcel handed over at now in the area from (in countryFrom; "" is
// Finland) reaches the point p: the delivery time estimate's model
// (EstimateDeliveryTime, decisions §19) for a Postal Parcel (2103) dropped
// off in from's postal code area, with abroadExtraDays working days more
// from abroad. One model answers the checkout's date and the estimation
// API.
func EstimateDelivery(now time.Time, from PostalArea, countryFrom string, p PickupPoint) time.Time {
	at := finnishTime(EstimateDeliveryTime(EstimateRequest{
		FromPostcode: from.PostalCode, FromCountry: "FI", ToPostcode: p.PostalCode, ToCountry: "FI",
		Product: ServiceToPickupPoint, At: now, Phase: PhaseDroppedOff,
	}))
	day := time.Date(at.Year(), at.Month(), at.Day(), 0, 0, 0, 0, time.UTC)
	if countryFrom != "" && countryFrom != "FI" {
		for range abroadExtraDays {
			day = nextDay(day, WorkingDay)
		}
	}
	return day
}

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
// pickupPointId, optional): a named point must exist, else a problem on the
// field pickupPointId; an order of service 2103 that names none goes to the
// point nearest the centre of its delivery address's postal code area
// (when that is a Finnish postal code); any other order keeps none. It
// returns the point's 9-digit externalId (a former 7-digit ID is read as
// its successor's), or "".
func PickupPointForOrder(serviceCode, pickupPointID, deliveryPostalCode, deliveryCountry string) (string, error) {
	if id := strings.TrimSpace(pickupPointID); id != "" {
		pt, ok := FindPickupPoint(id)
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
	if p, ok := NearestPickupPoint(deliveryPostalCode, serviceCode); ok {
		return p.ExternalID, nil
	}
	return "", nil
}
