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

// The CLI's gateway-pickup-points (the gateway's Pick-up Point API: a search, a
// country's page, one point) and estimate, the latter reproducing the
// estimation API's first published example in the gateway's shape.
func TestClientCLIGatewayLocations(t *testing.T) {
	_, cli := clientCLI(t)
	out, err := cli("gateway-pickup-points", "-postcode", "20100", "-limit", "2", "-language", "sv", "-parcel-locker", "true", "-filter", "outdoorLocker=false")
	if err != nil {
		t.Fatal(err)
	}
	var pts []struct {
		ID           string
		PublicName   string
		ParcelLocker bool
		Location     struct{ Postcode, City string }
	}
	if err := json.Unmarshal([]byte(out), &pts); err != nil || len(pts) != 2 || len(pts[0].ID) != 9 || !pts[0].ParcelLocker || pts[0].Location.City != "Åbo" {
		t.Fatalf("gateway-pickup-points: %v %s", err, out)
	}
	out, err = cli("gateway-pickup-points", "FI", pts[0].ID)
	if err != nil || !strings.Contains(out, pts[0].ID) {
		t.Fatalf("one point: %v %s", err, out)
	}
	// The old name still runs it (decisions §42).
	out, err = cli("pickuppoints", "FI001")
	if err != nil || !strings.Contains(out, `"id": "001003200"`) {
		t.Fatalf("a page: %v %s", err, out)
	}
	if _, err := cli("pickuppoints", "-postcode", "201"); err == nil || !strings.Contains(err.Error(), "searchCriteria.location.postcode") {
		t.Errorf("bad postcode: %v", err)
	}
	out, err = cli("estimate", "-from", "00100", "-to", "99710", "-product", "2103", "-time", "2014-10-03T09:00:00+03:00")
	if err != nil || !strings.Contains(out, `"time": "2014-10-07T13:00:00Z"`) {
		t.Fatalf("estimate: %v %s", err, out)
	}
	if _, err := cli("estimate", "-from", "00100", "-to", "99710", "-product", "2103", "-saturday"); err == nil || !strings.Contains(err.Error(), "additionalServicesCodes") {
		t.Errorf("Saturday delivery of a postal parcel: %v", err)
	}
}
