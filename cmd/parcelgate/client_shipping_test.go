package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// decisions §29, §30: the CLI makes a shipment with the shipping API and
// writes its label PDFs ({shipmentNo}_{pdf_type}.pdf, as posti-cli names
// them), fetches a label by number, and tracks the parcels.
func TestClientCLIShippingAndTracking(t *testing.T) {
	_, cli := clientCLI(t)
	dir := t.TempDir()
	order := filepath.Join(dir, "order.json")
	os.WriteFile(order, []byte(`{"printConfig":{"target1Media":"thermo-190"},"shipment":{
		"sender":{"name":"Kauppa Oy","address1":"Katu 1","zipcode":"00100","city":"Helsinki","country":"FI"},
		"receiver":{"name":"Matti","address1":"Tie 2","zipcode":"33100","city":"Tampere","country":"FI"},
		"service":{"id":"PO2103","addons":[{"id":"3196"}]},"orderNo":"CLI-1",
		"parcels":[{"copies":2,"weight":1.5,"packageCode":"PKT"}]}}`), 0o600)
	labels := filepath.Join(dir, "labels")
	out, err := cli("create-shipping-order", "-f", order, "--labels", labels)
	if err != nil {
		t.Fatal(err)
	}
	// decisions §42: the PDFs are written and listed, one line per file
	// (path, medium, size, tracking number), not printed as base64.
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	f := strings.Fields(lines[0])
	if len(lines) != 1 || len(f) != 5 || f[1] != "thermo-190" || f[3] != "bytes" || !strings.HasPrefix(f[4], "JJFI") || strings.Contains(out, "JVBER") {
		t.Fatalf("create-shipping-order printed %q", out)
	}
	shipmentNo := f[4]
	if f[0] != filepath.Join(labels, shipmentNo+"_ADDRESSLABEL.pdf") {
		t.Errorf("listed %s", f[0])
	}
	pdf, err := os.ReadFile(f[0])
	if err != nil || !strings.HasPrefix(string(pdf), "%PDF-") || f[2] != strconv.Itoa(len(pdf)) {
		t.Fatalf("label file: %v %q, listed as %s bytes", err, pdf[:min(len(pdf), 10)], f[2])
	}
	// --json prints the answer instead, its PDF data left out (in the file).
	os.WriteFile(order, []byte(strings.Replace(string(mustRead(t, order)), "CLI-1", "CLI-2", 1)), 0o600)
	out, err = cli("create-shipping-order", "-f", order, "--labels", labels, "--json")
	var again struct {
		ShipmentNo string
		Parcels    []struct{ ParcelNo string }
		Prints     []struct{ Media, Data string }
	}
	if err != nil || json.Unmarshal([]byte(out), &again) != nil || len(again.Parcels) != 2 || len(again.Prints) != 1 || again.Prints[0].Data != "" {
		t.Fatalf("--json: %v %s", err, out)
	}
	if _, err := os.Stat(filepath.Join(labels, again.ShipmentNo+"_ADDRESSLABEL.pdf")); err != nil {
		t.Errorf("--json wrote no label: %v", err)
	}
	// The parcels of the first shipment, by its consignment number
	// (decisions §39: the waybill number is a freight key).
	out, err = cli("track", "--by", "consignmentnumber", shipmentNo)
	var res struct{ Parcels []struct{ ParcelNo string } }
	var parcels []struct{ TrackingCode string }
	if err != nil || json.Unmarshal([]byte(out), &parcels) != nil || len(parcels) != 2 {
		t.Fatalf("track --by consignmentnumber: %v %s", err, out)
	}
	for _, p := range parcels {
		res.Parcels = append(res.Parcels, struct{ ParcelNo string }{p.TrackingCode})
	}
	one := filepath.Join(dir, "one.pdf")
	out, err = cli("label", res.Parcels[1].ParcelNo, "-o", one)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(one)
	if !strings.HasPrefix(string(b), "%PDF-") {
		t.Fatalf("label NUMBER wrote %q", b[:min(len(b), 10)])
	}
	if f := strings.Fields(out); len(f) != 5 || f[0] != one || f[2] != strconv.Itoa(len(b)) || f[4] != res.Parcels[1].ParcelNo {
		t.Errorf("label NUMBER printed %q", out)
	}
	out, err = cli("track", res.Parcels[0].ParcelNo+","+res.Parcels[1].ParcelNo)
	if err != nil {
		t.Fatal(err)
	}
	var tracked []struct {
		TrackingCode string
		Status       struct{ Code string }
		References   []struct{ Value string }
	}
	if err := json.Unmarshal([]byte(out), &tracked); err != nil || len(tracked) != 2 || tracked[0].Status.Code != "WAITING" || tracked[1].References[0].Value != "CLI-1" {
		t.Fatalf("%v: %s", err, out)
	}
	// decisions §30, §39: the other keys: the order number is the
	// shipment's reference, the consignment number its tracking number.
	for _, by := range [][2]string{{"ordernumber", "cli-1"}, {"consignmentnumber", shipmentNo}} {
		out, err = cli("track", "--by", by[0], by[1])
		if err != nil {
			t.Fatalf("track --by %s: %v", by[0], err)
		}
		tracked = nil
		if err := json.Unmarshal([]byte(out), &tracked); err != nil || len(tracked) != 2 || tracked[0].TrackingCode != res.Parcels[0].ParcelNo {
			t.Fatalf("track --by %s: %v: %s", by[0], err, out)
		}
	}
	if _, err := cli("track", "--by", "phonenumber", "+358401234567"); err == nil || !strings.Contains(err.Error(), "restricted") {
		t.Fatalf("track --by phonenumber: %v, want the restriction", err)
	}
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
