package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The everyday tasks of the client CLI against the demo tenant: a sending
// code, errand codes, products and stock, orders.
func TestClientCLIEverydayTasks(t *testing.T) {
	_, cli := clientCLI(t)
	must := func(args ...string) string {
		t.Helper()
		out, err := cli(args...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return out
	}
	file := func(name, body string) string {
		p := filepath.Join(t.TempDir(), name)
		os.WriteFile(p, []byte(body), 0o600)
		return p
	}

	var code struct{ TrackingNumber, SendingCode string }
	json.Unmarshal([]byte(must("create-sending-code", "-no-edi-check", "JJFI12345678901234567")), &code)
	if len(code.SendingCode) != 6 {
		t.Fatalf("sending code %+v", code)
	}
	if out := must("sending-code", "JJFI12345678901234567"); !strings.Contains(out, code.SendingCode) {
		t.Errorf("sending-code: %s", out)
	}
	var sh struct{ Parcels []struct{ ParcelID string } }
	json.Unmarshal([]byte(must("create-shipment", "-f", file("s.json", `{"serviceCode":"2103","sender":{"name":"Shop"},"receiver":{"name":"Maija"},"parcels":[{"packageCode":"S2"}]}`))), &sh)
	if len(sh.Parcels) != 1 {
		t.Fatalf("shipment %+v", sh)
	}
	var codes []struct{ ParcelID, ErrandCode, ResultText string }
	json.Unmarshal([]byte(must("errand-codes", sh.Parcels[0].ParcelID+",JJFI99999999999999")), &codes)
	if len(codes) != 2 || codes[0].ResultText != "OK" || codes[1].ResultText == "OK" {
		t.Errorf("errand codes %+v", codes)
	}

	must("put-inventory", "-f", file("p.json", `[{"product":{"externalId":"1234567-1-P1","descriptions":{"fi":{"name":"Tuote"}}},
		"balances":[{"retailerId":"1234567-1","catalogExternalId":"WH1","quantity":100,"wholesalePrice":2.5,"currency":"EUR"}]}]`))
	var items []struct{ Product struct{ ExternalID string } }
	json.Unmarshal([]byte(must("inventory")), &items)
	if !slices.ContainsFunc(items, func(it struct{ Product struct{ ExternalID string } }) bool {
		return it.Product.ExternalID == "1234567-1-P1"
	}) {
		t.Errorf("inventory %+v", items)
	}
	if out := must("balances", "-page", "0", "-product", "1234567-1-P1"); !strings.Contains(out, `"totalElements": 1`) {
		t.Errorf("balances page: %s", out)
	}
	var o struct{ ID, ExternalID string }
	json.Unmarshal([]byte(must("create-order", "-f", file("o.json", `{"externalId":"1234567-1-CLI1","serviceCode":"2103",
		"deliveryAddress":{"name":"Maija","email":"maija@example.com"},
		"rows":[{"externalProductId":"1234567-1-P1","externalWarehouseId":"WH1","quantity":2}]}`))), &o)
	if o.ExternalID != "1234567-1-CLI1" {
		t.Fatalf("order %+v", o)
	}
	if out := must("orders", "-status", "Created"); !strings.Contains(out, o.ID) {
		t.Errorf("orders: %s", out)
	}
	var cm struct{ ID, Value string }
	json.Unmarshal([]byte(must("add-order-comment", "-value", "Door code 1234", "-type", "pickingNote", "-external-id", "412", o.ExternalID)), &cm)
	if cm.ID == "" || cm.Value != "Door code 1234" {
		t.Errorf("add-order-comment %+v", cm)
	}
	if out := must("order", "CLI1"); !strings.Contains(out, "Door code 1234") {
		t.Errorf("the comment is not on the order (found by its bare ID): %s", out)
	}
	if out := must("delete-order-comment", o.ExternalID, "412"); !strings.Contains(out, `"deleted": "412"`) {
		t.Errorf("delete-order-comment: %s", out)
	}
	if out := must("cancel-order", o.ExternalID); !strings.Contains(out, `"Cancelled"`) {
		t.Errorf("cancel-order: %s", out)
	}
	if _, err := cli("order", "1234567-1-NOPE"); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("unknown order: %v", err)
	}
	// The provider's ID migration and the plugin's removals.
	must("put-inventory", "-f", file("p2.json", `[{"product":{"externalId":"1234567-1-P2","descriptions":{"fi":{"name":"Toinen"}}},
		"balances":[{"retailerId":"1234567-1","catalogExternalId":"WH1","quantity":1}]}]`))
	if out := must("migrate-products"); !strings.Contains(out, `"P2"`) || !strings.Contains(out, `"P1"`) {
		t.Errorf("migrate-products: %s", out)
	}
	if out := must("remove-from-catalogs", "-f", file("r.json", `[{"productExternalId":"P2","catalogExternalId":"WH1","retailerId":"1234567-1"},{"productExternalId":"NOPE"}]`)); !strings.Contains(out, `"index": 1`) || strings.Contains(out, `"index": 0`) {
		t.Errorf("remove-from-catalogs: %s", out)
	}

}
