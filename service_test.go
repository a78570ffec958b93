package parcelgate

import (
	"slices"
	"testing"
)

// The delivery services are interface §2.3's service-code table, one each, in
// the shape the warehouse plugin reads: id (an order's serviceCode),
// provider and deliveryOperator, a description per language, tags
// (PICKUP_POINT where the shopper chooses a point) and additional services.
func TestDeliveryServices(t *testing.T) {
	svcs, err := DeliveryServices("WAREHOUSE")
	if err != nil {
		t.Fatal(err)
	}
	if len(svcs) != len(serviceCodes) {
		t.Fatalf("%d services for %d codes", len(svcs), len(serviceCodes))
	}
	for i, s := range svcs {
		if i > 0 && svcs[i-1].ID >= s.ID {
			t.Errorf("not in code order at %s", s.ID)
		}
		if !ValidServiceCode(s.ID) || s.Provider != DeliveryOperator || s.DeliveryOperator != DeliveryOperator {
			t.Errorf("service %+v", s)
		}
		for _, lang := range []string{"en", "fi", "sv"} {
			if s.Description[lang] == "" {
				t.Errorf("%s has no %s description", s.ID, lang)
			}
		}
		if s.Description["en"] != serviceCodes[s.ID] {
			t.Errorf("%s: English description %q is not interface §2.3's %q", s.ID, s.Description["en"], serviceCodes[s.ID])
		}
		if got := slices.Contains(s.Tags, TagPickupPoint); got != (s.ID == ServiceToPickupPoint) {
			t.Errorf("%s tagged PICKUP_POINT: %v", s.ID, got)
		}
		if s.Tags == nil || s.AdditionalServices == nil {
			t.Errorf("%s: tags and additionalServices must be lists, even empty", s.ID)
		}
	}
	// The cash-on-delivery service needs its amount and reference, so the
	// plugin adds it itself for cash payments rather than offering it.
	i := slices.IndexFunc(svcs, func(s DeliveryService) bool { return s.ID == ServiceToPickupPoint })
	if a := svcs[i].AdditionalServices; len(a) != 2 || a[0].Code != ServiceCashOnDelivery || len(a[0].Specifiers) == 0 || a[1].Code != ServiceNoOutdoorLockers {
		t.Errorf("2103 additional services: %+v", a)
	}
	if s, err := DeliveryServices(""); err != nil || len(s) != len(svcs) {
		t.Errorf("no workflow: %v %v", len(s), err)
	}
	if _, err := DeliveryServices("DROPSHIP"); ErrorCode(err) != EINVALID || ErrorFields(err)[0].Field != "workflow" {
		t.Errorf("unknown workflow: %v", err)
	}
}
