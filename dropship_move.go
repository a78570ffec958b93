package parcelgate

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// DropshipUpdate is a supplier's PATCH (a status move, or a confirmation
// with parcels) or PUT (the full parcel list) of a shipment.
type DropshipUpdate struct {
	Status  *DropshipStatus
	Parcels []ConsignmentParcel
	// HasParcels: the body carried consignment.parcels (even empty).
	HasParcels bool
	// ExternalID is the supplier's own reference, when given.
	ExternalID string
}

// MaxShipmentParcels bounds the parcels of one shipment.
const MaxShipmentParcels = 100

// MaxTrackingCodes bounds the tracking codes of one parcel.
const MaxTrackingCodes = 10

// MoveShipment applies a supplier's PATCH to s at now and returns the
// shipment as it is to be stored (s is not changed), or a 4xx naming the
// field (decisions §34): a status of SupplierStatuses, never out of a final
// status (the same final status again answers the shipment unchanged),
// forward only while in progress; parcels only with Delivered (they
// confirm what was sent). newCode makes platform tracking codes.
func MoveShipment(s *DropshipShipment, u DropshipUpdate, newCode func(serviceCode string) string, now time.Time) (*DropshipShipment, bool, error) {
	if u.Status == nil {
		return nil, false, fieldError("status.value", "is required: one of %s", supplierStatusNames())
	}
	to := *u.Status
	if !slices.Contains(SupplierStatuses, to) {
		return nil, false, fieldError("status.value", "%q is not a status a supplier writes: one of %s (case-sensitive)", to, supplierStatusNames())
	}
	from := s.Status.Value
	if u.HasParcels && to != DropshipDelivered {
		return nil, false, fieldError("consignment.parcels", "confirm parcels with status Delivered; split a shipment into parcels with PUT")
	}
	if from == to && (from.Final() || !u.HasParcels) {
		if u.HasParcels {
			return nil, false, Errorf(ECONFLICT, "Shipment %s is already Delivered.", s.ShipmentID)
		}
		return s, false, nil
	}
	if err := checkMove(s, to); err != nil {
		return nil, false, err
	}
	out := cloneShipment(s)
	if u.ExternalID != "" {
		out.ExternalID = u.ExternalID
	}
	if to == DropshipDelivered {
		if err := confirmParcels(out, u, newCode); err != nil {
			return nil, false, err
		}
	}
	if to == DropshipCancelled || to == DropshipError {
		zero := Quantity(0)
		for i := range out.Consignment.Rows {
			out.Consignment.Rows[i].DeliveredQuantity = &zero
		}
	}
	out.Status = DropshipState{Value: to, Timestamp: now}
	return out, true, nil
}

// checkMove decides whether a supplier may move s to to, another status
// than its own (decisions §34, §38): to is one of SupplierStatuses (400
// naming status.value otherwise); nothing moves out of a final status
// (409); a shipment in progress moves forward only, so a status behind
// the current one is 400 naming status.value.
func checkMove(s *DropshipShipment, to DropshipStatus) error {
	if !slices.Contains(SupplierStatuses, to) {
		return fieldError("status.value", "%q is not a status a supplier writes: one of %s (case-sensitive)", to, supplierStatusNames())
	}
	from := s.Status.Value
	if from.Final() {
		return &Error{Code: ECONFLICT, Message: fmt.Sprintf("Shipment %s is %s, a final status: it takes no further updates.", s.ShipmentID, from),
			Fields: []FieldError{{Field: "status.value", Message: fmt.Sprintf("cannot move from %s to %s", from, to)}}}
	}
	if !to.Final() && to.progressRank() < from.progressRank() {
		return fieldError("status.value", "cannot move back from %s to %s: a shipment in progress moves forward only", from, to)
	}
	return nil
}

