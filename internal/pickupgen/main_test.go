package main

import (
	"bytes"
	"os"
	"testing"
)

// The embedded data set is exactly what this generator writes, so the
// table above is its one source (run `go generate` in the repository root
// after changing it).
func TestDataSetIsGenerated(t *testing.T) {
	var want bytes.Buffer
	if err := write(&want); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../data/pickuppoints.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatal("data/pickuppoints.json is not what internal/pickupgen writes; run go generate in the repository root")
	}
}

// Every area has a post office, its points lie near its centre, and every
// point's ID is unique and of the form the plugin parses out of "(#id)".
func TestDataSetShape(t *testing.T) {
	ds := generate()
	ids := map[string]bool{}
	offices := map[string]int{}
	for _, p := range ds.Points {
		if ids[p.ExternalID] {
			t.Errorf("duplicate id %s", p.ExternalID)
		}
		ids[p.ExternalID] = true
		if p.Type == "POST_OFFICE" {
			offices[p.PostalCode]++
		}
		if len(p.ExternalID) != 7 {
			t.Errorf("id %q is not 7 digits", p.ExternalID)
		}
	}
	for _, a := range ds.Areas {
		if offices[a.PostalCode] != 1 {
			t.Errorf("area %s has %d post offices", a.PostalCode, offices[a.PostalCode])
		}
	}
	if len(ds.Points) < 250 {
		t.Errorf("only %d points", len(ds.Points))
	}
}
