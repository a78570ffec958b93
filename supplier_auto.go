package parcelgate

import (
	"strings"
	"time"
)

// The automatic supplier (decisions §34, sandbox): the warehouse engine's
// counterpart for dropshipping. An organization that switches it on has
// its shipments confirmed a delay after their last move, as a supplier's
// integration would, so a retailer can see its orders go through without
// a supplier of its own.

// AutoSupplier is an organization's automatic supplier setting.
type AutoSupplier struct {
	Enabled bool `json:"enabled"`
	// DelaySeconds is how long a shipment waits after its last move
	// before the automatic supplier confirms it.
	DelaySeconds int64 `json:"delaySeconds"`
}

// MaxAutoSupplierDelay bounds the delay (a week).
const MaxAutoSupplierDelay = 7 * 24 * 3600

// Validate checks the delay: 0 to a week.
func (a AutoSupplier) Validate() error {
	if a.DelaySeconds < 0 || a.DelaySeconds > MaxAutoSupplierDelay {
		return fieldError("delaySeconds", "must be 0 to %d (a week), not %d", MaxAutoSupplierDelay, a.DelaySeconds)
	}
	return nil
}

// Test scenarios of the automatic supplier (scenario.go's family): a
// retailer's order whose externalId ends in one of them is handled so by
// the automatic supplier, in the test environment only.
const (
	// ScenarioSupplierCancel: the automatic supplier cancels the shipment.
	ScenarioSupplierCancel = ".SCANCEL"
	// ScenarioSupplierPartial: the automatic supplier delivers half of
	// each row (rounded down; a row of 1 is not sent).
	ScenarioSupplierPartial = ".SPART"
)

// AutoSupply decides what the automatic supplier does with shipment s of
// the order orderExternalID in env at now: cancel it or deliver part of it
// in the test scenarios, else fast-confirm it (every row in full). A
// shipment that is final is left as it is (false).
func AutoSupply(env Environment, orderExternalID string, s *DropshipShipment, newCode func(serviceCode string) string, now time.Time) (*DropshipShipment, bool, error) {
	if s.Status.Value.Final() {
		return s, false, nil
	}
	id := strings.ToUpper(orderExternalID)
	switch {
	case env == Test && strings.HasSuffix(id, ScenarioSupplierCancel):
		st := DropshipCancelled
		return MoveShipment(s, DropshipUpdate{Status: &st}, newCode, now)
	case env == Test && strings.HasSuffix(id, ScenarioSupplierPartial):
		st := DropshipDelivered
		u := DropshipUpdate{Status: &st, HasParcels: true}
		for i, p := range s.Consignment.Parcels {
			in := ConsignmentParcel{ParcelID: p.ParcelID, Rows: []ConsignmentParcelRow{}}
			if i == 0 {
				for _, r := range s.Consignment.Rows {
					half := r.Quantity / 2
					in.Rows = append(in.Rows, ConsignmentParcelRow{ItemID: r.ItemID, DeliveredQuantity: &half})
				}
			}
			u.Parcels = append(u.Parcels, in)
		}
		return MoveShipment(s, u, newCode, now)
	}
	return FastConfirm(s, newCode, now)
}
