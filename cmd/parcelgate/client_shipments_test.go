package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parcelgate/parcelgate/demo"
)

// decisions §34 from the command line: the demo merchant, a supplier of
// the demo retailer's dropshipping catalog, finds its shipment of the
// retailer's demo order, moves it, confirms it with its own tracking code
// and saves the parcel's delivery note; the retailer sees its suppliers'
// shipments.
func TestClientCLIShipments(t *testing.T) {
	_, cli := clientCLI(t)
	must := func(args ...string) string {
		t.Helper()
		out, err := cli(args...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return out
	}
	var list []struct {
		ShipmentID string
		Status     struct{ Value string }
	}
	json.Unmarshal([]byte(must("shipments", "--status", "Created")), &list)
	if len(list) != 1 {
		t.Fatalf("shipments: %+v", list)
	}
	id := list[0].ShipmentID
	if out := must("set-shipment-status", id, "--status", "Viewed"); !strings.Contains(out, `"value": "Viewed"`) {
		t.Errorf("set-shipment-status: %s", out)
	}
	if _, err := cli("set-shipment-status", id, "--status", "viewed"); err == nil || !strings.Contains(err.Error(), "status.value") {
		t.Errorf("lower-case status: %v", err)
	}
	parcels := filepath.Join(t.TempDir(), "parcels.json")
	os.WriteFile(parcels, []byte(`[{"parcelId":"1","trackingCodes":["OWNCODE1"],"rows":[{"itemId":"1234567-1-MUG","deliveredQuantity":2}]}]`), 0o600)
	if out := must("confirm-shipment", id, "-f", parcels); !strings.Contains(out, `"OWNCODE1"`) || !strings.Contains(out, `"value": "Delivered"`) {
		t.Errorf("confirm-shipment: %s", out)
	}
	if _, err := cli("shipment-label", id, "1", "-o", filepath.Join(t.TempDir(), "l.pdf")); err == nil {
		t.Error("a label for the supplier's own code")
	}
	note := filepath.Join(t.TempDir(), "note.pdf")
	must("shipment-note", id, "1", "-o", note)
	if b, err := os.ReadFile(note); err != nil || !strings.HasPrefix(string(b), "%PDF") {
		t.Errorf("note: %v %.10q", err, b)
	}
	out := must("-username", "demo-retailer", "-password", "demo-retailer-password", "order-shipments", demo.SampleDropshipOrder)
	if strings.Count(out, `"shipmentId"`) != 2 || !strings.Contains(out, "OWNCODE1") {
		t.Errorf("order-shipments: %s", out)
	}
}
