package sqlstore

import (
	"context"
	"crypto/rand"
	"math/big"
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

// deliverOrder assigns the parcels of a delivered order (DESIGN §7): each
// row is packed as one parcel with its own tracking code, listed on the
// row and on the order, and the delivery operator is named.
func (tx *Tx) deliverOrder(ctx context.Context, rec *orderRecord) error {
	o := rec.order
	o.TrackingCodes = o.TrackingCodes[:0]
	for i := range o.Rows {
		code := newTrackingCode()
		o.Rows[i].TrackingCodes = []string{code}
		o.TrackingCodes = append(o.TrackingCodes, code)
	}
	o.DeliveryOperator = parcelgate.DeliveryOperator
	return nil
}

// newTrackingCode returns a parcel tracking code: JJFI and 17 random
// digits, 21 characters, inside the 12-21 of a parcel ID (spec 4.2).
func newTrackingCode() string {
	n, err := rand.Int(rand.Reader, new(big.Int).Exp(big.NewInt(10), big.NewInt(17), nil))
	if err != nil {
		panic(err) // crypto/rand does not fail
	}
	s := n.String()
	for len(s) < 17 {
		s = "0" + s
	}
	return "JJFI" + s
}
