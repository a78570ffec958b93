package parcelgate

import (
	"encoding/json"
	"testing"
	"time"
)

// TestBalanceAppendJSONIsMarshal: the hand-written encoding of a balance
// is byte for byte what json.Marshal made of it (the encoding before it),
// escapes, omitted fields and invalid numbers included, so every catalog
// page and change poll answers as before.
func TestBalanceAppendJSONIsMarshal(t *testing.T) {
	reference := func(b *Balance) ([]byte, error) {
		type plain Balance
		return json.Marshal(struct {
			*plain
			ModifiedDate string `json:"modifiedDate"`
		}{(*plain)(b), FormatStamp(b.ModifiedAt)})
	}
	at := time.Date(2026, 11, 23, 7, 0, 0, 123456789, time.FixedZone("EET", 2*3600))
	for _, b := range []*Balance{
		{ProductExternalID: "1234567-1-P1", SupplierID: "1234567-1", RetailerID: "0737546-2", CatalogExternalID: "BIG", Quantity: 5, Allocated: 2, WholesalePrice: "7.90", Currency: "EUR", ModifiedAt: at},
		{ProductExternalID: "P<1>&\"x\"\\", EANCode: "6412345678901", SupplierID: "a\u2028b\u2029", RetailerID: "ä", CatalogExternalID: "\x01\t\n", Quantity: -3, Removed: true, ModifiedAt: at},
		{ProductExternalID: "bad \xff utf-8", WholesalePrice: "0", ModifiedAt: time.Time{}},
		{WholesalePrice: "-0.5"}, {WholesalePrice: "1e3"}, {WholesalePrice: "012"}, {WholesalePrice: "1."}, {WholesalePrice: ".5"}, {WholesalePrice: "-"}, {WholesalePrice: "12.50"},
		{Quantity: MaxQuantity, Allocated: -MaxQuantity, Currency: "EU\x7f"},
		// Stamps at the edges of appendStamp's digits and beyond them.
		{ModifiedAt: time.Date(999, 1, 2, 3, 4, 5, 6000, time.UTC)},
		{ModifiedAt: time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)},
		{ModifiedAt: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)},
		{ModifiedAt: time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)},
		{ModifiedAt: time.Date(2026, 12, 31, 23, 59, 59, 999, time.FixedZone("X", -11*3600))},
		{ModifiedAt: time.UnixMicro(1764000000123456)},
	} {
		want, werr := reference(b)
		got, gerr := b.MarshalJSON()
		if string(got) != string(want) || (werr == nil) != (gerr == nil) {
			t.Errorf("%+v:\njson.Marshal %s (%v)\nAppendJSON   %s (%v)", b, want, werr, got, gerr)
		}
	}
}
