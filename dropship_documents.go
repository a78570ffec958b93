package parcelgate

import (
	"strings"
)

// DeliversToPickupPoint reports whether service code (2103, or PO2103 via
// Unifaun) delivers to a pick-up point the shopper chose: a parcel of it
// names its point (pickupPointId).
func DeliversToPickupPoint(code string) bool {
	p, ok := ShippingProductOf(strings.TrimPrefix(strings.ToUpper(strings.TrimSpace(code)), "PO"))
	return ok && p.PickupPoint
}

// ParcelDocuments says which documents a parcel of s has (decisions §38):
// the delivery note always (a packing slip with what each row ships, and
// the parcel's tracking codes once confirmed); the address label only when
// LabelDecision allows it (codes the platform made).
func ParcelDocuments(s *DropshipShipment, p *ConsignmentParcel) (label, note bool) {
	return LabelDecision(s, p) == nil, true
}

// ShipmentParcelOf returns parcel id of s; ENOTFOUND naming it when s has
// none.
func ShipmentParcelOf(s *DropshipShipment, id string) (*ConsignmentParcel, error) {
	for i := range s.Consignment.Parcels {
		if s.Consignment.Parcels[i].ParcelID == id {
			return &s.Consignment.Parcels[i], nil
		}
	}
	return nil, Errorf(ENOTFOUND, "Shipment %s has no parcel %s.", s.ShipmentID, id)
}

// LabelDecision says whether the platform prints an address label for p
// (decisions §34): only for tracking codes it made itself. A parcel without
// codes (not confirmed, or carrying nothing) has no label yet; one whose
// codes are the supplier's own gets the delivery note only, as the
// provider's Glue does.
func LabelDecision(s *DropshipShipment, p *ConsignmentParcel) error {
	switch {
	case len(p.TrackingCodes) == 0:
		return Errorf(ECONFLICT, "Parcel %s of shipment %s has no tracking code yet: confirm the shipment (Delivered) first; a parcel that carries nothing has none.", p.ParcelID, s.ShipmentID)
	case !p.PlatformCodes:
		return Errorf(ECONFLICT, "Parcel %s of shipment %s has the supplier's own tracking codes: the platform makes no label for it, only the delivery note.", p.ParcelID, s.ShipmentID)
	}
	return nil
}

// PlatformParcelNumber makes the tracking code the platform gives a
// confirmed parcel of service serviceCode (2103, or PO2103 via Unifaun):
// the shipping API's parcel number of that service (NewParcelNumber: JJFI
// and 17 digits domestic, a UPU S10 number international), so a supplier's
// parcel and a shipping API parcel are numbered alike.
func PlatformParcelNumber(serviceCode string) string {
	if prod, ok := ShippingProductOf(strings.TrimPrefix(strings.ToUpper(serviceCode), "PO")); ok {
		return NewParcelNumber(prod)
	}
	return NewTrackingNumber()
}
