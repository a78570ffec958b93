package parcelgate_test

import (
	"slices"
	"testing"

	"github.com/parcelgate/parcelgate"
)

// interface §2.4 externalId {business ID}-{unique product ID}; the warehouse
// plugin sends bare SKUs since the provider's ID migration.
func TestProductKey(t *testing.T) {
	const bid = "1234567-1"
	for _, c := range []struct{ id, key string }{
		{"WOO6", "WOO6"},
		{"1234567-1-WOO6", "WOO6"},
		{"1234567-1-", "1234567-1-"}, // no own part: not a prefixed ID
		{"1234567-1", "1234567-1"},
		{"7654321-2-WOO6", "7654321-2-WOO6"}, // another business's prefix is not stripped
		{"1234567-1-1234567-1-X", "1234567-1-X"},
	} {
		if got := parcelgate.ProductKey(bid, c.id); got != c.key {
			t.Errorf("ProductKey(%q) = %q, want %q", c.id, got, c.key)
		}
	}
	if got := parcelgate.ProductIDForms(bid, "1234567-1-WOO6"); !slices.Equal(got, []string{"WOO6", "1234567-1-WOO6"}) {
		t.Errorf("forms %v", got)
	}
	if got := parcelgate.ProductIDForms(bid, "WOO6"); !slices.Equal(got, []string{"WOO6", "1234567-1-WOO6"}) {
		t.Errorf("forms %v", got)
	}
	if got := parcelgate.PrefixedProductID(bid, "WOO6"); got != "1234567-1-WOO6" {
		t.Errorf("prefixed %q", got)
	}
}

// An ID with another business's prefix stays refused.
func TestOtherBusinessPrefix(t *testing.T) {
	const bid = "1234567-1"
	for _, c := range []struct {
		id    string
		other string
	}{
		{"WOO6", ""},
		{"1234567-1-WOO6", ""},
		{"7654321-2-WOO6", "7654321-2"},
		{"7654321-3-WOO6", ""}, // wrong check digit: not a business ID, just a SKU
		{"AB-123", ""},
		{"0737546-2-X", "0737546-2"},
	} {
		got, ok := parcelgate.OtherBusinessPrefix(bid, c.id)
		if got != c.other || ok != (c.other != "") {
			t.Errorf("OtherBusinessPrefix(%q) = %q %v, want %q", c.id, got, ok, c.other)
		}
	}
}
