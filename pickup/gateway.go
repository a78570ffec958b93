package pickup

import (
	"math"
	"slices"
	"strings"

	"github.com/parcelgate/parcelgate"
)

// The gateway's searches and listings (POST and GET /{version}/pickuppoints;
// decisions §32), over the same data set as the ecom search.

// origin is where a search's distances are measured from, when it is near
// a place: its coordinates, its rectangle's centre, the area of its
// postcode, city or street (in Finland), or a place its free text names.
func origin(s *parcelgate.PickupSearch) (*parcelgate.Coordinates, bool) {
	switch {
	case s.Coordinates != nil:
		return s.Coordinates, true
	case s.Rectangle != nil:
		r := s.Rectangle
		return &parcelgate.Coordinates{Latitude: (r.SWLatitude + r.NELatitude) / 2, Longitude: (r.SWLongitude + r.NELongitude) / 2}, true
	case s.NearPlace():
		var a parcelgate.PostalArea
		var ok bool
		if s.Postcode != "" {
			a, ok = areaOfPostalCode(s.CountryCode, s.Postcode)
		} else if s.City != "" {
			a, ok = areaOfCity(s.CountryCode, s.City)
		} else {
			a, ok = areaOfText(s.CountryCode, s.Street)
		}
		if ok {
			return &parcelgate.Coordinates{Latitude: a.Latitude, Longitude: a.Longitude}, true
		}
	case s.FreeText != "":
		if a, ok := areaOfText(s.CountryCode, s.FreeText); ok {
			return &parcelgate.Coordinates{Latitude: a.Latitude, Longitude: a.Longitude}, true
		}
	}
	return nil, false
}

// filterBits are a search's service filters as feature bits: the bits of
// mask must be those of want.
func filterBits(filters map[string]bool) (mask, want uint16) {
	for i, f := range parcelgate.PickupFilters {
		if v, ok := filters[f]; ok {
			mask |= 1 << i
			if v {
				want |= 1 << i
			}
		}
	}
	return mask, want
}

// featureBits are p's service filters (parcelgate.PickupFilters) as bits,
// made once, when the data set is read.
func featureBits(p parcelgate.PickupPoint) uint16 {
	var bits uint16
	for i, f := range parcelgate.PickupFilters {
		if p.Feature(f) {
			bits |= 1 << i
		}
	}
	return bits
}

// keeps reports whether p passes s's narrowing: the mode's area (radius,
// rectangle, words), parcelLocker, the product and the boolean filters.
func keeps(s *parcelgate.PickupSearch, p *parcelgate.PickupPoint, ix pointIndex, mask, want uint16, words []string) bool {
	if s.CountryCode != "" && s.CountryCode != p.Country {
		return false
	}
	if s.ParcelLocker != nil && *s.ParcelLocker != (p.Type == parcelgate.PointParcelLocker) {
		return false
	}
	if s.ProductCode != "" && !slices.Contains(p.ServiceCodes, s.ProductCode) {
		return false
	}
	if ix.features&mask != want {
		return false
	}
	if r := s.Rectangle; r != nil && (p.Latitude < r.SWLatitude || p.Latitude > r.NELatitude || p.Longitude < r.SWLongitude || p.Longitude > r.NELongitude) {
		return false
	}
	return containsAll(ix.text, words)
}

// SearchPickupPoints answers the gateway's search s (see
// parcelgate.PickupPointFinder): the points it keeps, nearest first from
// the place it names (with their distances), else in ID order; at most
// s.Limit. A search near a Finnish place the data set cannot locate (a
// town it does not know), or in another country, finds nothing: an empty
// list, as the provider answers no match.
func (Network) SearchPickupPoints(s parcelgate.PickupSearch) []parcelgate.PickupPoint {
	out := []parcelgate.PickupPoint{}
	from, located := origin(&s)
	if s.NearPlace() && s.Coordinates == nil && !located {
		return out
	}
	mask, want := filterBits(s.Filters)
	var words []string
	if s.FreeText != "" {
		words = strings.Fields(strings.ToLower(s.FreeText))
	}
	// The matches as indexes and approximate distances (a flat projection
	// around the origin: no trigonometry per point), so that only the
	// answered points are copied and measured exactly.
	ds := data()
	all := ds.Points
	var flat flatMetres
	if located {
		flat = newFlatMetres(from.Latitude, from.Longitude)
	}
	var hits []hit
	for i := range all {
		p := &all[i]
		if !keeps(&s, p, ds.index[i], mask, want, words) {
			continue
		}
		h := hit{i: int32(i)}
		if located {
			h.d = flat.metres(p.Latitude, p.Longitude, ds.index[i].cosLat)
			if s.RadiusMetres > 0 && float64(h.d) > s.RadiusMetres*flatSlack+flatMargin {
				continue
			}
		}
		hits = append(hits, h)
	}
	if !located {
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
		hits[k].d = int32(distanceMetres(from.Latitude, from.Longitude, p.Latitude, p.Longitude))
	}
	slices.SortFunc(hits, hit.compare) // ties in ID order
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
func kthNearest(hits []hit, k int) int32 {
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

// hit is a matching point: its index in the data set (ID order) and its
// distance in metres.
type hit struct{ i, d int32 }

func (a hit) compare(b hit) int {
	if a.d != b.d {
		return int(a.d - b.d)
	}
	return int(a.i - b.i)
}

// ListPickupPoints answers one page of a listing (see
// parcelgate.PickupPointFinder): PickupPageSize points.
func (Network) ListPickupPoints(l parcelgate.PickupList) ([]parcelgate.PickupPoint, bool) {
	return listPickupPoints(l, parcelgate.PickupPageSize)
}

// listPickupPoints is the page of l: the country's points whose IDs start
// with its prefix, after l.After, in ID order (which is postal code
// order), at most n, and whether more follow.
func listPickupPoints(l parcelgate.PickupList, n int) ([]parcelgate.PickupPoint, bool) {
	out := []parcelgate.PickupPoint{}
	ds := data()
	country := ds.byCountry[l.Country] // none for a country the network does not reach
	// The prefix's points are contiguous in ID order: start at the first
	// after l.After and at or after the prefix.
	start, _ := slices.BinarySearchFunc(country, max(l.After+"\x00", l.Prefix), func(i int, id string) int { return strings.Compare(ds.Points[i].ExternalID, id) })
	for _, i := range country[start:] {
		p := ds.Points[i]
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
