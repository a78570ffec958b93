package parcelgate

import (
	"regexp"
	"strings"
	"testing"
)

// UPU S10 check digits: the standard's example RA 47312482 9 CH, and the
// two special cases (11 - sum mod 11 is 11 → 5, 10 → 0).
func TestS10CheckDigit(t *testing.T) {
	for digits, want := range map[string]byte{
		"47312482": '9', // sum 200, 200 mod 11 = 2, 11 - 2 = 9
		"00000000": '5', // sum 0 → 11 → 5
		"00004000": '0', // sum 12, mod 11 = 1 → 10 → 0
		"00000001": '4', // sum 7 → 4
	} {
		if got := S10CheckDigit(digits); got != want {
			t.Errorf("S10CheckDigit(%s) = %c, want %c", digits, got, want)
		}
	}
}

// Parcel numbers in the provider's form for the service: JJFI for a
// domestic one (a valid parcel ID, interface §2.2), S10 for international.
func TestNewParcelNumber(t *testing.T) {
	dom, _ := ShippingProductOf("2103")
	intl, _ := ShippingProductOf("2711")
	for range 50 {
		if n := NewParcelNumber(dom); !regexp.MustCompile(`^JJFI[0-9]{17}$`).MatchString(n) || !ValidParcelID(n) {
			t.Fatalf("domestic %s", n)
		}
		n := NewParcelNumber(intl)
		if !regexp.MustCompile(`^CP[0-9]{9}FI$`).MatchString(n) || S10CheckDigit(n[2:10]) != n[10] || !ValidParcelID(n) {
			t.Fatalf("international %s", n)
		}
	}
}

// service.id is PO + a code the shipping API takes; bare codes and
// unknown ones name the field.
func TestParseShippingServiceID(t *testing.T) {
	for _, id := range []string{"PO2103", " po2104 ", "PO2711"} {
		var p Problems
		if prod, ok := ParseShippingServiceID(&p, "service.id", id); !ok || p.Len() != 0 || prod.Code != strings.TrimPrefix(strings.ToUpper(strings.TrimSpace(id)), "PO") {
			t.Errorf("%q: %v %v", id, prod, p.List())
		}
	}
	for _, id := range []string{"", "2103", "PO9999", "PONOUTO", "XX2103"} {
		var p Problems
		if _, ok := ParseShippingServiceID(&p, "service.id", id); ok || p.Len() != 1 || p.List()[0].Field != "service.id" {
			t.Errorf("%q accepted: %v", id, p.List())
		}
	}
}

// The agent must be a point of the service (else the provider's E41); 2103
// without one takes the nearest; other services keep none.
func TestShippingPickupPoint(t *testing.T) {
	p2103, _ := ShippingProductOf("2103")
	p2104, _ := ShippingProductOf("2104")
	near, ok := testNetwork{}.NearestPickupPoint("33100", "2103")
	if !ok {
		t.Fatal("no point near 33100")
	}
	fi := Address{PostalCode: "33100", Country: "FI"}
	if pt, err := ShippingPickupPoint(testNetwork{}, "agent", p2103, near.ExternalID, fi); err != nil || pt != near.ExternalID {
		t.Fatalf("named point: %v %v", pt, err)
	}
	if pt, err := ShippingPickupPoint(testNetwork{}, "agent", p2103, "", fi); err != nil || pt != near.ExternalID {
		t.Fatalf("nearest: %v %v", pt, err)
	}
	for _, c := range []struct {
		prod ShippingProduct
		id   string
		to   Address
	}{{p2103, "000000000", fi}, {p2104, near.ExternalID, fi}, {p2103, "", Address{PostalCode: "11122", Country: "SE"}}} {
		_, err := ShippingPickupPoint(testNetwork{}, "agent", c.prod, c.id, c.to)
		if ErrorCode(err) != EINVALID || len(ErrorFields(err)) != 1 || ErrorFields(err)[0].Field != "agent" {
			t.Errorf("%s %q → %v", c.prod.Code, c.id, err)
		}
		if c.id != "" && ErrorMessage(err) != InactivePickupPoint {
			t.Errorf("%s %q: message %q", c.prod.Code, c.id, ErrorMessage(err))
		}
	}
	if pt, err := ShippingPickupPoint(testNetwork{}, "agent", p2104, "", fi); pt != "" || err != nil {
		t.Fatalf("2104 took a point: %v %v", pt, err)
	}
	// decisions §39: an international pick-up parcel (posti-cli's PO2351,
	// PO2331) goes to the point the receiver chose in their country; a
	// Finnish point is not one, no point is not either, and a country whose
	// points parcelgate does not hold takes the ID as given.
	p2351, _ := ShippingProductOf("2351")
	ee := Address{PostalCode: "10111", Country: "EE"}
	for _, c := range []struct {
		id   string
		to   Address
		want string
	}{{near.ExternalID, ee, EINVALID}, {"", ee, EINVALID}} {
		if _, err := ShippingPickupPoint(testNetwork{}, "agent", p2351, c.id, c.to); ErrorCode(err) != c.want || ErrorFields(err)[0].Field != "agent" {
			t.Errorf("2351 %q to %s: %v", c.id, c.to.Country, err)
		}
	}
	if !(testNetwork{}).HoldsPickupPoints("EE") {
		if pt, err := ShippingPickupPoint(testNetwork{}, "agent", p2351, "ee-1234", ee); err != nil || pt != "EE-1234" {
			t.Errorf("2351 to a point parcelgate holds no data for: %q %v", pt, err)
		}
		if _, err := ShippingPickupPoint(testNetwork{}, "agent", p2351, "EE 1234 <script>", ee); ErrorCode(err) != EINVALID {
			t.Errorf("2351 to an ID of no form: %v", err)
		}
	}
}

