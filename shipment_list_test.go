package parcelgate

import (
	"strings"
	"testing"
)

// decisions §40: the console's shipment search reads a text as a number
// when it can be one (and as a reference too), as a reference otherwise;
// a number asked for must be one, a reference is what the Tracking API's
// senderreference takes.
func TestParseShipmentSearch(t *testing.T) {
	for _, c := range []struct {
		q, by   string
		want    ShipmentSearch
		problem string
	}{
		{"", "", ShipmentSearch{}, ""},
		{"  ", "number", ShipmentSearch{}, ""},
		{" jjfi 1234 5678 ", "", ShipmentSearch{Number: "JJFI12345678", Reference: "jjfi 1234 5678"}, ""},
		{"A1B2C3", "number", ShipmentSearch{Number: "A1B2C3"}, ""},
		{"SO-1001.RETURN", "", ShipmentSearch{Reference: "SO-1001.RETURN"}, ""},
		{"JJFI1234", "reference", ShipmentSearch{Reference: "JJFI1234"}, ""},
		{"!!", "any", ShipmentSearch{Reference: "!!"}, ""},
		{"!!", "number", ShipmentSearch{}, "q"},
		{"ABC", "number", ShipmentSearch{}, "q"},
		{strings.Repeat("x", MaxTrackingReference+1), "", ShipmentSearch{}, "q"},
		{"a\tb", "", ShipmentSearch{}, "q"},
		{"x", "sideways", ShipmentSearch{}, "by"},
	} {
		got, err := ParseShipmentSearch(c.q, c.by)
		fields := ErrorFields(err)
		switch {
		case c.problem == "" && err != nil:
			t.Errorf("%q by %q: %v", c.q, c.by, err)
		case c.problem != "" && (len(fields) == 0 || fields[0].Field != c.problem):
			t.Errorf("%q by %q: %v, want a problem on %s", c.q, c.by, err, c.problem)
		case got != c.want:
			t.Errorf("%q by %q: %+v, want %+v", c.q, c.by, got, c.want)
		}
	}
}
