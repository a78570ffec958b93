// Package pickup is the provider's pick-up point network and its delivery
// promises, as parcelgate ships them: the data set of points compiled into
// the binary (data/pickuppoints.json.gz, written by internal/tools/pickupgen
// from public data; decisions §32), its search engine, and the estimate
// model over its promise table (data/promises.json; decisions §19).
// Network implements the root's PickupPointFinder and DeliveryEstimator;
// the wiring hands it to the front ends, which reach it only through
// those interfaces. The points and promises are reference data, the same
// for every tenant and environment, read once from memory: nothing here
// does I/O, and nothing is loaded from another host.
//
// The rules of what a point is, what a search may ask and how an answer
// is written stay in the root; this package holds what needs the data.
package pickup

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/json"
	"math"
	"strings"
	"sync"

	"github.com/parcelgate/parcelgate"
)

//go:generate go run ../internal/tools/pickupgen -sources ../internal/tools/pickupgen/sources -o data/pickuppoints.json.gz

//go:embed data/pickuppoints.json.gz
var pickupDataGzip []byte

// Network is the pick-up point network and the estimate model over the
// embedded data: the root's PickupPointFinder and DeliveryEstimator. Its
// zero value is ready; the data are read once, when first needed.
type Network struct{}

var (
	_ parcelgate.PickupPointFinder = Network{}
	_ parcelgate.DeliveryEstimator = Network{}
)

// pointJSON is a point as the data set writes it.
type pointJSON struct {
	ID              string   `json:"id"`
	Country         string   `json:"country"`
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

type dataSet struct {
	Attribution  string                               `json:"attribution"`
	OpeningHours map[string][]parcelgate.OpeningHours `json:"openingHours"`
	Areas        []parcelgate.PostalArea              `json:"areas"`
	RawPoints    []pointJSON                          `json:"points"`
	LegacyIDs    map[string]string                    `json:"legacyIds"`
	// Points are in ID order, which is postal code order; index[i] is
	// what the searches keep of Points[i].
	Points []parcelgate.PickupPoint `json:"-"`
	index  []pointIndex
	byID   map[string]int
	// area finds an area by areaKey; byCountry lists each country's
	// points (indexes of Points, in ID order).
	area      map[string]int
	byCountry map[string][]int
	// countryAreas lists each country's areas (indexes of Areas, in
	// postal code order).
	countryAreas map[string][]int
}

// areaKey is how an area is found: its country (FI for Finland) and the
// digits of its postal code (LV-1050 is LV 1050, 111 22 is SE 11122).
func areaKey(country, postalCode string) string {
	if country == "" {
		country = "FI"
	}
	var b strings.Builder
	b.WriteString(country)
	b.WriteByte(' ')
	for _, r := range postalCode {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// pointIndex is what the searches read of a point, made once: its search
// text (see searchText), its latitude's cosine (for flatMetres) and its
// service filters as bits (see featureBits).
type pointIndex struct {
	text     string
	cosLat   float64
	features uint16
}

// data is the embedded data set, read once. It is checked by tests; a
// broken file is a build defect, so reading it panics.
var data = sync.OnceValue(func() *dataSet {
	zr, err := gzip.NewReader(bytes.NewReader(pickupDataGzip))
	if err != nil {
		panic("pickup: data/pickuppoints.json.gz: " + err.Error())
	}
	var ds dataSet
	if err := json.NewDecoder(zr).Decode(&ds); err != nil {
		panic("pickup: data/pickuppoints.json.gz: " + err.Error())
	}
	ds.area = make(map[string]int, len(ds.Areas))
	ds.countryAreas = map[string][]int{}
	for i, a := range ds.Areas {
		ds.area[areaKey(a.Country, a.PostalCode)] = i
		c := a.Country
		if c == "" {
			c = "FI"
		}
		ds.countryAreas[c] = append(ds.countryAreas[c], i)
	}
	ds.byCountry = map[string][]int{}
	ds.byID = make(map[string]int, len(ds.RawPoints))
	ds.Points = make([]parcelgate.PickupPoint, len(ds.RawPoints))
	ds.index = make([]pointIndex, len(ds.RawPoints))
	for i, r := range ds.RawPoints {
		a := &ds.Areas[ds.area[areaKey(r.Country, r.PostalCode)]]
		country := r.Country
		if country == "" {
			country = "FI"
		}
		p := parcelgate.PickupPoint{
			ExternalID: r.ID, PupCode: r.ID, Type: r.Type, ServiceProvider: parcelgate.DeliveryOperator,
			StreetAddress: r.Street, PostalCode: r.PostalCode, PostOffice: a.PostOffice, Country: country,
			Latitude: r.Latitude, Longitude: r.Longitude, Capabilities: r.Capabilities, ServiceCodes: r.ServiceCodes,
			OpeningHours: ds.OpeningHours[r.Hours], RoutingServiceCode: r.ID[5:], RoutingPostcode: r.RoutingPostcode,
			Host: r.Host, Area: a,
		}
		if p.RoutingPostcode == "" {
			p.RoutingPostcode = p.PostalCode
		}
		p.Name = p.PublicName(p.Language())
		ds.Points[i] = p
		ds.byCountry[country] = append(ds.byCountry[country], i)
		ds.index[i] = pointIndex{text: searchText(p), cosLat: math.Cos(p.Latitude * math.Pi / 180), features: featureBits(p)}
		ds.byID[r.ID] = i
	}
	ds.RawPoints = nil
	return &ds
})

// AllPickupPoints is every point of the data set, in ID order. The slice
// is shared: callers must not change it. For tests and load runs; the
// server reads points through the finder's calls.
func AllPickupPoints() []parcelgate.PickupPoint { return data().Points }