// FastConfirm is POST /shipments/{id}/delivered: Delivered with every
// row's deliveredQuantity its ordered quantity and platform tracking codes
// for the parcels without one. Only for deliveries the provider carries
// itself (not via Unifaun); a Delivered shipment is answered as it is.
func FastConfirm(s *DropshipShipment, newCode func(serviceCode string) string, now time.Time) (*DropshipShipment, bool, error) {
	if s.Status.Value == DropshipDelivered {
		return s, false, nil
	}
	if s.Status.Value.Final() {
		return nil, false, Errorf(ECONFLICT, "Shipment %s is %s, a final status: it takes no further updates.", s.ShipmentID, s.Status.Value)
	}
	for i, p := range s.Consignment.Parcels {
		if !strings.EqualFold(p.DeliveryOperator, DeliveryOperator) {
			return nil, false, &Error{Code: ECONFLICT, Message: "Fast confirmation is for deliveries the provider carries itself; confirm with PATCH.",
				Fields: []FieldError{{Field: fmt.Sprintf("consignment.parcels[%d].deliveryOperator", i), Message: fmt.Sprintf("is %s, not %s", p.DeliveryOperator, DeliveryOperator)}}}
		}
	}
	out := cloneShipment(s)
	c := &out.Consignment
	for _, row := range c.Rows {
		// Shares already given by a split stand; the row's first parcel
		// takes what they leave.
		var given Quantity
		first := -1
		for pi := range c.Parcels {
			for ri := range c.Parcels[pi].Rows {
				pr := &c.Parcels[pi].Rows[ri]
				if pr.ItemID != row.ItemID {
					continue
				}
				if first < 0 {
					first = pi*1_000_000 + ri
				}
				if pr.DeliveredQuantity != nil {
					given += *pr.DeliveredQuantity
				}
			}
		}
		if first < 0 {
			c.Parcels[0].Rows = append(c.Parcels[0].Rows, ConsignmentParcelRow{ExternalWarehouseID: row.ExternalWarehouseID, ItemID: row.ItemID, Quantity: row.Quantity})
			first = len(c.Parcels[0].Rows) - 1
		}
		pr := &c.Parcels[first/1_000_000].Rows[first%1_000_000]
		d := row.Quantity - given
		if pr.DeliveredQuantity != nil {
			d += *pr.DeliveredQuantity
		}
		pr.DeliveredQuantity = &d
	}
	settleParcels(out, map[int][]string{}, newCode)
	out.Status = DropshipState{Value: DropshipDelivered, Timestamp: now}
	return out, true, nil
}

