package httpapi_test

import (
	"strings"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

// decisions §30, §39: find's keys chooses what its keywords are compared
// with, on find?keywords= and find/{keyword} alike, by the provider's
// names (its v7 OpenAPI, and its own example keys=all,!parcel_order_number)
// and the route names as aliases: senderreference the shipment's
// reference only, !senderreference all but the reference,
// consignmentnumber the shipment's tracking number; the freight keys
// (freight_*, waybillnumber, goodsitemid) find no parcel; no keys (or all)
// is what find has always searched. Names are case-insensitive,
// comma-separated or repeated.
func TestTrackingFindKeys(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		const shop = "1234567-1"
		e.EcomToken(parcelgate.Production, shop, parcelgate.RoleMerchant)
		ans, _ := shipToTampere(t, e, shop, "SO-4001")
		tn, p0, p1 := ans.ShipmentNo, ans.Parcels[0].ParcelNo, ans.Parcels[1].ParcelNo
		both := p0 + "," + p1
		for path, want := range map[string]string{
			// No keys, and all: every field, as before keys.
			"find?keywords=so-4001":                          both,
			"find?keywords=" + p1:                            p1,
			"find/SO-4001":                                   both,
			"find/" + p1:                                     p1,
			"find?keywords=SO-4001&keys=all":                 both,
			"find/" + p1 + "?keys=ALL":                       p1,
			"find?keywords=SO-4001&keys=":                    both,
			"find?keywords=SO-4001&keys=!receiverreference":  both,
			"find?keywords=SO-4001&keys=!errandcode":         both,
			"find?keywords=SO-4001&keys=%21phonenumber":      both,
			"find?keywords=" + tn + "&keys=all,!goodsitemid": both, // the shipment's number is its first parcel's
			// senderreference: the reference, not a number.
			"find?keywords=SO-4001&keys=senderreference":        both,
			"find/so-4001?keys=SenderReference":                 both,
			"find?keywords=" + p1 + "&keys=senderreference":     "",
			"find/" + p1 + "?keys=senderreference":              "",
			"find?keywords=SO-4001," + p1 + "&keys=ordernumber": both,
			// !senderreference: the numbers, not the reference.
			"find?keywords=" + p1 + "&keys=!senderreference":                         p1,
			"find/" + p1 + "?keys=!senderreference":                                  p1,
			"find?keywords=SO-4001&keys=!senderreference":                            "",
			"find/SO-4001?keys=%21senderreference":                                   "",
			"find?keywords=SO-4001&keys=!SENDERREFERENCE":                            "",
			"find?keywords=SO-4001," + p1 + "&keys=!ordernumber":                     p1,
			"find?keywords=SO-4001," + p1 + "&keys=!trackingnumber":                  both,
			"find?keywords=SO-4001," + p1 + "&keys=goodsitemid":                      "",
			"find?keywords=SO-4001," + p1 + "&keys=goodsitemid&keys=senderreference": both,
			"find?keywords=SO-4001&keys=goodsitemid,waybillnumber":                   "",
			"find?keywords=" + tn + "&keys=waybillnumber":                            "",
			"find?keywords=" + tn + "&keys=consignmentnumber":                        both,
			"find?keywords=" + tn + "&keys=trackingnumber":                           both,
			"find?keywords=" + p1 + "&keys=consignmentnumber":                        "",
			// The provider's names.
			"find/SO-4001?keys=all,!parcel_order_number":                     "",
			"find/" + p1 + "?keys=all,!parcel_order_number":                  p1,
			"find?keywords=SO-4001," + p1 + "&keys=all,!parcel_order_number": p1,
			"find?keywords=SO-4001&keys=parcel_order_number":                 both,
			"find?keywords=SO-4001&keys=PARCEL_SENDER_REFERENCE":             both,
			"find?keywords=SO-4001," + p1 + "&keys=parcel_all":               both,
			"find?keywords=" + tn + "&keys=parcel_consignment_number":        both,
			"find?keywords=" + p1 + "&keys=parcel_tracking_number":           p1,
			"find?keywords=SO-4001," + p1 + "&keys=freight_all":              "",
			"find?keywords=SO-4001," + p1 + "&keys=freight_waybill_number,freight_tracking_number,freight_order_number,freight_sender_reference,freight_receiver_reference": "",
			"find?keywords=SO-4001," + p1 + "&keys=mps_cod_group,delivery_group,sequence,parcel_errand_code,parcel_receiver_reference":                                      "",
			"find?keywords=SO-4001," + p1 + "&keys=!freight_all": both,
			"find/SO-4001?keys=!all":                             "",
			"find?keywords=SO-4001&keys=receiverreference":       "",
		} {
			if got := trackingCodes(track(t, e, parcelgate.Production, shop, path)); got != want {
				t.Errorf("%s: %q, want %q", path, got, want)
			}
		}
	})
}

