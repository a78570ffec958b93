package pickup

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/parcelgate/parcelgate"
)

// The ecom search of GET /pickup-points (the warehouse plugin's checkout),
// the lookups the root's decisions read, and how a searched place is
// located: the same table of areas locates a searched postal code or
// town, so distances are from the centre of the searched area, not from a
// street address.

var postalCodeInText = regexp.MustCompile(`\b[0-9]{5}\b`)

// QueryPickupPoints answers the ecom search q (see
// parcelgate.PickupPointFinder).
func (Network) QueryPickupPoints(q parcelgate.PickupQuery, now time.Time) []parcelgate.PickupPoint {
	ds := data()
	var words []string
	at, located := locate(q.Country, q.PostalCode, q.PostOffice, q.StreetAddress, q.Search)
	if !located && q.Search != "" {
		words = strings.Fields(strings.ToLower(q.Search))
	}
	if !located && words == nil {
		return []parcelgate.PickupPoint{}
	}
	origin := departureArea(q.CountryFrom, q.PostalCodeFrom)
	// The matches as indexes and distances, so that only the answered
	// points are copied.
	var hits []hit
	for i := range ds.Points {
		p := &ds.Points[i]
		if p.Country != q.Country || !matches(p, q) || !containsAll(ds.index[i].text, words) {
			continue
		}
		h := hit{i: int32(i)}
		if located {
			h.d = int32(distanceMetres(at.Latitude, at.Longitude, p.Latitude, p.Longitude))
		}
		hits = append(hits, h)
	}
	slices.SortFunc(hits, func(a, b hit) int {
		if a.d != b.d {
			return int(a.d - b.d)
		}
		if c := strings.Compare(ds.Points[a.i].Name, ds.Points[b.i].Name); c != 0 {
			return c
		}
		return int(a.i - b.i) // ID order
	})
	out := []parcelgate.PickupPoint{}
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

func matches(p *parcelgate.PickupPoint, q parcelgate.PickupQuery) bool {
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

// containsAll reports whether a point's search text holds each of words.
func containsAll(text string, words []string) bool {
	for _, w := range words {
		if !strings.Contains(text, w) {
			return false
		}
	}
	return true
}

// searchText is what a free-text search matches, lower case: the point's
// names in every language, street, postal codes, town, municipality and ID.
// It is made once, when the data set is read.
func searchText(p parcelgate.PickupPoint) string {
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

// FindPickupPoint returns the point of id (see
// parcelgate.PickupPointLookup).
func (Network) FindPickupPoint(id string) (parcelgate.PickupPoint, bool) {
	ds := data()
	id = strings.TrimSpace(id)
	if next, ok := ds.LegacyIDs[id]; ok {
		id = next
	}
	i, ok := ds.byID[id]
	if !ok {
		return parcelgate.PickupPoint{}, false
	}
	return ds.Points[i], true
}

// HoldsPickupPoints says whether the data set has points in country (see
// parcelgate.PickupPointLookup).
func (Network) HoldsPickupPoints(country string) bool {
	return len(data().byCountry[country]) > 0
}

// NearestPickupPoint returns the point of a service nearest a Finnish
// postal code's area (see parcelgate.PickupPointLookup).
func (Network) NearestPickupPoint(postalCode, serviceCode string) (parcelgate.PickupPoint, bool) {
	postalCode = strings.TrimSpace(postalCode)
	if !parcelgate.IsFinnishPostalCode(postalCode) {
		return parcelgate.PickupPoint{}, false
	}
	at, _ := areaOfPostalCode("FI", postalCode)
	var best parcelgate.PickupPoint
	bestKm := math.Inf(1)
	for _, p := range data().Points {
		if p.Country != "FI" || !slices.Contains(p.ServiceCodes, serviceCode) {
			continue
		}
		if d := distanceKm(at.Latitude, at.Longitude, p.Latitude, p.Longitude); d < bestKm || (d == bestKm && p.ExternalID < best.ExternalID) {
			best, bestKm = p, d
		}
	}
	return best, !math.IsInf(bestKm, 1)
}

// locate finds the area of country ("" any, Finland first) a search is
// near: its postal code's, else its town's, else that of a postal code or
// town named in the street address or the search text.
func locate(country, postalCode, postOffice, streetAddress, search string) (parcelgate.PostalArea, bool) {
	if postalCode != "" {
		if country == "" {
			country = "FI"
		}
		return areaOfPostalCode(country, postalCode)
	}
	for _, text := range []string{postOffice, streetAddress, search} {
		if a, ok := areaOfText(country, text); ok {
			return a, true
		}
	}
	return parcelgate.PostalArea{}, false
}

// areaOfPostalCode returns the area of code in country, or for a code
// the data set does not list, the area of the country sharing the longest
// prefix of digits with it (postal codes are regional: the leading digits
// name the region), the numerically closest among equals. Codes are
// compared by their digits: LV-1050 and 1050 are one code.
func areaOfPostalCode(country, code string) (parcelgate.PostalArea, bool) {
	ds := data()
	key := areaKey(country, code)
	if i, ok := ds.area[key]; ok {
		return ds.Areas[i], true
	}
	_, digits, _ := strings.Cut(key, " ")
	n, _ := strconv.Atoi(digits)
	best, bestPrefix, bestGap := -1, -1, 0
	for _, i := range ds.countryAreas[country] {
		_, ad, _ := strings.Cut(areaKey(country, ds.Areas[i].PostalCode), " ")
		prefix := 0
		for prefix < len(digits) && prefix < len(ad) && digits[prefix] == ad[prefix] {
			prefix++
		}
		m, _ := strconv.Atoi(ad)
		gap := max(n-m, m-n)
		if prefix > bestPrefix || (prefix == bestPrefix && gap < bestGap) {
			best, bestPrefix, bestGap = i, prefix, gap
		}
	}
	if best < 0 {
		return parcelgate.PostalArea{}, false
	}
	return ds.Areas[best], true
}

// areaOfText finds a Finnish postal code (in a Finnish search), or the
// name of a town or district of the data set in country ("" any), in
// text.
func areaOfText(country, text string) (parcelgate.PostalArea, bool) {
	if text == "" {
		return parcelgate.PostalArea{}, false
	}
	if country == "FI" || country == "" {
		if code := postalCodeInText.FindString(text); code != "" {
			return areaOfPostalCode("FI", code)
		}
	}
	lower := strings.ToLower(text)
	best, bestLen := -1, 0
	for _, n := range areaNames() {
		if len(n.name) > bestLen && (country == "" || n.country == country) && containsWord(lower, n.name) {
			best, bestLen = n.area, len(n.name)
		}
	}
	if best < 0 {
		return parcelgate.PostalArea{}, false
	}
	return data().Areas[best], true
}

// areaOfCity is the first area (lowest postal code) of country ("" any,
// Finland first) whose town or municipality, in any of its languages, is
// city.
func areaOfCity(country, city string) (parcelgate.PostalArea, bool) {
	for _, a := range data().Areas {
		if country != "" && areaCountry(a) != country {
			continue
		}
		for _, name := range []string{a.PostOffice, a.PostOfficeSv, a.Municipality, a.MunicipalitySv} {
			if name != "" && strings.EqualFold(name, city) {
				return a, true
			}
		}
	}
	return parcelgate.PostalArea{}, false
}

// areaCountry is an area's country: FI when it names none.
func areaCountry(a parcelgate.PostalArea) string {
	if a.Country == "" {
		return "FI"
	}
	return a.Country
}

// areaName is a town or municipality name, lower case, its country, and
// the first area (lowest postal code) of that name there.
type areaName struct {
	name, country string
	area          int
}

// areaNames are the names the searches locate by, each once per country,
// made when first needed.
var areaNames = sync.OnceValue(func() []areaName {
	var out []areaName
	seen := map[string]bool{}
	for i, a := range data().Areas {
		c := areaCountry(a)
		for _, name := range []string{a.PostOffice, a.PostOfficeSv, a.Municipality, a.MunicipalitySv} {
			name = strings.ToLower(name)
			for _, n := range []string{name, townOf(name)} {
				if n != "" && !seen[c+" "+n] {
					seen[c+" "+n] = true
					out = append(out, areaName{n, c, i})
				}
			}
		}
	}
	return out
})

// townOf is the town of a place name that ends in a district's letters
// ("københavn k", "aarhus c": københavn, aarhus), "" for any other name.
func townOf(name string) string {
	words := strings.Fields(name)
	if len(words) < 2 || utf8.RuneCountInString(words[0]) < 4 {
		return ""
	}
	for _, w := range words[1:] {
		if utf8.RuneCountInString(w) > 2 {
			return ""
		}
	}
	return words[0]
}

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
	return r != utf8.RuneError && (r == '-' || unicode.IsLetter(r))
}

// distanceKm is the great-circle distance between two coordinates.
func distanceKm(lat1, lon1, lat2, lon2 float64) float64 {
	const earthKm = 6371.0
	rad := math.Pi / 180
	dLat, dLon := (lat2-lat1)*rad, (lon2-lon1)*rad
	h := math.Sin(dLat/2)*math.Sin(dLat/2) + math.Cos(lat1*rad)*math.Cos(lat2*rad)*math.Sin(dLon/2)*math.Sin(dLon/2)
	return 2 * earthKm * math.Asin(math.Sqrt(min(1, h)))
}

// distanceMetres is the great-circle distance in whole metres.
func distanceMetres(lat1, lon1, lat2, lon2 float64) int {
	return int(math.Round(distanceKm(lat1, lon1, lat2, lon2) * 1000))
}
