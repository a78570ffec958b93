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

// Issue 25: the CLI's pickuppoints (the gateway's Pick-up Point API) and
// estimate, the latter reproducing the provider's first published example.
func TestClientCLIGatewayLocations(t *testing.T) {
	_, cli := clientCLI(t)
	out, err := cli("pickuppoints", "-postcode", "20100", "-limit", "2", "-language", "fi")
	if err != nil {
		t.Fatal(err)
	}
	var pts []struct{ ExternalID, PostalCode, TypeName string }
	if err := json.Unmarshal([]byte(out), &pts); err != nil || len(pts) != 2 || pts[0].PostalCode != "20100" || pts[0].TypeName == "" {
		t.Fatalf("pickuppoints: %v %s", err, out)
	}
	out, err = cli("pickuppoints", "FI", pts[0].ExternalID)
	if err != nil || !strings.Contains(out, pts[0].ExternalID) {
		t.Fatalf("one point: %v %s", err, out)
	}
	if _, err := cli("pickuppoints", "-postcode", "201"); err == nil || !strings.Contains(err.Error(), "searchCriteria.location.postcode") {
		t.Errorf("bad postcode: %v", err)
	}
	out, err = cli("estimate", "-from", "00100", "-to", "99710", "-product", "2103", "-time", "2014-10-03T09:00:00+03:00")
	if err != nil || !strings.Contains(out, `"deliveryTime": "2014-10-07T16:00:00.000+03:00"`) {
		t.Fatalf("estimate: %v %s", err, out)
	}
	if _, err := cli("estimate", "-from", "00100", "-to", "99710", "-product", "2103", "-saturday"); err == nil || !strings.Contains(err.Error(), "additionalServices") {
		t.Errorf("Saturday delivery of a postal parcel: %v", err)
	}
}
