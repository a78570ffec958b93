package main

import (
	"encoding/json"
	"os"
	"path/filepath"
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
	var res struct {
		ShipmentNo string
		Parcels    []struct{ ParcelNo string }
		Prints     []struct{ Media string }
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Parcels) != 2 || len(res.Prints) != 1 || res.Prints[0].Media != "thermo-190" {
		t.Fatalf("%v: %s", err, out)
	}
	pdf, err := os.ReadFile(filepath.Join(labels, res.ShipmentNo+"_ADDRESSLABEL.pdf"))
	if err != nil || !strings.HasPrefix(string(pdf), "%PDF-") {
		t.Fatalf("label file: %v %q", err, pdf[:min(len(pdf), 10)])
	}
	one := filepath.Join(dir, "one.pdf")
	if _, err := cli("label", res.Parcels[1].ParcelNo, "-o", one); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(one); !strings.HasPrefix(string(b), "%PDF-") {
		t.Fatalf("label NUMBER wrote %q", b[:min(len(b), 10)])
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
	for _, by := range [][2]string{{"ordernumber", "cli-1"}, {"consignmentnumber", res.ShipmentNo}} {
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
