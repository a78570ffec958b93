package parcelgate

import (
	"fmt"
	"slices"
	"strings"
)

// checkParcelMethod checks a parcel's service code and delivery operator
// (required says the service code must be given).
func checkParcelMethod(p *Problems, path string, in *ConsignmentParcel, required bool) {
	in.ServiceCode = strings.TrimSpace(in.ServiceCode)
	in.DeliveryOperator = strings.TrimSpace(in.DeliveryOperator)
	in.PickupPointID = strings.TrimSpace(in.PickupPointID)
	switch {
	case in.ServiceCode == "" && required:
		p.Add(path+".serviceCode", "is required (e.g. 2103)")
	case in.ServiceCode == "":
	case strings.EqualFold(in.DeliveryOperator, "Unifaun"):
		if !ValidServiceCode(strings.TrimPrefix(in.ServiceCode, "PO")) || !strings.HasPrefix(in.ServiceCode, "PO") {
			p.Add(path+".serviceCode", "%q is not a Unifaun service code: PO and a code of 2101, 2102, 2103, 2104, 2143, 2144, 2145, 2317, 2318, 2331, 2711", in.ServiceCode)
		}
		in.DeliveryOperator = "Unifaun"
	case !ValidServiceCode(in.ServiceCode):
		p.Add(path+".serviceCode", "%q is not a service code; use one of 2101, 2102, 2103, 2104, 2143, 2144, 2145, 2317, 2318, 2331, 2711, NOUTO", in.ServiceCode)
	}
	switch {
	case in.DeliveryOperator == "", strings.EqualFold(in.DeliveryOperator, DeliveryOperator):
		if in.DeliveryOperator != "" {
			in.DeliveryOperator = DeliveryOperator
		}
	case in.DeliveryOperator == "Unifaun":
	default:
		p.Add(path+".deliveryOperator", "must be Posti or Unifaun, not %q", in.DeliveryOperator)
	}
	if len(in.PickupPointID) > 50 {
		p.Add(path+".pickupPointId", "must be at most 50 characters")
	}
	if len(in.RoutingServiceCode) > 20 {
		p.Add(path+".routingServiceCode", "must be at most 20 characters")
	}
	if len(in.AdditionalServices) > MaxOrderServices {
		p.Add(path+".additionalServices", "must hold at most %d services", MaxOrderServices)
	}
}

// checkTrackingCodes checks a supplier's own tracking codes: 1-10 codes of
// 4-35 letters, digits and '-', each once.
func checkTrackingCodes(p *Problems, path string, codes []string) {
	if len(codes) > MaxTrackingCodes {
		p.Add(path+".trackingCodes", "must hold at most %d codes", MaxTrackingCodes)
		return
	}
	for i, code := range codes {
		if !validTrackingCode(code) {
			p.Add(fmt.Sprintf("%s.trackingCodes[%d]", path, i), "must be 4-35 letters, digits or '-', not %q", code)
		}
	}
}

func validTrackingCode(s string) bool {
	if len(s) < 4 || len(s) > 35 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

func validParcelID(s string) bool {
	if len(s) > 35 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return s != ""
}

// checkParcelRows checks a parcel's rows against the shipment's: each
// names a row by itemId (and, when given, its externalWarehouseId), at
// most once; quantity, when given, is the row's ordered quantity;
// deliveredQuantity (required when needShare) is 0 to that quantity.
func checkParcelRows(p *Problems, path string, s *DropshipShipment, rows []ConsignmentParcelRow, needShare bool) []ConsignmentParcelRow {
	if len(rows) > len(s.Consignment.Rows) {
		p.Add(path+".rows", "must hold at most the shipment's %d rows", len(s.Consignment.Rows))
		return nil
	}
	out := make([]ConsignmentParcelRow, 0, len(rows))
	seen := map[string]bool{}
	for i, r := range rows {
		rp := fmt.Sprintf("%s.rows[%d]", path, i)
		r.ItemID = strings.TrimSpace(r.ItemID)
		at := slices.IndexFunc(s.Consignment.Rows, func(x ConsignmentRow) bool { return x.ItemID == r.ItemID })
		switch {
		case r.ItemID == "":
			p.Add(rp+".itemId", "is required")
			continue
		case at < 0:
			p.Add(rp+".itemId", "the shipment has no row %q", r.ItemID)
			continue
		case seen[r.ItemID]:
			p.Add(rp+".itemId", "%q is given twice in this parcel", r.ItemID)
			continue
		}
		seen[r.ItemID] = true
		row := s.Consignment.Rows[at]
		if r.ExternalWarehouseID != "" && r.ExternalWarehouseID != row.ExternalWarehouseID {
			p.Add(rp+".externalWarehouseId", "is %s for this row, not %q", row.ExternalWarehouseID, r.ExternalWarehouseID)
		}
		if r.Quantity != 0 && r.Quantity != row.Quantity {
			p.Add(rp+".quantity", "is the row's ordered quantity, %d, not %d; a parcel's share is deliveredQuantity", row.Quantity, r.Quantity)
		}
		switch {
		case r.DeliveredQuantity == nil && needShare:
			p.Add(rp+".deliveredQuantity", "is required: what this parcel carries of the row, 0 to %d", row.Quantity)
		case r.DeliveredQuantity != nil && (*r.DeliveredQuantity < 0 || *r.DeliveredQuantity > row.Quantity):
			p.Add(rp+".deliveredQuantity", "must be 0 to the row's quantity %d, not %d", row.Quantity, *r.DeliveredQuantity)
		}
		out = append(out, ConsignmentParcelRow{ExternalWarehouseID: row.ExternalWarehouseID, ItemID: row.ItemID, Quantity: row.Quantity, DeliveredQuantity: r.DeliveredQuantity})
	}
	return out
}

// checkRowShares checks that the shares of each row over the parcels do
// not exceed its quantity, and with everyRow that each row is in a parcel.
func checkRowShares(p *Problems, s *DropshipShipment, everyRow bool) {
	for i, row := range s.Consignment.Rows {
		var sum Quantity
		in := false
		for _, parcel := range s.Consignment.Parcels {
			for _, r := range parcel.Rows {
				if r.ItemID == row.ItemID {
					in = true
					if r.DeliveredQuantity != nil {
						sum += *r.DeliveredQuantity
					}
				}
			}
		}
		switch {
		case !in && everyRow:
			p.Add("consignment.parcels", "row %d (itemId %s) is in no parcel: list it, with deliveredQuantity 0 when it is not sent", i, row.ItemID)
		case sum > row.Quantity:
			p.Add("consignment.parcels", "the parcels carry %d of row %s, more than its quantity %d", sum, row.ItemID, row.Quantity)
		}
	}
}

func parcelIDs(ps []ConsignmentParcel) string {
	ids := make([]string, len(ps))
	for i, p := range ps {
		ids[i] = p.ParcelID
	}
	return strings.Join(ids, ", ")
}