// decisions §39: each service goes where its row says: domestic ones in
// Finland, 2331 to the Baltics, 2351/2352 to the provider's pick-up
// countries abroad, 2017 anywhere abroad; returns come to Finland.
func TestCheckServiceRoute(t *testing.T) {
	for _, c := range []struct {
		code, from, to string
		bad            string
	}{
		{"2103", "FI", "FI", ""}, {"2103", "", "", ""}, {"2103", "FI", "SE", "receiver"},
		{"2331", "FI", "EE", ""}, {"2331", "FI", "SE", "receiver"}, {"2351", "FI", "DK", ""}, {"2351", "FI", "DE", "receiver"},
		{"2352", "FI", "LT", ""}, {"2017", "FI", "US", ""}, {"2017", "FI", "FI", "receiver"}, {"2015", "FI", "JP", ""},
		{"2461", "FI", "FI", ""}, {"2461", "FI", "EE", "receiver"},
		{"2108", "FI", "FI", ""}, {"2338", "LV", "FI", ""}, {"2338", "SE", "FI", "sender"}, {"2338", "LV", "EE", "receiver"},
		{"2718", "DE", "FI", ""}, {"2718", "FI", "FI", "sender"},
	} {
		prod, ok := ShippingProductOf(c.code)
		if !ok {
			t.Fatalf("%s not taken", c.code)
		}
		var p Problems
		CheckServiceRoute(&p, "sender", "receiver", prod, c.from, c.to)
		switch {
		case c.bad == "" && p.Len() != 0:
			t.Errorf("%s %s→%s refused: %v", c.code, c.from, c.to, p.List())
		case c.bad != "" && (p.Len() != 1 || p.List()[0].Field != c.bad):
			t.Errorf("%s %s→%s: %v, want a problem on %s", c.code, c.from, c.to, p.List(), c.bad)
		}
	}
}

// UPU S10: parcels CP, EMS E. (decisions §39); every international service
// numbers its parcels with a valid check digit.
func TestNewParcelNumberS10Letters(t *testing.T) {
	for _, code := range ShippingProducts() {
		prod, _ := ShippingProductOf(code)
		n := NewParcelNumber(prod)
		if prod.Domestic() {
			if !strings.HasPrefix(n, "JJFI") {
				t.Errorf("%s: %s", code, n)
			}
			continue
		}
		if !regexp.MustCompile(`^[A-Z]{2}[0-9]{9}FI$`).MatchString(n) || n[:2] != prod.S10 || S10CheckDigit(n[2:10]) != n[10] {
			t.Errorf("%s: %s", code, n)
		}
	}
	if ems, _ := ShippingProductOf("2017"); ems.S10[0] != 'E' {
		t.Errorf("EMS numbers %s", ems.S10)
	}
}

