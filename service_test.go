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
	if len(svcs) != len(interfaceServiceCodes) {
		t.Fatalf("%d services for %d codes", len(svcs), len(interfaceServiceCodes))
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
		if s.Description["en"] != interfaceServiceCodes[s.ID] {
			t.Errorf("%s: English description %q is not interface §2.3's %q", s.ID, s.Description["en"], interfaceServiceCodes[s.ID])
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

// interfaceServiceCodes is interface §2.3's service-code table (2143 appears
// twice there: small parcel and morning express freight share the value).
var interfaceServiceCodes = map[string]string{
	"2103":  "Postal parcel to an outlet or parcel locker",
	"2143":  "Small parcel to a home address / Express freight, morning",
	"2104":  "Home delivery to home addresses",
	"2102":  "Express parcel to a business address",
	"2101":  "Express parcel, morning, to a business address",
	"2144":  "Express freight",
	"2145":  "Express freight, evening",
	"2711":  "International parcel service",
	"2331":  "Postal parcel to the Baltics, international",
	"2317":  "Express business-day parcel, international",
	"2318":  "Express business-day pallet, international",
	"NOUTO": "Pick-up from warehouse",
}

// The shipping API's codes beyond interface §2.3 are not an order's
// serviceCode: the warehouse ships its own table (decisions §39).
func TestValidServiceCodeIsTheWarehouseTable(t *testing.T) {
	for _, s := range services {
		if _, ok := interfaceServiceCodes[s.Code]; ValidServiceCode(s.Code) != ok {
			t.Errorf("%s: ValidServiceCode %v, in interface §2.3 %v", s.Code, !ok, ok)
		}
	}
}

// Every row of the one table is whole: three names, a route, a number form
// for the shipping API's parcels, and a promise the estimate holds.
func TestServiceTable(t *testing.T) {
	for _, s := range services {
		if s.Name.EN == "" || s.Name.FI == "" || s.Name.SV == "" {
			t.Errorf("%s: names %+v", s.Code, s.Name)
		}
		if s.Code == ServiceNouto {
			continue
		}
		if s.Domestic() != slices.Equal(s.Countries, []string{"FI"}) {
			t.Errorf("%s: JJFI numbers (S10 %q) for countries %v", s.Code, s.S10, s.Countries)
		}
		if s.Return && s.Promise != "" {
			t.Errorf("%s: a return leaves from abroad or a consumer, the estimate promises none", s.Code)
		}
		if s.Labelless != slices.Contains(s.Additional, ServiceLabelless) {
			t.Errorf("%s: label-less %v but additional services %v", s.Code, s.Labelless, s.Additional)
		}
	}
	// The estimate model (package pickup) keeps each service's promise row;
	// pickup's TestServicePromises checks it holds every row named here.
	// posti-cli's six and the smartship clients' five (decisions §39).
	for _, c := range []string{"2103", "2351", "2331", "2352", "2015", "2017", "2461", "2108", "2718", "2338", "2144"} {
		if _, ok := ShippingProductOf(c); !ok {
			t.Errorf("the shipping API does not take %s", c)
		}
	}
}