// decisions §30, §39: a name keys does not know is 400 naming keys and
// listing the names (the provider's first); keys naming phonenumber are
// 403 as phonenumber/{n} is; on both find routes.
func TestTrackingFindKeysRefusals(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		tok := e.EcomToken(parcelgate.Production, "1234567-1", parcelgate.RoleMerchant)
		for path, wantIn := range map[string]string{
			"find?keywords=SO-1&keys=reference":           "senderreference, ordernumber",
			"find/SO-1?keys=all,nonsense":                 "parcel_order_number",
			"find?keywords=SO-1&keys=!":                   "freight_waybill_number",
			"find?keywords=SO-1&keys=parcel_orders":       "mps_cod_group, delivery_group",
			"find?keywords=SO-1&keys=freight_all,waybill": "all, parcel_all, freight_all",
		} {
			eb := trackErr(t, e, tok, path, 400)
			if len(eb.Errors) != 1 || eb.Errors[0].Field != "keys" || !strings.Contains(eb.Errors[0].Message, wantIn) {
				t.Errorf("%s: %+v, want the field keys saying %q", path, eb.Errors, wantIn)
			}
		}
		for _, path := range []string{"find?keywords=SO-1&keys=phonenumber", "find/SO-1?keys=all,PhoneNumber"} {
			if eb := trackErr(t, e, tok, path, 403); !strings.Contains(eb.Message, "restricted") {
				t.Errorf("%s: %q does not name the restriction", path, eb.Message)
			}
		}
		// The keywords are checked first, as before keys.
		trackErr(t, e, tok, "find?keys=nonsense", 400)
		trackErr(t, e, tok, "find/ab?keys=senderreference", 400)
	})
}

// decisions §30 (and decisions §3): whatever the keys, a find looks at the
// caller's own parcels only: another tenant's reference and numbers find
// nothing, where the owner's same request finds them.
func TestTrackingFindKeysAcrossTenants(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		const shop, other = "1234567-1", "7654321-2"
		body := shippingBody("PO2103", tampere(t), 1)
		body["shipment"].(map[string]any)["orderNo"] = "SO-5001"
		ans := createShipping(t, e, e.GatewayToken(parcelgate.Production, shop), body, "")
		p0 := ans.Parcels[0].ParcelNo
		e.EcomToken(parcelgate.Production, other, parcelgate.RoleMerchant)
		for _, keys := range []string{"", "&keys=all", "&keys=senderreference", "&keys=ordernumber", "&keys=!goodsitemid", "&keys=trackingnumber,senderreference", "&keys=parcel_all", "&keys=all,!parcel_order_number"} {
			for _, path := range []string{"find?keywords=SO-5001," + p0 + keys, "find/SO-5001?" + keys, "find/" + p0 + "?" + keys} {
				if got := track(t, e, parcelgate.Production, other, path); len(got.ParcelShipments) != 0 {
					t.Errorf("another tenant's %s: %s", path, trackingCodes(got))
				}
			}
			if got := trackingCodes(track(t, e, parcelgate.Production, shop, "find?keywords=SO-5001,"+p0+keys)); got != p0 {
				t.Errorf("the owner's find %s: %q", keys, got)
			}
		}
	})
}
