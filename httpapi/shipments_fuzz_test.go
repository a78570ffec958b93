package httpapi

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/parcelgate/parcelgate"
)

// FuzzShipmentRequest feeds arbitrary bodies to the decoding of POST
// /{version}/shipments and the validation the shipment service then makes
// of it (Shipment.Validate, its refusal as the route lists it): it must
// never panic, must refuse with a client error only, and what it accepts
// must be a shipment the store can register as it is.
func FuzzShipmentRequest(f *testing.F) {
	f.Add(`{"serviceCode":"2103","sender":{"name":"a"},"receiver":{"name":"b"},"parcels":[{}]}`)
	f.Add(`{"trackingNumber":" jjfi1234 ","serviceCode":"2103","sender":{"name":"a"},"receiver":{"name":"b","country":"fi"},"parcels":[{"parcelId":"abc123456789","packageCode":"m2","length":60,"width":36,"height":19,"weight":2}]}`)
	f.Add(`{"serviceCode":"2103","sender":{"name":"a"},"receiver":{"name":"b"},"parcels":[{"packageQuantity":{"type":"XL2"},"length":1e308,"width":-0,"height":0.5}]}`)
	f.Add(`{"parcels":[{"weight":"1"}],"extra":1}`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, body string) {
		r := httptest.NewRequest("POST", "/2025-04/shipments", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		s, err := parseShipmentRequest(r)
		if err == nil {
			err = relisted(s.Validate())
		}
		if err != nil {
			if code := parcelgate.ErrorCode(err); code != parcelgate.EINVALID {
				t.Fatalf("error code %s for %q: %v", code, body, err)
			}
			return
		}
		if s.TrackingNumber != "" && !parcelgate.ValidTrackingNumber(s.TrackingNumber) {
			t.Fatalf("accepted tracking number %q", s.TrackingNumber)
		}
		if len(s.Parcels) == 0 || len(s.Parcels) > parcelgate.MaxParcelsPerShipment {
			t.Fatalf("accepted %d parcels", len(s.Parcels))
		}
		for _, p := range s.Parcels {
			if p.ParcelID != "" && !parcelgate.ValidParcelID(p.ParcelID) {
				t.Fatalf("accepted parcel ID %q", p.ParcelID)
			}
			size, err := p.FitLocker()
			if err != nil || size != p.LockerSize || size == "" {
				t.Fatalf("accepted parcel %+v: locker %q %v", p, size, err)
			}
		}
	})
}
