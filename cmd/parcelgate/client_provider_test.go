package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The CLI follows the provider's names and calls (issue 40): track --by
// takes find's keys in the provider's names (its help lists them), the
// sending code commands send x-test-environment with --mock,
// reservation-status calls reservations/status, --oauth takes the
// service account's token from POST /oauth/token, orders filters by order
// date and document type, and gateway-pickup-points on 2026-04 prints
// the live shapes.
func TestClientCLIProviderNames(t *testing.T) {
	_, cli := clientCLI(t)
	must := func(args ...string) string {
		t.Helper()
		out, err := cli(args...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return out
	}
	_, help, _ := cliRun("client", "track", "-h")
	for _, key := range []string{"parcel_order_number", "parcel_all", "freight_waybill_number", "all,!parcel_order_number"} {
		if !strings.Contains(help, key) {
			t.Errorf("track -h does not name %s", key)
		}
	}
	dir := t.TempDir()
	order := filepath.Join(dir, "order.json")
	os.WriteFile(order, []byte(`{"shipment":{
		"sender":{"name":"Kauppa Oy","address1":"Katu 1","zipcode":"00100","city":"Helsinki","country":"FI"},
		"receiver":{"name":"Matti","address1":"Tie 2","zipcode":"33720","city":"Tampere","country":"FI"},
		"service":{"id":"PO2103"},"orderNo":"CLI-KEYS-1","parcels":[{"copies":2,"weight":1}]}}`), 0o600)
	var made struct{ ShipmentNo string }
	json.Unmarshal([]byte(must("create-shipping-order", "-f", order, "--labels", filepath.Join(dir, "labels"), "--json")), &made)
	for _, c := range []struct {
		by, value string
		want      int
	}{
		{"parcel_order_number", "cli-keys-1", 2},
		{"all,!parcel_order_number", "CLI-KEYS-1", 0},
		{"parcel_consignment_number", made.ShipmentNo, 2},
		{"freight_all", "CLI-KEYS-1", 0},
		{"ordernumber", "CLI-KEYS-1", 2}, // a route's name calls the route
	} {
		var got []any
		if err := json.Unmarshal([]byte(must("track", "--by", c.by, c.value)), &got); err != nil || len(got) != c.want {
			t.Errorf("track --by %s %s: %d parcels, want %d (%v)", c.by, c.value, len(got), c.want, err)
		}
	}
	if _, err := cli("track", "--by", "reference", "CLI-KEYS-1"); err == nil || !strings.Contains(err.Error(), "keys") {
		t.Errorf("an unknown key: %v", err)
	}

	// x-test-environment: mock codes for a number nothing holds.
	const tn = "JJFI65432100000000002"
	var code struct {
		SendingCode string
		Mock        bool
	}
	json.Unmarshal([]byte(must("create-sending-code", "--mock", tn)), &code)
	if !code.Mock || len(code.SendingCode) != 6 {
		t.Fatalf("create-sending-code --mock: %+v", code)
	}
	if out := must("sending-code", "--mock", tn); !strings.Contains(out, code.SendingCode) || !strings.Contains(out, `"mock": true`) {
		t.Errorf("sending-code --mock: %s", out)
	}
	if out := must("sending-code-shipment", "--mock", code.SendingCode); !strings.Contains(out, `"mock": true`) || !strings.Contains(out, `"receiver"`) {
		t.Errorf("sending-code-shipment --mock: %s", out)
	}
	if _, err := cli("sending-code", tn); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("a mock code was stored: %v", err)
	}

	// reservations/status over the next week at the parcels' postcode: an
	// entry for each (Finnish) day the window touches.
	now := time.Now().UTC().Truncate(time.Hour)
	var days []struct{ From, To time.Time }
	out := must("reservation-status", "--from", now.Format(time.RFC3339), "--to", now.Add(7*24*time.Hour).Format(time.RFC3339), "--postcode", "33720")
	if err := json.Unmarshal([]byte(out), &days); err != nil || len(days) < 7 || len(days) > 8 || !days[0].From.Equal(now) || !days[len(days)-1].To.Equal(now.Add(7*24*time.Hour)) {
		t.Errorf("reservation-status: %v %s", err, out)
	}
	if _, err := cli("reservation-status", "--from", now.Format(time.RFC3339), "--to", now.Add(time.Hour).Format(time.RFC3339)); err == nil || !strings.Contains(err.Error(), "postcode") {
		t.Errorf("reservation-status without a postcode: %v", err)
	}

	// The provider's Authentication API route.
	if out := must("--oauth", "token"); !strings.Contains(out, `"access_token"`) {
		t.Errorf("--oauth token: %s", out)
	}
	if out := must("--oauth", "orders", "--document-type", "PurchaseOrder"); strings.TrimSpace(out) != "[]" {
		t.Errorf("purchase orders: %s", out)
	}
	if _, err := cli("orders", "--document-type", "Invoice"); err == nil || !strings.Contains(err.Error(), "documentType") {
		t.Errorf("an unknown document type: %v", err)
	}
	if out := must("orders", "--from", "2000-01-01T00:00:00Z", "--to", "2000-02-01T00:00:00Z"); strings.TrimSpace(out) != "[]" {
		t.Errorf("orders of January 2000: %s", out)
	}

	// Pick-up points in the provider's live shapes (2026-04): the
	// coordinates example's K-Market Etu-Töölö.
	out = must("--api-version", "2026-04", "gateway-pickup-points", "--latitude", "60.17", "--longitude", "24.93", "--radius", "450", "--language", "en")
	var pts []struct {
		ID, CareOf   string
		Capabilities []struct{ Name, Value, CutOffTime string }
	}
	if err := json.Unmarshal([]byte(out), &pts); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	found := false
	for _, p := range pts {
		if p.ID == "001003230" {
			found = p.CareOf == "c/o Posti, K-Market Etu-Töölö" && len(p.Capabilities) > 0 && p.Capabilities[0].Value != ""
		}
	}
	if !found {
		t.Errorf("2026-04 search: %s", out)
	}
}

