package parcelgate

import (
	"strings"
	"testing"
)

// decisions §30, §39: what each of the other keys matches, and whether it is a
// number lookup (any organization, 404 when unknown) or a search of the
// caller's own parcels (an empty list when none).
func TestTrackingKeyMeanings(t *testing.T) {
	for _, c := range []struct {
		key        TrackingKey
		param      string
		match      TrackingMatch
		lookup     bool
		restricted bool
	}{
		// decisions §39 (the provider's v7 OpenAPI): waybillnumber and
		// goodsitemid are freight keys, consignmentnumber parcel-only.
		{KeyWaybillNumber, "waybillNumber", MatchFreight, false, false},
		{KeyConsignmentNumber, "consignmentNumber", MatchShipmentNumber, true, false},
		{KeyGoodsItemID, "goodsItemId", MatchFreight, false, false},
		{KeySenderReference, "senderReference", MatchReference, false, false},
		{KeyOrderNumber, "orderNumber", MatchReference, false, false},
		{KeyReceiverReference, "receiverReference", MatchNothing, false, false},
		{KeyErrandCode, "errandCode", MatchErrandCode, false, false},
		{KeyPhoneNumber, "phoneNumber", MatchNothing, false, true},
	} {
		k := c.key
		if !k.Valid() || k.Param() != c.param || k.Match() != c.match || k.Lookup() != c.lookup || k.Restricted() != c.restricted {
			t.Errorf("%s: param %q match %d lookup %v restricted %v", k, k.Param(), k.Match(), k.Lookup(), k.Restricted())
		}
	}
	if len(TrackingKeys) != 8 || TrackingKey("trackingnumber").Valid() {
		t.Errorf("keys: %v", TrackingKeys)
	}
	if _, err := TrackingKey("name").Value("x"); ErrorCode(err) != EINVALID {
		t.Errorf("an unknown key: %v", err)
	}
}

// decisions §30: each key's value is trimmed and normalized as it is
// stored (numbers and codes upper-cased, decisions §5), and checked: a
// value of the wrong form is EINVALID naming the key's parameter.
func TestTrackingKeyValues(t *testing.T) {
	for _, c := range []struct {
		key   TrackingKey
		value string
		want  string // the value matched; "" when refused
	}{
		{KeyWaybillNumber, " jjfi12345678901234567 ", "JJFI12345678901234567"},
		{KeyConsignmentNumber, "ABCD", "ABCD"},
		{KeyWaybillNumber, "ABC", ""},                    // 3 characters
		{KeyWaybillNumber, strings.Repeat("A", 36), ""},  // 36
		{KeyConsignmentNumber, "JJFI-1234", ""},          // a hyphen
		{KeyGoodsItemID, "parcel000001", "PARCEL000001"}, // 12
		{KeyGoodsItemID, "PARCEL00001", ""},              // 11
		{KeyGoodsItemID, strings.Repeat("9", 22), ""},    // 22
		{KeyGoodsItemID, "PARCEL 00001", ""},             // a space inside
		{KeySenderReference, " SO-1001 ", "SO-1001"},
		{KeyOrderNumber, "Tilaus 42 / ÅÄÖ", "Tilaus 42 / ÅÄÖ"},
		{KeyOrderNumber, strings.Repeat("Ä", MaxTrackingReference), strings.Repeat("Ä", MaxTrackingReference)},
		{KeyOrderNumber, strings.Repeat("Ä", MaxTrackingReference+1), ""},
		{KeySenderReference, "   ", ""},
		{KeySenderReference, "a\tb", ""},
		{KeyReceiverReference, "line\nbreak", ""},
		{KeyReceiverReference, "bad \xff utf-8", ""},
		{KeyReceiverReference, "nul \x00", ""},
		{KeyReceiverReference, "R-1", "R-1"},
		{KeyErrandCode, " a1b2c3 ", "A1B2C3"},
		{KeyErrandCode, "A1B2C", ""},
		{KeyErrandCode, "A1B2C3D", ""},
		{KeyErrandCode, "G1B2C3", ""}, // G is not hexadecimal
	} {
		got, err := c.key.Value(c.value)
		if c.want != "" {
			if err != nil || got != c.want {
				t.Errorf("%s %q: %q %v, want %q", c.key, c.value, got, err, c.want)
			}
			continue
		}
		fields := ErrorFields(err)
		if ErrorCode(err) != EINVALID || len(fields) != 1 || fields[0].Field != c.key.Param() || fields[0].Message == "" {
			t.Errorf("%s %q: %v %+v, want EINVALID on %s", c.key, c.value, err, fields, c.key.Param())
		}
	}
}

// decisions §30: the provider restricts phonenumber to a special
// permission; parcelgate refuses it to everyone, whatever the value, and
// the refusal names the restriction.
func TestTrackingKeyPhoneNumberRefused(t *testing.T) {
	for _, v := range []string{"+358401234567", "", "not a number"} {
		_, err := KeyPhoneNumber.Value(v)
		if ErrorCode(err) != EFORBIDDEN || !strings.Contains(ErrorMessage(err), "restricted") {
			t.Errorf("%q: %v, want EFORBIDDEN naming the restriction", v, err)
		}
	}
}

// decisions §30: an unknown number of a lookup key is ENOTFOUND naming
// what was looked for.
func TestTrackingKeyNotFound(t *testing.T) {
	err := KeyGoodsItemID.NotFound("PARCEL000404")
	if ErrorCode(err) != ENOTFOUND || ErrorMessage(err) != "No parcel with goods item ID PARCEL000404." {
		t.Errorf("%v", err)
	}
}
