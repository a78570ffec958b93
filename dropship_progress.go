package parcelgate

import (
	"slices"
)

// OrderPartiallyDelivered is the status of an order, and of its rows, whose
// suppliers differ or whose delivered quantities fall short of the ordered
// ones (the provider's Orders V3).
const OrderPartiallyDelivered OrderStatus = "Partially delivered"

// OrderProgress is what the suppliers' shipments make of a retailer's
// order (decisions §34): the order's status, each row's status, delivered
// quantity and tracking codes, and the order's tracking codes.
type OrderProgress struct {
	Status        OrderStatus
	Rows          []RowProgress
	TrackingCodes []string
}

// RowProgress is one order row's part of OrderProgress; rows not shipped
// by a supplier are zero (Status "").
type RowProgress struct {
	Status            OrderStatus
	DeliveredQuantity *Quantity
	TrackingCodes     []string
}

// WarehousePart is the warehouse's part of an order that mixes warehouse
// and supplier rows (decisions §38): its status, which the warehouse
// engine (or the operator) moves as it moves a whole warehouse order, the
// order rows it ships, and each one's tracking codes once Delivered.
type WarehousePart struct {
	Status OrderStatus
	Lines  []int
	Codes  [][]string
}

// DropshipOfRows is a shipment with, for each of its rows, the order row
// it ships.
type DropshipOfRows struct {
	Shipment *DropshipShipment
	Lines    []int
}

// Progress copies the suppliers' shipments back to an order of rows order
// rows: a row follows its shipment's status (Viewed, Picking, ... as the
// supplier writes them; Created and Submitted read as Submitted once the
// order has moved); once Delivered it is Delivered when it got its whole
// quantity, "Partially delivered" when it got part, and Delivered with
// deliveredQuantity 0 when the supplier sent none of it (how the provider
// shows a supplier's cancellation of a row); a Cancelled shipment's rows
// are Cancelled, an Error shipment's Error. The order is Created while
// every shipment is; Submitted while they are in progress and nothing is
// delivered; once something is delivered and anything else is open or
// short, "Partially delivered"; Delivered when every row got its whole
// quantity; Cancelled when every shipment is, Error when every shipment
// ended without delivering and one is in Error.
//
// wh, when not nil, is the warehouse part of an order that mixes warehouse
// and supplier rows (decisions §38): it counts as one more party, its rows
// showing its status (Created, Submitted, Delivered in full, Cancelled,
// Error) and its tracking codes.
func Progress(rows int, shipments []DropshipOfRows, wh *WarehousePart) OrderProgress {
	out := OrderProgress{Rows: make([]RowProgress, rows), TrackingCodes: []string{}}
	allCreated, allFinal, anyDelivered, allFull, anyError, allCancelled := true, true, false, true, false, true
	parties := len(shipments)
	if wh != nil {
		parties++
		st := wh.Status
		allCreated = allCreated && st == OrderCreated
		allFinal = allFinal && st.Terminal()
		allCancelled = allCancelled && st == OrderCancelled
		anyError = anyError || st == OrderError
		anyDelivered = anyDelivered || st == OrderDelivered && len(wh.Lines) > 0
		allFull = allFull && st == OrderDelivered
		for i, line := range wh.Lines {
			if line < 0 || line >= rows {
				continue
			}
			rp := RowProgress{Status: st, TrackingCodes: []string{}}
			if i < len(wh.Codes) && st == OrderDelivered {
				rp.TrackingCodes = slices.Clone(wh.Codes[i])
			}
			out.TrackingCodes = append(out.TrackingCodes, rp.TrackingCodes...)
			out.Rows[line] = rp
		}
	}
	for _, sh := range shipments {
		s := sh.Shipment
		st := s.Status.Value
		all, _ := s.TrackingCodes("")
		out.TrackingCodes = append(out.TrackingCodes, all...)
		if st != DropshipCreated {
			allCreated = false
		}
		if !st.Final() {
			allFinal = false
		}
		if st != DropshipCancelled {
			allCancelled = false
		}
		if st == DropshipError {
			anyError = true
		}
		d := s.Delivered()
		for i, line := range sh.Lines {
			if line < 0 || line >= rows {
				continue
			}
			row := s.Consignment.Rows[i]
			rp := RowProgress{TrackingCodes: []string{}}
			switch st {
			case DropshipDelivered:
				q := Quantity(d[i])
				rp.DeliveredQuantity = &q
				_, rp.TrackingCodes = s.TrackingCodes(row.ItemID)
				switch {
				case d[i] >= int64(row.Quantity):
					rp.Status = OrderDelivered
				case d[i] > 0:
					rp.Status = OrderPartiallyDelivered
				default:
					rp.Status = OrderDelivered
				}
				if d[i] > 0 {
					anyDelivered = true
				}
				if d[i] < int64(row.Quantity) {
					allFull = false
				}
			case DropshipCancelled, DropshipError:
				q := Quantity(0)
				rp.DeliveredQuantity = &q
				rp.Status = OrderStatus(st)
				allFull = false
			case DropshipCreated:
				rp.Status = OrderCreated
				allFull = false
			default:
				rp.Status = OrderStatus(st)
				allFull = false
			}
			out.Rows[line] = rp
		}
	}
	switch {
	case parties == 0:
		out.Status = OrderCreated
	case allCancelled:
		out.Status = OrderCancelled
	case allFinal && allFull:
		out.Status = OrderDelivered
	case anyDelivered:
		out.Status = OrderPartiallyDelivered
	case allFinal && anyError:
		out.Status = OrderError
	case allFinal:
		out.Status = OrderCancelled
	case allCreated:
		out.Status = OrderCreated
	default:
		out.Status = OrderSubmitted
	}
	return out
}
