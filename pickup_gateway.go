package parcelgate

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// The gateway's Pick-up Point API (2025-04, 2026-04; decisions §32): the
// provider's search body, its point object and its paging, over the same
// data set the ecom /pickup-points answers.

// PickupPointFinder finds pick-up points: the one source of points the
// gateway's routes hold. The points are the embedded national data set,
// the same for every tenant and environment (they are the provider's
// network, not a tenant's data), so any gateway caller may read them.
type PickupPointFinder interface {
	// SearchPickupPoints answers a search (validated by Validate): the
	// matching points, nearest first with their distance for the searches
	// near a place, at most s.Limit.
	SearchPickupPoints(ctx context.Context, s PickupSearch) ([]PickupPoint, error)
	// ListPickupPoints answers one page of a country's points (l from
	// ParsePickupList), in ID order: the points after l.After, at most
	// PickupPageSize, and whether more follow.
	ListPickupPoints(ctx context.Context, l PickupList) (points []PickupPoint, more bool, err error)
	// FindPickupPoint returns the point of a 9-digit ID (or a former
	// 7-digit one), false when there is none.
	FindPickupPoint(ctx context.Context, id string) (PickupPoint, bool, error)
}

// PickupIndex is the PickupPointFinder over the embedded data set.
type PickupIndex struct{}

var _ PickupPointFinder = PickupIndex{}

// Languages of the gateway's answers (Accept-Language), Finnish first as
// the default.
var PickupLanguages = []string{"fi", "sv", "da", "en", "et", "lv", "lt"}

// PickupLanguage picks the answer's language from an Accept-Language
// header: the first of PickupLanguages it names (by order, weights
// ignored), fi when none.
func PickupLanguage(acceptLanguage string) string {
	for part := range strings.SplitSeq(acceptLanguage, ",") {
		tag, _, _ := strings.Cut(strings.TrimSpace(part), ";")
		base, _, _ := strings.Cut(strings.ToLower(tag), "-")
		if slices.Contains(PickupLanguages, base) {
			return base
		}
	}
	return "fi"
}

// pointWords are the words of the points' public names by language: a post
// office, a pick-up shop, a parcel locker.
var pointWords = map[string][3]string{
	"fi": {"Posti", "Posti-palvelupiste", "Pakettiautomaatti"},
	"sv": {"Posten", "Postens serviceställe", "Paketautomat"},
	"da": {"Posti", "Posti-pakkeshop", "Pakkeautomat"},
	"en": {"Posti", "Posti service point", "Parcel locker"},
	"et": {"Posti", "Posti pakipunkt", "Pakiautomaat"},
	"lv": {"Posti", "Posti izsniegšanas punkts", "Pakomāts"},
	"lt": {"Posti", "Posti atsiėmimo punktas", "Paštomatas"},
}

// City is the point's town in lang: Swedish names where the postal code
// file has them, Finnish otherwise.
func (p PickupPoint) City(lang string) string {
	if lang == "sv" && p.Area.PostOfficeSv != "" {
		return titleCase(p.Area.PostOfficeSv)
	}
	return titleCase(p.Area.PostOffice)
}

// Municipality is the point's municipality in lang (Swedish where it has a
// Swedish name, Finnish otherwise).
func (p PickupPoint) Municipality(lang string) string {
	if lang == "sv" && p.Area.MunicipalitySv != "" {
		return p.Area.MunicipalitySv
	}
	return p.Area.Municipality
}

// PublicName is the point's name in lang: "Posti, Helsinki" for a post
// office, the kind and host of a pick-up shop or indoor locker, the kind
// and street of an outdoor locker.
func (p PickupPoint) PublicName(lang string) string {
	w, ok := pointWords[lang]
	if !ok {
		w = pointWords["fi"]
	}
	switch {
	case p.Type == PointPostOffice:
		return w[0] + ", " + p.City(lang)
	case p.Type == PointPickupShop:
		return w[1] + ", " + p.Host
	case p.Host != "":
		return w[2] + ", " + p.Host
	}
	return w[2] + ", " + p.StreetAddress + ", " + p.City(lang)
}

// searchText is what a free-text search matches, lower case: the point's
// names in every language, street, postal codes, town, municipality and ID.
// It is made once, when the data set is read.
func (p *PickupPoint) searchText() string { return p.text }

