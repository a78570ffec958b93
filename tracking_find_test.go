package parcelgate

import (
	"strings"
	"testing"
)

// decisions §30: keys chooses what a find compares its keywords with. No
// keys (and all) is what find has always searched; a name searches what
// its route matches; !name excludes it, from all when only exclusions
// are given; names are case-insensitive, comma-separated or repeated.
func TestParseFindKeys(t *testing.T) {
	const parcel, shipment, ref = FindParcelNumber, FindShipmentNumber, FindReference
	for _, c := range []struct {
		keys []string
		want FindFields
	}{
		{nil, parcel | shipment | ref},
		{[]string{""}, parcel | shipment | ref},
		{[]string{" , "}, parcel | shipment | ref},
		{[]string{"all"}, parcel | shipment | ref},
		{[]string{"ALL"}, FindAll},
		{[]string{"trackingnumber"}, parcel | shipment},
		{[]string{"waybillnumber"}, shipment},
		{[]string{"ConsignmentNumber"}, shipment},
		{[]string{"goodsitemid"}, parcel},
		{[]string{"senderreference"}, ref},
		{[]string{"ordernumber"}, ref},
		{[]string{"goodsitemid,senderreference"}, parcel | ref},
		{[]string{"goodsitemid", " SenderReference "}, parcel | ref},
		{[]string{"senderreference,receiverreference,errandcode"}, ref},
		{[]string{"!senderreference"}, parcel | shipment},
		{[]string{"! ordernumber"}, parcel | shipment},
		{[]string{"!trackingnumber"}, ref},
		{[]string{"!goodsitemid"}, shipment | ref},
		{[]string{"all,!waybillnumber"}, parcel | ref},
		{[]string{"!senderreference", "trackingnumber"}, parcel | shipment},
		{[]string{"trackingnumber,!goodsitemid"}, shipment},
		{[]string{"!receiverreference,!errandcode"}, FindAll},
		{[]string{"!phonenumber"}, FindAll},
	} {
		got, err := ParseFindKeys(c.keys)
		if err != nil || got != c.want {
			t.Errorf("keys %q: %03b %v, want %03b", c.keys, got, err, c.want)
		}
	}
}

// decisions §30: a name that is no key is EINVALID naming keys and
// listing the names; keys that leave nothing to search are EINVALID;
// phonenumber is restricted as its route is (EFORBIDDEN).
func TestParseFindKeysRefusals(t *testing.T) {
	for _, keys := range [][]string{{"reference"}, {"all,nonsense"}, {"!"}, {"!!all"}, {"senderreference", "trackingnumbers"}} {
		_, err := ParseFindKeys(keys)
		fs := ErrorFields(err)
		if ErrorCode(err) != EINVALID || len(fs) != 1 || fs[0].Field != "keys" || !strings.Contains(fs[0].Message, "all, trackingnumber, waybillnumber, consignmentnumber, goodsitemid, senderreference, ordernumber, receiverreference, errandcode") {
			t.Errorf("keys %q: %v %+v", keys, err, fs)
		}
		if len(fs) == 1 && strings.Contains(fs[0].Message, "phonenumber") {
			t.Errorf("keys %q: offers the restricted phonenumber: %s", keys, fs[0].Message)
		}
	}
	for _, keys := range [][]string{{"!all"}, {"all,!ALL"}, {"receiverreference"}, {"errandcode"}, {"!trackingnumber,!senderreference"}, {"goodsitemid,!trackingnumber"}} {
		_, err := ParseFindKeys(keys)
		if fs := ErrorFields(err); ErrorCode(err) != EINVALID || len(fs) != 1 || fs[0].Field != "keys" || !strings.Contains(fs[0].Message, "nothing to search") {
			t.Errorf("keys %q: %v %+v", keys, err, fs)
		}
	}
	for _, keys := range [][]string{{"phonenumber"}, {"all,PhoneNumber"}} {
		if _, err := ParseFindKeys(keys); ErrorCode(err) != EFORBIDDEN || !strings.Contains(ErrorMessage(err), "restricted") {
			t.Errorf("keys %q: %v", keys, err)
		}
	}
	// An unknown name is reported before the restriction.
	if _, err := ParseFindKeys([]string{"phonenumber,x"}); ErrorCode(err) != EINVALID {
		t.Errorf("phonenumber with an unknown name: %v", err)
	}
}
