package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// The CLI lists the delivery services and finds pick-up points.
func TestClientCLILocations(t *testing.T) {
	_, cli := clientCLI(t)
	out, err := cli("services")
	if err != nil {
		t.Fatal(err)
	}
	var svcs []struct{ ID string }
	if err := json.Unmarshal([]byte(out), &svcs); err != nil || len(svcs) != 12 {
		t.Fatalf("services: %v %s", err, out)
	}
	out, err = cli("pickup-points", "-service-code", "2103", "-postal-code", "40100", "-capability", "!outdoors", "-limit", "3")
	if err != nil {
		t.Fatal(err)
	}
	var pts []struct{ ExternalID, PostOffice string }
	if err := json.Unmarshal([]byte(out), &pts); err != nil || len(pts) != 3 || pts[0].PostOffice != "JYVÄSKYLÄ" {
		t.Fatalf("pickup-points: %v %s", err, out)
	}
	if _, err := cli("pickup-points", "-postal-code", "401"); err == nil || !strings.Contains(err.Error(), "postalCode") {
		t.Errorf("bad postal code: %v", err)
	}
}
