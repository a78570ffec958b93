package parcelgate

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// decisions §38 (INVENTED events): a supplier's event is kept in order,
// a retry by externalId changes nothing, and every mistake names its
// field.
func TestAddShipmentEvent(t *testing.T) {
	_, parts := twoSupplierOrder()
	s := parts[0].Shipment
	out, changed, err := AddShipmentEvent(s, DropshipEventInput{Code: "HANDED_TO_CARRIER", ParcelID: "1", ExternalID: "ev-1", Location: "Vantaa"}, splitNow)
	if err != nil || !changed || len(out.Events) != 1 || out.Events[0].ID != "1" || !out.Events[0].Timestamp.Equal(splitNow) {
		t.Fatalf("event: %v %v %+v", err, changed, out.Events)
	}
	if len(s.Events) != 0 {
		t.Fatal("AddShipmentEvent changed its argument")
	}
	again, changed, err := AddShipmentEvent(out, DropshipEventInput{Code: "OTHER", ExternalID: "ev-1"}, splitNow)
	if err != nil || changed || again != out {
		t.Fatalf("retry: %v %v", err, changed)
	}
	two, _, err := AddShipmentEvent(out, DropshipEventInput{Code: "DELAYED", Timestamp: splitNow.Add(-time.Hour)}, splitNow)
	if err != nil || len(two.Events) != 2 || two.Events[1].ID != "2" || !two.Events[1].Timestamp.Equal(splitNow.Add(-time.Hour)) {
		t.Fatalf("second: %v %+v", err, two.Events)
	}
	for field, in := range map[string]DropshipEventInput{
		"code":        {},
		"parcelId":    {Code: "X", ParcelID: "9"},
		"timestamp":   {Code: "X", Timestamp: splitNow.Add(time.Minute)},
		"description": {Code: "X", Description: strings.Repeat("d", 501)},
		"location":    {Code: "X", Location: strings.Repeat("l", 101)},
		"externalId":  {Code: "X", ExternalID: strings.Repeat("e", 101)},
	} {
		if _, _, err := AddShipmentEvent(s, in, splitNow); ErrorCode(err) != EINVALID || ErrorFields(err)[0].Field != field {
			t.Errorf("%s: %v", field, err)
		}
	}
	if _, _, err := AddShipmentEvent(s, DropshipEventInput{Code: "bad code"}, splitNow); ErrorCode(err) != EINVALID {
		t.Errorf("bad code: %v", err)
	}
	cancelled, _, _ := MoveShipment(s, DropshipUpdate{Status: st(DropshipCancelled)}, codes(), splitNow)
	if _, _, err := AddShipmentEvent(cancelled, DropshipEventInput{Code: "X"}, splitNow); ErrorCode(err) != ECONFLICT {
		t.Errorf("on a cancelled shipment: %v", err)
	}
	full := cloneShipment(s)
	full.Events = make([]DropshipEvent, MaxShipmentEvents)
	if _, _, err := AddShipmentEvent(full, DropshipEventInput{Code: "X"}, splitNow); ErrorCode(err) != ECONFLICT {
		t.Errorf("past the bound: %v", err)
	}
}

// decisions §38 (INVENTED options): domestic services for Finland, each
// direct and via Unifaun, marking the parcels that have it; international
// ones abroad; none once final.
func TestOptionsOf(t *testing.T) {
	_, parts := twoSupplierOrder()
	s := parts[0].Shipment
	o := OptionsOf(s)
	if !o.Open || o.DeliveryCountry != "FI" || len(o.Options) == 0 {
		t.Fatalf("options: %+v", o)
	}
	at := slices.IndexFunc(o.Options, func(d DeliveryOption) bool { return d.ServiceCode == "2103" && d.DeliveryOperator == "Posti" })
	if at < 0 || !o.Options[at].PickupPoint || !slices.Equal(o.Options[at].Parcels, []string{"1"}) || o.Options[at].Name["fi"] == "" {
		t.Errorf("2103: %+v", o.Options)
	}
	for _, d := range o.Options {
		prod, ok := ShippingProductOf(strings.TrimPrefix(d.ServiceCode, "PO"))
		if !ok || !prod.Goes("FI") || prod.Return || (d.DeliveryOperator == "Unifaun") != strings.HasPrefix(d.ServiceCode, "PO") {
			t.Errorf("domestic option %+v", d)
		}
	}
	abroad := cloneShipment(s)
	abroad.Consignment.DeliveryAddress.Country = "SE"
	for _, d := range OptionsOf(abroad).Options {
		if prod, _ := ShippingProductOf(strings.TrimPrefix(d.ServiceCode, "PO")); !prod.Goes("SE") || prod.Return {
			t.Errorf("abroad: %+v", d)
		}
	}
	done, _, _ := FastConfirm(s, codes(), splitNow)
	if o := OptionsOf(done); o.Open || len(o.Options) != 0 {
		t.Errorf("final: %+v", o)
	}
}
