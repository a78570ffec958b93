package parcelgate

import (
	"strings"
	"testing"
	"time"
)

// decisions §36: 2026-04 and later answer the live shapes; 2025-04 keeps
// its object.
func TestLivePickupShapes(t *testing.T) {
	for v, want := range map[string]bool{"2025-04": false, "2026-04": true, "2027-04": true, "2024-04": false} {
		if LivePickupShapes(v) != want {
			t.Errorf("%s: %v", v, !want)
		}
	}
}

// the provider's Pick-up Point API (its live answer): a shop's point is "Posti, <host>" in
// care of "c/o Posti, <host>", its capabilities the live answer's nine in
// its order, its hours HH:MM:SS for every weekday.
func TestProvider2026(t *testing.T) {
	area := &PostalArea{PostalCode: "00100", PostOffice: "HELSINKI", Municipality: "Helsinki"}
	shop := PickupPoint{ExternalID: "001003230", Type: PointPickupShop, Host: "K-Market Etu-Töölö", Country: "FI", Area: area,
		StreetAddress: "Lapuankatu 4", PostalCode: "00100", RoutingServiceCode: "3230", RoutingPostcode: "00100",
		Capabilities: []string{CapabilityParcelPickup, CapabilityParcelDropoff, CapabilityWheelchair, CapabilityADR},
		OpeningHours: []OpeningHours{{"MONDAY", "07:00", "22:00"}, {"SATURDAY", "10:00", "14:00"}}}
	now := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC) // no holiday in the fortnight
	got := shop.Provider2026("en", now)
	var names []string
	for _, c := range got.Capabilities {
		v := c.Name + "=" + c.Value
		if c.CutOffTime != nil {
			v += "@" + *c.CutOffTime
		}
		names = append(names, v)
	}
	want := "accessibility=WHEELCHAIR expressDelivery=NOT_POSSIBLE identityCheck=NONE ADRLimitedQuantities=ALLOWED parcelDropoff=MANUAL_DROP@11:30:00 " +
		"parcelPickup=AVAILABLE parcelReturn=MANUAL_DROP@11:30:00 saturdayDelivery=NOT_POSSIBLE sundayDelivery=NOT_POSSIBLE"
	if strings.Join(names, " ") != want || got.PublicName != "Posti, K-Market Etu-Töölö" || got.CareOf != "c/o Posti, K-Market Etu-Töölö" {
		t.Errorf("%q %q\n%s", got.PublicName, got.CareOf, strings.Join(names, " "))
	}
	h := got.Availability.OpeningHours
	if len(h) != 7 || *h[0].Opens != "07:00:00" || *h[0].Closes != "22:00:00" || h[0].Closed || !h[1].Closed || h[1].Opens != nil ||
		*h[5].Opens != "10:00:00" || !h[6].Closed || len(got.Availability.Exceptions) != 0 {
		t.Errorf("hours %+v", got.Availability)
	}
	// Around Christmas a staffed point lists the holidays, closed; a point
	// abroad lists none.
	christmas := shop.Provider2026("fi", time.Date(2026, 12, 20, 12, 0, 0, 0, time.UTC))
	if ex := christmas.Availability.Exceptions; len(ex) != 4 || ex[0].Date != "2026-12-24" || !ex[0].Closed {
		t.Errorf("Christmas: %+v", ex)
	}
	abroad := shop
	abroad.Country, abroad.Area = "EE", &PostalArea{Country: "EE", PostalCode: "10111", PostOffice: "Kesklinna", Municipality: "Tallinn"}
	if a := abroad.Provider2026("et", time.Date(2026, 12, 20, 12, 0, 0, 0, time.UTC)); len(a.Availability.Exceptions) != 0 || a.Location.City != "Kesklinna" {
		t.Errorf("abroad: %+v", a)
	}
}
