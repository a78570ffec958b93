package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
)

// The embedded data set is exactly what this generator writes from the
// committed sources (run `go generate ./pickup` in the repository root after
// changing either).
func TestDataSetIsGenerated(t *testing.T) {
	want, err := build("sources")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.ReadFile("../../../pickup/data/pickuppoints.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(f))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("pickup/data/pickuppoints.json.gz is not what internal/tools/pickupgen writes; run go generate ./pickup in the repository root")
	}
}

// A national set: thousands of points of every kind, IDs of the provider's
// form (postal code + routing service code, unique, each in its kind's
// range), every point in an area of the data set and in Finland's bounding
// box, and every former 7-digit ID mapped to a point of its own kind.
func TestDataSetShape(t *testing.T) {
	in, err := readInputs("sources")
	if err != nil {
		t.Fatal(err)
	}
	legacy := in.legacy
	ds := generate(in)
	if len(ds.Areas) < 3000 || len(ds.Points) < 3000 {
		t.Fatalf("%d areas, %d points", len(ds.Areas), len(ds.Points))
	}
	areas := map[string]bool{}
	for _, a := range ds.Areas {
		areas[a.Country+" "+a.PostalCode] = true
	}
	ranges := map[string]string{"POST_OFFICE": "32", "PICKUP_POINT": "34", "PARCEL_LOCKER": "54"}
	ids := map[string]string{}
	kinds := map[string]int{}
	abroadKinds := map[string]int{}
	// Rough bounding boxes of the countries abroad: south, west, north, east.
	boxes := map[string][4]float64{"EE": {57.4, 21.5, 59.9, 28.3}, "LV": {55.6, 20.9, 58.1, 28.3}, "LT": {53.8, 20.9, 56.5, 26.9},
		"SE": {55.3, 10.9, 69.1, 24.2}, "DK": {54.5, 8.0, 57.8, 15.2}}
	for _, p := range ds.Points {
		if _, dup := ids[p.ID]; dup {
			t.Errorf("duplicate id %s", p.ID)
		}
		ids[p.ID] = p.Type
		if p.Country != "" {
			// Abroad: the code's digits (five, led by 0), 1 (shop) or 2
			// (locker), the country's digit.
			c, ok := abroad[p.Country]
			digits := postcodeDigits(p.PostalCode)
			for len(digits) < 5 {
				digits = "0" + digits
			}
			kind := map[string]string{"PICKUP_POINT": "1", "PARCEL_LOCKER": "2"}[p.Type]
			if !ok || len(p.ID) != 9 || p.ID[:5] != digits || p.ID[5:6] != kind || p.ID[6:7] != fmt.Sprint(c.digit) {
				t.Errorf("id %s of a %s in %s %s", p.ID, p.Type, p.Country, p.PostalCode)
			}
			if !areas[p.Country+" "+p.PostalCode] {
				t.Errorf("%s: no area %s %s", p.ID, p.Country, p.PostalCode)
			}
			if b := boxes[p.Country]; p.Latitude < b[0] || p.Latitude > b[2] || p.Longitude < b[1] || p.Longitude > b[3] {
				t.Errorf("%s lies outside %s: %v %v", p.ID, p.Country, p.Latitude, p.Longitude)
			}
			abroadKinds[p.Country+" "+p.Type]++
			continue
		}
		kind := p.Type
		want := ranges[p.Type]
		if strings.Contains(strings.Join(p.Capabilities, ","), "outdoors") {
			kind, want = "OUTDOOR", "55"
		}
		if p.ID == "001003230" { // the provider's live example: a shop in the post office range
			want = "32"
		}
		kinds[kind]++
		if len(p.ID) != 9 || p.ID[:5] != p.PostalCode || p.ID[5:7] != want {
			t.Errorf("id %s of a %s in %s", p.ID, kind, p.PostalCode)
		}
		if !areas[" "+p.PostalCode] {
			t.Errorf("%s: no area %s", p.ID, p.PostalCode)
		}
		if p.Latitude < 59.5 || p.Latitude > 70.2 || p.Longitude < 19 || p.Longitude > 31.7 {
			t.Errorf("%s lies outside Finland: %v %v", p.ID, p.Latitude, p.Longitude)
		}
	}
	for _, c := range abroadCountries {
		for _, k := range []string{"PICKUP_POINT", "PARCEL_LOCKER"} {
			if abroadKinds[c+" "+k] < 40 {
				t.Errorf("%s: %d points of kind %s", c, abroadKinds[c+" "+k], k)
			}
		}
	}
	// The provider's examples are there as given (examples.tsv).
	for _, id := range []string{"001003200", "001003230", "002303200"} {
		if _, ok := ids[id]; !ok {
			t.Errorf("the provider's example %s is missing", id)
		}
	}
	for _, k := range []string{"POST_OFFICE", "PICKUP_POINT", "PARCEL_LOCKER", "OUTDOOR"} {
		if kinds[k] < 50 {
			t.Errorf("%d points of kind %s", kinds[k], k)
		}
	}
	for _, l := range legacy {
		if ids[ds.LegacyIDs[l.id]] != l.kind {
			t.Errorf("former %s (%s) maps to %q", l.id, l.kind, ds.LegacyIDs[l.id])
		}
	}
}
