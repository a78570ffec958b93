package parcelgate_test

import (
	"encoding/json"
	"testing"

	"github.com/parcelgate/parcelgate"
)

// FuzzParseInventory: no input makes the request parsers panic, and what
// they accept is valid: every product has a valid externalId and every
// balance a product, whole non-negative quantities and allocated only 0.
func FuzzParseInventory(f *testing.F) {
	for _, s := range []string{
		`[{"product":{"externalId":"P-1","descriptions":{"en":{"name":"x"}}},"balances":[{"retailerId":"0737546-2","catalogExternalId":"SHOP","quantity":2.0}]}]`,
		`[{"product":{"externalId":"P 1"},"balances":[{"quantity":"x"}]}]`,
		`[{"productExternalId":"P-1","quantity":1e3,"allocated":0,"wholesalePrice":1.5,"currency":"eur"}]`,
		`[{"product":{"externalId":"P-1","status":"EOS"}}]`,
		`[null, 1, "x", [], {}]`, `{}`, `[]`, `[{"quantity":-0}]`, `[{"quantity":1e400}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if entries, err := parcelgate.ParseInventory(body); err == nil {
			for _, e := range entries {
				if !parcelgate.ValidExternalID(e.Product.ExternalID) || !json.Valid(e.Product.Document) {
					t.Fatalf("accepted product %+v", e.Product)
				}
				checkBalances(t, e.Balances)
			}
		} else if parcelgate.ErrorCode(err) != parcelgate.EINVALID {
			t.Fatalf("error code %s", parcelgate.ErrorCode(err))
		}
		if bals, err := parcelgate.ParseBalances(body); err == nil {
			checkBalances(t, bals)
		}
		if ids, err := parcelgate.ParseEndOfSale(body); err == nil {
			for _, id := range ids {
				if !parcelgate.ValidExternalID(id) {
					t.Fatalf("accepted %q", id)
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

// spec 2.4: null members are absent; the server-owned fields are dropped
// from the document; a product serializes with supplierId and status.
func TestProductDocument(t *testing.T) {
	entries, err := parcelgate.ParseInventory([]byte(`[{"product":{"externalId":" P-1 ","supplierId":"x","status":"EOS","eanCode":null,"extra":{"a":1},"descriptions":{"fi":{"name":"Tuote"}}}}]`))
	if err != nil {
		t.Fatal(err)
	}
	p := entries[0].Product
	p.SupplierID, p.Status = "1234567-1", parcelgate.ProductActive
	b, _ := json.Marshal(p)
	want := `{"supplierId":"1234567-1","status":"ACTIVE","descriptions":{"fi":{"name":"Tuote"}},"externalId":"P-1","extra":{"a":1}}`
	if string(b) != want {
		t.Fatalf("%s\nwant %s", b, want)
	}
}