// issue 40 item 1 from the command line: the supplier splits its demo
// shipment and confirms it in one call (parcel 1 as it was, parcel 2 added
// with its service fields), reads the options and reports an event.
func TestClientCLISupplierSplitConfirmEventsOptions(t *testing.T) {
	_, cli := clientCLI(t)
	must := func(args ...string) string {
		t.Helper()
		out, err := cli(args...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return out
	}
	var list []struct{ ShipmentID string }
	json.Unmarshal([]byte(must("supplier-shipments", "--status", "Created")), &list)
	if len(list) != 1 {
		t.Fatalf("supplier-shipments: %+v", list)
	}
	id := list[0].ShipmentID
	var opts struct {
		Open    bool
		Options []struct{ ServiceCode string }
	}
	json.Unmarshal([]byte(must("supplier-shipment-options", id)), &opts)
	if !opts.Open || len(opts.Options) == 0 {
		t.Errorf("supplier-shipment-options: %+v", opts)
	}
	out := must("add-supplier-shipment-event", id, "--code", "PACKED", "--description", "in two boxes", "--external-id", "ev-1")
	if !strings.Contains(out, `"code": "PACKED"`) {
		t.Errorf("add-supplier-shipment-event: %s", out)
	}
	if _, err := cli("add-supplier-shipment-event", id); err == nil || !strings.Contains(err.Error(), "--code") {
		t.Errorf("an event without --code: %v", err)
	}
	parcels := filepath.Join(t.TempDir(), "parcels.json")
	os.WriteFile(parcels, []byte(`[
		{"parcelId":"1","packageType":"PC","ready":true,"rows":[{"itemId":"1234567-1-MUG","quantity":2,"deliveredQuantity":1}]},
		{"parcelId":"2","packageType":"PC","serviceCode":"2103","pickupPointId":"002303200","routingServiceCode":"3200","ready":true,
		 "rows":[{"itemId":"1234567-1-MUG","quantity":2,"deliveredQuantity":1}]}]`), 0o600)
	var done struct {
		Status      struct{ Value string }
		Consignment struct {
			Parcels []struct {
				TrackingCodes   []string
				LabelURL        string
				DeliveryNoteURL string
			}
		}
	}
	out = must("split-supplier-shipment", id, "-f", parcels, "--confirm")
	if err := json.Unmarshal([]byte(out), &done); err != nil || done.Status.Value != "Delivered" || len(done.Consignment.Parcels) != 2 {
		t.Fatalf("split --confirm: %v %s", err, out)
	}
	for i, p := range done.Consignment.Parcels {
		if len(p.TrackingCodes) != 1 || p.LabelURL == "" || p.DeliveryNoteURL == "" {
			t.Errorf("parcel %d: %+v", i+1, p)
		}
	}
}
