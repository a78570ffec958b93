package parcelgate

import "time"

// The life of a warehouse order: which moves exist, what each move does
// to stock, and how a re-sent order is answered. Pure decisions; the store
// loads an order, asks here, and writes what the answer says.

// orderMoves is the one table of status moves (decisions §7; interface §3 shows
// only the first status): Created → Submitted → Delivered, and Created or
// Submitted → Cancelled or Error. A status with no entry is final.
var orderMoves = map[OrderStatus][]OrderStatus{
	OrderCreated:   {OrderSubmitted, OrderCancelled, OrderError},
	OrderSubmitted: {OrderDelivered, OrderCancelled, OrderError},
}

// WarehousePath is the life of an order the warehouse completes: each
// status moves to the next. The warehouse engine walks it step by step.
var WarehousePath = []OrderStatus{OrderCreated, OrderSubmitted, OrderDelivered}

// CanMove reports whether an order may move from one status to another
// (the table orderMoves). The client, the operator and the warehouse
// engine are all held to it.
func CanMove(from, to OrderStatus) bool {
	for _, s := range orderMoves[from] {
		if s == to {
			return true
		}
	}
	return false
}

// WarehouseDue is which orders the warehouse engine moves on out of From
// (decisions §7): those in From whose wait (ready at) began at or before
// ReadyBefore and, out of Created, only those with autoSubmit. A store
// filters its candidates by these fields and, under the order's lock,
// asks Covers again.
type WarehouseDue struct {
	From        OrderStatus
	ReadyBefore time.Time
	// AutoSubmitOnly: an order is due only with autoSubmit (out of
	// Created; the client holds an order without it).
	AutoSubmitOnly bool
}

// DueForWarehouse decides which orders in from are due for the engine's
// next move when the move waits since readyBefore (now less the delay of
// the move).
func DueForWarehouse(from OrderStatus, readyBefore time.Time) WarehouseDue {
	return WarehouseDue{From: from, ReadyBefore: readyBefore, AutoSubmitOnly: from == OrderCreated}
}

// Covers reports whether an order in status, ready at readyAt, with
// autoSubmit, is due.
func (d WarehouseDue) Covers(status OrderStatus, autoSubmit bool, readyAt time.Time) bool {
	return status == d.From && !readyAt.After(d.ReadyBefore) && (autoSubmit || !d.AutoSubmitOnly)
}

// Terminal reports whether no move leaves s (decisions §7). Error and
// Cancelled are left only by a re-send of the order (ReopenDecision),
// which is not a move.
func (s OrderStatus) Terminal() bool { return len(orderMoves[s]) == 0 }

// StockEffect is what reaching a status does to the stock an order holds
// (decisions §7).
type StockEffect int

const (
	// StockKeep: the allocation stays (Submitted).
	StockKeep StockEffect = iota
	// StockShip: allocated -= q; the parcels leave with the stock
	// (Delivered).
	StockShip
	// StockReturn: allocated -= q, quantity += q (Cancelled, Error).
	StockReturn
)

// EffectOf returns what reaching status to does to an order's allocation.
func EffectOf(to OrderStatus) StockEffect {
	switch to {
	case OrderDelivered:
		return StockShip
	case OrderCancelled, OrderError:
		return StockReturn
	}
	return StockKeep
}

// ResendAction is how a create request for an order that already exists
// is answered.
type ResendAction int

const (
	// ResendRetry: the same content; answer the stored order, change
	// nothing.
	ResendRetry ResendAction = iota + 1
	// ResendReplace: new content; return the order's stock, replace its
	// content and allocate afresh.
	ResendReplace
)

// ResendDecision applies decisions §7 to a create, or new content sent for a
// named order, when the order exists with status st:
// the same content is a retry; new content replaces an order still in
// Created; new content for any other status is ECONFLICT.
func ResendDecision(externalID string, st OrderStatus, sameContent bool) (ResendAction, error) {
	switch {
	case sameContent:
		return ResendRetry, nil
	case st == OrderCreated:
		return ResendReplace, nil
	}
	return 0, Errorf(ECONFLICT, "Order %s is %s; only an order in Created can be changed by sending it again.", externalID, st)
}

// ReopenDecision applies the re-send of an order that ended without being
// delivered, as the provider's warehouse plugin does with a cancelled shop
// order: an order in Error or Cancelled is sent again (validated, allocated
// afresh, live again); Delivered is final; an order still open is not
// re-sent (ECONFLICT either way).
func ReopenDecision(externalID string, st OrderStatus) error {
	switch st {
	case OrderError, OrderCancelled:
		return nil
	case OrderDelivered:
		return Errorf(ECONFLICT, "Order %s is Delivered, which is final: its parcels have left the warehouse. Send a new order instead.", externalID)
	}
	return Errorf(ECONFLICT, "Order %s is %s and still open; only an order in Error or Cancelled can be sent again.", externalID, st)
}

// CancelDecision applies a client's cancel to an order in st: it moves a
// Created or Submitted order; cancelling a Cancelled order changes nothing
// (move false, no error); any other status is ECONFLICT.
func CancelDecision(externalID string, st OrderStatus) (move bool, err error) {
	switch {
	case st == OrderCancelled:
		return false, nil
	case !CanMove(st, OrderCancelled):
		return false, Errorf(ECONFLICT, "Order %s is %s and can no longer be cancelled.", externalID, st)
	}
	return true, nil
}

// OperatorMoveDecision applies the operator's (or a manual warehouse's)
// move of an order in from to status to: a move of the table; moving to
// the status the order has changes nothing; anything else is ECONFLICT.
func OperatorMoveDecision(externalID string, from, to OrderStatus) (move bool, err error) {
	switch {
	case from == to:
		return false, nil
	case !CanMove(from, to):
		return false, Errorf(ECONFLICT, "Order %s is %s and cannot move to %s (Created → Submitted → Delivered; Created or Submitted → Cancelled or Error).", externalID, from, to)
	}
	return true, nil
}

// PreferencesDecision applies a change of autoSubmit to an order in st:
// a no-op is always allowed; a change only while the order is Created.
func PreferencesDecision(externalID string, st OrderStatus, current, want bool) (change bool, err error) {
	switch {
	case current == want:
		return false, nil
	case st != OrderCreated:
		return false, Errorf(ECONFLICT, "Order %s is %s; autoSubmit only matters while an order is Created.", externalID, st)
	}
	return true, nil
}

// Reasons written on moves that came without one.
const (
	ReasonClientCancel    = "Cancelled by the client."
	ReasonWarehouseError  = "The warehouse could not handle the order."
	ReasonWarehouseCancel = "Cancelled by the warehouse."
)

// DefaultReason is the reason kept for a move to to that came without
// one: Error and Cancelled always say why.
func DefaultReason(to OrderStatus, reason string) string {
	if reason != "" {
		return reason
	}
	switch to {
	case OrderError:
		return ReasonWarehouseError
	case OrderCancelled:
		return ReasonWarehouseCancel
	}
	return ""
}