// Label-less sending: shipping API shipments need a label-less service and
// additional service 3196; other shipment data is label-less by intent.
func TestLabellessDecision(t *testing.T) {
	for _, c := range []struct {
		s    Shipment
		want string
	}{
		{Shipment{Origin: OriginShipping, ServiceCode: "2103", AdditionalServices: []string{"3101", "3196"}}, ""},
		{Shipment{Origin: OriginShipping, ServiceCode: "2103"}, ENOTFOUND},
		{Shipment{Origin: OriginShipping, ServiceCode: "2711", AdditionalServices: []string{"3196"}}, ENOTFOUND},
		{Shipment{Origin: OriginEDI, ServiceCode: "2711"}, ""},
		{Shipment{Origin: OriginOrder, ServiceCode: "2103"}, ""},
	} {
		if got := ErrorCode(LabellessDecision(&c.s)); got != c.want {
			t.Errorf("%+v: %q, want %q", c.s, got, c.want)
		}
	}
}

// PC and PKT are parcels of no locker size: S unless the dimensions need more.
func TestGenericPackageCode(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, c := range []struct {
		p    Parcel
		want LockerSize
	}{
		{Parcel{PackageCode: "PKT"}, LockerS},
		{Parcel{PackageCode: "pc", Length: f(50), Width: f(30), Height: f(15)}, LockerM},
		{Parcel{PackageCode: "M2"}, LockerM},
	} {
		if got, err := c.p.FitLocker(); err != nil || got != c.want {
			t.Errorf("%+v: %s %v", c.p, got, err)
		}
	}
}

// decisions §29: a shipping API shipment is checked in one place, in the
// order the shipping API always answered: the shipment's own rules under
// the provider's field names first, then the route, then the pick-up point
// (the nearest when none is named), which it sets.
func TestValidateShippingOrder(t *testing.T) {
	w := 1.0
	order := func() *Shipment {
		return &Shipment{ServiceCode: "2103", Origin: OriginShipping,
			Sender:   Address{Name: "Shop", StreetAddress: "Kauppakatu 1", PostalCode: "00100", PostOffice: "Helsinki", Country: "FI"},
			Receiver: Address{Name: "Matti", StreetAddress: "Hämeenkatu 5", PostalCode: "33100", PostOffice: "Tampere", Country: "FI"},
			Parcels:  []Parcel{{Weight: &w}}}
	}
	near, _ := testNetwork{}.NearestPickupPoint("33100", "2103")
	s := order()
	if err := s.ValidateShippingOrder(testNetwork{}); err != nil || s.PickupPointID != near.ExternalID || s.Parcels[0].LockerSize != LockerS {
		t.Fatalf("valid order: %v, point %q", err, s.PickupPointID)
	}
	s = order()
	s.Receiver.Name, s.Receiver.PostalCode, s.Receiver.Country, s.PickupPointID = "", strings.Repeat("1", 201), "SE", "000000000"
	if err := s.ValidateShippingOrder(testNetwork{}); ErrorCode(err) != EINVALID || len(ErrorFields(err)) != 2 || ErrorFields(err)[0].Field != "shipment.receiver.name" || ErrorFields(err)[1].Field != "shipment.receiver.zipcode" {
		t.Fatalf("the shipment's own rules come first, named as the shipping API names them: %v", err)
	}
	s = order()
	s.Receiver.Country, s.PickupPointID = "SE", "000000000"
	if err := s.ValidateShippingOrder(testNetwork{}); ErrorCode(err) != EINVALID || ErrorFields(err)[0].Field != "shipment.receiver.country" {
		t.Fatalf("then the route: %v", err)
	}
	s = order()
	s.PickupPointID = "000000000"
	if err := s.ValidateShippingOrder(testNetwork{}); ErrorMessage(err) != InactivePickupPoint || ErrorFields(err)[0].Field != "shipment.agent.quickId" {
		t.Fatalf("then the point: %v", err)
	}
}

// The one maker of a shipment's numbers: the shipping API's in its
// product's form, every other JJFI and 17 digits.
func TestShipmentNewParcelNumber(t *testing.T) {
	jjfi := regexp.MustCompile(`^JJFI[0-9]{17}$`)
	for _, c := range []struct {
		s    Shipment
		form *regexp.Regexp
	}{
		{Shipment{ServiceCode: "2711", Origin: OriginShipping}, regexp.MustCompile(`^CP[0-9]{9}FI$`)},
		{Shipment{ServiceCode: "2103", Origin: OriginShipping}, jjfi},
		{Shipment{ServiceCode: "2711"}, jjfi},
		{Shipment{ServiceCode: "2103", Origin: OriginOrder}, jjfi},
	} {
		if n := c.s.NewParcelNumber(); !c.form.MatchString(n) {
			t.Errorf("%s %s: %s", c.s.Origin, c.s.ServiceCode, n)
		}
	}
}
