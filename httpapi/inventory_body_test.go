package httpapi

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/parcelgate/parcelgate"
)

// decodeTree returns body when it is one JSON value, as the readers are
// given it.
func decodeTree(t *testing.T, body []byte) ([]byte, bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil || dec.More() {
		return nil, false
	}
	return body, true
}

// FuzzReadInventory: no input makes the inventory body readers panic, and
// what they accept is valid: every product has a valid externalId and
// every balance a product, whole non-negative quantities and allocated
// only 0.
func FuzzReadInventory(f *testing.F) {
	for _, s := range []string{
		`[{"product":{"externalId":"P-1","descriptions":{"en":{"name":"x"}}},"balances":[{"retailerId":"0737546-2","catalogExternalId":"SHOP","quantity":2.0}]}]`,
		`[{"product":{"externalId":"P 1"},"balances":[{"quantity":"x"}]}]`,
		`[{"productExternalId":"P-1","quantity":1e3,"allocated":0,"wholesalePrice":1.5,"currency":"eur"}]`,
		`[{"product":{"externalId":"P-1","status":"EOS"}}]`,
		`[{"productExternalId":"WOO6","catalogExternalId":"WH1","retailerId":"1234567-1"}]`,
		`[null, 1, "x", [], {}]`, `{}`, `[]`, `[{"quantity":-0}]`, `[{"quantity":1e400}]`,
	} {
		f.Add([]byte(s))
	}
	const bid = "1234567-1"
	f.Fuzz(func(t *testing.T, body []byte) {
		v, ok := decodeTree(t, body)
		if !ok {
			return
		}
		// The rules of the entries read well are the service's
		// (decisions §57): what both let through must be sound.
		if entries, bad, err := readInventory(v); err == nil {
			failed, cerr := parcelgate.CheckInventory(bid, entries)
			for i, e := range entries {
				if bad[i] != nil || cerr != nil || failed[i] != nil {
					continue
				}
				if !parcelgate.ValidExternalID(e.Product.ExternalID) || !json.Valid(e.Product.Document) {
					t.Fatalf("accepted product %+v", e.Product)
				}
				checkBalances(t, e.Balances)
			}
		} else if parcelgate.ErrorCode(err) != parcelgate.EINVALID {
			t.Fatalf("error code %s", parcelgate.ErrorCode(err))
		}
		if bals, err := readBalances(v, bid); err == nil && parcelgate.CheckBalances(bid, bals) == nil {
			checkBalances(t, bals)
		}
		if ids, err := readEndOfSale(v, bid); err == nil {
			for _, id := range ids {
				if !parcelgate.ValidExternalID(id) {
					t.Fatalf("accepted %q", id)
				}
			}
		}
		if rs, bad, err := readRemovals(v, bid); err == nil {
			for i, r := range rs {
				if bad[i] == nil && !parcelgate.ValidExternalID(r.ProductExternalID) {
					t.Fatalf("accepted removal %+v", r)
				}
			}
		}
	})
}

func checkBalances(t *testing.T, bals []parcelgate.BalanceInput) {
	for _, b := range bals {
		if !parcelgate.ValidExternalID(b.ProductExternalID) ||
			(b.Quantity != nil && (*b.Quantity < 0 || *b.Quantity > parcelgate.MaxQuantity)) ||
			(b.Allocated != nil && *b.Allocated != 0) {
			t.Fatalf("accepted balance %+v", b)
		}
	}
}

// interface §2.4: null members are absent; the server-owned fields are dropped
// from the document; a product serializes with supplierId and status.
func TestProductDocument(t *testing.T) {
	v, _ := decodeTree(t, []byte(`[{"product":{"externalId":" P-1 ","supplierId":"x","status":"ACTIVE","eanCode":null,"extra":{"a":1},"descriptions":{"fi":{"name":"Tuote"}}}}]`))
	entries, bad, err := readInventory(v)
	if err != nil || len(bad) > 0 {
		t.Fatal(bad, err)
	}
	p := entries[0].Product
	p.SupplierID, p.Status = "1234567-1", parcelgate.ProductActive
	b, _ := json.Marshal(p)
	want := `{"supplierId":"1234567-1","status":"ACTIVE","descriptions":{"fi":{"name":"Tuote"}},"externalId":"P-1","extra":{"a":1}}`
	if string(b) != want {
		t.Fatalf("%s\nwant %s", b, want)
	}
}
