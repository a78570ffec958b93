package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/parcelgate/parcelgate/demo"
)

// decisions §34 from the command line: the demo merchant, a supplier of
// the demo retailer's dropshipping catalog, finds its shipment of the
// retailer's demo order, moves it, confirms it with its own tracking code
// and saves the parcel's delivery note; the retailer sees its suppliers'
// shipments. The commands' old names still run them (decisions §42).
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
	json.Unmarshal([]byte(must("supplier-shipments", "--status", "Created")), &list)
	if len(list) != 1 {
		t.Fatalf("supplier-shipments: %+v", list)
	}
	if old := must("shipments", "--status", "Created"); old != must("supplier-shipments", "--status", "Created") {
		t.Errorf("the old name shipments lists another thing: %s", old)
	}
	id := list[0].ShipmentID
	if out := must("set-supplier-shipment-status", id, "--status", "Viewed"); !strings.Contains(out, `"value": "Viewed"`) {
		t.Errorf("set-supplier-shipment-status: %s", out)
	}
	// The old name moves it too (Viewed again: a retry answers it unchanged).
	if out := must("set-shipment-status", id, "--status", "Viewed"); !strings.Contains(out, `"value": "Viewed"`) {
		t.Errorf("set-shipment-status: %s", out)
	}
	if _, err := cli("set-supplier-shipment-status", id, "--status", "viewed"); err == nil || !strings.Contains(err.Error(), "status.value") {
		t.Errorf("lower-case status: %v", err)
	}
	parcels := filepath.Join(t.TempDir(), "parcels.json")
	os.WriteFile(parcels, []byte(`[{"parcelId":"1","trackingCodes":["OWNCODE1"],"rows":[{"itemId":"1234567-1-MUG","deliveredQuantity":2}]}]`), 0o600)
	if out := must("confirm-supplier-shipment", id, "-f", parcels); !strings.Contains(out, `"OWNCODE1"`) || !strings.Contains(out, `"value": "Delivered"`) {
		t.Errorf("confirm-supplier-shipment: %s", out)
	}
	if _, err := cli("supplier-parcel-label", id, "1", "-o", filepath.Join(t.TempDir(), "l.pdf")); err == nil {
		t.Error("a label for the supplier's own code")
	}
	// The note is written, and listed as a file: path, kind, size and the
	// parcel's tracking code, not its bytes.
	note := filepath.Join(t.TempDir(), "note.pdf")
	out := must("supplier-parcel-note", id, "1", "-o", note)
	b, err := os.ReadFile(note)
	if err != nil || !strings.HasPrefix(string(b), "%PDF") {
		t.Errorf("note: %v %.10q", err, b)
	}
	if f := strings.Fields(out); len(f) != 5 || f[0] != note || f[1] != "delivery-note" || f[2] != strconv.Itoa(len(b)) || f[4] != "OWNCODE1" {
		t.Errorf("supplier-parcel-note printed %q", out)
	}
	out = must("-username", "demo-retailer", "-password", "demo-retailer-password", "order-supplier-shipments", demo.SampleDropshipOrder)
	if strings.Count(out, `"shipmentId"`) != 2 || !strings.Contains(out, "OWNCODE1") {
		t.Errorf("order-supplier-shipments: %s", out)
	}
}
