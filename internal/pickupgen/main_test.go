package main

import (
	"bytes"
	"compress/gzip"
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
	f, err := os.ReadFile("../../pickup/data/pickuppoints.json.gz")
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
		t.Fatal("pickup/data/pickuppoints.json.gz is not what internal/pickupgen writes; run go generate ./pickup in the repository root")
	}
}

// A national set: thousands of points of every kind, IDs of the provider's
// form (postal code + routing service code, unique, each in its kind's
// range), every point in an area of the data set and in Finland's bounding
// box, and every former 7-digit ID mapped to a point of its own kind.
func TestDataSetShape(t *testing.T) {
	pcs, places, legacy, err := readSources("sources")
	if err != nil {
		t.Fatal(err)
	}
	ds := generate(pcs, places, legacy)
	if len(ds.Areas) < 3000 || len(ds.Points) < 3000 {
		t.Fatalf("%d areas, %d points", len(ds.Areas), len(ds.Points))
	}
	areas := map[string]bool{}
	for _, a := range ds.Areas {
		areas[a.PostalCode] = true
	}
	ranges := map[string]string{"POST_OFFICE": "32", "PICKUP_POINT": "34", "PARCEL_LOCKER": "54"}
	ids := map[string]string{}
	kinds := map[string]int{}
	for _, p := range ds.Points {
		if _, dup := ids[p.ID]; dup {
			t.Errorf("duplicate id %s", p.ID)
		}
		ids[p.ID] = p.Type
		kind := p.Type
		want := ranges[p.Type]
		if strings.Contains(strings.Join(p.Capabilities, ","), "outdoors") {
			kind, want = "OUTDOOR", "55"
		}
		kinds[kind]++
		if len(p.ID) != 9 || p.ID[:5] != p.PostalCode || p.ID[5:7] != want {
			t.Errorf("id %s of a %s in %s", p.ID, kind, p.PostalCode)
		}
		if !areas[p.PostalCode] {
			t.Errorf("%s: no area %s", p.ID, p.PostalCode)
		}
		if p.Latitude < 59.5 || p.Latitude > 70.2 || p.Longitude < 19 || p.Longitude > 31.7 {
			t.Errorf("%s lies outside Finland: %v %v", p.ID, p.Latitude, p.Longitude)
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