func (p PickupPoint) makeSearchText() string {
	parts := []string{p.StreetAddress, p.PostalCode, p.RoutingPostcode, p.Host, p.ExternalID}
	for _, lang := range []string{"fi", "sv", "en"} {
		parts = append(parts, p.PublicName(lang), p.City(lang), p.Municipality(lang))
	}
	// Each word once: the names repeat the town in every language.
	var words []string
	seen := map[string]bool{}
	for w := range strings.FieldsSeq(strings.ToLower(strings.Join(parts, " "))) {
		if !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	return strings.Join(words, " ")
}

func (p *PickupPoint) has(capability string) bool { return slices.Contains(p.Capabilities, capability) }

func titleCase(s string) string {
	words := strings.Fields(strings.ToLower(s))
	for i, w := range words {
		r, n := utf8.DecodeRuneInString(w)
		words[i] = strings.ToUpper(string(r)) + w[n:]
	}
	return strings.Join(words, " ")
}

// distanceMetres is the great-circle distance in whole metres.
func distanceMetres(lat1, lon1, lat2, lon2 float64) int {
	return int(math.Round(distanceKm(lat1, lon1, lat2, lon2) * 1000))
}

// Coordinates are a WGS 84 position.
type Coordinates struct {
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
}

// Rectangle is the area of a rectangle search, by its south-west and
// north-east corners.
type Rectangle struct {
	SWLatitude, SWLongitude, NELatitude, NELongitude float64
}

// Boolean service filters of the search (serviceFilters): true keeps only
// the points that have the feature, false only those that lack it.
const (
	FilterOutdoorLocker    = "outdoorLocker"
	FilterLockerReservable = "lockerReservable"
	FilterWheelchair       = "wheelchairAccessibility"
	FilterOpenOnWeekends   = "openOnWeekends"
	FilterADR              = "ADRLimitedQuantities"
	FilterSaturdayDelivery = "saturdayDelivery"
)

// PickupSearch is a search of POST /{version}/pickuppoints: one mode
// (near a postcode, street or city; near coordinates, within a radius;
// inside a rectangle; by free text; or only lockers), narrowed by
// parcelLocker and the service filters.
type PickupSearch struct {
	// Near a place: Postcode, Street, City in CountryCode (default FI).
	Postcode, Street, City, CountryCode string
	// Near a position; RadiusMetres 0 is no bound.
	Coordinates  *Coordinates
	RadiusMetres float64
	Rectangle    *Rectangle
	FreeText     string
	ParcelLocker *bool
	ProductCode  string
	Filters      map[string]bool
	Limit        int // DefaultPickupLimit when 0

	// Set by Validate: the centre distances are measured from, when the
	// search is near a place, and the filters as feature bits: the bits
	// of filterMask must be those of filterWant.
	from                   *Coordinates
	located                bool
	filterMask, filterWant uint16
}

const maxRadiusMetres = 2_000_000

// Validate normalizes s and checks it, each problem named by the body's
// JSON path: exactly one mode unless only parcelLocker is asked; Finnish
// postal codes of five digits; positions on the globe; a rectangle whose
// corners are south-west and north-east; a product code of the service
// list; a limit from 1 to MaxPickupLimit.
func (s *PickupSearch) Validate() error {
	var p Problems
	const loc = "searchCriteria.location."
	s.CountryCode = strings.ToUpper(strings.TrimSpace(s.CountryCode))
	s.Postcode = strings.TrimSpace(s.Postcode)
	s.Street, s.City, s.FreeText = strings.TrimSpace(s.Street), strings.TrimSpace(s.City), strings.TrimSpace(s.FreeText)
	if s.CountryCode == "" {
		s.CountryCode = "FI"
	} else if !countryPattern.MatchString(s.CountryCode) {
		p.Add(loc+"countryCode", "must be a two-letter country code (ISO 3166), not %q", s.CountryCode)
	}
	if s.Postcode != "" && s.CountryCode == "FI" && !finnishPostalCode.MatchString(s.Postcode) {
		p.Add(loc+"postcode", "must be a Finnish postal code of 5 digits, not %q", s.Postcode)
	}
	for _, f := range []struct{ field, v string }{{loc + "street", s.Street}, {loc + "city", s.City}, {"searchCriteria.freeText", s.FreeText}} {
		if utf8.RuneCountInString(f.v) > maxPickupText {
			p.Add(f.field, "must be at most %d characters", maxPickupText)
		}
	}
	place := s.Postcode != "" || s.Street != "" || s.City != ""
	modes := 0
	for _, on := range []bool{place || s.Coordinates != nil, s.Rectangle != nil, s.FreeText != ""} {
		if on {
			modes++
		}
	}
	switch {
	case modes > 1:
		p.Add("searchCriteria", "give one search mode: location, rectangle or freeText")
	case modes == 0 && s.ParcelLocker == nil:
		p.Add("searchCriteria", "give a search mode: location (postcode, street or city; or coordinates), rectangle, freeText or parcelLocker")
	}
	if c := s.Coordinates; c != nil {
		checkPosition(&p, loc+"coordinates.", c.Latitude, c.Longitude)
	}
	if s.RadiusMetres < 0 || s.RadiusMetres > maxRadiusMetres {
		p.Add(loc+"radius.value", "must be from 0 to %d m", maxRadiusMetres)
	}
	if s.RadiusMetres > 0 && s.Coordinates == nil {
		p.Add(loc+"radius", "bounds a search by coordinates; give location.coordinates with it")
	}
	if r := s.Rectangle; r != nil {
		const rect = "searchCriteria.rectangle."
		checkPosition(&p, rect+"sw", r.SWLatitude, r.SWLongitude)
		checkPosition(&p, rect+"ne", r.NELatitude, r.NELongitude)
		if r.SWLatitude > r.NELatitude {
			p.Add(rect+"swLatitude", "must not be north of neLatitude")
		}
		if r.SWLongitude > r.NELongitude {
			p.Add(rect+"swLongitude", "must not be east of neLongitude")
		}
	}
	s.ProductCode = strings.TrimSpace(s.ProductCode)
	if s.ProductCode != "" && !ValidServiceCode(s.ProductCode) {
		p.Add("searchCriteria.serviceFilters.product.code", "%q is not a product code of the service list", s.ProductCode)
	}
	switch {
	case s.Limit == 0:
		s.Limit = DefaultPickupLimit
	case s.Limit < 1 || s.Limit > MaxPickupLimit:
		p.Add("limit", "must be from 1 to %d, not %d", MaxPickupLimit, s.Limit)
	}
	for _, name := range slices.Sorted(maps.Keys(s.Filters)) {
		if !slices.Contains(pickupFilters, name) {
			p.Add("searchCriteria.serviceFilters."+name, "is not a service filter; give %s", strings.Join(pickupFilters, ", "))
		}
	}
	if err := p.Err(); err != nil {
		return err
	}
	s.filterMask, s.filterWant = 0, 0
	for i, f := range pickupFilters {
		if want, ok := s.Filters[f]; ok {
			s.filterMask |= 1 << i
			if want {
				s.filterWant |= 1 << i
			}
		}
	}
	// Where distances are measured from.
	switch {
	case s.Coordinates != nil:
		s.from, s.located = s.Coordinates, true
	case s.Rectangle != nil:
		r := s.Rectangle
		s.from, s.located = &Coordinates{(r.SWLatitude + r.NELatitude) / 2, (r.SWLongitude + r.NELongitude) / 2}, true
	case place && s.CountryCode == "FI":
		var a PostalArea
		var ok bool
		if s.Postcode != "" {
			a, ok = areaOfPostalCode(s.Postcode)
		} else if s.City != "" {
			a, ok = areaOfCity(s.City)
		} else {
			a, ok = areaOfText(s.Street)
		}
		if ok {
			s.from, s.located = &Coordinates{a.Latitude, a.Longitude}, true
		}
	case s.FreeText != "":
		if a, ok := areaOfText(s.FreeText); ok {
			s.from, s.located = &Coordinates{a.Latitude, a.Longitude}, true
		}
	}
	return nil
}

func checkPosition(p *Problems, prefix string, lat, lon float64) {
	if lat < -90 || lat > 90 || math.IsNaN(lat) {
		p.Add(prefix+"latitude", "must be from -90 to 90")
	}
	if lon < -180 || lon > 180 || math.IsNaN(lon) {
		p.Add(prefix+"longitude", "must be from -180 to 180")
	}
}

// areaOfCity is the first area (lowest postal code) whose town or
// municipality, in Finnish or Swedish, is city.
func areaOfCity(city string) (PostalArea, bool) {
	for _, a := range pickupData().Areas {
		for _, name := range []string{a.PostOffice, a.PostOfficeSv, a.Municipality, a.MunicipalitySv} {
			if name != "" && strings.EqualFold(name, city) {
				return a, true
			}
		}
	}
	return PostalArea{}, false
}

// keeps reports whether p passes s's narrowing: the mode's area (radius,
// rectangle, words), parcelLocker, the product and the boolean filters.
func (s *PickupSearch) keeps(p *PickupPoint, words []string) bool {
	if s.CountryCode != p.Country {
		return false
	}
	if s.ParcelLocker != nil && *s.ParcelLocker != (p.Type == PointParcelLocker) {
		return false
	}
	if s.ProductCode != "" && !slices.Contains(p.ServiceCodes, s.ProductCode) {
		return false
	}
	if p.features&s.filterMask != s.filterWant {
		return false
	}
	if r := s.Rectangle; r != nil && (p.Latitude < r.SWLatitude || p.Latitude > r.NELatitude || p.Longitude < r.SWLongitude || p.Longitude > r.NELongitude) {
		return false
	}
	if len(words) > 0 {
		text := p.searchText()
		for _, w := range words {
			if !strings.Contains(text, w) {
				return false
			}
		}
	}
	return true
}

// pickupFilters are the boolean service filters, each a bit of a point's
// features (made once, when the data set is read).
var pickupFilters = []string{FilterOutdoorLocker, FilterLockerReservable, FilterWheelchair, FilterOpenOnWeekends, FilterADR, FilterSaturdayDelivery}

func (p *PickupPoint) featureBits() uint16 {
	var bits uint16
	for i, f := range pickupFilters {
		if p.feature(f) {
			bits |= 1 << i
		}
	}
	return bits
}

// feature is the value of a boolean service filter for p.
func (p *PickupPoint) feature(filter string) bool {
	switch filter {
	case FilterOutdoorLocker:
		return p.Type == PointParcelLocker && p.has(CapabilityOutdoors)
	case FilterLockerReservable:
		return p.has(CapabilityLockerReservable)
	case FilterWheelchair:
		return p.has(CapabilityWheelchair)
	case FilterOpenOnWeekends:
		return slices.ContainsFunc(p.OpeningHours, func(h OpeningHours) bool { return h.Day == "SATURDAY" || h.Day == "SUNDAY" })
	case FilterADR:
		return p.has(CapabilityADR)
	case FilterSaturdayDelivery:
		return p.has(CapabilitySaturdayDelivery)
	}
	return false
}

// SearchPickupPoints answers s (see PickupPointFinder).
func (PickupIndex) SearchPickupPoints(_ context.Context, s PickupSearch) ([]PickupPoint, error) {
	return SearchGatewayPickupPoints(s), nil
}

// SearchGatewayPickupPoints answers s (validated): the points it keeps,
// nearest first from the place it names (with their distances), else in
// ID order; at most s.Limit. A search near a Finnish place the data set
// cannot locate (a town it does not know), or in another country, finds
// nothing: an empty list, as the provider answers no match.
func SearchGatewayPickupPoints(s PickupSearch) []PickupPoint {
	out := []PickupPoint{}
	place := s.Postcode != "" || s.Street != "" || s.City != ""
	if place && s.Coordinates == nil && !s.located {
		return out
	}
	var words []string
	if s.FreeText != "" {
		words = strings.Fields(strings.ToLower(s.FreeText))
	}
	// The matches as indexes and approximate distances (a flat projection
	// around the origin: no trigonometry per point), so that only the
	// answered points are copied and measured exactly.
	all := pickupData().Points
	var flat flatMetres
	if s.located {
		flat = newFlatMetres(s.from.Latitude, s.from.Longitude)
	}
	var hits []pickupHit
	for i := range all {
		p := &all[i]
		if !s.keeps(p, words) {
			continue
		}
		h := pickupHit{i: int32(i)}
		if s.located {
			h.d = flat.metres(p.Latitude, p.Longitude, p.cosLat)
			if s.RadiusMetres > 0 && float64(h.d) > s.RadiusMetres*flatSlack+flatMargin {
				continue
			}
		}
		hits = append(hits, h)
	}
	if !s.located {
		for _, h := range hits[:min(len(hits), s.Limit)] {
			out = append(out, all[h.i])
		}
		return out
	}
	// The nearest by the flat distance, with a margin for its error, then
	// measured on the sphere and ordered by that.
	if len(hits) > s.Limit {
		bound := int32(float64(kthNearest(hits, s.Limit))*flatSlack + flatMargin)
		keep := hits[:0]
		for _, h := range hits {
			if h.d <= bound {
				keep = append(keep, h)
			}
		}
		hits = keep
	}
	for k := range hits {
		p := &all[hits[k].i]
		hits[k].d = int32(distanceMetres(s.from.Latitude, s.from.Longitude, p.Latitude, p.Longitude))
	}
	slices.SortFunc(hits, pickupHit.compare) // ties in ID order
	for _, h := range hits {
		if len(out) == s.Limit {
			break
		}
		if s.RadiusMetres > 0 && float64(h.d) > s.RadiusMetres {
			continue
		}
		p := all[h.i]
		d := int(h.d)
		p.Distance = &d
		out = append(out, p)
	}
	return out
}

// kthNearest is the k-th smallest distance of hits (k <= len(hits)), by a
// max-heap of the k smallest: no sort of every match.
func kthNearest(hits []pickupHit, k int) int32 {
	heap := make([]int32, 0, k)
	for _, h := range hits {
		switch {
		case len(heap) < k:
			heap = append(heap, h.d)
			for i := len(heap) - 1; i > 0 && heap[(i-1)/2] < heap[i]; i = (i - 1) / 2 {
				heap[i], heap[(i-1)/2] = heap[(i-1)/2], heap[i]
			}
		case h.d < heap[0]:
			heap[0] = h.d
			for i := 0; ; {
				l, r, m := 2*i+1, 2*i+2, i
				if l < k && heap[l] > heap[m] {
					m = l
				}
				if r < k && heap[r] > heap[m] {
					m = r
				}
				if m == i {
					break
				}
				heap[i], heap[m] = heap[m], heap[i]
				i = m
			}
		}
	}
	return heap[0]
}

// The flat projection's error bound: with the mean latitude's scale it is
// within well under 2% of the great-circle distance across Finland, so
// every point within 2% and 100 m of a bound is measured exactly.
const (
	flatSlack  = 1.02
	flatMargin = 100
)

// flatMetres measures approximate distances from an origin on an
// equirectangular projection centred on it.
type flatMetres struct{ lat, lon, kx float64 }

func newFlatMetres(lat, lon float64) flatMetres {
	return flatMetres{lat, lon, math.Cos(lat * math.Pi / 180)}
}

// metres is the distance to a point whose latitude's cosine is cosLat: the
// east-west scale is the mean of the two latitudes' (so no trigonometry
// per point).
func (f flatMetres) metres(lat, lon, cosLat float64) int32 {
	const metresPerDegree = 6371000 * math.Pi / 180
	dy := (lat - f.lat) * metresPerDegree
	dx := (lon - f.lon) * metresPerDegree * (f.kx + cosLat) / 2
	return int32(math.Sqrt(dx*dx + dy*dy))
}

// pickupHit is a matching point: its index in the data set (ID order) and
// its distance in metres.
type pickupHit struct{ i, d int32 }

func (a pickupHit) compare(b pickupHit) int {
	if a.d != b.d {
		return int(a.d - b.d)
	}
	return int(a.i - b.i)
}

// PickupPageSize is the number of points of a country listing's page, as
// the provider pages Finland's (250 points a page).
const PickupPageSize = 250

// PickupList is one page of GET /{version}/pickuppoints/{countryCode}:
// the country, the ID prefix that follows it in the path (FI00: Finland's
// points whose IDs start with 00), and the ID the page follows.
type PickupList struct {
	Country, Prefix, After string
}

var (
	pickupCountryPath = regexp.MustCompile(`^[a-zA-Z]{2,3}([0-9][0-9a-zA-Z]*)?$`)
	pickupIDPath      = regexp.MustCompile(`^[0-9]{9}$`)
	legacyPickupID    = regexp.MustCompile(`^[0-9]{7}$`)
)

// IsPickupPointID reports whether a path segment is a point ID (9 digits,
// or a former 7-digit one) rather than a country code: a country code
// starts with letters.
func IsPickupPointID(seg string) bool {
	return pickupIDPath.MatchString(seg) || legacyPickupID.MatchString(seg)
}

// alpha3 maps the three-letter codes of the provider's countries to their
// two-letter ones.
var alpha3 = map[string]string{"FIN": "FI", "SWE": "SE", "NOR": "NO", "DNK": "DK", "EST": "EE", "LVA": "LV", "LTU": "LT", "ALA": "AX"}

// ParsePickupList reads a country listing's path segment (a country code
// of two or three letters and an optional ID prefix, the provider's
// pattern) and its pagingContinuationToken ("" for the first page). The
// token must be one this listing issued: a token of another listing, or
// one tampered with, is refused naming the parameter.
func ParsePickupList(seg, token string) (PickupList, error) {
	var p Problems
	if !pickupCountryPath.MatchString(seg) {
		p.Add("countryCode", "must be a country code of 2 or 3 letters, optionally followed by a pick-up point ID prefix starting with a digit (FI, FI00), not %q", seg)
		return PickupList{}, p.Err()
	}
	i := strings.IndexFunc(seg, func(r rune) bool { return r >= '0' && r <= '9' })
	if i < 0 {
		i = len(seg)
	}
	l := PickupList{Country: strings.ToUpper(seg[:i]), Prefix: strings.ToUpper(seg[i:])}
	if c, ok := alpha3[l.Country]; ok {
		l.Country = c
	}
	if token != "" {
		after, ok := readPickupToken(token, l.Country+l.Prefix)
		if !ok {
			p.Add("pagingContinuationToken", "is not a token this listing issued; start again without it")
			return PickupList{}, p.Err()
		}
		l.After = after
	}
	return l, nil
}

type pickupToken struct {
	List  string `json:"l"`
	After string `json:"a"`
}

// PickupPageToken is the opaque pagingContinuationToken of the page after
// the one ending at lastID.
func PickupPageToken(l PickupList, lastID string) string {
	b, _ := json.Marshal(pickupToken{l.Country + l.Prefix, lastID})
	return base64.RawURLEncoding.EncodeToString(b)
}

func readPickupToken(token, list string) (string, bool) {
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(b) > 200 {
		return "", false
	}
	var t pickupToken
	if json.Unmarshal(b, &t) != nil || t.List != list || !pickupIDPath.MatchString(t.After) {
		return "", false
	}
	return t.After, true
}

// ListPickupPoints answers one page of a listing (see PickupPointFinder).
func (PickupIndex) ListPickupPoints(_ context.Context, l PickupList) ([]PickupPoint, bool, error) {
	pts, more := ListGatewayPickupPoints(l, PickupPageSize)
	return pts, more, nil
}

// ListGatewayPickupPoints is the page of l: the country's points whose IDs
// start with its prefix, after l.After, in ID order (which is postal code
// order), at most n, and whether more follow.
func ListGatewayPickupPoints(l PickupList, n int) ([]PickupPoint, bool) {
	out := []PickupPoint{}
	if l.Country != "FI" { // the data set is Finland's
		return out, false
	}
	all := pickupData().Points
	// The prefix's points are contiguous in ID order: start at the first
	// after l.After and at or after the prefix.
	start, _ := slices.BinarySearchFunc(all, max(l.After+"\x00", l.Prefix), func(p PickupPoint, id string) int { return strings.Compare(p.ExternalID, id) })
	for _, p := range all[start:] {
		if !strings.HasPrefix(p.ExternalID, l.Prefix) {
			break
		}
		if len(out) == n {
			return out, true
		}
		out = append(out, p)
	}
	return out, false
}

// FindPickupPoint returns the point of id (see PickupPointFinder).
func (PickupIndex) FindPickupPoint(_ context.Context, id string) (PickupPoint, bool, error) {
	p, ok := FindPickupPoint(id)
	return p, ok, nil
}

// ProviderPickupPoint is a point as the provider's gateway answers it:
// the required id, publicName, careOf, parcelLocker, availability,
// location and capabilities, and the optional routingServiceCode,
// distanceInMeters, extensions, pupCode and externalId.
type ProviderPickupPoint struct {
	ID                 string             `json:"id"`
	PupCode            string             `json:"pupCode"`
	ExternalID         string             `json:"externalId"`
	PublicName         string             `json:"publicName"`
	CareOf             string             `json:"careOf"`
	ParcelLocker       bool               `json:"parcelLocker"`
	RoutingServiceCode string             `json:"routingServiceCode"`
	DistanceInMeters   *int               `json:"distanceInMeters,omitempty"`
	Availability       PickupAvailability `json:"availability"`
	Location           PickupLocation     `json:"location"`
	Capabilities       []string           `json:"capabilities"`
	Extensions         *PickupExtensions  `json:"extensions,omitempty"`
}

// PickupAvailability is when a point is open (invented inner shape:
// decisions §32): its regular hours by weekday, and the days in the coming
// two weeks it keeps other hours (Finnish public holidays, when a staffed
// point is closed).
type PickupAvailability struct {
	OpeningHours []PickupOpeningHours `json:"openingHours"`
	Exceptions   []PickupException    `json:"exceptions"`
}

// PickupOpeningHours are a weekday's hours with their text in the answer's
// language.
type PickupOpeningHours struct {
	Weekday     string `json:"weekday"`
	Opens       string `json:"opens"`
	Closes      string `json:"closes"`
	Description string `json:"description"`
}

// PickupException is a date with other hours than the weekday's.
type PickupException struct {
	Date        string `json:"date"`
	Closed      bool   `json:"closed"`
	Description string `json:"description"`
}

// PickupLocation is where a point is. country and countryCode both carry
// the country: the provider's documents show one and clients read the
// other (decisions §32).
type PickupLocation struct {
	Country          string      `json:"country"`
	CountryCode      string      `json:"countryCode"`
	Street           string      `json:"street"`
	Postcode         string      `json:"postcode"`
	City             string      `json:"city"`
	Municipality     string      `json:"municipality"`
	Coordinates      Coordinates `json:"coordinates"`
	SpecificLocation string      `json:"specificLocation"`
	RoutingPostcode  string      `json:"routingPostcode"`
}

// PickupExtensions are what a search's extensions asked for.
type PickupExtensions struct {
	Estimate                   *PickupEstimate      `json:"estimate,omitempty"`
	AverageLockerOccupancyRate *PickupOccupancyRate `json:"averageLockerOccupancyRate,omitempty"`
}

// PickupEstimate is a point's delivery estimate: null when the model
// cannot promise.
type PickupEstimate struct {
	Time *string `json:"time"`
}

// PickupOccupancyRate is how full a locker usually is at this hour of the
// week (invented shape and model: decisions §32), from 0 to 1, with its
// reading in the answer's language.
type PickupOccupancyRate struct {
	AverageRate float64 `json:"averageRate"`
	Description string  `json:"description"`
}

var weekdayNames = map[string][7]string{
	"fi": {"maanantai", "tiistai", "keskiviikko", "torstai", "perjantai", "lauantai", "sunnuntai"},
	"sv": {"måndag", "tisdag", "onsdag", "torsdag", "fredag", "lördag", "söndag"},
	"da": {"mandag", "tirsdag", "onsdag", "torsdag", "fredag", "lørdag", "søndag"},
	"en": {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"},
	"et": {"esmaspäev", "teisipäev", "kolmapäev", "neljapäev", "reede", "laupäev", "pühapäev"},
	"lv": {"pirmdiena", "otrdiena", "trešdiena", "ceturtdiena", "piektdiena", "sestdiena", "svētdiena"},
	"lt": {"pirmadienis", "antradienis", "trečiadienis", "ketvirtadienis", "penktadienis", "šeštadienis", "sekmadienis"},
}

var weekdayKeys = []string{"MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY"}

// localTexts are the other words of a point's answer by language: open
// round the clock, a public holiday (closed), the indoor locker's place,
// and the occupancy readings (low, medium, high).
var localTexts = map[string][6]string{
	"fi": {"avoinna ympäri vuorokauden", "juhlapyhä, suljettu", "liikkeen sisätiloissa", "yleensä tilaa", "usein melko täynnä", "usein täynnä"},
	"sv": {"öppet dygnet runt", "helgdag, stängt", "inne i butiken", "oftast plats", "ofta ganska fullt", "ofta fullt"},
	"da": {"åbent døgnet rundt", "helligdag, lukket", "inde i butikken", "som regel plads", "ofte næsten fuld", "ofte fuld"},
	"en": {"open around the clock", "public holiday, closed", "inside the shop", "usually room", "often fairly full", "often full"},
	"et": {"avatud ööpäevaringselt", "riigipüha, suletud", "kaupluse sees", "tavaliselt ruumi on", "sageli üsna täis", "sageli täis"},
	"lv": {"atvērts visu diennakti", "svētku diena, slēgts", "veikala iekšpusē", "parasti ir vieta", "bieži diezgan pilns", "bieži pilns"},
	"lt": {"atidaryta visą parą", "šventinė diena, uždaryta", "parduotuvės viduje", "paprastai yra vietos", "dažnai beveik pilnas", "dažnai pilnas"},
}

// Provider is p as the gateway answers it, in lang, with the exceptions to
// its hours from now on.
func (p PickupPoint) Provider(lang string, now time.Time) ProviderPickupPoint {
	if _, ok := pointWords[lang]; !ok {
		lang = "fi"
	}
	texts := localTexts[lang]
	out := ProviderPickupPoint{
		ID: p.ExternalID, PupCode: p.ExternalID, ExternalID: p.ExternalID,
		PublicName: p.PublicName(lang), ParcelLocker: p.Type == PointParcelLocker,
		RoutingServiceCode: p.RoutingServiceCode, DistanceInMeters: p.Distance,
		Location: PickupLocation{
			Country: p.Country, CountryCode: p.Country, Street: p.StreetAddress, Postcode: p.PostalCode,
			City: p.City(lang), Municipality: p.Municipality(lang),
			Coordinates: Coordinates{p.Latitude, p.Longitude}, RoutingPostcode: p.RoutingPostcode,
		},
		Capabilities: p.providerCapabilities(),
		Availability: PickupAvailability{OpeningHours: []PickupOpeningHours{}, Exceptions: []PickupException{}},
	}
	if p.Type == PointPickupShop {
		out.CareOf = p.Host
	}
	if p.Type == PointParcelLocker && p.Host != "" {
		out.Location.SpecificLocation = texts[2]
	}
	always := p.hours == "always"
	out.Availability.OpeningHours = localHours(p.hours, lang)
	if !always {
		local := finnishTime(now)
		day := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, time.UTC)
		for i := range 14 {
			if d := day.AddDate(0, 0, i); FinnishHoliday(d) {
				out.Availability.Exceptions = append(out.Availability.Exceptions, PickupException{d.Format(time.DateOnly), true, texts[1]})
			}
		}
	}
	return out
}

// localHours are the opening hours of a template in lang, with their
// texts, made once per template and language and shared (never changed).
func localHours(template, lang string) []PickupOpeningHours {
	return openingHourTexts()[template+"/"+lang]
}

var openingHourTexts = sync.OnceValue(func() map[string][]PickupOpeningHours {
	out := map[string][]PickupOpeningHours{}
	for template, hours := range pickupData().OpeningHours {
		for lang, days := range weekdayNames {
			list := []PickupOpeningHours{}
			for _, h := range hours {
				d := slices.Index(weekdayKeys, h.Day)
				desc := fmt.Sprintf("%s %s–%s", days[d], h.Opens, h.Closes)
				if template == "always" {
					desc = days[d] + " " + localTexts[lang][0]
				}
				list = append(list, PickupOpeningHours{h.Day, h.Opens, h.Closes, desc})
			}
			out[template+"/"+lang] = list
		}
	}
	return out
})

// providerCapabilities are p's features by the names of the search's
// service filters (plus the parcel hand-over and cash on delivery).
func (p PickupPoint) providerCapabilities() []string {
	out := []string{}
	for _, c := range []string{CapabilityParcelPickup, CapabilityParcelDropoff, CapabilityCashOnDelivery} {
		if p.has(c) {
			out = append(out, c)
		}
	}
	for i, f := range pickupFilters {
		if p.features&(1<<i) != 0 {
			out = append(out, f)
		}
	}
	return out
}

// LockerOccupancy is how full locker p usually is in the hour of the week
// of now (Finnish time): a base of its own (from its ID) that rises
// towards weekday evenings and Mondays, when parcels wait longest. nil for
// a point that is no locker.
func LockerOccupancy(p PickupPoint, lang string, now time.Time) *PickupOccupancyRate {
	if p.Type != PointParcelLocker {
		return nil
	}
	if _, ok := localTexts[lang]; !ok {
		lang = "fi"
	}
	var h uint32 = 2166136261
	for i := 0; i < len(p.ExternalID); i++ {
		h = (h ^ uint32(p.ExternalID[i])) * 16777619
	}
	base := 0.25 + float64(h%40)/100 // 0.25-0.64
	local := finnishTime(now)
	hour := float64(local.Hour())
	rate := base + 0.15*math.Sin((hour-6)/24*2*math.Pi)
	switch local.Weekday() {
	case time.Monday:
		rate += 0.1
	case time.Saturday, time.Sunday:
		rate -= 0.05
	}
	rate = math.Round(min(0.98, max(0.02, rate))*100) / 100
	texts := localTexts[lang]
	desc := texts[3]
	if rate >= 0.85 {
		desc = texts[5]
	} else if rate >= 0.6 {
		desc = texts[4]
	}
	return &PickupOccupancyRate{rate, desc}
}
