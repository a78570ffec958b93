package parcelgate

import (
	"strings"
	"testing"
)

// decisions §30, §39: keys chooses what a find compares its keywords
// with, by the provider's names (its v7 OpenAPI: all, parcel_all,
// freight_all, the parcel and freight keys, mps_cod_group, delivery_group,
// "!" negating) and the route names as aliases. No keys (and all) is what
// find has always searched; !name excludes, from all when only exclusions
// are given; names are case-insensitive, comma-separated or repeated. A
// name for what parcelgate does not carry (freight, groups) searches
// nothing and is no error.
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
		// The provider's names; its own example keys=all,!parcel_order_number.
		{[]string{"all,!parcel_order_number"}, parcel | shipment},
		{[]string{"parcel_all"}, FindAll},
		{[]string{"parcel_tracking_number"}, parcel | shipment},
		{[]string{"PARCEL_CONSIGNMENT_NUMBER"}, shipment},
		{[]string{"parcel_order_number"}, ref},
		{[]string{"parcel_sender_reference"}, ref},
		{[]string{"parcel_all,!parcel_sender_reference"}, parcel | shipment},
		{[]string{"freight_all"}, 0},
		{[]string{"freight_waybill_number,freight_tracking_number,freight_order_number,freight_sender_reference,freight_receiver_reference"}, 0},
		{[]string{"mps_cod_group", "delivery_group", "sequence", "parcel_errand_code", "parcel_receiver_reference"}, 0},
		{[]string{"freight_all,parcel_consignment_number"}, shipment},
		{[]string{"!freight_all"}, FindAll},
		{[]string{"!all"}, 0},
		// The route names, aliases of the provider's keys.
		{[]string{"trackingnumber"}, parcel | shipment},
		{[]string{"ConsignmentNumber"}, shipment},
		{[]string{"waybillnumber"}, 0},
		{[]string{"goodsitemid"}, 0},
		{[]string{"senderreference"}, ref},
		{[]string{"ordernumber"}, ref},
		{[]string{"consignmentnumber,senderreference"}, shipment | ref},
		{[]string{"goodsitemid", " SenderReference "}, ref},
		{[]string{"senderreference,receiverreference,errandcode"}, ref},
		{[]string{"!senderreference"}, parcel | shipment},
		{[]string{"! ordernumber"}, parcel | shipment},
		{[]string{"!trackingnumber"}, ref},
		{[]string{"!consignmentnumber"}, parcel | ref},
		{[]string{"all,!waybillnumber"}, FindAll},
		{[]string{"!senderreference", "trackingnumber"}, parcel | shipment},
		{[]string{"trackingnumber,!consignmentnumber"}, parcel},
		{[]string{"!receiverreference,!errandcode"}, FindAll},
		{[]string{"!phonenumber"}, FindAll},
	} {
		got, err := ParseFindKeys(c.keys)
		if err != nil || got != c.want {
			t.Errorf("keys %q: %03b %v, want %03b", c.keys, got, err, c.want)
		}
	}
}

// decisions §30, §39: a name that is no key is EINVALID naming keys and
// listing the names, the provider's first; phonenumber is restricted as
// its route is (EFORBIDDEN).
func TestParseFindKeysRefusals(t *testing.T) {
	for _, keys := range [][]string{{"reference"}, {"all,nonsense"}, {"!"}, {"!!all"}, {"senderreference", "trackingnumbers"}, {"parcel_orders"}} {
		_, err := ParseFindKeys(keys)
		fs := ErrorFields(err)
		if ErrorCode(err) != EINVALID || len(fs) != 1 || fs[0].Field != "keys" ||
			!strings.Contains(fs[0].Message, "all, parcel_all, freight_all, parcel_tracking_number") ||
			!strings.Contains(fs[0].Message, "trackingnumber, consignmentnumber, waybillnumber, goodsitemid, senderreference, ordernumber, receiverreference, errandcode") {
			t.Errorf("keys %q: %v %+v", keys, err, fs)
		}
		if len(fs) == 1 && strings.Contains(fs[0].Message, "phonenumber") {
			t.Errorf("keys %q: offers the restricted phonenumber: %s", keys, fs[0].Message)
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