// SplitShipment is PUT /shipments/{id}: the full parcel list replaces the
// shipment's parcels, and the status of the body, when given, applies
// after the split (decisions §34, §38; the provider's split example is one
// PUT that also confirms with Delivered).
//
// A parcel the shipment already has (by parcelId) may leave out what it
// has: packageType, serviceCode and with it deliveryOperator,
// pickupPointId, routingServiceCode and additionalServices (the provider's
// example sends parcel 1 as Glue made it, without a service). A parcel it
// adds needs a unique parcelId, a packageType, a serviceCode, a
// routingServiceCode, and a pickupPointId when its service delivers to a
// pick-up point (DeliversToPickupPoint); deliveryOperator and
// additionalServices default to those of the shipment's first parcel. A
// row shared by parcels appears in each with its ordered quantity and that
// parcel's share as deliveredQuantity; every row is in some parcel and the
// shares of a row never exceed its quantity. With status Delivered the
// shares are what is sent (deliveredQuantity required on every row of
// every parcel, 0 for what is not sent), and each parcel that carries
// something gets its tracking codes: its own trackingCodes, else one the
// platform makes (newCode), with a label. Another status moves the
// shipment as a PATCH would (checkMove). Only a shipment in progress is
// split.
func SplitShipment(s *DropshipShipment, u DropshipUpdate, newCode func(serviceCode string) string, now time.Time) (*DropshipShipment, error) {
	if s.Status.Value.Final() {
		return nil, Errorf(ECONFLICT, "Shipment %s is %s, a final status: it takes no further updates.", s.ShipmentID, s.Status.Value)
	}
	to := s.Status.Value
	if u.Status != nil && *u.Status != to {
		if err := checkMove(s, *u.Status); err != nil {
			return nil, err
		}
		to = *u.Status
	}
	confirm := to == DropshipDelivered
	var p Problems
	switch {
	case !u.HasParcels || len(u.Parcels) == 0:
		return nil, fieldError("consignment.parcels", "is required: the full list of the shipment's parcels")
	case len(u.Parcels) > MaxShipmentParcels:
		return nil, fieldError("consignment.parcels", "must hold at most %d parcels", MaxShipmentParcels)
	}
	base := s.Consignment.Parcels[0]
	out := cloneShipment(s)
	if u.ExternalID != "" {
		out.ExternalID = u.ExternalID
	}
	seen := map[string]bool{}
	own := map[int][]string{}
	parcels := make([]ConsignmentParcel, len(u.Parcels))
	for i, in := range u.Parcels {
		path := fmt.Sprintf("consignment.parcels[%d]", i)
		in.ParcelID = strings.TrimSpace(in.ParcelID)
		switch {
		case in.ParcelID == "":
			p.Add(path+".parcelId", "is required")
		case !validParcelID(in.ParcelID):
			p.Add(path+".parcelId", "must be 1-35 letters, digits, '-' or '_', not %q", in.ParcelID)
		case seen[in.ParcelID]:
			p.Add(path+".parcelId", "%q is given twice: each parcel needs its own", in.ParcelID)
		}
		seen[in.ParcelID] = true
		in.PackageType = strings.TrimSpace(in.PackageType)
		at := slices.IndexFunc(s.Consignment.Parcels, func(x ConsignmentParcel) bool { return x.ParcelID == in.ParcelID })
		// kept: a parcel the shipment has, sent back with its own service or
		// none; it keeps what it is not given.
		kept := false
		if at >= 0 {
			had := s.Consignment.Parcels[at]
			if in.PackageType == "" {
				in.PackageType = had.PackageType
			}
			if sc := strings.TrimSpace(in.ServiceCode); sc == "" || sc == had.ServiceCode {
				kept = true
				in.ServiceCode = had.ServiceCode
				if strings.TrimSpace(in.DeliveryOperator) == "" {
					in.DeliveryOperator = had.DeliveryOperator
				}
				if strings.TrimSpace(in.PickupPointID) == "" {
					in.PickupPointID = had.PickupPointID
				}
				if strings.TrimSpace(in.RoutingServiceCode) == "" {
					in.RoutingServiceCode = had.RoutingServiceCode
				}
				if in.AdditionalServices == nil {
					in.AdditionalServices = slices.Clone(had.AdditionalServices)
				}
			}
		}
		if in.PackageType == "" {
			p.Add(path+".packageType", "is required for a parcel the shipment does not have yet (e.g. PC)")
		}
		checkParcelMethod(&p, path, &in, true)
		in.RoutingServiceCode = strings.TrimSpace(in.RoutingServiceCode)
		if in.ServiceCode != "" && !kept {
			if in.RoutingServiceCode == "" {
				p.Add(path+".routingServiceCode", "is required with serviceCode %s (e.g. 3200)", in.ServiceCode)
			}
			if in.PickupPointID == "" && DeliversToPickupPoint(in.ServiceCode) {
				p.Add(path+".pickupPointId", "is required: service %s delivers to a pick-up point", in.ServiceCode)
			}
		}
		if in.DeliveryOperator == "" {
			in.DeliveryOperator = base.DeliveryOperator
		}
		if in.AdditionalServices == nil {
			in.AdditionalServices = slices.Clone(base.AdditionalServices)
		}
		if in.TrackingCodes == nil {
			in.TrackingCodes = []string{}
		}
		checkTrackingCodes(&p, path, in.TrackingCodes)
		if len(in.TrackingCodes) > 0 {
			own[i] = in.TrackingCodes
		}
		// Codes are the confirmation's: the supplier's own, or the
		// platform's when it confirms.
		in.TrackingCodes, in.PlatformCodes, in.Ready = []string{}, false, false
		in.Rows = checkParcelRows(&p, path, s, in.Rows, confirm)
		parcels[i] = in
	}
	out.Consignment.Parcels = parcels
	checkRowShares(&p, out, true)
	if err := p.Err(); err != nil {
		return nil, err
	}
	switch to {
	case DropshipDelivered:
		settleParcels(out, own, newCode)
	case DropshipCancelled, DropshipError:
		zero := Quantity(0)
		for i := range out.Consignment.Rows {
			out.Consignment.Rows[i].DeliveredQuantity = &zero
		}
	}
	if to != s.Status.Value {
		out.Status = DropshipState{Value: to, Timestamp: now}
	}
	return out, nil
}

// confirmParcels applies the parcels of a Delivered PATCH to out: each
// names a parcel of the shipment (split first with PUT to add parcels) and
// gives its rows' deliveredQuantity (required), its own trackingCodes when
// the supplier has them, and serviceCode with deliveryOperator to change
// the method. Parcels not named keep their shares (none: nothing sent).
// Without parcels, a shipment never split is delivered in full.
func confirmParcels(out *DropshipShipment, u DropshipUpdate, newCode func(serviceCode string) string) error {
	c := &out.Consignment
	own := map[int][]string{}
	if !u.HasParcels {
		split := false
		for _, p := range c.Parcels {
			for _, r := range p.Rows {
				split = split || r.DeliveredQuantity != nil
			}
		}
		if !split {
			for pi := range c.Parcels {
				for ri := range c.Parcels[pi].Rows {
					q := c.Parcels[pi].Rows[ri].Quantity
					c.Parcels[pi].Rows[ri].DeliveredQuantity = &q
				}
			}
		}
		settleParcels(out, own, newCode)
		return nil
	}
	var p Problems
	if len(u.Parcels) == 0 {
		return fieldError("consignment.parcels", "must name at least one parcel; leave it out to deliver every row in full")
	}
	if len(u.Parcels) > MaxShipmentParcels {
		return fieldError("consignment.parcels", "must hold at most %d parcels", MaxShipmentParcels)
	}
	seen := map[string]bool{}
	for i, in := range u.Parcels {
		path := fmt.Sprintf("consignment.parcels[%d]", i)
		id := strings.TrimSpace(in.ParcelID)
		at := slices.IndexFunc(c.Parcels, func(x ConsignmentParcel) bool { return x.ParcelID == id })
		switch {
		case id == "":
			p.Add(path+".parcelId", "is required")
			continue
		case at < 0:
			p.Add(path+".parcelId", "the shipment has no parcel %q (its parcels: %s); add parcels with PUT first", id, parcelIDs(c.Parcels))
			continue
		case seen[id]:
			p.Add(path+".parcelId", "%q is given twice", id)
			continue
		}
		seen[id] = true
		parcel := &c.Parcels[at]
		if t := strings.TrimSpace(in.PackageType); t != "" {
			parcel.PackageType = t
		}
		if in.ServiceCode != "" || in.DeliveryOperator != "" {
			checkParcelMethod(&p, path, &in, false)
			if in.ServiceCode != "" && in.DeliveryOperator == "" {
				p.Add(path+".deliveryOperator", "is required with serviceCode: changing the method needs both")
			} else if in.DeliveryOperator != "" && in.ServiceCode == "" {
				p.Add(path+".serviceCode", "is required with deliveryOperator: changing the method needs both")
			} else {
				parcel.ServiceCode, parcel.DeliveryOperator = in.ServiceCode, in.DeliveryOperator
				if in.PickupPointID != "" {
					parcel.PickupPointID = in.PickupPointID
				}
			}
		}
		if in.TrackingCodes != nil {
			checkTrackingCodes(&p, path, in.TrackingCodes)
			own[at] = in.TrackingCodes
		}
		if in.Rows != nil {
			parcel.Rows = checkParcelRows(&p, path, out, in.Rows, true)
		}
		parcel.Ready = true
	}
	checkRowShares(&p, out, false)
	if err := p.Err(); err != nil {
		return err
	}
	settleParcels(out, own, newCode)
	return nil
}

// settleParcels ends a confirmation: rows' deliveredQuantity is the sum of
// their parcels' shares (a share left out is 0), and each parcel that
// carries something has tracking codes: the supplier's own (own[i]), those
// it had, or one the platform makes. A parcel that carries nothing has
// none.
func settleParcels(out *DropshipShipment, own map[int][]string, newCode func(serviceCode string) string) {
	c := &out.Consignment
	delivered := map[string]Quantity{}
	for pi := range c.Parcels {
		parcel := &c.Parcels[pi]
		var carried Quantity
		for ri := range parcel.Rows {
			r := &parcel.Rows[ri]
			if r.DeliveredQuantity == nil {
				zero := Quantity(0)
				r.DeliveredQuantity = &zero
			}
			carried += *r.DeliveredQuantity
			delivered[r.ItemID] += *r.DeliveredQuantity
		}
		parcel.Ready = true
		switch {
		case carried == 0:
			parcel.TrackingCodes, parcel.PlatformCodes = []string{}, false
		case len(own[pi]) > 0:
			parcel.TrackingCodes, parcel.PlatformCodes = slices.Clone(own[pi]), false
		case len(parcel.TrackingCodes) == 0:
			parcel.TrackingCodes, parcel.PlatformCodes = []string{newCode(parcel.ServiceCode)}, true
		}
	}
	for i := range c.Rows {
		d := delivered[c.Rows[i].ItemID]
		c.Rows[i].DeliveredQuantity = &d
	}
}

func supplierStatusNames() string {
	names := make([]string, len(SupplierStatuses))
	for i, s := range SupplierStatuses {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}

func fieldError(field, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	return &Error{Code: EINVALID, Message: "Validation failed: " + field + " " + msg, Fields: []FieldError{{Field: field, Message: msg}}}
}

// cloneShipment copies s deeply enough for a change: rows, parcels and
// their rows and codes are new slices.
func cloneShipment(s *DropshipShipment) *DropshipShipment {
	out := *s
	out.References = slices.Clone(s.References)
	out.Events = slices.Clone(s.Events)
	c := &out.Consignment
	c.Rows = slices.Clone(s.Consignment.Rows)
	c.Parcels = slices.Clone(s.Consignment.Parcels)
	for i := range c.Parcels {
		c.Parcels[i].Rows = slices.Clone(c.Parcels[i].Rows)
		c.Parcels[i].TrackingCodes = slices.Clone(c.Parcels[i].TrackingCodes)
		c.Parcels[i].AdditionalServices = slices.Clone(c.Parcels[i].AdditionalServices)
	}
	return &out
}
